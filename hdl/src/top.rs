//! `PmcgCore`: the PMCG top. It only wires the blocks together and owns the ports.
//!
//! ```text
//!   presetn ──► rst_q (reset register) ──► every block's rst
//!   psel penable pwrite paddr
//!   pwdata pstrb pprot pnse ──► ApbCompleter ──req (registered)──► RegFile ──► irq
//!   prdata ◄── rd_data ◄─────────────────────────────────┘   ▲ registered lanes (match + filter)
//!   lane_valid$l lane_events$l lane_sid$l lane_ss$l lane_nosid$l lane_mpam$l
//!                                                  ──► lane registers (l < lanes)
//!   capt_req ──► capt_req_q ──► RegFile (capture) ──► capt_ack, ovf_export
//!   awready wready bvalid bresp ──► MsiMaster ◄── issue/payload ── RegFile
//!                                    └──► awvalid awaddr awprot wvalid wdata wstrb bready
//!   paddr ──► RegFile's AddrDecode (decode.rs): the address decoded into setup-cycle registers
//! ```
//! Only `ApbCompleter`'s setup registers, the register file's address decoder (its own setup
//! registers), `MsiMaster` (an AXI handshake needs READY at the edge) and this block's lane,
//! capture-request and reset registers read live inputs; the rest of the register file and the
//! counters see registers only.

use crate::apb::ApbCompleter;
use crate::config::PmcgConfig;
use crate::msi::MsiMaster;
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
    /// MSI AXI4-Lite write master (docs/behaviour.md "MSI write master").
    pub awready: Signal<In, Bit>,
    pub wready: Signal<In, Bit>,
    pub bvalid: Signal<In, Bit>,
    pub bresp: Signal<In, Bits<2>>,
    pub awvalid: Signal<Out, Bit>,
    pub awaddr_lo: Signal<Out, Bits<32>>,
    pub awaddr_hi: Signal<Out, Bits<32>>,
    pub awprot: Signal<Out, Bits<3>>,
    pub wvalid: Signal<Out, Bit>,
    pub wdata: Signal<Out, Bits<32>>,
    pub wstrb: Signal<Out, Bits<4>>,
    pub bready: Signal<Out, Bit>,
    /// IRQ_CFG2 (the wrapper takes MEMATTR and SH from it).
    pub msi_attr: Signal<Out, Bits<32>>,
    /// {NS [24], PMG [23:16], PARTID [15:0]} of the MSI (CFGR.MPAM), 0 outside AWVALID.
    pub msi_mpam: Signal<Out, Bits<32>>,
    /// External capture request / acknowledge (4-phase).
    pub capt_req: Signal<In, Bit>,
    pub capt_ack: Signal<Out, Bit>,
    /// Per-counter overflow pulses (export).
    pub ovf_export: Signal<Out, Bits<64>>,
    apb: ApbCompleter,
    regs: RegFile,
    msi: MsiMaster,
    capt_req_q: DFF<Bit>,
    /// PRESETn, registered: the whole design resets from a register, so that no block but the
    /// APB setup registers and the match stage depends on a live input (docs/behaviour.md).
    rst_q: DFF<Bit>,
    /// The match stage: every lane input registered as presented (the events gated by the
    /// valid bit); the register file matches them to counters in the next cycle
    /// (docs/behaviour.md). A reset edge drops them.
    lane_events_q: Vec<DFF<Bits<32>>>,
    lane_sid_q: Vec<DFF<Bits<32>>>,
    /// The lane's security state as a one-hot of the `acc` codes (0 NS, 1 S, 2 Realm, 3 Root,
    /// 4 SA, 5 NSP): no bit for Root and SA from StreamID traffic, which no filter accepts
    /// (10.4.2), so each counter's state check is one AND-OR.
    lane_acc_q: Vec<DFF<Bits<8>>>,
    lane_nosid_q: Vec<DFF<Bit>>,
    lane_mpam_q: Vec<DFF<Bits<32>>>,
}

impl PmcgCore {
    /// The PMCG of a configuration; the configuration is validated here.
    pub fn new(cfg: &PmcgConfig) -> Result<Self, crate::config::ConfigError> {
        Self::with_fault(cfg, None)
    }

    /// The same with a fault planted in a block of the register file (tests only).
    pub fn with_fault(
        cfg: &PmcgConfig,
        fault: Option<crate::regfile::RtlFault>,
    ) -> Result<Self, crate::config::ConfigError> {
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
            awready: Default::default(),
            wready: Default::default(),
            bvalid: Default::default(),
            bresp: Default::default(),
            awvalid: Default::default(),
            awaddr_lo: Default::default(),
            awaddr_hi: Default::default(),
            awprot: Default::default(),
            wvalid: Default::default(),
            wdata: Default::default(),
            wstrb: Default::default(),
            bready: Default::default(),
            msi_attr: Default::default(),
            msi_mpam: Default::default(),
            capt_req: Default::default(),
            capt_ack: Default::default(),
            ovf_export: Default::default(),
            apb: ApbCompleter::new(&crate::regmap::RegisterMap::new(cfg), cfg.filter_tables),
            regs: RegFile::with_fault(cfg, fault),
            msi: Default::default(),
            capt_req_q: Default::default(),
            lane_events_q: (0..lanes).map(|_| Default::default()).collect(),
            lane_sid_q: (0..lanes).map(|_| Default::default()).collect(),
            lane_acc_q: (0..lanes).map(|_| Default::default()).collect(),
            lane_nosid_q: (0..lanes).map(|_| Default::default()).collect(),
            lane_mpam_q: (0..lanes).map(|_| Default::default()).collect(),
            rst_q: Default::default(),
        })
    }
}

impl Logic for PmcgCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, pclk, rst_q, capt_req_q);
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
        self.regs.req_wr_ok.next = self.apb.req_wr_ok.val();
        self.apb.nsra_open.next = self.regs.nsra_open.val();
        self.regs.req_addr.next = self.apb.req_addr.val();
        self.regs.paddr.next = self.paddr.val();
        self.regs.held_wr_last.next = self.apb.held_wr_last.val();
        self.regs.held.next = self.apb.held.val();
        self.regs.xfer_nx.next = self.apb.xfer_nx.val();
        self.apb.filt_busy.next = self.regs.filt_busy.val();
        self.regs.req_wdata.next = self.apb.req_wdata.val();
        self.regs.req_strb.next = self.apb.req_strb.val();
        self.regs.req_ns.next = self.apb.req_ns.val();
        self.regs.req_root.next = self.apb.req_root.val();
        for l in 0..self.lane_valid.len() {
            self.lane_events_q[l].clock.next = self.pclk.val();
            self.lane_sid_q[l].clock.next = self.pclk.val();
            self.lane_acc_q[l].clock.next = self.pclk.val();
            self.lane_nosid_q[l].clock.next = self.pclk.val();
            self.lane_mpam_q[l].clock.next = self.pclk.val();
            // Gated by the valid bit here, on the pins' side of the register, not in front of
            // every counter's event select.
            self.lane_events_q[l].d.next = 0.into();
            if self.lane_valid[l].val() & (!self.rst_q.q.val()) {
                self.lane_events_q[l].d.next = self.lane_events[l].val();
            }
            self.lane_sid_q[l].d.next = self.lane_sid[l].val();
            self.lane_acc_q[l].d.next = bit_cast::<8, 1>(true.into()) << self.lane_ss[l].val();
            if (!self.lane_nosid[l].val())
                & ((self.lane_ss[l].val() == 3) | (self.lane_ss[l].val() == 4))
            {
                self.lane_acc_q[l].d.next = 0.into();
            }
            self.lane_nosid_q[l].d.next = self.lane_nosid[l].val();
            self.lane_mpam_q[l].d.next = self.lane_mpam[l].val();
            self.regs.lane_events[l].next = self.lane_events_q[l].q.val();
            self.regs.lane_sid[l].next = self.lane_sid_q[l].q.val();
            self.regs.lane_sid_live[l].next = self.lane_sid[l].val();
            self.regs.lane_acc[l].next = self.lane_acc_q[l].q.val();
            self.regs.lane_nosid[l].next = self.lane_nosid_q[l].q.val();
            self.regs.lane_mpam[l].next = self.lane_mpam_q[l].q.val();
        }
        self.irq.next = self.regs.irq.val();
        // Capture request (registered) and export.
        self.capt_req_q.d.next = self.capt_req.val() & (!self.rst_q.q.val()); // a reset edge drops it
        self.regs.capt_req.next = self.capt_req_q.q.val();
        self.capt_ack.next = self.regs.capt_ack.val();
        self.ovf_export.next = self.regs.ovf_export.val();
        // MSI master.
        self.msi.clock.next = self.pclk.val();
        self.msi.rst.next = self.rst_q.q.val();
        self.msi.awready.next = self.awready.val();
        self.msi.wready.next = self.wready.val();
        self.msi.bvalid.next = self.bvalid.val();
        self.msi.bresp.next = self.bresp.val();
        self.msi.issue.next = self.regs.msi_issue.val();
        self.msi.addr_lo.next = self.regs.msi_addr_lo.val();
        self.msi.addr_hi.next = self.regs.msi_addr_hi.val();
        self.msi.data.next = self.regs.msi_data.val();
        self.msi.prot.next = self.regs.msi_prot.val();
        self.msi.mpam.next = self.regs.msi_mpam.val();
        self.msi_mpam.next = self.msi.msi_mpam.val();
        self.msi.en_next.next = self.regs.irqen_next.val();
        self.msi.owed_next.next = self.regs.msi_owed_next.val();
        self.regs.msi_busy.next = self.msi.busy.val();
        self.regs.irq_ack.next = self.msi.ack.val();
        self.regs.irq_abt.next = self.msi.abt.val();
        self.awvalid.next = self.msi.awvalid.val();
        self.awaddr_lo.next = self.msi.awaddr_lo.val();
        self.awaddr_hi.next = self.msi.awaddr_hi.val();
        self.awprot.next = self.msi.awprot.val();
        self.wvalid.next = self.msi.wvalid.val();
        self.wdata.next = self.msi.wdata.val();
        self.wstrb.next = self.msi.wstrb.val();
        self.bready.next = self.msi.bready.val();
        self.msi_attr.next = self.regs.msi_attr.val();
    }
}
