//! `FreshFlags`: per-counter "not written since reset" flags of EVTYPERn and SMRn, whose
//! readback words live in block RAM (no reset), looked up like the RAM: with the live element
//! index at every edge, into a register.
//!
//! ```text
//!   rd_idx (live PADDR[7:2]) ──► evt[rd_idx], smr[rd_idx] ──► evt_sel, smr_sel (registered:
//!                                                            the access cycle's flags)
//!   rst (registered reset) ──► every flag 1;  wr_evt / wr_smr at wr_idx ──► that flag 0
//! ```
//! In a transfer's access cycle `evt_sel` says whether the addressed EVTYPER reads its reset
//! value instead of the RAM word, from one flip-flop (an AND-OR over every counter's flag in
//! the access cycle was the 16x32 critical path). A flag written at edge e is seen by a lookup
//! at edge e + 1 or later (a transfer is set up after the previous one's access edge); a reset
//! at edge e is seen by the lookup at edge e itself (a reset may fall on a read's setup edge,
//! and its access cycle must then read reset values).
//!
//! A hand-written primitive like `BitPack` (rust-hdl kernels cannot index a vector by a
//! signal): `update` and `hdl` are the same logic. Block-level tests: tests/fresh_flags.rs, on
//! both writings against a model (and every co-simulation test runs the Verilog:
//! tests/registers.rs reads every register after reset, after writes and after a second reset).

use rust_hdl::prelude::*;

pub struct FreshFlags {
    pub clock: Signal<In, Clock>,
    /// Every flag is set at this edge (the registered reset).
    pub rst: Signal<In, Bit>,
    /// The element whose flags are looked up at this edge (live).
    pub rd_idx: Signal<In, Bits<6>>,
    /// EVTYPER / SMR `wr_idx` is written at this edge: its flag clears.
    pub wr_evt: Signal<In, Bit>,
    pub wr_smr: Signal<In, Bit>,
    pub wr_idx: Signal<In, Bits<6>>,
    /// The flags of `rd_idx` at the last edge: before that edge's write, but 1 when that edge
    /// was a reset edge.
    pub evt_sel: Signal<Out, Bit>,
    pub smr_sel: Signal<Out, Bit>,
    evt: Vec<bool>,
    smr: Vec<bool>,
}

impl FreshFlags {
    /// Flags for `counters` (1-64) elements; every flag starts set (the design is reset first).
    pub fn new(counters: usize) -> Self {
        assert!(
            (1..=64).contains(&counters),
            "FreshFlags takes 1-64 counters, not {counters}"
        );
        FreshFlags {
            clock: Default::default(),
            rst: Default::default(),
            rd_idx: Default::default(),
            wr_evt: Default::default(),
            wr_smr: Default::default(),
            wr_idx: Default::default(),
            // 1 before the first edge, as the Verilog's `initial` (tests/fresh_flags.rs).
            evt_sel: Signal::new_with_default(true),
            smr_sel: Signal::new_with_default(true),
            evt: vec![true; counters],
            smr: vec![true; counters],
        }
    }
}

impl Logic for FreshFlags {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            // An index beyond the counters (an address outside the arrays) reads 1: its
            // word is never used.
            // A reset at this edge reads as reset (the registers it stands for are reset at
            // this edge, and the access cycle after it must read their reset values).
            let rd = self.rd_idx.val().index();
            let rst = self.rst.val();
            self.evt_sel.next = rst || self.evt.get(rd).copied().unwrap_or(true);
            self.smr_sel.next = rst || self.smr.get(rd).copied().unwrap_or(true);
            let wr = self.wr_idx.val().index();
            if self.rst.val() {
                self.evt.iter_mut().for_each(|f| *f = true);
                self.smr.iter_mut().for_each(|f| *f = true);
            } else {
                if self.wr_evt.val() && wr < self.evt.len() {
                    self.evt[wr] = false;
                }
                if self.wr_smr.val() && wr < self.smr.len() {
                    self.smr[wr] = false;
                }
            }
        }
    }
    fn connect(&mut self) {
        self.evt_sel.connect();
        self.smr_sel.connect();
    }
    fn hdl(&self) -> Verilog {
        let n = self.evt.len();
        let mut v = format!("reg [{}:0] evt_f;\nreg [{}:0] smr_f;\n", n - 1, n - 1);
        v += &format!(
            "initial begin\n   evt_f = {{{n}{{1'b1}}}};\n   smr_f = {{{n}{{1'b1}}}};\n   \
             evt_sel = 1'b1;\n   smr_sel = 1'b1;\nend\n\n"
        );
        v += "always @(posedge clock) begin\n";
        v += &format!(
            "   evt_sel <= rst | (({{1'b0, rd_idx}} < 7'd{n}) ? evt_f[rd_idx] : 1'b1);\n   \
             smr_sel <= rst | (({{1'b0, rd_idx}} < 7'd{n}) ? smr_f[rd_idx] : 1'b1);\n"
        );
        v += &format!(
            "   if (rst) begin\n      evt_f <= {{{n}{{1'b1}}}};\n      smr_f <= {{{n}{{1'b1}}}};\n   \
             end else begin\n      \
             if (wr_evt && {{1'b0, wr_idx}} < 7'd{n}) evt_f[wr_idx] <= 1'b0;\n      \
             if (wr_smr && {{1'b0, wr_idx}} < 7'd{n}) smr_f[wr_idx] <= 1'b0;\n   end\n"
        );
        v += "end\n";
        Verilog::Custom(v)
    }
}

impl Block for FreshFlags {
    fn connect_all(&mut self) {
        self.connect();
        self.clock.connect_all();
        self.rst.connect_all();
        self.rd_idx.connect_all();
        self.wr_evt.connect_all();
        self.wr_smr.connect_all();
        self.wr_idx.connect_all();
        self.evt_sel.connect_all();
        self.smr_sel.connect_all();
    }
    fn update_all(&mut self) {
        self.update();
        self.clock.update_all();
        self.rst.update_all();
        self.rd_idx.update_all();
        self.wr_evt.update_all();
        self.wr_smr.update_all();
        self.wr_idx.update_all();
        self.evt_sel.update_all();
        self.smr_sel.update_all();
    }
    fn has_changed(&self) -> bool {
        self.clock.has_changed()
            || self.rst.has_changed()
            || self.rd_idx.has_changed()
            || self.wr_evt.has_changed()
            || self.wr_smr.has_changed()
            || self.wr_idx.has_changed()
            || self.evt_sel.has_changed()
            || self.smr_sel.has_changed()
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        probe.visit_start_scope(name, self);
        self.clock.accept("clock", probe);
        self.rst.accept("rst", probe);
        self.rd_idx.accept("rd_idx", probe);
        self.wr_evt.accept("wr_evt", probe);
        self.wr_smr.accept("wr_smr", probe);
        self.wr_idx.accept("wr_idx", probe);
        self.evt_sel.accept("evt_sel", probe);
        self.smr_sel.accept("smr_sel", probe);
        probe.visit_end_scope(name, self);
    }
}
