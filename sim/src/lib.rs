//! Simulation side of the PMCG: the pin-level interface shared by every backend, the native
//! RustHDL backend, the Verilator backend (emitted Verilog) and its run-time model builder.
//!
//! ```text
//!   pins::Driver ──► dyn Dut ──┬─ native::NativeDut   (RustHDL simulate())
//!                              └─ vdut::VerilatorDut  (emitted Verilog via verilator::VerilatedModel)
//! ```
pub mod axi;
pub mod bank_model;
pub mod bank_sim;
pub mod checked;
pub mod filter_table_sim;
pub mod hi_bank_sim;
pub mod model;
pub mod native;
pub mod pins;
pub mod script;
pub mod stimulus;
pub mod testbench;
pub mod vdut;
pub mod verilator;
