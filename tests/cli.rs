//! The command line as a user meets it: scripts on every backend, clear errors and exit codes
//! (0 passed, 1 an expectation or the reference model disagreed, 2 bad input), `gen`, the demo.
//!
//! ```text
//!   smmu-pmcg sim --script F [--trace] [--vcd W] [--backend B]  │ gen KEY=VALUE.. --out D │ demo
//! ```

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_smmu-pmcg"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pmcg-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn script(name: &str, text: &str) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn smoke() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/smoke.pmcg")
}

fn run_sim(path: &Path, extra: &[&str]) -> Output {
    bin()
        .args(["sim", "--script"])
        .arg(path)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn smoke_script_passes_on_every_backend() {
    let backends = common::cli_backends(&["model", "native", "verilator"]);
    for backend in backends {
        let o = run_sim(&smoke(), &["--backend", backend]);
        assert!(
            o.status.success(),
            "{backend}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        let last = stdout(&o).lines().last().unwrap_or("").to_string();
        assert_eq!(last, "12 passed, 0 failed", "{backend}");
    }
}

#[test]
fn failed_expectation_exits_1_with_line_and_values() {
    let p = script(
        "fail.pmcg",
        "config counters=4 counter_bits=32\nreset\nread 0xE04 expect 0x1   # CR resets to 0\nread 0xE04 expect 0\n",
    );
    let o = run_sim(&p, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.contains("line 3"), "{out}");
    assert!(out.contains("0x00000001") || out.contains("0x1"), "{out}");
    assert_eq!(out.lines().last(), Some("1 passed, 1 failed"));
}

#[test]
fn expect_msi_counts_the_msi_slaves_writes() {
    // Nothing overflows: no MSI, so `expect msi 1` fails naming the line and the count.
    let p = script(
        "msi.pmcg",
        "config counters=4 counter_bits=32\nreset\nexpect msi 0\nexpect msi 1 addr=0x1000\n",
    );
    let o = run_sim(&p, &["--backend", "model"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("FAIL line 4: expect msi: expected 1 write(s) addr=0x1000, got 0 write(s)"),
        "{out}"
    );
    assert_eq!(out.lines().last(), Some("1 passed, 1 failed"));
}

#[test]
fn malformed_scripts_exit_2_naming_the_line() {
    let bad = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/bad-syntax.pmcg");
    let o = run_sim(&bad, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 7"), "{}", stderr(&o));
    for (text, line) in [
        ("config\nfrobnicate 1\n", "line 2"),
        ("reset\n", "line 1"),
        ("config counters=99\n", "line 1"),
        ("config\nread 0x1_0000_0000\n", "line 2"),
        ("config\n\n# comment\nevent lane=3 ids=1\n", "line 4"),
    ] {
        let p = script("bad.pmcg", text);
        let o = run_sim(&p, &[]);
        assert_eq!(o.status.code(), Some(2), "{text:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(line), "{text:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{text:?}: {}", stderr(&o));
    }
    let o = run_sim(Path::new("/nonexistent/script.pmcg"), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
}

#[test]
fn trace_and_vcd() {
    let vcd = tmp("smoke.vcd");
    let o = run_sim(&smoke(), &["--trace", "--vcd", vcd.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o)
            .lines()
            .any(|l| l.starts_with("cycle ") && l.contains("read")),
        "{}",
        stdout(&o)
    );
    let wave = std::fs::read_to_string(&vcd).unwrap();
    assert!(wave.contains("$enddefinitions"), "not a VCD file");
    assert!(wave.contains("prdata"), "PRDATA missing from the waveform");
    let o = run_sim(
        &smoke(),
        &["--backend", "model", "--vcd", vcd.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2), "--vcd needs the native backend");
}

#[test]
fn gen_writes_deterministic_verilog_and_rejects_bad_configs() {
    let out = tmp("gen");
    let run = || {
        bin()
            .args(["gen", "counters=4", "counter_bits=32", "--out"])
            .arg(&out)
            .output()
            .unwrap()
    };
    let o = run();
    assert!(o.status.success(), "{}", stderr(&o));
    let first = std::fs::read(out.join("smmu_pmcg.v")).unwrap();
    assert!(run().status.success());
    assert_eq!(
        first,
        std::fs::read(out.join("smmu_pmcg.v")).unwrap(),
        "gen is not deterministic"
    );

    let cfg_file = script("cfg.txt", "config counters=8 # eight\nlanes=2\n");
    let o = bin()
        .args(["gen", "--config"])
        .arg(&cfg_file)
        .args(["--top", "pmcg_b", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v = std::fs::read_to_string(out.join("pmcg_b.v")).unwrap();
    assert!(v.contains("module pmcg_b(") && v.contains("counters=8") && v.contains("lanes=2"));

    for (arg, field) in [
        ("counter_bits=33", "counter_bits"),
        ("lanes=0", "lanes"),
        ("widgets=3", "widgets"),
    ] {
        let o = bin()
            .args(["gen", arg, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{arg}");
        assert!(stderr(&o).contains(field), "{arg}: {}", stderr(&o));
    }
    let o = bin()
        .args(["gen", "--frobnicate", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "unknown option");
    assert!(stderr(&o).contains("--frobnicate"));
}

#[test]
fn demo_passes() {
    let out = tmp("demo");
    let o = bin().args(["demo", "--out"]).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("reference model agreed"), "{text}");
    assert_eq!(text.lines().last(), Some("demo passed"));
    assert!(out.join("smmu_pmcg.v").exists());
}

/// Runs `timing` with `settings` on `backend`; returns its table (Markdown) and waveform (SVG),
/// after checking it exited 0.
fn run_timing(backend: &str, tag: &str, settings: &[&str]) -> (String, String) {
    let md = tmp(&format!("timing-{tag}-{backend}.md"));
    let svg = tmp(&format!("timing-{tag}-{backend}.svg"));
    let o = bin()
        .arg("timing")
        .args(settings)
        .args(["--backend", backend, "--out"])
        .arg(&md)
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{backend}: {}{}",
        stdout(&o),
        stderr(&o)
    );
    (
        std::fs::read_to_string(&md).unwrap(),
        std::fs::read_to_string(&svg).unwrap(),
    )
}

/// `timing --out F.md` without `--svg` puts its picture beside the table (F.svg), not over the
/// docs' (it used to default to docs/timing.svg whatever `--out` said).
#[test]
fn timing_puts_its_picture_beside_its_table() {
    let md = tmp("timing-beside.md");
    let svg = md.with_extension("svg");
    let _ = std::fs::remove_file(&svg);
    let o = bin()
        .args(["timing", "counters=4", "counter_bits=32", "--out"])
        .arg(&md)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    let picture = std::fs::read_to_string(&svg).unwrap_or_default();
    assert!(
        picture.contains("<svg") && picture.contains("Counter 0 (32 bits)"),
        "no picture of the 4x32 run at {}",
        svg.display()
    );
}

/// The row of a `timing` table whose path starts with `start` ("" when none does).
fn timing_row(table: &str, start: &str) -> String {
    table
        .lines()
        .find(|l| l.starts_with(&format!("| {start}")))
        .unwrap_or("")
        .to_string()
}

#[test]
fn timing_measures_the_documented_latencies() {
    let backends = common::cli_backends(&["native", "verilator"]);
    for backend in backends {
        let (table, picture) = run_timing(
            backend,
            "small",
            &["counters=4", "counter_bits=32", "lanes=2"],
        );
        let row = |start: &str| timing_row(&table, start);
        // docs/behaviour.md: event -> count 3 cycles; overflow edge -> IRQ two cycles later.
        assert!(
            row("lane event").contains("| k = 3 |"),
            "{backend}: {table}"
        );
        assert!(
            row("counter overflow (edge t) → IRQ").contains("| k = 2 "),
            "{backend}: {table}"
        );
        assert!(
            row("counter overflow (edge t) → OVS").contains("| k = 1 |"),
            "{backend}: {table}"
        );
        assert!(
            row("EVTYPER write").contains("| k = 1 |"),
            "{backend}: {table}"
        );
        assert!(
            row("StreamID-filtered lane event").contains("| k = 3 |"),
            "{backend}: {table}"
        );
        assert!(row("SMR write").contains("| k = 1 |"), "{backend}: {table}");
        // docs/behaviour.md "Reconfiguration": cycle counting from the second edge after a
        // CR.E write.
        assert!(
            row("CR.E write").contains("| k = 2 |"),
            "{backend}: {table}"
        );
        // docs/behaviour.md "MSI write master" and "Capture": AWVALID two cycles after the
        // overflow edge; a CAPR capture visible to the next access.
        assert!(
            row("counter overflow (edge t) → MSI AWVALID").contains("| k = 2 |"),
            "{backend}: {table}"
        );
        assert!(
            row("CAPR write").contains("| visible |"),
            "{backend}: {table}"
        );
        // docs/behaviour.md "APB4 completer": every read takes exactly one wait state, writes none.
        assert!(
            row("APB read wait states").contains("| 1 |"),
            "{backend}: {table}"
        );
        assert!(
            row("APB write wait states").contains("| 0 |"),
            "{backend}: {table}"
        );
        assert!(
            row("APB wait states of the EVTYPER and SMR writes").contains("| 0 |"),
            "{backend}: {table}"
        );
        assert!(
            picture.starts_with("<svg") && picture.contains("IRQ"),
            "{backend}: not the waveform"
        );
    }
}

/// With filter tables (docs/behaviour.md "Filter tables"): an EVTYPER or SMR write performed at
/// edge t applies to the events presented from cycle t + FILTER_TABLE_APPLY_EDGES, and holds the
/// bus until then (one wait state more). `timing` finds both on the pins, on every backend.
#[test]
fn timing_measures_the_filter_tables_rebuild() {
    use pmcg_hdl::regmap::FILTER_TABLE_APPLY_EDGES;
    for backend in common::cli_backends(&["native", "verilator"]) {
        let settings = ["counters=4", "counter_bits=32", "filter_tables=on"];
        let (table, _) = run_timing(backend, "tables", &settings);
        let row = |start: &str| timing_row(&table, start);
        let apply = format!("| k = {FILTER_TABLE_APPLY_EDGES} |");
        assert!(row("EVTYPER write").contains(&apply), "{backend}: {table}");
        assert!(row("SMR write").contains(&apply), "{backend}: {table}");
        assert!(
            row("APB wait states of the EVTYPER and SMR writes")
                .contains(&format!("| {} |", FILTER_TABLE_APPLY_EDGES + 1)),
            "{backend}: {table}"
        );
    }
}

#[test]
fn synth_reports_and_fails_loudly() {
    if !common::have_tool("yosys") || !common::have_tool("nextpnr-ice40") {
        return;
    }
    // A work directory a pasted Yosys script would split (space), end (`;`) and run a shell
    // command from (`!`): the flow must not care.
    let work = tmp("synth dir; !touch PWNED; x");
    // A frequency no iCE40 reaches: the report is printed, the exit code is 1, the path named.
    let o = bin()
        .args([
            "synth",
            "counters=2",
            "counter_bits=32",
            "--freq",
            "900",
            "--seed",
            "3",
            "--work",
        ])
        .arg(&work)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    // Placed with the seed asked for: nextpnr's report and log carry it in their names.
    assert!(out.contains("(nextpnr seed 3)"), "{out}");
    assert!(work.join("synth-2x32/report-seed3.json").is_file());
    assert!(!work.join("synth-2x32/report-seed1.json").exists());
    let cells: u64 = out
        .split("logic cells ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    // Two 32-bit counters and the APB register file cannot take fewer than 64 logic cells.
    assert!(cells > 64, "{out}");
    assert!(
        stderr(&o).contains("timing missed") && stderr(&o).contains("critical path"),
        "{}",
        stderr(&o)
    );
    for place in [
        work.clone(),
        work.join("synth-2x32"),
        std::env::current_dir().unwrap(),
    ] {
        assert!(
            !place.join("PWNED").exists(),
            "a shell command ran in {place:?}"
        );
    }
    // A bad configuration is an input error.
    let o = bin()
        .args(["synth", "counters=0", "--work"])
        .arg(&work)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("counters"));
}

/// The sweep's flow on a small configuration: one Yosys run, one nextpnr run per seed, and a row
/// whose figures match nextpnr's own reports (read here, not through the flow).
#[test]
fn sweep_places_one_netlist_with_each_seed() {
    if !common::have_tool("yosys") || !common::have_tool("nextpnr-ice40") {
        return;
    }
    let work = tmp("sweep-seeds");
    let cfg = pmcg_hdl::config::PmcgConfig::parse_kv(["counters=2", "counter_bits=32"]).unwrap();
    let runs = pmcg_synth::flow::run_seeds(&cfg, 900.0, &[1, 2], &work, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    let report = |seed: u32| -> serde_json::Value {
        let path = work.join(format!("report-seed{seed}.json"));
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    };
    let fmax = |seed| {
        report(seed)["fmax"]
            .as_object()
            .unwrap()
            .values()
            .map(|c| c["achieved"].as_f64().unwrap())
            .fold(f64::INFINITY, f64::min)
    };
    let (f1, f2) = (fmax(1), fmax(2));
    let lc = report(1)["utilization"]["ICESTORM_LC"]["used"]
        .as_u64()
        .unwrap();
    let row = runs.row("2x32");
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    // | 2x32 | LC (p%) | LC/bit | FF | BRAM | min / median | 900 MHz | path |
    assert_eq!(cells[1], "2x32", "{row}");
    assert!(cells[2].starts_with(&format!("{lc} (")), "{row}");
    // Two counters of 32 bits: 64 counter bits.
    assert_eq!(cells[3], format!("{:.1}", lc as f64 / 64.0), "{row}");
    // Two seeds: the median is their mean.
    assert_eq!(
        cells[6],
        format!("{:.1} / {:.1}", f1.min(f2), (f1 + f2) / 2.0),
        "{row}"
    );
    assert_eq!(cells[7], "**missed** (met on 0/2 seeds)", "{row}");
    let slowest = if f2 < f1 { 2 } else { 1 };
    assert!(cells[8].starts_with(&format!("seed {slowest}: ")), "{row}");
    // Yosys ran once: one netlist, one log; nextpnr once per seed.
    for seed in [1, 2] {
        assert!(work.join(format!("nextpnr-seed{seed}.log")).is_file());
    }
    assert!(!work.join("report-seed3.json").exists());
}

#[test]
fn missing_verilator_names_the_package() {
    // A PATH without Verilator: the Verilator backend must say what to install, not panic.
    let empty = tmp("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let o = bin()
        .args(["sim", "--backend", "verilator", "--script"])
        .arg(smoke())
        .env("PATH", &empty)
        .env("PMCG_VERILATOR_CACHE", tmp("no-cache"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("apt-get install verilator"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

/// The CLI resets the design before a script's first command: a script without `reset` sees the
/// reset values on every backend (the model, which starts in its reset state, and the RTL, which
/// would start from power-on values, agree from the first cycle), and cycle numbers start after
/// that reset.
#[test]
fn a_script_starts_from_reset_without_a_reset_command() {
    // SCR resets to READS_AS_ONE | NSMSI | NSRA and ROOTCR to ROOTCR_IMPL | NAO (register map);
    // power-on zeros would read 0.
    let map = pmcg_hdl::regmap::RegisterMap::new(
        &pmcg_hdl::config::PmcgConfig::parse_kv(["counters=4", "counter_bits=32", "realm=on"])
            .unwrap(),
    );
    let scr = map.reg(pmcg_hdl::regmap::RegId::Scr).reset();
    let rootcr = map.reg(pmcg_hdl::regmap::RegId::Rootcr).reset();
    assert!(scr != 0 && rootcr != 0);
    let p = script(
        "no-reset.pmcg",
        &format!(
            "config counters=4 counter_bits=32 realm=on\nread 0xE48 expect {rootcr:#x} root\nread 0xDF8 expect {scr:#x} s\n"
        ),
    );
    let backends = common::cli_backends(&["model", "native", "verilator"]);
    for backend in backends {
        let o = run_sim(&p, &["--backend", backend, "--trace"]);
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{backend}: {out}");
        assert!(out.contains("cycle 0: read 0x00e48"), "{backend}: {out}");
        assert_eq!(out.lines().last(), Some("2 passed, 0 failed"), "{backend}");
    }
}
