//! `Checked`: a [`Dut`] that steps a reference beside the backend under test and records the
//! first cycle at which their outputs differ. The CLI runs every script this way, so a script is
//! checked against the reference model on every cycle, not only at its `expect` lines.
//!
//! ```text
//!   PinInputs ─┬─► reference (Model) ──► out_ref ─┐
//!              └─► backend (native/verilator) ──► out ──► compare ──► first mismatch
//! ```

use crate::pins::{Dut, PinInputs, PinOutputs};

pub struct Checked<R: Dut, D: Dut> {
    pub reference: R,
    pub dut: D,
    cycle: u64,
    /// The first divergence: (cycle, reference outputs, backend outputs).
    pub mismatch: Option<(u64, PinOutputs, PinOutputs)>,
}

impl<R: Dut, D: Dut> Checked<R, D> {
    /// Counts cycles from 0 again (after cycles a caller does not number, e.g. a power-on reset).
    pub fn rebase(&mut self) {
        self.cycle = 0;
    }

    pub fn new(reference: R, dut: D) -> Self {
        Checked {
            reference,
            dut,
            cycle: 0,
            mismatch: None,
        }
    }
}

impl<R: Dut, D: Dut> Dut for Checked<R, D> {
    fn step(&mut self, inp: &PinInputs) -> PinOutputs {
        let expected = self.reference.step(inp);
        let out = self.dut.step(inp);
        if out != expected && self.mismatch.is_none() {
            self.mismatch = Some((self.cycle, expected, out));
        }
        self.cycle += 1;
        out
    }

    fn name(&self) -> &'static str {
        self.dut.name()
    }
}
