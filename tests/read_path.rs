//! Block-level tests of the read data pipeline (`pmcg_hdl::read_path::ReadPath`, stage 2 of a
//! register read: docs/behaviour.md "APB4 completer", SMMUv3 10.5.2.1): `rd_data` in cycle t+1
//! is the read of cycle t's parts, the pending carry added. On the native block and on its
//! emitted Verilog under Verilator, against a plain-Rust adder written from the contract as
//! arithmetic (u64 adds and masks, not the block's two 16-bit increments), every cycle, both
//! after the edge and with the next cycle's inputs applied (no path from the inputs to
//! `rd_data`), for 64-, 32-, 48- and 40-bit counters.
//!
//! ```text
//!   keep, done, word, misc, add, lo1, addm, ──► dyn ReadDut: native | verilator ──► rd_data (t+1)
//!   ctr, cadd, clo1, caddm, sl, lo_c, lo_s, usec
//!                                           └─► reference: 0 unless done & keep, else
//!        sl ? ctr (+1 at bit 0 mod 2^(W-32) | +1 at bit L mod 2^32) | OR lo_c
//!           : word | misc (word +1 likewise) | (usec ? OR lo_c : 0) | OR lo_s
//! ```
//! `PMCG_SEED` sets the base seed (printed); `PMCG_BACKENDS` / `PMCG_REQUIRE_TOOLS=1` as in
//! tests/common.

mod common;

use pmcg_hdl::read_path::{ReadFault, ReadPath, READ_GROUPS};
use pmcg_sim::verilator::VerilatedModel;
use pmcg_synth::read_path::{read_path_verilog, READ_PATH_TOP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// A read path's widths: W-bit counters (`bits`), low words of L bits (`lo`).
#[derive(Clone, Copy, Debug)]
struct Shape {
    bits: u32,
    lo: u32,
}

impl Shape {
    /// The largest high word (counter bits [W-1:32]; 0 for W = 32: no high word).
    fn hi_max(self) -> u64 {
        (1u64 << (self.bits - 32)) - 1
    }

    /// The largest value of bits [31:L] (the middle part), as a number.
    fn mid_max(self) -> u64 {
        (1u64 << (32 - self.lo)) - 1
    }

    fn lo_mask(self) -> u64 {
        (1u64 << self.lo) - 1
    }
}

/// One cycle's inputs (stage 1's selection).
#[derive(Clone, Copy, Debug, Default)]
struct Inputs {
    keep: bool,
    done: bool,
    word: u64,
    misc: u64,
    add: bool,
    lo1: bool,
    addm: bool,
    ctr: u64,
    cadd: bool,
    clo1: bool,
    caddm: bool,
    sl: bool,
    lo_c: [u64; READ_GROUPS],
    lo_s: [u64; READ_GROUPS],
    usec: bool,
}

/// `v` + 1 as a high word: modulo 2^(W-32).
fn plus_one_high(s: Shape, v: u64) -> u64 {
    (v + 1) % (1u64 << (s.bits - 32))
}

/// `v` with its bits [31:L] plus one (modulo 2^(32-L)), bits [L-1:0] kept.
fn plus_one_mid(s: Shape, v: u64) -> u64 {
    let mid = ((v >> s.lo) + 1) % (1u64 << (32 - s.lo));
    mid << s.lo | v & s.lo_mask()
}

fn or_groups(g: &[u64; READ_GROUPS]) -> u64 {
    g.iter().fold(0, |a, &b| a | b)
}

/// The contract: `rd_data` in the cycle after inputs `i`.
fn reference(s: Shape, i: &Inputs) -> u64 {
    if !i.done || !i.keep {
        // Not a read's second access cycle, or every part registered as 0.
        return 0;
    }
    if i.sl {
        let base = if i.cadd {
            plus_one_high(s, i.ctr)
        } else if i.caddm {
            plus_one_mid(s, i.ctr)
        } else {
            i.ctr
        };
        base | or_groups(&i.lo_c)
    } else {
        let base = if i.add {
            plus_one_high(s, i.word)
        } else if i.addm {
            plus_one_mid(s, i.word)
        } else {
            i.word | i.misc
        };
        let lo_c = if i.usec { or_groups(&i.lo_c) } else { 0 };
        base | lo_c | or_groups(&i.lo_s)
    }
}

trait ReadDut {
    fn name(&self) -> &'static str;
    /// Inputs `i` in the low phase (`rd_data` then: the first value), then a rising edge:
    /// `rd_data` after it (the second).
    fn edge(&mut self, i: &Inputs) -> (u64, u64);
}

struct NativeRead(ReadPath);

impl ReadDut for NativeRead {
    fn name(&self) -> &'static str {
        "native"
    }

    fn edge(&mut self, i: &Inputs) -> (u64, u64) {
        let u = &mut self.0;
        u.clock.next = Clock { clk: false };
        u.keep.next = i.keep;
        u.done.next = i.done;
        u.word.next = i.word.into();
        u.misc.next = i.misc.into();
        u.add.next = i.add;
        u.lo1.next = i.lo1;
        u.addm.next = i.addm;
        u.ctr.next = i.ctr.into();
        u.cadd.next = i.cadd;
        u.clo1.next = i.clo1;
        u.caddm.next = i.caddm;
        u.sl.next = i.sl;
        for g in 0..READ_GROUPS {
            u.lo_c[g].next = i.lo_c[g].into();
            u.lo_s[g].next = i.lo_s[g].into();
        }
        u.usec.next = i.usec;
        common::settle_block(u, "the read path", 20);
        let before = u.rd_data.val().to_u64();
        u.clock.next = Clock { clk: true };
        common::settle_block(u, "the read path", 20);
        (before, u.rd_data.val().to_u64())
    }
}

/// The Verilog ports, in the order of [`VerilatorRead::p`].
const PORTS: [&str; 23] = [
    "clock", "keep", "done", "word", "misc", "add", "lo1", "addm", "ctr", "cadd", "clo1", "caddm",
    "sl", "usec", "rd_data", "lo_c$0", "lo_c$1", "lo_c$2", "lo_c$3", "lo_s$0", "lo_s$1", "lo_s$2",
    "lo_s$3",
];

struct VerilatorRead {
    m: VerilatedModel,
    /// [`PORTS`]
    p: [usize; 23],
}

impl ReadDut for VerilatorRead {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn edge(&mut self, i: &Inputs) -> (u64, u64) {
        let [clock, keep, done, word, misc, add, lo1, addm, ctr, cadd, clo1, caddm, sl, usec, rd_data, groups @ ..] =
            self.p;
        let m = &mut self.m;
        m.set(clock, 0);
        for (p, v) in [
            (keep, i.keep as u64),
            (done, i.done as u64),
            (word, i.word),
            (misc, i.misc),
            (add, i.add as u64),
            (lo1, i.lo1 as u64),
            (addm, i.addm as u64),
            (ctr, i.ctr),
            (cadd, i.cadd as u64),
            (clo1, i.clo1 as u64),
            (caddm, i.caddm as u64),
            (sl, i.sl as u64),
            (usec, i.usec as u64),
        ] {
            m.set(p, v);
        }
        for g in 0..READ_GROUPS {
            m.set(groups[g], i.lo_c[g]);
            m.set(groups[READ_GROUPS + g], i.lo_s[g]);
        }
        m.eval();
        let before = m.get(rd_data);
        m.set(clock, 1);
        m.eval();
        (before, m.get(rd_data))
    }
}

fn duts(s: Shape, fault: Option<ReadFault>) -> Vec<Box<dyn ReadDut>> {
    let mut v: Vec<Box<dyn ReadDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            let mut u = ReadPath::new(s.bits, s.lo, fault);
            u.connect_all();
            v.push(Box::new(NativeRead(u)));
        } else {
            let text = read_path_verilog(s.bits, s.lo, fault, READ_PATH_TOP).unwrap();
            let (m, p) = common::block_model(&text, READ_PATH_TOP, "the read path", PORTS);
            v.push(Box::new(VerilatorRead { m, p }));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no backend");
    v
}

/// A high word for a +1 at bit 0 (below 2^(W-32)), biased to the carries: `hi_max` (the wrap),
/// bits [15:0] all ones (the half carry; `hi_max` itself for W = 48), one below either.
fn high_word(rng: &mut ChaCha8Rng, s: Shape) -> u64 {
    let hi = s.hi_max();
    match rng.gen_range(0..6) {
        0 | 1 => hi,
        2 => (rng.gen::<u64>() | 0xFFFF) & hi,
        3 => 0xFFFF & hi,
        4 => hi - 1,
        _ => rng.gen::<u64>() & hi,
    }
}

/// A word whose bits [31:L] hold a middle part (bits [L-1:0] zero), biased to the carries:
/// all ones (the wrap), bits [15:L] all ones (the carry across bit 16), one below either.
fn mid_word(rng: &mut ChaCha8Rng, s: Shape) -> u64 {
    let mid = s.mid_max();
    let m = match rng.gen_range(0..6) {
        0 | 1 => mid,
        2 => (rng.gen::<u64>() | ((1u64 << (16 - s.lo)) - 1)) & mid,
        3 => mid - 1,
        _ => rng.gen::<u64>() & mid,
    };
    m << s.lo
}

/// Bits [L-1:0] of a low word: all ones, zero or anything.
fn low_bits(rng: &mut ChaCha8Rng, s: Shape) -> u64 {
    match rng.gen_range(0..4) {
        0 => s.lo_mask(),
        1 => 0,
        _ => rng.gen::<u64>() & s.lo_mask(),
    }
}

/// A 32-bit register value, biased to all ones in either half.
fn any_word(rng: &mut ChaCha8Rng) -> u64 {
    match rng.gen_range(0..4) {
        0 => 0xFFFF_FFFF,
        1 => 0xFFFF,
        2 => 0xFFFF_0000,
        _ => rng.gen::<u32>() as u64,
    }
}

/// The part of a read stage 1 selects: a counter's (or SVR's) high word, its low word (bits
/// [31:L] in `word`, bits [L-1:0] in the groups), or another register.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    High,
    Low,
    Other,
}

/// One cycle's inputs within the contract: `lo1`/`clo1` true of `word`/`ctr` wherever they act;
/// at most one of `add`/`addm` and of `cadd`/`caddm`; a +1 at bit 0 only on a high word (below
/// 2^(W-32)), at bit L only on a word with bits [L-1:0] zero; `misc` only without any of
/// `add`, `addm`, `sl` (and then `word` or `misc` is 0: one-hot selects); the groups at most L
/// bits, in the addressed group (all four now and then, the block must OR them); `sl` only on an
/// SVR's word. `keep` only with `done` (a permitted read), but the parts are random either way.
fn random_inputs(rng: &mut ChaCha8Rng, s: Shape) -> Inputs {
    let part = match rng.gen_range(0..8) {
        0..=2 if s.bits > 32 => Part::High,
        0..=4 => Part::Low,
        _ => Part::Other,
    };
    let done = rng.gen_ratio(7, 8);
    let mut i = Inputs {
        done,
        keep: done && rng.gen_ratio(15, 16),
        ..Default::default()
    };
    match part {
        Part::High => {
            i.word = high_word(rng, s);
            i.add = rng.gen_ratio(3, 4);
            i.ctr = high_word(rng, s);
            i.cadd = rng.gen_ratio(3, 4);
        }
        Part::Low => {
            i.word = mid_word(rng, s);
            i.addm = rng.gen_ratio(3, 4);
            i.ctr = mid_word(rng, s);
            i.caddm = rng.gen_ratio(3, 4);
        }
        Part::Other => match rng.gen_range(0..3) {
            0 => i.misc = any_word(rng),
            _ => i.word = any_word(rng),
        },
    }
    i.sl = part != Part::Other && rng.gen_ratio(1, 3);
    if i.sl || i.add || i.addm {
        i.misc = 0;
    }
    // Stage 1 drives `lo1` for a high word only (0 for any other read).
    i.lo1 = i.word & 0xFFFF == 0xFFFF && (i.add || rng.gen_ratio(1, 2));
    i.clo1 = i.ctr & 0xFFFF == 0xFFFF;
    if part == Part::Low || rng.gen_ratio(1, 8) {
        if rng.gen_ratio(7, 8) {
            let g = rng.gen_range(0..READ_GROUPS);
            i.lo_c[g] = low_bits(rng, s);
            i.lo_s[g] = low_bits(rng, s);
        } else {
            for g in 0..READ_GROUPS {
                i.lo_c[g] = low_bits(rng, s);
                i.lo_s[g] = low_bits(rng, s);
            }
        }
        i.usec = part == Part::Low && !i.sl && rng.gen_ratio(1, 2);
    }
    i
}

/// How many performed reads (`done` and `keep`) reached each corner: a half carry (bits [15:0]
/// all ones) into bit 16 of a high word (not the wrap: W > 48 only), the wrap at `hi_max`, the wrap of bits [31:L] (of the word; of the
/// counter, `c*`), reads of the counter through an SVR (`sl`), of a counter's low word (`usec`),
/// and the reads `done` or `keep` zeroed (a part nonzero).
#[derive(Debug, Default)]
struct Coverage {
    half: u32,
    chalf: u32,
    hi_wrap: u32,
    chi_wrap: u32,
    mid_wrap: u32,
    cmid_wrap: u32,
    sl: u32,
    usec: u32,
    zeroed: u32,
}

impl Coverage {
    fn count(&mut self, s: Shape, i: &Inputs) {
        if !(i.done && i.keep) {
            let parts = i.word | i.misc | i.ctr | or_groups(&i.lo_c) | or_groups(&i.lo_s);
            self.zeroed += (parts != 0) as u32;
            return;
        }
        let mid = |v: u64| v >> s.lo == s.mid_max();
        if i.sl {
            self.sl += 1;
            self.chalf += (i.cadd && i.clo1 && i.ctr != s.hi_max()) as u32;
            self.chi_wrap += (i.cadd && i.ctr == s.hi_max()) as u32;
            self.cmid_wrap += (i.caddm && mid(i.ctr)) as u32;
        } else {
            self.half += (i.add && i.lo1 && i.word != s.hi_max()) as u32;
            self.hi_wrap += (i.add && i.word == s.hi_max()) as u32;
            self.mid_wrap += (i.addm && mid(i.word)) as u32;
            self.usec += (i.usec && or_groups(&i.lo_c) != 0) as u32;
        }
    }

    /// Every corner the shape has was reached.
    fn check(&self, s: Shape) -> Result<(), String> {
        let mut want = vec![
            ("mid_wrap", self.mid_wrap),
            ("cmid_wrap", self.cmid_wrap),
            ("sl", self.sl),
            ("usec", self.usec),
            ("zeroed", self.zeroed),
        ];
        if s.bits > 32 {
            want.extend([("hi_wrap", self.hi_wrap), ("chi_wrap", self.chi_wrap)]);
        }
        if s.bits > 48 {
            want.extend([("half", self.half), ("chalf", self.chalf)]);
        }
        match want.iter().find(|(_, n)| *n == 0) {
            Some((name, _)) => Err(format!("no `{name}` case: {self:?}")),
            None => Ok(()),
        }
    }
}

/// A disagreement: backend, cycle, which sample, the inputs of the cycle before, got, want.
#[derive(Debug)]
struct Mismatch {
    backend: &'static str,
    t: u32,
    /// After the edge that registered `inputs`, or in the next cycle's low phase, with the next
    /// inputs applied.
    next_phase: bool,
    inputs: Inputs,
    got: u64,
    want: u64,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: rd_data {:#x}, want {:#x}, {} the edge of cycle {} whose inputs were {:x?}",
            self.backend,
            self.got,
            self.want,
            if self.next_phase {
                "with the next inputs applied after"
            } else {
                "after"
            },
            self.t,
            self.inputs,
        )
    }
}

/// Runs `cycles` random cycles on `duts`; the corners reached, or the first mismatch.
fn run(
    s: Shape,
    duts: &mut [Box<dyn ReadDut>],
    seed: u64,
    cycles: u32,
) -> Result<Coverage, Box<Mismatch>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = Coverage::default();
    let mut last: Option<(Inputs, u64)> = None;
    for t in 0..cycles {
        let i = random_inputs(&mut rng, s);
        seen.count(s, &i);
        let want = reference(s, &i);
        for dut in duts.iter_mut() {
            let (before, after) = dut.edge(&i);
            if let Some((prev, prev_want)) = last {
                if before != prev_want {
                    return Err(Box::new(Mismatch {
                        backend: dut.name(),
                        t: t - 1,
                        next_phase: true,
                        inputs: prev,
                        got: before,
                        want: prev_want,
                    }));
                }
            }
            if after != want {
                return Err(Box::new(Mismatch {
                    backend: dut.name(),
                    t,
                    next_phase: false,
                    inputs: i,
                    got: after,
                    want,
                }));
            }
        }
        last = Some((i, want));
    }
    Ok(seen)
}

const SHAPES: [Shape; 4] = [
    Shape { bits: 64, lo: 13 },
    Shape { bits: 32, lo: 8 },
    Shape { bits: 48, lo: 10 },
    Shape { bits: 40, lo: 12 },
];

const CYCLES: u32 = 4_000;

/// The reference itself, on hand-computed values (so that it does not agree with the block by
/// sharing a mistake).
#[test]
fn the_reference_adds_as_the_contract_says() {
    let (w64, w48, w32) = (SHAPES[0], SHAPES[2], SHAPES[1]);
    let read = Inputs {
        keep: true,
        done: true,
        ..Default::default()
    };
    // (A fn, not a closure: rustc 1.95 ICEs on a closure's `..read` of this struct.)
    fn high(word: u64) -> Inputs {
        Inputs {
            keep: true,
            done: true,
            word,
            add: true,
            lo1: word & 0xFFFF == 0xFFFF,
            ..Default::default()
        }
    }
    assert_eq!(reference(w64, &high(0x1234_FFFF)), 0x1235_0000);
    assert_eq!(reference(w64, &high(0xFFFF_FFFF)), 0);
    assert_eq!(reference(w64, &high(0x7)), 0x8);
    assert_eq!(reference(w48, &high(0xFFFF)), 0);
    assert_eq!(reference(w48, &high(0xFFFE)), 0xFFFF);
    let low = Inputs {
        word: 0xFFFF_FF00,
        addm: true,
        lo_s: [0, 0x5A, 0, 0],
        lo_c: [0, 0x0F, 0, 0],
        ..read
    };
    assert_eq!(reference(w32, &low), 0x5A);
    assert_eq!(reference(w32, &Inputs { usec: true, ..low }), 0x5F);
    assert_eq!(
        reference(
            w32,
            &Inputs {
                word: 0x1234_5600,
                ..low
            }
        ),
        0x1234_575A
    );
    // An SVR read that sees the counter: the counter's word and low bits, no shadow's.
    let sl = Inputs {
        sl: true,
        ctr: 0xFFFF,
        clo1: true,
        cadd: true,
        ..low
    };
    assert_eq!(reference(w64, &sl), 0x1_000F);
    assert_eq!(reference(w48, &sl), 0x0F);
    let sl_low = Inputs {
        ctr: 0x0001_E000,
        cadd: false,
        caddm: true,
        ..sl
    };
    assert_eq!(reference(w64, &sl_low), 0x0002_000F);
    assert_eq!(reference(w64, &Inputs { keep: false, ..sl }), 0);
    assert_eq!(reference(w64, &Inputs { done: false, ..sl }), 0);
    assert_eq!(reference(w64, &Inputs { misc: 0x80, ..read }), 0x80);
}

#[test]
fn random_reads_add_as_the_plain_rust_adder_says() {
    let seed = common::base_seed() ^ 0x4ead;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    for (k, s) in SHAPES.iter().enumerate() {
        let seen = run(*s, &mut duts(*s, None), seed + k as u64, CYCLES)
            .unwrap_or_else(|e| panic!("{s:?}, seed {}: {e}", seed + k as u64));
        println!("{s:?}: {CYCLES} cycles, {seen:?}");
        seen.check(*s).unwrap_or_else(|e| panic!("{s:?}: {e}"));
    }
}

/// The validator: a read path whose high-word +1 loses the carry out of bit 15 fails, on a
/// high word's read with bits [15:0] all ones.
#[test]
fn a_lost_half_carry_is_caught_on_every_backend() {
    let seed = common::base_seed() ^ 0x1ac7;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    let s = SHAPES[0];
    for dut in duts(s, Some(ReadFault::LostHalfCarry)) {
        let who = dut.name();
        let e = run(s, &mut [dut], seed, CYCLES)
            .err()
            .unwrap_or_else(|| panic!("{who}: the lost half carry went unnoticed"));
        eprintln!("caught ({s:?}): {e}");
        let i = e.inputs;
        assert!(
            i.keep && i.done && i.add && i.lo1 && !i.sl && !e.next_phase,
            "not a half carry: {e}"
        );
        assert_eq!(e.got, e.want.wrapping_sub(0x1_0000) & 0xFFFF_FFFF, "{e}");
    }
}

#[test]
fn the_read_path_synthesizes_with_no_latch() {
    if !common::have_tool("yosys") {
        return;
    }
    let work = std::env::temp_dir().join(format!("pmcg-rpath-yosys-{}", std::process::id()));
    pmcg_synth::read_path::synthesize_read_path(&work).unwrap();
    let log = std::fs::read_to_string(work.join("yosys.log")).unwrap();
    assert!(!log.contains("Latch inferred"), "a latch in the read path");
    let stat = std::fs::read_to_string(work.join("stat.txt")).unwrap();
    assert!(stat.contains("SB_DFF"), "no flip-flop in:\n{stat}");
    let _ = std::fs::remove_dir_all(&work);
}
