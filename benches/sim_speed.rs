//! Simulation speed of every backend on the same workload (a benchmark, not a test):
//! `cargo bench --bench sim_speed` (env `PMCG_BENCH_CYCLES` sets cycles per backend, default
//! 20,000; `PMCG_BENCH_RUNS` the runs, default 3). Each run prints its figures; the summary
//! gives each figure's min / median / max over the runs and, for the 64x64 default, issue 11's
//! guards (native >= 10k cycles/s, Verilator >= 1M), met or not by the median.
//!
//! ```text
//!   Stimulus(seed) ──► model | native (RustHDL simulate()) | verilator (emitted Verilog)
//!                      cycles/s each, and native/verilator ratio, per configuration and run
//! ```
use pmcg_hdl::config::PmcgConfig;
use pmcg_sim::model::Model;
use pmcg_sim::native::NativeDut;
use pmcg_sim::pins::Dut;
use pmcg_sim::stimulus::Stimulus;
use pmcg_sim::vdut::VerilatorDut;
use std::time::Instant;

/// Issue 11's speed guards for the default 64x64 (cycles/s).
const NATIVE_GUARD: f64 = 10_000.0;
const VERILATOR_GUARD: f64 = 1_000_000.0;

fn measure(dut: &mut dyn Dut, cfg: &PmcgConfig, cycles: u64) -> f64 {
    let mut stim = Stimulus::new(cfg, 42);
    // Inputs are generated ahead so that only the backend is timed.
    let inputs: Vec<_> = std::iter::once(stim.reset_inputs())
        .chain((0..cycles).map(|_| stim.next_inputs()))
        .collect();
    let start = Instant::now();
    let mut sink = 0u32;
    for inp in &inputs {
        sink ^= dut.step(inp).prdata;
    }
    std::hint::black_box(sink);
    inputs.len() as f64 / start.elapsed().as_secs_f64()
}

fn env_u64(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// "min / median / max" of `v` (not empty).
fn spread(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[0], v[v.len() / 2], v[v.len() - 1])
}

fn main() {
    let cycles = env_u64("PMCG_BENCH_CYCLES", 20_000).max(1);
    let runs = env_u64("PMCG_BENCH_RUNS", 3).max(1);
    let configs = [
        ("default 64x64", PmcgConfig::default()),
        (
            "small 4x32",
            PmcgConfig::parse_kv(["counters=4", "counter_bits=32"]).unwrap(),
        ),
    ];
    println!(
        "{cycles} cycles of random APB + lane traffic per backend (release build), {runs} runs"
    );
    // Per configuration: native and Verilator figures of every run.
    let mut figures: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); configs.len()];
    for run in 1..=runs {
        for ((name, cfg), (natives, verilators)) in configs.iter().zip(figures.iter_mut()) {
            let model = measure(&mut Model::new(cfg), cfg, cycles * 10);
            let mut native_dut = NativeDut::new(cfg).unwrap();
            let native = measure(&mut native_dut, cfg, cycles);
            natives.push(native);
            // Settle passes (whole-design updates) per cycle, both half cycles: what native
            // speed is made of.
            let passes = native_dut.iterations() as f64 / (cycles + 1) as f64;
            print!(
                "run {run} {name:>14}: model {model:>12.0} cycles/s   native {native:>9.0} \
                 cycles/s ({passes:.2} settle passes/cycle)"
            );
            match VerilatorDut::new(cfg) {
                Ok(mut v) => {
                    let verilator = measure(&mut v, cfg, cycles * 50);
                    verilators.push(verilator);
                    println!(
                        "   verilator {verilator:>11.0} cycles/s   verilator/native {:.0}x",
                        verilator / native
                    );
                }
                Err(e) => println!("   verilator unavailable: {e}"),
            }
        }
    }
    println!("summary over {runs} runs (min / median / max cycles/s):");
    for ((name, _), (natives, verilators)) in configs.iter().zip(figures.iter_mut()) {
        let (lo, med, hi) = spread(natives);
        let mut line = format!("{name:>14}: native {lo:.0} / {med:.0} / {hi:.0}");
        if *name == "default 64x64" {
            let verdict = if med >= NATIVE_GUARD {
                "met"
            } else {
                "not met"
            };
            line += &format!(" (guard {NATIVE_GUARD:.0}: {verdict})");
        }
        if !verilators.is_empty() {
            let (lo, med, hi) = spread(verilators);
            line += &format!("   verilator {lo:.0} / {med:.0} / {hi:.0}");
            if *name == "default 64x64" {
                let verdict = if med >= VERILATOR_GUARD {
                    "met"
                } else {
                    "not met"
                };
                line += &format!(" (guard {VERILATOR_GUARD:.0}: {verdict})");
            }
        }
        println!("{line}");
    }
}
