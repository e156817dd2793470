//! Places and routes the StreamID filter tables alone on the iCE40-HX8K at 100 MHz (the
//! project's strict flow, their harness in `pmcg_synth::filter_table`), one nextpnr run per
//! seed, and prints logic cells, block RAMs, the achieved clock and the critical path of each.
//!
//! `cargo run --release -p pmcg-synth --example filter_table_pnr -- COUNTERS LANES SID_BITS [SEED..]`
//! (work files in target/filter-table-pnr/).
//! Exit 0 when every seed meets 100 MHz, 1 when one does not, 2 on bad arguments.

use pmcg_hdl::filter_table::TableShape;
use pmcg_synth::flow;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, what: &str| -> Result<u64, String> {
        let a = args.get(i).ok_or(format!("missing {what}"))?;
        a.parse()
            .map_err(|_| format!("{what} `{a}` is not a number"))
    };
    let parsed = (|| -> Result<(TableShape, Vec<u32>), String> {
        let shape = TableShape::new(
            num(0, "COUNTERS")? as usize,
            num(1, "LANES")? as usize,
            num(2, "SID_BITS")? as u32,
        )?;
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
            eprintln!(
                "filter_table_pnr: {e}\nusage: filter_table_pnr COUNTERS LANES SID_BITS [SEED..]"
            );
            return ExitCode::from(2);
        }
    };
    let work = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../target/filter-table-pnr/{}x{}x{}",
        shape.counters, shape.lanes, shape.sid_bytes
    ));
    eprintln!("{shape:?}: yosys in {} ...", work.display());
    if let Err(e) = pmcg_synth::filter_table::synthesize_filter_table(shape, &work) {
        eprintln!("filter_table_pnr: {e}");
        return ExitCode::from(1);
    }
    let met = flow::place_seeds(&work, &seeds, None);
    if met {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
