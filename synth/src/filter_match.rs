//! The match block (`pmcg_hdl::filter_match::FilterMatch`: every counter's event selection and
//! filter, and the match of the registered lanes against them) emitted on its own, with a plain
//! top module name ([`FILTER_MATCH_TOP`]), for its block-level tests (tests/filter_match.rs: the
//! same random stimulus on the native block and on this Verilog under Verilator, against the
//! reference model's match) and through Yosys alone (a resource harness in the files of
//! [`crate::flow::files`]).
//!
//! ```text
//!   FilterMatch::new(cfg, fault) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//!   SIN ─► shift register ─► rst, lane_*$l, tab_hit$l, cr_e, cnten, scr*, rootcr*,
//!          ctl_wr, sel_load, filt_go, smr_load, ld_*   (every input a register)
//!   match_nx$n ─► register ─► XOR tree ─► SOUT         (every output observed)
//! ```

use crate::flow::FlowError;
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::filter_match::{FilterMatch, MatchFault};
use std::path::Path;

/// The match block's Verilog module name when emitted alone.
pub const FILTER_MATCH_TOP: &str = "pmcg_filter_match";

/// The Verilog of the match block of `cfg` (with `fault` planted, for the test that must catch
/// it), top module `top`. The same inputs give the same text.
pub fn filter_match_verilog(
    cfg: &PmcgConfig,
    fault: Option<MatchFault>,
    top: &str,
) -> Result<String, String> {
    crate::block_verilog(
        &mut FilterMatch::new(cfg, fault),
        top,
        "match block (FilterMatch)",
        &format!("{}, fault = {fault:?}", cfg.summary()),
    )
}

/// The block's input ports in declaration order (a Vec port's elements `name$i`), with widths.
pub fn input_ports(cfg: &PmcgConfig) -> Vec<(String, u32)> {
    let port = |name: &str, width: u32| (name.to_string(), width);
    let mut ins = vec![port("rst", 1)];
    for (name, width) in [
        ("lane_events", 32),
        ("lane_sid", 32),
        ("lane_acc", 8),
        ("lane_nosid", 1),
        ("lane_mpam", 32),
        ("tab_hit", 64),
    ] {
        ins.extend((0..cfg.lanes).map(|l| (format!("{name}${l}"), width)));
    }
    ins.extend([
        port("cr_e", 1),
        port("cnten", 64),
        port("scr", 32),
        port("rootcr", 32),
        port("scr_nx", 32),
        port("rootcr_nx", 32),
        port("ctl_wr", 1),
        port("sel_load", 1),
        port("filt_go", 1),
        port("ld_sel", 64),
        port("ld_wr0", 1),
        port("ld_evsel", 7),
        port("ld_cyc", 1),
        port("ld_care", 32),
        port("ld_mode", 13),
        port("smr_load", 1),
        port("ld_smr", 32),
    ]);
    ins
}

/// The harness around the match block (module `pmcg_harness`, the flow's top; `flow`'s
/// shift-register harness), and how many flip-flops it adds.
pub fn harness_verilog(cfg: &PmcgConfig) -> (String, u64) {
    let outs: Vec<(String, u32)> = (0..cfg.counters)
        .map(|n| (format!("match_nx${n}"), 4))
        .collect();
    crate::flow::shift_register_harness(
        "every match-block input from a shift register, every output observed",
        FILTER_MATCH_TOP,
        "clock",
        &input_ports(cfg),
        &outs,
    )
}

/// Writes the match block's Verilog and harness into `work` (created) and runs Yosys there.
pub fn synthesize_filter_match(cfg: &PmcgConfig, work: &Path) -> Result<(), FlowError> {
    crate::flow::synthesize_block(
        work,
        filter_match_verilog(cfg, None, FILTER_MATCH_TOP),
        harness_verilog(cfg).0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> PmcgConfig {
        PmcgConfig::parse_kv(["counters=3", "counter_bits=32", "lanes=2"]).unwrap()
    }

    #[test]
    fn the_match_block_is_emitted_with_its_named_top_and_every_harness_port() {
        let cfg = cfg();
        let v = filter_match_verilog(&cfg, None, FILTER_MATCH_TOP).unwrap();
        assert!(v.starts_with("// SPDX-License-Identifier: Apache-2.0\n"));
        assert!(v.contains("module pmcg_filter_match("), "no named top");
        let top = &v[v.find("module pmcg_filter_match(").unwrap()..];
        let top = &top[..top.find("endmodule").unwrap()];
        // Every port the harness connects is declared with the harness's width.
        let decl = |dir: &str, name: &str, width: u32| {
            if width == 1 {
                format!("{dir} wire  {name};")
            } else {
                format!("{dir} wire  [{}:0] {name};", width - 1)
            }
        };
        for (name, width) in input_ports(&cfg) {
            let d = decl("input", &name, width);
            assert!(top.contains(&d), "no `{d}` in:\n{top}");
        }
        for n in 0..cfg.counters {
            let d = format!("output reg  [3:0] match_nx${n};");
            assert!(top.contains(&d), "no `{d}` in:\n{top}");
        }
        assert!(!top.contains("match_nx$3"), "three counters");
        // A planted fault changes the text (its Verilator model is a different build).
        let f = filter_match_verilog(&cfg, Some(MatchFault::StaleAccept), FILTER_MATCH_TOP);
        assert_ne!(v, f.unwrap());
    }

    #[test]
    fn the_harness_drives_every_lane_input_from_its_own_shift_register_bits() {
        let (v, ffs) = harness_verilog(&cfg());
        assert!(v.contains("pmcg_filter_match dut (\n        .clock(PCLK)"));
        assert!(v.contains(".rst(sh[0:0])"));
        assert!(v.contains(".lane_events$0(sh[32:1])") && v.contains(".lane_events$1(sh[64:33])"));
        assert!(v.contains(".match_nx$0(outs[3:0])") && v.contains(".match_nx$2(outs[11:8])"));
        // Inputs: rst, two lanes of (32 + 32 + 8 + 1 + 32 + 64), then 347 bits of controls and
        // loads; outputs: three 4-bit matches, an XOR tree of 12 bits: 3 registers, then SOUT.
        let ins = 1 + 2 * 169 + 347;
        assert_eq!(ffs, ins + 12 + 3 + 1);
    }
}
