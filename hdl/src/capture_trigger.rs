//! `CaptureTrigger`: when the SVR shadows load (SMMUv3 10.2.1, 10.5.2.3, 10.5.2.11;
//! docs/behaviour.md "Capture").
//!
//! ```text
//!   ovfcap[63:0] (counters overflowing at this edge with EVTYPERn.OVFCAP = 1)
//!      ──► OR per group of cap_group(counters) counters ──┐
//!   capr (a CAPR.CAPTURE write at this edge) ─────────────┤
//!   capt_req (registered) & !capt_ack ─────────────────────┴─► cap_grp_r (<= 16 groups)
//!      ──► OR ──► svr_load (cycle t+1: the SVRs load the counters' q at edge t+1)
//!   capt_req ──► capt_ack_r ──► capt_ack (the 4-phase handshake's acknowledge)
//! ```
//!
//! A capture at edge t takes every counter's value after edge t: the register file loads the
//! shadows from the counters' registers at edge t+1 (`svr_load`), and a read in cycle t+1 sees
//! the counter meanwhile (no contract change). The OR within a group sits before the register,
//! the OR of the at most 16 groups after it: `svr_load` fans out to every shadow's enable from
//! two LUT levels, not three (32x32 with filter tables, seed 2 of the sweep at e0c383e: 92.5
//! MHz), and an overflow's path into the register gains at most an OR of four (64 counters).
//! Block-level tests: tests/capture_trigger.rs (native and Verilator, against a plain-Rust
//! model of the contract); the whole design's are tests/capture.rs.

use rust_hdl::prelude::*;

/// Counters per group of the first OR (`cap_grp_r`): at most 16 groups, so the OR after the
/// register is two LUT levels; 1 up to 16 counters (no OR before it), 2 up to 32, 4 up to 64.
pub const fn cap_group(counters: usize) -> usize {
    counters.div_ceil(16)
}

/// A fault planted in the block (tests only: its block test must catch it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureFault {
    /// The last group's overflows are not ORed in (a group mask one group short).
    LastGroupLost,
}

/// The capture trigger (module docs).
#[derive(LogicBlock)]
pub struct CaptureTrigger {
    pub clock: Signal<In, Clock>,
    /// The design's reset (a register).
    pub rst: Signal<In, Bit>,
    /// Per counter: overflows at this edge with EVTYPERn.OVFCAP = 1.
    pub ovfcap: Signal<In, Bits<64>>,
    /// A permitted CAPR write with bit 0 set is performed at this edge.
    pub capr: Signal<In, Bit>,
    /// The external request, registered.
    pub capt_req: Signal<In, Bit>,
    /// The SVRs load the counters' q at this edge: a capture happened at the last edge.
    pub svr_load: Signal<Out, Bit>,
    pub capt_ack: Signal<Out, Bit>,
    capt_ack_r: DFF<Bit>,
    cap_grp_r: DFF<Bits<16>>,
    cap_now: Signal<Local, Bit>,
    grp: Signal<Local, Bits<16>>,
    /// The counters of group g.
    cap_grp_mask: Vec<Constant<Bits<64>>>,
    capture_impl: Constant<Bit>,
}

impl CaptureTrigger {
    /// The trigger of `counters` (1-64) counters, with or without capture (`capture` key), with
    /// `fault` planted (tests only).
    pub fn new(counters: usize, capture: bool, fault: Option<CaptureFault>) -> Self {
        assert!(
            (1..=64).contains(&counters),
            "1-64 counters, not {counters}"
        );
        let per = cap_group(counters);
        let groups = counters.div_ceil(per);
        let lost = fault == Some(CaptureFault::LastGroupLost);
        Self {
            clock: Default::default(),
            rst: Default::default(),
            ovfcap: Default::default(),
            capr: Default::default(),
            capt_req: Default::default(),
            svr_load: Default::default(),
            capt_ack: Default::default(),
            capt_ack_r: Default::default(),
            cap_grp_r: Default::default(),
            cap_now: Default::default(),
            grp: Default::default(),
            cap_grp_mask: (0..groups)
                .map(|g| {
                    if lost && g == groups - 1 {
                        return Constant::new(0.into());
                    }
                    let mask = ((1u64 << per) - 1) << (g * per);
                    let all = if counters == 64 {
                        u64::MAX
                    } else {
                        (1u64 << counters) - 1
                    };
                    Constant::new((mask & all).into())
                })
                .collect(),
            capture_impl: Constant::new(capture),
        }
    }
}

impl Logic for CaptureTrigger {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, capt_ack_r, cap_grp_r);
        self.capt_ack_r.d.next = self.capture_impl.val() & self.capt_req.val();
        self.cap_now.next = self.capture_impl.val()
            & (self.capr.val() | (self.capt_req.val() & (!self.capt_ack_r.q.val())));
        // (Built in a Local, then assigned whole: every used bit is replaced.)
        self.grp.next = 0.into();
        for g in 0..self.cap_grp_mask.len() {
            self.grp.next = self
                .grp
                .val()
                .replace_bit(g, (self.ovfcap.val() & self.cap_grp_mask[g].val()).any());
        }
        self.cap_grp_r.d.next = 0.into();
        if self.capture_impl.val() & (!self.rst.val()) {
            self.cap_grp_r.d.next = self.grp.val();
            if self.cap_now.val() {
                self.cap_grp_r.d.next = self.grp.val() | 1u64;
            }
        }
        if self.rst.val() {
            self.capt_ack_r.d.next = false;
        }
        self.svr_load.next = self.cap_grp_r.q.val().any();
        self.capt_ack.next = self.capt_ack_r.q.val();
    }
}
