//! `smmu-pmcg synth`: the strict iCE40 flow for one configuration, or the documented sweep that
//! writes docs/resources.md.
//!
//! ```text
//!   PmcgConfig ──pmcg_synth::flow::run──► SynthReport ──► printed (single) | Markdown row (sweep)
//! ```

use crate::output::{self, say};
use pmcg_hdl::config::PmcgConfig;
use pmcg_synth::flow::{self, FlowError, SynthReport};
use std::path::Path;
use std::process::{Command, ExitCode};

type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

/// The configurations docs/resources.md reports (the default last: it may not fit).
pub const SWEEP: [(&str, &[&str]); 7] = [
    ("4x32", &["counters=4", "counter_bits=32"]),
    ("16x32", &["counters=16", "counter_bits=32"]),
    (
        "16x32 realm",
        &["counters=16", "counter_bits=32", "realm=on"],
    ),
    (
        "16x32 realm+mpam",
        &[
            "counters=16",
            "counter_bits=32",
            "realm=on",
            "mpam_filter=on",
        ],
    ),
    ("32x32", &["counters=32", "counter_bits=32"]),
    ("16x64", &["counters=16", "counter_bits=64"]),
    ("default (64x64)", &[]),
];

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
        "  achieved {:.1} MHz, requested {:.1} MHz",
        r.fmax_mhz,
        r.target_mhz
    );
    say!("  critical path: {}", r.critical_path);
    Ok(())
}

pub fn single(cfg: &PmcgConfig, freq: f64, work: &Path) -> CliResult {
    let dir = flow::work_dir(work, cfg);
    output::prepare_dir(&dir)?;
    let spinner = output::spinner("synth");
    let report = flow::run(cfg, freq, &dir, &mut |stage| {
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
    let configs = SWEEP
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
        let result = flow::run(cfg, freq, &flow::work_dir(work, cfg), &mut |stage| {
            bar.set_message(format!("synth {name}: {stage}"))
        });
        bar.inc(1);
        let row = match result {
            Ok(r) => {
                bar.suspend(|| print(&r))?;
                format!(
                    "| {name} | {} ({:.0}%) | {} | {} | {:.1} | {} | {} |",
                    r.logic_cells,
                    100.0 * r.logic_cells as f64 / r.logic_cells_available.max(1) as f64,
                    r.flip_flops - r.harness_flip_flops,
                    r.block_rams,
                    r.fmax_mhz,
                    if r.timing_met() { "met" } else { "**missed**" },
                    r.critical_path.split(" (").next().unwrap_or("")
                )
            }
            Err(e @ (FlowError::Missing { .. } | FlowError::Io { .. } | FlowError::Emit(_))) => {
                return Err(e.into())
            }
            Err(FlowError::Tool { tool, what, .. }) => {
                bar.suspend(|| output::warn(&format!("  {name}: {tool}: {what}")));
                format!("| {name} | - | - | - | - | **{tool}: {what}** | |")
            }
        };
        rows.push(row);
    }
    let stamp = pmcg_synth::stamp::Stamp::resources(freq).comment_lines(&format!(
        "{} / {}",
        tool_version("yosys", "-V"),
        tool_version("nextpnr-ice40", "--version")
    ));
    let doc = format!(
        "{stamp}# iCE40-HX8K resources\n\n\
         Generated by `cargo run --release -- synth --sweep` (do not edit by hand): Yosys `synth_ice40`, then\n\
         `nextpnr-ice40 --hx8k --package cb132 --freq {freq}`, every configuration inside the three-pin resource\n\
         harness of `synth/src/flow.rs` (logic cells include the harness; flip-flops exclude it).\n\
         Tools: {} / {}.\n\n\
         | configuration | logic cells (of 7680) | flip-flops (PMCG) | block RAMs | achieved MHz | {freq} MHz | critical path (start -> end cell) |\n\
         |---|---|---|---|---|---|---|\n{}\n",
        tool_version("yosys", "-V"),
        tool_version("nextpnr-ice40", "--version"),
        rows.join("\n")
    );
    bar.finish_and_clear();
    output::write_file(out, doc.as_bytes())?;
    say!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}
