//! Block-level tests of the upper-word bank (`pmcg_hdl::hi_bank::HiBank`, one or two rows per
//! counter): seeded random runs on the native RustHDL block and on its emitted Verilog
//! (Verilator), each row checked cycle by cycle against its own
//! `pmcg_sim::hi_bank_sim::HiBankModel` (the bank's contract in plain Rust: every counter's
//! upper word and overflow prediction, the addressed counter's prefetch and shadow whenever
//! `ready`, `ready`'s bound, the pending carries); steady traffic to one counter (read or write
//! loops) with carries far apart; the two planted faults that the same runs must catch (in a
//! bank of two rows, in each row on its own); the bank through Yosys; and the harness itself (an
//! ideal bank passes every run and is exercised by it, a broken output of either row fails it).
//! One-row banks are the former single banks (counter_bits - 32 bits); two-row banks the
//! register file's merged bank (row 0: bits [31:L], row 1: bits [63:32]), each row driven with
//! its own carries and write values.
//! `PMCG_HI_BANK_CYCLES` sets the cycles per run (default 50,000); `PMCG_HI_BANK_SEED` one seed
//! (printed); `PMCG_BACKENDS` the backends and `PMCG_REQUIRE_TOOLS=1` a required Verilator and
//! Yosys (tests/common); `PMCG_HI_BANK_TRACE=N` ends an error with the last N cycles.

mod common;

use pmcg_hdl::hi_bank::{low_word_bits, HiBankFault};
use pmcg_sim::hi_bank_sim::{
    run_hi_bank, run_periodic, HiBankDut, HiInputs, HiOutputs, HiRunStats, HiShape, IdealHiBank,
    NativeHiBank, Periodic, VerilatorHiBank, HI_MAX_ROWS,
};

fn cycles() -> u64 {
    std::env::var("PMCG_HI_BANK_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50_000)
}

fn seed(default: u64) -> u64 {
    std::env::var("PMCG_HI_BANK_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One row of `counter_bits - 32` bits (the former single bank).
fn one_row(counters: usize, counter_bits: u32) -> HiShape {
    HiShape::one_row(counters, counter_bits)
}

/// The register file's merged bank of `counters` 64-bit counters with one lane: row 0 bits
/// [31:L], row 1 bits [63:32].
fn merged(counters: usize) -> HiShape {
    HiShape::new(counters, &[32 - low_word_bits(counters, 1), 32])
}

/// The two-row shapes of the random runs (and of the ideal bank's).
fn two_row_shapes() -> [(HiShape, u64); 4] {
    [
        (merged(32), 7),
        (merged(64), 8),
        (HiShape::new(5, &[24, 8]), 9),
        // 33-bit counters: a one-bit row 1.
        (HiShape::new(4, &[32 - low_word_bits(4, 1), 1]), 10),
    ]
}

/// The backends `PMCG_BACKENDS` selects (the model is the judge of both, not a backend here).
fn banks(shape: HiShape, fault: Option<HiBankFault>) -> Vec<Box<dyn HiBankDut>> {
    let mut v: Vec<Box<dyn HiBankDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            v.push(Box::new(NativeHiBank::new(shape, fault)));
        } else {
            let cache = pmcg_sim::vdut::cache_dir();
            v.push(Box::new(
                VerilatorHiBank::new(shape, fault, &cache).unwrap(),
            ));
        }
    }
    v
}

/// The run must have exercised what it checks, in every row (a run that exercises nothing
/// fails).
fn assert_exercised(stats: &HiRunStats, cycles: u64) {
    let k = cycles / 10_000;
    for (r, row) in stats.rows.iter().enumerate() {
        assert!(row.carries > 100 * k, "row {r}: too few carries: {stats:?}");
        assert!(
            row.services > 50 * k,
            "row {r}: too few services: {stats:?}"
        );
        assert!(
            row.wraps > k,
            "row {r}: too few wraps hi_max -> 0: {stats:?}"
        );
        assert!(
            row.write_carries > 0,
            "row {r}: no write with a carry: {stats:?}"
        );
        assert!(
            row.write_ones > k,
            "row {r}: too few writes of all ones: {stats:?}"
        );
        assert!(
            row.at_max_cycles > 100 * k,
            "row {r}: at_max too rarely set: {stats:?}"
        );
    }
    assert!(stats.writes > 100 * k, "too few writes: {stats:?}");
    assert!(stats.reads > 100 * k, "too few reads: {stats:?}");
    assert!(
        stats.write_captures > 0,
        "no write with a capture: {stats:?}"
    );
    assert!(stats.captures > 50 * k, "too few captures: {stats:?}");
    assert!(
        stats.prefetch_checks > 1000 * k,
        "too few prefetch checks: {stats:?}"
    );
    assert!(stats.resets > 1, "no reset after the first: {stats:?}");
    assert!(stats.max_prefetch >= 2, "no prefetch waited: {stats:?}");
}

/// Every backend runs (and reports) before the test fails.
fn agrees_with_the_model(shape: HiShape, default_seed: u64) {
    let seed = seed(default_seed);
    let cycles = cycles();
    let mut errors = Vec::new();
    for mut dut in banks(shape, None) {
        eprintln!(
            "HiBank {shape} on {}: seed {seed}, {cycles} cycles",
            dut.name()
        );
        let t0 = std::time::Instant::now();
        match run_hi_bank(dut.as_mut(), shape, seed, cycles) {
            Ok(stats) => {
                eprintln!("  {:.1} s: {stats:?}", t0.elapsed().as_secs_f64());
                assert_exercised(&stats, cycles);
            }
            Err(e) => {
                eprintln!("  {e}");
                errors.push(e);
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn a_1x64_bank_agrees_with_the_model() {
    agrees_with_the_model(one_row(1, 64), 1);
}

#[test]
fn a_4x33_bank_with_a_one_bit_upper_word_agrees_with_the_model() {
    agrees_with_the_model(one_row(4, 33), 2);
}

#[test]
fn a_16x64_bank_agrees_with_the_model() {
    agrees_with_the_model(one_row(16, 64), 3);
}

#[test]
fn a_64x64_bank_agrees_with_the_model() {
    agrees_with_the_model(one_row(64, 64), 4);
}

#[test]
fn a_13x48_bank_agrees_with_the_model() {
    agrees_with_the_model(one_row(13, 48), 5);
}

/// Rows of 23 bits: the register file's `mid` of 32 counters with one lane (bits [31:9]).
#[test]
fn a_32x55_bank_with_mid_s_rows_of_32_counters_agrees_with_the_model() {
    assert_eq!(32 - low_word_bits(32, 1), 55 - 32);
    agrees_with_the_model(one_row(32, 55), 6);
}

/// The register file's merged bank of 32 64-bit counters: rows of 23 bits (bits [31:9]) and 32
/// bits (bits [63:32]), each with its own carries and write values.
#[test]
fn a_two_row_32_counter_bank_of_23_and_32_bit_rows_agrees_with_the_model() {
    assert_eq!(merged(32), HiShape::new(32, &[23, 32]));
    agrees_with_the_model(merged(32), 7);
}

/// The register file's merged bank of 64 64-bit counters: rows of 22 bits (bits [31:10]) and
/// 32 bits.
#[test]
fn a_two_row_64_counter_bank_of_22_and_32_bit_rows_agrees_with_the_model() {
    assert_eq!(merged(64), HiShape::new(64, &[22, 32]));
    agrees_with_the_model(merged(64), 8);
}

/// A small bank whose row 1 is narrower than row 0.
#[test]
fn a_two_row_5_counter_bank_of_24_and_8_bit_rows_agrees_with_the_model() {
    agrees_with_the_model(HiShape::new(5, &[24, 8]), 9);
}

/// 33-bit counters' merged bank: row 1 of one bit (all ones less one is 0).
#[test]
fn a_two_row_4_counter_bank_with_a_one_bit_row_agrees_with_the_model() {
    assert_eq!(two_row_shapes()[3].0, HiShape::new(4, &[25, 1]));
    agrees_with_the_model(HiShape::new(4, &[25, 1]), 10);
}

/// The cycle an error of `run_hi_bank` names.
fn failing_cycle(err: &str) -> u64 {
    let at = err.find(", cycle ").expect("an error names its cycle") + 8;
    err[at..].split(':').next().unwrap().parse().unwrap()
}

/// A bank with a planted fault whose other rows show an unfaulted bank's outputs (both banks
/// take the same inputs; `ready` is the faulted bank's): only row `row`'s fault can be caught.
struct OneRowFaulted {
    faulted: Box<dyn HiBankDut>,
    good: Box<dyn HiBankDut>,
    row: usize,
}

impl HiBankDut for OneRowFaulted {
    fn cycle(&mut self, inputs: &HiInputs) -> HiOutputs {
        let f = self.faulted.cycle(inputs);
        let mut out = self.good.cycle(inputs);
        let r = self.row;
        out.ready = f.ready;
        out.pf[r] = f.pf[r];
        out.spf[r] = f.spf[r];
        out.pend[r] = f.pend[r];
        out.at_max[r] = f.at_max[r];
        out
    }

    fn name(&self) -> &'static str {
        self.faulted.name()
    }
}

/// The planted fault makes the run fail on every backend, and the same run on the bank without
/// it agrees with the model up to that cycle (so the fault is what was caught). In a bank of two
/// rows the fault is planted in both, and each row's is caught on its own too (the other row's
/// outputs from a bank without it: `OneRowFaulted`).
fn fault_is_caught(shape: HiShape, fault: HiBankFault, default_seed: u64) {
    let seed = seed(default_seed);
    let cycles = cycles();
    let unfaulted = banks(shape, None);
    for (mut dut, mut good) in banks(shape, Some(fault)).into_iter().zip(unfaulted) {
        let name = dut.name();
        eprintln!("HiBank {shape}, {fault:?}, on {name}: seed {seed}");
        let err = run_hi_bank(dut.as_mut(), shape, seed, cycles).unwrap_err();
        eprintln!("  caught: {err}");
        assert!(err.starts_with(name), "{err}");
        let at = failing_cycle(&err);
        if let Err(e) = run_hi_bank(good.as_mut(), shape, seed, at + 1) {
            panic!("without {fault:?} the run fails as early: {e}");
        }
    }
    if shape.rows() == 1 {
        return;
    }
    for row in 0..shape.rows() {
        let pairs = banks(shape, Some(fault))
            .into_iter()
            .zip(banks(shape, None));
        for (faulted, good) in pairs {
            let mut dut = OneRowFaulted { faulted, good, row };
            let name = dut.name();
            let err = run_hi_bank(&mut dut, shape, seed, cycles).unwrap_err();
            eprintln!("  row {row} alone on {name}: caught: {err}");
            assert!(
                err.starts_with(name) && err.contains(&format!("row {row}: ")),
                "{err}"
            );
        }
    }
}

#[test]
fn a_lost_carry_service_is_caught_on_every_backend() {
    fault_is_caught(one_row(16, 64), HiBankFault::LostService, 11);
}

#[test]
fn a_late_copy_on_write_is_caught_on_every_backend() {
    fault_is_caught(one_row(13, 48), HiBankFault::LateCopy, 12);
}

#[test]
fn a_lost_carry_service_is_caught_in_each_row_of_a_two_row_bank_on_every_backend() {
    fault_is_caught(merged(32), HiBankFault::LostService, 13);
}

#[test]
fn a_late_copy_on_write_is_caught_in_each_row_of_a_two_row_bank_on_every_backend() {
    fault_is_caught(merged(32), HiBankFault::LateCopy, 14);
}

/// Steady traffic to one counter (`Periodic`), for every counter as the addressed one: every
/// carry of every counter (into every row) must reach its upper word whatever the loop, with
/// carries far apart (2,000 cycles: far more than the bank's service bound, `hi_service_bound`).
fn steady_traffic_keeps_every_carry(shape: HiShape, period: u64, gap: u64, write: bool) {
    let counters = shape.counters;
    let mut errors = Vec::new();
    for mut dut in banks(shape, None) {
        for t in 0..counters {
            let p = Periodic {
                t,
                period,
                gap,
                write,
                carry_every: 2_000,
            };
            match run_periodic(dut.as_mut(), shape, p, 8_000) {
                Ok(carries) => assert!(carries >= 3 * (counters * shape.rows()) as u64),
                Err(e) => {
                    eprintln!("  {e}");
                    errors.push(e);
                    break;
                }
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// The steady-traffic tests' loops: (period, gap, write).
const LOOPS: [(&str, u64, u64, bool); 3] = [
    // One counter, read back to back: setup, 8 held cycles, the access; `tgt_sel` is 0 in the
    // setup cycles only (the register file's pattern for back-to-back transfers).
    ("read back to back", 10, 1, false),
    // A read every 16 cycles, as the register file presents it: `tgt_sel` in the 8 held cycles
    // and the access only.
    ("read in a loop", 16, 7, false),
    // A write every 16 cycles, likewise.
    ("written in a loop", 16, 7, true),
];

#[test]
fn a_counter_read_back_to_back_keeps_its_carries() {
    let (_, period, gap, write) = LOOPS[0];
    steady_traffic_keeps_every_carry(one_row(1, 64), period, gap, write);
}

#[test]
fn a_counter_read_in_a_loop_keeps_its_carries() {
    // 16 counters: the same Verilator model as the 16 x 64 runs.
    let (_, period, gap, write) = LOOPS[1];
    steady_traffic_keeps_every_carry(one_row(16, 64), period, gap, write);
}

#[test]
fn other_counters_keep_their_carries_while_one_is_written_in_a_loop() {
    let (_, period, gap, write) = LOOPS[2];
    steady_traffic_keeps_every_carry(one_row(16, 64), period, gap, write);
}

/// Every loop on two-row banks (the same Verilator models as their random runs): the small one,
/// and the register file's 32-counter shape written in a loop.
#[test]
fn every_row_keeps_its_carries_under_steady_traffic() {
    for (what, period, gap, write) in LOOPS {
        eprintln!("5 x [24, 8]: {what}");
        steady_traffic_keeps_every_carry(HiShape::new(5, &[24, 8]), period, gap, write);
    }
    let (what, period, gap, write) = LOOPS[2];
    eprintln!("{}: {what}", merged(32));
    steady_traffic_keeps_every_carry(merged(32), period, gap, write);
}

#[test]
fn a_two_row_bank_synthesizes_with_its_rows_in_block_ram_and_no_latch() {
    if !common::have_tool("yosys") {
        return;
    }
    let shape = merged(32);
    let work = std::env::temp_dir().join(format!("pmcg-hibank-yosys-{}", std::process::id()));
    pmcg_synth::hi_bank::synthesize_hi_bank(shape.counters, shape.row_bits(), &work).unwrap();
    let log = std::fs::read_to_string(work.join("yosys.log")).unwrap();
    assert!(!log.contains("Latch inferred"), "a latch in the bank");
    let stat = std::fs::read_to_string(work.join("stat.txt")).unwrap();
    // Per row a counter and a shadow memory of 64 x 32 bits, each one or two 256 x 16 block
    // RAMs: not flip-flops.
    let rams = common::block_rams(&stat).unwrap_or(0);
    eprintln!("{shape}: {rams} block RAMs");
    assert!(
        (4..=8).contains(&rams),
        "{rams} block RAMs for two rows in:\n{stat}"
    );
    std::fs::remove_dir_all(&work).ok();
}

#[test]
fn an_ideal_bank_passes_every_configuration_s_run_and_exercises_it() {
    // The harness itself: the contract's simplest bank passes the same runs, which exercise what
    // they check (so the runs above fail only on a disagreement).
    let cycles = cycles();
    let one = [(1, 64), (4, 33), (16, 64), (64, 64), (13, 48), (32, 55)]
        .into_iter()
        .enumerate()
        .map(|(i, (n, bits))| (one_row(n, bits), i as u64 + 1));
    for (shape, default_seed) in one.chain(two_row_shapes()) {
        let seed = seed(default_seed);
        let mut dut = IdealHiBank::new(shape);
        let stats = run_hi_bank(&mut dut, shape, seed, cycles).unwrap();
        eprintln!("ideal {shape}, seed {seed}: {stats:?}");
        assert_exercised(&stats, cycles);
    }
    // And the steady traffic of the tests above.
    let steady = [
        (one_row(1, 64), LOOPS[0]),
        (one_row(16, 64), LOOPS[1]),
        (one_row(16, 64), LOOPS[2]),
        (HiShape::new(5, &[24, 8]), LOOPS[0]),
        (HiShape::new(5, &[24, 8]), LOOPS[1]),
        (HiShape::new(5, &[24, 8]), LOOPS[2]),
        (merged(32), LOOPS[2]),
    ];
    for (shape, (_, period, gap, write)) in steady {
        for t in 0..shape.counters {
            let p = Periodic {
                t,
                period,
                gap,
                write,
                carry_every: 2_000,
            };
            let mut dut = IdealHiBank::new(shape);
            run_periodic(&mut dut, shape, p, 8_000).unwrap();
        }
    }
}

/// One-row runs draw their stimulus as before the banks had two rows (row 0's and the control's
/// from the seed's stream 0, in the same order), and a second row changes none of row 0's
/// stimulus: row 0 of a two-row run passes exactly as the one-row run of its width does.
#[test]
fn row_0_of_a_two_row_run_sees_the_one_row_run_s_stimulus() {
    /// Records the inputs it sees.
    struct Recorder(IdealHiBank, Vec<HiInputs>);
    impl HiBankDut for Recorder {
        fn cycle(&mut self, inputs: &HiInputs) -> HiOutputs {
            self.1.push(*inputs);
            self.0.cycle(inputs)
        }
        fn name(&self) -> &'static str {
            "recorder"
        }
    }
    let (one, two) = (one_row(5, 56), HiShape::new(5, &[24, 8]));
    let mut a = Recorder(IdealHiBank::new(one), Vec::new());
    let mut b = Recorder(IdealHiBank::new(two), Vec::new());
    run_hi_bank(&mut a, one, 3, 5_000).unwrap();
    run_hi_bank(&mut b, two, 3, 5_000).unwrap();
    assert_eq!(a.1.len(), b.1.len());
    let mut differ = 0;
    for (x, y) in a.1.iter().zip(&b.1) {
        let row0 = |i: &HiInputs| (i.carry[0], i.wr_val[0], i.wr_ones[0], i.wr_m1[0]);
        let shared = |i: &HiInputs| (i.rst, i.paddr, i.tgt_sel, i.wr, i.svr_load);
        assert_eq!((row0(x), shared(x)), (row0(y), shared(y)));
        assert_eq!(
            (x.carry[1], x.wr_val[1]),
            (0, 0),
            "a one-row run drives row 1"
        );
        differ += (y.carry[1] != y.carry[0]) as u64;
    }
    assert!(
        differ > 100,
        "row 1's carries are row 0's: {differ} cycles differ"
    );
}

/// A correct (ideal) bank whose outputs `flip` breaks in cycle `at` (every cycle: None).
struct Broken<F: Fn(&mut HiOutputs)> {
    dut: IdealHiBank,
    cycle: u64,
    at: Option<u64>,
    flip: F,
}

impl<F: Fn(&mut HiOutputs)> Broken<F> {
    fn new(shape: HiShape, at: Option<u64>, flip: F) -> Self {
        Broken {
            dut: IdealHiBank::new(shape),
            cycle: 0,
            at,
            flip,
        }
    }
}

impl<F: Fn(&mut HiOutputs)> HiBankDut for Broken<F> {
    fn cycle(&mut self, inputs: &HiInputs) -> HiOutputs {
        let mut out = self.dut.cycle(inputs);
        if self.at.is_none_or(|at| at == self.cycle) {
            (self.flip)(&mut out);
        }
        self.cycle += 1;
        out
    }

    fn name(&self) -> &'static str {
        "broken"
    }
}

/// The flips of `the_checker_fails_on_a_flipped_output_bit`, in row `r` of `shape`: each is
/// caught, and (`tag`: "row r: " in a bank of two rows) in that row.
fn flips_are_caught(shape: HiShape, r: usize, tag: &str) {
    let (seed, cycles) = (7, 3_000);
    // The same run passes unbroken.
    let mut dut = Broken::new(shape, None, |_: &mut HiOutputs| {});
    run_hi_bank(&mut dut, shape, seed, cycles).unwrap();
    // One at_max bit flipped once, in a cycle after the reset: caught in that cycle.
    let mut dut = Broken::new(shape, Some(1234), |o: &mut HiOutputs| o.at_max[r] ^= 1 << 2);
    let err = run_hi_bank(&mut dut, shape, seed, cycles).unwrap_err();
    eprintln!("caught: {err}");
    assert!(err.contains(&format!("cycle 1234: {tag}at_max")), "{err}");
    // The shadow's low bit flipped in every cycle: caught by a prefetch check.
    let mut dut = Broken::new(shape, None, |o: &mut HiOutputs| o.spf[r] ^= 1);
    let err = run_hi_bank(&mut dut, shape, seed, cycles).unwrap_err();
    eprintln!("caught: {err}");
    assert!(err.contains(tag) && err.contains("spf"), "{err}");
    // The prefetch's low bit flipped in every cycle: likewise.
    let mut dut = Broken::new(shape, None, |o: &mut HiOutputs| o.pf[r] ^= 1);
    let err = run_hi_bank(&mut dut, shape, seed, cycles).unwrap_err();
    eprintln!("caught: {err}");
    assert!(err.contains(tag) && err.contains(": pf"), "{err}");
    // A carry pending out of nowhere, once.
    let mut dut = Broken::new(shape, Some(1500), |o: &mut HiOutputs| o.pend[r] |= 1 << 3);
    let err = run_hi_bank(&mut dut, shape, seed, cycles).unwrap_err();
    eprintln!("caught: {err}");
    assert!(err.contains(&format!("cycle 1500: {tag}pend")), "{err}");
    // Every carry of counter 0 missing from `pend` (the bank adds it at the next edge anyway).
    let mut dut = Broken::new(shape, None, |o: &mut HiOutputs| o.pend[r] &= !1);
    let err = run_hi_bank(&mut dut, shape, seed, cycles).unwrap_err();
    eprintln!("caught: {err}");
    assert!(
        err.contains(tag) && (err.contains("counter 0") || err.contains("pend")),
        "{err}"
    );
}

#[test]
fn the_checker_fails_on_a_flipped_output_bit() {
    let shape = one_row(4, 40);
    flips_are_caught(shape, 0, "");
    // Never ready: caught at the bound of the first transfer.
    let mut dut = Broken::new(shape, None, |o: &mut HiOutputs| o.ready = false);
    let err = run_hi_bank(&mut dut, shape, 7, 3_000).unwrap_err();
    eprintln!("caught: {err}");
    assert!(err.contains("no ready"), "{err}");
}

#[test]
fn the_checker_fails_on_a_flipped_output_bit_of_either_row() {
    let shape = HiShape::new(4, &[24, 8]);
    for r in 0..HI_MAX_ROWS {
        flips_are_caught(shape, r, &format!("row {r}: "));
    }
}

/// A correct (ideal) bank wired with its rows' inputs swapped: each row's own stimulus, checked
/// against its own model, catches it.
#[test]
fn the_checker_fails_on_a_bank_with_its_rows_swapped() {
    struct Swapped(IdealHiBank);
    impl HiBankDut for Swapped {
        fn cycle(&mut self, i: &HiInputs) -> HiOutputs {
            let mut s = *i;
            s.carry.swap(0, 1);
            s.wr_val.swap(0, 1);
            s.wr_ones.swap(0, 1);
            s.wr_m1.swap(0, 1);
            self.0.cycle(&s)
        }
        fn name(&self) -> &'static str {
            "swapped"
        }
    }
    // Rows of one width, so that only the stimulus tells them apart.
    let shape = HiShape::new(4, &[16, 16]);
    let err = run_hi_bank(&mut Swapped(IdealHiBank::new(shape)), shape, 7, 3_000).unwrap_err();
    eprintln!("caught: {err}");
    assert!(err.contains("row "), "{err}");
}
