//! Stamps of the generated documents: each one carries, as its first line (in an SVG the line
//! after the `<svg ...>` start tag), a hash of what made it, and a fast test recomputes that hash from the tree and fails when the document is stale.
//!
//! ```text
//!   inputs (source files, rust-hdl's locked version, the command's parameters)
//!      │ SHA-256
//!      ▼
//!   <!-- stamp: sha256 <hex> of <inputs>, rust-hdl <v> (Cargo.lock) and "<params>"; tools (recorded, not hashed): ... -->
//!   <!-- SPDX-License-Identifier: Apache-2.0 -->
//!   # the document ...          (docs/timing.md, docs/resources.md; in docs/timing.svg both
//!                                 lines follow the `<svg ...>` start tag)
//!
//!   test generated_docs_match_their_stamps: read the stamp line's hex, recompute from the tree,
//!   fail naming the command that regenerates the document (no synthesis, no simulation)
//! ```
//!
//! **What is hashed** ([`Stamp::hash`]): SHA-256 over, for each input file in order of its
//! workspace-relative path, `file <path> <length>\n<contents>\n`; then `rust-hdl <version>\n` (the
//! version Cargo.lock pins: it decides the emitted Verilog and the native simulation); then
//! `params <params>\n`, the parameters of the command (for `timing`: the backend and the
//! configuration's [`PmcgConfig::summary`]; for `synth --sweep`: the requested clock). An input
//! `dir/*.rs` is every `.rs` file directly in `dir`, so a new source file changes the hash too.
//!
//! - `docs/timing.md` and `docs/timing.svg` ([`Stamp::timing`]): `hdl/src/*.rs` and
//!   `regs/src/*.rs` (the design, its configuration and register map),
//!   `sim/src/{model,native,pins}.rs` (the native backend, its pin interface and the model the
//!   waveform shows), `src/timing.rs` (the measurements and the document's text),
//!   `vendor/rust-hdl-core/src/*.rs` (the patched simulator, which runs the design); with
//!   `--backend verilator` also `synth/src/{lib,wrapper}.rs` and `sim/src/{vdut,verilator}.rs`.
//! - `docs/resources.md` ([`Stamp::resources`]): no source file, but what the tools consume,
//!   derived from the tree: the emitted Verilog and the resource harness of every configuration of
//!   `flow::SWEEP` (with its name and settings), the Yosys script ([`crate::flow::yosys_script`])
//!   and the nextpnr arguments of each seed of `flow::SEEDS` (so the seed list too). A
//!   refactor that leaves the Verilog alone keeps the stamp; any change to the Verilog breaks it.
//!
//! **Tool versions** (Yosys, nextpnr-ice40) change the result of a synthesis too, but the test
//! must not need the tools: they are recorded in the stamp line as text and not hashed, so the
//! test compares only the hash of the sources. Regenerate after a tool upgrade by hand.

use pmcg_hdl::config::PmcgConfig;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// What made one generated document, and how to make it again.
#[derive(Clone, Debug)]
pub struct Stamp {
    /// The command that regenerates the checked-in document.
    pub command: &'static str,
    /// Workspace-relative input files: exact paths, or `dir/*.rs` for every `.rs` file in `dir`.
    pub inputs: Vec<&'static str>,
    /// The command's parameters that change the result.
    pub params: String,
    /// Inputs derived from the tree rather than read from it (name, text), hashed after the
    /// files, and what they are (for the stamp line).
    pub derived: Vec<(String, String)>,
    pub derived_what: &'static str,
}

/// The workspace's root (the source tree this crate was built from).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("synth/ has a parent")
        .to_path_buf()
}

impl Stamp {
    /// The stamp of `smmu-pmcg timing` (docs/timing.md and docs/timing.svg) for `cfg`, measured
    /// on the native simulation or (`verilator`) the emitted Verilog.
    pub fn timing(cfg: &PmcgConfig, verilator: bool) -> Self {
        let mut inputs = vec![
            "hdl/src/*.rs",
            "regs/src/*.rs",
            "sim/src/model.rs",
            "sim/src/native.rs",
            "sim/src/pins.rs",
            "src/timing.rs",
            // The native simulator: rust-hdl-core as patched (PATCHES.md there).
            "vendor/rust-hdl-core/src/*.rs",
        ];
        if verilator {
            inputs.extend([
                "synth/src/lib.rs",
                "synth/src/wrapper.rs",
                "sim/src/vdut.rs",
                "sim/src/verilator.rs",
            ]);
        }
        Stamp {
            command: "cargo run --release -- timing",
            derived: Vec::new(),
            derived_what: "",
            inputs,
            params: format!(
                "backend={} {}",
                if verilator { "verilator" } else { "native" },
                cfg.summary()
            ),
        }
    }

    /// The stamp of `smmu-pmcg synth --sweep` (docs/resources.md) at `freq_mhz`: exactly what the
    /// tools consume, so a change that leaves the Verilog alone (a refactor, a comment, a moved
    /// file) does not call for a 25-minute re-synthesis, and any change to it does: the emitted
    /// Verilog and the resource harness of every swept configuration (`flow::SWEEP`, names and
    /// settings), the Yosys script and the nextpnr arguments of each seed of `flow::SEEDS`.
    pub fn resources(freq_mhz: f64) -> Self {
        let mut derived = Vec::new();
        for (name, settings) in crate::flow::SWEEP {
            let text = PmcgConfig::parse_kv(settings.iter().copied())
                .map_err(|e| e.to_string())
                .and_then(|cfg| {
                    let v =
                        crate::emit_verilog(&cfg, crate::DEFAULT_TOP).map_err(|e| e.to_string())?;
                    Ok(v + &crate::flow::harness_verilog(&cfg).0)
                })
                .unwrap_or_else(|e| format!("error: {e}"));
            derived.push((format!("sweep {name} {}", settings.join(" ")), text));
        }
        derived.push(("yosys".into(), crate::flow::yosys_script()));
        // One nextpnr command per seed: the seed list and every other argument.
        for seed in crate::flow::SEEDS {
            let nextpnr = crate::flow::nextpnr_command(Path::new("."), freq_mhz, seed);
            let args: Vec<String> = nextpnr
                .get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            derived.push((format!("nextpnr-ice40 seed {seed}"), args.join(" ")));
        }
        Stamp {
            command: "cargo run --release -- synth --sweep",
            inputs: Vec::new(),
            params: format!("freq={freq_mhz}"),
            derived,
            derived_what: "the emitted Verilog and resource harness of each swept configuration, \
                           the Yosys script and the nextpnr arguments of each seed",
        }
    }

    /// The input files under `root`, sorted by their workspace-relative path.
    fn files(&self, root: &Path) -> std::io::Result<Vec<String>> {
        let mut files = Vec::new();
        for input in &self.inputs {
            match input.strip_suffix("/*.rs") {
                Some(dir) => {
                    for entry in std::fs::read_dir(root.join(dir))? {
                        let name = entry?.file_name().to_string_lossy().into_owned();
                        if name.ends_with(".rs") {
                            files.push(format!("{dir}/{name}"));
                        }
                    }
                }
                None => files.push(input.to_string()),
            }
        }
        files.sort();
        files.dedup();
        Ok(files)
    }

    /// SHA-256 (hex) of the inputs under `root` (see the module documentation).
    pub fn hash(&self, root: &Path) -> Result<String, String> {
        let mut sha = Sha256::new();
        let files = self
            .files(root)
            .map_err(|e| format!("cannot list the inputs under {}: {e}", root.display()))?;
        for file in files {
            let bytes =
                std::fs::read(root.join(&file)).map_err(|e| format!("cannot read {file}: {e}"))?;
            sha.update(format!("file {file} {}\n", bytes.len()));
            sha.update(&bytes);
            sha.update(b"\n");
        }
        for (name, text) in &self.derived {
            sha.update(format!("derived {name} {}\n", text.len()));
            sha.update(text.as_bytes());
            sha.update(b"\n");
        }
        sha.update(format!("rust-hdl {}\n", locked_version(root, "rust-hdl")?));
        sha.update(format!("params {}\n", self.params));
        Ok(sha.finalize().iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The first two lines of the document (HTML/XML comments, valid in Markdown and SVG): the
    /// stamp and the SPDX line. `tools` names the tool versions (recorded, not hashed).
    /// The inputs as the stamp line names them.
    fn what(&self) -> String {
        let mut parts: Vec<&str> = self.inputs.clone();
        if !self.derived.is_empty() {
            parts.push(self.derived_what);
        }
        parts.join(", ")
    }

    pub fn comment_lines(&self, tools: &str) -> String {
        self.comment_lines_in(&workspace_root(), tools)
    }

    /// [`Stamp::comment_lines`] with the inputs under `root`.
    pub fn comment_lines_in(&self, root: &Path, tools: &str) -> String {
        // A shipped binary away from its sources still writes its document; the stamp then says
        // why it has no hash, and the test fails on it.
        let hash = match self.hash(root) {
            Ok(h) => format!("sha256 {h}"),
            Err(e) => format!("sha256 unavailable ({e})"),
        };
        let rust_hdl = locked_version(root, "rust-hdl").unwrap_or_else(|e| e);
        let tools = if tools.is_empty() {
            String::new()
        } else {
            format!("; tools (recorded, not hashed): {tools}")
        };
        let mut line = format!(
            "stamp: {hash} of {}, rust-hdl {rust_hdl} (Cargo.lock) and \"{}\"{tools}",
            self.what(),
            self.params
        );
        // `--` may not appear inside an XML comment (nextpnr's version string has one).
        while line.contains("--") {
            line = line.replace("--", "-");
        }
        format!(
            "<!-- {line} -->\n<!-- SPDX-License-Identifier: {} -->\n",
            crate::SPDX_LICENSE
        )
    }

    /// Whether `text`, a document this stamp made, is up to date with the inputs under `root`;
    /// the error names `path` and the command that regenerates it.
    pub fn check(&self, root: &Path, path: &str, text: &str) -> Result<(), String> {
        let now = self.hash(root)?;
        let regenerate = format!("regenerate it with `{}`", self.command);
        match recorded_hash(text) {
            None => Err(format!("{path} has no stamp line; {regenerate}")),
            Some(h) if h == now => Ok(()),
            Some(h) => Err(format!(
                "{path} is stale: its stamp is sha256 {h}, its inputs ({}, rust-hdl, \"{}\") \
                 now hash to {now}; {regenerate}",
                self.what(),
                self.params
            )),
        }
    }
}

/// The hash a document's stamp line records (`<!-- stamp: sha256 <64 hex digits> ...`): its first
/// line, or its second in an SVG, whose first line is the root element's start tag.
pub fn recorded_hash(text: &str) -> Option<&str> {
    let line = text
        .lines()
        .take(2)
        .find(|l| l.starts_with("<!-- stamp: "))?;
    let hex = line.strip_prefix("<!-- stamp: sha256 ")?.get(..64)?;
    hex.chars().all(|c| c.is_ascii_hexdigit()).then_some(hex)
}

/// The version of `package` that `root`/Cargo.lock pins.
fn locked_version(root: &Path, package: &str) -> Result<String, String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let name = format!("name = \"{package}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == name {
            if let Some(v) = lines.next().and_then(|l| l.strip_prefix("version = \"")) {
                return Ok(v.trim_end_matches('"').to_string());
            }
        }
    }
    Err(format!("Cargo.lock pins no {package}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checked-in generated documents are up to date with the tree (each one's stamp).
    #[test]
    fn generated_docs_match_their_stamps() {
        let root = workspace_root();
        let timing = Stamp::timing(&PmcgConfig::default(), false);
        let resources = Stamp::resources(100.0);
        let mut stale = Vec::new();
        for (stamp, path) in [
            (&timing, "docs/timing.md"),
            (&timing, "docs/timing.svg"),
            (&resources, "docs/resources.md"),
        ] {
            let text = std::fs::read_to_string(root.join(path)).unwrap();
            if let Err(e) = stamp.check(&root, path, &text) {
                stale.push(e);
            }
        }
        assert!(stale.is_empty(), "{}", stale.join("\n"));
    }

    /// A tree of its own: a source file, a glob directory and a Cargo.lock.
    fn scratch(name: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("pmcg-stamp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("hdl/src")).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("hdl/src/a.rs"), "// a\n").unwrap();
        std::fs::write(root.join("hdl/src/notes.txt"), "not an input\n").unwrap();
        std::fs::write(root.join("src/timing.rs"), "// timing\n").unwrap();
        std::fs::write(
            root.join("Cargo.lock"),
            "[[package]]\nname = \"rust-hdl\"\nversion = \"0.46.0\"\n",
        )
        .unwrap();
        root
    }

    fn stamp(params: &str) -> Stamp {
        Stamp {
            command: "make it",
            inputs: vec!["hdl/src/*.rs", "src/timing.rs"],
            params: params.into(),
            derived: Vec::new(),
            derived_what: "",
        }
    }

    #[test]
    fn a_stamp_goes_stale_when_an_input_changes() {
        let root = scratch("stale");
        let s = stamp("backend=native counters=4");
        let doc = s.comment_lines_in(&root, "yosys 0.23 -- x") + "# doc\n";
        assert!(doc.starts_with("<!-- stamp: sha256 "), "{doc}");
        assert!(doc.lines().nth(1) == Some("<!-- SPDX-License-Identifier: Apache-2.0 -->"));
        let inner = doc.lines().next().unwrap();
        let inner = inner
            .strip_prefix("<!-- ")
            .unwrap()
            .strip_suffix(" -->")
            .unwrap();
        assert!(
            !inner.contains("--") && inner.contains("yosys 0.23 - x"),
            "{doc}"
        );
        s.check(&root, "doc.md", &doc).unwrap();
        let svg = format!("<svg x=\"1\">\n{doc}</svg>\n");
        s.check(&root, "doc.svg", &svg).unwrap();
        let late = format!("<svg>\n<g/>\n{doc}");
        assert!(s
            .check(&root, "doc.svg", &late)
            .unwrap_err()
            .contains("no stamp line"));
        // Only recorded, not hashed: other tool versions keep the stamp.
        let other_tools = s.comment_lines_in(&root, "yosys 0.40") + "# doc\n";
        assert_eq!(recorded_hash(&doc), recorded_hash(&other_tools));
        // A file that is no input (not .rs) changes nothing.
        std::fs::write(root.join("hdl/src/notes.txt"), "edited\n").unwrap();
        s.check(&root, "doc.md", &doc).unwrap();

        let stale = |what: &str| {
            let e = s.check(&root, "doc.md", &doc).unwrap_err();
            assert!(
                e.contains("doc.md is stale") && e.contains("`make it`"),
                "{what}: {e}"
            );
        };
        std::fs::write(root.join("src/timing.rs"), "// timing, edited\n").unwrap();
        stale("an edited input");
        std::fs::write(root.join("src/timing.rs"), "// timing\n").unwrap();
        s.check(&root, "doc.md", &doc).unwrap();
        std::fs::write(root.join("hdl/src/b.rs"), "// new\n").unwrap();
        stale("a new file in a glob directory");
        std::fs::remove_file(root.join("hdl/src/b.rs")).unwrap();
        std::fs::write(
            root.join("Cargo.lock"),
            "[[package]]\nname = \"rust-hdl\"\nversion = \"0.47.0\"\n",
        )
        .unwrap();
        stale("another rust-hdl");
        std::fs::write(
            root.join("Cargo.lock"),
            "[[package]]\nname = \"rust-hdl\"\nversion = \"0.46.0\"\n",
        )
        .unwrap();
        s.check(&root, "doc.md", &doc).unwrap();
        let e = stamp("backend=native counters=8")
            .check(&root, "doc.md", &doc)
            .unwrap_err();
        assert!(e.contains("stale"), "other parameters: {e}");
        let e = s.check(&root, "doc.md", "# no stamp\n").unwrap_err();
        assert!(
            e.contains("no stamp line") && e.contains("`make it`"),
            "{e}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_missing_input_is_named() {
        let root = scratch("missing");
        std::fs::remove_file(root.join("src/timing.rs")).unwrap();
        let e = stamp("").hash(&root).unwrap_err();
        assert!(e.contains("src/timing.rs"), "{e}");
        let line = stamp("").comment_lines_in(&root, "");
        assert!(line.contains("sha256 unavailable") && recorded_hash(&line).is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_documented_stamps_name_their_inputs() {
        let t = Stamp::timing(&PmcgConfig::default(), false);
        assert!(t.params.starts_with("backend=native counters=64 "));
        assert!(!t.inputs.contains(&"sim/src/verilator.rs"));
        assert!(Stamp::timing(&PmcgConfig::default(), true)
            .inputs
            .contains(&"sim/src/verilator.rs"));
        assert_eq!(Stamp::resources(100.0).params, "freq=100");
        // The resources stamp hashes the Verilog of every swept configuration (none failed to
        // emit), and a one-character change of any of it, or another clock, changes the hash.
        let r = Stamp::resources(100.0);
        assert_eq!(
            r.derived.len(),
            crate::flow::SWEEP.len() + 1 + crate::flow::SEEDS.len()
        );
        assert!(r.derived.iter().all(|(_, t)| !t.starts_with("error:")));
        assert!(r.derived[0].1.contains("module smmu_pmcg"));
        let root0 = workspace_root();
        let h = r.hash(&root0).unwrap();
        let mut changed = r.clone();
        changed.derived[3].1 = changed.derived[3].1.replacen("1'b0", "1'b1", 1);
        assert_ne!(changed.hash(&root0).unwrap(), h, "a changed netlist");
        // The Yosys script and the seeds are hashed: another script, another seed, one seed
        // more or fewer each change the hash.
        let find = |s: &Stamp, name: &str| s.derived.iter().position(|(n, _)| n == name).unwrap();
        let yosys = find(&r, "yosys");
        assert!(r.derived[yosys].1.contains("-mince 8 -minsrst 8"));
        let mut changed = r.clone();
        changed.derived[yosys].1 = changed.derived[yosys].1.replace("-minsrst 8", "-minsrst 4");
        assert_ne!(changed.hash(&root0).unwrap(), h, "another Yosys script");
        let seed3 = find(&r, "nextpnr-ice40 seed 3");
        assert!(
            r.derived[seed3].1.contains("--seed 3 "),
            "{}",
            r.derived[seed3].1
        );
        let mut changed = r.clone();
        changed.derived[seed3].1 = changed.derived[seed3].1.replace("--seed 3 ", "--seed 4 ");
        assert_ne!(changed.hash(&root0).unwrap(), h, "another seed");
        let mut changed = r.clone();
        changed.derived.remove(seed3);
        assert_ne!(changed.hash(&root0).unwrap(), h, "one seed fewer");
        assert_ne!(
            Stamp::resources(90.0).hash(&root0).unwrap(),
            h,
            "another clock"
        );
        // Every named input exists in this tree.
        let root = workspace_root();
        Stamp::resources(100.0).hash(&root).unwrap();
        Stamp::timing(&PmcgConfig::default(), true)
            .hash(&root)
            .unwrap();
    }
}
