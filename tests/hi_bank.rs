//! Block-level tests of the upper-word bank of 64-bit counters (`pmcg_hdl::hi_bank::HiBank`):
//! seeded random runs on the native RustHDL block and on its emitted Verilog (Verilator), each
//! checked cycle by cycle against `pmcg_sim::hi_bank_sim::HiBankModel` (the bank's contract in
//! plain Rust: every counter's upper word and overflow prediction, the addressed counter's
//! prefetch and shadow whenever `ready`, `ready`'s bound, the pending carries); steady traffic
//! to one counter (read or write loops) with carries far apart; the two planted faults that the
//! same runs must catch; and the harness itself (an ideal bank passes every run and is
//! exercised by it, a broken output fails it).
//! `PMCG_HI_BANK_CYCLES` sets the cycles per run (default 50,000); `PMCG_HI_BANK_SEED` one seed
//! (printed); `PMCG_BACKENDS` the backends and `PMCG_REQUIRE_TOOLS=1` a required Verilator
//! (tests/common); `PMCG_HI_BANK_TRACE=N` ends an error with the last N cycles.

mod common;

use pmcg_hdl::hi_bank::HiBankFault;
use pmcg_sim::hi_bank_sim::{
    run_hi_bank, run_periodic, HiBankDut, HiInputs, HiOutputs, HiRunStats, IdealHiBank,
    NativeHiBank, Periodic, VerilatorHiBank,
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

/// The backends `PMCG_BACKENDS` selects (the model is the judge of both, not a backend here).
fn banks(counters: usize, bits: u32, fault: Option<HiBankFault>) -> Vec<Box<dyn HiBankDut>> {
    let mut v: Vec<Box<dyn HiBankDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            v.push(Box::new(NativeHiBank::new(counters, bits, fault)));
        } else {
            let cache = pmcg_sim::vdut::cache_dir();
            v.push(Box::new(
                VerilatorHiBank::new(counters, bits, fault, &cache).unwrap(),
            ));
        }
    }
    v
}

/// The run must have exercised what it checks (a run that exercises nothing fails).
fn assert_exercised(stats: &HiRunStats, cycles: u64) {
    let k = cycles / 10_000;
    assert!(stats.carries > 100 * k, "too few carries: {stats:?}");
    assert!(stats.services > 50 * k, "too few services: {stats:?}");
    assert!(stats.wraps > k, "too few wraps hi_max -> 0: {stats:?}");
    assert!(stats.writes > 100 * k, "too few writes: {stats:?}");
    assert!(stats.reads > 100 * k, "too few reads: {stats:?}");
    assert!(stats.write_carries > 0, "no write with a carry: {stats:?}");
    assert!(
        stats.write_captures > 0,
        "no write with a capture: {stats:?}"
    );
    assert!(stats.captures > 50 * k, "too few captures: {stats:?}");
    assert!(
        stats.prefetch_checks > 1000 * k,
        "too few prefetch checks: {stats:?}"
    );
    assert!(
        stats.at_max_cycles > 100 * k,
        "at_max too rarely set: {stats:?}"
    );
    assert!(stats.resets > 1, "no reset after the first: {stats:?}");
    assert!(stats.max_prefetch >= 2, "no prefetch waited: {stats:?}");
}

/// Every backend runs (and reports) before the test fails.
fn agrees_with_the_model(counters: usize, bits: u32, default_seed: u64) {
    let seed = seed(default_seed);
    let cycles = cycles();
    let mut errors = Vec::new();
    for mut dut in banks(counters, bits, None) {
        eprintln!(
            "HiBank {counters} x {bits} bits on {}: seed {seed}, {cycles} cycles",
            dut.name()
        );
        match run_hi_bank(dut.as_mut(), counters, bits, seed, cycles) {
            Ok(stats) => {
                eprintln!("  {stats:?}");
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
    agrees_with_the_model(1, 64, 1);
}

#[test]
fn a_4x33_bank_with_a_one_bit_upper_word_agrees_with_the_model() {
    agrees_with_the_model(4, 33, 2);
}

#[test]
fn a_16x64_bank_agrees_with_the_model() {
    agrees_with_the_model(16, 64, 3);
}

#[test]
fn a_64x64_bank_agrees_with_the_model() {
    agrees_with_the_model(64, 64, 4);
}

#[test]
fn a_13x48_bank_agrees_with_the_model() {
    agrees_with_the_model(13, 48, 5);
}

/// Rows of 23 bits: the register file's `mid` of 32 counters with one lane (bits [31:9]).
#[test]
fn a_32x55_bank_with_mid_s_rows_of_32_counters_agrees_with_the_model() {
    assert_eq!(32 - pmcg_hdl::hi_bank::low_word_bits(32, 1), 55 - 32);
    agrees_with_the_model(32, 55, 6);
}

/// The cycle an error of `run_hi_bank` names.
fn failing_cycle(err: &str) -> u64 {
    let at = err.find(", cycle ").expect("an error names its cycle") + 8;
    err[at..].split(':').next().unwrap().parse().unwrap()
}

/// The planted fault makes the run fail on every backend, and the same run on the bank without
/// it agrees with the model up to that cycle (so the fault is what was caught).
fn fault_is_caught(counters: usize, bits: u32, fault: HiBankFault, default_seed: u64) {
    let seed = seed(default_seed);
    let unfaulted = banks(counters, bits, None);
    for (mut dut, mut good) in banks(counters, bits, Some(fault))
        .into_iter()
        .zip(unfaulted)
    {
        let name = dut.name();
        eprintln!("HiBank {counters} x {bits} bits, {fault:?}, on {name}: seed {seed}");
        let err = run_hi_bank(dut.as_mut(), counters, bits, seed, cycles()).unwrap_err();
        eprintln!("  caught: {err}");
        assert!(err.starts_with(name), "{err}");
        let at = failing_cycle(&err);
        if let Err(e) = run_hi_bank(good.as_mut(), counters, bits, seed, at + 1) {
            panic!("without {fault:?} the run fails as early: {e}");
        }
    }
}

#[test]
fn a_lost_carry_service_is_caught_on_every_backend() {
    fault_is_caught(16, 64, HiBankFault::LostService, 11);
}

#[test]
fn a_late_copy_on_write_is_caught_on_every_backend() {
    fault_is_caught(13, 48, HiBankFault::LateCopy, 12);
}

/// Steady traffic to one counter (`Periodic`), for every counter as the addressed one: every
/// carry of every counter must reach its upper word whatever the loop, with carries far apart
/// (2,000 cycles: far more than the bank's service bound, `hi_service_bound`).
fn steady_traffic_keeps_every_carry(counters: usize, period: u64, gap: u64, write: bool) {
    let mut errors = Vec::new();
    for mut dut in banks(counters, 64, None) {
        for t in 0..counters {
            let p = Periodic {
                t,
                period,
                gap,
                write,
                carry_every: 2_000,
            };
            match run_periodic(dut.as_mut(), counters, 64, p, 8_000) {
                Ok(carries) => assert!(carries >= 3 * counters as u64),
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

#[test]
fn a_counter_read_back_to_back_keeps_its_carries() {
    // One counter, read back to back: setup, 8 held cycles, the access; `tgt_sel` is 0 in the
    // setup cycles only (the register file's pattern for back-to-back transfers).
    steady_traffic_keeps_every_carry(1, 10, 1, false);
}

#[test]
fn a_counter_read_in_a_loop_keeps_its_carries() {
    // A read every 16 cycles, as the register file presents it: `tgt_sel` in the 8 held cycles
    // and the access only (16 counters: the same Verilator model as the 16 x 64 runs).
    steady_traffic_keeps_every_carry(16, 16, 7, false);
}

#[test]
fn other_counters_keep_their_carries_while_one_is_written_in_a_loop() {
    // A write every 16 cycles, likewise.
    steady_traffic_keeps_every_carry(16, 16, 7, true);
}

#[test]
fn an_ideal_bank_passes_every_configuration_s_run_and_exercises_it() {
    // The harness itself: the contract's simplest bank passes the same runs, which exercise what
    // they check (so the runs above fail only on a disagreement).
    let cycles = cycles();
    for (i, (counters, bits)) in [(1, 64), (4, 33), (16, 64), (64, 64), (13, 48)]
        .into_iter()
        .enumerate()
    {
        let seed = seed(i as u64 + 1);
        let mut dut = IdealHiBank::new(counters, bits);
        let stats = run_hi_bank(&mut dut, counters, bits, seed, cycles).unwrap();
        eprintln!("ideal {counters} x {bits}, seed {seed}: {stats:?}");
        assert_exercised(&stats, cycles);
    }
    // And the steady traffic of the tests above.
    for (counters, period, gap, write) in [(1, 10, 0, false), (16, 16, 7, false), (16, 16, 7, true)]
    {
        for t in 0..counters {
            let p = Periodic {
                t,
                period,
                gap,
                write,
                carry_every: 2_000,
            };
            let mut dut = IdealHiBank::new(counters, 64);
            run_periodic(&mut dut, counters, 64, p, 8_000).unwrap();
        }
    }
}

/// A correct (ideal) bank whose outputs `flip` breaks in cycle `at` (every cycle: None).
struct Broken<F: Fn(&mut HiOutputs)> {
    dut: IdealHiBank,
    cycle: u64,
    at: Option<u64>,
    flip: F,
}

impl<F: Fn(&mut HiOutputs)> Broken<F> {
    fn new(counters: usize, bits: u32, at: Option<u64>, flip: F) -> Self {
        Broken {
            dut: IdealHiBank::new(counters, bits),
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

#[test]
fn the_checker_fails_on_a_flipped_output_bit() {
    let (counters, bits, seed, cycles) = (4, 40, 7, 3_000);
    // The same run passes unbroken.
    let mut dut = Broken::new(counters, bits, None, |_: &mut HiOutputs| {});
    run_hi_bank(&mut dut, counters, bits, seed, cycles).unwrap();
    // One at_max bit flipped once, in a cycle after the reset: caught in that cycle.
    let mut dut = Broken::new(counters, bits, Some(1234), |o: &mut HiOutputs| {
        o.at_max ^= 1 << 2
    });
    let err = run_hi_bank(&mut dut, counters, bits, seed, cycles).unwrap_err();
    eprintln!("caught: {err}");
    assert!(err.contains("cycle 1234: at_max"), "{err}");
    // The shadow's low bit flipped in every cycle: caught by a prefetch check.
    let mut dut = Broken::new(counters, bits, None, |o: &mut HiOutputs| o.spf ^= 1);
    let err = run_hi_bank(&mut dut, counters, bits, seed, cycles).unwrap_err();
    eprintln!("caught: {err}");
    assert!(err.contains("spf"), "{err}");
    // Never ready: caught at the bound of the first transfer.
    let mut dut = Broken::new(counters, bits, None, |o: &mut HiOutputs| o.ready = false);
    let err = run_hi_bank(&mut dut, counters, bits, seed, cycles).unwrap_err();
    eprintln!("caught: {err}");
    assert!(err.contains("no ready"), "{err}");
    // A carry pending out of nowhere, once.
    let mut dut = Broken::new(counters, bits, Some(1500), |o: &mut HiOutputs| {
        o.pend |= 1 << 3
    });
    let err = run_hi_bank(&mut dut, counters, bits, seed, cycles).unwrap_err();
    eprintln!("caught: {err}");
    assert!(err.contains("cycle 1500: pend"), "{err}");
    // Every carry of counter 0 missing from `pend` (the bank adds it at the next edge anyway).
    let mut dut = Broken::new(counters, bits, None, |o: &mut HiOutputs| o.pend &= !1);
    let err = run_hi_bank(&mut dut, counters, bits, seed, cycles).unwrap_err();
    eprintln!("caught: {err}");
    assert!(err.contains("counter 0") || err.contains("pend"), "{err}");
}
