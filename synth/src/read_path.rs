//! The read data pipeline (`pmcg_hdl::read_path::ReadPath`, stage 2 of a register read: the
//! registered parts joined and the pending carry added) emitted on its own, with a plain top
//! module name ([`READ_PATH_TOP`]), for its block-level tests (tests/read_path.rs: the same
//! random stimulus on the native block and on this Verilog under Verilator, against a plain-Rust
//! adder) and through Yosys alone (a resource harness in the files of [`crate::flow::files`]).
//!
//! ```text
//!   ReadPath::new(counter_bits, lo_bits, fault) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//!   SIN ─► shift register ─► keep, done, word, misc, add, .., lo_c[g], lo_s[g], usec
//!   rd_data ─► register ─► XOR tree ─► SOUT                   (every output observed)
//! ```

use crate::flow::FlowError;
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::hi_bank::low_word_bits;
use pmcg_hdl::read_path::{ReadFault, ReadPath, READ_GROUPS};
use std::path::Path;

/// The read path's Verilog module name when emitted alone.
pub const READ_PATH_TOP: &str = "pmcg_read_path";

/// The Verilog of the read path of `counter_bits`-bit counters with `lo_bits`-bit low words
/// (with `fault` planted, for the tests that must catch it), top module `top`. The same inputs
/// give the same text.
pub fn read_path_verilog(
    counter_bits: u32,
    lo_bits: u32,
    fault: Option<ReadFault>,
    top: &str,
) -> Result<String, String> {
    crate::block_verilog(
        &mut ReadPath::new(counter_bits, lo_bits, fault),
        top,
        "read path (ReadPath)",
        &format!("counter_bits = {counter_bits}, lo_bits = {lo_bits}, fault = {fault:?}"),
    )
}

/// The harness around the read path (module `pmcg_harness`, the flow's top; `flow`'s
/// shift-register harness), and how many flip-flops it adds. The ports' widths do not depend on
/// the configuration.
pub fn harness_verilog() -> (String, u64) {
    let port = |name: &str, width: u32| (name.to_string(), width);
    let mut ins = vec![
        port("keep", 1),
        port("done", 1),
        port("word", 32),
        port("misc", 32),
        port("add", 1),
        port("lo1", 1),
        port("addm", 1),
        port("ctr", 32),
        port("cadd", 1),
        port("clo1", 1),
        port("caddm", 1),
        port("sl", 1),
        port("usec", 1),
    ];
    ins.extend((0..READ_GROUPS).map(|g| (format!("lo_c${g}"), 16)));
    ins.extend((0..READ_GROUPS).map(|g| (format!("lo_s${g}"), 16)));
    crate::flow::shift_register_harness(
        "every read-path input from a shift register, every output observed",
        READ_PATH_TOP,
        "clock",
        &ins,
        &[port("rd_data", 32)],
    )
}

/// The counter width and low-word width of the default configuration (64 counters of 64 bits,
/// one lane), the read path [`synthesize_read_path`] builds.
pub fn default_shape() -> (u32, u32) {
    let cfg = PmcgConfig::default();
    let lo_bits = low_word_bits(cfg.counters as usize, cfg.lanes as usize);
    (cfg.counter_bits, lo_bits)
}

/// Writes the read path's Verilog (the default configuration's widths, [`default_shape`]) and
/// harness into `work` (created) and runs Yosys there.
pub fn synthesize_read_path(work: &Path) -> Result<(), FlowError> {
    let (counter_bits, lo_bits) = default_shape();
    crate::flow::synthesize_block(
        work,
        read_path_verilog(counter_bits, lo_bits, None, READ_PATH_TOP),
        harness_verilog().0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_read_path_is_emitted_with_its_named_top_and_flat_group_ports() {
        let (bits, lo) = default_shape();
        let v = read_path_verilog(bits, lo, None, READ_PATH_TOP).unwrap();
        assert!(v.starts_with("// SPDX-License-Identifier: Apache-2.0\n"));
        assert!(v.contains("module pmcg_read_path("), "no named top");
        for port in [
            "input wire  keep;",
            "input wire  [31:0] word;",
            "input wire  [31:0] ctr;",
            "input wire  [15:0] lo_c$0;",
            "input wire  [15:0] lo_c$3;",
            "input wire  [15:0] lo_s$3;",
            "output reg  [31:0] rd_data;",
        ] {
            assert!(v.contains(port), "no `{port}` in:\n{v}");
        }
        // A planted fault changes the text (its Verilator model is a different build).
        let f = read_path_verilog(bits, lo, Some(ReadFault::LostHalfCarry), READ_PATH_TOP);
        assert_ne!(v, f.unwrap());
    }

    #[test]
    fn the_harness_drives_every_group_from_its_own_shift_register_bits() {
        let (v, ffs) = harness_verilog();
        // keep, done, word, misc, add, lo1, addm, ctr, cadd, clo1, caddm, sl, usec: 106 bits.
        assert!(v.contains(".usec(sh[105:105])") && v.contains(".lo_c$0(sh[121:106])"));
        assert!(v.contains(".lo_s$3(sh[233:218])") && v.contains("reg [233:0] sh;"));
        assert!(v.contains("pmcg_read_path dut (\n        .clock(PCLK)"));
        // The XOR tree of 32 outputs: 8 and 2 registers, then SOUT.
        assert_eq!(ffs, 234 + 32 + (8 + 2) + 1);
    }
}
