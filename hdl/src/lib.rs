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
pub mod counter_bank;
pub mod decode;
pub mod fresh_flags;
pub mod match_regs;
pub mod msi;
pub mod regfile;
pub mod top;

/// The configuration and the register map live in `pmcg-regs` (no rust-hdl dependency).
pub use pmcg_regs::{config, regmap};
