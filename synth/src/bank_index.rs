//! An upper-word bank's index register (`pmcg_hdl::hi_bank_index::BankIndex`) emitted on its
//! own, with a plain top module name ([`BANK_INDEX_TOP`]), for its block-level tests
//! (tests/bank_index.rs: the same seeded edges on the native block and on this Verilog under
//! Verilator, against a plain-Rust model).
//!
//! ```text
//!   BankIndex::new(idx_lsb) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//! ```

use pmcg_hdl::hi_bank_index::BankIndex;

/// The block's Verilog module name when emitted alone.
pub const BANK_INDEX_TOP: &str = "pmcg_bank_index";

/// The Verilog of the block taking the element index from PADDR bit `idx_lsb` up, top module
/// `top`.
pub fn bank_index_verilog(idx_lsb: usize, top: &str) -> Result<String, String> {
    crate::block_verilog(
        &mut BankIndex::new(idx_lsb),
        top,
        "bank index register (BankIndex)",
        &format!("idx_lsb = {idx_lsb}"),
    )
}

/// The harness around the block (module `pmcg_harness`, the flow's top).
pub fn harness_verilog() -> String {
    let port = |name: &str, width: u32| (name.to_string(), width);
    crate::flow::shift_register_harness(
        "every bank-index input from a shift register, every output observed",
        BANK_INDEX_TOP,
        "clock",
        &[
            port("paddr", 32),
            port("pf_idx", 6),
            port("vis_idx", 6),
            port("sel_vis", 1),
            port("wr", 1),
        ],
        &[port("tgt_idx", 6), port("pf_eq", 1)],
    )
    .0
}

/// Writes the block's Verilog (8-byte stride) and harness into `work` (created) and runs Yosys
/// there.
pub fn synthesize_bank_index(work: &std::path::Path) -> Result<(), crate::flow::FlowError> {
    crate::flow::synthesize_block(
        work,
        bank_index_verilog(3, BANK_INDEX_TOP),
        harness_verilog(),
    )
}
