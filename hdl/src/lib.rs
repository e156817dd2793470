//! RustHDL modules of the Arm SMMUv3 Performance Monitor Counter Group (PMCG), plus the two
//! plain-Rust modules everything else derives from: the validated configuration and the register map.
//!
//! ```text
//!            ┌──────────────────────────── PmcgCore (top.rs) ────────────────────────────┐
//!  APB4 ────►│ ApbCompleter ──reg req──► RegFile ──wr/en──► Vec<EventCounter>             │──► irq
//!            │ (apb.rs)      ◄─rd data── (regfile.rs) ◄─value/ovf── (counter.rs)          │
//!  lanes ───►│ MatchStage (matcher.rs) ──matched──► RegFile ──► counters                  │
//!            └────────────────────────────────────────────────────────────────────────────┘
//! ```
pub mod apb;
pub mod bitpack;
pub mod config;
pub mod counter;
pub mod matcher;
pub mod regfile;
pub mod regmap;
pub mod top;
