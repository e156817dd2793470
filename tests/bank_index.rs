//! Block-level tests of an upper-word bank's index register (`pmcg_hdl::hi_bank_index::
//! BankIndex`): PADDR's element index registered at every edge, and `pf_eq`, "the prefetch row
//! after this edge equals that index", exact at every edge. On the native block and on its
//! emitted Verilog under Verilator, against a plain-Rust model, every edge; the banks' own tests
//! (tests/hi_bank.rs) check it again inside the bank.
//!
//! ```text
//!   paddr, pf_idx, vis_idx, sel_vis, wr ──► dyn IndexDut: native | verilator ──► tgt_idx, pf_eq
//!                                      └─► model: idx = paddr[lsb+5:lsb] at the edge;
//!                                          pf_eq = (wr ? old idx : sel_vis ? vis_idx : pf_idx) == idx
//! ```
//! `PMCG_SEED` sets the base seed (printed); `PMCG_BACKENDS` / `PMCG_REQUIRE_TOOLS=1` as in
//! tests/common.

mod common;

use pmcg_hdl::hi_bank_index::BankIndex;
use pmcg_sim::verilator::VerilatedModel;
use pmcg_synth::bank_index::{bank_index_verilog, BANK_INDEX_TOP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// One edge's inputs.
#[derive(Clone, Copy, Debug, Default)]
struct Inputs {
    paddr: u32,
    pf_idx: u8,
    vis_idx: u8,
    sel_vis: bool,
    wr: bool,
}

/// The outputs after an edge: (tgt_idx, pf_eq).
type Outputs = (u8, bool);

/// The contract (hi_bank_index.rs): the row the bank's prefetch holds after the edge is the
/// written one (the index registered before it) on a write, the visit's row on a serve of the
/// prefetch, else unchanged; `pf_eq` compares it with the index registered at the edge.
struct Model {
    idx_lsb: u32,
    tgt_idx: u8,
}

impl Model {
    fn edge(&mut self, i: &Inputs) -> Outputs {
        let idx = (i.paddr >> self.idx_lsb & 0x3F) as u8;
        let pf_after = if i.wr {
            self.tgt_idx
        } else if i.sel_vis {
            i.vis_idx
        } else {
            i.pf_idx
        };
        self.tgt_idx = idx;
        (idx, pf_after == idx)
    }
}

trait IndexDut {
    fn name(&self) -> &'static str;
    /// Inputs in the low phase, then a rising edge: the outputs after it.
    fn edge(&mut self, i: &Inputs) -> Outputs;
}

struct NativeIndex(BankIndex);

impl IndexDut for NativeIndex {
    fn name(&self) -> &'static str {
        "native"
    }

    fn edge(&mut self, i: &Inputs) -> Outputs {
        let u = &mut self.0;
        u.clock.next = Clock { clk: false };
        u.paddr.next = (i.paddr as u64).into();
        u.pf_idx.next = (i.pf_idx as u64).into();
        u.vis_idx.next = (i.vis_idx as u64).into();
        u.sel_vis.next = i.sel_vis;
        u.wr.next = i.wr;
        common::settle_block(u, "the bank index", 20);
        u.clock.next = Clock { clk: true };
        common::settle_block(u, "the bank index", 20);
        (u.tgt_idx.val().to_u64() as u8, u.pf_eq.val())
    }
}

struct VerilatorIndex {
    m: VerilatedModel,
    /// clock, paddr, pf_idx, vis_idx, sel_vis, wr, tgt_idx, pf_eq
    p: [usize; 8],
}

impl IndexDut for VerilatorIndex {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn edge(&mut self, i: &Inputs) -> Outputs {
        let [clock, paddr, pf_idx, vis_idx, sel_vis, wr, tgt_idx, pf_eq] = self.p;
        let m = &mut self.m;
        m.set(clock, 0);
        m.set(paddr, i.paddr as u64);
        m.set(pf_idx, i.pf_idx as u64);
        m.set(vis_idx, i.vis_idx as u64);
        m.set(sel_vis, i.sel_vis as u64);
        m.set(wr, i.wr as u64);
        m.eval();
        m.set(clock, 1);
        m.eval();
        (m.get(tgt_idx) as u8, m.get(pf_eq) != 0)
    }
}

/// The block on each selected backend, built to take the index from PADDR bit `idx_lsb` up.
fn duts(idx_lsb: usize) -> Vec<Box<dyn IndexDut>> {
    let mut v: Vec<Box<dyn IndexDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            let mut u = BankIndex::new(idx_lsb);
            u.connect_all();
            v.push(Box::new(NativeIndex(u)));
        } else {
            let text = bank_index_verilog(idx_lsb, BANK_INDEX_TOP).unwrap();
            let (m, p) = common::block_model(
                &text,
                BANK_INDEX_TOP,
                "the bank index",
                [
                    "clock", "paddr", "pf_idx", "vis_idx", "sel_vis", "wr", "tgt_idx", "pf_eq",
                ],
            );
            v.push(Box::new(VerilatorIndex { m, p }));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no backend");
    v
}

/// `edges` seeded edges on `dut` against the model of a block with the index at `model_lsb`:
/// the first mismatch, or how often `pf_eq` was true and how often each of its three candidates
/// decided it.
fn run(
    dut: &mut dyn IndexDut,
    model_lsb: u32,
    seed: u64,
    edges: usize,
) -> Result<[u32; 4], String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut model = Model {
        idx_lsb: model_lsb,
        tgt_idx: 0,
    };
    // The first edge registers a known index (the block has no reset: its index is PADDR's).
    let first = Inputs::default();
    model.edge(&first);
    dut.edge(&first);
    let mut seen = [0u32; 4];
    for t in 0..edges {
        // Addresses near each other and rows drawn from few values, so that equal indices,
        // and each candidate deciding `pf_eq`, are common.
        let row = |rng: &mut ChaCha8Rng| rng.gen_range(0..4u8) * 21;
        let i = Inputs {
            paddr: (row(&mut rng) as u32) << model_lsb
                | rng.gen_range(0..1u32 << model_lsb)
                | if rng.gen_ratio(1, 4) {
                    rng.gen::<u32>() & !0x7FFF
                } else {
                    0
                },
            pf_idx: row(&mut rng),
            vis_idx: row(&mut rng),
            sel_vis: rng.gen_ratio(1, 3),
            wr: rng.gen_ratio(1, 4),
        };
        let want = model.edge(&i);
        let got = dut.edge(&i);
        if got != want {
            return Err(format!(
                "{}: edge {t}, seed {seed}, {i:?}: (tgt_idx, pf_eq) {got:?}, model {want:?}",
                dut.name()
            ));
        }
        if want.1 {
            seen[0] += 1;
            seen[1 + if i.wr {
                0
            } else if i.sel_vis {
                1
            } else {
                2
            }] += 1;
        }
    }
    Ok(seen)
}

#[test]
fn random_edges_match_the_model() {
    let seed = common::base_seed() ^ 0xb1d3;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    for idx_lsb in [2usize, 3] {
        for mut dut in duts(idx_lsb) {
            let seen = run(dut.as_mut(), idx_lsb as u32, seed, 5_000).unwrap();
            // Every candidate decided an equal `pf_eq` (the stimulus reached each case).
            assert!(
                seen.iter().all(|&n| n > 50),
                "{} idx_lsb {idx_lsb}: pf_eq true {} times; by wr / sel_vis / pf_idx {:?}",
                dut.name(),
                seen[0],
                &seen[1..]
            );
        }
    }
}

/// A block that takes its index from the wrong address bits (built for a 4-byte stride, checked
/// as an 8-byte one) fails the check on each backend: the test can see a broken index.
#[test]
fn an_index_from_the_wrong_bits_is_caught() {
    let seed = common::base_seed() ^ 0xb1d4;
    for mut dut in duts(2) {
        let err = run(dut.as_mut(), 3, seed, 5_000)
            .expect_err(&format!("{}: the wrong index went unnoticed", dut.name()));
        eprintln!("caught: {err}");
        assert!(err.contains("model"), "{err}");
    }
}

#[test]
fn the_block_synthesizes_with_no_latch() {
    if !common::have_tool("yosys") {
        return;
    }
    let work = std::env::temp_dir().join(format!("pmcg-bidx-yosys-{}", std::process::id()));
    pmcg_synth::bank_index::synthesize_bank_index(&work).unwrap();
    let log = std::fs::read_to_string(work.join("yosys.log")).unwrap();
    assert!(!log.contains("Latch inferred"), "a latch in the bank index");
    let stat = std::fs::read_to_string(work.join("stat.txt")).unwrap();
    assert!(stat.contains("SB_DFF"), "no flip-flop in:\n{stat}");
    let _ = std::fs::remove_dir_all(&work);
}
