//! Block-level tests of the low words (`pmcg_hdl::low_words::LowWords`: bits [L-1:0] of every
//! counter and SVR shadow, SMMUv3 10.2.1, 10.5.2.1, 10.5.2.3; docs/behaviour.md "Counting" and
//! "Capture"): per counter, the L-bit add of its match count, the carry out to the bank's row 0
//! (`mcarry`) and row 1 (`carry`), the exact overflow (`ovf`, a paired write's rebase overriding
//! it), the write merge, the shadows' load at `svr_load`, a reset, and the read mux's low words
//! ORed per group of 16 (`gc`, `gs`). Seeded random stimulus biased to wraps (writes near all
//! ones), on the native block and on its emitted Verilog under Verilator, against a plain-Rust
//! model written from the contract (u64 adds and masks), every output every cycle.
//!
//! ```text
//!   seed ──► rst, count[n], wr_*, m_at_max, at_max, ──► dyn LowDut: native | verilator ──► mcarry,
//!            pair_sel, pend, ones/wrap, svr_load,   └─► LowModel (plain Rust, the contract)  carry,
//!            csel, ssel                                   compared every cycle             ovf, gc, gs
//!   LowModel, per counter n (L = lo_bits, lo = c_lo[n], s = s_lo[n]):
//!     sum = lo + count[n]; mcarry = sum >> L; raw = mcarry & m_at_max; carry = raw & wide
//!     ovf = rst ? 0 : pair_sel ? (pend ? raw & ones1 | wrap1 : raw & ones0 | wrap0)
//!                              : raw & (!wide | at_max)
//!     lo' = rst ? lo_reset : wr_sel ? sum mod 2^L & !wr_bmask | wr_bits : sum mod 2^L
//!     s'  = rst ? 0 : svr_load ? lo : s
//!     gc[g] = OR of lo over n / 16 = g with csel[n]; gs[g] likewise with ssel[n] and s
//! ```
//! The planted faults (`LowWordsFault`) must fail the same runs on every backend, and the model
//! itself is checked on hand-worked values and, broken on purpose, must fail against the block.
//! `PMCG_LOW_WORDS_CYCLES` sets the cycles per run (default 20,000), `PMCG_SEED` the base seed
//! (printed); `PMCG_BACKENDS` / `PMCG_REQUIRE_TOOLS=1` as in tests/common (Verilator and Yosys).

mod common;

use pmcg_hdl::hi_bank::low_word_bits;
use pmcg_hdl::low_words::{LowWords, LowWordsFault, LOW_READ_GROUPS};
use pmcg_sim::verilator::VerilatedModel;
use pmcg_synth::low_words::{low_words_verilog, LOW_WORDS_TOP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

const GROUPS: usize = LOW_READ_GROUPS;

/// A block's parameters: `counters` low words of `lo_bits` bits, 64-bit counters if `wide`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    counters: usize,
    lo_bits: u32,
    wide: bool,
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let w = if self.wide { "wide" } else { "narrow" };
        write!(f, "{}x{} {w}", self.counters, self.lo_bits)
    }
}

impl Shape {
    const fn new(counters: usize, lo_bits: u32, wide: bool) -> Self {
        Shape {
            counters,
            lo_bits,
            wide,
        }
    }

    /// Bits [L-1:0].
    fn mask(self) -> u64 {
        (1u64 << self.lo_bits) - 1
    }

    /// The counters' bits of a 64-bit input or output.
    fn used(self) -> u64 {
        u64::MAX >> (64 - self.counters)
    }

    /// The counters' reset values: random below 2^L, fixed per shape (so that each Verilator
    /// model is built once, whatever the run's seed), with counter 0 all ones (it wraps at the
    /// first counting edge after a reset) and counter 1 zero.
    fn lo_reset(self) -> Vec<u64> {
        let salt = (self.counters as u64) << 8 | (self.lo_bits as u64) << 1 | self.wide as u64;
        let mut rng = ChaCha8Rng::seed_from_u64(0x10_3030 ^ salt);
        (0..self.counters)
            .map(|n| match n {
                0 => self.mask(),
                1 => 0,
                _ => rng.gen::<u64>() & self.mask(),
            })
            .collect()
    }
}

/// The inputs of one cycle (sampled at the edge that ends it; `mcarry`, `carry`, `ovf`, `gc`,
/// `gs` are combinational of them and of the registers).
#[derive(Clone, Debug, Default)]
struct Inputs {
    rst: bool,
    count: Vec<u8>,
    wr_sel: u64,
    wr_bmask: u64,
    wr_bits: u64,
    m_at_max: u64,
    at_max: u64,
    pair_sel: u64,
    pend: u64,
    ones0: bool,
    wrap0: bool,
    ones1: bool,
    wrap1: bool,
    svr_load: bool,
    csel: u64,
    ssel: u64,
}

/// The outputs of one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Outputs {
    mcarry: u64,
    carry: u64,
    ovf: u64,
    gc: [u64; GROUPS],
    gs: [u64; GROUPS],
}

impl Outputs {
    /// The names of the outputs that differ from `want`'s.
    fn differ(&self, want: &Outputs) -> Vec<String> {
        let mut v: Vec<String> = [
            ("mcarry", self.mcarry != want.mcarry),
            ("carry", self.carry != want.carry),
            ("ovf", self.ovf != want.ovf),
        ]
        .iter()
        .filter(|(_, d)| *d)
        .map(|(n, _)| n.to_string())
        .collect();
        for g in 0..GROUPS {
            if self.gc[g] != want.gc[g] {
                v.push(format!("gc[{g}]"));
            }
        }
        for g in 0..GROUPS {
            if self.gs[g] != want.gs[g] {
                v.push(format!("gs[{g}]"));
            }
        }
        v
    }
}

/// A mistake planted in the model (its own validator: the block must disagree with it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ModelFault {
    /// The carry out of bit 31 (and so the overflow) not gated by `m_at_max`.
    CarryUngated,
    /// A shadow loads the counter's value after the edge, not its q.
    ShadowLoadsNext,
    /// A paired write's rebase takes the `ones0`/`wrap0` pair whatever `pend`.
    PairIgnoresPend,
}

/// The contract (module docs), in plain u64 arithmetic.
struct LowModel {
    shape: Shape,
    lo_reset: Vec<u64>,
    /// Counter n's bits [L-1:0] and its shadow's.
    lo: Vec<u64>,
    s: Vec<u64>,
    fault: Option<ModelFault>,
}

impl LowModel {
    /// Every register 0 (the block before its first edge).
    fn new(shape: Shape, fault: Option<ModelFault>) -> Self {
        LowModel {
            shape,
            lo_reset: shape.lo_reset(),
            lo: vec![0; shape.counters],
            s: vec![0; shape.counters],
            fault,
        }
    }

    fn bit(word: u64, n: usize) -> bool {
        word >> n & 1 != 0
    }

    /// Counter n's sum at this edge (at most 2^L - 1 + 15).
    fn sum(&self, i: &Inputs, n: usize) -> u64 {
        self.lo[n] + i.count[n] as u64
    }

    fn outputs(&self, i: &Inputs) -> Outputs {
        let (l, wide) = (self.shape.lo_bits, self.shape.wide);
        let mut o = Outputs::default();
        for n in 0..self.shape.counters {
            let mcarry = self.sum(i, n) >> l != 0;
            let gate = Self::bit(i.m_at_max, n) || self.fault == Some(ModelFault::CarryUngated);
            let raw = mcarry && gate;
            let ovf = if i.rst {
                false
            } else if Self::bit(i.pair_sel, n) {
                if Self::bit(i.pend, n) && self.fault != Some(ModelFault::PairIgnoresPend) {
                    (raw && i.ones1) || i.wrap1
                } else {
                    (raw && i.ones0) || i.wrap0
                }
            } else {
                raw && (!wide || Self::bit(i.at_max, n))
            };
            o.mcarry |= (mcarry as u64) << n;
            o.carry |= ((raw && wide) as u64) << n;
            o.ovf |= (ovf as u64) << n;
            if Self::bit(i.csel, n) {
                o.gc[n / 16] |= self.lo[n];
            }
            if Self::bit(i.ssel, n) {
                o.gs[n / 16] |= self.s[n];
            }
        }
        o
    }

    fn edge(&mut self, i: &Inputs) {
        let mask = self.shape.mask();
        for n in 0..self.shape.counters {
            let q = self.lo[n];
            let mut next = self.sum(i, n) & mask;
            if Self::bit(i.wr_sel, n) {
                next = (next & !i.wr_bmask) | i.wr_bits;
            }
            self.lo[n] = if i.rst { self.lo_reset[n] } else { next };
            let load = if self.fault == Some(ModelFault::ShadowLoadsNext) {
                self.lo[n]
            } else {
                q
            };
            self.s[n] = if i.rst {
                0
            } else if i.svr_load {
                load
            } else {
                self.s[n]
            };
        }
    }
}

trait LowDut {
    fn name(&self) -> &'static str;
    /// This cycle's inputs in the low phase (outputs read), then the rising edge.
    fn cycle(&mut self, i: &Inputs) -> Outputs;
}

struct NativeLow(LowWords);

impl LowDut for NativeLow {
    fn name(&self) -> &'static str {
        "native"
    }

    fn cycle(&mut self, i: &Inputs) -> Outputs {
        let u = &mut self.0;
        u.clock.next = Clock { clk: false };
        u.rst.next = i.rst;
        for (s, &c) in u.count.iter_mut().zip(&i.count) {
            s.next = (c as u64).into();
        }
        u.wr_sel.next = i.wr_sel.into();
        u.wr_bmask.next = i.wr_bmask.into();
        u.wr_bits.next = i.wr_bits.into();
        u.m_at_max.next = i.m_at_max.into();
        u.at_max.next = i.at_max.into();
        u.pair_sel.next = i.pair_sel.into();
        u.pend.next = i.pend.into();
        u.ones0.next = i.ones0;
        u.wrap0.next = i.wrap0;
        u.ones1.next = i.ones1;
        u.wrap1.next = i.wrap1;
        u.svr_load.next = i.svr_load;
        u.csel.next = i.csel.into();
        u.ssel.next = i.ssel.into();
        common::settle_block(u, "the low words", 20);
        let out = Outputs {
            mcarry: u.mcarry.val().to_u64(),
            carry: u.carry.val().to_u64(),
            ovf: u.ovf.val().to_u64(),
            gc: std::array::from_fn(|g| u.gc[g].val().to_u64()),
            gs: std::array::from_fn(|g| u.gs[g].val().to_u64()),
        };
        u.clock.next = Clock { clk: true };
        common::settle_block(u, "the low words", 20);
        out
    }
}

/// The Verilog ports but the addends, in the order of [`VerilatorLow::p`].
const PORTS: [&str; 27] = [
    "clock", "rst", "wr_sel", "wr_bmask", "wr_bits", "m_at_max", "at_max", "pair_sel", "pend",
    "ones0", "wrap0", "ones1", "wrap1", "svr_load", "csel", "ssel", "mcarry", "carry", "ovf",
    "gc$0", "gc$1", "gc$2", "gc$3", "gs$0", "gs$1", "gs$2", "gs$3",
];

struct VerilatorLow {
    m: VerilatedModel,
    /// [`PORTS`]
    p: [usize; 27],
    /// `count$n`
    count: Vec<usize>,
}

impl LowDut for VerilatorLow {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn cycle(&mut self, i: &Inputs) -> Outputs {
        let [clock, rst, wr_sel, wr_bmask, wr_bits, m_at_max, at_max, pair_sel, pend, ones0, wrap0, ones1, wrap1, svr_load, csel, ssel, mcarry, carry, ovf, groups @ ..] =
            self.p;
        let m = &mut self.m;
        m.set(clock, 0);
        for (p, v) in [
            (rst, i.rst as u64),
            (wr_sel, i.wr_sel),
            (wr_bmask, i.wr_bmask),
            (wr_bits, i.wr_bits),
            (m_at_max, i.m_at_max),
            (at_max, i.at_max),
            (pair_sel, i.pair_sel),
            (pend, i.pend),
            (ones0, i.ones0 as u64),
            (wrap0, i.wrap0 as u64),
            (ones1, i.ones1 as u64),
            (wrap1, i.wrap1 as u64),
            (svr_load, i.svr_load as u64),
            (csel, i.csel),
            (ssel, i.ssel),
        ] {
            m.set(p, v);
        }
        for (&p, &c) in self.count.iter().zip(&i.count) {
            m.set(p, c as u64);
        }
        m.eval();
        let out = Outputs {
            mcarry: m.get(mcarry),
            carry: m.get(carry),
            ovf: m.get(ovf),
            gc: std::array::from_fn(|g| m.get(groups[g])),
            gs: std::array::from_fn(|g| m.get(groups[GROUPS + g])),
        };
        m.set(clock, 1);
        m.eval();
        out
    }
}

fn duts(shape: Shape, fault: Option<LowWordsFault>) -> Vec<Box<dyn LowDut>> {
    let reset = shape.lo_reset();
    let mut v: Vec<Box<dyn LowDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            let mut u = LowWords::new(&reset, shape.lo_bits, shape.wide, fault);
            u.connect_all();
            v.push(Box::new(NativeLow(u)));
        } else {
            let text =
                low_words_verilog(&reset, shape.lo_bits, shape.wide, fault, LOW_WORDS_TOP).unwrap();
            let (m, p) = common::block_model(&text, LOW_WORDS_TOP, "the low words", PORTS);
            let count = (0..shape.counters)
                .map(|n| {
                    m.port(&format!("count${n}"))
                        .unwrap_or_else(|| panic!("the low words have no port `count${n}`"))
                })
                .collect();
            v.push(Box::new(VerilatorLow { m, p, count }));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no backend");
    v
}

fn cycles() -> u32 {
    std::env::var("PMCG_LOW_WORDS_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

/// Bits above the counters, now and then (the block must ignore them).
fn junk(rng: &mut ChaCha8Rng, s: Shape) -> u64 {
    if rng.gen_ratio(1, 8) {
        rng.gen::<u64>() & !s.used()
    } else {
        0
    }
}

/// One counter's bit, or none.
fn one_hot_or_zero(rng: &mut ChaCha8Rng, s: Shape) -> u64 {
    match rng.gen_range(0..8) {
        0 => 0,
        // Any of the 64 bits (above the counters: no element selected).
        1 => 1 << rng.gen_range(0..64),
        _ => 1 << rng.gen_range(0..s.counters),
    }
}

/// One cycle's random inputs, biased so that low words wrap often: writes set them near all ones
/// (the written bytes of a byte mask within L bits), counts are 0-8 (the design's) and now and
/// then up to 15; resets, shadow loads, paired writes with every (pend, ones, wrap), one-hot
/// reads, random `m_at_max` / `at_max` (mostly ones).
fn random_inputs(rng: &mut ChaCha8Rng, s: Shape, t: u32) -> Inputs {
    let mask = s.mask();
    let idle = rng.gen_ratio(1, 10);
    let count = (0..s.counters)
        .map(|_| match rng.gen_range(0..20) {
            _ if idle => 0,
            0..=4 => 0,
            5..=18 => rng.gen_range(1..=8),
            _ => rng.gen_range(9..=15),
        })
        .collect();
    let wr_sel = match rng.gen_range(0..12) {
        0..=3 => 1 << rng.gen_range(0..s.counters),
        4 => rng.gen::<u64>() & rng.gen::<u64>() & s.used(),
        5 if rng.gen_ratio(1, 4) => s.used(),
        _ => 0,
    } | junk(rng, s);
    // The bytes written: the low byte, the next (bits [L-1:8]), both, or neither.
    let bytes = rng.gen_range(0..8);
    let wr_bmask = match bytes {
        0 => 0,
        1 | 2 => 0xFF,
        3 | 4 => 0xFF00,
        _ => 0xFFFF,
    } & mask;
    let wr_bits = match rng.gen_range(0..8) {
        0..=3 => (mask - rng.gen_range(0..16)) & wr_bmask,
        4 => mask & wr_bmask,
        5 | 6 => rng.gen::<u64>() & wr_bmask,
        // Bits outside the written bytes: the register file never drives them (its write data
        // is masked by the strobes), but the contract's merge ORs them in all the same.
        _ => rng.gen::<u64>() & mask,
    };
    let mostly_ones = |rng: &mut ChaCha8Rng| match rng.gen_range(0..8) {
        0..=2 => u64::MAX,
        3 => 0,
        4 => rng.gen(),
        _ => rng.gen::<u64>() | rng.gen::<u64>(),
    };
    let m_at_max = mostly_ones(rng);
    let at_max = mostly_ones(rng);
    let pair_sel = match rng.gen_range(0..6) {
        0 => 1 << rng.gen_range(0..s.counters),
        1 => rng.gen::<u64>() & s.used(),
        _ => 0,
    } | junk(rng, s);
    Inputs {
        rst: t == 0 || rng.gen_ratio(1, 400),
        count,
        wr_sel,
        wr_bmask,
        wr_bits,
        m_at_max,
        at_max,
        pair_sel,
        pend: rng.gen(),
        ones0: rng.gen(),
        wrap0: rng.gen(),
        ones1: rng.gen(),
        wrap1: rng.gen(),
        svr_load: rng.gen_ratio(1, 8),
        csel: one_hot_or_zero(rng, s),
        ssel: one_hot_or_zero(rng, s),
    }
}

/// What a run reached (of the model's outputs and inputs).
#[derive(Debug, Default)]
struct Reached {
    /// Per counter: wraps (`mcarry`), overflows (`ovf`, a pair's override aside).
    wraps: Vec<u32>,
    ovfs: Vec<u32>,
    /// Carries into row 1 (`carry`), wraps gated off by `m_at_max`.
    carries: u32,
    gated: u32,
    /// Paired writes' overrides without and with a pending carry, those whose `ovf` is 1, and
    /// those whose `ovf` differs from the counter's own overflow.
    pairs: [u32; 2],
    pair_ovfs: u32,
    pair_differs: u32,
    /// Writes to a counter, and those at a wrap; wraps at a reset edge.
    writes: u32,
    written_wraps: u32,
    reset_wraps: u32,
    /// Shadow loads (edges with `svr_load`, not a reset), and those that changed a shadow.
    loads: u32,
    loads_changed: u32,
    /// Per group: reads of a nonzero counter low word, of a nonzero shadow.
    gc_reads: [u32; GROUPS],
    gs_reads: [u32; GROUPS],
    resets: u32,
}

impl Reached {
    fn new(s: Shape) -> Self {
        Reached {
            wraps: vec![0; s.counters],
            ovfs: vec![0; s.counters],
            ..Default::default()
        }
    }

    fn count(&mut self, s: Shape, m: &LowModel, i: &Inputs, o: &Outputs) {
        let bit = LowModel::bit;
        self.resets += i.rst as u32;
        for n in 0..s.counters {
            let wrap = bit(o.mcarry, n);
            self.wraps[n] += wrap as u32;
            self.gated += (wrap && !bit(i.m_at_max, n)) as u32;
            self.carries += bit(o.carry, n) as u32;
            self.reset_wraps += (wrap && i.rst) as u32;
            if i.rst {
                continue;
            }
            if bit(i.wr_sel, n) {
                self.writes += 1;
                self.written_wraps += wrap as u32;
            }
            if bit(i.pair_sel, n) {
                self.pairs[bit(i.pend, n) as usize] += 1;
                self.pair_ovfs += bit(o.ovf, n) as u32;
                let own = wrap && bit(i.m_at_max, n) && (!s.wide || bit(i.at_max, n));
                self.pair_differs += (own != bit(o.ovf, n)) as u32;
            } else {
                self.ovfs[n] += bit(o.ovf, n) as u32;
            }
            if i.svr_load {
                self.loads_changed += (m.s[n] != m.lo[n]) as u32;
            }
        }
        self.loads += (i.svr_load && !i.rst) as u32;
        for g in 0..GROUPS {
            self.gc_reads[g] += (o.gc[g] != 0) as u32;
            self.gs_reads[g] += (o.gs[g] != 0) as u32;
        }
    }

    /// Every case the shape has was reached.
    fn check(&self, s: Shape) -> Result<(), String> {
        let groups = s.counters.div_ceil(16);
        let mut want = vec![
            ("gated wraps", self.gated),
            ("pair overrides without a pending carry", self.pairs[0]),
            ("pair overrides with a pending carry", self.pairs[1]),
            ("pair overflows", self.pair_ovfs),
            ("pair overrides unlike the own overflow", self.pair_differs),
            ("writes", self.writes),
            ("wraps at a write", self.written_wraps),
            ("wraps at a reset edge", self.reset_wraps),
            ("shadow loads", self.loads),
            ("shadow loads that changed a shadow", self.loads_changed),
            ("resets after the first", self.resets - 1),
        ];
        if s.wide {
            want.push(("carries into row 1", self.carries));
        }
        for g in 0..groups {
            want.push(("nonzero counter reads in a group", self.gc_reads[g]));
            want.push(("nonzero shadow reads in a group", self.gs_reads[g]));
        }
        if let Some((what, _)) = want.iter().find(|(_, k)| *k == 0) {
            return Err(format!("{s}: no {what}: {self:?}"));
        }
        if let Some(n) = (0..s.counters).find(|&n| self.wraps[n] == 0 || self.ovfs[n] == 0) {
            return Err(format!(
                "{s}: counter {n} never wrapped or overflowed: {self:?}"
            ));
        }
        Ok(())
    }
}

/// `cycles` seeded cycles on `dut` against the model (broken by `model_fault` for its own
/// validator); what the run reached, or the first mismatch.
fn run(
    dut: &mut dyn LowDut,
    s: Shape,
    seed: u64,
    cycles: u32,
    model_fault: Option<ModelFault>,
) -> Result<Reached, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut model = LowModel::new(s, model_fault);
    let mut seen = Reached::new(s);
    for t in 0..cycles {
        let i = random_inputs(&mut rng, s, t);
        let want = model.outputs(&i);
        let got = dut.cycle(&i);
        if got != want {
            return Err(format!(
                "{}: {s}, seed {seed}, cycle {t}: outputs {:?} differ: got {got:x?}, want \
                 {want:x?}; counters {:x?}, shadows {:x?} (the model's); inputs {i:x?}",
                dut.name(),
                got.differ(&want),
                model.lo,
                model.s,
            ));
        }
        seen.count(s, &model, &i, &want);
        model.edge(&i);
    }
    Ok(seen)
}

/// Every backend runs the shape's seeded stimulus (and reports) before the test fails.
fn agrees_with_the_model(s: Shape, salt: u64) {
    let seed = common::base_seed() ^ salt;
    println!("{s}: seed {seed} (PMCG_SEED {})", common::base_seed());
    let cycles = cycles();
    let mut errors = Vec::new();
    for mut dut in duts(s, None) {
        let t0 = std::time::Instant::now();
        match run(dut.as_mut(), s, seed, cycles, None) {
            Ok(seen) => {
                println!(
                    "{s} on {}: {cycles} cycles in {:.2} s: {seen:?}",
                    dut.name(),
                    t0.elapsed().as_secs_f64()
                );
                if let Err(e) = seen.check(s) {
                    errors.push(format!("{}: {e}", dut.name()));
                }
            }
            Err(e) => errors.push(e),
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

const ONE_NARROW: Shape = Shape::new(1, 4, false);
const FIVE_WIDE: Shape = Shape::new(5, 8, true);
const SIXTEEN_NARROW: Shape = Shape::new(16, 9, false);
const SEVENTEEN_WIDE: Shape = Shape::new(17, 11, true);
const THIRTY_THREE_WIDE: Shape = Shape::new(33, 13, true);
const SIXTY_FOUR_WIDE: Shape = Shape::new(64, 16, true);
const SIXTY_FOUR_NARROW: Shape = Shape::new(64, 10, false);

#[test]
fn one_4_bit_low_word_of_a_32_bit_counter_agrees_with_the_model() {
    agrees_with_the_model(ONE_NARROW, 0x1041);
}

#[test]
fn five_8_bit_low_words_of_64_bit_counters_agree_with_the_model() {
    agrees_with_the_model(FIVE_WIDE, 0x1058);
}

#[test]
fn sixteen_9_bit_low_words_of_32_bit_counters_in_one_group_agree_with_the_model() {
    agrees_with_the_model(SIXTEEN_NARROW, 0x1169);
}

#[test]
fn seventeen_11_bit_low_words_of_64_bit_counters_in_two_groups_agree_with_the_model() {
    agrees_with_the_model(SEVENTEEN_WIDE, 0x117b);
}

#[test]
fn thirty_three_13_bit_low_words_of_64_bit_counters_in_three_groups_agree_with_the_model() {
    agrees_with_the_model(THIRTY_THREE_WIDE, 0x133d);
}

#[test]
fn sixty_four_16_bit_low_words_of_64_bit_counters_agree_with_the_model() {
    agrees_with_the_model(SIXTY_FOUR_WIDE, 0x1640);
}

#[test]
fn sixty_four_10_bit_low_words_of_32_bit_counters_agree_with_the_model() {
    agrees_with_the_model(SIXTY_FOUR_NARROW, 0x164a);
}

/// The outputs an error of [`run`] names as differing.
fn differing(err: &str) -> &str {
    let from = err.find("outputs [").expect("an error names its outputs") + 8;
    &err[from..from + err[from..].find(']').unwrap() + 1]
}

/// The cycle an error of [`run`] names.
fn failing_cycle(err: &str) -> u32 {
    let at = err.find(", cycle ").expect("an error names its cycle") + 8;
    err[at..].split(':').next().unwrap().parse().unwrap()
}

/// The planted fault makes the run fail on every backend, with `output` among the outputs that
/// differ, and the same run on the block without it agrees with the model up to that cycle (so
/// the fault is what was caught).
fn fault_is_caught(s: Shape, fault: LowWordsFault, output: &str, salt: u64) {
    let seed = common::base_seed() ^ salt;
    println!(
        "{s}, {fault:?}: seed {seed} (PMCG_SEED {})",
        common::base_seed()
    );
    let cycles = cycles();
    for (mut dut, mut good) in duts(s, Some(fault)).into_iter().zip(duts(s, None)) {
        let name = dut.name();
        let err = run(dut.as_mut(), s, seed, cycles, None)
            .err()
            .unwrap_or_else(|| panic!("{name}: {s}, seed {seed}: {fault:?} went unnoticed"));
        eprintln!("caught: {err}");
        assert!(err.starts_with(name), "{err}");
        assert!(
            differing(&err).contains(output),
            "{fault:?} caught, but not on `{output}`: {err}"
        );
        let at = failing_cycle(&err);
        if let Err(e) = run(good.as_mut(), s, seed, at + 1, None) {
            panic!("without {fault:?} the run fails as early: {e}");
        }
    }
}

/// A wrap's carry not reported to the bank (`mcarry` stays 0).
#[test]
fn a_lost_carry_is_caught_on_every_backend() {
    fault_is_caught(
        SEVENTEEN_WIDE,
        LowWordsFault::LostCarry,
        "\"mcarry\"",
        0x10c4,
    );
}

/// A capture's shadow load that keeps the shadow's own value: seen by a shadow read.
#[test]
fn a_stale_shadow_is_caught_on_every_backend() {
    fault_is_caught(FIVE_WIDE, LowWordsFault::StaleShadow, "gs[0]", 0x5a1e);
}

/// The model on hand-worked values (so that it does not agree with the block by sharing a
/// mistake): a 9-bit low word of a 64-bit counter, and of a 32-bit one.
#[test]
fn the_model_counts_as_the_contract_says() {
    let s = Shape::new(18, 9, true);
    let idle = Inputs {
        count: vec![0; 18],
        ..Default::default()
    };
    let mut m = LowModel::new(s, None);
    // Reset: every low word to its reset value (counter 0 all ones, 1 zero), shadows 0.
    m.edge(&Inputs {
        rst: true,
        svr_load: true,
        ..idle.clone()
    });
    assert_eq!((m.lo[0], m.lo[1], m.s[0]), (0x1FF, 0, 0));
    assert_eq!(m.lo[2..], s.lo_reset()[2..]);
    // Counter 0 + 1 wraps: a carry to row 0; to row 1 with bits [31:9] all ones; an overflow
    // with bits [63:32] all ones too.
    let mut i = idle.clone();
    i.count[0] = 1;
    assert_eq!(m.outputs(&i).mcarry, 1);
    assert_eq!((m.outputs(&i).carry, m.outputs(&i).ovf), (0, 0));
    i.m_at_max = 1;
    assert_eq!((m.outputs(&i).carry, m.outputs(&i).ovf), (1, 0));
    i.at_max = 1;
    assert_eq!((m.outputs(&i).carry, m.outputs(&i).ovf), (1, 1));
    // A 32-bit counter overflows out of bit 31 (at_max is row 1's, which it does not have).
    let mut narrow = LowModel::new(Shape::new(18, 9, false), None);
    narrow.lo[0] = 0x1FF;
    let j = Inputs {
        at_max: 0,
        ..i.clone()
    };
    assert_eq!(narrow.outputs(&j).carry, 0, "no row 1 in a 32-bit counter");
    assert_eq!(narrow.outputs(&j).ovf, 1);
    // At a reset edge a wrap still carries (to the bank, which resets too) but never overflows.
    let r = Inputs {
        rst: true,
        ..i.clone()
    };
    assert_eq!((m.outputs(&r).mcarry, m.outputs(&r).ovf), (1, 0));
    // A paired write's rebase: pend selects the (ones1, wrap1) pair, else (ones0, wrap0).
    let p = Inputs {
        pair_sel: 1,
        ones0: true,
        wrap1: true,
        at_max: 0,
        ..i.clone()
    };
    assert_eq!(m.outputs(&p).ovf, 1, "carry & ones0");
    assert_eq!(
        m.outputs(&Inputs {
            pend: 1,
            ..p.clone()
        })
        .ovf,
        1,
        "wrap1"
    );
    let p1 = Inputs {
        pend: 1,
        wrap1: false,
        ones1: true,
        m_at_max: 0,
        ..p.clone()
    };
    assert_eq!(m.outputs(&p1).ovf, 0, "ones1 but no carry out of bit 31");
    // Counter 16 (group 1) + 15 from 0x1F5: 0x204, a wrap to 0x004 (15 is a 4-bit count).
    m.lo[16] = 0x1F5;
    let mut k = idle.clone();
    k.count[16] = 15;
    k.csel = 1 << 16;
    k.ssel = 1 << 16 | 1;
    let o = m.outputs(&k);
    assert_eq!((o.mcarry, o.gc), (1 << 16, [0, 0x1F5, 0, 0]));
    assert_eq!(o.gs, [0, 0, 0, 0], "shadows still 0");
    k.svr_load = true;
    m.edge(&k);
    assert_eq!(
        (m.lo[16], m.s[16], m.s[0]),
        (0x004, 0x1F5, 0x1FF),
        "loads q"
    );
    // A write of the low byte to counter 16 with +3 counted: bits [8] from the sum, [7:0] the
    // data; counter 17 (not written) adds its 3.
    let mut w = idle.clone();
    w.count[16] = 3;
    w.count[17] = 3;
    w.wr_sel = 1 << 16;
    w.wr_bmask = 0xFF;
    w.wr_bits = 0xFE;
    m.lo[16] = 0x1FE;
    let before17 = m.lo[17];
    assert_eq!(
        m.outputs(&w).mcarry,
        1 << 16,
        "a written counter's add still carries"
    );
    m.edge(&w);
    assert_eq!(
        m.lo[16], 0x0FE,
        "(0x1FE + 3) mod 2^9 = 0x001, bits [7:0] replaced"
    );
    assert_eq!(m.lo[17], (before17 + 3) & 0x1FF);
    // Reads OR per group: counters 0 and 1 (group 0) and 17 (group 1).
    m.lo[0] = 0x101;
    m.lo[1] = 0x010;
    let rd = Inputs {
        csel: 0b11 | 1 << 17,
        ..idle.clone()
    };
    assert_eq!(m.outputs(&rd).gc, [0x111, m.lo[17], 0, 0]);
}

/// The model's own validator: broken on purpose, it disagrees with the block on every backend
/// (so the runs above compare what they claim to).
#[test]
fn a_broken_model_is_caught_on_every_backend() {
    let seed = common::base_seed() ^ 0xb40c;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    let s = SEVENTEEN_WIDE;
    for (fault, output) in [
        (ModelFault::CarryUngated, "\"carry\""),
        (ModelFault::ShadowLoadsNext, "gs["),
        (ModelFault::PairIgnoresPend, "\"ovf\""),
    ] {
        for mut dut in duts(s, None) {
            let name = dut.name();
            let err = run(dut.as_mut(), s, seed, cycles(), Some(fault))
                .err()
                .unwrap_or_else(|| panic!("{name}: the model's {fault:?} went unnoticed"));
            eprintln!("caught ({fault:?}): {err}");
            assert!(differing(&err).contains(output), "{fault:?}: {err}");
        }
    }
}

/// The flip-flops of a Yosys `stat` report: the `SB_DFF*` cells of its last section (the
/// design's total).
fn flip_flops(stat: &str) -> u64 {
    let last = stat.rsplit("=== ").next().unwrap_or(stat);
    last.lines()
        .filter(|l| l.trim().starts_with("SB_DFF"))
        .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .sum()
}

/// The default configuration's low words (64 counters of 64 bits, one lane) through Yosys: no
/// latch, and no flip-flop kept for a register's bits above L (the harness's own flip-flops
/// aside, the low words and shadows keep at most 2 x 64 x L, not 2 x 64 x 16).
#[test]
fn the_low_words_synthesize_with_no_latch_and_no_flip_flop_above_l() {
    if !common::have_tool("yosys") {
        return;
    }
    let s = Shape::new(64, low_word_bits(64, 1), true);
    let work = std::env::temp_dir().join(format!("pmcg-lowords-yosys-{}", std::process::id()));
    pmcg_synth::low_words::synthesize_low_words(&s.lo_reset(), s.lo_bits, s.wide, &work).unwrap();
    let log = std::fs::read_to_string(work.join("yosys.log")).unwrap();
    assert!(!log.contains("Latch inferred"), "a latch in the low words");
    let stat = std::fs::read_to_string(work.join("stat.txt")).unwrap();
    assert!(stat.contains("SB_DFF"), "no flip-flop in:\n{stat}");
    let (ffs, harness) = (
        flip_flops(&stat),
        pmcg_synth::low_words::harness_verilog(s.counters, s.lo_bits).1,
    );
    let block = 2 * s.counters as u64 * s.lo_bits as u64;
    eprintln!("{s}: {ffs} flip-flops, the harness's at most {harness}, 2 x n x L = {block}");
    assert!(
        (block..=harness + block).contains(&ffs),
        "{ffs} flip-flops for {block} low-word and shadow bits and a harness of {harness}:\n{stat}"
    );
    let _ = std::fs::remove_dir_all(&work);
}
