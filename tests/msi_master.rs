//! Block-level tests of the MSI write master (`pmcg_hdl::msi::MsiMaster`) against
//! docs/behaviour.md "MSI write master" and "IRQ_CTRL / IRQ_CTRLACK and IRQ_STATUS": seeded random
//! AXI4-Lite traffic (a slave that raises AWREADY and WREADY at random, in any order, and answers
//! each write after both with a held BVALID and a random BRESP), issues whenever the master is
//! idle, random IRQEN / owed inputs and resets, on the native block and on its emitted Verilog
//! under Verilator, each checked every cycle against a plain-Rust model of the contract.
//!
//! ```text
//!   seed ──► issue (when idle), payload, en_next, owed_next, rst ─┐
//!            AXI slave: AWREADY WREADY (random), BVALID BRESP ◄───┼── AWVALID WVALID BREADY
//!                                                                 ▼
//!   dyn MsiDut: native | verilator ──► outputs before the edge ──► == MsiModel::outputs()
//! ```
//! `PMCG_MSI_CYCLES` sets the cycles per run (default 20,000), `PMCG_SEED` the base seed
//! (printed); `PMCG_BACKENDS` / `PMCG_REQUIRE_TOOLS=1` as in tests/common.

mod common;

use pmcg_hdl::msi::MsiMaster;
use pmcg_sim::verilator::VerilatedModel;
use pmcg_synth::msi::{msi_verilog, MSI_TOP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// The inputs of one cycle.
#[derive(Clone, Copy, Debug, Default)]
struct Inputs {
    rst: bool,
    awready: bool,
    wready: bool,
    bvalid: bool,
    bresp: u8,
    issue: bool,
    addr_lo: u32,
    addr_hi: u32,
    data: u32,
    prot: u8,
    mpam: u32,
    en_next: bool,
    owed_next: bool,
}

/// The outputs of one cycle (before its edge).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Outputs {
    awvalid: bool,
    awaddr_lo: u32,
    awaddr_hi: u32,
    awprot: u8,
    msi_mpam: u32,
    wvalid: bool,
    wdata: u32,
    wstrb: u8,
    bready: bool,
    busy: bool,
    ack: bool,
    abt: bool,
}

/// The contract in plain Rust.
#[derive(Default)]
struct MsiModel {
    aw: bool,
    w: bool,
    busy: bool,
    /// The payload taken at the issuing edge: addr_lo, addr_hi, data, prot, mpam.
    payload: (u32, u32, u32, u8, u32),
    ack: bool,
    abt: bool,
}

impl MsiModel {
    fn outputs(&self) -> Outputs {
        let (lo, hi, data, prot, mpam) = self.payload;
        // A payload output is 0 outside its VALID.
        Outputs {
            awvalid: self.aw,
            awaddr_lo: if self.aw { lo } else { 0 },
            awaddr_hi: if self.aw { hi } else { 0 },
            awprot: if self.aw { prot } else { 0 },
            msi_mpam: if self.aw { mpam } else { 0 },
            wvalid: self.w,
            wdata: if self.w { data } else { 0 },
            wstrb: if self.w { 0xF } else { 0 },
            // BREADY once AW and W have both been accepted.
            bready: self.busy && !self.aw && !self.w,
            busy: self.busy,
            ack: self.ack,
            abt: self.abt,
        }
    }

    fn edge(&mut self, i: &Inputs) {
        if i.rst {
            *self = MsiModel {
                payload: self.payload,
                ..Default::default()
            };
            return;
        }
        let accept_b = self.busy && !self.aw && !self.w && i.bvalid;
        // A VALID falls at the edge that samples its READY; an issue starts both.
        self.aw = i.issue || (self.aw && !i.awready);
        self.w = i.issue || (self.w && !i.wready);
        let busy_next = i.issue || (self.busy && !accept_b);
        if i.issue {
            self.payload = (i.addr_lo, i.addr_hi, i.data, i.prot, i.mpam);
        }
        // ACK := EN' or (ACK and (BUSY' or owed')), owed' = PENDING' or (MSI and EN).
        let ack_next = i.en_next || (self.ack && (busy_next || i.owed_next));
        // IRQ_ABT: set by an accepted SLVERR/DECERR response, cleared where ACK goes 0 -> 1; at
        // an edge with both, the abort is kept (never lost).
        if accept_b && i.bresp & 2 != 0 {
            self.abt = true;
        } else if !self.ack && ack_next {
            self.abt = false;
        }
        self.ack = ack_next;
        self.busy = busy_next;
    }
}

trait MsiDut {
    fn name(&self) -> &'static str;
    /// Applies `i` for one cycle: returns the outputs before its edge, then clocks.
    fn cycle(&mut self, i: &Inputs) -> Outputs;
}

struct NativeMsi(MsiMaster);

impl NativeMsi {
    fn new() -> Self {
        let mut uut = MsiMaster::default();
        uut.connect_all();
        NativeMsi(uut)
    }
}

impl MsiDut for NativeMsi {
    fn name(&self) -> &'static str {
        "native"
    }

    fn cycle(&mut self, i: &Inputs) -> Outputs {
        let u = &mut self.0;
        u.clock.next = Clock { clk: false };
        u.rst.next = i.rst;
        u.awready.next = i.awready;
        u.wready.next = i.wready;
        u.bvalid.next = i.bvalid;
        u.bresp.next = (i.bresp as u64).into();
        u.issue.next = i.issue;
        u.addr_lo.next = (i.addr_lo as u64).into();
        u.addr_hi.next = (i.addr_hi as u64).into();
        u.data.next = (i.data as u64).into();
        u.prot.next = (i.prot as u64).into();
        u.mpam.next = (i.mpam as u64).into();
        u.en_next.next = i.en_next;
        u.owed_next.next = i.owed_next;
        common::settle_block(&mut self.0, "the MSI master", 50);
        let u = &self.0;
        let o = Outputs {
            awvalid: u.awvalid.val(),
            awaddr_lo: u.awaddr_lo.val().to_u64() as u32,
            awaddr_hi: u.awaddr_hi.val().to_u64() as u32,
            awprot: u.awprot.val().to_u64() as u8,
            msi_mpam: u.msi_mpam.val().to_u64() as u32,
            wvalid: u.wvalid.val(),
            wdata: u.wdata.val().to_u64() as u32,
            wstrb: u.wstrb.val().to_u64() as u8,
            bready: u.bready.val(),
            busy: u.busy.val(),
            ack: u.ack.val(),
            abt: u.abt.val(),
        };
        self.0.clock.next = Clock { clk: true };
        common::settle_block(&mut self.0, "the MSI master", 50);
        o
    }
}

const INS: [&str; 14] = [
    "clock",
    "rst",
    "awready",
    "wready",
    "bvalid",
    "bresp",
    "issue",
    "addr_lo",
    "addr_hi",
    "data",
    "prot",
    "mpam",
    "en_next",
    "owed_next",
];
const OUTS: [&str; 12] = [
    "awvalid",
    "awaddr_lo",
    "awaddr_hi",
    "awprot",
    "msi_mpam",
    "wvalid",
    "wdata",
    "wstrb",
    "bready",
    "busy",
    "ack",
    "abt",
];

struct VerilatorMsi {
    m: VerilatedModel,
    ins: [usize; 14],
    outs: [usize; 12],
}

impl VerilatorMsi {
    fn new() -> Self {
        let v = msi_verilog(MSI_TOP).unwrap();
        let m = VerilatedModel::build(&v, MSI_TOP, &pmcg_sim::vdut::cache_dir())
            .unwrap_or_else(|e| panic!("Verilator build of the MSI master: {e}"));
        let port = |n: &str| {
            m.port(n)
                .unwrap_or_else(|| panic!("the MSI master's Verilog has no port `{n}`"))
        };
        let ins = INS.map(port);
        let outs = OUTS.map(port);
        VerilatorMsi { m, ins, outs }
    }
}

impl MsiDut for VerilatorMsi {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn cycle(&mut self, i: &Inputs) -> Outputs {
        let m = &mut self.m;
        let values = [
            0,
            i.rst as u64,
            i.awready as u64,
            i.wready as u64,
            i.bvalid as u64,
            i.bresp as u64,
            i.issue as u64,
            i.addr_lo as u64,
            i.addr_hi as u64,
            i.data as u64,
            i.prot as u64,
            i.mpam as u64,
            i.en_next as u64,
            i.owed_next as u64,
        ];
        for (&p, v) in self.ins.iter().zip(values) {
            m.set(p, v);
        }
        m.eval();
        let o = self.outs.map(|p| m.get(p));
        m.set(self.ins[0], 1);
        m.eval();
        Outputs {
            awvalid: o[0] != 0,
            awaddr_lo: o[1] as u32,
            awaddr_hi: o[2] as u32,
            awprot: o[3] as u8,
            msi_mpam: o[4] as u32,
            wvalid: o[5] != 0,
            wdata: o[6] as u32,
            wstrb: o[7] as u8,
            bready: o[8] != 0,
            busy: o[9] != 0,
            ack: o[10] != 0,
            abt: o[11] != 0,
        }
    }
}

fn duts() -> Vec<Box<dyn MsiDut>> {
    let mut v: Vec<Box<dyn MsiDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            v.push(Box::new(NativeMsi::new()));
        } else {
            v.push(Box::new(VerilatorMsi::new()));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no MSI master backend");
    v
}

/// What one run saw, so the test can tell its stimulus reached the corners.
#[derive(Debug, Default)]
struct Stats {
    issued: u64,
    accepted: u64,
    aborts: u64,
    ack_falls: u64,
    resets_while_busy: u64,
}

/// Runs `cycles` seeded cycles on `dut`, checking every cycle's outputs against the model.
fn run(dut: &mut dyn MsiDut, seed: u64, cycles: u64) -> Stats {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut model = MsiModel::default();
    let mut stats = Stats::default();
    // The slave: AW and W accepted (sampled at an edge with VALID and READY), then BVALID after
    // a random delay, held with its BRESP until BREADY.
    let (mut aw_done, mut w_done) = (false, false);
    let (mut b_wait, mut b_resp): (Option<u32>, u8) = (None, 0);
    let mut en = false;
    for t in 0..cycles {
        let want = model.outputs();
        let rst = t == 0 || rng.gen_ratio(1, 1000);
        let bvalid = b_wait == Some(0);
        let i = Inputs {
            rst,
            awready: rng.gen_ratio(1, 3),
            wready: rng.gen_ratio(1, 3),
            bvalid,
            bresp: b_resp,
            // The register file issues only with nothing outstanding.
            issue: !want.busy && rng.gen_ratio(1, 4),
            addr_lo: rng.gen::<u32>() & !3,
            addr_hi: rng.gen::<u32>() & 0xFFFF,
            data: rng.gen(),
            prot: rng.gen_range(0..8),
            mpam: rng.gen(),
            en_next: {
                if rng.gen_ratio(1, 40) {
                    en = !en;
                }
                en
            },
            owed_next: rng.gen_ratio(1, 6),
        };
        let got = dut.cycle(&i);
        assert_eq!(
            got,
            want,
            "{}: cycle {t} (seed {seed}), inputs {i:?}",
            dut.name()
        );
        // The slave's view of this edge.
        if want.busy && i.rst {
            stats.resets_while_busy += 1;
        }
        if want.ack && !i.en_next {
            stats.ack_falls += 1;
        }
        stats.issued += i.issue as u64;
        if want.bready && bvalid && !i.rst {
            stats.accepted += 1;
            stats.aborts += (b_resp & 2 != 0) as u64;
        }
        if i.rst || (want.bready && bvalid) {
            aw_done = false;
            w_done = false;
            b_wait = None;
        }
        aw_done |= want.awvalid && i.awready && !i.rst;
        w_done |= want.wvalid && i.wready && !i.rst;
        if aw_done && w_done && b_wait.is_none() {
            b_wait = Some(rng.gen_range(0..4));
            b_resp = rng.gen_range(0..4);
        } else if let Some(k) = b_wait {
            b_wait = Some(k.saturating_sub(1));
        }
        model.edge(&i);
    }
    stats
}

fn cycles() -> u64 {
    std::env::var("PMCG_MSI_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

#[test]
fn random_axi_traffic_matches_the_contract_every_cycle() {
    let seed = common::base_seed() ^ 0x3551;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    for mut dut in duts() {
        let s = run(dut.as_mut(), seed, cycles());
        println!("{}: {s:?}", dut.name());
        // The stimulus reached what the contract is about.
        assert!(s.issued > 100 && s.accepted > 100, "{}: {s:?}", dut.name());
        assert!(s.aborts > 10 && s.ack_falls > 10, "{}: {s:?}", dut.name());
        assert!(s.resets_while_busy > 0, "{}: {s:?}", dut.name());
    }
}

#[test]
fn the_model_is_a_validator() {
    // A master whose BREADY ignored W (a slave may answer only after both) fails the model.
    struct EarlyBready(NativeMsi);
    impl MsiDut for EarlyBready {
        fn name(&self) -> &'static str {
            "native with BREADY before W"
        }
        fn cycle(&mut self, i: &Inputs) -> Outputs {
            let mut o = self.0.cycle(i);
            o.bready = o.busy && !o.awvalid;
            o
        }
    }
    let r = std::panic::catch_unwind(|| {
        run(&mut EarlyBready(NativeMsi::new()), 7, 2_000);
    });
    assert!(r.is_err(), "the model accepted an early BREADY");
}
