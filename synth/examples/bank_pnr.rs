//! Places and routes the hybrid counter bank alone on the iCE40-HX8K at 100 MHz (the project's
//! strict flow, its harness in `pmcg_synth::bank`), one nextpnr run per seed, and prints logic
//! cells, block RAMs, the achieved clock and the critical path of each.
//!
//! `cargo run --release -p pmcg-synth --example bank_pnr -- COUNTERS BITS MAX_INC [SEED..]`
//! (low part: the narrowest the sizing rule allows; work files in target/bank-pnr/).
//! Exit 0 when every seed meets 100 MHz, 1 when one does not, 2 on bad arguments.

use pmcg_hdl::counter_bank::BankShape;
use pmcg_synth::flow;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, what: &str| -> Result<u64, String> {
        let a = args.get(i).ok_or(format!("missing {what}"))?;
        a.parse()
            .map_err(|_| format!("{what} `{a}` is not a number"))
    };
    let parsed = (|| -> Result<(BankShape, Vec<u32>), String> {
        let (counters, bits, max_inc) = (
            num(0, "COUNTERS")? as usize,
            num(1, "BITS")? as u32,
            num(2, "MAX_INC")? as u32,
        );
        let shape = BankShape {
            counters,
            counter_bits: bits,
            low_bits: BankShape::min_low_bits(counters, max_inc),
            max_inc,
        };
        shape.check()?;
        let mut seeds = (3..args.len())
            .map(|i| num(i, "SEED").map(|s| s as u32))
            .collect::<Result<Vec<_>, _>>()?;
        if seeds.is_empty() {
            seeds = flow::SEEDS.to_vec();
        }
        Ok((shape, seeds))
    })();
    let (shape, seeds) = match parsed {
        Ok(p) => p,
        Err(e) => {
            eprintln!("bank_pnr: {e}\nusage: bank_pnr COUNTERS BITS MAX_INC [SEED..]");
            return ExitCode::from(2);
        }
    };
    let work = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../target/bank-pnr/{}x{}-inc{}",
        shape.counters, shape.counter_bits, shape.max_inc
    ));
    eprintln!("{shape:?}: yosys in {} ...", work.display());
    if let Err(e) = pmcg_synth::bank::synthesize_bank(&shape, &work) {
        eprintln!("bank_pnr: {e}");
        return ExitCode::from(1);
    }
    let bits = shape.counters as f64 * shape.counter_bits as f64;
    let met = flow::place_seeds(&work, &seeds, Some(bits));
    if met {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
