//! RustHDL modules of the Arm SMMUv3 Performance Monitor Counter Group (PMCG), plus the two
//! plain-Rust modules everything else derives from: the validated configuration and the register map.
//!
//! ```text
//!            ┌──────────────────────────── PmcgCore (top.rs) ────────────────────────┐
//!  APB4 ────►│ ApbCompleter (apb.rs) ──registered request──► RegFile (regfile.rs):   │──► irq
//!            │                       ◄──────── rd_data ───── registers, match and    │
//!  lanes ───►│ lane registers (the match stage) ──────────────► filter, counter bank │
//!            └───────────────────────────────────────────────────────────────────────┘
//! ```
pub mod apb;
pub mod bitpack;
pub mod config;
pub mod regfile;
pub mod regmap;
pub mod top;
