//! Block-level tests of the match registers (`pmcg_hdl::match_regs::MatchRegs`, a hand-written
//! primitive whose `update` and `hdl` are two writings of one logic): a counter write performed
//! in the next cycle clears only its counter's match at the edge before (SMMUv3 10.5.2.1,
//! docs/behaviour.md). On the native block and on its emitted Verilog under Verilator, against a
//! plain-Rust model, every edge.
//!
//! ```text
//!   d[n], wr_next, arm, evc_sel ──► dyn MatchDut: native | verilator ──► q[n] after the edge
//!                               └─► model: q[n] = (wr_next & arm & evc_sel[n]) ? 0 : d[n]
//! ```
//! `PMCG_SEED` sets the base seed (printed); `PMCG_BACKENDS` / `PMCG_REQUIRE_TOOLS=1` as in
//! tests/common.

mod common;

use pmcg_hdl::match_regs::MatchRegs;
use pmcg_sim::verilator::VerilatedModel;
use pmcg_synth::match_regs::{match_regs_verilog, MATCH_REGS_TOP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// One edge's inputs.
#[derive(Clone, Debug, Default)]
struct Inputs {
    d: Vec<u8>,
    wr_next: bool,
    arm: bool,
    evc_sel: u64,
}

/// The contract: the write's skip, else the next match count.
fn model(i: &Inputs) -> Vec<u8> {
    let skip = i.wr_next && i.arm;
    (0..i.d.len())
        .map(|n| {
            if skip && i.evc_sel >> n & 1 != 0 {
                0
            } else {
                i.d[n]
            }
        })
        .collect()
}

trait MatchDut {
    fn name(&self) -> &'static str;
    /// Inputs in the low phase, then a rising edge: `q` after it.
    fn edge(&mut self, i: &Inputs) -> Vec<u8>;
}

struct NativeMatch(MatchRegs);

impl MatchDut for NativeMatch {
    fn name(&self) -> &'static str {
        "native"
    }

    fn edge(&mut self, i: &Inputs) -> Vec<u8> {
        let u = &mut self.0;
        u.clock.next = Clock { clk: false };
        for (s, &v) in u.d.iter_mut().zip(&i.d) {
            s.next = (v as u64).into();
        }
        u.wr_next.next = i.wr_next;
        u.arm.next = i.arm;
        u.evc_sel.next = i.evc_sel.into();
        common::settle_block(u, "the match registers", 20);
        u.clock.next = Clock { clk: true };
        common::settle_block(u, "the match registers", 20);
        u.q.iter().map(|q| q.val().to_u64() as u8).collect()
    }
}

struct VerilatorMatch {
    m: VerilatedModel,
    /// clock, wr_next, arm, evc_sel
    ctl: [usize; 4],
    d: Vec<usize>,
    q: Vec<usize>,
}

impl MatchDut for VerilatorMatch {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn edge(&mut self, i: &Inputs) -> Vec<u8> {
        let [clock, wr_next, arm, evc_sel] = self.ctl;
        let m = &mut self.m;
        m.set(clock, 0);
        for (&p, &v) in self.d.iter().zip(&i.d) {
            m.set(p, v as u64);
        }
        m.set(wr_next, i.wr_next as u64);
        m.set(arm, i.arm as u64);
        m.set(evc_sel, i.evc_sel);
        m.eval();
        m.set(clock, 1);
        m.eval();
        self.q.iter().map(|&p| m.get(p) as u8).collect()
    }
}

fn duts(counters: usize) -> Vec<Box<dyn MatchDut>> {
    let mut v: Vec<Box<dyn MatchDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            let mut u = MatchRegs::new(counters);
            u.connect_all();
            v.push(Box::new(NativeMatch(u)));
        } else {
            let text = match_regs_verilog(counters, MATCH_REGS_TOP).unwrap();
            let m = VerilatedModel::build(&text, MATCH_REGS_TOP, &pmcg_sim::vdut::cache_dir())
                .unwrap_or_else(|e| panic!("Verilator build of the match registers: {e}"));
            let port = |n: &str| {
                m.port(n)
                    .unwrap_or_else(|| panic!("the match registers have no port `{n}`"))
            };
            let ctl = ["clock", "wr_next", "arm", "evc_sel"].map(port);
            let d = (0..counters).map(|n| port(&format!("d${n}"))).collect();
            let q = (0..counters).map(|n| port(&format!("q${n}"))).collect();
            v.push(Box::new(VerilatorMatch { m, ctl, d, q }));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no backend");
    v
}

fn idle(counters: usize) -> Inputs {
    Inputs {
        d: (0..counters).map(|n| (n % 4) as u8 + 1).collect(),
        ..Default::default()
    }
}

/// A counter write performed in the next cycle clears only its counter's match; a read, or a
/// write the register file did not arm (ignored, or an open pair's high word), clears nothing.
#[test]
fn an_armed_counter_write_clears_only_its_match() {
    for mut dut in duts(3) {
        let who = dut.name();
        assert_eq!(dut.edge(&idle(3)), vec![1, 2, 3], "{who}");
        let write_to_1 = Inputs {
            wr_next: true,
            arm: true,
            evc_sel: 0b010,
            ..idle(3)
        };
        assert_eq!(dut.edge(&write_to_1), vec![1, 0, 3], "{who}");
        let i = Inputs {
            evc_sel: 0b101,
            ..write_to_1.clone()
        };
        assert_eq!(
            dut.edge(&i),
            vec![0, 2, 0],
            "{who}: the skip follows the select"
        );
        let i = Inputs {
            wr_next: false,
            ..write_to_1.clone()
        };
        assert_eq!(dut.edge(&i), vec![1, 2, 3], "{who}: a read skips nothing");
        let i = Inputs {
            arm: false,
            ..write_to_1.clone()
        };
        assert_eq!(dut.edge(&i), vec![1, 2, 3], "{who}: not armed, no skip");
        assert_eq!(dut.edge(&idle(3)), vec![1, 2, 3], "{who}");
    }
}

#[test]
fn random_edges_match_the_model() {
    let seed = common::base_seed() ^ 0x3a7c;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for counters in [1, 5, 33, 64] {
        let mut duts = duts(counters);
        for t in 0..2_000 {
            let i = Inputs {
                d: (0..counters).map(|_| rng.gen_range(0..16)).collect(),
                wr_next: rng.gen_ratio(1, 2),
                arm: rng.gen_ratio(1, 2),
                // One-hot as the decoder drives it, or any pattern (the block must not care).
                evc_sel: if rng.gen_ratio(3, 4) {
                    1u64 << rng.gen_range(0..64)
                } else {
                    rng.gen()
                },
            };
            let want = model(&i);
            for dut in duts.iter_mut() {
                assert_eq!(
                    dut.edge(&i),
                    want,
                    "{} counters {counters}, edge {t}, seed {seed}: {i:?}",
                    dut.name()
                );
            }
        }
    }
}
