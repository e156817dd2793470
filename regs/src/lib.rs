//! The PMCG's two plain-Rust sources of truth, with no rust-hdl dependency, so firmware, tools
//! and generators can use them as they are (SMMUv3 chapter 10):
//!
//! ```text
//!   config::CONFIG_KEYS ──► PmcgConfig (validated) ──► regmap::REGISTERS ──► RegisterMap
//!   (one key table)                                    (one declarative table, resolved per
//!                                                       configuration: offsets, fields, access,
//!                                                       resets, presence)
//! ```
//! `pmcg-hdl` re-exports both modules (`pmcg_hdl::config`, `pmcg_hdl::regmap`), so the RTL, the
//! reference model, the tests and the collateral generators all read the same tables.

pub mod config;
pub mod regmap;
