//! `BankIndex`: the part of an upper-word bank (hi_bank.rs) that reads the live PADDR. The
//! addressed element's index is registered here at every edge, beside `pf_eq`, the exact
//! "the prefetch holds the addressed row" flag that the bank's choice of row needs from a single
//! flip-flop (the 16x64 critical path ran through a 6-bit compare in front of the block RAM's
//! address).
//!
//! ```text
//!   paddr (live) ──► idx_nx = paddr[idx_lsb+5 : idx_lsb] ──► tgt_idx_r ──► tgt_idx
//!   pf_idx, vis_idx, tgt_idx_r ─┐ (pf_idx after this edge: unchanged, the visit's row (sel_vis)
//!   sel_vis, wr ────────────────┴► or the written one (wr)) == idx_nx ──► pf_eq_r ──► pf_eq
//! ```
//! Why a block of its own: the bank's logic reads only registers and the register file's
//! registered strobes, so the simulators evaluate it once per edge. Verilator orders an always
//! block that reads a top-level input into its input region (`ico`), which runs at every
//! `eval()`, twice per simulated cycle; when this register sat in the bank's always block, both
//! banks' whole engines ran there (issue 11's Verilator guard). After flattening, Yosys sees the
//! same gates.
//!
//! Checked as part of the bank by its block-level tests (tests/hi_bank.rs, on native and on
//! Verilator): `ready` (which is `pf_ok & pf_eq`) and the prefetch are compared against the
//! bank's model in every access cycle.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct BankIndex {
    pub clock: Signal<In, Clock>,
    /// The live PADDR.
    pub paddr: Signal<In, Bits<32>>,
    /// The bank's prefetch row now, the row its visit serves, and whether the prefetch takes
    /// that row at this edge (`sel_vis`) or the written one (`wr`: `tgt_idx`'s row).
    pub pf_idx: Signal<In, Bits<6>>,
    pub vis_idx: Signal<In, Bits<6>>,
    pub sel_vis: Signal<In, Bit>,
    pub wr: Signal<In, Bit>,
    /// PADDR's element index at the last edge.
    pub tgt_idx: Signal<Out, Bits<6>>,
    /// The prefetch row equals `tgt_idx` (both as of the last edge).
    pub pf_eq: Signal<Out, Bit>,
    tgt_idx_r: DFF<Bits<6>>,
    pf_eq_r: DFF<Bit>,
    idx_nx: Signal<Local, Bits<6>>,
    idx_shift: Constant<Bits<32>>,
}

impl BankIndex {
    /// The element index is PADDR bits [idx_lsb + 5 : idx_lsb].
    pub fn new(idx_lsb: usize) -> Self {
        assert!(
            idx_lsb <= 26,
            "BankIndex: the element index lies within PADDR"
        );
        BankIndex {
            clock: Default::default(),
            paddr: Default::default(),
            pf_idx: Default::default(),
            vis_idx: Default::default(),
            sel_vis: Default::default(),
            wr: Default::default(),
            tgt_idx: Default::default(),
            pf_eq: Default::default(),
            tgt_idx_r: Default::default(),
            pf_eq_r: Default::default(),
            idx_nx: Default::default(),
            idx_shift: Constant::new((idx_lsb as u64).into()),
        }
    }
}

impl Logic for BankIndex {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, tgt_idx_r, pf_eq_r);
        self.idx_nx.next = bit_cast::<6, 32>(self.paddr.val() >> self.idx_shift.val());
        self.tgt_idx_r.d.next = self.idx_nx.val();
        // Compared with each candidate for the prefetch row after this edge, then selected as
        // the bank selects `pf_idx` (no compare behind the select).
        self.pf_eq_r.d.next = self.pf_idx.val() == self.idx_nx.val();
        if self.sel_vis.val() {
            self.pf_eq_r.d.next = self.vis_idx.val() == self.idx_nx.val();
        }
        if self.wr.val() {
            self.pf_eq_r.d.next = self.tgt_idx_r.q.val() == self.idx_nx.val();
        }
        self.tgt_idx.next = self.tgt_idx_r.q.val();
        self.pf_eq.next = self.pf_eq_r.q.val();
    }
}
