//! `ReadPath`: the read data pipeline behind the register file's stage-1 select (docs/behaviour.md
//! "APB4 completer": a read returns PRDATA in its second access cycle). Stage 1 (the register
//! file, in the read's first access cycle) selects the word of this cycle's state and what is
//! still to be added to it; this block registers that at the edge and, in the second access
//! cycle, joins the parts and adds the pending carry (SMMUv3 10.5.2.1: a counter's value is its
//! stored parts plus the carries still pending between them).
//!
//! ```text
//!   stage 1 (inputs, first access cycle)                 edge   stage 2 (second access cycle)
//!   keep = a permitted read ─────────────────────────────┐
//!   word, misc, add, lo1, addm ──────────────────────────┼─► rq_* ─► word | misc, or word + 1
//!   ctr, cadd, clo1, caddm, sl (an SVR read that sees     │          (add: at bit 0, wrapping at
//!        the counter: the cycle after a capture) ─────────┼─► rq_* ─► hi_max; addm: at bit L),
//!   lo_c[0..3], lo_s[0..3] (bits [L-1:0] of the counters'  │          or (sl) ctr + 1 likewise
//!        and shadows' low words, ORed per group of 16)────┼─► rq_* ─► | OR of the groups
//!   usec (the counter's low word is read) ────────────────┘          (counter's: usec or sl;
//!   done = a read's first access cycle ──────────────────────► rq_done   shadow's: not sl)
//!                                                                     ─► rd_data (0 unless done)
//! ```
//! `lo1` / `clo1` must say that bits [15:0] of `word` / `ctr` are all ones: each +1 is two 16-bit
//! increments side by side (the upper half takes the carry when `lo1`), not a 32-bit carry chain
//! in front of PRDATA. Every input is stage 1's selection from registers; every register here
//! loads at every edge. The block's tests: tests/read_path.rs (native and Verilator against a
//! plain-Rust adder).

use crate::c32;
use rust_hdl::prelude::*;

/// A fault planted in the read path, for the tests that must catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadFault {
    /// The +1 of a high part ignores `lo1`: a carry out of bit 15 is lost.
    LostHalfCarry,
}

#[derive(LogicBlock)]
pub struct ReadPath {
    pub clock: Signal<In, Clock>,
    /// Stage 1 holds a permitted read (its parts are registered; otherwise 0).
    pub keep: Signal<In, Bit>,
    /// This cycle is a read's first access cycle (`rd_data` is valid in the next).
    pub done: Signal<In, Bit>,
    /// The selected array word (EVCNTR/SVR parts above the low word, EVTYPER, SMR) and the
    /// single registers' word (one-hot selects: at most one source is nonzero).
    pub word: Signal<In, Bits<32>>,
    pub misc: Signal<In, Bits<32>>,
    /// `word` takes +1 at bit 0 (a high word's pending carry; wraps at `hi_max`) or at bit L
    /// (bits [31:L]'s pending carry); `lo1`: `word`[15:0] are all ones.
    pub add: Signal<In, Bit>,
    pub lo1: Signal<In, Bit>,
    pub addm: Signal<In, Bit>,
    /// An SVR read in the cycle after a capture sees the counter: its word and flags, selected
    /// by `sl` in stage 2.
    pub ctr: Signal<In, Bits<32>>,
    pub cadd: Signal<In, Bit>,
    pub clo1: Signal<In, Bit>,
    pub caddm: Signal<In, Bit>,
    pub sl: Signal<In, Bit>,
    /// Bits [L-1:0] of the addressed counter's (`lo_c`) and shadow's (`lo_s`) low word, per
    /// group of 16 counters (0 outside the addressed group), and whether the counter's is read.
    pub lo_c: Vec<Signal<In, Bits<16>>>,
    pub lo_s: Vec<Signal<In, Bits<16>>>,
    pub usec: Signal<In, Bit>,
    /// PRDATA of the second access cycle (0 in any other).
    pub rd_data: Signal<Out, Bits<32>>,
    rq_word: DFF<Bits<32>>,
    rq_misc: DFF<Bits<32>>,
    rq_add: DFF<Bit>,
    rq_lo1: DFF<Bit>,
    rq_addm: DFF<Bit>,
    rq_ctr: DFF<Bits<32>>,
    rq_cadd: DFF<Bit>,
    rq_clo1: DFF<Bit>,
    rq_caddm: DFF<Bit>,
    rq_sl: DFF<Bit>,
    rq_c0: DFF<Bits<16>>,
    rq_c1: DFF<Bits<16>>,
    rq_c2: DFF<Bits<16>>,
    rq_c3: DFF<Bits<16>>,
    rq_s0: DFF<Bits<16>>,
    rq_s1: DFF<Bits<16>>,
    rq_s2: DFF<Bits<16>>,
    rq_s3: DFF<Bits<16>>,
    rq_usec: DFF<Bit>,
    rq_done: DFF<Bit>,
    /// The high parts' mask (counter bits [W-1:32]), L as a shift and the mask of bits [L-1:0].
    hi_max: Constant<Bits<32>>,
    lo_shift: Constant<Bits<32>>,
    lo_mask32: Constant<Bits<32>>,
    lost_half_carry: Constant<Bit>,
    /// Stage 2's increments: each half of `rq_word` and `rq_ctr` plus one, and their bits
    /// [31:L] plus one.
    inc_lo: Signal<Local, Bits<32>>,
    inc_hi: Signal<Local, Bits<32>>,
    inc_clo: Signal<Local, Bits<32>>,
    inc_chi: Signal<Local, Bits<32>>,
    inc_m: Signal<Local, Bits<32>>,
    inc_cm: Signal<Local, Bits<32>>,
    lo1_eff: Signal<Local, Bit>,
    rd_lo_c: Signal<Local, Bits<16>>,
    rd_lo_s: Signal<Local, Bits<16>>,
    rd_v: Signal<Local, Bits<32>>,
}

/// The groups of 16 counters the low words are ORed in (64 counters at most).
pub const READ_GROUPS: usize = 4;

impl ReadPath {
    /// The read path of counters `counter_bits` wide with low words of `lo_bits` bits (with
    /// `fault` planted, tests only).
    pub fn new(counter_bits: u32, lo_bits: u32, fault: Option<ReadFault>) -> Self {
        assert!((32..=64).contains(&counter_bits) && (1..=16).contains(&lo_bits));
        let hi_max = if counter_bits > 32 {
            (1u64 << (counter_bits - 32)) - 1
        } else {
            0
        };
        Self {
            clock: Default::default(),
            keep: Default::default(),
            done: Default::default(),
            word: Default::default(),
            misc: Default::default(),
            add: Default::default(),
            lo1: Default::default(),
            addm: Default::default(),
            ctr: Default::default(),
            cadd: Default::default(),
            clo1: Default::default(),
            caddm: Default::default(),
            sl: Default::default(),
            lo_c: (0..READ_GROUPS).map(|_| Default::default()).collect(),
            lo_s: (0..READ_GROUPS).map(|_| Default::default()).collect(),
            usec: Default::default(),
            rd_data: Default::default(),
            rq_word: Default::default(),
            rq_misc: Default::default(),
            rq_add: Default::default(),
            rq_lo1: Default::default(),
            rq_addm: Default::default(),
            rq_ctr: Default::default(),
            rq_cadd: Default::default(),
            rq_clo1: Default::default(),
            rq_caddm: Default::default(),
            rq_sl: Default::default(),
            rq_c0: Default::default(),
            rq_c1: Default::default(),
            rq_c2: Default::default(),
            rq_c3: Default::default(),
            rq_s0: Default::default(),
            rq_s1: Default::default(),
            rq_s2: Default::default(),
            rq_s3: Default::default(),
            rq_usec: Default::default(),
            rq_done: Default::default(),
            hi_max: c32(hi_max),
            lo_shift: c32(lo_bits as u64),
            lo_mask32: c32((1u64 << lo_bits) - 1),
            lost_half_carry: Constant::new(fault == Some(ReadFault::LostHalfCarry)),
            inc_lo: Default::default(),
            inc_hi: Default::default(),
            inc_clo: Default::default(),
            inc_chi: Default::default(),
            inc_m: Default::default(),
            inc_cm: Default::default(),
            lo1_eff: Default::default(),
            rd_lo_c: Default::default(),
            rd_lo_s: Default::default(),
            rd_v: Default::default(),
        }
    }
}

impl Logic for ReadPath {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rq_word, rq_misc, rq_add, rq_lo1, rq_addm, rq_ctr, rq_cadd, rq_clo1,
            rq_caddm, rq_sl, rq_c0, rq_c1, rq_c2, rq_c3, rq_s0, rq_s1, rq_s2, rq_s3, rq_usec,
            rq_done
        );
        // Stage 1's register: the parts of a permitted read, 0 otherwise (the flags that only
        // act with `add` or `sl` need no clear).
        self.rq_word.d.next = self.word.val();
        self.rq_misc.d.next = self.misc.val();
        self.rq_add.d.next = self.add.val();
        self.rq_lo1.d.next = self.lo1.val();
        self.rq_addm.d.next = self.addm.val();
        self.rq_ctr.d.next = self.ctr.val();
        self.rq_cadd.d.next = self.cadd.val();
        self.rq_clo1.d.next = self.clo1.val();
        self.rq_caddm.d.next = self.caddm.val();
        self.rq_sl.d.next = self.sl.val();
        self.rq_c0.d.next = self.lo_c[0].val();
        self.rq_c1.d.next = self.lo_c[1].val();
        self.rq_c2.d.next = self.lo_c[2].val();
        self.rq_c3.d.next = self.lo_c[3].val();
        self.rq_s0.d.next = self.lo_s[0].val();
        self.rq_s1.d.next = self.lo_s[1].val();
        self.rq_s2.d.next = self.lo_s[2].val();
        self.rq_s3.d.next = self.lo_s[3].val();
        self.rq_usec.d.next = self.usec.val();
        if !self.keep.val() {
            self.rq_word.d.next = 0.into();
            self.rq_misc.d.next = 0.into();
            self.rq_c0.d.next = 0.into();
            self.rq_c1.d.next = 0.into();
            self.rq_c2.d.next = 0.into();
            self.rq_c3.d.next = 0.into();
            self.rq_s0.d.next = 0.into();
            self.rq_s1.d.next = 0.into();
            self.rq_s2.d.next = 0.into();
            self.rq_s3.d.next = 0.into();
            self.rq_usec.d.next = false;
            self.rq_add.d.next = false;
            self.rq_addm.d.next = false;
            self.rq_sl.d.next = false;
        }
        self.rq_done.d.next = self.done.val();
        // Stage 2, in the read's second access cycle (PREADY = 1): add the pending carry of a
        // high part (high parts are K bits wide: wrap at hi_max).
        // (Each 32-bit increment as two 16-bit ones: the upper half takes +1 for 2^16, or for
        // 1 when the lower half is all ones, `rq_lo1`.)
        self.inc_lo.next = (self.rq_word.q.val() + 1u64) & 0xFFFFu64;
        self.inc_hi.next = ((self.rq_word.q.val() >> 16u64) + 1u64) << 16u64;
        self.inc_clo.next = (self.rq_ctr.q.val() + 1u64) & 0xFFFFu64;
        self.inc_chi.next = ((self.rq_ctr.q.val() >> 16u64) + 1u64) << 16u64;
        self.inc_m.next =
            ((self.rq_word.q.val() >> self.lo_shift.val()) + 1u64) << self.lo_shift.val();
        self.inc_cm.next =
            ((self.rq_ctr.q.val() >> self.lo_shift.val()) + 1u64) << self.lo_shift.val();
        self.lo1_eff.next = self.rq_lo1.q.val() & (!self.lost_half_carry.val());
        self.rd_v.next = self.rq_word.q.val() | self.rq_misc.q.val();
        if self.rq_add.q.val() {
            self.rd_v.next =
                ((self.rq_word.q.val() & 0xFFFF_0000u64) | self.inc_lo.val()) & self.hi_max.val();
            if self.lo1_eff.val() {
                self.rd_v.next = (self.inc_hi.val() | self.inc_lo.val()) & self.hi_max.val();
            }
        }
        if self.rq_addm.q.val() {
            self.rd_v.next = self.inc_m.val() | (self.rq_word.q.val() & self.lo_mask32.val());
        }
        if self.rq_sl.q.val() {
            self.rd_v.next = self.rq_ctr.q.val();
            if self.rq_cadd.q.val() {
                self.rd_v.next = ((self.rq_ctr.q.val() & 0xFFFF_0000u64) | self.inc_clo.val())
                    & self.hi_max.val();
                if self.rq_clo1.q.val() {
                    self.rd_v.next = (self.inc_chi.val() | self.inc_clo.val()) & self.hi_max.val();
                }
            }
            if self.rq_caddm.q.val() {
                self.rd_v.next = self.inc_cm.val() | (self.rq_ctr.q.val() & self.lo_mask32.val());
            }
        }
        // Bits [L-1:0] of a low word (the groups are 0 for a high word).
        self.rd_lo_c.next =
            self.rq_c0.q.val() | self.rq_c1.q.val() | self.rq_c2.q.val() | self.rq_c3.q.val();
        self.rd_lo_s.next =
            self.rq_s0.q.val() | self.rq_s1.q.val() | self.rq_s2.q.val() | self.rq_s3.q.val();
        if self.rq_usec.q.val() | self.rq_sl.q.val() {
            self.rd_v.next = self.rd_v.val() | bit_cast::<32, 16>(self.rd_lo_c.val());
        }
        if !self.rq_sl.q.val() {
            self.rd_v.next = self.rd_v.val() | bit_cast::<32, 16>(self.rd_lo_s.val());
        }
        if !self.rq_done.q.val() {
            self.rd_v.next = 0.into();
        }
        self.rd_data.next = self.rd_v.val();
    }
}
