//! `MatchRegs`: the counters' match registers, with a counter write's skip applied at its setup
//! edge from the live address decode.
//!
//! ```text
//!   d[n] (RegFile: next match count of counter n, 0 at a reset edge) ──┐
//!   live: setup_wr_now, setup_ns_now, evc_in_now, hiword_now,         │
//!         evc_sel_now[63:0], PADDR; registered: pair_open, pair_key,  ▼
//!         nsra ──► wskip (a counter write is set up) ──► skip[n] ? 0 : d[n] ──► DFF ──► q[n]
//! ```
//!
//! A counter write skips the events of its access edge (SMMUv3 10.5.2.1; docs/behaviour.md):
//! its match register is cleared at the write's setup edge, so the access edge adds 0 and the
//! counter's D logic needs no gate in front of its adder. The decision needs the live decode of
//! PADDR, which changes between clock edges. It lives in this small block, not in RegFile's
//! kernel, so that RegFile reads only registers (q) and Verilator does not evaluate RegFile's
//! kernel whenever an APB input changes (that cost the 64x64 Verilator model 2.7x in speed).
//! The high word of an open 64-bit pair is not a counter write of its own (the pair's high
//! write completes the pair; docs/behaviour.md, "split 64-bit writes").

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct MatchRegs {
    pub clock: Signal<In, Clock>,
    /// Counter n's match count for the next edge, before the write's skip.
    pub d: Vec<Signal<In, Bits<4>>>,
    /// Live (setup cycle of the APB access): a write is set up, and its security state is
    /// Non-secure.
    pub setup_wr_now: Signal<In, Bit>,
    pub setup_ns_now: Signal<In, Bit>,
    /// Live decode of PADDR: an EVCNTR word, its high word, the counter it selects (one-hot).
    pub evc_in_now: Signal<In, Bit>,
    pub hiword_now: Signal<In, Bit>,
    pub evc_sel_now: Signal<In, Bits<64>>,
    pub paddr: Signal<In, Bits<32>>,
    /// Registered: a 64-bit pair is open, its low word's EVCNTR-relative address, and
    /// SCR.NSRA (Non-secure accesses to the counters are allowed).
    pub pair_open: Signal<In, Bit>,
    pub pair_key: Signal<In, Bits<32>>,
    pub nsra: Signal<In, Bit>,
    /// The match registers.
    pub q: Vec<Signal<Out, Bits<4>>>,
    regs: Vec<DFF<Bits<4>>>,
    secure_impl: Constant<Bit>,
    evc_rel_mask: Constant<Bits<32>>,
    pair_now: Signal<Local, Bit>,
    wskip: Signal<Local, Bit>,
}

impl MatchRegs {
    /// `counters` match registers; `secure`: the Secure state is implemented (a Non-secure
    /// write without SCR.NSRA is ignored, so it skips nothing); `evc_rel_mask`: the address bits
    /// that name an EVCNTR word relative to the array (register map).
    pub fn new(counters: usize, secure: bool, evc_rel_mask: u32) -> Self {
        MatchRegs {
            clock: Default::default(),
            d: (0..counters).map(|_| Default::default()).collect(),
            setup_wr_now: Default::default(),
            setup_ns_now: Default::default(),
            evc_in_now: Default::default(),
            hiword_now: Default::default(),
            evc_sel_now: Default::default(),
            paddr: Default::default(),
            pair_open: Default::default(),
            pair_key: Default::default(),
            nsra: Default::default(),
            q: (0..counters).map(|_| Default::default()).collect(),
            regs: (0..counters).map(|_| Default::default()).collect(),
            secure_impl: Constant::new(secure),
            evc_rel_mask: Constant::new(evc_rel_mask.to_bits()),
            pair_now: Default::default(),
            wskip: Default::default(),
        }
    }
}

impl Logic for MatchRegs {
    #[hdl_gen]
    fn update(&mut self) {
        // The setup address is the open pair's high word: that write completes the pair and
        // does not skip (SCR and the pair registers change only at access edges).
        self.pair_now.next = self.pair_open.val()
            & ((self.paddr.val() & self.evc_rel_mask.val()) == self.pair_key.val());
        self.wskip.next = self.setup_wr_now.val()
            & (!(self.secure_impl.val() & self.setup_ns_now.val() & (!self.nsra.val())))
            & self.evc_in_now.val()
            & ((!self.hiword_now.val()) | (!self.pair_now.val()));
        for n in 0..self.regs.len() {
            self.regs[n].clock.next = self.clock.val();
            self.regs[n].d.next = self.d[n].val();
            if self.wskip.val() & self.evc_sel_now.val().get_bit(n) {
                self.regs[n].d.next = 0.into();
            }
            self.q[n].next = self.regs[n].q.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drives one clock cycle: inputs set in the low phase, then a rising edge; returns q.
    fn edge(uut: &mut MatchRegs, setup: impl Fn(&mut MatchRegs)) -> Vec<u64> {
        uut.clock.next = Clock::from(false);
        setup(uut);
        simulate_settle(uut);
        uut.clock.next = Clock::from(true);
        simulate_settle(uut);
        uut.q.iter().map(|q| q.val().to_u64()).collect()
    }

    fn simulate_settle(uut: &mut MatchRegs) {
        for _ in 0..16 {
            uut.update_all();
            if !uut.has_changed() {
                return;
            }
        }
        panic!("MatchRegs did not settle");
    }

    fn idle(u: &mut MatchRegs) {
        for (n, d) in u.d.iter_mut().enumerate() {
            d.next = ((n as u64 % 4) + 1).into();
        }
        u.setup_wr_now.next = false;
        u.setup_ns_now.next = false;
        u.evc_in_now.next = false;
        u.hiword_now.next = false;
        u.evc_sel_now.next = 0.into();
        u.paddr.next = 0.into();
        u.pair_open.next = false;
        u.pair_key.next = 0.into();
        u.nsra.next = false;
    }

    /// A counter write set up in this cycle clears only its counter's match; a read, a
    /// Non-secure write without NSRA and an open pair's high word clear nothing.
    #[test]
    fn a_set_up_counter_write_clears_only_its_match() {
        let mut uut = MatchRegs::new(3, true, 0xF8);
        uut.connect_all();
        assert_eq!(edge(&mut uut, idle), vec![1, 2, 3]);
        let write_to_1 = |u: &mut MatchRegs| {
            idle(u);
            u.setup_wr_now.next = true;
            u.evc_in_now.next = true;
            u.evc_sel_now.next = 0b010.into();
            u.paddr.next = 0x08.into();
        };
        assert_eq!(edge(&mut uut, write_to_1), vec![1, 0, 3]);
        assert_eq!(
            edge(&mut uut, |u| {
                write_to_1(u);
                u.setup_wr_now.next = false;
            }),
            vec![1, 2, 3],
            "a read set up skips nothing"
        );
        assert_eq!(
            edge(&mut uut, |u| {
                write_to_1(u);
                u.setup_ns_now.next = true;
            }),
            vec![1, 2, 3],
            "a Non-secure write without SCR.NSRA is ignored, so it skips nothing"
        );
        assert_eq!(
            edge(&mut uut, |u| {
                write_to_1(u);
                u.setup_ns_now.next = true;
                u.nsra.next = true;
            }),
            vec![1, 0, 3],
            "with SCR.NSRA the Non-secure write counts"
        );
        assert_eq!(
            edge(&mut uut, |u| {
                write_to_1(u);
                u.hiword_now.next = true;
                u.pair_open.next = true;
                u.paddr.next = 0x0C.into();
                u.pair_key.next = 0x08.into();
            }),
            vec![1, 2, 3],
            "the open pair's high word completes the pair: no skip"
        );
        assert_eq!(
            edge(&mut uut, |u| {
                write_to_1(u);
                u.hiword_now.next = true;
                u.pair_open.next = true;
                u.paddr.next = 0x0C.into();
                u.pair_key.next = 0x10.into();
            }),
            vec![1, 0, 3],
            "a high word outside the open pair is a write of its own"
        );
    }
}
