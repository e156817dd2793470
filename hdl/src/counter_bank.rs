//! `HybridBank`: up to 64 counters of 32-64 bits and their shadows (SVRs), each counter split
//! into a low part of `low_bits` (L) bits in flip-flops and an upper part (value bits [W-1:L])
//! in block RAM, advanced by one carry-service pipeline that also performs the bank's reads and
//! writes; shadows kept copy-on-write in two more block RAMs (issue 11's hybrid bank;
//! `../shared/notes/ice40-field-notes.md`, "Hybrid counter bank", "Copy-on-write shadows"). A
//! block on its own: the PMCG's register file does not use it yet.
//!
//! ```text
//!  inc[n] (register) ─► lo[n] += inc ──wrap──► pend[n] (a carry owed to the upper part)
//!                               └─► ovf[n] = wrap & ones[n] == 0b11   (exact, at the edge)
//!  ones[n]: "value bits [31:L] are all ones" (bit 0), "bits [W-1:32] are all ones" (bit 1)
//!  capture ─► s_lo[n] := lo after the edge, s_pend[n] := pend after it, stale[n] := 1 (all n)
//!
//!  op_* (first) ──► arbiter ─► q0 (and one-hot q0_hot[n]); a write leaving upper bits of its
//!      word unwritten first gets a carry service of its counter, whose row becomes pre_*
//!  scan pointer: every slot no op takes is a carry service of the scan's counter
//!  q0: the op's cycle ── RAM read ─► mid_ram (bits [31:L]), hi_ram (bits [W-1:32]) and the
//!      shadows' svr_mid_ram, svr_hi_ram; lo/pend/fresh/stale/s_lo/s_pend snapshot; pend and
//!      stale cleared; a write with no carry pending sets its low part and its word's flag
//!      (its bytes over pre_*: op_accept); with one pending it serves it instead, is retried
//!  s1: rows as read ─► raw, middle + (1 << L), "middle all ones", "high all ones (but bit 0)"
//!  s2: (fresh: 0) + carry, or the write's bytes ─► RAM write-back; stale: the row as read
//!      ─► shadow RAM (copy-on-write); rd_lo/rd_hi (counter, or shadow: its row or, while
//!      stale, the counter's, + s_pend), rd_valid; the new flags ─► s3 ─► ones[n]; an op
//!      from the port: its row ─► pre_* (a carry service changing that row invalidates it)
//! ```
//!
//! Contract (checked against `pmcg_sim::bank_model`, which is written from it):
//! - The bank's value of counter n is `(upper << L) | lo`, W bits. At every edge each counter
//!   adds `inc[n]` (0-15); a carry out of bit W-1 is an overflow: `ovf[n]` is 1 in the cycle whose
//!   edge overflows, exactly, from the low part's adder and registers (no block RAM on that path).
//! - `capture` at an edge copies every counter's value after that edge (its events and a write
//!   of that edge included) into its shadow, all at that one instant (10.5.2.3, 10.5.2.16).
//! - An op (held on the op_* inputs with `op_valid` until accepted) is **performed in the cycle
//!   `op_accept` is 1**. A read returns the counter's (with `op_svr`, the shadow's) value in that
//!   cycle (before the edge) on `rd_lo`/`rd_hi` with `rd_valid`, two cycles later: both words of
//!   one instant. A write replaces the bytes `op_strb` selects of the counter's low (bits
//!   [31:0]) or high word (bits [63:32], W > 32 only) at the edge ending that cycle, and the
//!   counter does not count that edge's `inc` (SMMUv3 10.5.2.1: the value written, the events
//!   of that cycle not added).
//! - `op_valid` must fall for at least one cycle after each accept. An op is accepted within
//!   [`ACCEPT_BOUND`] cycles of the first cycle it is valid (both counted).
//! - Sizing (`BankShape::check`): every carry is served before its low part can wrap again,
//!   `2^L > max_inc * (6 * counters + 5)`: the scan passes every counter once per
//!   `3 * counters` cycles (ops take at most two of every three slots) and skips one with an op
//!   in flight (that op takes its carry; a carry owed after it waits a round), and the flags are
//!   back 3 cycles after the service's slot.
//! - After a reset edge every counter and shadow is 0: a `fresh` bit per counter stands for an
//!   all-zero row until its first op writes it back (block RAM has no reset), and every shadow
//!   is stale (shares that row). A reset edge cancels the op in progress.

use crate::bitpack::BitPack;
use rust_hdl::prelude::*;

/// Op kinds in the pipeline (`q0_kind`, `s1_kind`, `s2_kind`).
const KIND_SERVICE: u64 = 0;
const KIND_READ: u64 = 1;
const KIND_WRITE_LO: u64 = 2;
const KIND_WRITE_HI: u64 = 3;

/// The most cycles from the first cycle an op is valid to its accept cycle (both counted):
/// three cycles waiting for an op on its counter to leave q0, s1 and s2; for a partial write, a
/// carry service of its counter (issue, q0, s1, s2: its row in `pre_*`); the write's issue,
/// held in q0 by a carry owed since (served there, its row in `pre_*`), three cycles for that
/// service to leave; the issue and the accept cycle: 3 + 4 + 2 + 3 + 1 = 13. The scan keeps off
/// the waiting op's counter, so nothing else invalidates `pre_*` meanwhile, and a second carry
/// cannot come within 13 cycles (sizing).
pub const ACCEPT_BOUND: u64 = 13;

/// A planted fault, for tests that must show the block tests catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BankFault {
    /// The carry service writes the upper part back without its pending carry.
    DropCarryService,
    /// Copy-on-write copies the row after the op has changed it, not before.
    LateCopyOnWrite,
    /// A partial write goes in without the row of its counter in `pre_*`.
    IgnorePreRow,
}

/// The bank's size: `counters` (1-64) counters of `counter_bits` (32-64) bits, the low part's
/// width `low_bits` and the largest increment per counter per cycle `max_inc` (1-15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BankShape {
    pub counters: usize,
    pub counter_bits: u32,
    pub low_bits: u32,
    pub max_inc: u32,
}

impl BankShape {
    /// Cycles from a low part's wrap until its carry is in the upper part and its flags
    /// (`3 * counters + 5`: the scan's round with two of every three slots taken by ops, a
    /// two-cycle wait on an op in flight, and the pipeline).
    pub fn service_bound(&self) -> u64 {
        6 * self.counters as u64 + 4
    }

    /// The narrowest low part for `counters` and `max_inc`: `2^L > max_inc * (service_bound + 1)`.
    pub fn min_low_bits(counters: usize, max_inc: u32) -> u32 {
        let need = max_inc as u64 * (6 * counters as u64 + 5);
        (1..=16).find(|l| (1u64 << l) > need).unwrap_or(17)
    }

    pub fn check(&self) -> Result<(), String> {
        if !(1..=64).contains(&self.counters) {
            return Err(format!("counters = {}: must be 1-64", self.counters));
        }
        if !(32..=64).contains(&self.counter_bits) {
            return Err(format!(
                "counter_bits = {}: must be 32-64",
                self.counter_bits
            ));
        }
        if !(1..=15).contains(&self.max_inc) {
            return Err(format!("max_inc = {}: must be 1-15", self.max_inc));
        }
        let min = Self::min_low_bits(self.counters, self.max_inc);
        if !(min..=16).contains(&self.low_bits) {
            return Err(format!(
                "low_bits = {}: must be {min}-16 for {} counters and increments up to {} \
                 (every carry served before the low part wraps again)",
                self.low_bits, self.counters, self.max_inc
            ));
        }
        Ok(())
    }

    /// The mask of value bits [W-1:L] (the upper part, kept in block RAM).
    pub fn upper_mask(&self) -> u64 {
        let w = if self.counter_bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.counter_bits) - 1
        };
        w & !((1u64 << self.low_bits) - 1)
    }
}

#[derive(LogicBlock)]
pub struct HybridBank {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// Counter n's increment at this edge (a register in the user).
    pub inc: Vec<Signal<In, Bits<4>>>,
    /// The op: valid, write (else read), high word, counter, data and byte strobes.
    pub op_valid: Signal<In, Bit>,
    pub op_write: Signal<In, Bit>,
    pub op_hi: Signal<In, Bit>,
    pub op_idx: Signal<In, Bits<8>>,
    pub op_wdata: Signal<In, Bits<32>>,
    pub op_strb: Signal<In, Bits<4>>,
    /// A read op reads the counter's shadow (SVR) instead of the counter.
    pub op_svr: Signal<In, Bit>,
    /// Capture at this edge: every shadow takes its counter's value after the edge.
    pub capture: Signal<In, Bit>,
    /// The op is performed in this cycle (a register).
    pub op_accept: Signal<Out, Bit>,
    /// A read's value (performed two cycles earlier): both words.
    pub rd_valid: Signal<Out, Bit>,
    pub rd_lo: Signal<Out, Bits<32>>,
    pub rd_hi: Signal<Out, Bits<32>>,
    /// Counter n overflows at the edge ending this cycle.
    pub ovf: Signal<Out, Bits<64>>,
    // Per counter.
    lo: Vec<DFF<Bits<32>>>,
    pend: Vec<DFF<Bit>>,
    /// Per counter: value bits [31:L] all ones (bit 0), bits [W-1:32] all ones (bit 1).
    ones: Vec<DFF<Bits<2>>>,
    fresh: Vec<DFF<Bit>>,
    q0_hot: Vec<DFF<Bit>>,
    /// The shadow (10.5.2.3 SVRn): low part and pending carry taken at the capture edge; its
    /// upper part is the counter's row while `stale` (copy-on-write), else its own row.
    s_lo: Vec<DFF<Bits<32>>>,
    s_pend: Vec<DFF<Bit>>,
    stale: Vec<DFF<Bit>>,
    ctr_id: Vec<Constant<Bits<8>>>,
    ovf_pack: BitPack,
    mid_ram: RAM<Bits<32>, 6>,
    hi_ram: RAM<Bits<32>, 6>,
    svr_mid_ram: RAM<Bits<32>, 6>,
    svr_hi_ram: RAM<Bits<32>, 6>,
    // Constants.
    lmask: Constant<Bits<32>>,
    /// 1 << L: a carry out of the low part, as a bit of the sum and as an addend.
    pend_unit: Constant<Bits<32>>,
    umask_lo: Constant<Bits<32>>,
    umask_hi: Constant<Bits<32>>,
    ones_reset: Constant<Bits<2>>,
    last_id: Constant<Bits<8>>,
    byte_mask: Vec<Constant<Bits<32>>>,
    flag_m: Constant<Bits<2>>,
    flag_h: Constant<Bits<2>>,
    all32_fe: Constant<Bits<32>>,
    fault_drop: Constant<Bit>,
    fault_late: Constant<Bit>,
    fault_pre: Constant<Bit>,
    ones_all: Constant<Bits<2>>,
    /// The high part's byte predicates of a zero row.
    fresh_h_all: Constant<Bit>,
    fresh_h_fe: Constant<Bit>,
    all32: Constant<Bits<32>>,
    kind_service: Constant<Bits<2>>,
    kind_read: Constant<Bits<2>>,
    kind_write_lo: Constant<Bits<2>>,
    kind_write_hi: Constant<Bits<2>>,
    // Arbiter and pipeline.
    scan: DFF<Bits<8>>,
    q0_v: DFF<Bit>,
    q0_apb: DFF<Bit>,
    q0_kind: DFF<Bits<2>>,
    q0_idx: DFF<Bits<8>>,
    q0_wdata: DFF<Bits<32>>,
    q0_strb: DFF<Bits<4>>,
    q0_svr: DFF<Bit>,
    /// The low-part bits a write replaces, registered with the op (they fan out to every
    /// counter's low part).
    q0_wlo_r: DFF<Bits<32>>,
    q0_wflag: DFF<Bit>,
    s1_svr: DFF<Bit>,
    s1_stale: DFF<Bit>,
    s1_copy: DFF<Bit>,
    s1_spend: DFF<Bit>,
    s2_svr: DFF<Bit>,
    s2_stale: DFF<Bit>,
    s2_copy: DFF<Bit>,
    s2_spend: DFF<Bit>,
    /// The shadow row as read, its middle part plus one, and the two rows' "middle part all
    /// ones" (a carry would run into the high part).
    s2_smraw: DFF<Bits<32>>,
    s2_shraw: DFF<Bits<32>>,
    s2_smsum: DFF<Bits<32>>,
    s2_mpred: DFF<Bit>,
    s2_spred: DFF<Bit>,
    s1_v: DFF<Bit>,
    s1_kind: DFF<Bits<2>>,
    s1_idx: DFF<Bits<8>>,
    s1_pend: DFF<Bit>,
    s1_fresh: DFF<Bit>,
    s1_lo: DFF<Bits<32>>,
    s1_wdata: DFF<Bits<32>>,
    s1_strb: DFF<Bits<4>>,
    s2_v: DFF<Bit>,
    s2_kind: DFF<Bits<2>>,
    s2_idx: DFF<Bits<8>>,
    /// The row as read, the middle part plus one carry, the carry taken (`s2_pend`) and
    /// whether it runs into the high part (`s2_cm`), the row is fresh, the low-part snapshot.
    s2_mraw: DFF<Bits<32>>,
    s2_hraw: DFF<Bits<32>>,
    s2_msum: DFF<Bits<32>>,
    s2_pend: DFF<Bit>,
    s2_fresh: DFF<Bit>,
    s2_lo: DFF<Bits<32>>,
    /// The high part read (unimplemented bits as ones) is all ones, or all ones but bit 0.
    s2_h_all: DFF<Bit>,
    s2_h_fe: DFF<Bit>,
    q0_pre: DFF<Bit>,
    s1_pre: DFF<Bit>,
    s2_pre: DFF<Bit>,
    pre_mid: DFF<Bits<32>>,
    pre_hi: DFF<Bits<32>>,
    pre_idx: DFF<Bits<8>>,
    pre_ok: DFF<Bit>,
    s3_v: DFF<Bit>,
    s3_idx: DFF<Bits<8>>,
    s3_flags: DFF<Bits<2>>,
    s2_cm: DFF<Bit>,
    s2_wdata: DFF<Bits<32>>,
    s2_strb: DFF<Bits<4>>,
    // Locals.
    lo_now: Signal<Local, Bits<32>>,
    inc_now: Signal<Local, Bits<4>>,
    sum: Signal<Local, Bits<32>>,
    wrap: Signal<Local, Bit>,
    is_q0: Signal<Local, Bit>,
    is_wr: Signal<Local, Bit>,
    is_s3: Signal<Local, Bit>,
    fbase: Signal<Local, Bits<2>>,
    q0_pend: Signal<Local, Bit>,
    q0_fresh: Signal<Local, Bit>,
    q0_lo: Signal<Local, Bits<32>>,
    op_conf: Signal<Local, Bit>,
    sc_conf: Signal<Local, Bit>,
    apb_take: Signal<Local, Bit>,
    nx_v: Signal<Local, Bit>,
    lo_nx: Signal<Local, Bits<32>>,
    pend_nx: Signal<Local, Bit>,
    q0_stale: Signal<Local, Bit>,
    q0_spend: Signal<Local, Bit>,
    smid_rd: Signal<Local, Bits<32>>,
    shi_rd: Signal<Local, Bits<32>>,
    smid_new: Signal<Local, Bits<32>>,
    sh_base: Signal<Local, Bits<32>>,
    scm: Signal<Local, Bit>,
    nx_idx: Signal<Local, Bits<8>>,
    wr_held: Signal<Local, Bit>,
    op_bm: Signal<Local, Bits<32>>,
    wflags: Signal<Local, Bits<2>>,
    wfmask: Signal<Local, Bits<2>>,
    wmask_word: Signal<Local, Bits<32>>,
    op_partial: Signal<Local, Bit>,
    pre_hit: Signal<Local, Bit>,
    wword: Signal<Local, Bits<32>>,
    mid_rd: Signal<Local, Bits<32>>,
    hi_rd: Signal<Local, Bits<32>>,
    pend_eff: Signal<Local, Bit>,
    mid_base: Signal<Local, Bits<32>>,
    hi_base: Signal<Local, Bits<32>>,
    mid_new: Signal<Local, Bits<32>>,
    hi_merge: Signal<Local, Bits<32>>,
    s2_bm: Signal<Local, Bits<32>>,
    hi_new: Signal<Local, Bits<32>>,
    s2_flags: Signal<Local, Bits<2>>,
    h_all: Signal<Local, Bit>,
    h_fe: Signal<Local, Bit>,
    hx: Signal<Local, Bits<32>>,
}

impl HybridBank {
    /// The bank's Verilog as module `top` (rust-hdl's checks first).
    pub fn verilog(
        shape: BankShape,
        fault: Option<BankFault>,
        top: &str,
    ) -> Result<String, String> {
        let mut bank = HybridBank::new(shape, fault)?;
        bank.connect_all();
        check_all(&bank).map_err(|e| format!("rust-hdl check of the bank: {e:?}"))?;
        let mut defines = ModuleDefines::default();
        bank.accept(top, &mut defines);
        Ok(format!(
            "// PMCG hybrid counter bank, generated with rust-hdl 0.46. Do not edit.\n// {shape:?}\n{}",
            defines.defines()
        ))
    }

    pub fn new(shape: BankShape, fault: Option<BankFault>) -> Result<Self, String> {
        shape.check()?;
        let n = shape.counters;
        let umask = shape.upper_mask();
        // A counter of 32 bits has no high part: its flag is always 1.
        let hi_none = umask >> 32 == 0;
        let ones_reset = if hi_none { 2u64 } else { 0 };
        // A zero high part, unimplemented bits as ones: all ones (no high part), or all ones
        // but bit 0 (a high part of one bit).
        let fresh_hx = !(umask >> 32) & 0xFFFF_FFFF;
        let lmask = (1u64 << shape.low_bits) - 1;
        Ok(HybridBank {
            clock: Default::default(),
            rst: Default::default(),
            inc: (0..n).map(|_| Default::default()).collect(),
            op_valid: Default::default(),
            op_write: Default::default(),
            op_hi: Default::default(),
            op_idx: Default::default(),
            op_wdata: Default::default(),
            op_strb: Default::default(),
            op_svr: Default::default(),
            capture: Default::default(),
            op_accept: Default::default(),
            rd_valid: Default::default(),
            rd_lo: Default::default(),
            rd_hi: Default::default(),
            ovf: Default::default(),
            lo: (0..n).map(|_| Default::default()).collect(),
            pend: (0..n).map(|_| Default::default()).collect(),
            ones: (0..n).map(|_| Default::default()).collect(),
            fresh: (0..n).map(|_| Default::default()).collect(),
            q0_hot: (0..n).map(|_| Default::default()).collect(),
            s_lo: (0..n).map(|_| Default::default()).collect(),
            s_pend: (0..n).map(|_| Default::default()).collect(),
            stale: (0..n).map(|_| Default::default()).collect(),
            ctr_id: (0..n).map(|i| Constant::new((i as u64).into())).collect(),
            ovf_pack: BitPack::new(n),
            mid_ram: Default::default(),
            hi_ram: Default::default(),
            svr_mid_ram: Default::default(),
            svr_hi_ram: Default::default(),
            lmask: Constant::new(lmask.into()),
            pend_unit: Constant::new((1u64 << shape.low_bits).into()),
            umask_lo: Constant::new((umask & 0xFFFF_FFFF).into()),
            umask_hi: Constant::new((umask >> 32).into()),
            ones_reset: Constant::new(ones_reset.into()),
            last_id: Constant::new(((n - 1) as u64).into()),
            byte_mask: (0..4)
                .map(|k| Constant::new((0xFFu64 << (8 * k)).into()))
                .collect(),
            flag_m: Constant::new(1u64.into()),
            flag_h: Constant::new(2u64.into()),
            all32_fe: Constant::new(0xFFFF_FFFEu64.into()),
            fault_drop: Constant::new(fault == Some(BankFault::DropCarryService)),
            fault_late: Constant::new(fault == Some(BankFault::LateCopyOnWrite)),
            fault_pre: Constant::new(fault == Some(BankFault::IgnorePreRow)),
            ones_all: Constant::new(3u64.into()),
            fresh_h_all: Constant::new(fresh_hx == 0xFFFF_FFFF),
            fresh_h_fe: Constant::new(fresh_hx == 0xFFFF_FFFE),
            all32: Constant::new(0xFFFF_FFFFu64.into()),
            kind_service: Constant::new(KIND_SERVICE.into()),
            kind_read: Constant::new(KIND_READ.into()),
            kind_write_lo: Constant::new(KIND_WRITE_LO.into()),
            kind_write_hi: Constant::new(KIND_WRITE_HI.into()),
            scan: Default::default(),
            q0_v: Default::default(),
            q0_apb: Default::default(),
            q0_kind: Default::default(),
            q0_idx: Default::default(),
            q0_wdata: Default::default(),
            q0_strb: Default::default(),
            q0_svr: Default::default(),
            q0_wlo_r: Default::default(),
            q0_wflag: Default::default(),
            s1_svr: Default::default(),
            s1_stale: Default::default(),
            s1_copy: Default::default(),
            s1_spend: Default::default(),
            s2_svr: Default::default(),
            s2_stale: Default::default(),
            s2_copy: Default::default(),
            s2_spend: Default::default(),
            s2_smraw: Default::default(),
            s2_shraw: Default::default(),
            s2_smsum: Default::default(),
            s2_mpred: Default::default(),
            s2_spred: Default::default(),
            s1_v: Default::default(),
            s1_kind: Default::default(),
            s1_idx: Default::default(),
            s1_pend: Default::default(),
            s1_fresh: Default::default(),
            s1_lo: Default::default(),
            s1_wdata: Default::default(),
            s1_strb: Default::default(),
            s2_v: Default::default(),
            s2_kind: Default::default(),
            s2_idx: Default::default(),
            s2_mraw: Default::default(),
            s2_hraw: Default::default(),
            s2_msum: Default::default(),
            s2_pend: Default::default(),
            s2_fresh: Default::default(),
            s2_lo: Default::default(),
            s2_h_all: Default::default(),
            s2_h_fe: Default::default(),
            q0_pre: Default::default(),
            s1_pre: Default::default(),
            s2_pre: Default::default(),
            pre_mid: Default::default(),
            pre_hi: Default::default(),
            pre_idx: Default::default(),
            pre_ok: Default::default(),
            s3_v: Default::default(),
            s3_idx: Default::default(),
            s3_flags: Default::default(),
            s2_cm: Default::default(),
            s2_wdata: Default::default(),
            s2_strb: Default::default(),
            lo_now: Default::default(),
            inc_now: Default::default(),
            sum: Default::default(),
            wrap: Default::default(),
            is_q0: Default::default(),
            is_wr: Default::default(),
            is_s3: Default::default(),
            fbase: Default::default(),
            q0_pend: Default::default(),
            q0_fresh: Default::default(),
            q0_lo: Default::default(),
            op_conf: Default::default(),
            sc_conf: Default::default(),
            apb_take: Default::default(),
            nx_v: Default::default(),
            lo_nx: Default::default(),
            pend_nx: Default::default(),
            q0_stale: Default::default(),
            q0_spend: Default::default(),
            smid_rd: Default::default(),
            shi_rd: Default::default(),
            smid_new: Default::default(),
            sh_base: Default::default(),
            scm: Default::default(),
            nx_idx: Default::default(),
            wr_held: Default::default(),
            op_bm: Default::default(),
            wflags: Default::default(),
            wfmask: Default::default(),
            wmask_word: Default::default(),
            op_partial: Default::default(),
            pre_hit: Default::default(),
            wword: Default::default(),
            mid_rd: Default::default(),
            hi_rd: Default::default(),
            pend_eff: Default::default(),
            mid_base: Default::default(),
            hi_base: Default::default(),
            mid_new: Default::default(),
            hi_merge: Default::default(),
            s2_bm: Default::default(),
            hi_new: Default::default(),
            s2_flags: Default::default(),
            h_all: Default::default(),
            h_fe: Default::default(),
            hx: Default::default(),
        })
    }
}

impl Logic for HybridBank {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, scan, q0_v, q0_apb, q0_kind, q0_idx, q0_wdata, q0_strb, s1_v, s1_kind,
            s1_idx, s1_pend, s1_fresh, s1_lo, s1_wdata, s1_strb, s2_v, s2_kind, s2_idx, s2_mraw,
            s2_hraw, s2_msum, s2_pend, s2_fresh, s2_lo, s2_h_all, s2_h_fe, q0_pre, s1_pre, s2_pre,
            pre_mid, pre_hi, pre_idx, pre_ok, s3_v, s3_idx, s3_flags, s2_cm, s2_wdata, s2_strb,
            q0_svr, q0_wlo_r, q0_wflag, s1_svr, s1_stale, s1_copy, s1_spend, s2_svr, s2_stale,
            s2_copy, s2_spend, s2_smraw, s2_shraw, s2_smsum, s2_mpred, s2_spred
        );
        self.mid_ram.read_clock.next = self.clock.val();
        self.mid_ram.write_clock.next = self.clock.val();
        self.hi_ram.read_clock.next = self.clock.val();
        self.hi_ram.write_clock.next = self.clock.val();
        self.svr_mid_ram.read_clock.next = self.clock.val();
        self.svr_mid_ram.write_clock.next = self.clock.val();
        self.svr_hi_ram.read_clock.next = self.clock.val();
        self.svr_hi_ram.write_clock.next = self.clock.val();

        // ---- q0: the op performed in this cycle. The "all ones" flag of the word a write
        // replaces (computed with the op's issue, `q0_wflag`; the other word's flag is kept:
        // the arbiter lets a write in only with no carry pending, so that flag is exact).
        self.wfmask.next = self.flag_m.val();
        if self.q0_kind.q.val().get_bit(0) {
            self.wfmask.next = self.flag_h.val();
        }
        self.wflags.next = 0.into();
        if self.q0_wflag.q.val() {
            self.wflags.next = self.ones_all.val();
        }

        // ---- s2: the row as the op leaves it (all from registers: the block RAM's output
        // only reaches s2's registers and one adder), written back; the new flags; a read's words.
        self.s2_bm.next = 0.into();
        for k in 0..4 {
            if self.s2_strb.q.val().get_bit(k) {
                self.s2_bm.next = self.s2_bm.val() | self.byte_mask[k].val();
            }
        }
        self.mid_base.next = self.s2_mraw.q.val();
        self.hi_base.next = self.s2_hraw.q.val();
        if self.s2_fresh.q.val() {
            self.mid_base.next = 0.into();
            self.hi_base.next = 0.into();
        }
        self.mid_new.next = self.mid_base.val();
        if self.s2_pend.q.val() {
            self.mid_new.next = self.s2_msum.q.val();
            if self.s2_fresh.q.val() {
                self.mid_new.next = self.pend_unit.val();
            }
        }
        if self.s2_kind.q.val() == self.kind_write_lo.val() {
            self.mid_new.next = (self.mid_base.val() & (!self.s2_bm.val()))
                | (self.s2_wdata.q.val() & self.s2_bm.val());
        }
        if self.s2_kind.q.val() == self.kind_write_hi.val() {
            self.mid_new.next = self.mid_base.val();
        }
        self.hi_merge.next =
            (self.hi_base.val() & (!self.s2_bm.val())) | (self.s2_wdata.q.val() & self.s2_bm.val());
        self.hi_new.next = self.hi_base.val() & self.umask_hi.val();
        if self.s2_cm.q.val() {
            // (cm implies a row that is not fresh: the adder starts from the raw register, with
            // no mux in front.)
            self.hi_new.next = (self.s2_hraw.q.val() + 1) & self.umask_hi.val();
        }
        if self.s2_kind.q.val() == self.kind_write_hi.val() {
            self.hi_new.next = self.hi_merge.val() & self.umask_hi.val();
        }
        // The flags after the write-back, without the high part's adder in front: hi + cm is
        // all ones when hi was and takes no carry, or was all ones but bit 0 and takes one (a
        // fresh row's predicates are those of 0, constants).
        self.h_all.next = self.s2_h_all.q.val();
        self.h_fe.next = self.s2_h_fe.q.val();
        if self.s2_fresh.q.val() {
            self.h_all.next = self.fresh_h_all.val();
            self.h_fe.next = self.fresh_h_fe.val();
        }
        // (A counter of 32 bits has no high part: its flag stays 1.)
        self.s2_flags.next = self.ones_reset.val();
        if (self.mid_new.val() | (!self.umask_lo.val())) == self.all32.val() {
            self.s2_flags.next = self.flag_m.val();
        }
        if self.s2_kind.q.val() == self.kind_write_hi.val() {
            if (self.hi_merge.val() | (!self.umask_hi.val())) == self.all32.val() {
                self.s2_flags.next = self.s2_flags.val() | self.flag_h.val();
            }
        } else if (self.h_all.val() & (!self.s2_cm.q.val()))
            | (self.h_fe.val() & self.s2_cm.q.val())
        {
            self.s2_flags.next = self.s2_flags.val() | self.flag_h.val();
        }
        // The row the last op from the op port left (a partial write's merge base), valid
        // until an op changes that counter's row (a carry service with a carry).
        self.pre_mid.d.next = self.pre_mid.q.val();
        self.pre_hi.d.next = self.pre_hi.q.val();
        self.pre_idx.d.next = self.pre_idx.q.val();
        self.pre_ok.d.next = self.pre_ok.q.val();
        if self.s2_v.q.val() {
            if self.s2_pre.q.val() {
                self.pre_mid.d.next = self.mid_new.val() & self.umask_lo.val();
                self.pre_hi.d.next = self.hi_new.val();
                self.pre_idx.d.next = self.s2_idx.q.val();
                self.pre_ok.d.next = true;
            } else if self.s2_pend.q.val() & (self.s2_idx.q.val() == self.pre_idx.q.val()) {
                self.pre_ok.d.next = false;
            }
        }
        self.mid_ram.write_address.next = self.s2_idx.q.val().get_bits::<6>(0);
        self.hi_ram.write_address.next = self.s2_idx.q.val().get_bits::<6>(0);
        self.mid_ram.write_data.next = self.mid_new.val() & self.umask_lo.val();
        self.hi_ram.write_data.next = self.hi_new.val();
        self.mid_ram.write_enable.next = self.s2_v.q.val();
        self.hi_ram.write_enable.next = self.s2_v.q.val();
        // s2 -> s3: the flags reach the counter one edge after the write-back.
        self.s3_v.d.next = self.s2_v.q.val();
        self.s3_idx.d.next = self.s2_idx.q.val();
        self.s3_flags.d.next = self.s2_flags.val();
        self.rd_valid.next = self.s2_v.q.val() & (self.s2_kind.q.val() == self.kind_read.val());
        self.rd_lo.next = (self.mid_new.val() & self.umask_lo.val()) | self.s2_lo.q.val();
        self.rd_hi.next = self.hi_new.val();
        // A shadow read: the shadow's row (the counter's as read while stale) plus its carry.
        self.smid_new.next = self.s2_smraw.q.val();
        self.sh_base.next = self.s2_shraw.q.val();
        self.scm.next = self.s2_spend.q.val() & self.s2_spred.q.val();
        if self.s2_spend.q.val() {
            self.smid_new.next = self.s2_smsum.q.val();
        }
        if self.s2_stale.q.val() {
            self.smid_new.next = self.mid_base.val();
            self.sh_base.next = self.hi_base.val();
            self.scm.next =
                self.s2_spend.q.val() & self.s2_mpred.q.val() & (!self.s2_fresh.q.val());
            if self.s2_spend.q.val() {
                self.smid_new.next = self.s2_msum.q.val();
                if self.s2_fresh.q.val() {
                    self.smid_new.next = self.pend_unit.val();
                }
            }
        }
        if self.s2_svr.q.val() {
            self.rd_lo.next = (self.smid_new.val() & self.umask_lo.val()) | self.s2_lo.q.val();
            self.rd_hi.next = self.sh_base.val() & self.umask_hi.val();
            if self.scm.val() {
                self.rd_hi.next = (self.s2_shraw.q.val() + 1) & self.umask_hi.val();
                if self.s2_stale.q.val() {
                    self.rd_hi.next = (self.s2_hraw.q.val() + 1) & self.umask_hi.val();
                }
            }
        }
        // Copy-on-write: the first op on a stale counter copies its row, as read (before the
        // op changes it), into the shadow's row.
        self.svr_mid_ram.write_address.next = self.s2_idx.q.val().get_bits::<6>(0);
        self.svr_hi_ram.write_address.next = self.s2_idx.q.val().get_bits::<6>(0);
        self.svr_mid_ram.write_data.next = self.mid_base.val() & self.umask_lo.val();
        self.svr_hi_ram.write_data.next = self.hi_base.val() & self.umask_hi.val();
        if self.fault_late.val() {
            self.svr_mid_ram.write_data.next = self.mid_new.val() & self.umask_lo.val();
            self.svr_hi_ram.write_data.next = self.hi_new.val();
        }
        self.svr_mid_ram.write_enable.next = self.s2_v.q.val() & self.s2_copy.q.val();
        self.svr_hi_ram.write_enable.next = self.s2_v.q.val() & self.s2_copy.q.val();

        // ---- Arbiter: the next cycle's q0. An op may not read a row that an op in q0 or s1
        // has still to write back (s2 writes at this edge, before the next read).
        // (An op from the port also waits for s2, so that the row and `pre_*` it sees in q0
        // do not change at the edge before.)
        self.op_conf.next = (self.q0_v.q.val() & (self.q0_idx.q.val() == self.op_idx.val()))
            | (self.s1_v.q.val() & (self.s1_idx.q.val() == self.op_idx.val()))
            | (self.s2_v.q.val() & (self.s2_idx.q.val() == self.op_idx.val()));
        self.sc_conf.next = (self.q0_v.q.val() & (self.q0_idx.q.val() == self.scan.q.val()))
            | (self.s1_v.q.val() & (self.s1_idx.q.val() == self.scan.q.val()));
        self.apb_take.next = self.op_valid.val() & (!self.op_conf.val());
        self.nx_v.next = false;
        self.q0_apb.d.next = false;
        self.q0_kind.d.next = self.kind_service.val();
        self.nx_idx.next = self.scan.q.val();
        self.q0_wdata.d.next = self.op_wdata.val();
        self.q0_strb.d.next = self.op_strb.val();
        self.op_bm.next = 0.into();
        for k in 0..4 {
            if self.op_strb.val().get_bit(k) {
                self.op_bm.next = self.op_bm.val() | self.byte_mask[k].val();
            }
        }
        self.q0_wlo_r.d.next = self.op_bm.val() & self.lmask.val();
        // A write that leaves some upper bits of its word unwritten needs the row for its flag:
        // it goes in only once the last op from the port was on its counter (`pre_*` valid).
        self.op_partial.next = (self.umask_lo.val() & (!self.op_bm.val())).any();
        if self.op_hi.val() {
            self.op_partial.next = (self.umask_hi.val() & (!self.op_bm.val())).any();
        }
        self.pre_hit.next = (self.pre_ok.q.val() & (self.pre_idx.q.val() == self.op_idx.val()))
            | self.fault_pre.val();
        // The written word's upper bits all ones: its bytes merged over the row `pre_*` (exact
        // for a partial write, which goes in only with `pre_hit`; unused by a write of every
        // byte). Registered with the issue: it fans out to every counter's flags.
        self.wmask_word.next = self.umask_lo.val();
        self.wword.next = self.pre_mid.q.val();
        if self.op_hi.val() {
            self.wmask_word.next = self.umask_hi.val();
            self.wword.next = self.pre_hi.q.val();
        }
        self.q0_wflag.d.next = ((self.wword.val() & (!self.op_bm.val()))
            | (self.op_wdata.val() & self.op_bm.val())
            | (!self.wmask_word.val()))
            == self.all32.val();
        self.q0_pre.d.next = self.apb_take.val();
        self.q0_svr.d.next = self.op_svr.val() & self.apb_take.val();
        self.scan.d.next = self.scan.q.val();
        if self.apb_take.val() {
            self.nx_v.next = true;
            self.nx_idx.next = self.op_idx.val();
            if self.op_write.val() & self.op_partial.val() & (!self.pre_hit.val()) {
                // First a carry service of its counter, whose row becomes `pre_*`.
                self.q0_apb.d.next = false;
            } else {
                self.q0_apb.d.next = true;
                self.q0_kind.d.next = self.kind_read.val();
                if self.op_write.val() {
                    self.q0_kind.d.next = self.kind_write_lo.val();
                    if self.op_hi.val() {
                        self.q0_kind.d.next = self.kind_write_hi.val();
                    }
                }
            }
        } else {
            // Every slot no op takes serves the scan's counter, carry pending or not (a
            // service with none writes its row back unchanged), unless an op on it is in
            // flight (that op takes the carry; one owed after it waits for the next round).
            // No lookup of pend[scan] in front of this decision.
            // Nor while an op from the port waits for that counter to leave the pipeline (it
            // would never leave with few counters; the op takes the carry itself).
            self.nx_v.next = (!self.sc_conf.val())
                & (!(self.op_valid.val() & (self.scan.q.val() == self.op_idx.val())));
            self.scan.d.next = self.scan.q.val() + 1;
            if self.scan.q.val() == self.last_id.val() {
                self.scan.d.next = 0.into();
            }
        }
        self.q0_v.d.next = self.nx_v.val();
        self.q0_idx.d.next = self.nx_idx.val();

        // ---- Per counter: count, carry, overflow, a write's low part and flags, the s2
        // write-back's flags; and the selections of q0's, the APB op's and the scan's counter.
        self.q0_pend.next = false;
        self.q0_fresh.next = false;
        self.q0_lo.next = 0.into();
        self.q0_stale.next = false;
        self.q0_spend.next = false;
        for n in 0..self.lo.len() {
            self.s_lo[n].clock.next = self.clock.val();
            self.s_pend[n].clock.next = self.clock.val();
            self.stale[n].clock.next = self.clock.val();
            self.lo[n].clock.next = self.clock.val();
            self.pend[n].clock.next = self.clock.val();
            self.ones[n].clock.next = self.clock.val();
            self.fresh[n].clock.next = self.clock.val();
            // q0's counter, one-hot in flip-flops (no decode in front of the snapshot mux).
            self.q0_hot[n].clock.next = self.clock.val();
            self.q0_hot[n].d.next = self.nx_v.val() & (self.nx_idx.val() == self.ctr_id[n].val());
            self.is_q0.next = self.q0_hot[n].q.val();
            // A write is performed only with no carry pending on its counter, so that its
            // other bytes' flags are exact; with one pending it serves the carry instead (as a
            // carry service op) and is retried: op_accept stays 0.
            self.is_wr.next =
                self.is_q0.val() & self.q0_kind.q.val().get_bit(1) & (!self.pend[n].q.val());
            self.is_s3.next = self.s3_v.q.val() & (self.s3_idx.q.val() == self.ctr_id[n].val());
            // (bit_cast of a loop-indexed value breaks rust-hdl's Verilog generation: copy first.)
            self.inc_now.next = self.inc[n].val();
            self.lo_now.next = self.lo[n].q.val();
            self.sum.next = self.lo_now.val() + bit_cast::<32, 4>(self.inc_now.val());
            // A write's edge adds nothing (10.5.2.1), so it cannot wrap.
            self.wrap.next = (self.sum.val() & self.pend_unit.val()).any() & (!self.is_wr.val());
            self.lo_nx.next = self.sum.val() & self.lmask.val();
            // The flags an older op of this counter writes back at this edge are the base a
            // write merges into (the two can meet at one edge).
            self.fbase.next = self.ones[n].q.val();
            if self.is_s3.val() {
                self.fbase.next = self.s3_flags.q.val();
            }
            self.ones[n].d.next = self.fbase.val();
            if self.is_wr.val() {
                self.lo_nx.next = self.lo_now.val();
                if !self.q0_kind.q.val().get_bit(0) {
                    self.lo_nx.next = (self.lo_now.val() & (!self.q0_wlo_r.q.val()))
                        | (self.q0_wdata.q.val() & self.q0_wlo_r.q.val());
                }
                self.ones[n].d.next = (self.fbase.val() & (!self.wfmask.val()))
                    | (self.wflags.val() & self.wfmask.val());
            }
            // An op on the counter takes its pending carry; a wrap at this edge owes a new one.
            self.pend_nx.next = (self.pend[n].q.val() & (!self.is_q0.val())) | self.wrap.val();
            self.lo[n].d.next = self.lo_nx.val();
            self.pend[n].d.next = self.pend_nx.val();
            // Capture (10.5.2.3): the shadow takes the counter's low part and pending carry
            // after this edge and shares its row until the row is next written (stale).
            self.s_lo[n].d.next = self.s_lo[n].q.val();
            self.s_pend[n].d.next = self.s_pend[n].q.val();
            self.stale[n].d.next = self.stale[n].q.val() & (!self.is_q0.val());
            if self.capture.val() {
                self.s_lo[n].d.next = self.lo_nx.val();
                self.s_pend[n].d.next = self.pend_nx.val();
                self.stale[n].d.next = true;
            }
            self.fresh[n].d.next = self.fresh[n].q.val() & (!self.is_q0.val());
            // Exact overflow (10.2.1): the carry out of the low part with every upper bit one.
            self.ovf_pack.bits[n].next =
                self.wrap.val() & (self.ones[n].q.val() == self.ones_all.val());
            if self.is_q0.val() {
                self.q0_pend.next = self.q0_pend.val() | self.pend[n].q.val();
                self.q0_fresh.next = self.q0_fresh.val() | self.fresh[n].q.val();
                self.q0_stale.next = self.q0_stale.val() | self.stale[n].q.val();
                self.q0_spend.next = self.q0_spend.val() | self.s_pend[n].q.val();
                if self.q0_svr.q.val() {
                    // (Masked: only the low part's bits exist, and Yosys then drops the rest.)
                    self.q0_lo.next = self.q0_lo.val() | (self.s_lo[n].q.val() & self.lmask.val());
                } else {
                    self.q0_lo.next = self.q0_lo.val() | self.lo_now.val();
                }
            }
            if self.rst.val() {
                self.q0_hot[n].d.next = false;
                self.lo[n].d.next = 0.into();
                self.pend[n].d.next = false;
                self.ones[n].d.next = self.ones_reset.val();
                self.fresh[n].d.next = true;
                self.s_lo[n].d.next = 0.into();
                self.s_pend[n].d.next = false;
                self.stale[n].d.next = true;
            }
        }
        self.ovf.next = self.ovf_pack.word.val();

        self.wr_held.next = self.q0_kind.q.val().get_bit(1) & self.q0_pend.val();
        self.op_accept.next = self.q0_v.q.val() & self.q0_apb.q.val() & (!self.wr_held.val());
        self.mid_ram.read_address.next = self.q0_idx.q.val().get_bits::<6>(0);
        self.hi_ram.read_address.next = self.q0_idx.q.val().get_bits::<6>(0);
        self.svr_mid_ram.read_address.next = self.q0_idx.q.val().get_bits::<6>(0);
        self.svr_hi_ram.read_address.next = self.q0_idx.q.val().get_bits::<6>(0);

        // ---- q0 -> s1: the snapshot of the op's cycle.
        self.s1_v.d.next = self.q0_v.q.val();
        self.s1_kind.d.next = self.q0_kind.q.val();
        if self.wr_held.val() {
            self.s1_kind.d.next = self.kind_service.val();
        }
        self.s1_idx.d.next = self.q0_idx.q.val();
        self.s1_pend.d.next = self.q0_pend.val();
        self.s1_fresh.d.next = self.q0_fresh.val();
        self.s1_lo.d.next = self.q0_lo.val();
        self.s1_wdata.d.next = self.q0_wdata.q.val();
        self.s1_strb.d.next = self.q0_strb.q.val();
        self.s1_svr.d.next = self.q0_svr.q.val();
        self.s1_pre.d.next = self.q0_pre.q.val();
        self.s1_stale.d.next = self.q0_stale.val();
        self.s1_spend.d.next = self.q0_spend.val();
        // A capture at this edge supersedes the shadow the copy would keep.
        self.s1_copy.d.next = self.q0_stale.val() & (!self.capture.val());

        // ---- s1: the row read at the last edge, registered raw with its sum and carry and
        // the high part's byte predicates (a fresh row is 0: applied in s2).
        self.mid_rd.next = self.mid_ram.read_data.val();
        self.hi_rd.next = self.hi_ram.read_data.val();
        self.s2_mraw.d.next = self.mid_rd.val();
        self.s2_hraw.d.next = self.hi_rd.val();
        self.s2_msum.d.next = self.mid_rd.val() + self.pend_unit.val();
        // The carry taken is added (not by the planted fault's carry service).
        self.pend_eff.next = self.s1_pend.q.val()
            & (!(self.fault_drop.val() & (self.s1_kind.q.val() == self.kind_service.val())));
        self.s2_pend.d.next = self.pend_eff.val();
        self.s2_cm.d.next = self.pend_eff.val()
            & (!self.s1_fresh.q.val())
            & ((self.mid_rd.val() | self.lmask.val()) == self.all32.val());
        self.hx.next = self.hi_rd.val() | (!self.umask_hi.val());
        self.s2_h_all.d.next = self.hx.val() == self.all32.val();
        self.s2_h_fe.d.next = self.hx.val() == self.all32_fe.val();
        self.s2_v.d.next = self.s1_v.q.val();
        self.s2_kind.d.next = self.s1_kind.q.val();
        self.s2_idx.d.next = self.s1_idx.q.val();
        self.s2_fresh.d.next = self.s1_fresh.q.val();
        self.s2_lo.d.next = self.s1_lo.q.val();
        self.s2_wdata.d.next = self.s1_wdata.q.val();
        self.s2_strb.d.next = self.s1_strb.q.val();
        self.s2_svr.d.next = self.s1_svr.q.val();
        self.s2_pre.d.next = self.s1_pre.q.val();
        self.s2_stale.d.next = self.s1_stale.q.val();
        self.s2_copy.d.next = self.s1_copy.q.val();
        self.s2_spend.d.next = self.s1_spend.q.val();
        self.smid_rd.next = self.svr_mid_ram.read_data.val();
        self.shi_rd.next = self.svr_hi_ram.read_data.val();
        self.s2_smraw.d.next = self.smid_rd.val();
        self.s2_shraw.d.next = self.shi_rd.val();
        self.s2_smsum.d.next = self.smid_rd.val() + self.pend_unit.val();
        self.s2_mpred.d.next = (self.mid_rd.val() | self.lmask.val()) == self.all32.val();
        self.s2_spred.d.next = (self.smid_rd.val() | self.lmask.val()) == self.all32.val();

        if self.rst.val() {
            self.scan.d.next = 0.into();
            self.q0_v.d.next = false;
            self.q0_apb.d.next = false;
            self.s1_v.d.next = false;
            self.s2_v.d.next = false;
            self.s3_v.d.next = false;
            self.pre_ok.d.next = false;
        }
    }
}
