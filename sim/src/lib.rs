//! Simulation side of the PMCG: pin-level interface shared by every backend, the reference model,
//! the native RustHDL backend, the Verilator backend and the script runner.
pub mod pins;
