//! `MatchRegs`: the counters' match registers, with a counter write's skip applied at the edge
//! before its access cycle.
//!
//! ```text
//!   d[n] (RegFile: next match count of counter n, 0 at a reset edge) ──┐
//!   registered: wr_next, wr_ns, evc_in, hiword, evc_sel[63:0], addr,  │
//!               pair_open, pair_key, nsra                              ▼
//!      ──► wskip (a counter write is performed in the next cycle) ──► skip[n] ? 0 : d[n]
//!                                                            ──► DFF ──► q[n]
//! ```
//!
//! A counter write skips the events of its access edge (SMMUv3 10.5.2.1; docs/behaviour.md):
//! its match register is cleared at the edge before its access cycle, so the access edge adds 0
//! and the counter's D logic needs no gate in front of its adder. Every counter write is held
//! (docs/behaviour.md "Counter and shadow accesses"), so that edge ends its last held cycle, and
//! the bus is stable since its setup: the decision reads only registers (the completer's
//! "last held cycle of a write" and its registered address and PPROT, the address decoder's
//! registered selects). It used to read the live PADDR decode at the setup edge, the 16x32
//! design's critical path. The high word of an open 64-bit pair is not a counter write of its
//! own (the pair's high write completes the pair; docs/behaviour.md, "split 64-bit writes").
//! PRESETn low in the last held cycle drops the write, but the next edge resets every match
//! register anyway, so the skip need not look at it. Its block-level test runs natively; the
//! Verilog of the same logic runs in every co-simulation test (the planted fault
//! WriteCountsEvents and the differential fail without the skip).

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
    /// cycle), and its security state is Non-secure.
    pub wr_next: Signal<In, Bit>,
    pub wr_ns: Signal<In, Bit>,
    /// Registered decode of the transfer's address: an EVCNTR word, its high word, the counter
    /// it selects (one-hot), and the address.
    pub evc_in: Signal<In, Bit>,
    pub hiword: Signal<In, Bit>,
    pub evc_sel: Signal<In, Bits<64>>,
    pub addr: Signal<In, Bits<32>>,
    /// Registered: a 64-bit pair is open, its low word's EVCNTR-relative address, and
    /// SCR.NSRA (Non-secure accesses to the counters are allowed).
    pub pair_open: Signal<In, Bit>,
    pub pair_key: Signal<In, Bits<32>>,
    pub nsra: Signal<In, Bit>,
    /// The match registers (reset value 0, like a DFF's).
    pub q: Vec<Signal<Out, Bits<4>>>,
    secure_impl: bool,
    evc_rel_mask: u32,
}

impl MatchRegs {
    /// `counters` match registers; `secure`: the Secure state is implemented (a Non-secure
    /// write without SCR.NSRA is ignored, so it skips nothing); `evc_rel_mask`: the address bits
    /// that name an EVCNTR word relative to the array (register map).
    pub fn new(counters: usize, secure: bool, evc_rel_mask: u32) -> Self {
        assert!(
            (1..=64).contains(&counters),
            "MatchRegs takes 1-64 counters, not {counters}"
        );
        MatchRegs {
            clock: Default::default(),
            d: (0..counters).map(|_| Default::default()).collect(),
            wr_next: Default::default(),
            wr_ns: Default::default(),
            evc_in: Default::default(),
            hiword: Default::default(),
            evc_sel: Default::default(),
            addr: Default::default(),
            pair_open: Default::default(),
            pair_key: Default::default(),
            nsra: Default::default(),
            q: (0..counters).map(|_| Default::default()).collect(),
            secure_impl: secure,
            evc_rel_mask,
        }
    }

    /// A counter write is performed in the next cycle (to the counter `evc_sel` selects). Its
    /// address being the open pair's high word completes the pair: no skip (SCR and the pair
    /// registers change only at access edges).
    fn write_skip(&self) -> bool {
        let addr = self.addr.val().index() as u32;
        let pair_now = self.pair_open.val()
            && (addr & self.evc_rel_mask) == self.pair_key.val().index() as u32;
        self.wr_next.val()
            && !(self.secure_impl && self.wr_ns.val() && !self.nsra.val())
            && self.evc_in.val()
            && (!self.hiword.val() || !pair_now)
    }
}

impl Logic for MatchRegs {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let skip = self.write_skip();
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
        v += &format!(
            "wire pair_now = pair_open & ((addr & 32'h{:08x}) == pair_key);\n",
            self.evc_rel_mask
        );
        v += &format!(
            "wire wskip = wr_next & ~({} & wr_ns & ~nsra) & evc_in \
             & (~hiword | ~pair_now);\n",
            if self.secure_impl { "1'b1" } else { "1'b0" }
        );
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
        self.wr_ns.connect_all();
        self.evc_in.connect_all();
        self.hiword.connect_all();
        self.evc_sel.connect_all();
        self.addr.connect_all();
        self.pair_open.connect_all();
        self.pair_key.connect_all();
        self.nsra.connect_all();
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
        self.wr_ns.update_all();
        self.evc_in.update_all();
        self.hiword.update_all();
        self.evc_sel.update_all();
        self.addr.update_all();
        self.pair_open.update_all();
        self.pair_key.update_all();
        self.nsra.update_all();
        for s in &mut self.q {
            s.update_all();
        }
    }
    fn has_changed(&self) -> bool {
        self.clock.has_changed()
            || self.d.iter().any(|s| s.has_changed())
            || self.wr_next.has_changed()
            || self.wr_ns.has_changed()
            || self.evc_in.has_changed()
            || self.hiword.has_changed()
            || self.evc_sel.has_changed()
            || self.addr.has_changed()
            || self.pair_open.has_changed()
            || self.pair_key.has_changed()
            || self.nsra.has_changed()
            || self.q.iter().any(|s| s.has_changed())
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        probe.visit_start_scope(name, self);
        self.clock.accept("clock", probe);
        self.d.accept("d", probe);
        self.wr_next.accept("wr_next", probe);
        self.wr_ns.accept("wr_ns", probe);
        self.evc_in.accept("evc_in", probe);
        self.hiword.accept("hiword", probe);
        self.evc_sel.accept("evc_sel", probe);
        self.addr.accept("addr", probe);
        self.pair_open.accept("pair_open", probe);
        self.pair_key.accept("pair_key", probe);
        self.nsra.accept("nsra", probe);
        self.q.accept("q", probe);
        probe.visit_end_scope(name, self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::settle;

    /// Drives one clock cycle: inputs set in the low phase, then a rising edge; returns q.
    fn edge(uut: &mut MatchRegs, setup: impl Fn(&mut MatchRegs)) -> Vec<u64> {
        uut.clock.next = Clock::from(false);
        setup(uut);
        settle(uut, "MatchRegs");
        uut.clock.next = Clock::from(true);
        settle(uut, "MatchRegs");
        uut.q.iter().map(|q| q.val().to_u64()).collect()
    }

    fn idle(u: &mut MatchRegs) {
        for (n, d) in u.d.iter_mut().enumerate() {
            d.next = ((n as u64 % 4) + 1).into();
        }
        u.wr_next.next = false;
        u.wr_ns.next = false;
        u.evc_in.next = false;
        u.hiword.next = false;
        u.evc_sel.next = 0.into();
        u.addr.next = 0.into();
        u.pair_open.next = false;
        u.pair_key.next = 0.into();
        u.nsra.next = false;
    }

    /// A counter write performed in the next cycle clears only its counter's match; a read, a
    /// Non-secure write without NSRA and an open pair's high word clear nothing.
    #[test]
    fn a_set_up_counter_write_clears_only_its_match() {
        let mut uut = MatchRegs::new(3, true, 0xF8);
        uut.connect_all();
        assert_eq!(edge(&mut uut, idle), vec![1, 2, 3]);
        let write_to_1 = |u: &mut MatchRegs| {
            idle(u);
            u.wr_next.next = true;
            u.evc_in.next = true;
            u.evc_sel.next = 0b010.into();
            u.addr.next = 0x08.into();
        };
        assert_eq!(edge(&mut uut, write_to_1), vec![1, 0, 3]);
        assert_eq!(
            edge(&mut uut, |u| {
                write_to_1(u);
                u.wr_next.next = false;
            }),
            vec![1, 2, 3],
            "a read skips nothing"
        );
        assert_eq!(
            edge(&mut uut, |u| {
                write_to_1(u);
                u.wr_ns.next = true;
            }),
            vec![1, 2, 3],
            "a Non-secure write without SCR.NSRA is ignored, so it skips nothing"
        );
        assert_eq!(
            edge(&mut uut, |u| {
                write_to_1(u);
                u.wr_ns.next = true;
                u.nsra.next = true;
            }),
            vec![1, 0, 3],
            "with SCR.NSRA the Non-secure write counts"
        );
        assert_eq!(
            edge(&mut uut, |u| {
                write_to_1(u);
                u.hiword.next = true;
                u.pair_open.next = true;
                u.addr.next = 0x0C.into();
                u.pair_key.next = 0x08.into();
            }),
            vec![1, 2, 3],
            "the open pair's high word completes the pair: no skip"
        );
        assert_eq!(
            edge(&mut uut, |u| {
                write_to_1(u);
                u.hiword.next = true;
                u.pair_open.next = true;
                u.addr.next = 0x0C.into();
                u.pair_key.next = 0x10.into();
            }),
            vec![1, 0, 3],
            "a high word outside the open pair is a write of its own"
        );
    }
}
