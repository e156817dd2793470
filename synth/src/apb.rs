//! The APB4 completer (`pmcg_hdl::apb::ApbCompleter`) emitted on its own, with a plain top module
//! name ([`APB_TOP`]), for its block-level tests (tests/apb_completer.rs: the same bus on the
//! native block and on this Verilog under Verilator).
//!
//! ```text
//!   RegisterMap::new(cfg) ──► ApbCompleter::new(&map, filter_tables) ──► check_all
//!       ──► ModuleDefines("<top>") ──► Verilog
//! ```

use pmcg_hdl::apb::ApbCompleter;
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::RegisterMap;

/// The completer's Verilog module name when emitted alone.
pub const APB_TOP: &str = "pmcg_apb";

/// The Verilog of the completer of `cfg`'s register map, with the filter tables' write wait
/// (`filter_tables`) or without, top module `top`. The same inputs give the same text.
pub fn completer_verilog(
    cfg: &PmcgConfig,
    filter_tables: bool,
    top: &str,
) -> Result<String, String> {
    let mut uut = ApbCompleter::new(&RegisterMap::new(cfg), filter_tables);
    let built_from = format!("{}, filter_tables = {filter_tables}", cfg.summary());
    crate::block_verilog(&mut uut, top, "APB4 completer (ApbCompleter)", &built_from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_completer_is_emitted_with_its_named_top_and_flat_ports() {
        let cfg = PmcgConfig::default();
        let v = completer_verilog(&cfg, false, APB_TOP).unwrap();
        assert!(v.starts_with("// SPDX-License-Identifier: Apache-2.0\n"));
        assert!(v.contains("module pmcg_apb("), "no named top");
        for port in [
            "input wire  psel;",
            "[31:0] paddr;",
            "output reg  pready;",
            "output reg  req_rd;",
            "[31:0] req_addr;",
            "output reg  xfer_nx;",
            "input wire  filt_busy;",
        ] {
            assert!(v.contains(port), "no `{port}` in:\n{v}");
        }
        // The filter tables' wait is a different build.
        assert_ne!(v, completer_verilog(&cfg, true, APB_TOP).unwrap());
    }
}
