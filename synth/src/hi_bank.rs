//! The upper-word bank of 64-bit counters (`pmcg_hdl::hi_bank::HiBank`) emitted on its own, with
//! a plain top module name ([`HI_BANK_TOP`]), for its block-level tests (sim/src/hi_bank_sim.rs:
//! the same stimulus on the native block and on this Verilog under Verilator).
//!
//! ```text
//!   HiBank::new(counters, counter_bits - 32, HI_IDX_LSB, fault) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//! ```

use pmcg_hdl::hi_bank::{HiBank, HiBankFault, HI_IDX_LSB};

/// The bank's Verilog module name when emitted alone.
pub const HI_BANK_TOP: &str = "pmcg_hi_bank";

/// The Verilog of a `HiBank` of `counters` counters of `counter_bits` bits (with `fault` planted,
/// for the tests that must catch it), top module `top`. The same inputs give the same text.
pub fn hi_bank_verilog(
    counters: usize,
    counter_bits: u32,
    fault: Option<HiBankFault>,
    top: &str,
) -> Result<String, String> {
    crate::block_verilog(
        &mut HiBank::new(counters, counter_bits - 32, HI_IDX_LSB, fault),
        top,
        "upper-word bank (HiBank)",
        &format!("counters = {counters}, counter_bits = {counter_bits}, fault = {fault:?}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bank_is_emitted_with_its_named_top_and_flat_ports() {
        let v = hi_bank_verilog(4, 33, None, HI_BANK_TOP).unwrap();
        assert!(v.starts_with("// SPDX-License-Identifier: Apache-2.0\n"));
        assert!(v.contains("module pmcg_hi_bank("), "no named top");
        for port in [
            "[63:0] carry;",
            "[31:0] paddr;",
            "[63:0] tgt_sel;",
            "[31:0] wr_val;",
            "[31:0] pf;",
            "[31:0] spf;",
            "[63:0] pend;",
            "[63:0] at_max;",
        ] {
            assert!(v.contains(port), "no `{port}` in:\n{v}");
        }
        // A planted fault changes the text (so that its Verilator model is a different build).
        let f = hi_bank_verilog(4, 33, Some(HiBankFault::LateCopy), HI_BANK_TOP).unwrap();
        assert_ne!(v, f);
    }
}
