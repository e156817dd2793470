//! RustHDL modules of the Arm SMMUv3 Performance Monitor Counter Group (PMCG), plus the two
//! the two plain-Rust modules everything else derives from, re-exported from `pmcg-regs`: the
//! validated configuration and the register map.
//!
//! ```text
//!            ┌──────────────────────────── PmcgCore (top.rs) ────────────────────────┐
//!  APB4 ────►│ ApbCompleter (apb.rs) ──registered request──► RegFile (regfile.rs):   │──► irq, export
//!  PADDR ───►│ ──────────────────────────────► AddrDecode (decode.rs, in RegFile)     │
//!            │                       ◄──────── rd_data ───── registers, match and    │
//!  lanes ───►│ lane registers (the match stage) ──────────────► filter, counter bank,│
//!  CAPT_REQ ►│ capture request register ──────────────────────► capture bank        │──► CAPT_ACK
//!  AXI B/RDY►│ MsiMaster (msi.rs) ◄── issue, payload ── RegFile; busy, ACK, ABT ──►   │──► AXI AW/W
//!            └───────────────────────────────────────────────────────────────────────┘
//! ```
pub mod apb;
pub mod bitpack;
pub mod bram;
pub mod capture_trigger;
pub mod counter_bank;
pub mod decode;
pub mod filter_decode;
pub mod filter_match;
pub mod filter_table;
pub mod fresh_flags;
pub mod hi_bank;
pub mod hi_bank_index;
pub mod irq_issue;
pub mod match_regs;
pub mod msi;
pub mod regfile;
pub mod top;

/// The configuration and the register map live in `pmcg-regs` (no rust-hdl dependency).
pub use pmcg_regs::{config, regmap};

/// A 32-bit `Constant` (a value from the register map or the configuration; a localparam in
/// the Verilog).
pub(crate) fn c32(v: u64) -> rust_hdl::prelude::Constant<rust_hdl::prelude::Bits<32>> {
    rust_hdl::prelude::Constant::new(v.into())
}

/// Block-level test helpers shared by the blocks' own tests.
#[cfg(test)]
pub(crate) mod test_util {
    use rust_hdl::prelude::*;

    /// Updates `uut` until nothing changes (rust-hdl's `simulate`, with a bound); `what` names
    /// the block in the panic.
    pub fn settle(uut: &mut impl Block, what: &str) {
        for _ in 0..32 {
            uut.update_all();
            if !uut.has_changed() {
                return;
            }
        }
        panic!("{what} did not settle");
    }
}
