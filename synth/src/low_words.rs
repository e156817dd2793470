//! The low words (`pmcg_hdl::low_words::LowWords`: bits [L-1:0] of every counter and shadow, the
//! carry out to the bank, the exact overflow, the write merge, the shadows' load and the read
//! mux's low-word AND-OR) emitted on their own, with a plain top module name
//! ([`LOW_WORDS_TOP`]), for their block-level tests (tests/low_words.rs: the same seeded stimulus
//! on the native block and on this Verilog under Verilator, against a plain-Rust model of the
//! contract) and through Yosys alone (a resource harness in the files of [`crate::flow::files`]).
//!
//! ```text
//!   LowWords::new(lo_reset, lo_bits, wide, fault) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//!   SIN ─► shift register ─► rst, count$n, wr_sel, .., csel, ssel (every input a register)
//!   mcarry, carry, ovf, gc$g, gs$g ─► register ─► XOR tree ─► SOUT (every output observed)
//! ```
//! rust-hdl names a port vector's elements `name$i`: counter n's addend is `count$n`, group g's
//! low words `gc$g` and `gs$g`.

use crate::flow::FlowError;
use pmcg_hdl::low_words::{LowWords, LowWordsFault, LOW_READ_GROUPS};
use std::path::Path;

/// The block's Verilog module name when emitted alone.
pub const LOW_WORDS_TOP: &str = "pmcg_low_words";

/// The Verilog of the low words of `lo_reset.len()` counters of `lo_bits` bits with reset values
/// `lo_reset`, 64-bit counters if `wide` (with `fault` planted, for the tests that must catch
/// it), top module `top`. The same inputs give the same text.
pub fn low_words_verilog(
    lo_reset: &[u64],
    lo_bits: u32,
    wide: bool,
    fault: Option<LowWordsFault>,
    top: &str,
) -> Result<String, String> {
    crate::block_verilog(
        &mut LowWords::new(lo_reset, lo_bits, wide, fault),
        top,
        "low words (LowWords)",
        &format!("lo_reset = {lo_reset:?}, lo_bits = {lo_bits}, wide = {wide}, fault = {fault:?}"),
    )
}

/// The harness around the low words of `counters` counters of `lo_bits` bits (module
/// `pmcg_harness`, the flow's top; `flow`'s shift-register harness), and how many flip-flops it
/// adds. The write's byte mask and data take `lo_bits` bits, zero-extended to the ports' 16, as
/// the register file drives them (its write data masked to bits [L-1:0]): the rest is random.
pub fn harness_verilog(counters: usize, lo_bits: u32) -> (String, u64) {
    let port = |name: &str, width: u32| (name.to_string(), width);
    let mut ins = vec![port("rst", 1)];
    ins.extend((0..counters).map(|n| (format!("count${n}"), 4)));
    ins.extend([
        port("wr_sel", 64),
        port("wr_bmask", lo_bits),
        port("wr_bits", lo_bits),
        port("m_at_max", 64),
        port("at_max", 64),
        port("pair_sel", 64),
        port("pend", 64),
        port("ones0", 1),
        port("wrap0", 1),
        port("ones1", 1),
        port("wrap1", 1),
        port("svr_load", 1),
        port("csel", 64),
        port("ssel", 64),
    ]);
    let mut outs = vec![port("mcarry", 64), port("carry", 64), port("ovf", 64)];
    outs.extend((0..LOW_READ_GROUPS).map(|g| (format!("gc${g}"), 16)));
    outs.extend((0..LOW_READ_GROUPS).map(|g| (format!("gs${g}"), 16)));
    crate::flow::shift_register_harness(
        "every low-word input from a shift register, every output observed",
        LOW_WORDS_TOP,
        "clock",
        &ins,
        &outs,
    )
}

/// Writes the low words' Verilog and harness into `work` (created) and runs Yosys there.
pub fn synthesize_low_words(
    lo_reset: &[u64],
    lo_bits: u32,
    wide: bool,
    work: &Path,
) -> Result<(), FlowError> {
    crate::flow::synthesize_block(
        work,
        low_words_verilog(lo_reset, lo_bits, wide, None, LOW_WORDS_TOP),
        harness_verilog(lo_reset.len(), lo_bits).0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_low_words_are_emitted_with_their_named_top_and_flat_ports() {
        let reset = [0x3FF, 0, 0x155, 7, 0x200];
        let v = low_words_verilog(&reset, 10, true, None, LOW_WORDS_TOP).unwrap();
        assert!(v.starts_with("// SPDX-License-Identifier: Apache-2.0\n"));
        assert!(v.contains("module pmcg_low_words("), "no named top");
        for port in [
            "input wire  rst;",
            "input wire  [3:0] count$0;",
            "input wire  [3:0] count$4;",
            "input wire  [63:0] wr_sel;",
            "input wire  [15:0] wr_bmask;",
            "input wire  svr_load;",
            "input wire  [63:0] ssel;",
            "output reg  [63:0] mcarry;",
            "output reg  [63:0] ovf;",
            "output reg  [15:0] gc$3;",
            "output reg  [15:0] gs$0;",
        ] {
            assert!(v.contains(port), "no `{port}` in:\n{v}");
        }
        assert!(!v.contains("count$5"), "five counters, five addends");
        // Each planted fault changes the text (its Verilator model is a different build), and so
        // do the parameters.
        for fault in [LowWordsFault::LostCarry, LowWordsFault::StaleShadow] {
            let f = low_words_verilog(&reset, 10, true, Some(fault), "t").unwrap();
            assert_ne!(
                v,
                f.replace("module t(", "module pmcg_low_words("),
                "{fault:?}"
            );
        }
        let narrow = low_words_verilog(&reset, 10, false, None, LOW_WORDS_TOP).unwrap();
        assert_ne!(v, narrow);
        assert_eq!(
            v,
            low_words_verilog(&reset, 10, true, None, LOW_WORDS_TOP).unwrap()
        );
    }

    #[test]
    fn the_harness_drives_every_counter_s_addend_from_its_own_shift_register_bits() {
        let (v, ffs) = harness_verilog(3, 9);
        // rst, 3 addends of 4 bits, wr_sel, then the write's 9-bit mask and data.
        assert!(v.contains(".rst(sh[0:0])") && v.contains(".count$2(sh[12:9])"));
        assert!(v.contains(".wr_sel(sh[76:13])") && v.contains(".wr_bmask(sh[85:77])"));
        assert!(v.contains(".wr_bits(sh[94:86])") && v.contains(".gs$3(outs[319:304])"));
        assert!(v.contains("pmcg_low_words dut (\n        .clock(PCLK)"));
        // 13 + 64 + 9 + 9 + 4 * 64 + 4 + 1 + 2 * 64 = 484 inputs, 3 * 64 + 8 * 16 = 320
        // outputs: an XOR tree of 80, 20, 5 and 2 registers, then SOUT.
        assert!(v.contains("reg [483:0] sh;"), "{v}");
        assert_eq!(ffs, 484 + 320 + (80 + 20 + 5 + 2) + 1);
    }
}
