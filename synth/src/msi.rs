//! The MSI write master (`pmcg_hdl::msi::MsiMaster`) emitted on its own, with a plain top module
//! name ([`MSI_TOP`]), for its block-level tests (tests/msi_master.rs: the same random AXI4-Lite
//! traffic on the native block and on this Verilog under Verilator).
//!
//! ```text
//!   MsiMaster::default() ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//! ```

use pmcg_hdl::msi::MsiMaster;

/// The MSI master's Verilog module name when emitted alone.
pub const MSI_TOP: &str = "pmcg_msi";

/// The Verilog of the MSI master (it has no configuration), top module `top`.
pub fn msi_verilog(top: &str) -> Result<String, String> {
    crate::block_verilog(
        &mut MsiMaster::default(),
        top,
        "MSI write master (MsiMaster)",
        "no parameters",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_msi_master_is_emitted_with_its_named_top_and_flat_ports() {
        let v = msi_verilog(MSI_TOP).unwrap();
        assert!(v.starts_with("// SPDX-License-Identifier: Apache-2.0\n"));
        assert!(v.contains("module pmcg_msi("), "no named top");
        for port in [
            "input wire  awready;",
            "[1:0] bresp;",
            "input wire  issue;",
            "output reg  awvalid;",
            "[31:0] awaddr_hi;",
            "output reg  bready;",
            "output reg  abt;",
        ] {
            assert!(v.contains(port), "no `{port}` in:\n{v}");
        }
    }
}
