//! The filter decoder (`pmcg_hdl::filter_decode::FilterDecoder`) emitted on its own, with a
//! plain top module name ([`FILTER_DECODE_TOP`]), for its block-level tests
//! (tests/filter_decode.rs: the same random writes on the native block and on this Verilog under
//! Verilator, against the plain-Rust `FilterDecode`) and through Yosys alone (a resource harness
//! in the files of [`crate::flow::files`]).
//!
//! ```text
//!   FilterDecoder::new(cfg, fault) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//!   SIN ─► shift register ─► load, evt, smr (every input a register)
//!   sel, cyc, care, mode, smr_q ─► register ─► XOR tree ─► SOUT   (every output observed)
//! ```

use crate::flow::FlowError;
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::filter_decode::{DecoderFault, FilterDecoder};
use std::path::Path;

/// The decoder's Verilog module name when emitted alone.
pub const FILTER_DECODE_TOP: &str = "pmcg_filter_decode";

/// The Verilog of the decoder of `cfg` (with `fault` planted, for the test that must catch
/// it), top module `top`.
pub fn filter_decode_verilog(
    cfg: &PmcgConfig,
    fault: Option<DecoderFault>,
    top: &str,
) -> Result<String, String> {
    crate::block_verilog(
        &mut FilterDecoder::new(cfg, fault),
        top,
        "filter decoder (FilterDecoder)",
        &format!("{}, fault = {fault:?}", cfg.summary()),
    )
}

/// The harness around the decoder (module `pmcg_harness`, the flow's top) and how many
/// flip-flops it adds.
pub fn harness_verilog() -> (String, u64) {
    let port = |name: &str, width: u32| (name.to_string(), width);
    crate::flow::shift_register_harness(
        "every filter-decoder input from a shift register, every output observed",
        FILTER_DECODE_TOP,
        "clock",
        &[port("load", 1), port("evt", 32), port("smr", 32)],
        &[
            port("sel", 7),
            port("cyc", 1),
            port("care", 32),
            port("mode", 13),
            port("smr_q", 32),
        ],
    )
}

/// Writes the decoder's Verilog and harness into `work` (created) and runs Yosys there.
pub fn synthesize_filter_decode(cfg: &PmcgConfig, work: &Path) -> Result<(), FlowError> {
    crate::flow::synthesize_block(
        work,
        filter_decode_verilog(cfg, None, FILTER_DECODE_TOP),
        harness_verilog().0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decoder_is_emitted_with_its_named_top_and_its_ports() {
        let cfg = PmcgConfig::default();
        let v = filter_decode_verilog(&cfg, None, FILTER_DECODE_TOP).unwrap();
        assert!(v.starts_with("// SPDX-License-Identifier: Apache-2.0\n"));
        assert!(v.contains("module pmcg_filter_decode("), "no named top");
        for port in [
            "input wire  load;",
            "input wire  [31:0] evt;",
            "output reg  [6:0] sel;",
            "output reg  [12:0] mode;",
            "output reg  [31:0] smr_q;",
        ] {
            assert!(v.contains(port), "no `{port}` in:\n{v}");
        }
        // A planted fault changes the text (its Verilator model is a different build).
        let f = filter_decode_verilog(&cfg, Some(DecoderFault::StaleMatchAll), FILTER_DECODE_TOP);
        assert_ne!(v, f.unwrap());
    }
}
