//! The match registers (`pmcg_hdl::match_regs::MatchRegs`, a hand-written primitive: its `update`
//! and its `hdl` are two writings of one logic) emitted on its own, with a plain top module name
//! ([`MATCH_REGS_TOP`]), for its block-level tests (tests/match_regs.rs: the same seeded stimulus
//! on the native block and on this Verilog under Verilator, against a plain-Rust model).
//!
//! ```text
//!   MatchRegs::new(counters) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//! ```

use pmcg_hdl::match_regs::MatchRegs;

/// The block's Verilog module name when emitted alone.
pub const MATCH_REGS_TOP: &str = "pmcg_match_regs";

/// The Verilog of the block for `counters` counters, top module `top`.
pub fn match_regs_verilog(counters: usize, top: &str) -> Result<String, String> {
    crate::block_verilog(
        &mut MatchRegs::new(counters),
        top,
        "match registers (MatchRegs)",
        &format!("counters = {counters}"),
    )
}
