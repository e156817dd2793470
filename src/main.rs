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

mod board;
mod demo;
mod output;
mod synth;
mod timing;
mod verilog_names;

use clap::{Parser, Subcommand, ValueEnum};
use output::{say, warn};
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
        /// Name of the top module: a plain Verilog identifier, not a Verilog/SystemVerilog keyword.
        #[arg(long, default_value = pmcg_synth::DEFAULT_TOP, value_parser = top_name)]
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
        /// Configuration settings, e.g. counters=16 counter_bits=32 (not with --sweep).
        #[arg(value_name = "KEY=VALUE", conflicts_with = "sweep")]
        settings: Vec<String>,
        /// A file of KEY=VALUE settings (not with --sweep).
        #[arg(long, conflicts_with = "sweep")]
        config: Option<PathBuf>,
        /// Requested clock in MHz: a positive number.
        #[arg(long, default_value_t = 100.0, value_parser = frequency_mhz)]
        freq: f64,
        /// nextpnr placement seed: a whole number from 0 to 2147483647 (not with --sweep, which
        /// places every configuration with each seed of its list).
        #[arg(long, default_value_t = pmcg_synth::flow::DEFAULT_SEED, value_parser = nextpnr_seed, allow_negative_numbers = true, conflicts_with = "sweep")]
        seed: u32,
        /// Where the flow's files (netlist, logs, report) go.
        #[arg(long, default_value = "target/synth")]
        work: PathBuf,
        /// Run the documented set of configurations, each placed with seeds 1, 2 and 3, and
        /// write the table to --report.
        #[arg(long)]
        sweep: bool,
        /// The Markdown file --sweep writes (only with --sweep).
        #[arg(long)]
        report: Option<PathBuf>,
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
        /// The waveform picture [default: `--out` with the extension .svg, docs/timing.svg for
        /// the default `--out`] (a table written elsewhere never overwrites the docs' picture).
        #[arg(long)]
        svg: Option<PathBuf>,
    },
    /// The FPGA prototype on the Alchitry Cu: build, program, run scripts, serve the simulated board.
    Board {
        #[command(subcommand)]
        command: board::BoardCommand,
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
    // A file-size limit (ulimit -f) then makes a write fail with EFBIG, reported with its path,
    // instead of killing the process with SIGXFSZ and leaving a cut file behind.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_IGN before any thread starts has no other
    // effect.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
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
            None => {
                let inputs: Vec<(&str, &Path)> =
                    config.iter().map(|p| ("--config", p.as_path())).collect();
                config_from(&settings, config.as_deref())
                    .and_then(|cfg| gen(&cfg, &out, &top, collateral, &inputs))
            }
        },
        Command::Synth {
            settings,
            config,
            freq,
            seed,
            work,
            sweep,
            report,
        } => {
            if sweep {
                let report = report.unwrap_or_else(|| PathBuf::from("docs/resources.md"));
                synth::sweep(freq, &work, &report)
            } else if report.is_some() {
                // (clap's `requires` counts the flag's default `false` as given.)
                Err("--report is only used with --sweep (a single synth prints its report)".into())
            } else {
                config_from(&settings, config.as_deref())
                    .and_then(|cfg| synth::single(&cfg, freq, seed, &work))
            }
        }
        Command::Timing {
            settings,
            config,
            backend,
            out,
            svg,
        } => {
            let svg = svg.unwrap_or_else(|| out.with_extension("svg"));
            timing(&settings, config.as_deref(), backend, &out, &svg)
        }
        Command::Board { command } => board::run(command),
        Command::Demo { out } => demo::run(&out),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            warn(&format!("error: {e}"));
            ExitCode::from(2)
        }
    }
}

/// `--freq`: a positive, finite number of MHz (checked before any tool runs).
fn frequency_mhz(text: &str) -> Result<f64, String> {
    let shown = pmcg_sim::script::cut_long_tokens(text);
    match text.trim().parse::<f64>() {
        Ok(f) if f.is_finite() && f > 0.0 => Ok(f),
        Ok(_) => Err(format!("`{shown}` is not a positive, finite number of MHz")),
        Err(_) => Err(format!(
            "`{shown}` is not a number of MHz (e.g. 100 or 62.5)"
        )),
    }
}

/// `--seed`: nextpnr takes a C `int`, so 0 to 2^31 - 1 (checked before any tool runs).
fn nextpnr_seed(text: &str) -> Result<u32, String> {
    let shown = pmcg_sim::script::cut_long_tokens(text);
    match text.trim().parse::<u32>() {
        Ok(seed) if i32::try_from(seed).is_ok() => Ok(seed),
        _ => Err(format!(
            "`{shown}` is not a nextpnr seed: a whole number from 0 to {}",
            i32::MAX
        )),
    }
}

/// `--top`: see [`verilog_names::check_top`].
fn top_name(text: &str) -> Result<String, String> {
    verilog_names::check_top(text).map(|()| text.to_string())
}

type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

fn run_script(path: &Path, trace: bool, vcd: Option<&Path>, backend: Backend) -> CliResult {
    let text = read_text(path)?;
    let script = pmcg_sim::script::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let cfg = &script.config;
    if vcd.is_some() && !matches!(backend, Backend::Native) {
        return Err("--vcd is available with the native backend only".into());
    }
    if let Some(p) = vcd {
        output::check_distinct(&[("--vcd", p)], &[("--script", path)])?;
    }
    let mut vcd_status = None;
    let dut: Box<dyn Dut> = match backend {
        Backend::Model => Box::new(Model::new(cfg)),
        Backend::Native => {
            let mut native = NativeDut::new(cfg)?;
            if let Some(p) = vcd {
                native = native
                    .with_vcd(p)
                    .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
                vcd_status = Some(native.vcd_status());
            }
            Box::new(native)
        }
        Backend::Verilator => Box::new(VerilatorDut::new(cfg)?),
    };
    let result = replay(&script, dut, trace);
    // The driver (and with it the waveform) is dropped: the VCD file is complete or failed.
    let waveform_error = vcd_status.and_then(|s| s.take_error());
    match (vcd, waveform_error, result) {
        (Some(p), Some(e), _) => {
            let partial = output::remove_partial(p);
            Err(format!("cannot write {}: {e} ({partial})", p.display()).into())
        }
        (Some(p), None, Err(e)) => Err(format!("{e} ({})", output::remove_partial(p)).into()),
        (Some(p), None, Ok(code)) => {
            say!("waveform written to {}", p.display());
            Ok(code)
        }
        (None, _, result) => result,
    }
}

/// Runs `script` on `dut` checked against the reference model; consumes (drops) the design.
fn replay(script: &pmcg_sim::script::Script, dut: Box<dyn Dut>, trace: bool) -> CliResult {
    let cfg = &script.config;
    let checked = Checked::new(Model::new(cfg), dut);
    let mut driver = Driver::new(checked, cfg.lanes as usize);
    // Every script starts from reset: PRESETn low for one cycle before the first command, not
    // numbered. (The model starts in its reset state; the RTL would start from power-on values.)
    driver.reset(1);
    driver.cycle = 0;
    driver.dut.rebase();
    // A trace is its own progress display; otherwise a bar (on a terminal only), which lines on
    // standard output (failures) go around.
    let bar = if trace {
        indicatif::ProgressBar::hidden()
    } else {
        output::progress(script.cycles(), "cycles")
    };
    let mut stdout = output::AroundBar::new(&bar, std::io::stdout());
    let report =
        pmcg_sim::script::run_with_progress(script, &mut driver, trace, &mut stdout, &mut |done| {
            bar.set_position(done)
        })
        .map_err(output::stdout_error)?;
    bar.finish_and_clear();
    let mut ok = report.failed == 0;
    if let Some((cycle, expected, actual)) = driver.dut.mismatch {
        ok = false;
        say!(
            "MISMATCH at cycle {cycle}: reference model {expected:x?}, {} {actual:x?}",
            driver.dut.name()
        );
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Largest script or settings file read (`/dev/zero` or a wrong file must not exhaust memory).
const LARGEST_INPUT: u64 = 256 << 20;

/// The text of a script or settings file; errors name the path (and the line of bad UTF-8).
fn read_text(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(LARGEST_INPUT + 1).read_to_end(&mut bytes))
        .map_err(cannot)?;
    if bytes.len() as u64 > LARGEST_INPUT {
        return Err(format!(
            "cannot read {}: larger than {} MiB, not a script or settings file",
            path.display(),
            LARGEST_INPUT >> 20
        ));
    }
    pmcg_sim::script::decode_text(bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The configuration given by a settings file (if any) and KEY=VALUE settings, which override
/// the file's. A key given twice in the file, or twice on the command line, is an error.
fn config_from(
    settings: &[String],
    config: Option<&Path>,
) -> Result<PmcgConfig, Box<dyn std::error::Error>> {
    let key = |item: &str| item.split_once('=').map(|(k, _)| k.to_string());
    let mut given: Vec<String> = Vec::new();
    for item in settings {
        let k = key(item).filter(|k| !k.is_empty()).ok_or_else(|| {
            pmcg_sim::script::cut_long_tokens(&format!(
                "settings: expected KEY=VALUE, got `{item}`"
            ))
        })?;
        if given.contains(&k) {
            return Err(format!("settings: key `{k}` is given twice").into());
        }
        given.push(k);
    }
    // From the file: (line, item), without the keys the command line overrides.
    let from_file: Vec<(usize, String)> = match config {
        Some(p) => pmcg_sim::script::parse_settings(&read_text(p)?)
            .map_err(|e| format!("{}: {e}", p.display()))?
            .into_iter()
            .filter(|(_, item)| key(item).is_none_or(|k| !given.contains(&k)))
            .collect(),
        None => Vec::new(),
    };
    let items = from_file
        .iter()
        .map(|(_, i)| i.as_str())
        .chain(settings.iter().map(String::as_str));
    PmcgConfig::parse_kv(items).map_err(|e| {
        let message = pmcg_sim::script::cut_long_tokens(&e.to_string());
        // A key from the file: name the file and the line.
        match (
            config,
            from_file
                .iter()
                .find(|(_, i)| key(i).as_deref() == Some(&e.field)),
        ) {
            (Some(p), Some((line, _))) => format!("{}: line {line}: {message}", p.display()),
            _ => message,
        }
        .into()
    })
}

/// `gen`: the Verilog and JSON summary of `cfg` (and its collateral when asked), every output
/// checked against `inputs` before anything is written.
fn gen(
    cfg: &PmcgConfig,
    out: &Path,
    top: &str,
    collateral: bool,
    inputs: &[(&str, &Path)],
) -> CliResult {
    let verilog = out.join(format!("{top}.v"));
    let summary = out.join(format!("{top}.json"));
    let files = if collateral {
        pmcg_synth::collateral::generate(cfg, top)
    } else {
        Vec::new()
    };
    let paths: Vec<PathBuf> = files.iter().map(|(name, _)| out.join(name)).collect();
    let mut outputs: Vec<(&str, &Path)> = vec![("--out", &verilog), ("--out", &summary)];
    outputs.extend(paths.iter().map(|p| ("--out", p.as_path())));
    output::check_distinct(&outputs, inputs)?;
    let (path, _) = write_verilog(cfg, out, top)?;
    output::write_file(&summary, pmcg_synth::summary_json(cfg, top).as_bytes())?;
    say!(
        "wrote {} and {} ({})",
        path.display(),
        summary.display(),
        cfg.summary()
    );
    for ((_, text), path) in files.iter().zip(&paths) {
        output::write_file(path, text.as_bytes())?;
        say!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `gen --testbench SCRIPT`: the Verilog of the script's configuration (and its collateral when
/// asked) and `<top>_tb.v`.
fn gen_testbench(script: &Path, out: &Path, top: &str, collateral: bool) -> CliResult {
    let text = read_text(script)?;
    let parsed =
        pmcg_sim::script::parse(&text).map_err(|e| format!("{}: {e}", script.display()))?;
    let name = script
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tb = pmcg_sim::testbench::testbench(&parsed, &name, top)
        .map_err(|e| format!("{}: {e}", script.display()))?;
    let path = out.join(format!("{top}_tb.v"));
    output::check_distinct(&[("--out", &path)], &[("--testbench", script)])?;
    gen(
        &parsed.config,
        out,
        top,
        collateral,
        &[("--testbench", script)],
    )?;
    output::write_file(&path, tb.as_bytes())?;
    say!("wrote {}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// Writes `<out>/<top>.v` for `cfg`; returns its path and size in bytes.
pub(crate) fn write_verilog(
    cfg: &PmcgConfig,
    out: &Path,
    top: &str,
) -> Result<(PathBuf, usize), Box<dyn std::error::Error>> {
    let verilog = pmcg_synth::emit_verilog(cfg, top)?;
    let path = out.join(format!("{top}.v"));
    output::write_file(&path, verilog.as_bytes())?;
    Ok((path, verilog.len()))
}

fn timing(
    settings: &[String],
    config: Option<&Path>,
    backend: Backend,
    out: &Path,
    svg: &Path,
) -> CliResult {
    let inputs: Vec<(&str, &Path)> = config.iter().map(|p| ("--config", *p)).collect();
    output::check_distinct(&[("--out", out), ("--svg", svg)], &inputs)?;
    let cfg = config_from(settings, config)?;
    let verilator = match backend {
        Backend::Model => {
            return Err("timing is measured on the design: --backend native or verilator".into())
        }
        b => matches!(b, Backend::Verilator),
    };
    // Both outputs are checked before the measurements run.
    output::prepare_output(out)?;
    output::prepare_output(svg)?;
    timing::run(&cfg, verilator, out, svg)
}
