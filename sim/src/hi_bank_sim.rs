//! Block-level simulation of the upper-word bank (`pmcg_hdl::hi_bank`): the native RustHDL block
//! and its emitted Verilog under Verilator behind one [`HiBankDut`] interface, a plain-Rust
//! reference model written from the block's contract (its module docs), and the runs that check
//! either against the model cycle by cycle: [`run_hi_bank`] (seeded random stimulus) and
//! [`run_periodic`] (steady traffic to one counter, like a polling loop).
//!
//! ```text
//!   seed ──► stimulus: carries per row (spaced per counter, bursts), APB-like transfers (paddr,
//!            then the registered tgt_sel, 8 held cycles, the access: a read or a write of every
//!            row), captures, resets
//!                │                                                  ▼
//!                │                      dyn HiBankDut: NativeHiBank | VerilatorHiBank | IdealHiBank
//!                │                 per row: pf, spf, pend, at_max; ready │ (before the edge)
//!                └──► HiBankModel[row]::edge(inputs, outputs) ◄── check ◄┘
//! ```
//! A bank ([`HiShape`]) has one or two rows per counter (the register file's `mid`, bits [31:L],
//! and with 64-bit counters bits [63:32]) that share the control (phases, scan, prefetch index,
//! fresh and stale flags) and nothing else: given the same control inputs each row behaves as a
//! one-row bank with its own carries and write values. So the harness drives every row with its
//! own carries and write values and checks every row, in every cycle, against its own
//! [`HiBankModel`] (`ready` is shared).
//!
//! The model keeps, per counter n, the logical upper word U[n] (mod hi_max + 1) and the logical
//! shadow upper word W[n] (the SVR's upper word less the pending carry its caller keeps in its
//! own `s_pend`). It does not predict when the bank serves a carry: it takes the bank's `pend`
//! as the caller does, and checks that `pf + pend` is the counter's upper word and `spf` its
//! shadow's whenever `ready`, that `at_max` is exact for every counter in every cycle, that a
//! carry shows in `pend` at once and `pend` rises on a carry only, `ready`'s bound, and that no
//! carry stays pending longer than the service bound (`hi_service_bound`). With nothing
//! addressed the harness drives `tgt_sel` with the last counter addressed (`tgt_any` low), as
//! the register file's decoder leaves a stale select.
//! [`IdealHiBank`] (the contract's simplest bank, in plain Rust) checks the harness itself.
//!
//! A run's stimulus is a function of its seed and shape: row 0's (and the control's) draws come
//! from the seed's ChaCha8 stream 0, in the order of the one-row harness (a one-row run is the
//! one-row harness's run of that seed), row r's from stream r.
//!
//! Debugging: `PMCG_HI_BANK_TRACE=N` appends the last N cycles to a run's error
//! (`PMCG_HI_BANK_TRACE_COUNTER=n`: with counter n's model state); `PMCG_HI_BANK_CARRY_GAP`
//! overrides the spacing of one counter's carries ([`carry_gap`]).

use crate::verilator::{VerilatedModel, VerilatorError};
use pmcg_hdl::hi_bank::{HiBank, HiBankFault, HI_IDX_LSB, HI_PREFETCH_CYCLES};
use pmcg_hdl::regmap::COUNTER_HOLD_CYCLES;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::path::Path;

use pmcg_synth::hi_bank::{hi_bank_verilog, HI_BANK_TOP};

/// The most rows of a bank (`HiBank::new`'s `row_bits`).
pub const HI_MAX_ROWS: usize = 2;

/// The fewest cycles between two carries of one counter into one row in the random stimulus:
/// the bank's service bound (`hi_bank::hi_service_bound`), within which it serves every pending
/// carry, so `pend` (one bit) never holds two carries (a real 32-bit low word wraps at most once
/// in 2^32 / 9 cycles).
pub const fn carry_gap(counters: usize) -> u64 {
    pmcg_hdl::hi_bank::hi_service_bound(counters)
}

/// A bank's shape: its counters and the width of each of its rows (1 or 2 rows of 1-32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HiShape {
    pub counters: usize,
    rows: usize,
    bits: [u32; HI_MAX_ROWS],
}

impl HiShape {
    /// `counters` (1-64) counters with rows of `row_bits` (1 or 2 rows of 1-32 bits).
    pub fn new(counters: usize, row_bits: &[u32]) -> Self {
        assert!((1..=64).contains(&counters), "1-64 counters");
        assert!(
            (1..=HI_MAX_ROWS).contains(&row_bits.len()),
            "1-{HI_MAX_ROWS} rows"
        );
        assert!(
            row_bits.iter().all(|b| (1..=32).contains(b)),
            "rows of 1-32 bits"
        );
        let mut bits = [0; HI_MAX_ROWS];
        bits[..row_bits.len()].copy_from_slice(row_bits);
        HiShape {
            counters,
            rows: row_bits.len(),
            bits,
        }
    }

    /// One row: the upper words (bits [counter_bits - 1 : 32]) of 33-64 bit counters.
    pub fn one_row(counters: usize, counter_bits: u32) -> Self {
        assert!((33..=64).contains(&counter_bits), "33-64 bit counters");
        HiShape::new(counters, &[counter_bits - 32])
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Each row's width.
    pub fn row_bits(&self) -> &[u32] {
        &self.bits[..self.rows]
    }
}

/// One row: `counters x counter_bits bits` (its counters' bits [counter_bits - 1 : 32]); two:
/// `counters x rows of [a, b] bits`.
impl std::fmt::Display for HiShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.rows == 1 {
            write!(f, "{} x {} bits", self.counters, self.bits[0] + 32)
        } else {
            write!(f, "{} x rows of {:?} bits", self.counters, self.row_bits())
        }
    }
}

/// The inputs of one cycle (per row: index = row; the rows a bank lacks are ignored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HiInputs {
    pub rst: bool,
    /// Per row: each counter's carry into the row at this edge.
    pub carry: [u64; HI_MAX_ROWS],
    pub paddr: u32,
    pub tgt_sel: u64,
    pub wr: bool,
    pub wr_val: [u32; HI_MAX_ROWS],
    pub wr_ones: [bool; HI_MAX_ROWS],
    pub wr_m1: [bool; HI_MAX_ROWS],
    pub svr_load: bool,
}

/// The outputs of one cycle (before its edge; per row: index = row, 0 for rows a bank lacks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HiOutputs {
    pub pf: [u32; HI_MAX_ROWS],
    pub spf: [u32; HI_MAX_ROWS],
    pub ready: bool,
    pub pend: [u64; HI_MAX_ROWS],
    pub at_max: [u64; HI_MAX_ROWS],
}

/// The bank's `tgt_sel` / `tgt_any` ports from a cycle's `tgt_sel` (the addressed counter, or 0):
/// with nothing addressed the port keeps the last counter addressed (as the register file's
/// decoder holds a stale element select), so a bank that used `tgt_sel` without `tgt_any`
/// fails the block tests.
#[derive(Clone, Copy, Debug)]
struct StaleSelect {
    last: u64,
}

impl Default for StaleSelect {
    fn default() -> Self {
        StaleSelect { last: 1 }
    }
}

impl StaleSelect {
    fn drive(&mut self, tgt_sel: u64) -> (u64, bool) {
        if tgt_sel != 0 {
            self.last = tgt_sel;
        }
        (self.last, tgt_sel != 0)
    }
}

/// One clock cycle of a bank: apply the inputs, sample the outputs, then the rising edge.
pub trait HiBankDut {
    fn cycle(&mut self, inputs: &HiInputs) -> HiOutputs;
    fn name(&self) -> &'static str;
}

/// The RustHDL block, simulated natively.
pub struct NativeHiBank {
    bank: HiBank,
    rows: usize,
    sel: StaleSelect,
}

impl NativeHiBank {
    pub fn new(shape: HiShape, fault: Option<HiBankFault>) -> Self {
        let mut bank = HiBank::new(shape.counters, shape.row_bits(), HI_IDX_LSB, fault);
        bank.connect_all();
        NativeHiBank {
            bank,
            rows: shape.rows(),
            sel: StaleSelect::default(),
        }
    }

    fn settle(&mut self) {
        for _ in 0..200 {
            self.bank.update_all();
            if !self.bank.has_changed() {
                return;
            }
        }
        panic!("the upper-word bank did not settle in 200 iterations");
    }
}

impl HiBankDut for NativeHiBank {
    fn cycle(&mut self, i: &HiInputs) -> HiOutputs {
        let b = &mut self.bank;
        b.rst.next = i.rst;
        b.paddr.next = (i.paddr as u64).into();
        let (sel, any) = self.sel.drive(i.tgt_sel);
        b.tgt_sel.next = sel.into();
        b.tgt_any.next = any;
        b.wr.next = i.wr;
        b.svr_load.next = i.svr_load;
        for r in 0..self.rows {
            b.carry[r].next = i.carry[r].into();
            b.wr_val[r].next = (i.wr_val[r] as u64).into();
            b.wr_ones[r].next = i.wr_ones[r];
            b.wr_m1[r].next = i.wr_m1[r];
        }
        b.clock.next = Clock { clk: false };
        self.settle();
        let b = &self.bank;
        let mut out = HiOutputs {
            ready: b.ready.val(),
            ..Default::default()
        };
        for r in 0..self.rows {
            out.pf[r] = b.pf[r].val().to_u64() as u32;
            out.spf[r] = b.spf[r].val().to_u64() as u32;
            out.pend[r] = b.pend[r].val().to_u64();
            out.at_max[r] = b.at_max[r].val().to_u64();
        }
        self.bank.clock.next = Clock { clk: true };
        self.settle();
        out
    }

    fn name(&self) -> &'static str {
        "native"
    }
}

/// The emitted Verilog (`pmcg_synth::hi_bank`, top [`HI_BANK_TOP`]) under Verilator. rust-hdl
/// names a port vector's elements `name$i`: row r's ports are `carry$r`, `pf$r`, ...
pub struct VerilatorHiBank {
    model: VerilatedModel,
    clock: usize,
    /// rst, paddr, tgt_sel, tgt_any, wr, svr_load.
    ins: [usize; 6],
    /// Per row: carry, wr_val, wr_ones, wr_m1.
    row_ins: Vec<[usize; 4]>,
    ready: usize,
    /// Per row: pf, spf, pend, at_max.
    row_outs: Vec<[usize; 4]>,
    sel: StaleSelect,
}

impl VerilatorHiBank {
    pub fn new(
        shape: HiShape,
        fault: Option<HiBankFault>,
        cache_dir: &Path,
    ) -> Result<Self, VerilatorError> {
        let verilog = hi_bank_verilog(shape.counters, shape.row_bits(), fault, HI_BANK_TOP)
            .map_err(VerilatorError::Load)?;
        let model = VerilatedModel::build(&verilog, HI_BANK_TOP, cache_dir)?;
        let port = |name: &str| {
            model.port(name).ok_or_else(|| {
                VerilatorError::Load(format!("the upper-word bank has no port `{name}`"))
            })
        };
        let ports = |names: &[String]| -> Result<[usize; 4], VerilatorError> {
            let mut p = [0; 4];
            for (p, n) in p.iter_mut().zip(names) {
                *p = port(n)?;
            }
            Ok(p)
        };
        let mut ins = [0; 6];
        for (p, n) in ins
            .iter_mut()
            .zip(["rst", "paddr", "tgt_sel", "tgt_any", "wr", "svr_load"])
        {
            *p = port(n)?;
        }
        let mut row_ins = Vec::new();
        let mut row_outs = Vec::new();
        for r in 0..shape.rows() {
            let row = |names: [&str; 4]| names.map(|n| format!("{n}${r}"));
            row_ins.push(ports(&row(["carry", "wr_val", "wr_ones", "wr_m1"]))?);
            row_outs.push(ports(&row(["pf", "spf", "pend", "at_max"]))?);
        }
        // No row beyond the shape's.
        let extra = format!("carry${}", shape.rows());
        if model.port(&extra).is_some() {
            return Err(VerilatorError::Load(format!(
                "the upper-word bank of {shape} has a port `{extra}`"
            )));
        }
        Ok(VerilatorHiBank {
            clock: port("clock")?,
            ins,
            row_ins,
            ready: port("ready")?,
            row_outs,
            model,
            sel: StaleSelect::default(),
        })
    }
}

impl HiBankDut for VerilatorHiBank {
    fn cycle(&mut self, i: &HiInputs) -> HiOutputs {
        let (sel, any) = self.sel.drive(i.tgt_sel);
        let m = &mut self.model;
        m.set(self.clock, 0);
        let vals = [
            i.rst as u64,
            i.paddr as u64,
            sel,
            any as u64,
            i.wr as u64,
            i.svr_load as u64,
        ];
        for (p, v) in self.ins.iter().zip(vals) {
            m.set(*p, v);
        }
        for (r, p) in self.row_ins.iter().enumerate() {
            let vals = [
                i.carry[r],
                i.wr_val[r] as u64,
                i.wr_ones[r] as u64,
                i.wr_m1[r] as u64,
            ];
            for (p, v) in p.iter().zip(vals) {
                m.set(*p, v);
            }
        }
        m.eval();
        let mut out = HiOutputs {
            ready: m.get(self.ready) != 0,
            ..Default::default()
        };
        for (r, p) in self.row_outs.iter().enumerate() {
            out.pf[r] = m.get(p[0]) as u32;
            out.spf[r] = m.get(p[1]) as u32;
            out.pend[r] = m.get(p[2]);
            out.at_max[r] = m.get(p[3]);
        }
        m.set(self.clock, 1);
        m.eval();
        out
    }

    fn name(&self) -> &'static str {
        "verilator"
    }
}

/// The reference model of one row: the bank's contract in plain Rust (no RustHDL types). A bank
/// of two rows is checked by two, one per row, each seeing the shared inputs and its own row's.
#[derive(Clone, Debug)]
pub struct HiBankModel {
    pub counters: usize,
    /// The row it models (its index into the per-row inputs and outputs).
    pub row: usize,
    /// The largest upper word: 2^(row bits) - 1.
    pub hi_max: u64,
    /// Per counter: its upper word (mod hi_max + 1).
    pub u: Vec<u64>,
    /// Per counter: its shadow's upper word, less the pending carry taken with the capture.
    pub w: Vec<u64>,
    /// Per counter: for how many cycles its `pend` has been set (the service bound's check).
    pub pend_age: Vec<u64>,
}

impl HiBankModel {
    /// The model of row `row` of a bank of `shape`.
    pub fn new(shape: HiShape, row: usize) -> Self {
        let bits = shape.row_bits()[row];
        HiBankModel {
            counters: shape.counters,
            row,
            hi_max: u64::MAX >> (64 - bits),
            u: vec![0; shape.counters],
            w: vec![0; shape.counters],
            pend_age: vec![0; shape.counters],
        }
    }

    /// One model per row of `shape`.
    pub fn rows(shape: HiShape) -> Vec<HiBankModel> {
        (0..shape.rows())
            .map(|r| HiBankModel::new(shape, r))
            .collect()
    }

    /// The implemented counters, as a mask.
    pub fn all(&self) -> u64 {
        if self.counters == 64 {
            u64::MAX
        } else {
            (1u64 << self.counters) - 1
        }
    }

    pub fn reset(&mut self) {
        self.u.fill(0);
        self.w.fill(0);
        self.pend_age.fill(0);
    }

    /// Per counter: its upper word is all ones (a carry now overflows it).
    pub fn at_max(&self) -> u64 {
        (0..self.counters).fold(0, |m, n| m | ((self.u[n] == self.hi_max) as u64) << n)
    }

    /// The checks of one cycle's outputs of its row (sampled before its edge) that the model
    /// decides alone: `at_max` of every counter, no pending carry of an unimplemented counter
    /// and, when `ready` while `tgt_sel` addresses counter t, `pf + pend[t]` and `spf`. Returns
    /// whether the prefetch was checked.
    pub fn check(&self, tgt_sel: u64, out: &HiOutputs) -> Result<bool, String> {
        let r = self.row;
        let (pend, at_max, pf, spf) = (out.pend[r], out.at_max[r], out.pf[r], out.spf[r]);
        let all = self.all();
        if pend & !all != 0 {
            return Err(format!("pend {pend:#x} has bits of unimplemented counters"));
        }
        // The bank's contract: every pending carry is served within the service bound.
        let bound = pmcg_hdl::hi_bank::hi_service_bound(self.counters);
        for (n, age) in self.pend_age.iter().enumerate() {
            if pend >> n & 1 == 1 && *age >= bound {
                return Err(format!(
                    "counter {n}: a carry pending for {age} cycles, beyond the service bound {bound}"
                ));
            }
        }
        let want = self.at_max();
        if at_max & all != want {
            return Err(format!(
                "at_max {:#x}, the model {want:#x} (upper words {:x?})",
                at_max & all,
                self.u
            ));
        }
        if !out.ready || tgt_sel == 0 {
            return Ok(false);
        }
        let t = tgt_sel.trailing_zeros() as usize;
        let pend = pend >> t & 1;
        let got = (pf as u64 + pend) & self.hi_max;
        if got != self.u[t] {
            return Err(format!(
                "counter {t}: pf {pf:#x} + pend {pend} = {got:#x}, the model's upper word {:#x}",
                self.u[t]
            ));
        }
        if spf as u64 != self.w[t] {
            return Err(format!(
                "counter {t}: spf {spf:#x}, the model's shadow upper word {:#x}",
                self.w[t]
            ));
        }
        Ok(true)
    }

    /// The edge at the end of a cycle with inputs `i`, where the bank showed `out` (its row's
    /// `pend`). Returns the counters whose upper word wrapped (hi_max -> 0) on a carry.
    pub fn edge(&mut self, i: &HiInputs, out: &HiOutputs) -> u64 {
        if i.rst {
            self.reset();
            return 0;
        }
        let r = self.row;
        let pend = out.pend[r];
        for (n, age) in self.pend_age.iter_mut().enumerate() {
            *age = if pend >> n & 1 == 1 { *age + 1 } else { 0 };
        }
        let m = self.hi_max;
        if i.svr_load {
            // The capture takes every counter's value before this edge, a written one too.
            for n in 0..self.counters {
                self.w[n] = (self.u[n] + m + 1 - (pend >> n & 1)) & m;
            }
        }
        let written = if i.wr && i.tgt_sel != 0 {
            Some(i.tgt_sel.trailing_zeros() as usize)
        } else {
            None
        };
        let mut wraps = 0;
        for n in 0..self.counters {
            let c = i.carry[r] >> n & 1;
            if written == Some(n) {
                self.u[n] = (i.wr_val[r] as u64 + c) & m;
            } else if c == 1 {
                if self.u[n] == m {
                    wraps |= 1 << n;
                }
                self.u[n] = (self.u[n] + 1) & m;
            }
        }
        wraps
    }
}

/// The contract's simplest bank in plain Rust, for checking the harness itself (a correct bank
/// must pass every run, and a run must exercise what it checks): every pending carry is added at
/// the next edge, the prefetch follows the addressed counter one cycle behind `tgt_sel`.
pub struct IdealHiBank {
    rows: Vec<IdealRow>,
    tgt_idx: usize,
    pf: Option<usize>,
}

/// One row of an [`IdealHiBank`].
struct IdealRow {
    hi_max: u64,
    all: u64,
    /// Per counter: the upper word less the pending carry, and the shadow's.
    row: Vec<u64>,
    shadow: Vec<u64>,
    pend: u64,
}

impl IdealHiBank {
    pub fn new(shape: HiShape) -> Self {
        let rows = HiBankModel::rows(shape)
            .into_iter()
            .map(|m| IdealRow {
                hi_max: m.hi_max,
                all: m.all(),
                row: vec![0; shape.counters],
                shadow: vec![0; shape.counters],
                pend: 0,
            })
            .collect();
        IdealHiBank {
            rows,
            tgt_idx: 0,
            pf: None,
        }
    }
}

impl HiBankDut for IdealHiBank {
    fn cycle(&mut self, i: &HiInputs) -> HiOutputs {
        let pf = self.pf.unwrap_or(0);
        let mut out = HiOutputs {
            ready: self.pf == Some(self.tgt_idx),
            ..Default::default()
        };
        for (r, b) in self.rows.iter().enumerate() {
            let n = b.row.len();
            out.at_max[r] = (0..n).fold(0, |a, k| {
                let u = (b.row[k] + (b.pend >> k & 1)) & b.hi_max;
                a | ((u == b.hi_max) as u64) << k
            });
            out.pf[r] = b.row.get(pf).copied().unwrap_or(0) as u32;
            out.spf[r] = b.shadow.get(pf).copied().unwrap_or(0) as u32;
            out.pend[r] = b.pend;
        }
        // The edge.
        self.tgt_idx = (i.paddr >> HI_IDX_LSB & 0x3F) as usize;
        if i.rst {
            for b in &mut self.rows {
                b.row.fill(0);
                b.shadow.fill(0);
                b.pend = 0;
            }
            self.pf = None;
            return out;
        }
        for (r, b) in self.rows.iter_mut().enumerate() {
            if i.svr_load {
                b.shadow.clone_from(&b.row);
            }
            for k in 0..b.row.len() {
                b.row[k] = (b.row[k] + (b.pend >> k & 1)) & b.hi_max;
            }
            b.pend = i.carry[r] & b.all;
            if i.tgt_sel != 0 && i.wr {
                let t = i.tgt_sel.trailing_zeros() as usize;
                b.row[t] = i.wr_val[r] as u64 & b.hi_max;
            }
        }
        if i.tgt_sel != 0 {
            self.pf = Some(i.tgt_sel.trailing_zeros() as usize);
        }
        out
    }

    fn name(&self) -> &'static str {
        "ideal"
    }
}

/// Steady traffic to one counter, like a program that reads (or writes) it in a loop: transfers
/// to counter `t` back to back, `period` cycles each, `tgt_sel` dropped in the last `gap`
/// cycles of each (0: addressed without a break); the access is the last cycle with `tgt_sel`.
/// Every counter carries into every row once every `carry_every` cycles (staggered, row r's
/// `r * carry_every / 2` cycles after row 0's).
#[derive(Clone, Copy, Debug)]
pub struct Periodic {
    pub t: usize,
    pub period: u64,
    pub gap: u64,
    pub write: bool,
    pub carry_every: u64,
}

/// Runs [`Periodic`] traffic on `dut` (a bank of `shape`) for `cycles` cycles (after 3 of
/// reset), then reads every counter once (no carries then: a held transfer each, so every
/// counter's upper word in every row is compared), and checks every cycle against one
/// [`HiBankModel`] per row (its checks, and `ready` in every access cycle). Returns the carries
/// (of implemented counters, every row's) the run made.
pub fn run_periodic(
    dut: &mut dyn HiBankDut,
    shape: HiShape,
    p: Periodic,
    cycles: u64,
) -> Result<u64, String> {
    let counters = shape.counters;
    assert!(p.t < counters && p.gap < p.period && p.carry_every > 0);
    let mut models = HiBankModel::rows(shape);
    let name = dut.name();
    let fail = |c: u64, what: String| Err(format!("{name}: {shape}, {p:?}, cycle {c}: {what}"));
    let mut carries = 0;
    // A sweep read: setup (PADDR, no `tgt_sel` yet), the held cycles, the access.
    let sweep = COUNTER_HOLD_CYCLES as u64 + 2;
    let end = cycles + 3;
    for c in 0..end + sweep * counters as u64 {
        let rst = c < 3;
        let phase = c.saturating_sub(3) % p.period;
        let mut on = !rst && phase < p.period - p.gap;
        let mut access = on && phase + 1 == p.period - p.gap;
        let mut t = p.t;
        if c >= end {
            // The final sweep: a read of every counter.
            t = ((c - end) / sweep) as usize;
            on = !(c - end).is_multiple_of(sweep);
            access = (c - end) % sweep == sweep - 1;
        }
        let wr = access && p.write && c < end;
        let mut inp = HiInputs {
            rst,
            paddr: (t as u32) << HI_IDX_LSB,
            tgt_sel: if on { 1 << t } else { 0 },
            wr,
            svr_load: false,
            ..Default::default()
        };
        for (r, model) in models.iter().enumerate() {
            let offset = r as u64 * (p.carry_every / 2);
            for n in 0..counters {
                if !rst && c < end && (c + 37 * n as u64 + offset).is_multiple_of(p.carry_every) {
                    inp.carry[r] |= 1 << n;
                }
            }
            // A write keeps the counter's value (its pending carry folded in).
            let wr_val = if wr { model.u[t] as u32 } else { 0 };
            inp.wr_val[r] = wr_val;
            inp.wr_ones[r] = wr && wr_val as u64 == model.hi_max;
            inp.wr_m1[r] = wr && wr_val as u64 == model.hi_max - 1;
        }
        let out = dut.cycle(&inp);
        if c > 0 {
            for model in &models {
                if let Err(e) = model.check(inp.tgt_sel, &out) {
                    return fail(c, row_error(shape, model.row, e));
                }
            }
            if access && !out.ready {
                return fail(c, "no ready in an access cycle".into());
            }
        }
        for model in &mut models {
            carries += (inp.carry[model.row] & model.all()).count_ones() as u64;
            model.edge(&inp, &out);
        }
    }
    Ok(carries)
}

/// A row's error, naming the row in a bank of two.
fn row_error(shape: HiShape, row: usize, e: String) -> String {
    if shape.rows() > 1 {
        format!("row {row}: {e}")
    } else {
        e
    }
}

/// What a run saw of one row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HiRowStats {
    /// Carries of implemented counters at non-reset edges.
    pub carries: u64,
    /// Pending carries cleared by the engine (not by a write or a reset), as `pend` showed.
    pub services: u64,
    /// Upper words wrapped from hi_max to 0 by a carry.
    pub wraps: u64,
    /// Writes at an edge with a carry of the written counter into this row.
    pub write_carries: u64,
    /// Writes of this row's all ones or all ones less one (`wr_ones`, `wr_m1`).
    pub write_ones: u64,
    /// Counter-cycles with `at_max` set.
    pub at_max_cycles: u64,
}

/// What a run saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HiRunStats {
    /// Per row.
    pub rows: Vec<HiRowStats>,
    pub writes: u64,
    /// Writes at an edge with a capture.
    pub write_captures: u64,
    /// Access cycles of reads (the prefetch checked in each).
    pub reads: u64,
    pub captures: u64,
    /// Cycles in which `pf`/`spf` were checked (`ready` with a counter addressed; every row).
    pub prefetch_checks: u64,
    /// Resets (runs of reset cycles), the first included.
    pub resets: u64,
    /// Counter transfers that reached their access cycle.
    pub transfers: u64,
    /// The most cycles from the first with `tgt_sel` to the first with `ready`, both counted
    /// (`ready` already in the first cycle: 1).
    pub max_prefetch: u64,
}

/// An APB-like transfer in progress.
#[derive(Clone, Copy, Debug)]
struct Xfer {
    /// The addressed counter (None: an address outside the counter regions, tgt_sel = 0).
    t: Option<usize>,
    paddr: u32,
    /// The setup cycle (PADDR live from here on; `tgt_sel` from the next cycle).
    start: u64,
    /// The access cycle (the last with this PADDR).
    access: u64,
    write: bool,
    /// The first cycle with `ready` in this transfer's window.
    ready_at: Option<u64>,
}

/// Carry stimulus phases.
#[derive(Clone, Copy, Debug)]
enum Density {
    /// Each eligible counter carries with this probability per cycle.
    Rate(f64),
    /// Now and then every eligible counter carries at once.
    Burst,
}

impl Density {
    fn draw(rng: &mut ChaCha8Rng) -> Density {
        match rng.gen_range(0..6) {
            0 => Density::Rate(0.0),
            1 => Density::Rate(0.01),
            2 => Density::Rate(0.2),
            3 | 4 => Density::Rate(1.0),
            _ => Density::Burst,
        }
    }
}

/// One row's carry stimulus: every counter at most once in `gap_min` cycles.
struct RowCarries {
    density: Density,
    last_carry: Vec<Option<u64>>,
}

impl RowCarries {
    /// Cycle `c`'s carries (drawn from `rng`), with now and then garbage on the carries of
    /// unimplemented counters (they must stay idle).
    fn draw(&mut self, rng: &mut ChaCha8Rng, c: u64, gap_min: u64, all: u64) -> u64 {
        let burst_now = matches!(self.density, Density::Burst) && rng.gen_range(0..40) == 0;
        let mut carry = 0u64;
        for (n, last) in self.last_carry.iter_mut().enumerate() {
            if last.is_some_and(|l| c - l < gap_min) {
                continue;
            }
            let go = match self.density {
                Density::Rate(p) => p > 0.0 && rng.gen_bool(p),
                Density::Burst => burst_now,
            };
            if go {
                carry |= 1 << n;
                *last = Some(c);
            }
        }
        if all != u64::MAX && rng.gen_range(0..64) == 0 {
            carry |= rng.gen::<u64>() & !all;
        }
        carry
    }
}

/// A write's new upper word for counter t of a row (`model`): mostly the counter's upper word
/// with its pending carry folded in (what a low-word write gives: pf + pend, which is the
/// model's U[t] and is checked against the bank's in this very cycle), or near all ones, near
/// 0, random.
fn draw_wr_val(rng: &mut ChaCha8Rng, model: &HiBankModel, t: usize) -> u32 {
    let hi_max = model.hi_max;
    let v = match rng.gen_range(0..20) {
        0..=8 => model.u[t],
        9..=15 => hi_max.wrapping_sub(rng.gen_range(0..=2)) & hi_max,
        16 => hi_max.wrapping_sub(rng.gen_range(3..=40)) & hi_max,
        17 => rng.gen_range(0..=3) & hi_max,
        _ => rng.gen::<u64>() & hi_max,
    };
    v as u32
}

/// Runs `cycles` cycles of seeded random stimulus on `dut` (a bank of `shape`) and checks every
/// row of every cycle against its [`HiBankModel`]; the first disagreement is the error (with the
/// backend, the shape, the seed, the cycle and, in a bank of two rows, the row).
pub fn run_hi_bank(
    dut: &mut dyn HiBankDut,
    shape: HiShape,
    seed: u64,
    cycles: u64,
) -> Result<HiRunStats, String> {
    let counters = shape.counters;
    let rows = shape.rows();
    // Row 0 and the control draw from stream 0 (in the one-row harness's order), row r from
    // stream r.
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut row_rng: Vec<ChaCha8Rng> = (1..rows)
        .map(|r| {
            let mut g = ChaCha8Rng::seed_from_u64(seed);
            g.set_stream(r as u64);
            g
        })
        .collect();
    let mut models = HiBankModel::rows(shape);
    let all = models[0].all();
    let name = dut.name();
    // With PMCG_HI_BANK_TRACE=N, an error ends with the last N cycles' inputs and outputs (and
    // one counter's model state: PMCG_HI_BANK_TRACE_COUNTER, else the addressed counter's).
    let trace_len: usize = std::env::var("PMCG_HI_BANK_TRACE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let trace_counter: Option<usize> = std::env::var("PMCG_HI_BANK_TRACE_COUNTER")
        .ok()
        .and_then(|v| v.parse().ok());
    let mut trace: std::collections::VecDeque<String> = Default::default();
    let fail = |c: u64, what: String, trace: &std::collections::VecDeque<String>| {
        let mut e = format!("{name}: {shape}, seed {seed}, cycle {c}: {what}");
        for line in trace {
            e += "\n  ";
            e += line;
        }
        Err(e)
    };
    let mut stats = HiRunStats {
        rows: vec![HiRowStats::default(); rows],
        ..Default::default()
    };
    // PMCG_HI_BANK_CARRY_GAP overrides the spacing of one counter's carries (exploration only).
    let gap_min = std::env::var("PMCG_HI_BANK_CARRY_GAP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(carry_gap(counters));
    let hold = COUNTER_HOLD_CYCLES as u64;
    let prefetch = HI_PREFETCH_CYCLES as u64;
    let mut row_carries: Vec<RowCarries> = (0..rows)
        .map(|_| RowCarries {
            density: Density::Rate(0.3),
            last_carry: vec![None; counters],
        })
        .collect();
    let mut rst_left = 3u32;
    // A reset edge has happened: the bank's state is defined from the next cycle on.
    let mut defined = false;
    let mut xfer: Option<Xfer> = None;
    let mut gap = 0u32;
    let mut last_t = 0usize;
    let mut paddr = 0u32;
    // The live select of the last cycle (tgt_sel is registered from it), the last cycle's
    // inputs and outputs.
    let mut sel_live_prev = 0u64;
    let mut prev: Option<(HiInputs, HiOutputs)> = None;
    let mut svr_rate = 1.0 / 48.0;
    let mut svr_burst = 0u32;
    for c in 0..cycles {
        if c % 1024 == 0 {
            row_carries[0].density = Density::draw(&mut rng);
            svr_rate = [0.0, 1.0 / 200.0, 1.0 / 48.0, 1.0 / 8.0][rng.gen_range(0..4)];
            for (rc, g) in row_carries[1..].iter_mut().zip(&mut row_rng) {
                rc.density = Density::draw(g);
            }
        }
        // ---- Reset: at the start, and now and then between transfers.
        if rst_left == 0 && xfer.is_none() && sel_live_prev == 0 && rng.gen_range(0..1500) == 0 {
            rst_left = rng.gen_range(1..=3);
        }
        let rst = rst_left > 0;
        rst_left = rst_left.saturating_sub(1);
        // ---- Transfers: setup (PADDR), 8 held cycles, the access; then a gap of 0-3 cycles.
        if xfer.is_some_and(|x| c > x.access) {
            xfer = None;
            gap = [0, 0, 0, 1, 2, 3][rng.gen_range(0..6)];
        }
        if xfer.is_none() && !rst {
            if gap > 0 {
                gap -= 1;
            } else if rng.gen_bool(0.8) {
                let outside = rng.gen_bool(0.1);
                let t = if rng.gen_bool(0.4) {
                    last_t
                } else {
                    rng.gen_range(0..counters)
                };
                let x = if outside {
                    // Any address, its element bits too (an unimplemented element of the
                    // counter region also decodes to no counter); not held.
                    Xfer {
                        t: None,
                        paddr: rng.gen(),
                        start: c,
                        access: c + rng.gen_range(0..=1),
                        write: false,
                        ready_at: None,
                    }
                } else {
                    last_t = t;
                    let idx_mask = 0x3Fu32 << HI_IDX_LSB;
                    Xfer {
                        t: Some(t),
                        paddr: (rng.gen::<u32>() & !idx_mask) | (t as u32) << HI_IDX_LSB,
                        start: c,
                        access: c + 1 + hold,
                        write: rng.gen_bool(0.5),
                        ready_at: None,
                    }
                };
                xfer = Some(x);
            }
        }
        // `tgt_sel` (one cycle behind) is the register file's: the held cycles and the access
        // cycle, so it is 0 in every setup cycle (a cycle of nothing addressed between
        // transfers, which the bank's contract relies on).
        let sel_live = match xfer {
            Some(Xfer {
                t: Some(t), access, ..
            }) if c < access => 1u64 << t,
            _ => 0,
        };
        match xfer {
            Some(x) => paddr = x.paddr,
            None if rng.gen_bool(0.3) => paddr = rng.gen(),
            None => {}
        }
        let tgt_sel = sel_live_prev;
        // ---- Carries: per row, every counter at most once in `gap_min` cycles.
        let mut carry = [0u64; HI_MAX_ROWS];
        carry[0] = row_carries[0].draw(&mut rng, c, gap_min, all);
        for (r, g) in row_rng.iter_mut().enumerate() {
            carry[r + 1] = row_carries[r + 1].draw(g, c, gap_min, all);
        }
        // ---- The access cycle of a counter write: each row's new upper word.
        let mut wr = false;
        let mut wr_val = [0u32; HI_MAX_ROWS];
        if let Some(x) = xfer.filter(|x| x.write && x.access == c && !rst) {
            let t = x.t.expect("writes address a counter");
            wr = true;
            wr_val[0] = draw_wr_val(&mut rng, &models[0], t);
            for (r, g) in row_rng.iter_mut().enumerate() {
                wr_val[r + 1] = draw_wr_val(g, &models[r + 1], t);
            }
        }
        // ---- Captures: random, in bursts, often at a write's edge.
        let svr_load = if svr_burst > 0 {
            svr_burst -= 1;
            true
        } else if rng.gen_range(0..400) == 0 {
            svr_burst = rng.gen_range(1..=3);
            true
        } else {
            (wr && rng.gen_bool(0.25)) || (svr_rate > 0.0 && rng.gen_bool(svr_rate))
        };
        let mut inp = HiInputs {
            rst,
            carry,
            paddr,
            tgt_sel,
            wr,
            wr_val,
            svr_load,
            ..Default::default()
        };
        for m in &models {
            let v = wr_val[m.row] as u64;
            inp.wr_ones[m.row] = v == m.hi_max;
            inp.wr_m1[m.row] = v == m.hi_max - 1;
        }
        let out = dut.cycle(&inp);
        if trace_len > 0 {
            if trace.len() == trace_len {
                trace.pop_front();
            }
            // The traced counter: PMCG_HI_BANK_TRACE_COUNTER, else the addressed one.
            let k = trace_counter
                .unwrap_or(tgt_sel.trailing_zeros() as usize)
                .min(counters - 1);
            let per_row =
                |f: &dyn Fn(usize) -> String| (0..rows).map(f).collect::<Vec<_>>().join(" | ");
            trace.push_back(format!(
                "{c}: rst {} paddr {:x} tgt_sel {:x} wr {} svr_load {} ready {}; per row: carry \
                 {} wr_val {} -> pf {} spf {} pend {} at_max {}; counter {k}: U {} W {}",
                inp.rst as u8,
                inp.paddr,
                inp.tgt_sel,
                inp.wr as u8,
                inp.svr_load as u8,
                out.ready as u8,
                per_row(&|r| format!("{:x}", inp.carry[r])),
                per_row(&|r| format!("{:x}", inp.wr_val[r])),
                per_row(&|r| format!("{:x}", out.pf[r])),
                per_row(&|r| format!("{:x}", out.spf[r])),
                per_row(&|r| format!("{:x}", out.pend[r])),
                per_row(&|r| format!("{:x}", out.at_max[r])),
                per_row(&|r| format!("{:x}", models[r].u[k])),
                per_row(&|r| format!("{:x}", models[r].w[k])),
            ));
        }
        if defined {
            // ---- The models' checks of this cycle: every row's.
            let mut checked = false;
            for m in &models {
                match m.check(tgt_sel, &out) {
                    Ok(ch) => checked |= ch,
                    Err(e) => return fail(c, row_error(shape, m.row, e), &trace),
                }
            }
            stats.prefetch_checks += checked as u64;
            // `ready`: within HI_PREFETCH_CYCLES cycles of the first with `tgt_sel`, then in
            // every cycle up to the access (every write's cycle among them).
            if let Some(x) = xfer.as_mut().filter(|x| x.t.is_some() && c > x.start) {
                let a0 = x.start + 1;
                if out.ready && x.ready_at.is_none() {
                    x.ready_at = Some(c);
                    stats.max_prefetch = stats.max_prefetch.max(c - a0 + 1);
                }
                let due = x.ready_at.is_some() || c + 1 >= a0 + prefetch;
                if due && !out.ready {
                    return fail(
                        c,
                        format!(
                            "no ready for counter {} addressed since cycle {a0} (ready since {:?}, \
                             access in cycle {}, bound {prefetch} cycles){}",
                            x.t.unwrap_or(0),
                            x.ready_at,
                            x.access,
                            if wr { ", a write's cycle" } else { "" }
                        ),
                        &trace,
                    );
                }
                if c == x.access {
                    stats.transfers += 1;
                    if !x.write {
                        stats.reads += 1;
                    }
                }
            }
            // ---- `pend` follows the carries, in every row: a carry at an edge is pending
            // after it, and a pending carry appears only with a carry.
            if let Some((pi, po)) = prev {
                for (r, rs) in stats.rows.iter_mut().enumerate() {
                    // (Nothing is pending after a reset edge: no carry has happened since.)
                    let po_pend = if pi.rst { 0 } else { po.pend[r] };
                    let carried = if pi.rst { 0 } else { pi.carry[r] & all };
                    let lost = carried & !out.pend[r];
                    if lost != 0 {
                        let e = format!(
                            "carries {carried:#x} at the last edge, pend {:#x}: not all pending",
                            out.pend[r]
                        );
                        return fail(c, row_error(shape, r, e), &trace);
                    }
                    let rose = out.pend[r] & !po_pend & !carried;
                    if rose != 0 {
                        let e = format!(
                            "pend {:#x} rose at {rose:#x} with no carry (last cycle: pend {:#x}, \
                             carry {:#x})",
                            out.pend[r], po_pend, pi.carry[r]
                        );
                        return fail(c, row_error(shape, r, e), &trace);
                    }
                    if !pi.rst {
                        let written = if pi.wr { pi.tgt_sel } else { 0 };
                        rs.services += (po_pend & !out.pend[r] & !written).count_ones() as u64;
                    }
                }
            }
            for (r, rs) in stats.rows.iter_mut().enumerate() {
                rs.at_max_cycles += (out.at_max[r] & all).count_ones() as u64;
            }
        }
        // ---- The edge.
        if rst {
            stats.resets += (!prev.is_some_and(|(p, _)| p.rst)) as u64;
        } else {
            stats.captures += svr_load as u64;
            if wr {
                stats.writes += 1;
                stats.write_captures += svr_load as u64;
            }
            for (r, rs) in stats.rows.iter_mut().enumerate() {
                rs.carries += (carry[r] & all).count_ones() as u64;
                if wr {
                    rs.write_carries += (carry[r] & tgt_sel != 0) as u64;
                    rs.write_ones += (inp.wr_ones[r] || inp.wr_m1[r]) as u64;
                }
            }
        }
        for (m, rs) in models.iter_mut().zip(&mut stats.rows) {
            let wraps = m.edge(&inp, &out);
            if defined {
                rs.wraps += wraps.count_ones() as u64;
            }
        }
        defined |= rst;
        sel_live_prev = if rst { 0 } else { sel_live };
        prev = Some((inp, out));
    }
    Ok(stats)
}
