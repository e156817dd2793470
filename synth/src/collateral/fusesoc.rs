//! `<top>.core`: a FuseSoC CAPI2 core around `<top>.v` with a `lint` target (Verilator
//! lint-only, waiving exactly the warnings tests/verilog.rs documents) and a `synth` target
//! (Yosys for iCE40).
//!
//! ```text
//!   name smmu-pmcg:pmcg:<top>:<version>
//!   filesets.rtl = <top>.v
//!   targets: default, lint (verilator), synth (yosys ice40)
//! ```

use super::banner;
use pmcg_hdl::config::PmcgConfig;
use std::fmt::Write;

/// The Verilator warnings rust-hdl's output carries (see tests/verilog.rs for why each is benign).
pub const LINT_WAIVERS: [&str; 4] = [
    "-Wno-WIDTH",
    "-Wno-DECLFILENAME",
    "-Wno-UNOPTFLAT",
    "-Wno-UNUSEDSIGNAL",
];

/// The CAPI2 core file of `top`.
pub fn core(cfg: &PmcgConfig, top: &str) -> String {
    let mut o = String::from("CAPI=2:\n");
    for line in banner(cfg).lines() {
        writeln!(o, "# {line}").unwrap();
    }
    let version = env!("CARGO_PKG_VERSION");
    let waivers = LINT_WAIVERS
        .iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(", ");
    write!(
        o,
        "name: smmu-pmcg:pmcg:{top}:{version}
description: SMMUv3 Performance Monitor Counter Group (APB4 completer, AXI4-Lite MSI manager)

filesets:
  rtl:
    files:
      - {top}.v
    file_type: verilogSource

targets:
  default: &default
    filesets: [rtl]
    toplevel: {top}

  lint:
    <<: *default
    description: Verilator lint of the generated Verilog
    default_tool: verilator
    tools:
      verilator:
        mode: lint-only
        verilator_options: [\"-Wall\", {waivers}]

  synth:
    <<: *default
    description: Yosys synthesis for iCE40
    default_tool: yosys
    tools:
      yosys:
        arch: ice40
        output_format: json
"
    )
    .unwrap();
    o
}
