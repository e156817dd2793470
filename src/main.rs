//! `smmu-pmcg`: command line of the open-source SMMUv3 PMCG.
//!
//! ```text
//!   smmu-pmcg                      demo: Verilog of the default configuration under out/, then a
//!                                  programmed run on the native simulation, checked by the model
//!   smmu-pmcg sim --script FILE    replay a register-level script (tests/scripts/*.pmcg)
//!   smmu-pmcg gen ... --out DIR    write the Verilog of a configuration
//!   smmu-pmcg synth ... [--sweep]  iCE40 resources and clock (Yosys + nextpnr)
//!   smmu-pmcg timing               counter-path latencies in cycles -> docs/timing.md + .svg
//! ```

mod demo;
mod synth;
mod timing;

use clap::{Parser, Subcommand, ValueEnum};
use pmcg_hdl::config::PmcgConfig;
use pmcg_sim::checked::Checked;
use pmcg_sim::model::Model;
use pmcg_sim::native::NativeDut;
use pmcg_sim::pins::{Driver, Dut};
use pmcg_sim::vdut::VerilatorDut;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "smmu-pmcg",
    version,
    about = "Open-source Arm SMMUv3 PMCG: simulation, scripts and Verilog"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Replay a register-level script and check its expectations (format: sim/src/script.rs).
    Sim {
        /// The script file.
        #[arg(long)]
        script: PathBuf,
        /// Print the cycle of every access and event.
        #[arg(long)]
        trace: bool,
        /// Write a waveform of every signal (native backend only).
        #[arg(long)]
        vcd: Option<PathBuf>,
        /// Which implementation runs the script; native and verilator are also checked against
        /// the reference model on every cycle.
        #[arg(long, value_enum, default_value_t = Backend::Native)]
        backend: Backend,
    },
    /// Write the Verilog of a configuration and its JSON summary (ports, configuration, register
    /// map version): KEY=VALUE settings (script `config` keys) and/or a
    /// file of them; missing keys take the defaults.
    Gen {
        /// Configuration settings, e.g. counters=16 counter_bits=32.
        #[arg(value_name = "KEY=VALUE")]
        settings: Vec<String>,
        /// A file of KEY=VALUE settings (whitespace or lines; `#` comments; a leading `config`).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Name of the top module.
        #[arg(long, default_value = pmcg_synth::DEFAULT_TOP)]
        top: String,
        /// Also write the integration collateral: <top>.rdl, .xml (IP-XACT), .svd, _regs.h,
        /// _registers.md, .regs.json, .core (FuseSoC), .dts, _iort.asl.
        #[arg(long)]
        collateral: bool,
        /// Write <top>_tb.v, a self-checking Verilog-2005 testbench replaying this script
        /// (expected values from the reference model), and <top>.v of the script's configuration.
        #[arg(long, value_name = "SCRIPT")]
        testbench: Option<PathBuf>,
    },
    /// Synthesize for the iCE40-HX8K (Yosys + nextpnr-ice40 --hx8k --package cb132) and report
    /// logic cells, flip-flops, block RAMs and the achieved clock. Exits 1 when timing misses
    /// `--freq` (naming the critical path), 2 when a tool fails or the design does not fit.
    Synth {
        /// Configuration settings, e.g. counters=16 counter_bits=32.
        #[arg(value_name = "KEY=VALUE")]
        settings: Vec<String>,
        /// A file of KEY=VALUE settings.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Requested clock in MHz.
        #[arg(long, default_value_t = 100.0)]
        freq: f64,
        /// Where the flow's files (netlist, logs, report) go.
        #[arg(long, default_value = "target/synth")]
        work: PathBuf,
        /// Run the documented set of configurations and write the table to --report.
        #[arg(long)]
        sweep: bool,
        /// The Markdown file --sweep writes.
        #[arg(long, default_value = "docs/resources.md")]
        report: PathBuf,
    },
    /// Measure the counter path's latencies in cycles on the simulated design and write the table
    /// and an annotated waveform (SVG). Exits 1 when a target is missed.
    Timing {
        /// Configuration settings (default configuration when none).
        #[arg(value_name = "KEY=VALUE")]
        settings: Vec<String>,
        /// A file of KEY=VALUE settings.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Measure on the native RustHDL simulation or on the emitted Verilog.
        #[arg(long, value_enum, default_value_t = Backend::Native)]
        backend: Backend,
        /// The Markdown table.
        #[arg(long, default_value = "docs/timing.md")]
        out: PathBuf,
        /// The waveform picture.
        #[arg(long, default_value = "docs/timing.svg")]
        svg: PathBuf,
    },
    /// The built-in demo (what `smmu-pmcg` with no command runs).
    Demo {
        /// Where the Verilog of the default configuration goes.
        #[arg(long, default_value = "out")]
        out: PathBuf,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Backend {
    /// The RustHDL design, simulated natively.
    Native,
    /// The emitted Verilog, compiled by Verilator.
    Verilator,
    /// The reference model alone.
    Model,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command.unwrap_or(Command::Demo {
        out: PathBuf::from("out"),
    }) {
        Command::Sim {
            script,
            trace,
            vcd,
            backend,
        } => run_script(&script, trace, vcd.as_deref(), backend),
        Command::Gen {
            settings,
            config,
            out,
            top,
            collateral,
            testbench,
        } => match testbench {
            Some(script) if settings.is_empty() && config.is_none() => {
                gen_testbench(&script, &out, &top, collateral)
            }
            Some(_) => Err(
                "--testbench takes the configuration from the script's `config` line: give no KEY=VALUE or --config"
                    .into(),
            ),
            None => config_from(&settings, config.as_deref())
                .and_then(|cfg| gen(&cfg, &out, &top, collateral)),
        },
        Command::Synth {
            settings,
            config,
            freq,
            work,
            sweep,
            report,
        } => {
            if sweep {
                synth::sweep(freq, &work, &report)
            } else {
                config_from(&settings, config.as_deref())
                    .and_then(|cfg| synth::single(&cfg, freq, &work))
            }
        }
        Command::Timing {
            settings,
            config,
            backend,
            out,
            svg,
        } => config_from(&settings, config.as_deref()).and_then(|cfg| match backend {
            Backend::Model => {
                Err("timing is measured on the design: --backend native or verilator".into())
            }
            b => timing::run(&cfg, matches!(b, Backend::Verilator), &out, &svg),
        }),
        Command::Demo { out } => demo::run(&out),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

fn run_script(path: &Path, trace: bool, vcd: Option<&Path>, backend: Backend) -> CliResult {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let script = pmcg_sim::script::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let cfg = &script.config;
    if vcd.is_some() && !matches!(backend, Backend::Native) {
        return Err("--vcd is available with the native backend only".into());
    }
    let dut: Box<dyn Dut> = match backend {
        Backend::Model => Box::new(Model::new(cfg)),
        Backend::Native => {
            let mut native = NativeDut::new(cfg)?;
            if let Some(p) = vcd {
                native = native
                    .with_vcd(p)
                    .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            }
            Box::new(native)
        }
        Backend::Verilator => Box::new(VerilatorDut::new(cfg)?),
    };
    let checked = Checked::new(Model::new(cfg), dut);
    let mut driver = Driver::new(checked, cfg.lanes as usize);
    // Every script starts from reset: PRESETn low for one cycle before the first command, not
    // numbered. (The model starts in its reset state; the RTL would start from power-on values.)
    driver.reset(1);
    driver.cycle = 0;
    driver.dut.rebase();
    let mut stdout = std::io::stdout();
    let report = pmcg_sim::script::run(&script, &mut driver, trace, &mut stdout)?;
    let mut ok = report.failed == 0;
    if let Some((cycle, expected, actual)) = driver.dut.mismatch {
        ok = false;
        println!(
            "MISMATCH at cycle {cycle}: reference model {expected:x?}, {} {actual:x?}",
            driver.dut.name()
        );
    }
    if let Some(p) = vcd {
        println!("waveform written to {}", p.display());
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Reads KEY=VALUE settings from a file: whitespace-separated, `#` comments, optional `config`.
fn settings_from_file(path: &Path) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .flat_map(|l| l.split_whitespace())
        .filter(|w| *w != "config")
        .map(str::to_string)
        .collect())
}

/// The configuration given by a settings file (if any) and KEY=VALUE settings (which win).
fn config_from(
    settings: &[String],
    config: Option<&Path>,
) -> Result<PmcgConfig, Box<dyn std::error::Error>> {
    let mut items = match config {
        Some(p) => settings_from_file(p)?,
        None => Vec::new(),
    };
    items.extend(settings.iter().cloned());
    Ok(PmcgConfig::parse_kv(items.iter().map(String::as_str))?)
}

fn gen(cfg: &PmcgConfig, out: &Path, top: &str, collateral: bool) -> CliResult {
    let cfg = cfg.clone();
    let path = write_verilog(&cfg, out, top)?;
    let summary = out.join(format!("{top}.json"));
    std::fs::write(&summary, pmcg_synth::summary_json(&cfg, top))
        .map_err(|e| format!("cannot write {}: {e}", summary.display()))?;
    println!(
        "wrote {} and {} ({})",
        path.display(),
        summary.display(),
        cfg.summary()
    );
    if collateral {
        for (name, text) in pmcg_synth::collateral::generate(&cfg, top) {
            let path = out.join(name);
            std::fs::write(&path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("wrote {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `gen --testbench SCRIPT`: the Verilog of the script's configuration (and its collateral when
/// asked) and `<top>_tb.v`.
fn gen_testbench(script: &Path, out: &Path, top: &str, collateral: bool) -> CliResult {
    let text = std::fs::read_to_string(script)
        .map_err(|e| format!("cannot read {}: {e}", script.display()))?;
    let parsed =
        pmcg_sim::script::parse(&text).map_err(|e| format!("{}: {e}", script.display()))?;
    let name = script
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tb = pmcg_sim::testbench::testbench(&parsed, &name, top)
        .map_err(|e| format!("{}: {e}", script.display()))?;
    gen(&parsed.config, out, top, collateral)?;
    let path = out.join(format!("{top}_tb.v"));
    std::fs::write(&path, tb).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// Writes `<out>/<top>.v` for `cfg` and returns its path.
pub(crate) fn write_verilog(
    cfg: &PmcgConfig,
    out: &Path,
    top: &str,
) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let verilog = pmcg_synth::emit_verilog(cfg, top)?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let path = out.join(format!("{top}.v"));
    std::fs::write(&path, verilog).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}
