//! `smmu-pmcg synth`: the strict iCE40 flow for one configuration, or the documented sweep that
//! writes docs/resources.md.
//!
//! ```text
//!   PmcgConfig ──pmcg_synth::flow::run(seed)──► SynthReport ──► printed (single)
//!   PmcgConfig ──pmcg_synth::flow::run_seeds(SEEDS)──► SeedRuns ──► Markdown row (sweep)
//! ```

use crate::output::{self, say};
use pmcg_hdl::config::PmcgConfig;
use pmcg_synth::flow::{self, FlowError, SynthReport};
use pmcg_synth::sweep::{self as table, SeedRun};
use std::path::Path;
use std::process::{Command, ExitCode};

type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

fn print(r: &SynthReport) -> Result<(), String> {
    say!("config: {}", r.config);
    say!(
        "  logic cells {} / {} ({:.0}%), flip-flops {} (harness {}), block RAMs {}",
        r.logic_cells,
        r.logic_cells_available,
        100.0 * r.logic_cells as f64 / r.logic_cells_available.max(1) as f64,
        r.flip_flops,
        r.harness_flip_flops,
        r.block_rams
    );
    say!(
        "  achieved {:.1} MHz, requested {:.1} MHz (nextpnr seed {})",
        r.fmax_mhz,
        r.target_mhz,
        r.seed
    );
    say!("  critical path: {}", r.critical_path);
    Ok(())
}

pub fn single(cfg: &PmcgConfig, freq: f64, seed: u32, work: &Path) -> CliResult {
    let dir = flow::work_dir(work, cfg);
    output::prepare_dir(&dir)?;
    let spinner = output::spinner("synth");
    let report = flow::run(cfg, freq, seed, &dir, &mut |stage| {
        spinner.set_message(stage.to_string())
    });
    spinner.finish_and_clear();
    let report = report?;
    print(&report)?;
    if report.timing_met() {
        say!("timing met");
        Ok(ExitCode::SUCCESS)
    } else {
        output::warn(&format!(
            "error: timing missed: {:.1} MHz achieved < {:.1} MHz requested; critical path {}",
            report.fmax_mhz, report.target_mhz, report.critical_path
        ));
        Ok(ExitCode::from(1))
    }
}

/// One configuration's seeds, as the sweep goes.
fn print_seeds(name: &str, runs: &table::SeedRuns) -> Result<(), String> {
    say!("{name}: flip-flops {} (PMCG)", runs.flip_flops);
    for run in &runs.runs {
        match run {
            SeedRun::Placed(p) => say!(
                "  seed {}: logic cells {} / {}, block RAMs {}, {:.1} MHz, critical path {}",
                p.seed,
                p.logic_cells,
                p.logic_cells_available,
                p.block_rams,
                p.fmax_mhz,
                p.critical_path
            ),
            SeedRun::Failed { seed, what, .. } => say!("  seed {seed}: {what}"),
        }
    }
    Ok(())
}

fn tool_version(tool: &str, arg: &str) -> String {
    Command::new(tool)
        .arg(arg)
        .output()
        .map(|o| {
            // Yosys prints its version on stdout, nextpnr on stderr.
            String::from_utf8_lossy(&[o.stdout, o.stderr].concat())
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_string()
        })
        .unwrap_or_else(|_| "not installed".into())
}

pub fn sweep(freq: f64, work: &Path, out: &Path) -> CliResult {
    // Every output is checked before the first tool runs (the sweep takes many minutes).
    output::prepare_output(out)?;
    let configs = pmcg_synth::flow::SWEEP
        .iter()
        .map(|(name, kv)| Ok((*name, PmcgConfig::parse_kv(kv.iter().copied())?)))
        .collect::<Result<Vec<_>, pmcg_hdl::config::ConfigError>>()?;
    for (_, cfg) in &configs {
        output::prepare_dir(&flow::work_dir(work, cfg))?;
    }
    let bar = output::progress(configs.len() as u64, "configurations");
    let mut rows = Vec::new();
    for (name, cfg) in &configs {
        bar.set_message(format!("synth {name}"));
        let result = flow::run_seeds(
            cfg,
            freq,
            &flow::SEEDS,
            &flow::work_dir(work, cfg),
            &mut |stage| bar.set_message(format!("synth {name}: {stage}")),
        );
        bar.inc(1);
        let row = match result {
            Ok(runs) => {
                bar.suspend(|| print_seeds(name, &runs))?;
                runs.row(name)
            }
            Err(e @ (FlowError::Missing { .. } | FlowError::Io { .. } | FlowError::Emit(_))) => {
                return Err(e.into())
            }
            Err(FlowError::Tool { tool, what, .. }) => {
                bar.suspend(|| output::warn(&format!("  {name}: {tool}: {what}")));
                table::failed_row(name, &format!("{tool}: {what}"))
            }
        };
        rows.push(row);
    }
    let stamp = pmcg_synth::stamp::Stamp::resources(freq).comment_lines(&format!(
        "{} / {}",
        tool_version("yosys", "-V"),
        tool_version("nextpnr-ice40", "--version")
    ));
    let seeds = flow::SEEDS
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    // The nextpnr arguments as the flow passes them (device, placer), besides frequency and seed.
    let pnr_args = flow::DEVICE_ARGS
        .iter()
        .chain(flow::PLACER_ARGS.iter())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let doc = format!(
        "{stamp}# iCE40-HX8K resources\n\n\
         Generated by `cargo run --release -- synth --sweep` (do not edit by hand): Yosys `synth_ice40`\n\
         (with small enable/reset sets mapped to logic, `flow::synth_ice40_commands`) once per configuration, then\n\
         `nextpnr-ice40 {pnr_args} --freq {freq} --seed N` for each seed N of {seeds}, every configuration\n\
         inside the three-pin resource harness of `synth/src/flow.rs` (logic cells include the harness;\n\
         flip-flops exclude it). Logic cells and block RAMs are seed {first}'s (nextpnr packs before it places,\n\
         so they barely depend on the seed); LC per counter bit = logic cells / (counters x counter bits).\n\
         MHz: the lowest and the median over the seeds; {freq} MHz is met only when every seed meets it; the\n\
         critical path is the slowest seed's. A seed that fails is named with nextpnr's reason.\n\
         Tools: {} / {}.\n\n{}\n{}\n",
        tool_version("yosys", "-V"),
        tool_version("nextpnr-ice40", "--version"),
        table::table_header(freq, &flow::SEEDS),
        rows.join("\n"),
        first = flow::SEEDS[0],
    );
    bar.finish_and_clear();
    output::write_file(out, doc.as_bytes())?;
    say!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}
