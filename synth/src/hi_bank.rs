//! The upper-word bank (`pmcg_hdl::hi_bank::HiBank`, one or two rows per counter) emitted on its
//! own, with a plain top module name ([`HI_BANK_TOP`]), for its block-level tests
//! (sim/src/hi_bank_sim.rs: the same stimulus on the native block and on this Verilog under
//! Verilator) and through Yosys alone (a resource harness in the files of [`crate::flow::files`],
//! so that [`crate::flow::synthesize`] runs it like the PMCG).
//!
//! ```text
//!   HiBank::new(counters, row_bits, HI_IDX_LSB, fault) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//!   SIN ─► shift register ─► rst, paddr, tgt_sel, tgt_any, wr, svr_load,
//!                            carry$r, wr_val$r, wr_ones$r, wr_m1$r (every input a register)
//!   ready, pf$r, spf$r, pend$r, at_max$r ─► register ─► XOR ─► SOUT (every output observed)
//! ```
//! rust-hdl names a port vector's elements `name$i`: row r's ports are `carry$r`, `pf$r`, ...

use crate::flow::FlowError;
use pmcg_hdl::hi_bank::{HiBank, HiBankFault, HI_IDX_LSB};
use std::path::Path;

/// The bank's Verilog module name when emitted alone.
pub const HI_BANK_TOP: &str = "pmcg_hi_bank";

/// The Verilog of a `HiBank` of `counters` counters with rows of `row_bits` (1 or 2 rows of
/// 1-32 bits; with `fault` planted, for the tests that must catch it), top module `top`. The
/// same inputs give the same text.
pub fn hi_bank_verilog(
    counters: usize,
    row_bits: &[u32],
    fault: Option<HiBankFault>,
    top: &str,
) -> Result<String, String> {
    crate::block_verilog(
        &mut HiBank::new(counters, row_bits, HI_IDX_LSB, fault),
        top,
        "upper-word bank (HiBank)",
        &format!("counters = {counters}, row_bits = {row_bits:?}, fault = {fault:?}"),
    )
}

/// The harness around a bank with `rows` rows (module `pmcg_harness`, the flow's top; `flow`'s
/// shift-register harness), and how many flip-flops it adds.
pub fn harness_verilog(rows: usize) -> (String, u64) {
    let port = |name: &str, width: u32| (name.to_string(), width);
    let mut ins = vec![
        port("rst", 1),
        port("paddr", 32),
        port("tgt_sel", 64),
        port("tgt_any", 1),
        port("wr", 1),
        port("svr_load", 1),
    ];
    let mut outs = vec![port("ready", 1)];
    for r in 0..rows {
        for (name, width) in [("carry", 64), ("wr_val", 32), ("wr_ones", 1), ("wr_m1", 1)] {
            ins.push((format!("{name}${r}"), width));
        }
        for (name, width) in [("pf", 32), ("spf", 32), ("pend", 64), ("at_max", 64)] {
            outs.push((format!("{name}${r}"), width));
        }
    }
    crate::flow::shift_register_harness(
        "every upper-word bank input from a shift register, every output observed",
        HI_BANK_TOP,
        "clock",
        &ins,
        &outs,
    )
}

/// Writes the bank's Verilog and harness into `work` (created) and runs Yosys there.
pub fn synthesize_hi_bank(counters: usize, row_bits: &[u32], work: &Path) -> Result<(), FlowError> {
    crate::flow::synthesize_block(
        work,
        hi_bank_verilog(counters, row_bits, None, HI_BANK_TOP),
        harness_verilog(row_bits.len()).0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bank_is_emitted_with_its_named_top_and_flat_ports() {
        let v = hi_bank_verilog(4, &[1], None, HI_BANK_TOP).unwrap();
        assert!(v.starts_with("// SPDX-License-Identifier: Apache-2.0\n"));
        assert!(v.contains("module pmcg_hi_bank("), "no named top");
        for port in [
            "[63:0] carry$0;",
            "[31:0] paddr;",
            "[63:0] tgt_sel;",
            "[31:0] wr_val$0;",
            "wr_ones$0;",
            "wr_m1$0;",
            "[31:0] pf$0;",
            "[31:0] spf$0;",
            "ready;",
            "[63:0] pend$0;",
            "[63:0] at_max$0;",
        ] {
            assert!(v.contains(port), "no `{port}` in:\n{v}");
        }
        assert!(!v.contains("carry$1"), "one row, one carry port");
        // A planted fault changes the text (so that its Verilator model is a different build).
        let f = hi_bank_verilog(4, &[1], Some(HiBankFault::LateCopy), HI_BANK_TOP).unwrap();
        assert_ne!(v, f);
    }

    #[test]
    fn a_two_row_bank_has_each_row_s_ports_and_differs_by_row_widths() {
        let v = hi_bank_verilog(5, &[24, 8], None, HI_BANK_TOP).unwrap();
        for r in 0..2 {
            for port in [
                format!("[63:0] carry${r};"),
                format!("[31:0] wr_val${r};"),
                format!("wr_ones${r};"),
                format!("wr_m1${r};"),
                format!("[31:0] pf${r};"),
                format!("[31:0] spf${r};"),
                format!("[63:0] pend${r};"),
                format!("[63:0] at_max${r};"),
            ] {
                assert!(v.contains(&port), "no `{port}` in:\n{v}");
            }
        }
        assert!(!v.contains("carry$2"), "two rows, two carry ports");
        assert!(!v.contains("ready$"), "`ready` is shared");
        // The widths are the rows' (and so are the Verilator models' cache keys).
        let w = hi_bank_verilog(5, &[8, 24], None, HI_BANK_TOP).unwrap();
        assert_ne!(v, w);
    }

    #[test]
    fn the_harness_drives_every_row_from_its_own_shift_register_bits() {
        let (v, _) = harness_verilog(2);
        for port in [
            "carry$1", "wr_val$1", "wr_m1$1", "pf$1", "at_max$1", "ready",
        ] {
            assert!(v.contains(&format!(".{port}(")), "no `{port}` in:\n{v}");
        }
        assert!(v.contains("pmcg_hi_bank dut (\n        .clock(PCLK)"));
    }
}
