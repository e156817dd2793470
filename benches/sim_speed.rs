//! Simulation speed of every backend on the same workload (a benchmark, not a test):
//! `cargo bench --bench sim_speed` (env `PMCG_BENCH_CYCLES` sets cycles per backend, default 20,000).
//!
//! ```text
//!   Stimulus(seed) ──► model | native (RustHDL simulate()) | verilator (emitted Verilog)
//!                      cycles/s each, and native/verilator ratio, per configuration
//! ```
use pmcg_hdl::config::PmcgConfig;
use pmcg_sim::model::Model;
use pmcg_sim::native::NativeDut;
use pmcg_sim::pins::Dut;
use pmcg_sim::stimulus::Stimulus;
use pmcg_sim::vdut::VerilatorDut;
use std::time::Instant;

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

fn main() {
    let cycles: u64 = std::env::var("PMCG_BENCH_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let configs = [
        ("default 64x64", PmcgConfig::default()),
        (
            "small 4x32",
            PmcgConfig::parse_kv(["counters=4", "counter_bits=32"]).unwrap(),
        ),
    ];
    println!("{cycles} cycles of random APB + lane traffic per backend (release build)");
    for (name, cfg) in configs {
        let model = measure(&mut Model::new(&cfg), &cfg, cycles * 10);
        let mut native_dut = NativeDut::new(&cfg).unwrap();
        let native = measure(&mut native_dut, &cfg, cycles);
        // Settle passes (whole-design updates) per cycle, both half cycles: what native speed
        // is made of.
        let passes = native_dut.iterations() as f64 / (cycles + 1) as f64;
        print!(
            "{name:>14}: model {model:>12.0} cycles/s   native {native:>9.0} cycles/s \
             ({passes:.2} settle passes/cycle)"
        );
        match VerilatorDut::new(&cfg) {
            Ok(mut v) => {
                let verilator = measure(&mut v, &cfg, cycles * 50);
                println!(
                    "   verilator {verilator:>11.0} cycles/s   verilator/native {:.0}x",
                    verilator / native
                );
            }
            Err(e) => println!("   verilator unavailable: {e}"),
        }
    }
}
