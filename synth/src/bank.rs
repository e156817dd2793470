//! The hybrid counter bank (`pmcg_hdl::counter_bank`) through the strict iCE40 flow on its own:
//! its Verilog and a resource harness in the files of [`crate::flow::files`], so that
//! [`crate::flow::synthesize`] and [`crate::flow::place_and_route`] run it like the PMCG.
//!
//! ```text
//!   SIN ─► shift register ─► rst, op_*, inc[n] (every input a register, as in the PMCG)
//!   ovf, op_accept, rd_* ─► register ─► XOR ─► SOUT          (every output observed)
//! ```

use crate::flow::FlowError;
use pmcg_hdl::counter_bank::{BankShape, HybridBank};
use std::path::Path;

/// The bank's Verilog module name when emitted alone.
pub const BANK_TOP: &str = "pmcg_hybrid_bank";

/// The harness around the bank (module `pmcg_harness`, the flow's top; `flow`'s shift-register
/// harness), and how many flip-flops it adds.
pub fn harness_verilog(shape: &BankShape) -> (String, u64) {
    let port = |name: &str, width: u32| (name.to_string(), width);
    let mut ins = vec![
        port("rst", 1),
        port("op_valid", 1),
        port("op_write", 1),
        port("op_hi", 1),
        port("op_idx", 8),
        port("op_wdata", 32),
        port("op_strb", 4),
        port("op_svr", 1),
        port("capture", 1),
    ];
    ins.extend((0..shape.counters).map(|i| (format!("inc${i}"), 4)));
    let outs = [
        port("ovf", 64),
        port("op_accept", 1),
        port("rd_valid", 1),
        port("rd_lo", 32),
        port("rd_hi", 32),
    ];
    crate::flow::shift_register_harness(
        "every bank input from a shift register, every output observed",
        BANK_TOP,
        "clock",
        &ins,
        &outs,
    )
}

/// Writes the bank's Verilog and harness into `work` (created) and runs Yosys there.
pub fn synthesize_bank(shape: &BankShape, work: &Path) -> Result<(), FlowError> {
    crate::flow::synthesize_block(
        work,
        HybridBank::verilog(*shape, None, BANK_TOP),
        harness_verilog(shape).0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_harness_drives_every_counter_input_from_its_own_shift_register_bits() {
        let shape = BankShape {
            counters: 3,
            counter_bits: 40,
            low_bits: 8,
            max_inc: 2,
        };
        let (v, ffs) = harness_verilog(&shape);
        assert!(v.contains(".inc$0(sh[53:50])") && v.contains(".inc$2(sh[61:58])"));
        assert!(v.contains("reg [61:0] sh;") && v.contains(".capture(sh[49:49])"));
        assert!(v.contains("pmcg_hybrid_bank dut (\n        .clock(PCLK)"));
        // The XOR tree of 130 outputs: 33, 9 and 3 registers, then SOUT.
        assert_eq!(ffs, 62 + 130 + (33 + 9 + 3) + 1);
    }
}
