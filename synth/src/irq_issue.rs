//! The interrupt and MSI issue block (`pmcg_hdl::irq_issue::IrqIssue`) emitted on its own, with a
//! plain top module name ([`IRQ_ISSUE_TOP`]), for its block-level tests (tests/irq_issue.rs: the
//! same seeded stimulus on the native block and on this Verilog under Verilator, against a
//! plain-Rust model of the contract).
//!
//! ```text
//!   IrqIssue::new(msi, fault) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//! ```

use pmcg_hdl::irq_issue::{IrqFault, IrqIssue};

/// The block's Verilog module name when emitted alone.
pub const IRQ_ISSUE_TOP: &str = "pmcg_irq_issue";

/// The Verilog of the block (with the MSI or not, `fault` planted for the test that must catch
/// it), top module `top`.
pub fn irq_issue_verilog(msi: bool, fault: Option<IrqFault>, top: &str) -> Result<String, String> {
    crate::block_verilog(
        &mut IrqIssue::new(msi, fault),
        top,
        "interrupt and MSI issue (IrqIssue)",
        &format!("msi = {msi}, fault = {fault:?}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issue_block_is_emitted_with_its_named_top_and_its_ports() {
        let v = irq_issue_verilog(true, None, IRQ_ISSUE_TOP).unwrap();
        assert!(v.starts_with("// SPDX-License-Identifier: Apache-2.0\n"));
        assert!(v.contains("module pmcg_irq_issue("), "no named top");
        for port in [
            "input wire  [63:0] ovf;",
            "input wire  busy;",
            "output reg  irq;",
            "output reg  issue;",
            "output reg  owed_next;",
        ] {
            assert!(v.contains(port), "no `{port}` in:\n{v}");
        }
        let f = irq_issue_verilog(true, Some(IrqFault::DropPendingWhenDisabled), IRQ_ISSUE_TOP);
        assert_ne!(v, f.unwrap(), "the planted fault is not in the text");
    }
}
