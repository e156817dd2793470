//! `HiBank`: the parts of every counter and of its shadow (SVR) above the low word, in block
//! RAM, kept exact by one carry-service engine (issue 11). Each counter has one or two rows: the
//! register file's row 0 ("mid") holds bits [31:L] (rows of 32 - L bits, a carry from the
//! L-bit low words in flip-flops, [`low_word_bits`]) and, with 64-bit counters, row 1 bits
//! [63:32] (the carry out of bit 31, which row 0's `at_max` predicts exactly). The rows share
//! every visit (one scan, one prefetch, one set of fresh and stale flags: the control of two
//! banks once, the cells of 64-bit counters' second bank saved); each has its own block RAMs,
//! pending carries, flags and prefetch registers, and behaves as a one-row bank would. Below,
//! "upper word" is a row and "low word" the bits beneath it; a carry into a row sets the
//! counter's `pend` bit of that row here, and the engine adds it to the row later.
//!
//! ```text
//!   (per row r: carry[r], pend[r], pend_a[r], c_ram[r], s_ram[r], d_r[r], pf[r], spf[r], wr_val[r],
//!    at_max[r], ...; the visit, `fresh`, `stale` and the prefetch's index are shared)
//!   carry[63:0] (low-word carries at this edge) ──► pend[n] ──────────────────────► pend
//!   paddr (live) ──► BankIndex (hi_bank_index.rs) ──► tgt_idx, pf_eq (= pf_idx == tgt_idx)
//!   tgt_sel (one-hot: the decoded element), tgt_any (a counter is held or accessed: tgt_sel
//!            means it)
//!   phase A: target = the addressed counter while pf does not hold it (the prefetch), else the
//!            scan pointer ──► c_ram / s_ram read address; vis_idx, vis_oh, and the target's
//!            pend / fresh / stale flags as of this cycle (pend_a, fresh_a, stale_a)
//!   phase B: d_r := c_ram[vis] (0 while fresh), sd_r := s_ram[vis] (registered: no adder
//!            behind the block RAM's output), and whether the row's bits [W-1:2] are all ones,
//!            in two halves of at most 16 bits (up_lo_r, up_hi_r: two LUT levels behind the
//!            RAM's output, no enable: loaded at every edge, read only in phase C)
//!   phase C: d = d_r;  c_ram[vis] := d + pend_a;  pend[vis] cleared if pend_a (a carry at phase A's edge
//!            stays pending);  ones / ones_m1 of the new row (phase B's halves and d's bits
//!            [1:0], selected by pend_a: no adder, no wide compare in front of the flags)
//!            s_ram[vis] := d if stale (copy-on-write) or capturing at A's, B's or C's edge
//!            vis is the prefetched counter ──► pf := d + pend_a, spf := its shadow
//!            (the scan leaves the addressed counter alone: pf does not move under a transfer)
//!   wr (an EVCNTR write, access edge) ──► c_ram[tgt] := wr_val (pend folded in by the caller,
//!            who also compares it: wr_ones, wr_m1), pf := wr_val, copy-on-write of the old row
//!            (pf); a visit whose A, B or C edge it is drops its result (same write port; a
//!            row read at or before this edge is stale)
//!   svr_load (capture) ──► every counter stale: its shadow's upper word is its c_ram row
//!   at_max[n] = pend ? ones_m1 : ones  (upper word + pend is all ones: the overflow prediction)
//! ```
//! The value of counter n is ((c_ram[n] + pend[n]) << 32) | lo; of SVRn, ((stale[n] ? c_ram[n] :
//! s_ram[n]) + s_pend[n]) << 32 | s_lo. Every pending carry is served within
//! [`hi_service_bound`] cycles, under any traffic the register file presents (held transfers of
//! at least 10 cycles with a cycle of nothing addressed between them: `tgt_any` = 0). A visit
//! takes 3 cycles; of the at least 3 visits in a transfer and its gap, at most one is its
//! prefetch, which serves the addressed counter, and one a scan visit dropped for a write, which
//! the scan then repeats; the rest advance the scan (at least one per 12 cycles). The low
//! words are as narrow as the bound allows: an L-bit low word ([`low_word_bits`]) wraps again only after
//! more edges than the bound (a carry out of bit 31 at most once in 2^32 / 8 cycles), so `pend`
//! never needs a second bit (a write folds it in: nothing stays pending on a row the caller
//! rewrites).
//!
//! The contract with the register file (docs/behaviour.md "Counter and shadow accesses"): an
//! EVCNTR/SVR transfer is held COUNTER_HOLD_CYCLES wait states with its address stable; within
//! HI_PREFETCH_CYCLES of them the engine has visited the addressed counter (`ready`), and from
//! then to the access edge `pf` and `spf` are that counter's upper word and shadow upper word
//! and `pf` does not change, so the caller reads `pf + pend` and computes a write's outcome from
//! `pf` during the hold. A write lands at its access edge. The block-level tests
//! (tests/hi_bank.rs) check `ready` and the prefetch against a model in every access cycle.
//!
//! Block RAM has no reset: a `fresh` flag per counter stands for a row of zeros until its first
//! write, and a reset marks every shadow stale (the SVRs reset to the counters' reset value, 0).
//! Spec: SMMUv3 10.2.1 (overflow at the edge it happens), 10.5.2.1, 10.5.2.3 (capture of every
//! counter at one instant).

use crate::hi_bank_index::BankIndex;
use rust_hdl::prelude::*;

/// Address bits of the upper-word block RAMs (64 rows: the largest configuration).
pub const HI_RAM_IDX_BITS: usize = 6;
/// The element index of an EVCNTR or SVR address of 64-bit counters (8-byte stride).
pub const HI_IDX_LSB: usize = 3;
/// The most cycles after a hold's first cycle before `ready` (the engine may be in phase B of
/// another counter's visit, then visits the addressed one: 3 cycles, and its result lands a
/// cycle later). Measured by the block tests (`max_prefetch`).
pub const HI_PREFETCH_CYCLES: usize = 6;

/// Every pending carry is served within this many cycles (`counters` of them): see the module
/// docs. The block-level tests space one counter's carries by exactly this much.
pub const fn hi_service_bound(counters: usize) -> u64 {
    12 * counters as u64 + 48
}

/// The width L of the counters' low words in flip-flops (`mid` holds bits [31:L]): the narrowest
/// (at least 4: the low word's carry is computed from its bits [3:0] and an all-ones compare of
/// the rest) in which no low word can wrap twice before its carry is served, `2^L > lanes *
/// (hi_service_bound + 1)` (a counter adds at most `lanes` per edge, 1 counting cycles): after a
/// wrap a low word holds less than `lanes` and needs more than the bound's edges to wrap again,
/// so `pend` needs one bit. At most 16. One lane: 8 bits up to 17 counters, 9 up to 38, 10 up
/// to 64; 8 lanes and 64 counters, 13. Narrower low words are fewer flip-flops, adder bits and
/// read-mux inputs per counter and shadow (issue 11: the cells the clock needs); their bits go
/// to `mid`'s rows.
pub const fn low_word_bits(counters: usize, lanes: usize) -> u32 {
    let max_inc = if lanes > 1 { lanes as u64 } else { 1 };
    let need = max_inc * (hi_service_bound(counters) + 1);
    let mut l = 4;
    while l < 16 && (1u64 << l) <= need {
        l += 1;
    }
    l
}

/// A fault to plant in the emitted logic (tests only: they must catch each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HiBankFault {
    /// A service adds nothing: a carry is lost.
    LostService,
    /// A capture does not mark the shadows stale: the copy-on-write comes too late.
    LateCopy,
}

#[derive(LogicBlock)]
pub struct HiBank {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// Per row, per counter: the carry into that row at this edge (row 0: the low word's; row
    /// 1: the carry out of row 0's part, which the caller predicts from row 0's `at_max`).
    pub carry: Vec<Signal<In, Bits<64>>>,
    /// The live PADDR: its element index (bits [idx_lsb + 5 : idx_lsb]) is registered here
    /// (with the decoder's `tgt_sel`).
    pub paddr: Signal<In, Bits<32>>,
    /// The decoded element, one-hot (the registered decode of the last PADDR): the addressed
    /// counter while `tgt_any`, and ignored otherwise.
    pub tgt_sel: Signal<In, Bits<64>>,
    /// An EVCNTR or SVR transfer is held or in its access cycle (`tgt_sel` is its counter).
    /// A separate bit from the caller's registers: no OR over the counters in front of the
    /// choice of the row to visit (the 16x32 critical path went through it).
    pub tgt_any: Signal<In, Bit>,
    /// An EVCNTR write to the addressed counter at this edge, and per row its new value and
    /// whether that is all ones, or all ones less one (the caller compares ahead of time).
    pub wr: Signal<In, Bit>,
    pub wr_val: Vec<Signal<In, Bits<32>>>,
    pub wr_ones: Vec<Signal<In, Bit>>,
    pub wr_m1: Vec<Signal<In, Bit>>,
    /// A capture: every shadow takes its counter's value at this edge.
    pub svr_load: Signal<In, Bit>,
    /// Per row: the addressed counter's row and its shadow's row (valid with `ready`).
    pub pf: Vec<Signal<Out, Bits<32>>>,
    pub spf: Vec<Signal<Out, Bits<32>>>,
    pub ready: Signal<Out, Bit>,
    /// Per row, per counter: a carry not yet added to the row.
    pub pend: Vec<Signal<Out, Bits<64>>>,
    /// Per row, per counter: the row + pend is all ones (a carry into it now carries out).
    pub at_max: Vec<Signal<Out, Bits<64>>>,
    // ---- Per row (one entry each).
    c_ram: Vec<RAM<Bits<32>, HI_RAM_IDX_BITS>>,
    s_ram: Vec<RAM<Bits<32>, HI_RAM_IDX_BITS>>,
    pend_r: Vec<DFF<Bits<64>>>,
    ones: Vec<DFF<Bits<64>>>,
    ones_m1: Vec<DFF<Bits<64>>>,
    /// Phase C: the visited row's data registered (`d_r`, `sd_r`; no adder behind the block
    /// RAM's output), its new value written.
    d_r: Vec<DFF<Bits<32>>>,
    sd_r: Vec<DFF<Bits<32>>>,
    /// Loaded with `d_r`: its bits [W-1:2] all ones, in two halves (`up_mask_lo`, `_hi`). All
    /// ones, all ones less one and less two differ only in bits [1:0] (for every width W: above
    /// bit 1 they are all ones), so phase C's compares are these two bits, d_r's bits [1:0] and
    /// one LUT (a full compare behind the RAM's output was the slowest path of 16x64).
    up_lo_r: Vec<DFF<Bit>>,
    up_hi_r: Vec<DFF<Bit>>,
    /// Loaded with `d_r`: its bits [15:0] are all ones (phase C's +1 carries into bit 16).
    lo16_r: Vec<DFF<Bit>>,
    /// The visited counter's pending carry in this row as phase A saw it (no reduction over
    /// the counters sits in front of phase B's adder). A carry at phase A's edge stays pending
    /// for the next visit.
    pend_a: Vec<DFF<Bit>>,
    pf_r: Vec<DFF<Bits<32>>>,
    spf_r: Vec<DFF<Bits<32>>>,
    // ---- Shared by the rows: the visits, the scan, the prefetch's index, fresh and stale.
    stale: DFF<Bits<64>>,
    fresh: DFF<Bits<64>>,
    /// The live PADDR's element index, registered, and `pf_eq` (hi_bank_index.rs).
    index: BankIndex,
    /// Phase B (the visited row's data is on the RAM outputs), the visited row, the scan pointer.
    ph_b: DFF<Bit>,
    ph_c: DFF<Bit>,
    vis_idx: DFF<Bits<6>>,
    vis_oh: DFF<Bits<64>>,
    vis_pf: DFF<Bit>,
    /// The visit reached the addressed counter by the scan: left alone (see `skip`).
    vis_skip: DFF<Bit>,
    /// The visited counter's fresh and stale flags as phase A saw them; a capture at that edge
    /// is `svr_a`.
    fresh_a: DFF<Bit>,
    stale_a: DFF<Bit>,
    svr_a: DFF<Bit>,
    svr_aa: DFF<Bit>,
    scan_idx: DFF<Bits<6>>,
    scan_oh: DFF<Bits<64>>,
    /// An EVCNTR write happened at the last edge.
    wr_r: DFF<Bit>,
    wr_rr: DFF<Bit>,
    pf_idx: DFF<Bits<6>>,
    pf_ok: DFF<Bit>,
    /// Phase C's visit may serve: registered at phase B's edge from registers and that edge's
    /// write (no write at A's or B's edge, not skipped, no reset), so the serve is a flip-flop
    /// in front of the prefetch registers (16x64 seed 1's critical path ran from the reset
    /// through the old gate into `spf_r`).
    serve_pre: DFF<Bit>,
    /// The scan's step back at phase C, registered at phase B's edge: `sb_c` is phase C of a
    /// scan visit (not the prefetch's, not skipped: `vis_pf` and `vis_skip` move only at A's
    /// edge), `sb_w` the same with a write at A's or B's edge (`wr_rr`, `wr_r` at C). So the
    /// step back is `sb_w | sb_c & wr`, one LUT in front of the scan registers' enable (32x32's
    /// seed-1 path at 94.6 MHz ran `vis_pf` -> `ph_c` -> `scan_oh`'s enable).
    sb_c: DFF<Bit>,
    sb_w: DFF<Bit>,
    sb_c_nx: Signal<Local, Bit>,
    /// The visited row is the prefetch's (`vis_pf`, or `vis_idx == pf_idx`), registered at
    /// phase B's edge: exact whenever `serve_pre` is, since `pf_idx` moves only at a serve
    /// (phase C's edge) or a write (which clears `serve_pre`).
    at_pf: DFF<Bit>,
    // Locals.
    pf_hit: Signal<Local, Bit>,
    want_pf: Signal<Local, Bit>,
    phase_a: Signal<Local, Bit>,
    a_idx: Signal<Local, Bits<6>>,
    pend_t: Signal<Local, Bit>,
    pend_s: Signal<Local, Bit>,
    fresh_t: Signal<Local, Bit>,
    fresh_s: Signal<Local, Bit>,
    stale_s: Signal<Local, Bit>,
    done_pend: Signal<Local, Bits<64>>,
    stale_t: Signal<Local, Bit>,
    d: Signal<Local, Bits<32>>,
    new_hi: Signal<Local, Bits<32>>,
    inc_lo16: Signal<Local, Bits<32>>,
    inc_hi16: Signal<Local, Bits<32>>,
    serve: Signal<Local, Bit>,
    serve_v: Signal<Local, Bit>,
    /// The prefetched counter's visit serves at this edge (`serve_v` and `at_pf`).
    pf_serve: Signal<Local, Bit>,
    copy: Signal<Local, Bit>,
    /// The visited row's shadow takes the row without a capture at this edge (stale, or a
    /// capture at A's or B's edge).
    copy_nc: Signal<Local, Bit>,
    done: Signal<Local, Bits<64>>,
    ones_new: Signal<Local, Bit>,
    spf_nc: Signal<Local, Bits<32>>,
    spf_c: Signal<Local, Bits<32>>,
    up_ones: Signal<Local, Bit>,
    eq_max: Signal<Local, Bit>,
    eq_m1: Signal<Local, Bit>,
    eq_m2: Signal<Local, Bit>,
    m1_new: Signal<Local, Bit>,
    // Configuration (per row where the width matters).
    hi_max: Vec<Constant<Bits<32>>>,
    up_mask_lo: Vec<Constant<Bits<32>>>,
    up_mask_hi: Vec<Constant<Bits<32>>>,
    /// Bits [1:0] of all ones, all ones less one, all ones less two (masked to W bits).
    max_lo: Vec<Constant<Bits<2>>>,
    m1_lo: Vec<Constant<Bits<2>>>,
    m2_lo: Vec<Constant<Bits<2>>>,
    m1_reset: Vec<Constant<Bits<64>>>,
    all: Constant<Bits<64>>,
    last_idx: Constant<Bits<6>>,
    ones_reset: Constant<Bits<64>>,
    lost_service: Constant<Bit>,
    late_copy: Constant<Bit>,
}

impl HiBank {
    /// A bank of `counters` (1-64) counters, each with one row per entry of `row_bits` (1 or 2
    /// rows of 1-32 bits) and its shadow, addressed by PADDR bits [idx_lsb + 5 : idx_lsb] (3:
    /// the 8-byte stride of 64-bit counters, 2: 4-byte). The rows share every visit: one scan,
    /// one prefetch, one set of fresh and stale flags (issue 11: the register file's bits
    /// [31:L] and [63:32] had a bank each, with the same control twice).
    pub fn new(
        counters: usize,
        row_bits: &[u32],
        idx_lsb: usize,
        fault: Option<HiBankFault>,
    ) -> Self {
        assert!((1..=64).contains(&counters), "HiBank: 1-64 counters");
        assert!((1..=2).contains(&row_bits.len()), "HiBank: 1 or 2 rows");
        assert!(
            row_bits.iter().all(|w| (1..=32).contains(w)),
            "HiBank: rows of 1-32 bits"
        );
        assert!(idx_lsb <= 26, "HiBank: the element index lies within PADDR");
        let rows = row_bits.len();
        let all = if counters == 64 {
            u64::MAX
        } else {
            (1u64 << counters) - 1
        };
        let max = |w: u32| u64::MAX >> (64 - w);
        let c32 = |v: u64| Constant::new(Bits::<32>::from(v & 0xFFFF_FFFF));
        let per_row = |f: &dyn Fn(u64) -> u64| -> Vec<Constant<Bits<32>>> {
            row_bits.iter().map(|&w| c32(f(max(w)))).collect()
        };
        let per_row2 = |f: &dyn Fn(u64) -> u64| -> Vec<Constant<Bits<2>>> {
            row_bits
                .iter()
                .map(|&w| Constant::new((f(max(w)) & 3).into()))
                .collect()
        };
        HiBank {
            clock: Default::default(),
            rst: Default::default(),
            carry: (0..rows).map(|_| Default::default()).collect(),
            paddr: Default::default(),
            tgt_sel: Default::default(),
            tgt_any: Default::default(),
            wr: Default::default(),
            wr_val: (0..rows).map(|_| Default::default()).collect(),
            wr_ones: (0..rows).map(|_| Default::default()).collect(),
            wr_m1: (0..rows).map(|_| Default::default()).collect(),
            svr_load: Default::default(),
            pf: (0..rows).map(|_| Default::default()).collect(),
            spf: (0..rows).map(|_| Default::default()).collect(),
            ready: Default::default(),
            pend: (0..rows).map(|_| Default::default()).collect(),
            at_max: (0..rows).map(|_| Default::default()).collect(),
            c_ram: (0..rows).map(|_| Default::default()).collect(),
            s_ram: (0..rows).map(|_| Default::default()).collect(),
            pend_r: (0..rows).map(|_| Default::default()).collect(),
            ones: (0..rows).map(|_| Default::default()).collect(),
            ones_m1: (0..rows).map(|_| Default::default()).collect(),
            d_r: (0..rows).map(|_| Default::default()).collect(),
            sd_r: (0..rows).map(|_| Default::default()).collect(),
            up_lo_r: (0..rows).map(|_| Default::default()).collect(),
            up_hi_r: (0..rows).map(|_| Default::default()).collect(),
            lo16_r: (0..rows).map(|_| Default::default()).collect(),
            pend_a: (0..rows).map(|_| Default::default()).collect(),
            pf_r: (0..rows).map(|_| Default::default()).collect(),
            spf_r: (0..rows).map(|_| Default::default()).collect(),
            stale: Default::default(),
            fresh: Default::default(),
            index: BankIndex::new(idx_lsb),
            ph_b: Default::default(),
            ph_c: Default::default(),
            vis_idx: Default::default(),
            vis_oh: Default::default(),
            vis_pf: Default::default(),
            vis_skip: Default::default(),
            fresh_a: Default::default(),
            stale_a: Default::default(),
            svr_a: Default::default(),
            svr_aa: Default::default(),
            scan_idx: Default::default(),
            scan_oh: Default::default(),
            wr_r: Default::default(),
            wr_rr: Default::default(),
            pf_idx: Default::default(),
            pf_ok: Default::default(),
            serve_pre: Default::default(),
            sb_c: Default::default(),
            sb_w: Default::default(),
            sb_c_nx: Default::default(),
            at_pf: Default::default(),
            pf_hit: Default::default(),
            want_pf: Default::default(),
            phase_a: Default::default(),
            a_idx: Default::default(),
            pend_t: Default::default(),
            pend_s: Default::default(),
            fresh_t: Default::default(),
            fresh_s: Default::default(),
            stale_s: Default::default(),
            done_pend: Default::default(),
            stale_t: Default::default(),
            d: Default::default(),
            new_hi: Default::default(),
            inc_lo16: Default::default(),
            inc_hi16: Default::default(),
            serve: Default::default(),
            serve_v: Default::default(),
            pf_serve: Default::default(),
            copy: Default::default(),
            copy_nc: Default::default(),
            done: Default::default(),
            ones_new: Default::default(),
            spf_nc: Default::default(),
            spf_c: Default::default(),
            up_ones: Default::default(),
            eq_max: Default::default(),
            eq_m1: Default::default(),
            eq_m2: Default::default(),
            m1_new: Default::default(),
            hi_max: per_row(&|m| m),
            up_mask_lo: per_row(&|m| m & 0x0003_FFFC),
            up_mask_hi: per_row(&|m| m & 0xFFFC_0000),
            max_lo: per_row2(&|m| m),
            m1_lo: per_row2(&|m| m.wrapping_sub(1)),
            // (Masked: a 1-bit row's "all ones less one" after a +1 is 1 - 2 = 1.)
            m2_lo: per_row2(&|m| m.wrapping_sub(2) & m),
            // The rows reset to 0 (fresh): all ones only for a 1-bit row.
            m1_reset: row_bits
                .iter()
                .map(|&w| Constant::new((if max(w) == 1 { all } else { 0 }).into()))
                .collect(),
            all: Constant::new(all.into()),
            last_idx: Constant::new(((counters - 1) as u64).into()),
            ones_reset: Constant::new(0u64.into()),
            lost_service: Constant::new(fault == Some(HiBankFault::LostService)),
            late_copy: Constant::new(fault == Some(HiBankFault::LateCopy)),
        }
    }
}

impl Logic for HiBank {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, stale, fresh, ph_b, ph_c, vis_idx, vis_oh, vis_pf, vis_skip, fresh_a,
            stale_a, svr_a, svr_aa, scan_idx, scan_oh, wr_r, wr_rr, pf_idx, pf_ok, serve_pre,
            at_pf, sb_c, sb_w
        );
        // The addressed element, registered with the decoder's select (both from the live PADDR
        // at the same edge), and `pf_eq`: in a block of their own (hi_bank_index.rs), so that
        // nothing in this block reads a top-level input.
        self.index.clock.next = self.clock.val();
        self.index.paddr.next = self.paddr.val();
        self.index.pf_idx.next = self.pf_idx.q.val();
        self.index.vis_idx.next = self.vis_idx.q.val();
        // ---- Phase A: choose the counter to visit. The addressed counter first while the
        // prefetch does not hold it; otherwise the scan (which then advances).
        self.pf_hit.next = self.pf_ok.q.val() & self.index.pf_eq.val();
        self.want_pf.next = self.tgt_any.val() & (!self.pf_hit.val());
        self.a_idx.next = self.scan_idx.q.val();
        if self.want_pf.val() {
            self.a_idx.next = self.index.tgt_idx.val();
        }
        // Phases A -> B -> C -> A.
        self.phase_a.next = (!self.ph_b.q.val()) & (!self.ph_c.q.val());
        self.ph_b.d.next = self.phase_a.val();
        self.ph_c.d.next = self.ph_b.q.val();
        // The flags of both candidates, reduced in parallel and then selected.
        self.fresh_t.next = (self.fresh.q.val() & self.tgt_sel.val()).any();
        self.fresh_s.next = (self.fresh.q.val() & self.scan_oh.q.val()).any();
        self.stale_s.next = (self.stale.q.val() & self.scan_oh.q.val()).any();
        self.stale_t.next = (self.stale.q.val() & self.tgt_sel.val()).any();
        self.svr_a.d.next = self.svr_load.val();
        self.svr_aa.d.next = self.svr_a.q.val();
        if self.phase_a.val() {
            self.vis_idx.d.next = self.a_idx.val();
            self.vis_pf.d.next = self.want_pf.val();
            self.vis_skip.d.next = false;
            if self.want_pf.val() {
                self.vis_oh.d.next = self.tgt_sel.val() & self.all.val();
                self.fresh_a.d.next = self.fresh_t.val();
                self.stale_a.d.next = self.stale_t.val();
            } else {
                self.vis_oh.d.next = self.scan_oh.q.val();
                self.fresh_a.d.next = self.fresh_s.val();
                self.stale_a.d.next = self.stale_s.val();
                // The addressed counter's rows are left as its prefetch took them: the caller
                // computes a write's outcome from `pf` ahead of the access cycle, so `pf`
                // must not move under it (its pending carries are served by the next prefetch
                // or folded by a write).
                self.vis_skip.d.next =
                    self.tgt_any.val() & (self.scan_oh.q.val() & self.tgt_sel.val()).any();
                // The scan: counters 0 .. last, one-hot beside the index.
                self.scan_idx.d.next = self.scan_idx.q.val() + 1u64;
                // (Masked to the counters: the bits above are constant 0 and synthesize away.)
                self.scan_oh.d.next = (self.scan_oh.q.val() << 1u64) & self.all.val();
                if self.scan_idx.q.val() == self.last_idx.val() {
                    self.scan_idx.d.next = 0.into();
                    self.scan_oh.d.next = 1u64.into();
                }
            }
        }
        // ---- Phase C: serve the visited counter's rows, unless a write owns the ports or wrote
        // at phase A's or B's edge (the rows read at A's edge may be stale): `wr`, and
        // `serve_pre` (registered at B's edge: that edge's `wr`, `wr_r` (A's), the skip, a
        // reset).
        // (`serve_v` leaves out this edge's write, which overrides the prefetch registers after
        // it: the write strobe reaches them through one select, not through the visit's logic.)
        // (No reset gate at C's edge: a reset there clears `pf_ok`, every pending carry and the
        // scan, and makes every row fresh and every shadow stale, which overrides all a serve
        // writes that is ever read.)
        self.serve_pre.d.next = self.ph_b.q.val()
            & (!self.vis_skip.q.val())
            & (!self.wr.val())
            & (!self.wr_r.q.val())
            & (!self.rst.val());
        self.at_pf.d.next = self.vis_pf.q.val() | (self.vis_idx.q.val() == self.pf_idx.q.val());
        self.serve_v.next = self.serve_pre.q.val();
        self.serve.next = self.serve_v.val() & (!self.wr.val());
        self.pf_serve.next = self.serve_v.val() & self.at_pf.q.val();
        // A capture at phase A's, B's or C's edge takes the rows as read (their value until C).
        self.copy_nc.next = self.stale_a.q.val() | self.svr_aa.q.val() | self.svr_a.q.val();
        self.copy.next = self.copy_nc.val() | self.svr_load.val();
        // A scan visit dropped for a write goes again: the scan steps back to it (a write every
        // few cycles must not starve the counters its visits fall on).
        self.sb_c_nx.next = self.ph_b.q.val() & (!self.vis_pf.q.val()) & (!self.vis_skip.q.val());
        self.sb_c.d.next = self.sb_c_nx.val();
        self.sb_w.d.next = self.sb_c_nx.val() & (self.wr.val() | self.wr_r.q.val());
        if self.sb_w.q.val() | (self.sb_c.q.val() & self.wr.val()) {
            self.scan_idx.d.next = self.vis_idx.q.val();
            self.scan_oh.d.next = self.vis_oh.q.val();
        }
        // The counters whose rows are rewritten at this edge: the visited one, or the written.
        self.done.next = 0.into();
        if self.serve.val() {
            self.done.next = self.vis_oh.q.val();
        }
        // The prefetch follows every visit of its counter, and takes the addressed counter's
        // first.
        if self.pf_serve.val() & self.vis_pf.q.val() {
            self.pf_idx.d.next = self.vis_idx.q.val();
            self.pf_ok.d.next = true;
        }
        // ---- An EVCNTR write (access edge): the caller's new rows (pend folded in).
        if self.wr.val() {
            self.done.next = self.tgt_sel.val();
            self.pf_idx.d.next = self.index.tgt_idx.val();
            self.pf_ok.d.next = true;
        }
        // `pf_eq` at the next edge (BankIndex): `pf_idx` there (unchanged, the visit's counter,
        // or the written one, as chosen above) against the element index registered there.
        self.index.sel_vis.next = self.serve_v.val() & self.vis_pf.q.val();
        self.index.wr.next = self.wr.val();
        self.wr_r.d.next = self.wr.val();
        self.wr_rr.d.next = self.wr_r.q.val();
        // Per-counter state: the counters rewritten at this edge (`done`) are no longer fresh or
        // stale; a capture makes every other counter's shadow stale.
        // Every vector is masked to the counters (`all`): its upper bits are constant 0.
        self.fresh.d.next = self.fresh.q.val() & (!self.done.val()) & self.all.val();
        self.stale.d.next = self.stale.q.val() & (!self.done.val()) & self.all.val();
        if self.svr_load.val() & (!self.late_copy.val()) {
            self.stale.d.next = self.all.val() & (!self.done.val());
        }
        // Nothing addressed: the prefetch is dropped, so every transfer begins with a visit of
        // its counter that serves its pending carries (the scan leaves an addressed counter
        // alone; a counter read in a loop is served by its transfers' prefetches).
        if !self.tgt_any.val() {
            self.pf_ok.d.next = false;
        }
        if self.rst.val() {
            self.fresh.d.next = self.all.val();
            self.stale.d.next = self.all.val();
            self.ph_b.d.next = false;
            self.ph_c.d.next = false;
            self.scan_idx.d.next = 0.into();
            self.scan_oh.d.next = 1u64.into();
            self.pf_ok.d.next = false;
            self.wr_r.d.next = false;
            self.wr_rr.d.next = false;
            self.sb_c.d.next = false;
            self.sb_w.d.next = false;
        }
        self.ready.next = self.pf_hit.val();
        // ---- Each row: its block RAMs, pending carries, flags and prefetch registers, driven
        // by the shared visit above.
        for r in 0..self.c_ram.len() {
            self.c_ram[r].read_clock.next = self.clock.val();
            self.c_ram[r].write_clock.next = self.clock.val();
            self.s_ram[r].read_clock.next = self.clock.val();
            self.s_ram[r].write_clock.next = self.clock.val();
            self.pend_r[r].clock.next = self.clock.val();
            self.ones[r].clock.next = self.clock.val();
            self.ones_m1[r].clock.next = self.clock.val();
            self.d_r[r].clock.next = self.clock.val();
            self.sd_r[r].clock.next = self.clock.val();
            self.up_lo_r[r].clock.next = self.clock.val();
            self.up_hi_r[r].clock.next = self.clock.val();
            self.lo16_r[r].clock.next = self.clock.val();
            self.pend_a[r].clock.next = self.clock.val();
            self.pf_r[r].clock.next = self.clock.val();
            self.spf_r[r].clock.next = self.clock.val();
            self.d_r[r].d.next = self.d_r[r].q.val();
            self.sd_r[r].d.next = self.sd_r[r].q.val();
            self.pend_a[r].d.next = self.pend_a[r].q.val();
            self.pf_r[r].d.next = self.pf_r[r].q.val();
            self.c_ram[r].read_address.next = self.a_idx.val();
            self.s_ram[r].read_address.next = self.a_idx.val();
            // Phase A: the visited counter's pending carry in this row.
            self.pend_t.next = (self.pend_r[r].q.val() & self.tgt_sel.val()).any();
            self.pend_s.next = (self.pend_r[r].q.val() & self.scan_oh.q.val()).any();
            if self.phase_a.val() {
                self.pend_a[r].d.next = self.pend_s.val();
                if self.want_pf.val() {
                    self.pend_a[r].d.next = self.pend_t.val();
                }
            }
            // ---- Phase B: the visited row's data (read at phase A's edge) into registers.
            // The row's flags load at every edge, not only at B's: only phase C reads them (the
            // serve, its flags and the prefetch), so the other edges' values are never used,
            // and no enable sits between the RAM's output and their flip-flops (issue 11:
            // 32x32's 94.8 MHz seed ran from the RAM through `up_lo_r`'s enable).
            // (A fresh row's halves are those of the RAM's stale word: d_r's bits [1:0] are 0
            // then, which none of the three constants has for W >= 2; with W = 1 the halves
            // are empty, always 1, and 0 is "all ones less one", as for the row of zeros.)
            self.up_lo_r[r].d.next = (self.c_ram[r].read_data.val() & self.up_mask_lo[r].val())
                == self.up_mask_lo[r].val();
            self.up_hi_r[r].d.next = (self.c_ram[r].read_data.val() & self.up_mask_hi[r].val())
                == self.up_mask_hi[r].val();
            self.lo16_r[r].d.next = ((self.c_ram[r].read_data.val() & 0xFFFFu64) == 0xFFFFu64)
                & (!self.fresh_a.q.val());
            if self.ph_b.q.val() {
                self.d_r[r].d.next = self.c_ram[r].read_data.val();
                if self.fresh_a.q.val() {
                    self.d_r[r].d.next = 0.into();
                }
                self.sd_r[r].d.next = self.s_ram[r].read_data.val();
            }
            // ---- Phase C: the row + its pending carry.
            self.d.next = self.d_r[r].q.val();
            // d + 1 as two 16-bit carry chains side by side: the upper half takes +1 when the
            // lower half is all ones (`lo16_r`, from phase B), not a 32-bit chain behind `d_r`
            // (the register file's read stage 2 and its pair sum `psum{k}` split their adds the
            // same way).
            self.inc_lo16.next = (self.d.val() + 1u64) & 0xFFFFu64;
            self.inc_hi16.next = ((self.d.val() >> 16u64) + 1u64) << 16u64;
            self.new_hi.next = self.d.val();
            if self.pend_a[r].q.val() & (!self.lost_service.val()) {
                self.new_hi.next =
                    ((self.d.val() & 0xFFFF_0000u64) | self.inc_lo16.val()) & self.hi_max[r].val();
                if self.lo16_r[r].q.val() {
                    self.new_hi.next =
                        (self.inc_hi16.val() | self.inc_lo16.val()) & self.hi_max[r].val();
                }
            }
            // The flags of the row after this edge, compared on d (not on d + pend: no adder in
            // front of the compare): d is all ones (less one, less two) when its upper halves
            // are all ones and its bits [1:0] are those of the constant.
            self.up_ones.next = self.up_lo_r[r].q.val() & self.up_hi_r[r].q.val();
            self.eq_max.next =
                self.up_ones.val() & (self.d_r[r].q.val().get_bits::<2>(0) == self.max_lo[r].val());
            self.eq_m1.next =
                self.up_ones.val() & (self.d_r[r].q.val().get_bits::<2>(0) == self.m1_lo[r].val());
            self.eq_m2.next =
                self.up_ones.val() & (self.d_r[r].q.val().get_bits::<2>(0) == self.m2_lo[r].val());
            self.ones_new.next = self.eq_max.val();
            self.m1_new.next = self.eq_m1.val();
            if self.pend_a[r].q.val() {
                self.ones_new.next = self.eq_m1.val();
                self.m1_new.next = self.eq_m2.val();
            }
            self.c_ram[r].write_address.next = self.vis_idx.q.val();
            self.c_ram[r].write_data.next = self.new_hi.val();
            self.c_ram[r].write_enable.next = self.serve.val();
            self.s_ram[r].write_address.next = self.vis_idx.q.val();
            self.s_ram[r].write_data.next = self.d.val();
            self.s_ram[r].write_enable.next = self.serve.val() & self.copy.val();
            self.done_pend.next = 0.into();
            if self.serve.val() & self.pend_a[r].q.val() {
                self.done_pend.next = self.vis_oh.q.val();
            }
            // The shadow's prefetch: `spf_nc` without a capture at this edge, `spf_c` with one
            // (a capture not at a visit of the prefetched counter: its shadow is its row now);
            // the capture request (an OR over the counters' overflows) selects last, below.
            self.spf_nc.next = self.spf_r[r].q.val();
            self.spf_c.next = self.pf_r[r].q.val();
            if self.pf_serve.val() {
                self.pf_r[r].d.next = self.new_hi.val();
                self.spf_nc.next = self.sd_r[r].q.val();
                if self.copy_nc.val() {
                    self.spf_nc.next = self.d.val();
                }
                self.spf_c.next = self.d.val();
            }
            // An EVCNTR write: the caller's new row; copy-on-write of the old row (`pf`).
            if self.wr.val() {
                self.c_ram[r].write_address.next = self.index.tgt_idx.val();
                self.c_ram[r].write_data.next = self.wr_val[r].val();
                self.c_ram[r].write_enable.next = true;
                self.s_ram[r].write_address.next = self.index.tgt_idx.val();
                self.s_ram[r].write_data.next = self.pf_r[r].q.val();
                self.s_ram[r].write_enable.next = self.stale_t.val() | self.svr_load.val();
                self.done_pend.next = self.tgt_sel.val();
                self.ones_new.next = self.wr_ones[r].val();
                self.m1_new.next = self.wr_m1[r].val();
                self.pf_r[r].d.next = self.wr_val[r].val();
                // The written counter's shadow is unchanged, unless a capture takes the old
                // value.
                self.spf_nc.next = self.spf_r[r].q.val();
                self.spf_c.next = self.pf_r[r].q.val();
            }
            self.spf_r[r].d.next = self.spf_nc.val();
            if self.svr_load.val() {
                self.spf_r[r].d.next = self.spf_c.val();
            }
            // The rows rewritten at this edge take their new flags and lose their pending carry
            // (this edge's carry is pending anew).
            self.pend_r[r].d.next = ((self.pend_r[r].q.val() & (!self.done_pend.val()))
                | self.carry[r].val())
                & self.all.val();
            self.ones[r].d.next = self.ones[r].q.val() & (!self.done.val()) & self.all.val();
            if self.ones_new.val() {
                self.ones[r].d.next = (self.ones[r].q.val() | self.done.val()) & self.all.val();
            }
            self.ones_m1[r].d.next = self.ones_m1[r].q.val() & (!self.done.val()) & self.all.val();
            if self.m1_new.val() {
                self.ones_m1[r].d.next =
                    (self.ones_m1[r].q.val() | self.done.val()) & self.all.val();
            }
            if self.rst.val() {
                self.pend_r[r].d.next = 0.into();
                self.ones[r].d.next = self.ones_reset.val();
                self.ones_m1[r].d.next = self.m1_reset[r].val();
            }
            self.pf[r].next = self.pf_r[r].q.val();
            self.spf[r].next = self.spf_r[r].q.val();
            self.pend[r].next = self.pend_r[r].q.val();
            self.at_max[r].next = ((!self.pend_r[r].q.val()) & self.ones[r].q.val())
                | (self.pend_r[r].q.val() & self.ones_m1[r].q.val());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The low word cannot wrap twice within the service bound (counted from the definition,
    /// not from the function's loop), and one bit narrower could, to within an edge.
    #[test]
    fn low_words_are_the_narrowest_that_cannot_wrap_twice_before_their_service() {
        for counters in 1..=64 {
            for lanes in 1..=8u64 {
                let l = low_word_bits(counters, lanes as usize);
                let bound = hi_service_bound(counters);
                // Fewest edges from a wrap (low word <= lanes - 1 after it) to the next wrap.
                let edges = |l: u32| ((1u64 << l) - (lanes - 1)).div_ceil(lanes);
                assert!(
                    edges(l) > bound,
                    "{counters} counters, {lanes} lanes: L = {l}"
                );
                assert!(
                    l == 4 || edges(l - 1) <= bound + 1,
                    "{counters}x{lanes}: L = {l} not the narrowest"
                );
            }
        }
        assert_eq!(low_word_bits(16, 1), 8);
        assert_eq!(low_word_bits(32, 1), 9);
        assert_eq!(low_word_bits(64, 1), 10);
        assert_eq!(low_word_bits(64, 8), 13);
    }
}
