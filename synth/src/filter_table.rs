//! The StreamID filter tables (`pmcg_hdl::filter_table::FilterTable`) emitted on their own, with
//! a plain top module name ([`FILTER_TABLE_TOP`]), for their block-level tests
//! (sim/src/filter_table_sim.rs: the same stimulus on the native block and on this Verilog under
//! Verilator) and through the strict iCE40 flow alone (a resource harness in the files of
//! [`crate::flow::files`], so that [`crate::flow::synthesize`] and
//! [`crate::flow::place_and_route`] run it like the PMCG).
//!
//! ```text
//!   FilterTable::new(shape, fault) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//!   SIN ─► shift register ─► rst, sid[l], start, col, care, val (every input a register)
//!   hit[l], busy, flip ─► register ─► XOR ─► SOUT                (every output observed)
//! ```

use crate::flow::FlowError;
use pmcg_hdl::filter_table::{FilterTable, FilterTableFault, TableShape};
use std::path::Path;

/// The tables' Verilog module name when emitted alone.
pub const FILTER_TABLE_TOP: &str = "pmcg_filter_table";

/// The Verilog of a `FilterTable` of `shape` (with `fault` planted, for the tests that must
/// catch it), top module `top`. The same inputs give the same text.
pub fn filter_table_verilog(
    shape: TableShape,
    fault: Option<FilterTableFault>,
    top: &str,
) -> Result<String, String> {
    let built_from = format!(
        "counters = {}, lanes = {}, sid_bytes = {}, fault = {fault:?}",
        shape.counters, shape.lanes, shape.sid_bytes
    );
    crate::block_verilog(
        &mut FilterTable::new(shape, fault),
        top,
        "StreamID filter tables (FilterTable)",
        &built_from,
    )
}

/// The harness around the tables (module `pmcg_harness`, the flow's top; `flow`'s
/// shift-register harness), and how many flip-flops it adds.
pub fn harness_verilog(shape: TableShape) -> (String, u64) {
    let port = |name: &str, width: u32| (name.to_string(), width);
    let mut ins = vec![
        port("rst", 1),
        port("start", 1),
        port("col", 6),
        port("care", 32),
        port("val", 32),
    ];
    ins.extend((0..shape.lanes).map(|l| (format!("sid${l}"), 32)));
    let mut outs = vec![port("busy", 1), port("flip", 1)];
    outs.extend((0..shape.lanes).map(|l| (format!("hit${l}"), 64)));
    crate::flow::shift_register_harness(
        "every filter-table input from a shift register, every output observed",
        FILTER_TABLE_TOP,
        "clock",
        &ins,
        &outs,
    )
}

/// Writes the tables' Verilog and harness into `work` (created) and runs Yosys there.
pub fn synthesize_filter_table(shape: TableShape, work: &Path) -> Result<(), FlowError> {
    crate::flow::synthesize_block(
        work,
        filter_table_verilog(shape, None, FILTER_TABLE_TOP),
        harness_verilog(shape).0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_are_emitted_with_their_named_top_and_one_memory_per_copy_lane_and_byte() {
        let shape = TableShape::new(20, 2, 12).unwrap();
        let v = filter_table_verilog(shape, None, FILTER_TABLE_TOP).unwrap();
        assert!(v.starts_with("// SPDX-License-Identifier: Apache-2.0\n"));
        assert!(v.contains("module pmcg_filter_table("), "no named top");
        for decl in [
            "[31:0] sid$0;",
            "[31:0] sid$1;",
            "[63:0] hit$1;",
            "reg [19:0] m0_0_0 [0:255];",
            "reg [19:0] m1_1_1 [0:255];",
        ] {
            assert!(v.contains(decl), "no `{decl}` in:\n{v}");
        }
        assert!(!v.contains("m0_0_2"), "12-bit StreamIDs take two bytes");
        // A planted fault changes the text (so that its Verilator model is a different build).
        let f = filter_table_verilog(shape, Some(FilterTableFault::NoCatchUp), FILTER_TABLE_TOP);
        assert_ne!(v, f.unwrap());
    }

    #[test]
    fn the_harness_drives_every_lane_from_its_own_shift_register_bits() {
        let (v, ffs) = harness_verilog(TableShape::new(8, 2, 16).unwrap());
        assert!(v.contains(".sid$0(sh[103:72])") && v.contains(".sid$1(sh[135:104])"));
        assert!(v.contains("pmcg_filter_table dut (\n        .clock(PCLK)"));
        // Inputs: rst, start, col (6), care, val, two StreamIDs; outputs: busy, flip, two hit words.
        // The XOR tree of 130 outputs: 33, 9 and 3 registers, then SOUT.
        assert_eq!(ffs, 136 + 130 + (33 + 9 + 3) + 1);
    }
}
