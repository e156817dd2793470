//! Verilog emission of the PMCG.
