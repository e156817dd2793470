//! Block-level tests of the board's FIFO (`pmcg_fpga::fifo::BoardFifo<W, N, NP1>`: first word
//! fall through on a `BoardRam`, flags in flip-flops, no reset): a queue of 2^N words whose head
//! is `data_out` whenever `empty` is 0, full at 2^N entries, a write readable one edge after its
//! own, a write while full and a read while empty ignored. On the native block and on its
//! emitted Verilog under Verilator, against a plain-Rust queue, every cycle from power-up, in
//! three shapes: 8x8 (fills often), the MSI sink's 16x32 and the UART receive FIFO's 256x8.
//!
//! ```text
//!   write, data_in, read ──► dyn FifoDut: native | verilator ──► empty, full, data_out ─┐
//!                       └─► QueueModel: q (readable) + pending (written at the last edge)  == each
//!                           empty = q empty; full = |q| + pending == 2^N; head = q[0] ─┘  cycle
//! ```
//! The checker is shown failing: a model one entry short or long, a model without the write's
//! one-edge latency, and a FIFO whose head is corrupted while full are each caught on every
//! backend. `PMCG_SEED` sets the base seed (printed); `PMCG_BACKENDS` / `PMCG_REQUIRE_TOOLS=1`
//! as in tests/common.

mod common;

use pmcg_fpga::fifo::{board_fifo_verilog, BoardFifo, BOARD_FIFO_TOP};
use pmcg_sim::verilator::VerilatedModel;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// The outputs in a cycle (before its edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Outs {
    empty: bool,
    full: bool,
    head: u64,
}

trait FifoDut {
    fn name(&self) -> &'static str;
    /// Inputs in the low phase, the outputs sampled, then a rising edge.
    fn cycle(&mut self, write: Option<u64>, read: bool) -> Outs;
}

struct NativeFifo<const W: usize, const N: usize, const NP1: usize>(BoardFifo<W, N, NP1>);

impl<const W: usize, const N: usize, const NP1: usize> FifoDut for NativeFifo<W, N, NP1> {
    fn name(&self) -> &'static str {
        "native"
    }

    fn cycle(&mut self, write: Option<u64>, read: bool) -> Outs {
        let u = &mut self.0;
        u.clock.next = Clock { clk: false };
        u.write.next = write.is_some();
        u.data_in.next = write.unwrap_or(0).into();
        u.read.next = read;
        common::settle_block(u, "the board FIFO", 20);
        let out = Outs {
            empty: u.empty.val(),
            full: u.full.val(),
            head: u.data_out.val().to_u64(),
        };
        u.clock.next = Clock { clk: true };
        common::settle_block(u, "the board FIFO", 20);
        out
    }
}

struct VerilatorFifo {
    m: VerilatedModel,
    /// clock, write, data_in, read, empty, full, data_out
    p: [usize; 7],
}

impl FifoDut for VerilatorFifo {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn cycle(&mut self, write: Option<u64>, read: bool) -> Outs {
        let [clock, wr, data_in, rd, empty, full, data_out] = self.p;
        let m = &mut self.m;
        m.set(clock, 0);
        m.set(wr, write.is_some() as u64);
        m.set(data_in, write.unwrap_or(0));
        m.set(rd, read as u64);
        m.eval();
        let out = Outs {
            empty: m.get(empty) != 0,
            full: m.get(full) != 0,
            head: m.get(data_out),
        };
        m.set(clock, 1);
        m.eval();
        out
    }
}

/// A planted fault: the FIFO's head with its top bit flipped whenever `full` is 1.
struct CorruptHeadWhenFull {
    inner: Box<dyn FifoDut>,
    top_bit: u64,
}

impl FifoDut for CorruptHeadWhenFull {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn cycle(&mut self, write: Option<u64>, read: bool) -> Outs {
        let mut o = self.inner.cycle(write, read);
        if o.full {
            o.head ^= self.top_bit;
        }
        o
    }
}

/// A `BoardFifo<W, N, NP1>` on each selected backend, from power-up.
fn duts<const W: usize, const N: usize, const NP1: usize>() -> Vec<Box<dyn FifoDut>> {
    let mut v: Vec<Box<dyn FifoDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            let mut u = BoardFifo::<W, N, NP1>::default();
            u.connect_all();
            v.push(Box::new(NativeFifo(u)));
        } else {
            let text = board_fifo_verilog::<W, N, NP1>(BOARD_FIFO_TOP).unwrap();
            let (m, p) = common::block_model(
                &text,
                BOARD_FIFO_TOP,
                "the board FIFO",
                [
                    "clock", "write", "data_in", "read", "empty", "full", "data_out",
                ],
            );
            v.push(Box::new(VerilatorFifo { m, p }));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no backend");
    v
}

/// The contract in plain Rust. `capacity` and `latency` are the FIFO's (2^N, true) except in
/// the planted faults.
struct QueueModel {
    capacity: usize,
    /// A write is readable one edge after its own (else right after it: a planted fault).
    latency: bool,
    /// Readable entries, head first.
    q: VecDeque<u64>,
    /// Written at the last edge, readable after the next one.
    pending: Option<u64>,
}

impl QueueModel {
    fn new(capacity: usize, latency: bool) -> Self {
        QueueModel {
            capacity,
            latency,
            q: VecDeque::new(),
            pending: None,
        }
    }

    /// The outputs in this cycle: (empty, full, the head when not empty).
    fn outputs(&self) -> (bool, bool, Option<u64>) {
        let entries = self.q.len() + self.pending.is_some() as usize;
        (
            self.q.is_empty(),
            entries == self.capacity,
            self.q.front().copied(),
        )
    }

    /// The edge: a read while empty and a write while full are ignored.
    fn edge(&mut self, write: Option<u64>, read: bool) {
        let (empty, full, _) = self.outputs();
        if let Some(p) = self.pending.take() {
            self.q.push_back(p);
        }
        if read && !empty {
            self.q.pop_front();
        }
        match write {
            Some(v) if !full && self.latency => self.pending = Some(v),
            Some(v) if !full => self.q.push_back(v),
            _ => {}
        }
    }
}

/// What a run exercised.
#[derive(Debug, Default)]
struct Coverage {
    /// Cycles in which `full` rose.
    fills: u32,
    /// Reads accepted (not empty).
    reads: u32,
    /// Writes while full (ignored), with a read in the same cycle among them.
    writes_while_full: u32,
    read_and_write_while_full: u32,
    /// Reads while empty (ignored).
    reads_while_empty: u32,
    /// Cycles empty with a write in flight (written at the last edge: the one-edge latency).
    empty_with_a_write_in_flight: u32,
}

/// `cycles` seeded cycles of `dut` from power-up against `model`, every cycle's empty, full and
/// head (when not empty) compared: the first mismatch, or the coverage. The traffic runs in
/// phases of `phase` cycles (fill, balanced, drain, balanced) so that the FIFO fills and drains.
fn run(
    dut: &mut dyn FifoDut,
    mut model: QueueModel,
    width: usize,
    seed: u64,
    cycles: usize,
    phase: usize,
) -> Result<Coverage, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mask = u64::MAX >> (64 - width);
    let mut cov = Coverage::default();
    let mut was_full = false;
    for t in 0..cycles {
        // (write, read) probabilities in 1/8s.
        let (pw, pr) = match (t / phase) % 4 {
            0 => (6, 1),
            2 => (2, 6),
            _ => (4, 4),
        };
        let write = rng.gen_ratio(pw, 8).then(|| rng.gen::<u64>() & mask);
        let read = rng.gen_ratio(pr, 8);
        let got = dut.cycle(write, read);
        let (empty, full, head) = model.outputs();
        let head_ok = empty || head == Some(got.head);
        if got.empty != empty || got.full != full || !head_ok {
            return Err(format!(
                "{}, cycle {t}: got empty {} full {} head {:x}, want empty {empty} full {full} \
                 head {head:x?} (write {write:x?}, read {read})",
                dut.name(),
                got.empty,
                got.full,
                got.head
            ));
        }
        cov.fills += (full && !was_full) as u32;
        was_full = full;
        cov.reads += (read && !empty) as u32;
        cov.reads_while_empty += (read && empty) as u32;
        cov.writes_while_full += (write.is_some() && full) as u32;
        cov.read_and_write_while_full += (write.is_some() && read && full) as u32;
        cov.empty_with_a_write_in_flight += (empty && model.pending.is_some()) as u32;
        model.edge(write, read);
    }
    Ok(cov)
}

/// The seeded run on every backend of a `BoardFifo<W, N, NP1>`: passes, and reaches full, reads,
/// and each ignored input and the latency, many times.
fn queue_on_every_backend<const W: usize, const N: usize, const NP1: usize>(
    seed: u64,
    cycles: usize,
) {
    let cap = 1usize << N;
    let phase = (4 * cap).max(200);
    let rounds = (cycles / (4 * phase)) as u32;
    for mut dut in duts::<W, N, NP1>() {
        let who = dut.name();
        let cov = run(
            dut.as_mut(),
            QueueModel::new(cap, true),
            W,
            seed,
            cycles,
            phase,
        )
        .unwrap_or_else(|e| panic!("{cap}x{W}, seed {seed}: {e}"));
        println!("{cap}x{W} on {who}: {cycles} cycles, {cov:?}");
        assert!(
            cov.fills >= 4 * rounds
                && cov.reads as usize >= cycles / 8
                && cov.writes_while_full >= 8 * rounds
                && cov.read_and_write_while_full >= 4 * rounds
                && cov.reads_while_empty >= 8 * rounds
                && cov.empty_with_a_write_in_flight >= 8 * rounds,
            "{cap}x{W} on {who}, seed {seed}: too little coverage ({rounds} rounds): {cov:?}"
        );
    }
}

/// Against the queue over seeded traffic, every cycle from power-up: the head whenever not
/// empty, a write readable one edge after its own, full at 2^N, writes while full and reads
/// while empty ignored.
#[test]
fn the_fifo_is_a_queue_with_a_one_edge_write_latency() {
    let seed = common::base_seed() ^ 0xf1f0;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    queue_on_every_backend::<8, 3, 4>(seed, 20_000);
    queue_on_every_backend::<32, 4, 5>(seed ^ 1, 20_000);
    queue_on_every_backend::<8, 8, 9>(seed ^ 2, 40_000);
}

/// The same checker fails on planted faults, on every backend: a model one entry short or long,
/// a model whose writes are readable right after their edge, and a FIFO whose head has its top
/// bit flipped while full; the unplanted run of the same seed passes.
#[test]
fn the_queue_check_fails_on_planted_faults() {
    let seed = common::base_seed() ^ 0xf1f1;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    let (cycles, phase) = (4_000, 200);
    let faults: [(&str, usize, bool, bool); 5] = [
        ("none", 8, true, false),
        ("a model one entry short", 7, true, false),
        ("a model one entry long", 9, true, false),
        ("a model without the write's latency", 8, false, false),
        ("the head's top bit flipped while full", 8, true, true),
    ];
    for (what, cap, latency, corrupt) in faults {
        for dut in duts::<8, 3, 4>() {
            let who = dut.name();
            let mut dut: Box<dyn FifoDut> = if corrupt {
                Box::new(CorruptHeadWhenFull {
                    inner: dut,
                    top_bit: 0x80,
                })
            } else {
                dut
            };
            let result = run(
                dut.as_mut(),
                QueueModel::new(cap, latency),
                8,
                seed,
                cycles,
                phase,
            );
            match (what, result) {
                ("none", Err(e)) => panic!("seed {seed}: the unplanted run failed: {e}"),
                ("none", Ok(_)) => {}
                (_, Ok(cov)) => panic!("{who}, seed {seed}: {what} not caught ({cov:?})"),
                (_, Err(e)) => println!("{what}: caught: {e}"),
            }
        }
    }
}
