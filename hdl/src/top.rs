//! `PmcgCore`: the PMCG top. It only wires the blocks together and owns the ports.
//!
//! ```text
//!   presetn ──► rst_q (reset register) ──► every block's rst
//!   psel penable pwrite paddr
//!   pwdata pstrb pprot pnse ──► ApbCompleter ──req (registered)──► RegFile ──► irq
//!   prdata ◄── rd_data ◄─────────────────────────────────┘   ▲ registered lanes (match + filter)
//!   lane_valid$l lane_events$l lane_sid$l lane_ss$l lane_nosid$l lane_mpam$l
//!                                                  ──► lane registers (l < lanes)
//! ```
//! Only `ApbCompleter`'s setup registers and this block's lane and reset registers read live
//! inputs; the register file and the counters see registers only.

use crate::apb::ApbCompleter;
use crate::config::PmcgConfig;
use crate::regfile::RegFile;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct PmcgCore {
    pub pclk: Signal<In, Clock>,
    pub presetn: Signal<In, Bit>,
    pub psel: Signal<In, Bit>,
    pub penable: Signal<In, Bit>,
    pub pwrite: Signal<In, Bit>,
    pub paddr: Signal<In, Bits<32>>,
    pub pwdata: Signal<In, Bits<32>>,
    pub pstrb: Signal<In, Bits<4>>,
    pub pprot: Signal<In, Bits<3>>,
    /// APB5 PNSE: {PNSE, PPROT[1]} = 10 is a Root access, 11 Realm (used with Realm only).
    pub pnse: Signal<In, Bit>,
    pub prdata: Signal<Out, Bits<32>>,
    pub pready: Signal<Out, Bit>,
    pub pslverr: Signal<Out, Bit>,
    pub lane_valid: Vec<Signal<In, Bit>>,
    pub lane_events: Vec<Signal<In, Bits<32>>>,
    pub lane_sid: Vec<Signal<In, Bits<32>>>,
    /// Security state: 0 NS, 1 S, 2 Realm, 3 Root, 4 SA, 5 NSP (docs/behaviour.md).
    pub lane_ss: Vec<Signal<In, Bits<3>>>,
    /// NoStreamID access on the lane (10.4.2).
    pub lane_nosid: Vec<Signal<In, Bit>>,
    /// MPAM labels: `config::lane_mpam_word` packing (used with the MPAM filter only).
    pub lane_mpam: Vec<Signal<In, Bits<32>>>,
    /// Wired interrupt, edge-triggered: one-cycle pulses.
    pub irq: Signal<Out, Bit>,
    apb: ApbCompleter,
    regs: RegFile,
    /// PRESETn, registered: the whole design resets from a register, so that no block but the
    /// APB setup registers and the match stage depends on a live input (docs/behaviour.md).
    rst_q: DFF<Bit>,
    /// The match stage: every lane input registered as presented; the register file matches them
    /// to counters in the next cycle (docs/behaviour.md). A reset edge drops them.
    lane_valid_q: Vec<DFF<Bit>>,
    lane_events_q: Vec<DFF<Bits<32>>>,
    lane_sid_q: Vec<DFF<Bits<32>>>,
    lane_ss_q: Vec<DFF<Bits<3>>>,
    lane_nosid_q: Vec<DFF<Bit>>,
    lane_mpam_q: Vec<DFF<Bits<32>>>,
}

impl PmcgCore {
    /// The PMCG of a configuration; the configuration is validated here.
    pub fn new(cfg: &PmcgConfig) -> Result<Self, crate::config::ConfigError> {
        cfg.validate()?;
        let lanes = cfg.lanes as usize;
        Ok(PmcgCore {
            pclk: Default::default(),
            presetn: Default::default(),
            psel: Default::default(),
            penable: Default::default(),
            pwrite: Default::default(),
            paddr: Default::default(),
            pwdata: Default::default(),
            pstrb: Default::default(),
            pprot: Default::default(),
            pnse: Default::default(),
            prdata: Default::default(),
            pready: Default::default(),
            pslverr: Default::default(),
            lane_valid: (0..lanes).map(|_| Default::default()).collect(),
            lane_events: (0..lanes).map(|_| Default::default()).collect(),
            lane_sid: (0..lanes).map(|_| Default::default()).collect(),
            lane_ss: (0..lanes).map(|_| Default::default()).collect(),
            lane_nosid: (0..lanes).map(|_| Default::default()).collect(),
            lane_mpam: (0..lanes).map(|_| Default::default()).collect(),
            irq: Default::default(),
            apb: Default::default(),
            regs: RegFile::new(cfg),
            lane_valid_q: (0..lanes).map(|_| Default::default()).collect(),
            lane_events_q: (0..lanes).map(|_| Default::default()).collect(),
            lane_sid_q: (0..lanes).map(|_| Default::default()).collect(),
            lane_ss_q: (0..lanes).map(|_| Default::default()).collect(),
            lane_nosid_q: (0..lanes).map(|_| Default::default()).collect(),
            lane_mpam_q: (0..lanes).map(|_| Default::default()).collect(),
            rst_q: Default::default(),
        })
    }
}

impl Logic for PmcgCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, pclk, rst_q);
        self.rst_q.d.next = !self.presetn.val();
        self.apb.clock.next = self.pclk.val();
        self.regs.clock.next = self.pclk.val();
        // The APB setup registers take the live reset, so a transfer may start in the first cycle
        // after PRESETn rises (its access then sees the reset state).
        self.apb.rst.next = !self.presetn.val();
        self.regs.rst.next = self.rst_q.q.val();
        self.apb.psel.next = self.psel.val();
        self.apb.penable.next = self.penable.val();
        self.apb.pwrite.next = self.pwrite.val();
        self.apb.paddr.next = self.paddr.val();
        self.apb.pwdata.next = self.pwdata.val();
        self.apb.pstrb.next = self.pstrb.val();
        self.apb.pprot.next = self.pprot.val();
        self.apb.pnse.next = self.pnse.val();
        // PRDATA is the register file's read data of the access cycle (a function of registers);
        // wired here rather than through the APB block to keep the native settle short.
        self.prdata.next = self.regs.rd_data.val();
        self.pready.next = self.apb.pready.val();
        self.pslverr.next = self.apb.pslverr.val();
        self.regs.req_rd.next = self.apb.req_rd.val();
        self.regs.req_wr.next = self.apb.req_wr.val();
        self.regs.req_addr.next = self.apb.req_addr.val();
        self.regs.req_wdata.next = self.apb.req_wdata.val();
        self.regs.req_strb.next = self.apb.req_strb.val();
        self.regs.req_ns.next = self.apb.req_ns.val();
        self.regs.req_root.next = self.apb.req_root.val();
        for l in 0..self.lane_valid.len() {
            self.lane_valid_q[l].clock.next = self.pclk.val();
            self.lane_events_q[l].clock.next = self.pclk.val();
            self.lane_sid_q[l].clock.next = self.pclk.val();
            self.lane_ss_q[l].clock.next = self.pclk.val();
            self.lane_nosid_q[l].clock.next = self.pclk.val();
            self.lane_mpam_q[l].clock.next = self.pclk.val();
            self.lane_valid_q[l].d.next = self.lane_valid[l].val() & (!self.rst_q.q.val());
            self.lane_events_q[l].d.next = self.lane_events[l].val();
            self.lane_sid_q[l].d.next = self.lane_sid[l].val();
            self.lane_ss_q[l].d.next = self.lane_ss[l].val();
            self.lane_nosid_q[l].d.next = self.lane_nosid[l].val();
            self.lane_mpam_q[l].d.next = self.lane_mpam[l].val();
            self.regs.lane_valid[l].next = self.lane_valid_q[l].q.val();
            self.regs.lane_events[l].next = self.lane_events_q[l].q.val();
            self.regs.lane_sid[l].next = self.lane_sid_q[l].q.val();
            self.regs.lane_ss[l].next = self.lane_ss_q[l].q.val();
            self.regs.lane_nosid[l].next = self.lane_nosid_q[l].q.val();
            self.regs.lane_mpam[l].next = self.lane_mpam_q[l].q.val();
        }
        self.irq.next = self.regs.irq.val();
    }
}
