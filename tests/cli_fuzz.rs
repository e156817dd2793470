//! Property tests (proptest) of the input parsers and the binary: random bytes and random token
//! sequences never make the script parser, the settings-file parser or the configuration parser
//! panic, and the binary always exits 0, 1 or 2, agreeing with the parser on which.
//!
//! ```text
//!   seed (PMCG_SEED) ─► TestRng ─► bytes | tokens ─► decode_text, parse, parse_settings,
//!                                                    parse_kv, run on the model (in process)
//!                                              └──► smmu-pmcg sim / gen  ─► exit code ∈ {0,1,2}
//! ```
//! Each test prints its seed; `PMCG_SEED=<seed>` reproduces a failure (proptest then shrinks it).

mod common;

use pmcg_hdl::config::PmcgConfig;
use pmcg_sim::model::Model;
use pmcg_sim::pins::Driver;
use pmcg_sim::script;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::process::Command;

/// A runner seeded from `PMCG_SEED` (or the time) and a per-test salt; prints the seed.
fn runner(test: &str, salt: u64, cases: u32) -> TestRunner {
    let base = common::base_seed();
    eprintln!("{test}: seed {base} (PMCG_SEED={base} reproduces)");
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&(base ^ salt).to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed))
}

/// Words of the script and configuration languages, near-misses, edge numbers and separators.
const VOCABULARY: &[&str] = &[
    "config",
    "write",
    "read",
    "write64",
    "read64",
    "event",
    "idle",
    "reset",
    "expect",
    "irq",
    "msi",
    "msi_slave",
    "capt_req",
    "capture_request",
    "mask",
    "s",
    "ns",
    "root",
    "realm",
    "counters=4",
    "counter_bits=32",
    "counter_bits=64",
    "lanes=2",
    "lanes=9",
    "sid_bits=8",
    "sid_bits=32",
    "lane=0",
    "lane=1",
    "lane=7",
    "sid=0x42",
    "sid=none",
    "sid=0x1FF",
    "ss=s",
    "ss=realm",
    "ss=nsp",
    "ids=1",
    "ids=1,2",
    "ids=0",
    "ids=0x80",
    "ids=",
    "ids=1,,2",
    "cycles=3",
    "cycles=0",
    "partid=1",
    "pmg=0x100",
    "mpam_sp=root",
    "aw=1",
    "w=2",
    "b=3",
    "resp=slverr",
    "addr=0x1000",
    "data=7",
    "impdef=0x80",
    "impdef_global=0x80",
    "msi=off",
    "capture=off",
    "realm=on",
    "mpam_filter=on",
    "msi_mpam=on",
    "secure=off",
    "sid_filter=global",
    "page1_offset=0x1000",
    "pa_bits=32",
    "jep106=1:2",
    "product=1:2:3",
    "counters=99999999999",
    "counters=0x",
    "=",
    "==",
    "a=b=c",
    "0",
    "1",
    "2",
    "3",
    "0x400",
    "0xE04",
    "0xE00",
    "0xC00",
    "0x10000",
    "0xFFFF_FFFF",
    "0xFFFFFFFC",
    "0x1_0000_0000",
    "18446744073709551615",
    "18446744073709551616",
    "0x",
    "1_",
    "_1",
    "-1",
    "+1",
    "0X1F",
    "\n",
    "\n",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    "#",
    "\u{FEFF}",
    "\0",
    "\u{2028}",
    "é",
];

/// A text of random vocabulary words and random characters, often after a valid `config` line
/// (so that the commands themselves get parsed).
fn token_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        8 => proptest::sample::select(VOCABULARY).prop_map(str::to_string),
        1 => any::<char>().prop_map(String::from),
    ];
    (
        any::<bool>(),
        proptest::collection::vec(token, 0..60),
        any::<bool>(),
    )
        .prop_map(|(config_first, tokens, spaced)| {
            let mut text = String::new();
            if config_first {
                text.push_str("config counters=4 counter_bits=32 lanes=2 sid_bits=8\n");
            }
            for t in tokens {
                text.push_str(&t);
                if spaced {
                    text.push(' ');
                }
            }
            text
        })
}

/// Command words and arguments that often make a valid line.
const COMMANDS: &[&str] = &[
    "write",
    "read",
    "write64",
    "read64",
    "event",
    "idle",
    "idle",
    "reset",
    "expect irq",
    "expect msi",
    "msi_slave",
    "capt_req",
    "capture_request",
    "config",
];
const ARGUMENTS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "0x400",
    "0xE04",
    "0xE50",
    "0xC00",
    "0xC40",
    "0x10000",
    "s",
    "ns",
    "root",
    "expect",
    "mask",
    "lane=1",
    "ids=1",
    "ids=1,2",
    "ids=3",
    "cycles=3",
    "sid=0x42",
    "sid=none",
    "ss=s",
    "aw=1",
    "resp=slverr",
    "addr=0x1000",
    "data=7",
    "0x1_0000_0000",
    "x",
];

/// Whole lines that are valid after the `config` line of [`script_text`].
const VALID_LINES: &[&str] = &[
    "idle 3",
    "reset",
    "write 0xE04 1",
    "read 0xE04 expect 1",
    "event ids=1 cycles=3",
    "event lane=1 sid=0x42 ss=s ids=1,2",
    "expect irq 0",
    "expect msi 0",
    "write 0x400 1",
    "msi_slave aw=1 resp=slverr",
    "capt_req 1",
    "capture_request",
    "read64 0x10000",
    "write64 0x10000 5 s",
    "write 0xC00 1 s",
    "# comment",
    "",
];

/// Line-structured scripts: valid lines, a command with a few arguments, or random tokens per
/// line, any line ending; often valid as a whole.
fn script_text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        8 => proptest::sample::select(VALID_LINES).prop_map(str::to_string),
        2 => (
            proptest::sample::select(COMMANDS),
            proptest::collection::vec(proptest::sample::select(ARGUMENTS), 0..3),
        )
            .prop_map(|(c, args)| [vec![c], args].concat().join(" ")),
        1 => token_text(),
    ];
    (
        proptest::collection::vec(line, 0..8),
        proptest::sample::select(&["\n", "\r\n", "\r"][..]),
    )
        .prop_map(|(lines, end)| {
            let mut text = format!("config counters=4 counter_bits=32 lanes=2{end}");
            for l in lines {
                text.push_str(&l);
                text.push_str(end);
            }
            text
        })
}

/// Settings files: configuration items, valid or not, in lines or on one line.
fn settings_text() -> impl Strategy<Value = String> {
    const ITEMS: &[&str] = &[
        "counters=4",
        "counters=2",
        "counters=65",
        "counter_bits=32",
        "counter_bits=33",
        "lanes=2",
        "sid_bits=8",
        "capture=off",
        "msi=off",
        "secure=off",
        "config",
        "# note",
        "colour=red",
        "counters",
        "counters=99999999999",
        "\u{FEFF}",
    ];
    (
        proptest::collection::vec(proptest::sample::select(ITEMS), 0..6),
        proptest::sample::select(&["\n", "\r\n", "\r", " "][..]),
    )
        .prop_map(|(items, sep)| format!("counters=1{sep}{}", items.join(sep)))
}

/// Random bytes, token texts, line-structured scripts and settings files.
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..400),
        1 => token_text().prop_map(String::into_bytes),
        3 => script_text().prop_map(String::into_bytes),
        2 => settings_text().prop_map(String::into_bytes),
    ]
}

/// Everything the parsers promise about one input, in process: no panic; errors name a line of
/// the text with a message of bounded length; a parsed script keeps its own rules; a short one
/// runs on the model.
fn check_script_text(text: &str) -> Result<(), TestCaseError> {
    let lines = script::text_lines(text).count();
    match script::parse(text) {
        Err(e) => {
            prop_assert!(e.line >= 1 && e.line <= lines.max(1), "{e} ({lines} lines)");
            prop_assert!(!e.message.is_empty() && e.message.len() < 1200, "{e}");
        }
        Ok(s) => {
            prop_assert!(s.config.validate().is_ok());
            for (line, cmd) in &s.lines {
                prop_assert!(*line > s.config_line && *line <= lines);
                if let script::Command::Event {
                    lane, sid, nosid, ..
                } = cmd
                {
                    prop_assert!(*lane < s.config.lanes);
                    prop_assert!(*nosid || (*sid as u64) >> s.config.sid_bits == 0);
                }
            }
            if s.cycles() <= 20_000 {
                let mut driver = Driver::new(Model::new(&s.config), s.config.lanes as usize);
                let mut out = Vec::new();
                let report = script::run(&s, &mut driver, true, &mut out)?;
                let out = String::from_utf8(out).map_err(|e| TestCaseError::fail(e.to_string()))?;
                let last = format!("{} passed, {} failed", report.passed, report.failed);
                prop_assert_eq!(out.lines().last(), Some(last.as_str()));
            }
        }
    }
    Ok(())
}

fn check_settings_text(text: &str) -> Result<(), TestCaseError> {
    match script::parse_settings(text) {
        Err(e) => prop_assert!(e.line >= 1 && e.message.len() < 1200, "{e}"),
        Ok(items) => {
            let mut keys: Vec<&str> = items
                .iter()
                .map(|(_, i)| i.split_once('=').map(|(k, _)| k).unwrap_or(""))
                .collect();
            let n = keys.len();
            keys.sort_unstable();
            keys.dedup();
            prop_assert_eq!(keys.len(), n, "a key given twice was accepted");
            // The configuration parser itself, on the same items.
            if let Ok(cfg) = PmcgConfig::parse_kv(items.iter().map(|(_, i)| i.as_str())) {
                prop_assert!(cfg.validate().is_ok());
            }
        }
    }
    Ok(())
}

#[test]
fn parsers_never_panic_on_random_bytes() {
    runner("parsers_never_panic_on_random_bytes", 0xB17E5, 3000)
        .run(&bytes(), |b| {
            let lossy = String::from_utf8_lossy(&b).into_owned();
            check_script_text(&lossy)?;
            check_settings_text(&lossy)?;
            match script::decode_text(b.clone()) {
                Ok(text) => prop_assert_eq!(text, lossy),
                Err(e) => prop_assert!(e.message.contains("not UTF-8"), "{e}"),
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn parsers_never_panic_on_random_tokens() {
    runner("parsers_never_panic_on_random_tokens", 0x70CE5, 4000)
        .run(&token_text(), |text| {
            check_script_text(&text)?;
            check_settings_text(&text)?;
            let words: Vec<&str> = text.split_whitespace().collect();
            let _ = PmcgConfig::parse_kv(words.iter().copied());
            Ok(())
        })
        .unwrap();
}

/// The binary on random scripts and settings files: exit 0, 1 or 2, never a panic, and 2
/// exactly when the parser rejects the input. Bounded: a few dozen runs.
#[test]
fn the_binary_exits_0_1_or_2_on_random_input() {
    let dir = std::env::temp_dir().join(format!("pmcg-cli-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("input");
    let out = dir.join("out");
    let ran = std::cell::Cell::new(0);
    let passed = std::cell::Cell::new(0); // runs that got past the parser
    runner("the_binary_exits_0_1_or_2_on_random_input", 0xE41, 48)
        .run(&bytes(), |b| {
            let text = String::from_utf8_lossy(&b).into_owned();
            std::fs::write(&file, &b).unwrap();
            // sim: skip scripts too long to run in a test (the parser alone covers them).
            let parsed = script::decode_text(b.clone())
                .ok()
                .map(|t| script::parse(&t));
            if !matches!(&parsed, Some(Ok(s)) if s.cycles() > 20_000) {
                let o = Command::new(env!("CARGO_BIN_EXE_smmu-pmcg"))
                    .args(["sim", "--backend", "model", "--script"])
                    .arg(&file)
                    .output()
                    .unwrap();
                let err = String::from_utf8_lossy(&o.stderr);
                prop_assert!(!err.contains("panicked"), "{text:?}: {err}");
                let expected: &[i32] = match parsed {
                    Some(Ok(_)) => {
                        passed.set(passed.get() + 1);
                        &[0, 1]
                    }
                    _ => &[2],
                };
                prop_assert!(
                    o.status.code().is_some_and(|c| expected.contains(&c)),
                    "{text:?}: exit {:?}, expected {expected:?}: {err}",
                    o.status.code()
                );
                ran.set(ran.get() + 1);
            }
            // gen --config: valid small configurations are emitted, the rest refused.
            let cfg = script::decode_text(b.clone())
                .ok()
                .and_then(|t| script::parse_settings(&t).ok())
                .map(|items| PmcgConfig::parse_kv(items.iter().map(|(_, i)| i.as_str())));
            if !matches!(&cfg, Some(Ok(c)) if c.counters > 8) {
                let o = Command::new(env!("CARGO_BIN_EXE_smmu-pmcg"))
                    .args(["gen", "--config"])
                    .arg(&file)
                    .arg("--out")
                    .arg(&out)
                    .output()
                    .unwrap();
                let err = String::from_utf8_lossy(&o.stderr);
                prop_assert!(!err.contains("panicked"), "{text:?}: {err}");
                let expected = if matches!(cfg, Some(Ok(_))) {
                    passed.set(passed.get() + 1);
                    0
                } else {
                    2
                };
                prop_assert_eq!(o.status.code(), Some(expected), "{:?}: {}", text, err);
                ran.set(ran.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    eprintln!(
        "{} runs of the binary, {} on input the parsers accepted",
        ran.get(),
        passed.get()
    );
    assert!(ran.get() >= 48, "only {} runs of the binary", ran.get());
}
