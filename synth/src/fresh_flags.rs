//! The EVTYPER/SMR fresh flags (`pmcg_hdl::fresh_flags::FreshFlags`, a hand-written primitive: its
//! `update` and its `hdl` are two writings of one logic) emitted on its own, with a plain top
//! module name ([`FRESH_FLAGS_TOP`]), for its block-level tests (tests/fresh_flags.rs: the same
//! seeded stimulus on the native block and on this Verilog under Verilator, against a plain-Rust
//! model).
//!
//! ```text
//!   FreshFlags::new(counters) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//! ```

use pmcg_hdl::fresh_flags::FreshFlags;

/// The block's Verilog module name when emitted alone.
pub const FRESH_FLAGS_TOP: &str = "pmcg_fresh_flags";

/// The Verilog of the block for `counters` counters, top module `top`.
pub fn fresh_flags_verilog(counters: usize, top: &str) -> Result<String, String> {
    crate::block_verilog(
        &mut FreshFlags::new(counters),
        top,
        "EVTYPER/SMR fresh flags (FreshFlags)",
        &format!("counters = {counters}"),
    )
}
