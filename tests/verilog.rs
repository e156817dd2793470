//! The Verilog we emit: deterministic, lint-clean apart from documented generator artifacts,
//! accepted by Icarus Verilog, and synthesizable by Yosys without latches.
//!
//! ```text
//!   PmcgConfig ──emit_verilog──► .v ──┬─► verilator --lint-only -Wall (allowed warnings only)
//!                                     ├─► iverilog (compiles)
//!                                     └─► yosys synth -top smmu_pmcg (no latches)
//! ```
//! Lint warnings we accept, and why (README "Verilog"):
//! - WIDTH: rust-hdl writes every literal 32 bits wide.
//! - DECLFILENAME: every module lives in one file whose name is not the module's.
//! - UNOPTFLAT: rust-hdl puts a module's combinational logic in one `always @(*)` block, so a
//!   counter's `inc` (written) and `ovf` (read) in the register file look circular to Verilator;
//!   there is no combinational loop (the native simulation settles, and `inc` depends on registers only).
//! - UNUSEDSIGNAL, only for PPROT bits 0 and 2 (only PPROT[1], Non-secure, has a meaning for the
//!   PMCG).

mod common;

use pmcg_hdl::config::PmcgConfig;
use pmcg_synth::{emit_verilog, EmitError, DEFAULT_TOP};
use std::path::PathBuf;
use std::process::Command;

fn write_tmp(name: &str, cfg: &PmcgConfig) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pmcg-verilog-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("smmu_pmcg.v");
    std::fs::write(&path, emit_verilog(cfg, DEFAULT_TOP).unwrap()).unwrap();
    path
}

fn lint_configs() -> Vec<(&'static str, PmcgConfig)> {
    let mut c = common::configs();
    // The Realm and MPAM ports and logic (PNSE, lane MPAM labels) exist only there.
    let realm = common::named_config("6x32 realm mpam 3 lanes");
    c.push(("realm-mpam", realm.1)); // no spaces: the name is part of a file path
                                     // The filter tables' module (hdl/src/filter_table.rs) exists only with filter_tables = on.
    let tables = common::named_config("9x40 filter tables realm 3 lanes sid12");
    c.push(("filter-tables", tables.1));
    c
}

#[test]
fn emission_is_deterministic_and_configuration_specific() {
    for (name, cfg) in common::configs() {
        let a = emit_verilog(&cfg, DEFAULT_TOP).unwrap();
        let b = emit_verilog(&cfg, DEFAULT_TOP).unwrap();
        assert_eq!(a, b, "{name}: two emissions differ");
        assert!(
            a.contains("module smmu_pmcg("),
            "{name}: top module missing"
        );
        assert!(
            a.contains(&cfg.summary()),
            "{name}: configuration not recorded in the header"
        );
    }
    let small = emit_verilog(&common::configs()[1].1, DEFAULT_TOP).unwrap();
    let default = emit_verilog(&PmcgConfig::default(), DEFAULT_TOP).unwrap();
    assert_ne!(small, default);
    let renamed = emit_verilog(&PmcgConfig::default(), "my_pmcg").unwrap();
    assert!(renamed.contains("module my_pmcg(") && !renamed.contains("module smmu_pmcg("));
}

#[test]
fn emission_rejects_bad_input() {
    assert!(matches!(
        emit_verilog(&PmcgConfig::default(), "bad name"),
        Err(EmitError::TopName(_))
    ));
    assert!(matches!(
        emit_verilog(&PmcgConfig::default(), "9lives"),
        Err(EmitError::TopName(_))
    ));
    let cfg = PmcgConfig {
        counters: 65,
        ..PmcgConfig::default()
    };
    match emit_verilog(&cfg, DEFAULT_TOP) {
        Err(EmitError::Config(e)) => assert_eq!(e.field, "counters"),
        other => panic!("expected a configuration error, got {other:?}"),
    }
}

fn allowed_warning(line: &str) -> bool {
    let category = line
        .strip_prefix("%Warning-")
        .and_then(|r| r.split(':').next())
        .unwrap_or("");
    match category {
        "WIDTH" | "DECLFILENAME" | "UNOPTFLAT" => true,
        // PPROT[2,0]: only PPROT[1] matters. BRESP[0]: only BRESP[1] tells an error (SLVERR,
        // DECERR) from OKAY/EXOKAY. core_*: the wrapper's wires for the core's fixed-width
        // outputs, of which a configuration uses a slice (AWADDR's pa_bits, IRQ_CFG2's MEMATTR
        // and SH, one export bit per counter) or none (the MSI and capture outputs of a
        // configuration without them). dec$evc_sel / dec$arr_sel: the address decoder's 64-bit
        // one-hot element selects, of which a configuration uses one bit per counter; evc_sel
        // again as the match registers' input port (match_regs.rs). hb$ready: the bank's "prefetch
        // holds the addressed counter", checked by its block-level tests (tests/hi_bank.rs); the
        // register file relies on the hold's length instead.
        // With 32-bit counters there is no upper bank: the register file's values for it
        // (`bank_wr_val`, `wr_m1`, `wr_ones`) go nowhere; `at_max_v`, `m_at_max_v`: one bit per
        // counter.
        "UNUSEDSIGNAL" => {
            line.contains("'pprot'[2,0]")
                || line.contains("of signal are not used: 'dec$evc_sel'[63:")
                || line.contains("of signal are not used: 'evc_sel'[63:")
                || line.contains("of signal are not used: 'dec$arr_sel'[63:")
                || line.contains("'bresp'[0]")
                || line.contains("Signal is not used: 'hb$ready'")
                || line.contains("Signal is not used: 'bank_wr_val'")
                || line.contains("Signal is not used: 'wr_m1'")
                || line.contains("Signal is not used: 'wr_ones'")
                || line.contains("of signal are not used: 'at_max_v'[63:")
                || line.contains("of signal are not used: 'm_at_max_v'[63:")
                // The filter tables' hit words: 64 bits, one per counter.
                || line.contains("of signal are not used: 'tab_hit$")
                // The match block's CNTEN and load select (filter_match.rs): 64 bits, one per
                // counter.
                || line.contains("of signal are not used: 'cnten'[63:")
                || line.contains("of signal are not used: 'ld_sel'[63:")
                || line.contains("of signal are not used: 'core_")
                || line.contains("Signal is not used: 'core_")
        }
        _ => false,
    }
}

/// The filter tables' module (`...$regs$ftab`, hdl/src/filter_table.rs, found by the line
/// number the warning gives): without filter tables it is `FilterTable::absent`, the ports with
/// every output 0, so its inputs are unused; with them, its ports and rebuild registers are 32
/// bits (StreamID bytes beyond `sid_bits` unused) and its column decode 64 (columns beyond
/// `counters` unused).
fn filter_table_unused(line: &str, verilog: &str) -> bool {
    if !line.starts_with("%Warning-UNUSEDSIGNAL") {
        return false;
    }
    let Some(n) = line
        .split(".v:")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.parse::<usize>().ok())
    else {
        return false;
    };
    let module = verilog
        .lines()
        .take(n)
        .filter(|l| l.starts_with("module "))
        .last()
        .unwrap_or("");
    let signal = [
        "clock",
        "rst",
        "sid$",
        "start",
        "col",
        "care",
        "val",
        "cur_care",
        "cur_val",
        "prev_care",
        "prev_val",
        "col_hot",
    ]
    .iter()
    .any(|p| {
        line.contains(&format!("Signal is not used: '{p}"))
            || line.contains(&format!("Bits of signal are not used: '{p}"))
    });
    module.contains("$regs$ftab(") && signal
}

#[test]
fn verilator_lint_has_only_documented_warnings() {
    if !common::have_tool("verilator") {
        return;
    }
    for (name, cfg) in lint_configs() {
        let path = write_tmp(name, &cfg);
        let out = Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", DEFAULT_TOP])
            .arg(&path)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stderr);
        let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("%Error")).collect();
        let verilog = std::fs::read_to_string(&path).unwrap();
        let bad: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("%Warning-") && !allowed_warning(l))
            .filter(|l| !filter_table_unused(l, &verilog))
            .collect();
        assert!(
            errors.is_empty() || errors.iter().all(|l| l.contains("Exiting due to")),
            "{name}: lint errors:\n{}",
            errors.join("\n")
        );
        assert!(
            bad.is_empty(),
            "{name}: undocumented lint warnings:\n{}",
            bad.join("\n")
        );
    }
}

#[test]
fn iverilog_compiles() {
    if !common::have_tool("iverilog") {
        return;
    }
    for (name, cfg) in lint_configs() {
        let path = write_tmp(name, &cfg);
        let out = Command::new("iverilog")
            .args(["-o", "/dev/null", "-s", DEFAULT_TOP])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: iverilog failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn yosys_synthesizes_without_latches() {
    if !common::have_tool("yosys") {
        return;
    }
    // The 64-counter default takes minutes in Yosys; the resource sweep covers it.
    for (name, cfg) in lint_configs().into_iter().filter(|(n, _)| *n != "default") {
        let path = write_tmp(name, &cfg);
        let script = format!(
            "read_verilog {}; synth -top {DEFAULT_TOP}; select -assert-none t:$dlatch t:$_DLATCH_* t:$_SR_* t:$dlatchsr",
            path.display()
        );
        let out = Command::new("yosys")
            .args(["-q", "-p", &script])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: yosys failed or found latches:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
