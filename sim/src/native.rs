//! `NativeDut`: the RustHDL design simulated natively, behind the pin-level [`Dut`] interface.
//!
//! ```text
//!   PinInputs ──► core.<port>.next ──► pclk=0, simulate() ──► outputs ──► pclk=1, simulate()
//! ```
//! It drives `simulate()` directly rather than rust-hdl's thread-per-testbench framework, which
//! hands off between threads on every edge (several times slower; field notes).

use crate::pins::{Dut, PinInputs, PinOutputs};
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::top::PmcgCore;
use rust_hdl::prelude::*;

/// Settling iterations allowed per half cycle before the design is declared non-convergent.
const MAX_SETTLE: usize = 200;

pub struct NativeDut {
    core: PmcgCore,
}

impl NativeDut {
    pub fn new(cfg: &PmcgConfig) -> Result<Self, pmcg_hdl::config::ConfigError> {
        let mut core = PmcgCore::new(cfg)?;
        core.connect_all();
        Ok(NativeDut { core })
    }

    fn settle(&mut self) {
        assert!(
            simulate(&mut self.core, MAX_SETTLE),
            "the PMCG design did not settle"
        );
    }
}

impl Dut for NativeDut {
    fn step(&mut self, inp: &PinInputs) -> PinOutputs {
        let c = &mut self.core;
        c.presetn.next = inp.presetn;
        c.psel.next = inp.psel;
        c.penable.next = inp.penable;
        c.pwrite.next = inp.pwrite;
        c.paddr.next = (inp.paddr as u64).into();
        c.pwdata.next = (inp.pwdata as u64).into();
        c.pstrb.next = (inp.pstrb as u64).into();
        c.pprot.next = (inp.pprot as u64).into();
        for (l, lane) in inp.lanes.iter().enumerate() {
            c.lane_valid[l].next = lane.valid;
            c.lane_events[l].next = (lane.events as u64).into();
            c.lane_sid[l].next = (lane.sid as u64).into();
            c.lane_ss[l].next = (lane.ss.code() as u64).into();
        }
        c.pclk.next = Clock { clk: false };
        self.settle();
        let c = &self.core;
        let out = PinOutputs {
            prdata: c.prdata.val().index() as u32,
            pready: c.pready.val(),
            pslverr: c.pslverr.val(),
            irq: c.irq.val(),
        };
        self.core.pclk.next = Clock { clk: true };
        self.settle();
        out
    }

    fn name(&self) -> &'static str {
        "native"
    }
}
