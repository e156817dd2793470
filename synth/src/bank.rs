//! The hybrid counter bank (`pmcg_hdl::counter_bank`) through the strict iCE40 flow on its own:
//! its Verilog and a resource harness in the files of [`crate::flow::files`], so that
//! [`crate::flow::synthesize`] and [`crate::flow::place_and_route`] run it like the PMCG.
//!
//! ```text
//!   SIN ─► shift register ─► rst, op_*, inc[n] (every input a register, as in the PMCG)
//!   ovf, op_accept, rd_* ─► register ─► XOR ─► SOUT          (every output observed)
//! ```

use crate::flow::{files, FlowError};
use pmcg_hdl::counter_bank::{BankShape, HybridBank};
use std::path::Path;

const BANK_TOP: &str = "pmcg_hybrid_bank";

/// The harness around the bank (module `pmcg_harness`, the flow's top), and how many
/// flip-flops it adds.
pub fn harness_verilog(shape: &BankShape) -> (String, u64) {
    let n = shape.counters;
    let n_in = 1 + 1 + 1 + 1 + 8 + 32 + 4 + 2 + 4 * n;
    let n_out = 64 + 1 + 1 + 32 + 32;
    let mut v = crate::spdx_line("//");
    v.push_str("// Resource harness of the hybrid counter bank: three pins.\n");
    v.push_str("module pmcg_harness(input wire PCLK, input wire SIN, output reg SOUT);\n");
    v.push_str(&format!(
        "    reg [{}:0] sh;\n    reg [{}:0] oq;\n    wire [63:0] ovf;\n    wire acc, rv;\n    wire [31:0] rl, rh;\n",
        n_in - 1,
        n_out - 1
    ));
    v.push_str(&format!(
        "    always @(posedge PCLK) begin\n        sh <= {{sh[{}:0], SIN}};\n        oq <= {{ovf, acc, rv, rl, rh}};\n        SOUT <= ^oq;\n    end\n",
        n_in - 2
    ));
    v.push_str(&format!(
        "    {BANK_TOP} dut (\n        .clock(PCLK), .rst(sh[0]), .op_valid(sh[1]), .op_write(sh[2]), .op_hi(sh[3]),\n        .op_idx(sh[11:4]), .op_wdata(sh[43:12]), .op_strb(sh[47:44]),\n        .op_svr(sh[48]), .capture(sh[49])"
    ));
    for i in 0..n {
        v.push_str(&format!(
            ",\n        .inc${i}(sh[{}:{}])",
            50 + 4 * i + 3,
            50 + 4 * i
        ));
    }
    v.push_str(",\n        .ovf(ovf), .op_accept(acc), .rd_valid(rv), .rd_lo(rl), .rd_hi(rh)\n    );\nendmodule\n");
    (v, (n_in + n_out + 1) as u64)
}

/// Writes the bank's Verilog and harness into `work` (created) and runs Yosys there.
pub fn synthesize_bank(shape: &BankShape, work: &Path) -> Result<(), FlowError> {
    let io = |what: String| move |error| FlowError::Io { what, error };
    std::fs::create_dir_all(work).map_err(io(format!("cannot create {}", work.display())))?;
    let verilog = HybridBank::verilog(*shape, None, BANK_TOP).map_err(|e| FlowError::Tool {
        tool: "rust-hdl".into(),
        what: e,
        log_tail: String::new(),
    })?;
    for (name, text) in [
        (files::PMCG, verilog),
        (files::HARNESS, harness_verilog(shape).0),
    ] {
        let path = work.join(name);
        std::fs::write(&path, text).map_err(io(format!("cannot write {}", path.display())))?;
    }
    crate::flow::synthesize(work)
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
        assert!(v.contains("reg [61:0] sh;") && v.contains(".capture(sh[49])"));
        assert_eq!(ffs, 62 + 130 + 1);
    }
}
