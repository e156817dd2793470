//! Shared by the integration tests: the configurations they use and the three backends.
//!
//! ```text
//!   for_each_backend(cfg, |d: &mut Driver<Box<dyn Dut>>| ...)   runs the same test on
//!       the reference model, the native RustHDL simulation and the emitted Verilog (Verilator)
//! ```
//! A test that passes on the native simulation alone proves nothing about the Verilog we ship, so
//! every directed test goes through `for_each_backend`. Verilator is required when
//! `PMCG_REQUIRE_TOOLS=1` (CI sets it); otherwise a machine without it runs model and native
//! and says so on stderr.
#![allow(dead_code)]

use pmcg_hdl::config::PmcgConfig;
use pmcg_sim::model::Model;
use pmcg_sim::native::NativeDut;
use pmcg_sim::pins::{Driver, Dut};
use pmcg_sim::vdut::VerilatorDut;

/// A qualifying overflow at edge o (INTEN[n] and IRQ_CTRL.IRQEN = 1 in cycle o) pulses `irq` in
/// cycle o + IRQ_LATENCY only (docs/behaviour.md "Wired interrupt": the overflow is registered
/// per counter at edge o, the OR over the counters is taken in cycle o+1).
pub const IRQ_LATENCY: u64 = 2;
/// A qualifying overflow at edge o with no MSI outstanding raises AWVALID and WVALID in cycle
/// o + MSI_LATENCY (docs/behaviour.md "MSI write master": Issue, at edge o+1).
pub const MSI_LATENCY: u64 = 2;

/// Lane inputs presented in cycle e are counted at edge e + COUNT_DELAY and seen by a read set up
/// in cycle e + COUNT_DELAY (performed in its first access cycle e + COUNT_DELAY + 1) or later
/// (docs/behaviour.md "Event lanes and counting": registered at edge e, matched into the match
/// register at edge e+1).
pub const COUNT_DELAY: u64 = 2;

/// A cycle counter (event 0) counts at edge t when it was enabled (CR.E and CNTEN[n]) in cycle
/// t-1, so an enable written at edge w is first counted at edge w + CYCLE_ENABLE_DELAY, and a
/// disable written at edge w last counted at edge w + CYCLE_ENABLE_DELAY - 1 (docs/behaviour.md
/// "Reconfiguration"): a window from an enable at edge a to a disable at edge b counts b - a.
pub const CYCLE_ENABLE_DELAY: u64 = 2;

/// The configurations the directed tests share (each Verilator model is built once and cached).
pub fn configs() -> Vec<(&'static str, PmcgConfig)> {
    vec![
        ("default", PmcgConfig::default()),
        (
            "small",
            PmcgConfig::parse_kv([
                "counters=4",
                "counter_bits=32",
                "sid_bits=8",
                "secure=off",
                "reloc_ctrs=off",
                "capture=off",
            ])
            .unwrap(),
        ),
        (
            "odd",
            PmcgConfig::parse_kv([
                "counters=7",
                "counter_bits=36",
                "lanes=3",
                "sid_filter=global",
                "msi=off",
                "ats=on",
                "impdef=0x80,0x91",
                "page1_offset=0x20000",
            ])
            .unwrap(),
        ),
    ]
}

/// Corner configurations of the differential sweep (tests/differential.rs); tests that need the
/// same corner take it by name so that its Verilator model is built once.
pub fn corner_configs() -> Vec<(&'static str, PmcgConfig)> {
    let corners: [(&str, &[&str]); 9] = [
        (
            "1x64 sid1",
            &["counters=1", "counter_bits=64", "sid_bits=1", "capture=off"],
        ),
        (
            "16x48 8 lanes sid32",
            &[
                "counters=16",
                "counter_bits=48",
                "lanes=8",
                "sid_bits=32",
                "secure=off",
            ],
        ),
        (
            "5x40 4 lanes",
            &[
                "counters=5",
                "counter_bits=40",
                "lanes=4",
                "reloc_ctrs=off",
                "msi=off",
            ],
        ),
        (
            "64x32 4 lanes sid32",
            &[
                "counter_bits=32",
                "lanes=4",
                "sid_bits=32",
                "ats=on",
                "capture=off",
            ],
        ),
        (
            "3x44 global",
            &[
                "counters=3",
                "counter_bits=44",
                "sid_filter=global",
                "impdef=0x1234",
            ],
        ),
        (
            "6x32 realm mpam 3 lanes",
            &[
                "counters=6",
                "counter_bits=32",
                "lanes=3",
                "sid_bits=12",
                "realm=on",
                "mpam_filter=on",
                "msi_mpam=on",
                "impdef=0x80,0x81,0x82",
                "impdef_global=0x81",
                "impdef_nonattr=0x82",
            ],
        ),
        (
            "32x32 filter tables",
            &["counters=32", "counter_bits=32", "filter_tables=on"],
        ),
        (
            "9x40 filter tables realm 3 lanes sid12",
            &[
                "counters=9",
                "counter_bits=40",
                "lanes=3",
                "sid_bits=12",
                "realm=on",
                "filter_tables=on",
            ],
        ),
        (
            "4x36 mpam global no-secure",
            &[
                "counters=4",
                "counter_bits=36",
                "secure=off",
                "mpam_filter=on",
                "sid_filter=global",
                "sid_bits=28",
                "impdef=0x90",
                "impdef_nonattr=0x90",
            ],
        ),
    ];
    corners
        .into_iter()
        .map(|(name, kv)| (name, PmcgConfig::parse_kv(kv.iter().copied()).unwrap()))
        .collect()
}

/// A shared or corner configuration by name, with its name.
pub fn named_config(name: &str) -> (String, PmcgConfig) {
    configs()
        .into_iter()
        .chain(corner_configs())
        .find(|(n, _)| *n == name)
        .map(|(n, c)| (n.to_string(), c))
        .unwrap_or_else(|| panic!("no shared or corner configuration `{name}`"))
}

/// Small configurations for the counter widths the shared ones do not cover (40, 44, 48 bits,
/// and 64 bits with 3 lanes), shared by tests/counting.rs and tests/split_writes.rs so that each
/// Verilator model is built once. They carry 8, 4, 2 and 3 lanes so multi-lane counting crosses
/// the carry; `w48x2` has IMPLEMENTATION DEFINED events above 0xFF (outside the CEID range).
pub fn wide_config(name: &str) -> (String, PmcgConfig) {
    let (bits, counters, lanes, impdef) = match name {
        "w40x8" => ("40", "2", "8", "none"),
        "w44x4" => ("44", "4", "4", "none"),
        "w48x2" => ("48", "4", "2", "0x1FF,0xFFFE"),
        "w64x3" => ("64", "2", "3", "none"),
        _ => panic!("no wide configuration `{name}`"),
    };
    let items = [
        format!("counters={counters}"),
        format!("counter_bits={bits}"),
        format!("lanes={lanes}"),
        format!("impdef={impdef}"),
        "sid_bits=8".to_string(),
        "secure=off".to_string(),
        "msi=off".to_string(),
        "capture=off".to_string(),
        "reloc_ctrs=off".to_string(),
    ];
    let cfg = PmcgConfig::parse_kv(items.iter().map(|s| s.as_str())).unwrap();
    (name.to_string(), cfg)
}

/// The base seed of randomized tests: `PMCG_SEED`, else the time (each test adds its own salt
/// and prints the base, so a run can be reproduced).
pub fn base_seed() -> u64 {
    std::env::var("PMCG_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0)
        })
}

/// CI sets PMCG_REQUIRE_TOOLS=1: then a missing Verilator/iverilog/Yosys fails the test.
pub fn tools_required() -> bool {
    std::env::var("PMCG_REQUIRE_TOOLS")
        .map(|v| v == "1")
        .unwrap_or(false)
}

/// The backend names `PMCG_BACKENDS` selects: a comma list of `model`, `native` and
/// `verilator` (spaces ignored, in any order); unset or empty selects all three. An unknown name
/// panics (a typo must not silently skip a backend). With PMCG_REQUIRE_TOOLS=1 a selected
/// Verilator must be installed; a Verilator left out of the list is not required.
pub fn selected_backends() -> Vec<&'static str> {
    const ALL: [&str; 3] = ["model", "native", "verilator"];
    let list = std::env::var("PMCG_BACKENDS").unwrap_or_default();
    if list.trim().is_empty() {
        return ALL.to_vec();
    }
    let mut v: Vec<&'static str> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let b = ALL.iter().copied().find(|b| *b == name).unwrap_or_else(|| {
            panic!("PMCG_BACKENDS: unknown backend `{name}` (model, native, verilator)")
        });
        if !v.contains(&b) {
            v.push(b);
        }
    }
    // Always in the order model, native, verilator.
    v.sort_by_key(|b| ALL.iter().position(|a| a == b));
    v
}

/// The CLI `--backend` names among `among` that `PMCG_BACKENDS` selects, in `among`'s order;
/// `verilator` only when it is installed (`have_tool`: required with PMCG_REQUIRE_TOOLS=1).
pub fn cli_backends(among: &[&'static str]) -> Vec<&'static str> {
    let selected = selected_backends();
    among
        .iter()
        .copied()
        .filter(|b| selected.contains(b))
        .filter(|b| *b != "verilator" || have_tool("verilator"))
        .collect()
}

/// Whether `PMCG_BACKENDS` selects the backend `name`.
pub fn backend_selected(name: &str) -> bool {
    selected_backends().contains(&name)
}

/// The backends for `cfg` that `PMCG_BACKENDS` selects (default: model, native and, when
/// available, Verilator).
pub fn backends(cfg: &PmcgConfig) -> Vec<Box<dyn Dut>> {
    let mut v: Vec<Box<dyn Dut>> = Vec::new();
    for b in selected_backends() {
        match b {
            "model" => v.push(Box::new(Model::new(cfg))),
            "native" => v.push(Box::new(NativeDut::new(cfg).unwrap())),
            _ => match VerilatorDut::new(cfg) {
                Ok(d) => v.push(Box::new(d)),
                Err(e) if !tools_required() => eprintln!("note: Verilator backend skipped: {e}"),
                Err(e) => panic!("Verilator backend required (PMCG_REQUIRE_TOOLS=1): {e}"),
            },
        }
    }
    v
}

/// The block RAMs (`SB_RAM40_4K`) in a Yosys `stat` report of an iCE40 synthesis: the last
/// count (the design's total, after the per-module ones), or None when there is none.
pub fn block_rams(stat: &str) -> Option<u64> {
    stat.lines()
        .filter_map(|l| l.trim().strip_prefix("SB_RAM40_4K"))
        .filter_map(|n| n.trim().parse::<u64>().ok())
        .next_back()
}

/// Whether `tool` is on PATH; without it a test is skipped (with a note) unless tools are required.
pub fn have_tool(tool: &str) -> bool {
    let found = std::process::Command::new(tool)
        .arg("-V")
        .output()
        .map(|_| true)
        .unwrap_or(false);
    if !found {
        assert!(
            !tools_required(),
            "{tool} is required (PMCG_REQUIRE_TOOLS=1) but not installed"
        );
        eprintln!(
            "note: {tool} not installed, check skipped (scripts/install-deps.sh installs it)"
        );
    }
    found
}

/// Runs `test` on a freshly reset driver for every backend; a failure names the backend.
pub fn for_each_backend(cfg: &PmcgConfig, test: impl Fn(&mut Driver<Box<dyn Dut>>)) {
    for dut in backends(cfg) {
        let name = dut.name();
        let mut d = Driver::new(dut, cfg.lanes as usize);
        d.reset(1);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(&mut d)));
        if let Err(e) = result {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("backend `{name}`: {msg}");
        }
    }
}

/// Register helpers and the pin recorder of the interrupt, MSI and capture tests.
pub mod pmcg;
pub mod sid_modes;

/// Runs each of `scripts` (tests/scripts/) through the CLI on every backend `PMCG_BACKENDS`
/// selects: each run also checks the reference model in lock-step, every output every cycle,
/// and must end with "N passed, 0 failed" for some N > 0.
pub fn scripts_pass_on_every_backend(scripts: &[&str]) {
    let backends = cli_backends(&["model", "native", "verilator"]);
    for script in scripts {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/scripts")
            .join(script);
        for backend in &backends {
            let o = std::process::Command::new(env!("CARGO_BIN_EXE_smmu-pmcg"))
                .args(["sim", "--script"])
                .arg(&path)
                .args(["--backend", backend])
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&o.stdout);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{script} on {backend}:\n{stdout}{}",
                String::from_utf8_lossy(&o.stderr)
            );
            let last = stdout.lines().last().unwrap_or("");
            assert!(
                last.ends_with(" passed, 0 failed") && !last.starts_with("0 passed"),
                "{script} on {backend}: {last}"
            );
        }
    }
}

/// Settles a RustHDL block on its own (a block test's native backend): whole-block passes until
/// nothing changes; panics naming `what` when `max_passes` do not settle it.
pub fn settle_block(block: &mut dyn rust_hdl::prelude::Block, what: &str, max_passes: usize) {
    for _ in 0..max_passes {
        block.update_all();
        if !block.has_changed() {
            return;
        }
    }
    panic!("{what} did not settle in {max_passes} passes");
}

/// The Verilator model of a block emitted alone (`verilog`, top module `top`; a block test's
/// Verilator backend) and the handles of its ports `names`, in order; panics naming `what`.
pub fn block_model<const N: usize>(
    verilog: &str,
    top: &str,
    what: &str,
    names: [&str; N],
) -> (pmcg_sim::verilator::VerilatedModel, [usize; N]) {
    let m = pmcg_sim::verilator::VerilatedModel::build(verilog, top, &pmcg_sim::vdut::cache_dir())
        .unwrap_or_else(|e| panic!("Verilator build of {what}: {e}"));
    let ports = names.map(|n| {
        m.port(n)
            .unwrap_or_else(|| panic!("{what} has no port `{n}`"))
    });
    (m, ports)
}
