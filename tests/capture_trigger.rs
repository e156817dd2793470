//! Block-level tests of the capture trigger (`pmcg_hdl::capture_trigger::CaptureTrigger`)
//! against docs/behaviour.md "Capture" (10.2.1, 10.5.2.11): a capture at edge t (a CAPR write,
//! an overflow of an OVFCAP counter, or the registered CAPT_REQ with CAPT_ACK low) makes
//! `svr_load` 1 in cycle t+1; CAPT_ACK follows the registered request one edge later; a reset
//! edge clears both; without capture both stay 0. Seeded random overflows (every counter, every
//! group), CAPR writes, a 4-phase requester and resets, on the native block and on its emitted
//! Verilog under Verilator, every cycle.
//!
//! ```text
//!   seed ──► rst, ovfcap, capr, capt_req ──► dyn TriggerDut: native | verilator ──► svr_load,
//!                                        └─► TriggerModel (plain Rust, the contract)  capt_ack
//! ```
//! `PMCG_SEED` sets the base seed (printed); `PMCG_BACKENDS` / `PMCG_REQUIRE_TOOLS=1` as in
//! tests/common.

mod common;

use pmcg_hdl::capture_trigger::{CaptureFault, CaptureTrigger};
use pmcg_sim::verilator::VerilatedModel;
use pmcg_synth::capture_trigger::{capture_trigger_verilog, CAPTURE_TRIGGER_TOP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// The inputs of one cycle (sampled at the edge that ends it).
#[derive(Clone, Copy, Debug, Default)]
struct Inputs {
    rst: bool,
    ovfcap: u64,
    capr: bool,
    capt_req: bool,
}

/// The outputs of one cycle (from registers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Outputs {
    svr_load: bool,
    capt_ack: bool,
}

/// The contract, written from docs/behaviour.md "Capture".
struct TriggerModel {
    capture: bool,
    /// A capture happened at the last edge.
    captured: bool,
    ack: bool,
}

impl TriggerModel {
    fn outputs(&self) -> Outputs {
        Outputs {
            svr_load: self.captured,
            capt_ack: self.ack,
        }
    }

    fn edge(&mut self, i: &Inputs) {
        let request = i.capt_req && !self.ack;
        self.captured = self.capture && !i.rst && (i.capr || i.ovfcap != 0 || request);
        self.ack = self.capture && !i.rst && i.capt_req;
    }
}

trait TriggerDut {
    fn name(&self) -> &'static str;
    /// This cycle's outputs, then its inputs and the rising edge.
    fn cycle(&mut self, i: &Inputs) -> Outputs;
}

struct NativeTrigger(CaptureTrigger);

impl TriggerDut for NativeTrigger {
    fn name(&self) -> &'static str {
        "native"
    }

    fn cycle(&mut self, i: &Inputs) -> Outputs {
        let u = &mut self.0;
        u.clock.next = Clock { clk: false };
        u.rst.next = i.rst;
        u.ovfcap.next = i.ovfcap.into();
        u.capr.next = i.capr;
        u.capt_req.next = i.capt_req;
        common::settle_block(u, "the capture trigger", 20);
        let out = Outputs {
            svr_load: u.svr_load.val(),
            capt_ack: u.capt_ack.val(),
        };
        u.clock.next = Clock { clk: true };
        common::settle_block(u, "the capture trigger", 20);
        out
    }
}

struct VerilatorTrigger {
    m: VerilatedModel,
    /// clock, rst, ovfcap, capr, capt_req, svr_load, capt_ack
    p: [usize; 7],
}

impl TriggerDut for VerilatorTrigger {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn cycle(&mut self, i: &Inputs) -> Outputs {
        let [clock, rst, ovfcap, capr, capt_req, svr_load, capt_ack] = self.p;
        let m = &mut self.m;
        m.set(clock, 0);
        m.set(rst, i.rst as u64);
        m.set(ovfcap, i.ovfcap);
        m.set(capr, i.capr as u64);
        m.set(capt_req, i.capt_req as u64);
        m.eval();
        let out = Outputs {
            svr_load: m.get(svr_load) != 0,
            capt_ack: m.get(capt_ack) != 0,
        };
        m.set(clock, 1);
        m.eval();
        out
    }
}

fn duts(counters: usize, capture: bool, fault: Option<CaptureFault>) -> Vec<Box<dyn TriggerDut>> {
    let mut v: Vec<Box<dyn TriggerDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            let mut u = CaptureTrigger::new(counters, capture, fault);
            u.connect_all();
            v.push(Box::new(NativeTrigger(u)));
        } else {
            let text =
                capture_trigger_verilog(counters, capture, fault, CAPTURE_TRIGGER_TOP).unwrap();
            let (m, p) = common::block_model(
                &text,
                CAPTURE_TRIGGER_TOP,
                "the capture trigger",
                [
                    "clock", "rst", "ovfcap", "capr", "capt_req", "svr_load", "capt_ack",
                ],
            );
            v.push(Box::new(VerilatorTrigger { m, p }));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no backend");
    v
}

/// What a run reached: captures by an overflow of each counter, by CAPR, by the request.
#[derive(Debug, Default)]
struct Reached {
    by_counter: Vec<u32>,
    by_capr: u32,
    by_request: u32,
    resets: u32,
}

/// `cycles` seeded cycles on `dut`; the first mismatch with the model.
fn run(
    dut: &mut dyn TriggerDut,
    counters: usize,
    capture: bool,
    seed: u64,
    cycles: u32,
) -> Result<Reached, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut model = TriggerModel {
        capture,
        captured: false,
        ack: false,
    };
    let mut seen = Reached {
        by_counter: vec![0; counters],
        ..Default::default()
    };
    let mut i = Inputs {
        rst: true,
        ..Default::default()
    };
    for t in 0..cycles {
        if t > 0 {
            i.rst = rng.gen_ratio(1, 500);
            // One counter's overflow alone (so each is seen to trigger on its own), or several.
            i.ovfcap = match rng.gen_range(0..12) {
                0 => 1 << rng.gen_range(0..counters),
                1 => rng.gen::<u64>() & rng.gen::<u64>() & (u64::MAX >> (64 - counters)),
                _ => 0,
            };
            i.capr = rng.gen_ratio(1, 15);
            // A 4-phase requester: raises the request while CAPT_ACK is 0, drops it once it is 1,
            // each after a random delay.
            if rng.gen_ratio(1, 4) {
                i.capt_req = !model.ack;
            }
        }
        let want = model.outputs();
        let got = dut.cycle(&i);
        if got != want {
            return Err(format!(
                "{}: cycle {t}, seed {seed}, {counters} counters, capture {capture}: inputs \
                 {i:?}: got {got:?}, want {want:?}",
                dut.name()
            ));
        }
        if !i.rst && capture {
            let request = i.capt_req && !model.ack;
            if i.ovfcap.count_ones() == 1 && !i.capr && !request {
                seen.by_counter[i.ovfcap.trailing_zeros() as usize] += 1;
            }
            seen.by_capr += (i.capr && i.ovfcap == 0) as u32;
            seen.by_request += (request && !i.capr && i.ovfcap == 0) as u32;
        }
        seen.resets += i.rst as u32;
        model.edge(&i);
    }
    Ok(seen)
}

#[test]
fn random_triggers_load_the_shadows_as_the_contract_says() {
    let seed = common::base_seed() ^ 0xca9;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    for (k, &(counters, capture)) in [
        (1, true),
        (5, true),
        (17, true),
        (33, true),
        (64, true),
        (64, false),
    ]
    .iter()
    .enumerate()
    {
        for mut dut in duts(counters, capture, None) {
            let seen = run(dut.as_mut(), counters, capture, seed + k as u64, 20_000)
                .unwrap_or_else(|e| panic!("{e}"));
            if capture {
                assert!(
                    seen.by_counter.iter().all(|&c| c > 0)
                        && seen.by_capr > 0
                        && seen.by_request > 0
                        && seen.resets > 0,
                    "{} {counters} counters: a trigger never reached alone: {seen:?}",
                    dut.name()
                );
            }
        }
    }
}

/// The validator: a trigger that loses the last group's overflows fails on each backend.
#[test]
fn a_lost_overflow_group_is_caught_on_every_backend() {
    let seed = common::base_seed() ^ 0x1057;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    for mut dut in duts(64, true, Some(CaptureFault::LastGroupLost)) {
        let err = run(dut.as_mut(), 64, true, seed, 20_000)
            .expect_err("a lost overflow group went unnoticed");
        eprintln!("caught: {err}");
        assert!(
            err.contains("svr_load: false") && err.contains("want Outputs { svr_load: true"),
            "{err}"
        );
    }
}
