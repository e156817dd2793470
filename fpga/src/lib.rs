//! Board tops for FPGA prototypes of the PMCG (Alchitry Cu, Lattice iCE40-HX8K).
//!
//! No board top yet (fpga/README.md): board tops hold pins and constraints only, never PMCG
//! logic. The synthesis flow itself is `pmcg_synth::flow`, which measures the PMCG inside a
//! three-pin resource harness.
