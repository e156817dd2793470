//! The address decoder (`pmcg_hdl::decode::AddrDecode`) emitted on its own, with a plain top
//! module name ([`DECODE_TOP`]), for its block-level tests (tests/addr_decode.rs: every word of
//! the register map on the native block and on this Verilog under Verilator).
//!
//! ```text
//!   AddrDecode::new(cfg) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//! ```

use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::decode::AddrDecode;

/// The decoder's Verilog module name when emitted alone.
pub const DECODE_TOP: &str = "pmcg_decode";

/// The Verilog of the decoder of `cfg`'s register map, top module `top`. The same inputs give
/// the same text.
pub fn decoder_verilog(cfg: &PmcgConfig, top: &str) -> Result<String, String> {
    crate::block_verilog(
        &mut AddrDecode::new(cfg),
        top,
        "address decoder (AddrDecode)",
        &cfg.summary(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decoder_is_emitted_with_its_named_top_and_flat_ports() {
        let cfg = PmcgConfig::default();
        let v = decoder_verilog(&cfg, DECODE_TOP).unwrap();
        assert!(v.starts_with("// SPDX-License-Identifier: Apache-2.0\n"));
        assert!(v.contains("module pmcg_decode("), "no named top");
        for port in [
            "[31:0] paddr;",
            "input wire  xfer_nx;",
            "output reg  cr;",
            "[31:0] ro_val;",
            "output reg  ctr_xfer;",
            "[63:0] evc_sel;",
            "[63:0] arr_sel;",
        ] {
            assert!(v.contains(port), "no `{port}` in:\n{v}");
        }
        // Another configuration's map is another decoder.
        let four = PmcgConfig::parse_kv(["counters=4"]).unwrap();
        assert_ne!(v, decoder_verilog(&four, DECODE_TOP).unwrap());
    }
}
