//! The capture trigger (`pmcg_hdl::capture_trigger::CaptureTrigger`) emitted on its own, with a
//! plain top module name ([`CAPTURE_TRIGGER_TOP`]), for its block-level tests
//! (tests/capture_trigger.rs: the same seeded stimulus on the native block and on this Verilog
//! under Verilator, against a plain-Rust model of the contract).
//!
//! ```text
//!   CaptureTrigger::new(counters, capture) ──► check_all ──► ModuleDefines("<top>") ──► Verilog
//! ```

use pmcg_hdl::capture_trigger::{CaptureFault, CaptureTrigger};

/// The block's Verilog module name when emitted alone.
pub const CAPTURE_TRIGGER_TOP: &str = "pmcg_capture_trigger";

/// The Verilog of the trigger of `counters` counters, with capture or not (`fault` planted for the
/// test that must catch it), top module `top`.
pub fn capture_trigger_verilog(
    counters: usize,
    capture: bool,
    fault: Option<CaptureFault>,
    top: &str,
) -> Result<String, String> {
    crate::block_verilog(
        &mut CaptureTrigger::new(counters, capture, fault),
        top,
        "capture trigger (CaptureTrigger)",
        &format!("counters = {counters}, capture = {capture}, fault = {fault:?}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trigger_is_emitted_with_its_named_top_and_its_ports() {
        let v = capture_trigger_verilog(64, true, None, CAPTURE_TRIGGER_TOP).unwrap();
        assert!(v.starts_with("// SPDX-License-Identifier: Apache-2.0\n"));
        assert!(v.contains("module pmcg_capture_trigger("), "no named top");
        for port in [
            "input wire  [63:0] ovfcap;",
            "input wire  capr;",
            "input wire  capt_req;",
            "output reg  svr_load;",
            "output reg  capt_ack;",
        ] {
            assert!(v.contains(port), "no `{port}` in:\n{v}");
        }
        let f = capture_trigger_verilog(64, true, Some(CaptureFault::LastGroupLost), "t");
        assert_ne!(
            v,
            f.unwrap()
                .replace("module t(", "module pmcg_capture_trigger(")
        );
    }
}
