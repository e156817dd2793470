//! RustHDL modules of the Arm SMMUv3 Performance Monitor Counter Group (PMCG), plus the two
//! plain-Rust modules everything else derives from: the validated configuration and the register map.
//!
//! ```text
//!            ┌──────────────────────────── PmcgCore (top.rs) ───────────────────────────┐
//!  APB4 ────►│ ApbCompleter ──reg req──► RegFile ──wr/cfg──► CounterBank (Vec<EventCounter>)│──► irq
//!  lanes ───►│ (apb.rs)      ◄─rd data── (regfile.rs)  ◄─values/ovf─ (counter.rs)        │
//!            └───────────────────────────────────────────────────────────────────────────┘
//! ```
pub mod config;
pub mod regmap;
