//! `IrqIssue`: the wired interrupt pulse and the MSI's pending and issue decisions (SMMUv3
//! 10.2.1, 10.5.2.7, 10.5.2.19; docs/behaviour.md "Bitmaps, control and interrupt registers",
//! "MSI write master").
//!
//! ```text
//!   ovf[63:0], inten[63:0] ──► ovf_int_r = ovf & inten (per counter, registered at edge t)
//!   irqen (IRQ_CTRL.IRQEN of cycle t) ──► irqen_r
//!      ──► qual = irqen_r & OR(ovf_int_r)   (cycle t+1: edge t was a qualifying overflow edge)
//!      ──► irq_r ──► irq (cycle t+2)
//!   want  = pend | (qual & MSI & addr_nz)   (addr_nz: IRQ_CFG0.ADDR != 0)
//!   issue = want & !busy  ──► MsiMaster (msi.rs) takes the payload at this edge
//!   pend := want & !issue (never dropped, except by a reset); owed_next = pend' | (MSI & irqen)
//! ```
//!
//! Every overflow is registered per counter before the OR over the counters, so no path runs
//! from an event through the count and a 64-input OR in one cycle (issue 11); INTEN and IRQEN are
//! those of the overflow's cycle all the same. `irq` and the registers depend on registers only;
//! `issue` and `owed_next` also on `busy` and `irqen`, which come from registers (the MSI
//! master's and IRQ_CTRL's). Block-level tests: tests/irq_issue.rs, on native and Verilator
//! against a plain-Rust model of the contract; the whole design's are tests/interrupts.rs.

use rust_hdl::prelude::*;

/// A fault planted in the block (tests only: its block test must catch it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IrqFault {
    /// The old rule (issue 10): a pending MSI is dropped at an edge with IRQEN = 0 in its cycle.
    DropPendingWhenDisabled,
}

/// The interrupt and MSI issue logic (module docs).
#[derive(LogicBlock)]
pub struct IrqIssue {
    pub clock: Signal<In, Clock>,
    /// The design's reset (a register: the edge after PRESETn is sampled low).
    pub rst: Signal<In, Bit>,
    /// The counters that overflow at this edge, and INTEN.
    pub ovf: Signal<In, Bits<64>>,
    pub inten: Signal<In, Bits<64>>,
    /// IRQ_CTRL.IRQEN of this cycle (before this edge's write).
    pub irqen: Signal<In, Bit>,
    /// IRQ_CFG0.ADDR != 0 (MSI_ON).
    pub addr_nz: Signal<In, Bit>,
    /// An MSI is outstanding (the master's BUSY).
    pub busy: Signal<In, Bit>,
    /// The wired interrupt: 1 in the cycle two after a qualifying overflow edge.
    pub irq: Signal<Out, Bit>,
    /// The MSI is issued at this edge.
    pub issue: Signal<Out, Bit>,
    /// An MSI is owed after this edge (pending, or IRQEN = 1 now): IRQ_CTRLACK waits for it.
    pub owed_next: Signal<Out, Bit>,
    ovf_int_r: DFF<Bits<64>>,
    irqen_r: DFF<Bit>,
    irq_r: DFF<Bit>,
    pend: DFF<Bit>,
    qual: Signal<Local, Bit>,
    want: Signal<Local, Bit>,
    msi_impl: Constant<Bit>,
    drop_pend: Constant<Bit>,
}

impl IrqIssue {
    /// The block, with or without the MSI (`msi` key), with `fault` planted (tests only).
    pub fn new(msi: bool, fault: Option<IrqFault>) -> Self {
        Self {
            clock: Default::default(),
            rst: Default::default(),
            ovf: Default::default(),
            inten: Default::default(),
            irqen: Default::default(),
            addr_nz: Default::default(),
            busy: Default::default(),
            irq: Default::default(),
            issue: Default::default(),
            owed_next: Default::default(),
            ovf_int_r: Default::default(),
            irqen_r: Default::default(),
            irq_r: Default::default(),
            pend: Default::default(),
            qual: Default::default(),
            want: Default::default(),
            msi_impl: Constant::new(msi),
            drop_pend: Constant::new(fault == Some(IrqFault::DropPendingWhenDisabled)),
        }
    }
}

impl Logic for IrqIssue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ovf_int_r, irqen_r, irq_r, pend);
        // A qualifying overflow edge, registered: the overflows per counter with INTEN, and
        // IRQEN of that cycle.
        self.ovf_int_r.d.next = self.ovf.val() & self.inten.val();
        self.irqen_r.d.next = self.irqen.val();
        self.qual.next = self.irqen_r.q.val() & self.ovf_int_r.q.val().any();
        self.irq_r.d.next = self.qual.val();
        // MSI: pending, issued when nothing is outstanding; IRQ_CFG0.ADDR = 0 means no MSI. A
        // pending MSI is issued whatever IRQEN is now: its overflow qualified while IRQEN was 1
        // (10.5.2.7), so it is a prior MSI that an IRQEN 1 -> 0 update waits for (10.5.2.19).
        self.want.next =
            self.pend.q.val() | (self.qual.val() & self.msi_impl.val() & self.addr_nz.val());
        self.issue.next = self.want.val() & (!self.busy.val());
        self.pend.d.next = self.want.val() & (!self.issue.val()) & (!self.rst.val());
        if self.drop_pend.val() {
            self.pend.d.next = self.pend.d.val() & self.irqen.val();
        }
        // IRQEN of this cycle: an overflow that qualified at this edge is owed an MSI.
        self.owed_next.next = self.pend.d.val() | (self.msi_impl.val() & self.irqen.val());
        self.irq.next = self.irq_r.q.val();
        if self.rst.val() {
            self.ovf_int_r.d.next = 0.into();
            self.irqen_r.d.next = false;
            self.irq_r.d.next = false;
        }
    }
}
