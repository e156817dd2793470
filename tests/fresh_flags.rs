//! Block-level tests of the EVTYPER/SMR "not written since reset" flags
//! (`pmcg_hdl::fresh_flags::FreshFlags`, a hand-written primitive whose `update` and `hdl` are
//! two writings of one logic): the lookup of `rd_idx` at each edge (before that edge's write, 1 at
//! a reset edge or beyond the counters), a write clearing its flag, a reset setting them all. On
//! the native block and on its emitted Verilog under Verilator, against a plain-Rust model,
//! every edge, and the outputs before the first edge.
//!
//! ```text
//!   rst, rd_idx, wr_evt, wr_smr, wr_idx ──► dyn FreshDut: native | verilator ──► evt_sel smr_sel
//!                                       └─► FreshModel::edge ─────────────────► == after the edge
//! ```
//! `PMCG_SEED` sets the base seed (printed); `PMCG_BACKENDS` / `PMCG_REQUIRE_TOOLS=1` as in
//! tests/common.

mod common;

use pmcg_hdl::fresh_flags::FreshFlags;
use pmcg_sim::verilator::VerilatedModel;
use pmcg_synth::fresh_flags::{fresh_flags_verilog, FRESH_FLAGS_TOP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// One edge's inputs: (rst, rd_idx, wr_evt, wr_smr, wr_idx).
type Inputs = (bool, u8, bool, bool, u8);

/// The contract in plain Rust.
struct FreshModel {
    evt: Vec<bool>,
    smr: Vec<bool>,
}

impl FreshModel {
    /// Every flag set, as after a reset (the design is reset first; the block starts so).
    fn new(counters: usize) -> Self {
        FreshModel {
            evt: vec![true; counters],
            smr: vec![true; counters],
        }
    }

    /// The outputs after the edge, and the flags after it.
    fn edge(&mut self, (rst, rd, we, ws, wi): Inputs) -> (bool, bool) {
        let (rd, wi) = (rd as usize, wi as usize);
        let out = (
            rst || self.evt.get(rd).copied().unwrap_or(true),
            rst || self.smr.get(rd).copied().unwrap_or(true),
        );
        if rst {
            self.evt.fill(true);
            self.smr.fill(true);
        } else {
            if we && wi < self.evt.len() {
                self.evt[wi] = false;
            }
            if ws && wi < self.smr.len() {
                self.smr[wi] = false;
            }
        }
        out
    }
}

trait FreshDut {
    fn name(&self) -> &'static str;
    /// The outputs before any edge (clock low, nothing else driven).
    fn initial(&mut self) -> (bool, bool);
    /// Inputs in the low phase, then a rising edge: the outputs after it.
    fn edge(&mut self, i: Inputs) -> (bool, bool);
}

struct NativeFresh(FreshFlags);

impl FreshDut for NativeFresh {
    fn name(&self) -> &'static str {
        "native"
    }

    fn initial(&mut self) -> (bool, bool) {
        self.0.clock.next = Clock { clk: false };
        common::settle_block(&mut self.0, "the fresh flags", 20);
        (self.0.evt_sel.val(), self.0.smr_sel.val())
    }

    fn edge(&mut self, (rst, rd, we, ws, wi): Inputs) -> (bool, bool) {
        let u = &mut self.0;
        u.clock.next = Clock { clk: false };
        u.rst.next = rst;
        u.rd_idx.next = (rd as u64).into();
        u.wr_evt.next = we;
        u.wr_smr.next = ws;
        u.wr_idx.next = (wi as u64).into();
        common::settle_block(u, "the fresh flags", 20);
        u.clock.next = Clock { clk: true };
        common::settle_block(u, "the fresh flags", 20);
        (u.evt_sel.val(), u.smr_sel.val())
    }
}

struct VerilatorFresh {
    m: VerilatedModel,
    /// clock, rst, rd_idx, wr_evt, wr_smr, wr_idx
    ins: [usize; 6],
    /// evt_sel, smr_sel
    outs: [usize; 2],
}

impl FreshDut for VerilatorFresh {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn initial(&mut self) -> (bool, bool) {
        self.m.set(self.ins[0], 0);
        self.m.eval();
        (self.m.get(self.outs[0]) != 0, self.m.get(self.outs[1]) != 0)
    }

    fn edge(&mut self, i: Inputs) -> (bool, bool) {
        let m = &mut self.m;
        let values = [
            0, i.0 as u64, i.1 as u64, i.2 as u64, i.3 as u64, i.4 as u64,
        ];
        for (&p, v) in self.ins.iter().zip(values) {
            m.set(p, v);
        }
        m.eval();
        m.set(self.ins[0], 1);
        m.eval();
        (m.get(self.outs[0]) != 0, m.get(self.outs[1]) != 0)
    }
}

fn duts(counters: usize) -> Vec<Box<dyn FreshDut>> {
    let mut v: Vec<Box<dyn FreshDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            let mut u = FreshFlags::new(counters);
            u.connect_all();
            v.push(Box::new(NativeFresh(u)));
        } else {
            let text = fresh_flags_verilog(counters, FRESH_FLAGS_TOP).unwrap();
            let m = VerilatedModel::build(&text, FRESH_FLAGS_TOP, &pmcg_sim::vdut::cache_dir())
                .unwrap_or_else(|e| panic!("Verilator build of the fresh flags: {e}"));
            let port = |n: &str| {
                m.port(n)
                    .unwrap_or_else(|| panic!("the fresh flags have no port `{n}`"))
            };
            let ins = ["clock", "rst", "rd_idx", "wr_evt", "wr_smr", "wr_idx"].map(port);
            let outs = ["evt_sel", "smr_sel"].map(port);
            v.push(Box::new(VerilatorFresh { m, ins, outs }));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no backend");
    v
}

#[test]
fn a_write_clears_its_flag_until_the_next_reset() {
    for mut dut in duts(3) {
        let who = dut.name();
        assert_eq!(dut.initial(), (true, true), "{who}: before the first edge");
        let steps: [(Inputs, (bool, bool), &str); 10] = [
            ((true, 1, false, false, 0), (true, true), "reset"),
            (
                (false, 1, true, false, 1),
                (true, true),
                "EVTYPER1 written here",
            ),
            (
                (false, 1, false, false, 0),
                (false, true),
                "EVTYPER1 written",
            ),
            (
                (false, 2, false, true, 2),
                (true, true),
                "SMR2 written here",
            ),
            ((false, 2, false, false, 0), (true, false), "SMR2 written"),
            (
                (false, 0, false, false, 0),
                (true, true),
                "counter 0 untouched",
            ),
            (
                (false, 5, false, false, 0),
                (true, true),
                "beyond the counters",
            ),
            (
                (true, 1, true, true, 0),
                (true, true),
                "a reset edge looks up as reset",
            ),
            ((false, 1, false, false, 0), (true, true), "the reset wins"),
            ((false, 0, false, false, 0), (true, true), "the reset wins"),
        ];
        for (i, want, what) in steps {
            assert_eq!(dut.edge(i), want, "{who}: {what}");
        }
    }
}

#[test]
fn random_edges_match_the_model() {
    let seed = common::base_seed() ^ 0xf7e5;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for counters in [1, 7, 40, 64] {
        let mut duts = duts(counters);
        let mut model = FreshModel::new(counters);
        let mut cleared = 0;
        for t in 0..4_000 {
            // Mostly the counters' indices, sometimes any of the 6-bit range (past them).
            let mut idx = || {
                if rng.gen_ratio(4, 5) {
                    rng.gen_range(0..counters as u8)
                } else {
                    rng.gen_range(0..64)
                }
            };
            let (rd, wi) = (idx(), idx());
            let i: Inputs = (
                rng.gen_ratio(1, 200),
                rd,
                rng.gen_ratio(1, 3),
                rng.gen_ratio(1, 3),
                wi,
            );
            let want = model.edge(i);
            cleared += (!want.0 || !want.1) as u64;
            for dut in duts.iter_mut() {
                assert_eq!(
                    dut.edge(i),
                    want,
                    "{} counters {counters}, edge {t}, seed {seed}: {i:?}",
                    dut.name()
                );
            }
        }
        assert!(
            cleared > 100,
            "counters {counters}: only {cleared} cleared lookups"
        );
    }
}
