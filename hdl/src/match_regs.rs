//! `MatchRegs`: the counters' match registers, with a counter write's skip applied at the edge
//! before its access cycle.
//!
//! ```text
//!   d[n] (RegFile: next match count of counter n, 0 at a reset edge) ──┐
//!   registered: wr_next, arm, evc_sel[63:0]                            ▼
//!      ──► wskip = wr_next & arm ──► skip[n] = wskip & evc_sel[n] ──► skip[n] ? 0 : d[n]
//!                                                            ──► DFF ──► q[n]
//! ```
//!
//! A counter write skips the events of its access edge (SMMUv3 10.5.2.1; docs/behaviour.md):
//! its match register is cleared at the edge before its access cycle, so the access edge adds 0
//! and the counter's D logic needs no gate in front of its adder. Every counter write is held
//! (docs/behaviour.md "Counter and shadow accesses"), so that edge ends its last held cycle
//! (`wr_next`, the completer's register). Whether the transfer is a counter write that skips
//! (`arm`: an EVCNTR word the security state may write, and not the high word of an open
//! 64-bit pair, which completes the pair; docs/behaviour.md, "split 64-bit writes") is decided
//! by the register file a cycle earlier, into a register, from the bus and registers that are
//! stable through the hold. Deciding it here from the registered address, the pair's key and
//! SCR.NSRA was the 16x64 design's critical path (the pair compare in front of every match
//! register). PRESETn low in the last held cycle drops the write, but the next edge resets every
//! match register anyway, so the skip need not look at it. Block-level tests: tests/match_regs.rs,
//! on both writings against a model; the Verilog also runs in every co-simulation test (the
//! planted fault WriteCountsEvents and the differential fail without the skip).

use rust_hdl::prelude::*;

/// The match registers and their skip. A hand-written primitive (like `BitPack`): its registers
/// are its own outputs, so a clock edge reaches them and their value reaches RegFile in as few
/// settle passes as RegFile's own flip-flops (a block of DFFs behind output copies cost the
/// native simulation two passes per cycle). `update` and `hdl` are the same logic.
pub struct MatchRegs {
    pub clock: Signal<In, Clock>,
    /// Counter n's match count for the next edge, before the write's skip.
    pub d: Vec<Signal<In, Bits<4>>>,
    /// Registered: the last held cycle of a counter-region write (it is performed in the next
    /// cycle).
    pub wr_next: Signal<In, Bit>,
    /// Registered: the transfer, if it is a write, skips the events of the counter `evc_sel`
    /// selects (one-hot).
    pub arm: Signal<In, Bit>,
    pub evc_sel: Signal<In, Bits<64>>,
    /// The match registers (reset value 0, like a DFF's).
    pub q: Vec<Signal<Out, Bits<4>>>,
}

impl MatchRegs {
    /// `counters` match registers.
    pub fn new(counters: usize) -> Self {
        assert!(
            (1..=64).contains(&counters),
            "MatchRegs takes 1-64 counters, not {counters}"
        );
        MatchRegs {
            clock: Default::default(),
            d: (0..counters).map(|_| Default::default()).collect(),
            wr_next: Default::default(),
            arm: Default::default(),
            evc_sel: Default::default(),
            q: (0..counters).map(|_| Default::default()).collect(),
        }
    }
}

impl Logic for MatchRegs {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let skip = self.wr_next.val() & self.arm.val();
            for n in 0..self.q.len() {
                self.q[n].next = if skip && self.evc_sel.val().get_bit(n) {
                    0.into()
                } else {
                    self.d[n].val()
                };
            }
        }
    }
    fn connect(&mut self) {
        for q in &mut self.q {
            q.connect();
        }
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::new();
        v += "wire wskip = wr_next & arm;\n";
        v += "initial begin\n";
        for n in 0..self.q.len() {
            v += &format!("   q${n} = 4'h0;\n");
        }
        v += "end\n\nalways @(posedge clock) begin\n";
        for n in 0..self.q.len() {
            v += &format!("   q${n} <= (wskip & evc_sel[{n}]) ? 4'h0 : d${n};\n");
        }
        v += "end\n";
        Verilog::Custom(v)
    }
}

impl Block for MatchRegs {
    fn connect_all(&mut self) {
        self.connect();
        self.clock.connect_all();
        for s in &mut self.d {
            s.connect_all();
        }
        self.wr_next.connect_all();
        self.arm.connect_all();
        self.evc_sel.connect_all();
        for s in &mut self.q {
            s.connect_all();
        }
    }
    fn update_all(&mut self) {
        self.update();
        self.clock.update_all();
        for s in &mut self.d {
            s.update_all();
        }
        self.wr_next.update_all();
        self.arm.update_all();
        self.evc_sel.update_all();
        for s in &mut self.q {
            s.update_all();
        }
    }
    fn has_changed(&self) -> bool {
        self.clock.has_changed()
            || self.d.iter().any(|s| s.has_changed())
            || self.wr_next.has_changed()
            || self.arm.has_changed()
            || self.evc_sel.has_changed()
            || self.q.iter().any(|s| s.has_changed())
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        probe.visit_start_scope(name, self);
        self.clock.accept("clock", probe);
        self.d.accept("d", probe);
        self.wr_next.accept("wr_next", probe);
        self.arm.accept("arm", probe);
        self.evc_sel.accept("evc_sel", probe);
        self.q.accept("q", probe);
        probe.visit_end_scope(name, self);
    }
}
