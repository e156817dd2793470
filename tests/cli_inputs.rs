//! Malformed and hostile input to the command line, one test per class of issue 10: the binary
//! never panics, exits 2 with a message naming the path, line or key, leaves no partial output,
//! never lets a path be interpreted, and shows progress only on a terminal.
//!
//! ```text
//!   I/O errors ─ paths in tool scripts ─ --top names ─ output = input ─ messages ─ progress
//!        each: the real binary (or the flow's own Yosys step) on the bad input ─► exit code,
//!        stderr, and what is (not) left on disk
//! ```

mod common;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_smmu-pmcg"))
}

/// A fresh directory per test (tests run in parallel).
fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir()
        .join(format!("pmcg-cli-inputs-{}", std::process::id()))
        .join(test);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(path: &Path, text: impl AsRef<[u8]>) -> PathBuf {
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Exit 2, no panic, and stderr contains every needle.
#[track_caller]
fn assert_input_error(o: &Output, needles: &[&str]) {
    let e = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "stdout: {}\nstderr: {e}",
        stdout(o)
    );
    assert!(!e.contains("panicked"), "{e}");
    for n in needles {
        assert!(e.contains(n), "`{n}` missing from: {e}");
    }
}

fn smoke() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/smoke.pmcg")
}

fn dev_full() -> File {
    File::options().write(true).open("/dev/full").unwrap()
}

fn is_char_device(p: &str) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(p).is_ok_and(|m| m.file_type().is_char_device())
}

// ---------------------------------------------------------------------------------------------
// Class 1: I/O errors
// ---------------------------------------------------------------------------------------------

#[test]
fn io_errors_exit_2_naming_the_path_and_leave_no_partial_output() {
    let d = dir("io");
    let long = write(
        &d.join("long.pmcg"),
        "config counters=4 counter_bits=32\nidle 20000\n",
    );

    // A file-size limit hit mid-run (SIGXFSZ would kill the process; rust-hdl's VCD writer
    // would panic on the error): exit 2 naming the file, and the cut file removed.
    let vcd = d.join("wave.vcd");
    let o = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -f 64 && exec "$0" sim --script "$1" --vcd "$2""#)
        .arg(env!("CARGO_BIN_EXE_smmu-pmcg"))
        .arg(&long)
        .arg(&vcd)
        .output()
        .unwrap();
    assert_input_error(&o, &[vcd.to_str().unwrap(), "File too large", "removed"]);
    assert!(!vcd.exists(), "the partial waveform is left behind");

    // The same limit on a whole-file output (gen's Verilog, about 1 MB): named, and neither the
    // cut file nor its temporary is left.
    let gen_out = d.join("gen");
    let o = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -f 64 && exec "$0" gen --out "$1""#)
        .arg(env!("CARGO_BIN_EXE_smmu-pmcg"))
        .arg(&gen_out)
        .output()
        .unwrap();
    assert_input_error(&o, &["smmu_pmcg.v", "File too large"]);
    let left: Vec<_> = std::fs::read_dir(&gen_out).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");

    // A full device: named; a device is never removed or replaced.
    let o = bin()
        .args(["sim", "--script"])
        .arg(smoke())
        .args(["--vcd", "/dev/full"])
        .output()
        .unwrap();
    assert_input_error(&o, &["cannot write /dev/full", "No space left"]);
    assert!(is_char_device("/dev/full"), "/dev/full was replaced");

    // Standard output full: every command that prints says so and exits 2 (it panicked).
    let out = d.join("out");
    let md = d.join("t.md");
    let svg = d.join("t.svg");
    let script = smoke();
    let runs: Vec<(&str, Vec<&std::ffi::OsStr>)> = vec![
        (
            "gen",
            vec!["gen".as_ref(), "--out".as_ref(), out.as_os_str()],
        ),
        (
            "demo",
            vec!["demo".as_ref(), "--out".as_ref(), out.as_os_str()],
        ),
        (
            "timing",
            vec![
                "timing".as_ref(),
                "counters=4".as_ref(),
                "counter_bits=32".as_ref(),
                "--out".as_ref(),
                md.as_os_str(),
                "--svg".as_ref(),
                svg.as_os_str(),
            ],
        ),
        (
            "sim",
            vec!["sim".as_ref(), "--script".as_ref(), script.as_os_str()],
        ),
    ];
    for (name, args) in &runs {
        let o = bin().args(args).stdout(dev_full()).output().unwrap();
        assert_input_error(&o, &["cannot write to standard output", "No space left"]);
        assert!(is_char_device("/dev/full"), "{name}");
    }

    // Standard output a pipe closed by its reader (`| head -1`): EPIPE is an error, not a panic.
    let mut child = bin()
        .args(["demo", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_input_error(&o, &["cannot write to standard output", "Broken pipe"]);

    // An output file that cannot be written: named, and checked before the measurements run
    // (nothing printed), and nothing left beside it.
    let o = bin()
        .args(["timing", "--out", "/dev/full", "--svg"])
        .arg(&svg)
        .output()
        .unwrap();
    assert_input_error(&o, &["cannot write /dev/full"]);
    let blocked = write(&d.join("a-file"), "not a directory");
    let o = bin()
        .args(["timing", "--out"])
        .arg(blocked.join("t.md"))
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    assert_input_error(&o, &[blocked.to_str().unwrap()]);
    assert_eq!(
        stdout(&o),
        "",
        "the measurements ran before the output was checked"
    );
    let o = bin().args(["gen", "--out"]).arg(&blocked).output().unwrap();
    assert_input_error(&o, &[blocked.to_str().unwrap()]);
    let leftovers: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-") || n.contains(".probe-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

// ---------------------------------------------------------------------------------------------
// Class 2: synth: paths never interpreted, arguments checked before any tool runs
// ---------------------------------------------------------------------------------------------

#[test]
fn synth_never_interprets_paths() {
    // A work directory whose name Yosys would split at the space, end at `;` and run as a shell
    // command after `!` if it were pasted into a Yosys script.
    let d = dir("paths");
    let work = d.join(r#"a b; !touch PWNED; "c'"#);
    std::fs::create_dir_all(&work).unwrap();
    let argv: Vec<String> = pmcg_synth::flow::yosys_command(&work)
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let text = work.to_string_lossy();
    assert!(
        argv.iter()
            .all(|a| !a.contains(text.as_ref()) && !a.contains("PWNED")),
        "{argv:?}"
    );
    if common::have_tool("yosys") {
        // A tiny design in place of the PMCG: the flow's own Yosys step must read and write the
        // files in that directory and run nothing else.
        write(
            &work.join("smmu_pmcg.v"),
            "module smmu_pmcg(input wire PCLK, input wire D, output reg Q);\n\
             always @(posedge PCLK) Q <= D;\nendmodule\n",
        );
        write(
            &work.join("harness.v"),
            "module pmcg_harness(input wire PCLK, input wire SIN, output wire SOUT);\n\
             smmu_pmcg dut(.PCLK(PCLK), .D(SIN), .Q(SOUT));\nendmodule\n",
        );
        pmcg_synth::flow::synthesize(&work).unwrap_or_else(|e| panic!("{e}"));
        assert!(work.join("netlist.json").is_file());
        let stat = std::fs::read_to_string(work.join("stat.txt")).unwrap();
        assert!(stat.contains("SB_DFF"), "{stat}");
        for place in [&work, &d, &std::env::current_dir().unwrap()] {
            assert!(
                !place.join("PWNED").exists(),
                "a shell command ran in {place:?}"
            );
        }
    }

    // --freq: a positive, finite number, refused before anything runs (the work directory is
    // not even created).
    let unused = d.join("unused");
    for freq in ["nan", "inf", "-inf", "0", "-5", "1e999", "abc", ""] {
        let o = bin()
            .args(["synth", "counters=4", &format!("--freq={freq}"), "--work"])
            .arg(&unused)
            .output()
            .unwrap();
        assert_input_error(&o, &["--freq"]);
        assert!(!unused.exists(), "{freq}: something ran");
    }

    // --seed: nextpnr's seed, a whole number from 0 to 2^31 - 1, refused before anything runs.
    for seed in [
        "abc",
        "-1",
        "1.5",
        "",
        "2147483648",
        "99999999999999999999",
        "0x10",
    ] {
        let o = bin()
            .args(["synth", "counters=4", &format!("--seed={seed}"), "--work"])
            .arg(&unused)
            .output()
            .unwrap();
        assert_input_error(&o, &["--seed", "0 to 2147483647"]);
        assert!(!unused.exists(), "{seed}: something ran");
    }
    let o = bin()
        .args(["synth", "counters=4", "--seed", "-1", "--work"])
        .arg(&unused)
        .output()
        .unwrap();
    assert_input_error(&o, &["--seed", "`-1`"]);

    // --sweep runs its own configurations: settings it would ignore are refused.
    let cfg = write(&d.join("cfg.txt"), "counters=4\n");
    for (args, needle) in [
        (
            vec!["synth", "--sweep", "counters=4"],
            "cannot be used with",
        ),
        (
            vec!["synth", "--sweep", "--config", cfg.to_str().unwrap()],
            "cannot be used with",
        ),
        (vec!["synth", "counters=4", "--report", "x.md"], "--sweep"),
        // The sweep places with its own seeds.
        (
            vec!["synth", "--sweep", "--seed", "2"],
            "cannot be used with",
        ),
    ] {
        let o = bin()
            .args(&args)
            .arg("--work")
            .arg(&unused)
            .output()
            .unwrap();
        assert_input_error(&o, &[needle]);
        assert!(!unused.exists(), "{args:?}: something ran");
    }

    // Every output path is checked before the first tool runs.
    let blocked = write(&d.join("a-file"), "x");
    let o = bin()
        .args(["synth", "--sweep", "--report"])
        .arg(blocked.join("resources.md"))
        .arg("--work")
        .arg(&unused)
        .output()
        .unwrap();
    assert_input_error(&o, &[blocked.to_str().unwrap()]);
    assert!(!unused.exists());
    let o = bin()
        .args(["synth", "counters=4", "--work"])
        .arg(&blocked)
        .output()
        .unwrap();
    assert_input_error(&o, &[blocked.to_str().unwrap()]);
    assert_eq!(stdout(&o), "");
}

// ---------------------------------------------------------------------------------------------
// Class 3: gen --top
// ---------------------------------------------------------------------------------------------

#[test]
fn gen_top_rejects_keywords_and_non_identifiers() {
    let d = dir("top");
    let out = d.join("out");
    // Keywords from each generation of the standards: Verilog-1995, 2001, 2005, SystemVerilog.
    for top in [
        "module",
        "endmodule",
        "wire",
        "generate",
        "uwire",
        "logic",
        "always_ff",
        "interface",
        "checker",
        "nettype",
    ] {
        let o = bin()
            .args(["gen", "--top", top, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert_input_error(&o, &[top, "keyword"]);
    }
    for top in [
        "",
        "1abc",
        "a-b",
        "a b",
        "x;y",
        "a$b",
        "../evil",
        "caf\u{e9}",
    ] {
        let o = bin()
            .args(["gen", "--top", top, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert_input_error(&o, &["plain Verilog identifier"]);
    }
    let long = "a".repeat(300);
    let o = bin()
        .args(["gen", "--top", &long, "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_input_error(&o, &["at most"]);
    assert!(!out.exists(), "a rejected name wrote files");
    // Case matters in Verilog: `Module` is an ordinary identifier.
    let o = bin()
        .args([
            "gen",
            "counters=1",
            "counter_bits=32",
            "--top",
            "Module",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.join("Module.v").is_file());
}

// ---------------------------------------------------------------------------------------------
// Class 4: an output equal to an input
// ---------------------------------------------------------------------------------------------

#[test]
fn outputs_equal_to_inputs_are_refused() {
    let d = dir("same");
    let script = write(&d.join("s.pmcg"), std::fs::read(smoke()).unwrap());
    let original = std::fs::read(&script).unwrap();
    std::fs::create_dir_all(d.join("sub")).unwrap();
    std::os::unix::fs::symlink(&script, d.join("link.pmcg")).unwrap();
    std::fs::hard_link(&script, d.join("hard.pmcg")).unwrap();
    // The same file by its name, through `..`, a symbolic link and a hard link.
    for vcd in [
        script.clone(),
        d.join("sub/../s.pmcg"),
        d.join("link.pmcg"),
        d.join("hard.pmcg"),
    ] {
        let o = bin()
            .args(["sim", "--script"])
            .arg(&script)
            .arg("--vcd")
            .arg(&vcd)
            .output()
            .unwrap();
        assert_input_error(&o, &["--vcd", "--script", "same file"]);
        assert_eq!(
            std::fs::read(&script).unwrap(),
            original,
            "{vcd:?} overwrote the script"
        );
    }

    // timing: --out equal to --svg, or to --config.
    let cfg = write(&d.join("cfg.txt"), "counters=4 counter_bits=32\n");
    let o = bin()
        .args(["timing", "--out"])
        .arg(d.join("t.md"))
        .arg("--svg")
        .arg(d.join("sub/../t.md"))
        .output()
        .unwrap();
    assert_input_error(&o, &["--out", "--svg", "same file"]);
    assert!(!d.join("t.md").exists());
    let o = bin()
        .args(["timing", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(&cfg)
        .arg("--svg")
        .arg(d.join("t.svg"))
        .output()
        .unwrap();
    assert_input_error(&o, &["--config", "same file"]);

    // gen: the Verilog it would write is its --config file.
    let v = write(&d.join("smmu_pmcg.v"), "counters=4 counter_bits=32\n");
    let o = bin()
        .args(["gen", "--config"])
        .arg(&v)
        .arg("--out")
        .arg(&d)
        .output()
        .unwrap();
    assert_input_error(&o, &["--config", "same file"]);
    assert_eq!(
        std::fs::read_to_string(&v).unwrap(),
        "counters=4 counter_bits=32\n"
    );
}

// ---------------------------------------------------------------------------------------------
// Class 5: messages
// ---------------------------------------------------------------------------------------------

#[test]
fn messages_name_their_path_line_or_key() {
    let d = dir("messages");
    let run = |script: &Path| {
        bin()
            .args(["sim", "--backend", "model", "--script"])
            .arg(script)
            .output()
            .unwrap()
    };

    // OS errors name the path.
    let missing = d.join("missing.pmcg");
    assert_input_error(&run(&missing), &["cannot read", missing.to_str().unwrap()]);
    assert_input_error(&run(&d), &["cannot read", d.to_str().unwrap()]);
    // An endless input is refused, not read until memory runs out (the address-space limit keeps
    // a regression from taking the machine's memory).
    let o = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v 2000000 && exec "$0" sim --backend model --script /dev/zero"#)
        .arg(env!("CARGO_BIN_EXE_smmu-pmcg"))
        .output()
        .unwrap();
    assert_input_error(&o, &["/dev/zero", "larger than"]);
    let o = bin()
        .args(["gen", "--config"])
        .arg(&missing)
        .arg("--out")
        .arg(d.join("o"))
        .output()
        .unwrap();
    assert_input_error(&o, &["cannot read", missing.to_str().unwrap()]);

    // A number too large for its field says so, even beyond 64 bits.
    for (line, needle) in [
        (
            "write 0xE04 99999999999999999999999",
            "does not fit 32 bits (too large)",
        ),
        (
            "read64 0x0 expect 0x1_0000_0000_0000_0000",
            "does not fit 64 bits (too large)",
        ),
        ("idle 0x1_0000_0000", "does not fit 32 bits (too large)"),
    ] {
        let p = write(&d.join("big.pmcg"), format!("config\n{line}\n"));
        let o = run(&p);
        assert_input_error(&o, &["line 2", needle]);
        assert!(!stderr(&o).contains("not a number"), "{}", stderr(&o));
    }

    // A byte-order mark, CRLF and lone-CR line endings: the same run as plain LF.
    let lf = "config counters=4 counter_bits=32\n# counter 0 counts cycles\nwrite 0xE04 1\nidle 3\nread 0xE04 expect 1\nread 0xE04 expect 1 mask 1\n";
    for (name, text) in [
        ("lf", lf.to_string()),
        ("crlf", lf.replace('\n', "\r\n")),
        ("cr", lf.replace('\n', "\r")),
        ("bom", format!("\u{FEFF}{}", lf.replace('\n', "\r\n"))),
    ] {
        let o = run(&write(&d.join(format!("{name}.pmcg")), &text));
        assert_eq!(
            o.status.code(),
            Some(0),
            "{name}: {}{}",
            stdout(&o),
            stderr(&o)
        );
        assert_eq!(
            stdout(&o).lines().last(),
            Some("2 passed, 0 failed"),
            "{name}"
        );
        // An error in each style names the same line.
        let bad = text.replace("idle 3", "idle three");
        let o = run(&write(&d.join(format!("{name}-bad.pmcg")), &bad));
        assert_input_error(&o, &["line 4", "`three` is not a number"]);
    }
    // Bytes that are not UTF-8: the file and the line.
    let p = write(
        &d.join("latin1.pmcg"),
        b"config\nidle 1 # caf\xe9\n".as_slice(),
    );
    assert_input_error(&run(&p), &[p.to_str().unwrap(), "line 2", "not UTF-8"]);

    // A huge unknown token is cut short.
    let huge = "frobnicate".repeat(100_000);
    let o = run(&write(&d.join("huge.pmcg"), format!("config\n{huge} 1\n")));
    assert_input_error(&o, &["line 2", "unknown command", "characters)"]);
    assert!(
        stderr(&o).len() < 1000,
        "{} bytes of message",
        stderr(&o).len()
    );
    let o = bin()
        // (one argument is limited to 128 KiB)
        .args(["gen", &format!("{}=1", &huge[..100_000]), "--out"])
        .arg(d.join("o"))
        .output()
        .unwrap();
    assert_input_error(&o, &["characters)"]);
    assert!(
        stderr(&o).len() < 1000,
        "{} bytes of message",
        stderr(&o).len()
    );

    // A terminal escape sequence in the input is shown escaped, never sent to the terminal.
    let p = write(
        &d.join("esc.pmcg"),
        "config\nidle \u{1b}[2J\u{1b}]0;owned\u{7}\n",
    );
    let o = run(&p);
    assert_input_error(&o, &["line 2", "\\u{1b}[2J"]);
    assert!(!stderr(&o).contains('\u{1b}'), "{:?}", stderr(&o));
    let o = bin()
        .args(["gen", "colour\u{1b}[2J=1", "--out"])
        .arg(d.join("o"))
        .output()
        .unwrap();
    assert_input_error(&o, &["colour"]);
    assert!(!stderr(&o).contains('\u{1b}'), "{:?}", stderr(&o));

    // `event sid=` wider than sid_bits is an error, not a silent truncation.
    let p = write(
        &d.join("sid.pmcg"),
        "config sid_bits=8\nevent sid=0x1FF ids=1\n",
    );
    assert_input_error(&run(&p), &["line 2", "sid_bits=8"]);

    // Duplicate keys: on the command line, and within a --config file (naming file and line);
    // a command-line key overrides the file's (documented).
    let out = d.join("gen");
    let o = bin()
        .args([
            "gen",
            "counters=4",
            "counter_bits=32",
            "counters=8",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_input_error(&o, &["`counters` is given twice"]);
    let cfg = write(
        &d.join("dup.cfg"),
        "counters=4\r\ncounter_bits=32 counters=8\r\n",
    );
    let o = bin()
        .args(["gen", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_input_error(
        &o,
        &[cfg.to_str().unwrap(), "line 2", "`counters` is given twice"],
    );
    let cfg = write(
        &d.join("ok.cfg"),
        "\u{FEFF}config counters=4\r\ncounter_bits=32\r\n",
    );
    let o = bin()
        .args(["gen", "counters=2", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("counters=2 counter_bits=32"),
        "{}",
        stdout(&o)
    );
    // A bad value in the file names the file and its line.
    let cfg = write(&d.join("bad.cfg"), "counters=4\n\ncounter_bits=33\n");
    let o = bin()
        .args(["gen", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_input_error(&o, &[cfg.to_str().unwrap(), "line 3", "counter_bits"]);
}

// ---------------------------------------------------------------------------------------------
// Class 6: progress
// ---------------------------------------------------------------------------------------------

#[test]
fn progress_shows_on_a_terminal_only() {
    let d = dir("progress");
    let long = write(
        &d.join("long.pmcg"),
        "config counters=4 counter_bits=32\nidle 4000000\nidle 1\n",
    );
    // Not a terminal (a pipe): stderr stays empty.
    let o = bin()
        .args(["sim", "--backend", "model", "--script"])
        .arg(&long)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    assert_eq!(stdout(&o), "0 passed, 0 failed\n");
    // A terminal: util-linux `script` runs the command on a pseudo-terminal.
    if Command::new("script").arg("--version").output().is_err() {
        assert!(
            !common::tools_required(),
            "`script` (util-linux) is missing"
        );
        eprintln!("skipped the terminal half: no `script` command");
        return;
    }
    let command = format!(
        "'{}' sim --backend model --script '{}'",
        env!("CARGO_BIN_EXE_smmu-pmcg"),
        long.display()
    );
    let o = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let seen = stdout(&o);
    assert!(
        seen.contains("/4,000,001 cycles"),
        "no progress bar: {seen:?}"
    );
    assert!(seen.contains("0 passed, 0 failed"), "{seen:?}");
}
