//! RustHDL modules of the Arm SMMUv3 Performance Monitor Counter Group (PMCG), plus the two
//! plain-Rust modules everything else derives from: the validated configuration and the register map.
//!
//! ```text
//!            ┌──────────────────────────── PmcgCore (top.rs) ────────────────────────────┐
//!  APB4 ────►│ ApbCompleter ──reg req──► RegFile ──wr/matched──► Vec<EventCounter>        │──► irq
//!            │ (apb.rs)      ◄─rd data── (regfile.rs: match + filter) ◄─value/ovf── (counter.rs)
//!  lanes ───►│ lane registers (top.rs, the match stage) ──► RegFile                        │
//!            └────────────────────────────────────────────────────────────────────────────┘
//! ```
pub mod apb;
pub mod bitpack;
pub mod config;
pub mod counter;
pub mod regfile;
pub mod regmap;
pub mod top;
