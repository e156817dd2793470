//! Board tops for FPGA prototypes of the PMCG (Alchitry Cu, Lattice iCE40-HX8K).
//!
//! Empty for now: board tops hold pins and constraints only, never PMCG logic; they arrive with
//! the synthesis issue.
