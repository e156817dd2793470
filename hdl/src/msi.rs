//! `MsiMaster`: the AXI4-Lite write channel of the PMCG's MSIs, the IRQ_CTRLACK update and
//! IRQ_STATUS.IRQ_ABT (10.2.1, 10.5.2.19-24). It is the only block after the APB setup registers
//! that reads live inputs (AWREADY, WREADY, BVALID, BRESP: a handshake needs them at the edge),
//! and it is small, so Verilator's input pass stays cheap.
//!
//! ```text
//!   RegFile ── issue, addr_lo/hi, data, prot, en_next ──► MsiMaster ── busy, ack, abt ──► RegFile
//!                                                          │
//!   AWREADY WREADY BVALID BRESP (live, sampled at the edge)┘──► AWVALID AWADDR AWPROT WVALID
//!                                                               WDATA BREADY (registers only)
//!   issue ─► aw_v = w_v = busy = 1, payload latched
//!   aw_v falls when AWREADY is sampled, w_v with WREADY; BREADY = busy & !aw_v & !w_v
//!   BVALID & BREADY ─► busy = 0, BRESP[1] ─► IRQ_ABT
//!   ACK := EN_next | (ACK & (busy_next | owed_next)); IRQ_ABT cleared when ACK goes 0 -> 1
//! ```
//! The contract is docs/behaviour.md, "IRQ_CTRL / IRQ_CTRLACK and IRQ_STATUS" and "MSI write
//! master". Block-level tests: tests/msi_master.rs, on this block natively and on its Verilog
//! (`pmcg_synth::msi`) under Verilator.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct MsiMaster {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// AXI4-Lite inputs, live.
    pub awready: Signal<In, Bit>,
    pub wready: Signal<In, Bit>,
    pub bvalid: Signal<In, Bit>,
    pub bresp: Signal<In, Bits<2>>,
    /// Issue an MSI at this edge (the register file decides; only when `busy` is 0).
    pub issue: Signal<In, Bit>,
    /// The payload to latch at the issuing edge: address bits [31:0] and [63:32], data, AWPROT.
    pub addr_lo: Signal<In, Bits<32>>,
    pub addr_hi: Signal<In, Bits<32>>,
    pub data: Signal<In, Bits<32>>,
    pub prot: Signal<In, Bits<3>>,
    /// MPAM sidebands of the MSI (CFGR.MPAM), latched like the payload.
    pub mpam: Signal<In, Bits<32>>,
    /// IRQ_CTRL.IRQEN after this edge.
    pub en_next: Signal<In, Bit>,
    /// An MSI is owed after this edge (from the register file): one is pending, or an overflow
    /// that qualified at this edge will make one pending at the next.
    pub owed_next: Signal<In, Bit>,
    pub awvalid: Signal<Out, Bit>,
    pub awaddr_lo: Signal<Out, Bits<32>>,
    pub awaddr_hi: Signal<Out, Bits<32>>,
    pub awprot: Signal<Out, Bits<3>>,
    pub msi_mpam: Signal<Out, Bits<32>>,
    pub wvalid: Signal<Out, Bit>,
    pub wdata: Signal<Out, Bits<32>>,
    pub wstrb: Signal<Out, Bits<4>>,
    pub bready: Signal<Out, Bit>,
    /// An MSI is outstanding (issued, its response not yet accepted).
    pub busy: Signal<Out, Bit>,
    /// IRQ_CTRLACK.IRQEN and IRQ_STATUS.IRQ_ABT.
    pub ack: Signal<Out, Bit>,
    pub abt: Signal<Out, Bit>,
    aw_v: DFF<Bit>,
    w_v: DFF<Bit>,
    busy_r: DFF<Bit>,
    addr_lo_r: DFF<Bits<32>>,
    addr_hi_r: DFF<Bits<32>>,
    data_r: DFF<Bits<32>>,
    prot_r: DFF<Bits<3>>,
    mpam_r: DFF<Bits<32>>,
    ack_r: DFF<Bit>,
    abt_r: DFF<Bit>,
    busy_next: Signal<Local, Bit>,
    ack_next: Signal<Local, Bit>,
    accept_b: Signal<Local, Bit>,
}

impl Logic for MsiMaster {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, aw_v, w_v, busy_r, addr_lo_r, addr_hi_r, data_r, prot_r, mpam_r, ack_r,
            abt_r
        );
        // VALIDs fall at the edge that samples their READY; nothing else looks at READY.
        self.aw_v.d.next = self.aw_v.q.val() & (!self.awready.val());
        self.w_v.d.next = self.w_v.q.val() & (!self.wready.val());
        // The response: BREADY is high once AW and W are both accepted.
        self.accept_b.next =
            self.busy_r.q.val() & (!self.aw_v.q.val()) & (!self.w_v.q.val()) & self.bvalid.val();
        self.busy_next.next = self.busy_r.q.val() & (!self.accept_b.val());
        // The payload follows its sources at every edge with nothing outstanding, the issuing
        // edge included, and holds while an MSI is: the same values as latching at the issue,
        // with the load enable a register rather than the overflow-to-issue logic.
        if !self.busy_r.q.val() {
            self.addr_lo_r.d.next = self.addr_lo.val();
            self.addr_hi_r.d.next = self.addr_hi.val();
            self.data_r.d.next = self.data.val();
            self.prot_r.d.next = self.prot.val();
            self.mpam_r.d.next = self.mpam.val();
        }
        if self.issue.val() {
            self.aw_v.d.next = true;
            self.w_v.d.next = true;
            self.busy_next.next = true;
        }
        self.busy_r.d.next = self.busy_next.val();
        // 10.5.2.19: an update 1 -> 0 completes when every issued MSI has completed.
        // 10.5.2.19: an IRQEN 1 -> 0 update completes when every prior MSI, outstanding or
        // pending, has completed.
        self.ack_next.next = self.en_next.val()
            | (self.ack_r.q.val() & (self.busy_next.val() | self.owed_next.val()));
        self.ack_r.d.next = self.ack_next.val();
        // 10.5.2.24: SLVERR / DECERR (BRESP[1]) set IRQ_ABT; ACK 0 -> 1 clears it.
        self.abt_r.d.next = self.abt_r.q.val();
        if (!self.ack_r.q.val()) & self.ack_next.val() {
            self.abt_r.d.next = false;
        }
        if self.accept_b.val() & self.bresp.val().get_bit(1) {
            self.abt_r.d.next = true;
        }
        if self.rst.val() {
            self.aw_v.d.next = false;
            self.w_v.d.next = false;
            self.busy_r.d.next = false;
            self.ack_r.d.next = false;
            self.abt_r.d.next = false;
        }
        // A payload reads 0 outside its VALID (docs/behaviour.md).
        self.awvalid.next = self.aw_v.q.val();
        self.wvalid.next = self.w_v.q.val();
        self.awaddr_lo.next = 0.into();
        self.awaddr_hi.next = 0.into();
        self.awprot.next = 0.into();
        self.msi_mpam.next = 0.into();
        self.wdata.next = 0.into();
        self.wstrb.next = 0.into();
        if self.aw_v.q.val() {
            self.awaddr_lo.next = self.addr_lo_r.q.val();
            self.awaddr_hi.next = self.addr_hi_r.q.val();
            self.awprot.next = self.prot_r.q.val();
            self.msi_mpam.next = self.mpam_r.q.val();
        }
        if self.w_v.q.val() {
            self.wdata.next = self.data_r.q.val();
            self.wstrb.next = 0xFu64.into();
        }
        self.bready.next = self.busy_r.q.val() & (!self.aw_v.q.val()) & (!self.w_v.q.val());
        self.busy.next = self.busy_r.q.val();
        self.ack.next = self.ack_r.q.val();
        self.abt.next = self.abt_r.q.val();
    }
}
