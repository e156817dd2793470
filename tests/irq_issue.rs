//! Block-level tests of the interrupt and MSI issue block (`pmcg_hdl::irq_issue::IrqIssue`)
//! against docs/behaviour.md "Bitmaps, control and interrupt registers" (the wired interrupt) and
//! "MSI write master" (pending, issue, nothing lost, IRQ_CTRLACK's owed MSI): seeded random
//! overflows, INTEN, IRQEN, IRQ_CFG0.ADDR != 0, a master that stays busy for random times, and
//! resets, on the native block and on its emitted Verilog under Verilator, every cycle.
//!
//! ```text
//!   seed ──► ovf, inten, irqen, addr_nz, busy, rst ──► dyn IssueDut: native | verilator
//!                                                  └─► IssueModel (plain Rust, the contract)
//!   compared in every cycle: irq; issue and owed_next (not at a reset edge: the master ignores
//!   an issue there, and owed_next is then only the MSI's IRQEN term)
//! ```
//! `PMCG_IRQ_CYCLES` sets the cycles per run (default 20,000), `PMCG_SEED` the base seed
//! (printed); `PMCG_BACKENDS` / `PMCG_REQUIRE_TOOLS=1` as in tests/common.

mod common;

use pmcg_hdl::irq_issue::{IrqFault, IrqIssue};
use pmcg_sim::verilator::VerilatedModel;
use pmcg_synth::irq_issue::{irq_issue_verilog, IRQ_ISSUE_TOP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// The inputs of one cycle (sampled at the edge that ends it).
#[derive(Clone, Copy, Debug, Default)]
struct Inputs {
    rst: bool,
    ovf: u64,
    inten: u64,
    irqen: bool,
    addr_nz: bool,
    busy: bool,
}

/// The outputs of one cycle: `irq` from registers, `issue` and `owed_next` with this cycle's
/// inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Outputs {
    irq: bool,
    issue: bool,
    owed_next: bool,
}

/// The contract, written from docs/behaviour.md.
#[derive(Default)]
struct IssueModel {
    msi: bool,
    /// The last edge was a qualifying overflow edge (an INTEN counter overflowed with IRQEN = 1).
    follows_qualifying: bool,
    /// The wired interrupt's value in this cycle.
    irq: bool,
    /// An MSI is pending in this cycle.
    pending: bool,
}

impl IssueModel {
    /// An MSI is owed at the edge ending this cycle: one pending, or the edge follows a
    /// qualifying overflow edge with MSI_ON.
    fn wanted(&self, i: &Inputs) -> bool {
        self.pending || (self.follows_qualifying && self.msi && i.addr_nz)
    }

    fn outputs(&self, i: &Inputs) -> Outputs {
        // Issued when nothing is outstanding, whatever IRQEN is now.
        let issue = self.wanted(i) && !i.busy;
        // Owed after this edge: still pending, or (with MSI) IRQEN = 1 in this cycle, so that an
        // overflow qualifying at this edge has its MSI waited for.
        let pending_after = self.wanted(i) && !issue && !i.rst;
        Outputs {
            irq: self.irq,
            issue,
            owed_next: pending_after || (self.msi && i.irqen),
        }
    }

    fn edge(&mut self, i: &Inputs) {
        let out = self.outputs(i);
        // The pulse is in the cycle two after a qualifying overflow edge: 1 after this edge
        // when the previous edge qualified. A reset edge clears everything.
        self.irq = self.follows_qualifying && !i.rst;
        self.pending = self.wanted(i) && !out.issue && !i.rst;
        self.follows_qualifying = !i.rst && i.irqen && i.ovf & i.inten != 0;
    }
}

trait IssueDut {
    fn name(&self) -> &'static str;
    /// This cycle's inputs in the low phase (outputs read), then the rising edge.
    fn cycle(&mut self, i: &Inputs) -> Outputs;
}

struct NativeIssue(IrqIssue);

impl IssueDut for NativeIssue {
    fn name(&self) -> &'static str {
        "native"
    }

    fn cycle(&mut self, i: &Inputs) -> Outputs {
        let u = &mut self.0;
        u.clock.next = Clock { clk: false };
        u.rst.next = i.rst;
        u.ovf.next = i.ovf.into();
        u.inten.next = i.inten.into();
        u.irqen.next = i.irqen;
        u.addr_nz.next = i.addr_nz;
        u.busy.next = i.busy;
        common::settle_block(u, "the issue block", 20);
        let out = Outputs {
            irq: u.irq.val(),
            issue: u.issue.val(),
            owed_next: u.owed_next.val(),
        };
        u.clock.next = Clock { clk: true };
        common::settle_block(u, "the issue block", 20);
        out
    }
}

struct VerilatorIssue {
    m: VerilatedModel,
    /// clock, rst, ovf, inten, irqen, addr_nz, busy, irq, issue, owed_next
    p: [usize; 10],
}

impl IssueDut for VerilatorIssue {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn cycle(&mut self, i: &Inputs) -> Outputs {
        let [clock, rst, ovf, inten, irqen, addr_nz, busy, irq, issue, owed_next] = self.p;
        let m = &mut self.m;
        m.set(clock, 0);
        m.set(rst, i.rst as u64);
        m.set(ovf, i.ovf);
        m.set(inten, i.inten);
        m.set(irqen, i.irqen as u64);
        m.set(addr_nz, i.addr_nz as u64);
        m.set(busy, i.busy as u64);
        m.eval();
        let out = Outputs {
            irq: m.get(irq) != 0,
            issue: m.get(issue) != 0,
            owed_next: m.get(owed_next) != 0,
        };
        m.set(clock, 1);
        m.eval();
        out
    }
}

fn duts(msi: bool, fault: Option<IrqFault>) -> Vec<Box<dyn IssueDut>> {
    let mut v: Vec<Box<dyn IssueDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            let mut u = IrqIssue::new(msi, fault);
            u.connect_all();
            v.push(Box::new(NativeIssue(u)));
        } else {
            let text = irq_issue_verilog(msi, fault, IRQ_ISSUE_TOP).unwrap();
            let (m, p) = common::block_model(
                &text,
                IRQ_ISSUE_TOP,
                "the issue block",
                [
                    "clock",
                    "rst",
                    "ovf",
                    "inten",
                    "irqen",
                    "addr_nz",
                    "busy",
                    "irq",
                    "issue",
                    "owed_next",
                ],
            );
            v.push(Box::new(VerilatorIssue { m, p }));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no backend");
    v
}

fn cycles() -> u64 {
    std::env::var("PMCG_IRQ_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

/// What a run reached: irq pulses, MSIs issued, MSIs issued while IRQEN was 0 (a pending MSI
/// kept through an IRQEN 1 -> 0 update), resets.
#[derive(Debug, Default)]
struct Reached {
    pulses: u64,
    issued: u64,
    issued_disabled: u64,
    resets: u64,
}

/// One seeded run of `cycles` cycles on `dut`; the first mismatch with the model.
fn run(dut: &mut dyn IssueDut, msi: bool, seed: u64, cycles: u64) -> Result<Reached, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut model = IssueModel {
        msi,
        ..Default::default()
    };
    let mut seen = Reached::default();
    let mut i = Inputs {
        rst: true,
        ..Default::default()
    };
    // The master: busy for a random time after an issue.
    let mut busy_left = 0u32;
    for t in 0..cycles {
        if t > 0 {
            i.rst = rng.gen_ratio(1, 1_000);
            // Overflows: rare, one counter or several.
            i.ovf = match rng.gen_range(0..20) {
                0 => 1 << rng.gen_range(0..64),
                1 => rng.gen(),
                _ => 0,
            };
            if rng.gen_ratio(1, 50) {
                i.inten = rng.gen::<u64>() & rng.gen::<u64>();
            }
            if rng.gen_ratio(1, 30) {
                i.irqen = !i.irqen;
            }
            if rng.gen_ratio(1, 200) {
                i.addr_nz = !i.addr_nz;
            }
        }
        i.busy = busy_left > 0;
        let want = model.outputs(&i);
        let got = dut.cycle(&i);
        let same = got.irq == want.irq
            && (i.rst || (got.issue == want.issue && got.owed_next == want.owed_next));
        if !same {
            return Err(format!(
                "{}: cycle {t}, seed {seed}, msi {msi}: inputs {i:?}: got {got:?}, want {want:?}",
                dut.name()
            ));
        }
        seen.pulses += want.irq as u64;
        seen.resets += i.rst as u64;
        if want.issue && !i.rst {
            seen.issued += 1;
            seen.issued_disabled += !i.irqen as u64;
            busy_left = rng.gen_range(1..40);
        } else if i.rst {
            busy_left = 0;
        } else {
            busy_left = busy_left.saturating_sub(1);
        }
        model.edge(&i);
    }
    Ok(seen)
}

#[test]
fn random_traffic_matches_the_contract_every_cycle() {
    let seed = common::base_seed() ^ 0x1e0;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    for msi in [true, false] {
        for mut dut in duts(msi, None) {
            let seen = run(dut.as_mut(), msi, seed, cycles()).unwrap_or_else(|e| panic!("{e}"));
            println!("{} msi {msi}: {seen:?}", dut.name());
            assert!(seen.pulses > 10 && seen.resets > 3, "{seen:?}");
            if msi {
                assert!(seen.issued > 10 && seen.issued_disabled > 0, "{seen:?}");
            } else {
                assert_eq!(seen.issued, 0, "an MSI without `msi`: {seen:?}");
            }
        }
    }
}

/// The validator: the old rule (a pending MSI dropped when IRQEN is 0) fails on each backend.
#[test]
fn a_pending_msi_dropped_by_irqen_0_is_caught_on_every_backend() {
    let seed = common::base_seed() ^ 0xd0e;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    for mut dut in duts(true, Some(IrqFault::DropPendingWhenDisabled)) {
        let err = run(dut.as_mut(), true, seed, cycles())
            .expect_err("a dropped pending MSI went unnoticed");
        eprintln!("caught: {err}");
        assert!(err.contains("irqen: false"), "{err}");
    }
}
