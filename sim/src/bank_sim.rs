//! Block-level simulation of the hybrid counter bank (`pmcg_hdl::counter_bank`): the native
//! RustHDL block and its emitted Verilog under Verilator behind one [`BankDut`] interface, and a
//! seeded random run that checks either against [`BankModel`] cycle by cycle.
//!
//! ```text
//!   seed ──► stimulus (increments, bursts at max_inc, ops near the wrap) ──► dyn BankDut
//!                │                                          ovf, op_accept, rd_* │
//!                └──► BankModel::edge(inc, op performed) ◄── compare ◄───────────┘
//! ```

use crate::bank_model::{BankModel, BankOp};
use crate::verilator::{VerilatedModel, VerilatorError};
use pmcg_hdl::counter_bank::{BankFault, BankShape, HybridBank, ACCEPT_BOUND};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::path::Path;

use pmcg_synth::bank::BANK_TOP;

/// The inputs of one cycle.
#[derive(Clone, Debug)]
pub struct BankInputs {
    pub rst: bool,
    pub inc: Vec<u8>,
    pub op_valid: bool,
    pub op: BankOp,
    pub capture: bool,
}

/// The outputs of one cycle (before its edge).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BankOutputs {
    pub ovf: u64,
    pub op_accept: bool,
    pub rd_valid: bool,
    pub rd: u64,
}

/// One clock cycle of a bank: apply the inputs, sample the outputs, then the rising edge.
pub trait BankDut {
    fn cycle(&mut self, inputs: &BankInputs) -> BankOutputs;
    fn name(&self) -> &'static str;
}

pub struct NativeBank {
    bank: HybridBank,
}

impl NativeBank {
    pub fn new(shape: BankShape, fault: Option<BankFault>) -> Result<Self, String> {
        let mut bank = HybridBank::new(shape, fault)?;
        bank.connect_all();
        Ok(NativeBank { bank })
    }

    fn settle(&mut self) {
        for _ in 0..200 {
            self.bank.update_all();
            if !self.bank.has_changed() {
                return;
            }
        }
        panic!("the hybrid bank did not settle in 200 iterations");
    }
}

impl BankDut for NativeBank {
    fn cycle(&mut self, i: &BankInputs) -> BankOutputs {
        let b = &mut self.bank;
        b.rst.next = i.rst;
        for (s, v) in b.inc.iter_mut().zip(&i.inc) {
            s.next = (*v as u64).into();
        }
        b.op_valid.next = i.op_valid;
        b.op_write.next = i.op.write;
        b.op_hi.next = i.op.hi;
        b.op_idx.next = (i.op.idx as u64).into();
        b.op_wdata.next = (i.op.wdata as u64).into();
        b.op_strb.next = (i.op.strb as u64).into();
        b.op_svr.next = i.op.svr;
        b.capture.next = i.capture;
        b.clock.next = Clock { clk: false };
        self.settle();
        let b = &self.bank;
        let ovf = b.ovf.val();
        let out = BankOutputs {
            ovf: (0..64).fold(0u64, |m, k| m | (ovf.get_bit(k) as u64) << k),
            op_accept: b.op_accept.val(),
            rd_valid: b.rd_valid.val(),
            rd: b.rd_lo.val().index() as u64 | (b.rd_hi.val().index() as u64) << 32,
        };
        self.bank.clock.next = Clock { clk: true };
        self.settle();
        out
    }

    fn name(&self) -> &'static str {
        "native"
    }
}

pub struct VerilatorBank {
    model: VerilatedModel,
    clock: usize,
    rst: usize,
    inc: Vec<usize>,
    op: [usize; 8],
    out: [usize; 5],
}

impl VerilatorBank {
    pub fn new(
        shape: BankShape,
        fault: Option<BankFault>,
        cache_dir: &Path,
    ) -> Result<Self, VerilatorError> {
        let verilog = HybridBank::verilog(shape, fault, BANK_TOP).map_err(VerilatorError::Load)?;
        let model = VerilatedModel::build(&verilog, BANK_TOP, cache_dir)?;
        let port = |name: &str| {
            model
                .port(name)
                .ok_or_else(|| VerilatorError::Load(format!("the bank has no port `{name}`")))
        };
        let names = [
            "op_valid", "op_write", "op_hi", "op_idx", "op_wdata", "op_strb", "op_svr", "capture",
        ];
        let outs = ["ovf", "op_accept", "rd_valid", "rd_lo", "rd_hi"];
        let mut op = [0; 8];
        for (p, n) in op.iter_mut().zip(names) {
            *p = port(n)?;
        }
        let mut out = [0; 5];
        for (p, n) in out.iter_mut().zip(outs) {
            *p = port(n)?;
        }
        let inc = (0..shape.counters)
            .map(|n| port(&format!("inc${n}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(VerilatorBank {
            clock: port("clock")?,
            rst: port("rst")?,
            inc,
            op,
            out,
            model,
        })
    }
}

impl BankDut for VerilatorBank {
    fn cycle(&mut self, i: &BankInputs) -> BankOutputs {
        let m = &mut self.model;
        m.set(self.clock, 0);
        m.set(self.rst, i.rst as u64);
        for (p, v) in self.inc.iter().zip(&i.inc) {
            m.set(*p, *v as u64);
        }
        let vals = [
            i.op_valid as u64,
            i.op.write as u64,
            i.op.hi as u64,
            i.op.idx as u64,
            i.op.wdata as u64,
            i.op.strb as u64,
            i.op.svr as u64,
            i.capture as u64,
        ];
        for (p, v) in self.op.iter().zip(vals) {
            m.set(*p, v);
        }
        m.eval();
        let out = BankOutputs {
            ovf: m.get(self.out[0]),
            op_accept: m.get(self.out[1]) != 0,
            rd_valid: m.get(self.out[2]) != 0,
            rd: m.get(self.out[3]) | m.get(self.out[4]) << 32,
        };
        m.set(self.clock, 1);
        m.eval();
        out
    }

    fn name(&self) -> &'static str {
        "verilator"
    }
}

/// What a run saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BankRunStats {
    pub overflows: u64,
    pub reads: u64,
    pub writes: u64,
    pub resets: u64,
    pub captures: u64,
    /// The longest wait seen, first valid cycle to accept cycle inclusive.
    pub max_accept: u64,
}

/// Runs `cycles` cycles of seeded random stimulus on `dut` and checks every cycle against the
/// model; the first disagreement is the error (with the cycle and the seed).
pub fn run_bank(
    dut: &mut dyn BankDut,
    shape: BankShape,
    seed: u64,
    cycles: u64,
) -> Result<BankRunStats, String> {
    let n = shape.counters;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut model = BankModel::new(n, shape.counter_bits);
    let mut stats = BankRunStats::default();
    let max = shape.max_inc as u8;
    let wide = shape.counter_bits > 32;
    let mut inp = BankInputs {
        rst: true,
        inc: vec![0; n],
        op_valid: false,
        capture: false,
        op: BankOp::read(0, false),
    };
    // The op in progress: since which cycle it is valid; reads due: (cycle, value).
    let mut valid_since: Option<u64> = None;
    let mut gap = 0u32;
    let mut due: Vec<(u64, u64)> = Vec::new();
    // Stimulus phases: how busy the counters are, changed every few thousand cycles.
    let mut density = 0.5f64;
    let fail =
        |c: u64, what: String, name: &str| Err(format!("{name}: seed {seed}, cycle {c}: {what}"));
    for c in 0..cycles {
        if c % 2048 == 0 {
            density = [0.0, 0.1, 0.5, 0.9, 1.0][rng.gen_range(0..5)];
        }
        let burst = density >= 1.0;
        for v in inp.inc.iter_mut() {
            *v = if burst {
                max
            } else if rng.gen_bool(density) {
                rng.gen_range(1..=max)
            } else {
                0
            };
        }
        let idle = valid_since.is_none() && due.is_empty();
        inp.rst = c == 0 || (idle && c > 0 && rng.gen_range(0..20_000) == 0);
        if !inp.rst && valid_since.is_none() {
            if gap > 0 {
                gap -= 1;
            } else if rng.gen_bool(0.3) {
                let write = rng.gen_bool(0.5);
                let hi = write && wide && rng.gen_bool(0.5);
                let wdata = match rng.gen_range(0..4) {
                    // Near the top: the low word close to wrapping, the high word all ones.
                    0 if hi => u32::MAX,
                    0 => u32::MAX - rng.gen_range(0..64),
                    1 => rng.gen_range(0..1024),
                    _ => rng.gen(),
                };
                let strb = if rng.gen_bool(0.8) {
                    0xF
                } else {
                    rng.gen_range(0..16)
                };
                inp.op = BankOp {
                    write,
                    svr: !write && rng.gen_bool(0.5),
                    hi,
                    idx: rng.gen_range(0..n),
                    wdata,
                    strb,
                };
                valid_since = Some(c);
            }
        }
        inp.op_valid = valid_since.is_some() && !inp.rst;
        inp.capture = !inp.rst && rng.gen_range(0..64) == 0;
        let out = dut.cycle(&inp);
        let name = dut.name();
        if inp.rst {
            model.reset();
            stats.resets += 1;
            continue;
        }
        let performed = if out.op_accept {
            let Some(since) = valid_since.take() else {
                return fail(c, "op_accept with no op valid".into(), name);
            };
            stats.max_accept = stats.max_accept.max(c - since + 1);
            gap = rng.gen_range(1..4);
            Some(inp.op)
        } else {
            None
        };
        if let Some(since) = valid_since {
            if c - since + 1 >= ACCEPT_BOUND {
                return fail(
                    c,
                    format!(
                        "an op valid since cycle {since} not accepted within {ACCEPT_BOUND} cycles"
                    ),
                    name,
                );
            }
        }
        let (ovf, read) = model.edge(&inp.inc, performed.as_ref(), inp.capture);
        stats.captures += inp.capture as u64;
        if out.ovf != ovf {
            return fail(
                c,
                format!("overflow {:#018x}, the model {:#018x}", out.ovf, ovf),
                name,
            );
        }
        match performed {
            Some(op) if op.write => stats.writes += 1,
            Some(_) => stats.reads += 1,
            None => {}
        }
        if let Some(v) = read {
            due.push((c + 2, v));
        }
        let expect = due.first().filter(|(at, _)| *at == c).map(|(_, v)| *v);
        match (out.rd_valid, expect) {
            (true, Some(v)) if out.rd == v => {
                due.remove(0);
            }
            (true, Some(v)) => {
                return fail(c, format!("read {:#x}, the model {v:#x}", out.rd), name)
            }
            (true, None) => return fail(c, "rd_valid with no read due".into(), name),
            (false, Some(v)) => {
                return fail(c, format!("no rd_valid for a read of {v:#x} due"), name)
            }
            (false, None) => {}
        }
        stats.overflows += ovf.count_ones() as u64;
    }
    Ok(stats)
}
