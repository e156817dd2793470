//! `LowWords`: bits [L-1:0] of every counter and of every SVR shadow, in flip-flops
//! (SMMUv3 10.2.1, 10.5.2.1, 10.5.2.3; docs/behaviour.md "Counting" and "Capture").
//!
//! ```text
//!   count[n] (match register, <= 8) ──► lo[n] + count ──┬─► c_lo[n] (L bits) ──► s_lo[n] on svr_load
//!   wr_sel[n], wr_bmask, wr_bits (a low-word write) ────┤         │                 │
//!   rst (lo_reset[n]) ──────────────────────────────────┘         │                 │
//!   lo[L-1:4] all ones & carry out of lo[3:0] + count ──► mcarry[n] (into row 0 of the bank)
//!   mcarry[n] & m_at_max[n] (bits [31:L] all ones) ─────► carry[n]  (into row 1: 64-bit counters)
//!   carry[n] & at_max[n], or a paired write's rebase ───► ovf[n]    (10.2.1: overflow at its edge)
//!   csel[n] ? c_lo[n] : 0, ORed per group of 16 ────────► gc[g]     (the read mux's low words)
//!   ssel[n] ? s_lo[n] : 0, ORed per group of 16 ────────► gs[g]     (... and the shadows')
//! ```
//!
//! The counter's bits [31:L] and [63:32] are rows of the bank (hi_bank.rs): a carry out of the
//! low word is pending there until the bank's scan serves it. L is `hi_bank::low_word_bits`,
//! the narrowest width in which no low word can wrap twice before its carry is served. The
//! overflow is exact at the edge it happens (10.2.1): the bank predicts whether its rows plus
//! their pending carries are all ones (`m_at_max`, `at_max`), so the carry out of bit 31 and
//! out of the counter's width are known at the low word's own edge.
//!
//! A written counter skips this edge's events (its match register was cleared at the setup
//! edge, MatchRegs) and never overflows, except the high word of a paired 64-bit write, whose
//! overflow is the rebase's, staged by the register file during the hold (`ones0`/`wrap0` with
//! no pending carry, `ones1`/`wrap1` with one).
//!
//! A capture at edge t loads the shadows at edge t+1 from the counters' registers (`svr_load`,
//! CaptureTrigger): every counter's value after edge t, all at one instant (10.5.2.3).
//!
//! The read mux's low-word part is here too: an AND-OR over the one-hot element selects
//! (`csel` for EVCNTRn or an SVR read that sees the counter, `ssel` for SVRn), ORed per group of
//! 16 counters, which the register file registers per group (its read path's stage 1).
//! Block-level tests: tests/low_words.rs (native and Verilator, against a plain-Rust model).

use crate::bitpack::BitPack;
use rust_hdl::prelude::*;

/// Groups of the read mux's low-word OR (16 counters each: 64 counters at most).
pub const LOW_READ_GROUPS: usize = 4;

/// A fault planted in the block (tests only: its block test must catch it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LowWordsFault {
    /// The carry out of a low word is not reported to the bank (`mcarry` stays 0): a wrap's
    /// 2^L is lost.
    LostCarry,
    /// A capture loads the shadows with their own value (`s_lo` keeps its q): a stale shadow.
    StaleShadow,
}

/// The low words (module docs).
#[derive(LogicBlock)]
pub struct LowWords {
    pub clock: Signal<In, Clock>,
    /// The design's reset (a register): every low word to its counter's reset value, every
    /// shadow to 0.
    pub rst: Signal<In, Bit>,
    /// Counter n's addend at this edge: its match register (at most 8; 1 counting cycles).
    pub count: Vec<Signal<In, Bits<4>>>,
    /// Bit n: counter n's low word is written at this edge (the written bytes replace its bits,
    /// the rest keep their value, and this edge's count is not added).
    pub wr_sel: Signal<In, Bits<64>>,
    /// The write's byte mask and data, bits [L-1:0].
    pub wr_bmask: Signal<In, Bits<16>>,
    pub wr_bits: Signal<In, Bits<16>>,
    /// Bit n: counter n's bits [31:L] with their pending carry are all ones (row 0's `at_max`).
    pub m_at_max: Signal<In, Bits<64>>,
    /// Bit n: counter n's bits [63:32] with their pending carry are all ones (row 1's).
    pub at_max: Signal<In, Bits<64>>,
    /// Bit n: counter n takes a paired write's high word at this edge.
    pub pair_sel: Signal<In, Bits<64>>,
    /// Bit n: counter n's row 1 has a pending carry.
    pub pend: Signal<In, Bits<64>>,
    /// The paired write's rebase: its result all ones, and whether it wraps, without (0) and
    /// with (1) the addressed counter's pending carry.
    pub ones0: Signal<In, Bit>,
    pub wrap0: Signal<In, Bit>,
    pub ones1: Signal<In, Bit>,
    pub wrap1: Signal<In, Bit>,
    /// The shadows load the counters' q at this edge (a capture at the last edge).
    pub svr_load: Signal<In, Bit>,
    /// One-hot read selects (registered by the register file): counter n's low word, shadow
    /// n's low word.
    pub csel: Signal<In, Bits<64>>,
    pub ssel: Signal<In, Bits<64>>,
    /// Bit n: the carry out of counter n's low word at this edge (row 0's carry).
    pub mcarry: Signal<Out, Bits<64>>,
    /// Bit n: the carry out of counter n's bit 31 at this edge (row 1's carry; 0 for 32-bit
    /// counters).
    pub carry: Signal<Out, Bits<64>>,
    /// Bit n: counter n overflows at this edge.
    pub ovf: Signal<Out, Bits<64>>,
    /// The read mux's low words of group g (counters 16g to 16g+15): `csel`'s counter, `ssel`'s
    /// shadow (0 in a group without the selected element).
    pub gc: Vec<Signal<Out, Bits<16>>>,
    pub gs: Vec<Signal<Out, Bits<16>>>,
    /// Counter n's bits [L-1:0] and its shadow's (the bits above L are 0: Yosys keeps no
    /// flip-flop for them).
    c_lo: Vec<DFF<Bits<16>>>,
    s_lo: Vec<DFF<Bits<16>>>,
    mcarry_pack: BitPack,
    carry_pack: BitPack,
    ovf_pack: BitPack,
    /// Counter n's reset value, bits [L-1:0] (register map), and its read group (n / 16).
    lo_reset: Vec<Constant<Bits<16>>>,
    grp: Vec<Constant<Bits<2>>>,
    /// The mask of bits [L-1:0], and of bits [L-1:4] (all ones: a carry out of bits [3:0]
    /// carries out of the low word).
    lo_mask: Constant<Bits<16>>,
    lo_top: Constant<Bits<16>>,
    /// The counters are 64 bits wide (row 1 exists).
    wide: Constant<Bit>,
    /// Planted faults (tests only; both false in the design).
    lost_carry: Constant<Bit>,
    stale_shadow: Constant<Bit>,
    /// Counter n's locals (reused in the loop).
    lo_now: Signal<Local, Bits<16>>,
    cnt: Signal<Local, Bits<4>>,
    lo4: Signal<Local, Bits<4>>,
    inc: Signal<Local, Bits<16>>,
    /// The carries of lo[3:0] + count into bits 2 and 3, and out of bit 3 (`carry4`): written
    /// as gates, which Yosys makes plain logic (two LUT levels placed freely), where a 5-bit
    /// add became a carry chain fixed in a column between the match register and the overflow
    /// logic (the 16x32 and 16x64 critical path). Not a 256-bit table indexed by {count, lo}:
    /// building the index is a shift, which rust-hdl 0.46 simulated with BigUint allocations
    /// (per counter per settle pass; the vendored simulator shifts integers).
    c4_c2: Signal<Local, Bit>,
    c4_c3: Signal<Local, Bit>,
    carry4: Signal<Local, Bit>,
    lo_carry: Signal<Local, Bit>,
    carry_n: Signal<Local, Bit>,
    lo_next: Signal<Local, Bits<16>>,
    ovf_n: Signal<Local, Bit>,
    /// Element n's read selects as masks, and its terms of the AND-OR.
    m_evc: Signal<Local, Bits<16>>,
    m_svr: Signal<Local, Bits<16>>,
    t_c: Signal<Local, Bits<16>>,
    t_s: Signal<Local, Bits<16>>,
    gc0: Signal<Local, Bits<16>>,
    gc1: Signal<Local, Bits<16>>,
    gc2: Signal<Local, Bits<16>>,
    gc3: Signal<Local, Bits<16>>,
    gs0: Signal<Local, Bits<16>>,
    gs1: Signal<Local, Bits<16>>,
    gs2: Signal<Local, Bits<16>>,
    gs3: Signal<Local, Bits<16>>,
}

impl LowWords {
    /// The low words of `lo_reset.len()` (1-64) counters of `lo_bits` (4-16) bits, with reset
    /// values `lo_reset` (bits [L-1:0] of each EVCNTR's), 64-bit counters if `wide`, and `fault`
    /// planted (tests only).
    pub fn new(lo_reset: &[u64], lo_bits: u32, wide: bool, fault: Option<LowWordsFault>) -> Self {
        let n = lo_reset.len();
        assert!((1..=64).contains(&n), "1-64 counters, not {n}");
        assert!(
            (4..=16).contains(&lo_bits),
            "low words of 4-16 bits, not {lo_bits}"
        );
        let lo_mask = (1u64 << lo_bits) - 1;
        assert!(
            lo_reset.iter().all(|r| r & !lo_mask == 0),
            "a low word's reset value has bits above L"
        );
        Self {
            clock: Default::default(),
            rst: Default::default(),
            count: (0..n).map(|_| Default::default()).collect(),
            wr_sel: Default::default(),
            wr_bmask: Default::default(),
            wr_bits: Default::default(),
            m_at_max: Default::default(),
            at_max: Default::default(),
            pair_sel: Default::default(),
            pend: Default::default(),
            ones0: Default::default(),
            wrap0: Default::default(),
            ones1: Default::default(),
            wrap1: Default::default(),
            svr_load: Default::default(),
            csel: Default::default(),
            ssel: Default::default(),
            mcarry: Default::default(),
            carry: Default::default(),
            ovf: Default::default(),
            gc: (0..LOW_READ_GROUPS).map(|_| Default::default()).collect(),
            gs: (0..LOW_READ_GROUPS).map(|_| Default::default()).collect(),
            c_lo: (0..n).map(|_| Default::default()).collect(),
            s_lo: (0..n).map(|_| Default::default()).collect(),
            mcarry_pack: BitPack::new(n),
            carry_pack: BitPack::new(n),
            ovf_pack: BitPack::new(n),
            lo_reset: lo_reset.iter().map(|&r| Constant::new(r.into())).collect(),
            grp: (0..n)
                .map(|i| Constant::new(((i / 16) as u64).into()))
                .collect(),
            lo_mask: Constant::new(lo_mask.into()),
            lo_top: Constant::new((lo_mask & 0xFFF0).into()),
            wide: Constant::new(wide),
            lost_carry: Constant::new(fault == Some(LowWordsFault::LostCarry)),
            stale_shadow: Constant::new(fault == Some(LowWordsFault::StaleShadow)),
            lo_now: Default::default(),
            cnt: Default::default(),
            lo4: Default::default(),
            inc: Default::default(),
            c4_c2: Default::default(),
            c4_c3: Default::default(),
            carry4: Default::default(),
            lo_carry: Default::default(),
            carry_n: Default::default(),
            lo_next: Default::default(),
            ovf_n: Default::default(),
            m_evc: Default::default(),
            m_svr: Default::default(),
            t_c: Default::default(),
            t_s: Default::default(),
            gc0: Default::default(),
            gc1: Default::default(),
            gc2: Default::default(),
            gc3: Default::default(),
            gs0: Default::default(),
            gs1: Default::default(),
            gs2: Default::default(),
            gs3: Default::default(),
        }
    }
}

impl Logic for LowWords {
    #[hdl_gen]
    fn update(&mut self) {
        self.gc0.next = 0.into();
        self.gc1.next = 0.into();
        self.gc2.next = 0.into();
        self.gc3.next = 0.into();
        self.gs0.next = 0.into();
        self.gs1.next = 0.into();
        self.gs2.next = 0.into();
        self.gs3.next = 0.into();
        for n in 0..self.c_lo.len() {
            self.c_lo[n].clock.next = self.clock.val();
            self.s_lo[n].clock.next = self.clock.val();
            // ---- Counter n (10.5.2.1): bits [L-1:0] here, [31:L] and [63:32] in the bank, with
            // registered (pending) carries between them, so no path adds more than 32 bits in a
            // cycle. The counter adds its match register (enables applied when it was loaded).
            // (Copied to locals first: `bit_cast` in a kernel takes a plain signal.)
            self.lo_now.next = self.c_lo[n].q.val();
            self.cnt.next = self.count[n].val();
            self.lo4.next = bit_cast::<4, 16>(self.lo_now.val());
            self.inc.next = bit_cast::<16, 4>(self.cnt.val());
            // Carry out of the L-bit low word. `count` is at most MAX_LANES (8) < 16, so lo +
            // count carries exactly when lo[L-1:4] are all ones and lo[3:0] + count > 15 (the
            // carry out of bit 3, as gates), beside the L-bit add, not a compare behind it. It
            // carries out of bit 31 exactly when row 0 + its pending carry is all ones.
            self.c4_c2.next = (self.lo4.val().get_bit(1) & self.cnt.val().get_bit(1))
                | ((self.lo4.val().get_bit(1) | self.cnt.val().get_bit(1))
                    & self.lo4.val().get_bit(0)
                    & self.cnt.val().get_bit(0));
            self.c4_c3.next = (self.lo4.val().get_bit(2) & self.cnt.val().get_bit(2))
                | ((self.lo4.val().get_bit(2) | self.cnt.val().get_bit(2)) & self.c4_c2.val());
            self.carry4.next = (self.lo4.val().get_bit(3) & self.cnt.val().get_bit(3))
                | ((self.lo4.val().get_bit(3) | self.cnt.val().get_bit(3)) & self.c4_c3.val());
            self.lo_carry.next = ((self.c_lo[n].q.val() & self.lo_top.val()) == self.lo_top.val())
                & self.carry4.val()
                & (!self.lost_carry.val());
            self.carry_n.next = self.lo_carry.val() & self.m_at_max.val().get_bit(n);
            self.lo_next.next = (self.c_lo[n].q.val() + self.inc.val()) & self.lo_mask.val();
            self.mcarry_pack.bits[n].next = self.lo_carry.val();
            self.carry_pack.bits[n].next = self.carry_n.val() & self.wide.val();
            // 10.2.1: overflow is the carry out of the counter width; the counter wraps.
            self.ovf_n.next =
                self.carry_n.val() & ((!self.wide.val()) | self.at_max.val().get_bit(n));
            // A write replaces its bytes and the counter skips this edge's events (its match
            // register is 0); a write never overflows, except a paired high word's rebase.
            if self.wr_sel.val().get_bit(n) {
                self.lo_next.next =
                    (self.lo_next.val() & (!self.wr_bmask.val())) | self.wr_bits.val();
            }
            // The paired write's candidates are selected by the counter's own pending carry,
            // not by the addressed counter's (`sel_pend` in the register file), whose fanout
            // (every write candidate) made it the 16x64 path from `selc_r` into OVS's export at
            // 94.5 MHz.
            if self.pair_sel.val().get_bit(n) {
                self.ovf_n.next = (self.carry_n.val() & self.ones0.val()) | self.wrap0.val();
                if self.pend.val().get_bit(n) {
                    self.ovf_n.next = (self.carry_n.val() & self.ones1.val()) | self.wrap1.val();
                }
            }
            if self.rst.val() {
                self.lo_next.next = self.lo_reset[n].val();
                self.ovf_n.next = false;
            }
            self.c_lo[n].d.next = self.lo_next.val();
            self.ovf_pack.bits[n].next = self.ovf_n.val();
            // ---- Shadow n (10.5.2.3): the counter's q at a capture's load edge.
            self.s_lo[n].d.next = self.s_lo[n].q.val();
            if self.svr_load.val() & (!self.stale_shadow.val()) {
                self.s_lo[n].d.next = self.c_lo[n].q.val();
            }
            if self.rst.val() {
                self.s_lo[n].d.next = 0.into();
            }
            // ---- The read mux: an AND-OR over the one-hot selects (an OR tree, not a priority
            // chain), four named groups, one branch each (a kernel cannot index locals by
            // n / 16; the group constants fold away in the Verilog).
            self.m_evc.next = 0.into();
            if self.csel.val().get_bit(n) {
                self.m_evc.next = 0xFFFFu64.into();
            }
            self.m_svr.next = 0.into();
            if self.ssel.val().get_bit(n) {
                self.m_svr.next = 0xFFFFu64.into();
            }
            self.t_c.next = self.c_lo[n].q.val() & self.m_evc.val();
            self.t_s.next = self.s_lo[n].q.val() & self.m_svr.val();
            if self.grp[n].val() == 0u64 {
                self.gc0.next = self.gc0.val() | self.t_c.val();
                self.gs0.next = self.gs0.val() | self.t_s.val();
            }
            if self.grp[n].val() == 1u64 {
                self.gc1.next = self.gc1.val() | self.t_c.val();
                self.gs1.next = self.gs1.val() | self.t_s.val();
            }
            if self.grp[n].val() == 2u64 {
                self.gc2.next = self.gc2.val() | self.t_c.val();
                self.gs2.next = self.gs2.val() | self.t_s.val();
            }
            if self.grp[n].val() == 3u64 {
                self.gc3.next = self.gc3.val() | self.t_c.val();
                self.gs3.next = self.gs3.val() | self.t_s.val();
            }
        }
        self.mcarry.next = self.mcarry_pack.word.val();
        self.carry.next = self.carry_pack.word.val();
        self.ovf.next = self.ovf_pack.word.val();
        self.gc[0].next = self.gc0.val();
        self.gc[1].next = self.gc1.val();
        self.gc[2].next = self.gc2.val();
        self.gc[3].next = self.gc3.val();
        self.gs[0].next = self.gs0.val();
        self.gs[1].next = self.gs1.val();
        self.gs[2].next = self.gs2.val();
        self.gs[3].next = self.gs3.val();
    }
}
