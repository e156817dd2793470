//! Randomized differential tests: reference model vs native RustHDL vs emitted Verilog
//! (Verilator), in lock-step, every output compared every cycle.
//!
//! ```text
//!   seed ──► Stimulus ──► PinInputs ─┬─► Model      ─┐
//!                                    ├─► NativeDut  ─┼─► equal every cycle?
//!                                    └─► Verilator  ─┘
//! ```
//! Eight configurations span the corners: 1, 3, 4, 5, 7, 16 and 64 counters; widths 32, 36, 40,
//! 44, 48 and 64; 1, 8, 16 and 32 StreamID bits; 1, 3, 4 and 8 lanes; every feature on and off;
//! two more have filter tables (32x32, and 9x40 on 3 lanes with Realm).
//! The stimulus aims split 64-bit writes at counters a few counts from a carry (the high half
//! before, at or after it) and runs Linux's perf disable/enable (CR = 0, IRQ_CTRL 1 -> 0 -> 1)
//! while MSIs are outstanding and pending (a third of the slave's write responses take 10-40
//! cycles); tests/planted_faults.rs shows it catching the bugs issue 10 names.
//! `PMCG_DIFF_CYCLES` sets the cycles per configuration (default 100,000; e.g. 1000000 for a long
//! run); `PMCG_SEED` reproduces a run (the seed is printed either way).

mod common;

use pmcg_hdl::config::PmcgConfig;
use pmcg_sim::pins::{Dut, PinInputs, PinOutputs};
use pmcg_sim::stimulus::{lockstep, LockstepStats};

fn cycles() -> u64 {
    std::env::var("PMCG_DIFF_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

fn seed(salt: u64) -> u64 {
    common::base_seed().wrapping_add(salt)
}

fn run(name: &str, cfg: &PmcgConfig, salt: u64) -> LockstepStats {
    let seed = seed(salt);
    let cycles = cycles();
    let mut backends = common::backends(cfg);
    let names: Vec<&str> = backends.iter().map(|b| b.name()).collect();
    eprintln!(
        "differential {name}: seed {seed} (PMCG_SEED={}), {cycles} cycles, {names:?}",
        seed.wrapping_sub(salt)
    );
    let mut refs: Vec<&mut dyn Dut> = backends
        .iter_mut()
        .map(|b| b.as_mut() as &mut dyn Dut)
        .collect();
    match lockstep(cfg, seed, cycles, &mut refs) {
        Ok(stats) => {
            eprintln!("differential {name}: {stats:?}");
            // The run must have exercised the design, not idled through it. With filter tables
            // a performed EVTYPER/SMR write holds the bus for 259 cycles, and the stimulus keeps
            // one filter write in five (sim/src/stimulus.rs): about half the bus time goes to
            // them, so the floors of what shares the bus are halved (32x32 filter tables: about
            // 4,900 reads and 400 IRQ_CTRL toggles per 10^5 cycles).
            let share = if cfg.filter_tables { 2 } else { 1 };
            assert!(
                stats.reads > cycles / (20 * share),
                "{name}: too few reads: {stats:?}"
            );
            assert!(
                stats.writes > cycles / 20,
                "{name}: too few writes: {stats:?}"
            );
            assert!(
                stats.nonzero_reads > stats.reads / 5,
                "{name}: reads mostly zero: {stats:?}"
            );
            // The MSI master obeyed AXI (VALID held until READY, payload stable) and was
            // exercised, error responses included; the capture handshake ran.
            assert!(
                stats.msi_violations.is_empty(),
                "{name}: AXI protocol violations: {:?}",
                stats.msi_violations
            );
            // Split 64-bit writes aimed at carries, and Linux's disable/enable, were exercised.
            if cycles >= 20_000 {
                assert!(
                    !cfg.wide_counters() || stats.high_chases > cycles / 2000,
                    "{name}: too few paired high writes around a carry: {stats:?}"
                );
                assert!(
                    stats.irq_toggles > cycles / (2000 * share),
                    "{name}: too few IRQ_CTRL toggles: {stats:?}"
                );
            }
            if cfg.capture && cycles >= 20_000 {
                assert!(
                    stats.capt_ack_cycles > 0,
                    "{name}: no external capture: {stats:?}"
                );
            }
            stats
        }
        Err(m) => panic!(
            "differential {name} (reproduce with PMCG_SEED={}): {m}",
            seed.wrapping_sub(salt)
        ),
    }
}

/// The MSIs of a set of runs: overflows are rare with wide counters, so the master's exercise is
/// checked over the set (a quarter of the random slave's responses are errors).
fn assert_msis_exercised(all: &[LockstepStats]) {
    let writes: u64 = all.iter().map(|s| s.msi_writes).sum();
    let errors: u64 = all.iter().map(|s| s.msi_errors).sum();
    if cycles() >= 20_000 {
        assert!(
            writes >= 50 && errors > 0,
            "MSI master barely exercised: {writes} MSIs, {errors} error responses"
        );
    }
}

#[test]
fn differential_shared_configs() {
    let stats: Vec<LockstepStats> = common::configs()
        .into_iter()
        .enumerate()
        .map(|(i, (name, cfg))| run(name, &cfg, i as u64))
        .collect();
    assert_msis_exercised(&stats);
}

#[test]
fn differential_corner_configs() {
    let stats: Vec<LockstepStats> = common::corner_configs()
        .into_iter()
        .enumerate()
        .map(|(i, (name, cfg))| run(name, &cfg, 100 + i as u64))
        .collect();
    assert_msis_exercised(&stats);
}

/// A backend that corrupts PRDATA of the `n`th read: the comparison must catch it.
struct Faulty<D: Dut> {
    inner: D,
    reads: u64,
    corrupt_read: u64,
}

impl<D: Dut> Dut for Faulty<D> {
    fn step(&mut self, inp: &PinInputs) -> PinOutputs {
        let mut out = self.inner.step(inp);
        if inp.psel && inp.penable && !inp.pwrite {
            self.reads += 1;
            if self.reads == self.corrupt_read {
                out.prdata ^= 1 << 7;
            }
        }
        out
    }
    fn name(&self) -> &'static str {
        "faulty"
    }
}

#[test]
fn differential_catches_a_wrong_read() {
    let cfg = PmcgConfig::parse_kv(["counters=4", "counter_bits=32"]).unwrap();
    let mut model = pmcg_sim::model::Model::new(&cfg);
    let mut faulty = Faulty {
        inner: pmcg_sim::model::Model::new(&cfg),
        reads: 0,
        corrupt_read: 100,
    };
    let err =
        lockstep(&cfg, 7, 20_000, &mut [&mut model, &mut faulty]).expect_err("corruption missed");
    assert_eq!(err.actual.0, "faulty");
    assert_eq!(err.actual.1.prdata ^ err.expected.1.prdata, 1 << 7);
}
