//! Block-level simulation of the StreamID filter tables (`pmcg_hdl::filter_table`): the native
//! RustHDL block and its emitted Verilog under Verilator behind one [`FilterTableDut`]
//! interface, a plain-Rust reference model written from the block's contract (its module docs),
//! and [`run_filter_table`], which drives either with seeded random stimulus and checks every
//! output of every cycle against the model.
//!
//! ```text
//!   seed ──► stimulus: StreamIDs per lane (near a filter, one bit off, 0x..FF.., random),
//!            filter rebuilds (exact, span, random masks, match-all), starts while busy, resets
//!                │                                                 ▼
//!                │                  dyn FilterTableDut: NativeFilterTable | VerilatorFilterTable
//!                │                                     hit[l], busy, flip │ (before the edge)
//!                └──► FilterTableModel::edge(inputs) ◄── check ◄──────────┘
//! ```
//! The model keeps, per counter, the filter its contract says it has (unknown after a reset
//! until its column is rebuilt) and the rebuild under way; it checks `busy` and `flip` in every
//! cycle and every known counter's `hit` bit against the StreamID of the previous cycle.

use crate::verilator::{VerilatedModel, VerilatorError};
use pmcg_hdl::filter_table::{FilterTable, FilterTableFault, TableShape, REBUILD_EDGES};
use pmcg_synth::filter_table::{filter_table_verilog, FILTER_TABLE_TOP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::path::Path;

/// The inputs of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FtInputs {
    pub rst: bool,
    pub sid: Vec<u32>,
    pub start: bool,
    pub col: u32,
    pub care: u32,
    pub val: u32,
}

/// The outputs of one cycle (before its edge).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FtOutputs {
    pub hit: Vec<u64>,
    pub busy: bool,
    pub flip: bool,
}

/// A filter-table implementation under test, one cycle at a time.
pub trait FilterTableDut {
    /// Drives `i` for one cycle: returns the outputs of the cycle, then applies its edge.
    fn cycle(&mut self, i: &FtInputs) -> FtOutputs;
    fn name(&self) -> &'static str;
}

/// The RustHDL block, simulated natively.
pub struct NativeFilterTable {
    table: FilterTable,
}

impl NativeFilterTable {
    pub fn new(shape: TableShape, fault: Option<FilterTableFault>) -> Self {
        let mut table = FilterTable::new(shape, fault);
        table.connect_all();
        NativeFilterTable { table }
    }

    fn settle(&mut self) {
        for _ in 0..200 {
            self.table.update_all();
            if !self.table.has_changed() {
                return;
            }
        }
        panic!("the filter tables did not settle in 200 iterations");
    }
}

impl FilterTableDut for NativeFilterTable {
    fn cycle(&mut self, i: &FtInputs) -> FtOutputs {
        let t = &mut self.table;
        t.rst.next = i.rst;
        for (s, v) in t.sid.iter_mut().zip(&i.sid) {
            s.next = u64::from(*v).into();
        }
        t.start.next = i.start;
        t.col.next = u64::from(i.col).into();
        t.care.next = u64::from(i.care).into();
        t.val.next = u64::from(i.val).into();
        t.clock.next = Clock { clk: false };
        self.settle();
        let t = &self.table;
        let out = FtOutputs {
            hit: t.hit.iter().map(|h| h.val().to_u64()).collect(),
            busy: t.busy.val(),
            flip: t.flip.val(),
        };
        self.table.clock.next = Clock { clk: true };
        self.settle();
        out
    }

    fn name(&self) -> &'static str {
        "native"
    }
}

/// The emitted Verilog (`pmcg_synth::filter_table`, top [`FILTER_TABLE_TOP`]) under Verilator.
pub struct VerilatorFilterTable {
    model: VerilatedModel,
    clock: usize,
    rst: usize,
    start: usize,
    col: usize,
    care: usize,
    val: usize,
    sid: Vec<usize>,
    hit: Vec<usize>,
    busy: usize,
    flip: usize,
}

impl VerilatorFilterTable {
    pub fn new(
        shape: TableShape,
        fault: Option<FilterTableFault>,
        cache_dir: &Path,
    ) -> Result<Self, VerilatorError> {
        let verilog =
            filter_table_verilog(shape, fault, FILTER_TABLE_TOP).map_err(VerilatorError::Load)?;
        let model = VerilatedModel::build(&verilog, FILTER_TABLE_TOP, cache_dir)?;
        let port = |name: &str| {
            model.port(name).ok_or_else(|| {
                VerilatorError::Load(format!("the filter tables have no port `{name}`"))
            })
        };
        let lanes = |base: &str| {
            (0..shape.lanes)
                .map(|l| port(&format!("{base}${l}")))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(VerilatorFilterTable {
            clock: port("clock")?,
            rst: port("rst")?,
            start: port("start")?,
            col: port("col")?,
            care: port("care")?,
            val: port("val")?,
            sid: lanes("sid")?,
            hit: lanes("hit")?,
            busy: port("busy")?,
            flip: port("flip")?,
            model,
        })
    }
}

impl FilterTableDut for VerilatorFilterTable {
    fn cycle(&mut self, i: &FtInputs) -> FtOutputs {
        let m = &mut self.model;
        m.set(self.clock, 0);
        m.set(self.rst, i.rst as u64);
        for (p, v) in self.sid.iter().zip(&i.sid) {
            m.set(*p, u64::from(*v));
        }
        m.set(self.start, i.start as u64);
        m.set(self.col, u64::from(i.col));
        m.set(self.care, u64::from(i.care));
        m.set(self.val, u64::from(i.val));
        m.eval();
        let out = FtOutputs {
            hit: self.hit.iter().map(|p| m.get(*p)).collect(),
            busy: m.get(self.busy) != 0,
            flip: m.get(self.flip) != 0,
        };
        m.set(self.clock, 1);
        m.eval();
        out
    }

    fn name(&self) -> &'static str {
        "verilator"
    }
}

/// A filter: the key bits compared, and their value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filter {
    pub care: u32,
    pub val: u32,
}

impl Filter {
    pub fn matches(&self, sid: u32) -> bool {
        ((sid ^ self.val) & self.care) == 0
    }
}

/// The rebuild under way: its column, filter, and the edges left until its swap.
#[derive(Clone, Copy, Debug)]
struct Rebuild {
    col: usize,
    filter: Filter,
    edges_left: u64,
}

/// The reference model: the tables' contract in plain Rust (no RustHDL types).
#[derive(Clone, Debug)]
pub struct FilterTableModel {
    counters: usize,
    /// The key bits the tables compare (8 x `sid_bytes`).
    key_mask: u32,
    /// Per counter: its filter now, or `None` while unknown (after a reset, before a rebuild).
    pub filter: Vec<Option<Filter>>,
    rebuild: Option<Rebuild>,
    /// The StreamIDs of the previous cycle (what `hit` compares), none before the first edge.
    last_sid: Option<Vec<u32>>,
}

impl FilterTableModel {
    pub fn new(shape: TableShape) -> Self {
        FilterTableModel {
            counters: shape.counters,
            key_mask: if shape.sid_bytes == 4 {
                u32::MAX
            } else {
                (1u32 << (8 * shape.sid_bytes)) - 1
            },
            filter: vec![None; shape.counters],
            rebuild: None,
            last_sid: None,
        }
    }

    /// A rebuild is under way (after the last edge).
    pub fn busy(&self) -> bool {
        self.rebuild.is_some()
    }

    /// Checks the outputs of a cycle; the error names the output, lane and counter.
    pub fn check(&self, o: &FtOutputs) -> Result<u64, String> {
        let busy = self.rebuild.is_some();
        if o.busy != busy {
            return Err(format!("busy = {}, the contract says {busy}", o.busy));
        }
        let flip = self.rebuild.is_some_and(|r| r.edges_left == 1);
        if o.flip != flip {
            return Err(format!("flip = {}, the contract says {flip}", o.flip));
        }
        let mut checked = 0;
        for (l, &h) in o.hit.iter().enumerate() {
            if h >> self.counters != 0 && self.counters < 64 {
                return Err(format!(
                    "hit[{l}] = {h:#x} has bits above counter {}",
                    self.counters - 1
                ));
            }
            let Some(sids) = &self.last_sid else { continue };
            for (n, f) in self.filter.iter().enumerate() {
                let Some(f) = f else { continue };
                let want = f.matches(sids[l]);
                let got = (h >> n) & 1 == 1;
                if got != want {
                    return Err(format!(
                        "hit[{l}] bit {n} = {}, the contract says {} (StreamID {:#x}, counter \
                         {n}'s filter care {:#x} val {:#x}; rebuild under way: {:?})",
                        u8::from(got),
                        u8::from(want),
                        sids[l],
                        f.care,
                        f.val,
                        self.rebuild
                    ));
                }
                checked += 1;
            }
        }
        Ok(checked)
    }

    /// Applies the edge ending a cycle with inputs `i`. Returns true when a rebuild swapped in.
    pub fn edge(&mut self, i: &FtInputs) -> bool {
        self.last_sid = Some(i.sid.clone());
        let mut swapped = false;
        if i.rst {
            self.rebuild = None;
            self.filter.iter_mut().for_each(|f| *f = None);
        } else if let Some(r) = &mut self.rebuild {
            r.edges_left -= 1;
            if r.edges_left == 0 {
                if r.col < self.counters {
                    self.filter[r.col] = Some(r.filter);
                }
                self.rebuild = None;
                swapped = true;
            }
        } else if i.start {
            self.rebuild = Some(Rebuild {
                col: i.col as usize % 64,
                filter: Filter {
                    care: i.care & self.key_mask,
                    val: i.val,
                },
                edges_left: REBUILD_EDGES,
            });
        }
        swapped
    }
}

/// What a run exercised.
#[derive(Clone, Copy, Debug, Default)]
pub struct FtRunStats {
    pub cycles: u64,
    pub swaps: u64,
    pub starts_while_busy: u64,
    pub resets: u64,
    /// Known (counter, lane) compares checked, and how many of them were hits.
    pub checked: u64,
    pub hits: u64,
    /// StreamIDs with a byte 0xFF (the last row of a table).
    pub last_row_keys: u64,
}

/// A random filter: exact, a span (don't-care low bits), an arbitrary mask, or match-all; bits
/// above the table's key are random (the tables ignore them).
fn random_filter(rng: &mut ChaCha8Rng) -> Filter {
    let val = match rng.gen_range(0..4) {
        0 => rng.gen::<u32>() | 0xFF,
        1 => rng.gen::<u32>() | 0xFF00,
        _ => rng.gen(),
    };
    let care = match rng.gen_range(0..10) {
        0..=3 => u32::MAX,
        4..=6 => u32::MAX << rng.gen_range(0..32),
        7..=8 => rng.gen(),
        _ => 0,
    };
    Filter { care, val }
}

/// A StreamID for lane traffic: a known filter's match (random don't-care bits), that match
/// with one compared bit flipped, a key with a 0xFF byte, or random.
fn random_sid(rng: &mut ChaCha8Rng, filters: &[Filter]) -> u32 {
    let pick = rng.gen_range(0..10);
    if pick < 6 && !filters.is_empty() {
        let f = filters[rng.gen_range(0..filters.len())];
        let mut sid = (f.val & f.care) | (rng.gen::<u32>() & !f.care);
        if pick >= 4 && f.care != 0 {
            let bits: Vec<u32> = (0..32).filter(|b| (f.care >> b) & 1 == 1).collect();
            sid ^= 1 << bits[rng.gen_range(0..bits.len())];
        }
        sid
    } else if pick < 8 {
        rng.gen::<u32>() | (0xFF << (8 * rng.gen_range(0..4)))
    } else {
        rng.gen()
    }
}

/// Runs `cycles` cycles of seeded random stimulus on `dut`, checking every cycle against
/// [`FilterTableModel`]. The error names the cycle, the seed and the output at fault.
pub fn run_filter_table(
    dut: &mut dyn FilterTableDut,
    shape: TableShape,
    seed: u64,
    cycles: u64,
) -> Result<FtRunStats, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut model = FilterTableModel::new(shape);
    let mut stats = FtRunStats::default();
    // Filters written so far (the StreamIDs aim at them, so that hits are frequent).
    let mut recent: Vec<Filter> = Vec::new();
    let mut busy = false;
    for cycle in 0..cycles {
        let sid: Vec<u32> = (0..shape.lanes)
            .map(|_| random_sid(&mut rng, &recent))
            .collect();
        stats.last_row_keys += sid
            .iter()
            .filter(|s| (0..shape.sid_bytes).any(|b| (*s >> (8 * b)) & 0xFF == 0xFF))
            .count() as u64;
        let rst = rng.gen_range(0..6_000) == 0;
        let start = if busy {
            rng.gen_range(0..200) == 0
        } else {
            rng.gen_range(0..8) == 0
        };
        let f = random_filter(&mut rng);
        let col = if shape.counters < 64 && rng.gen_range(0..50) == 0 {
            63
        } else {
            rng.gen_range(0..shape.counters as u32)
        };
        let i = FtInputs {
            rst,
            sid,
            start,
            col,
            care: f.care,
            val: f.val,
        };
        let o = dut.cycle(&i);
        let checked = model.check(&o).map_err(|e| {
            format!(
                "{} filter tables {shape:?}, seed {seed}, cycle {cycle}: {e}",
                dut.name()
            )
        })?;
        stats.checked += checked;
        stats.hits += o
            .hit
            .iter()
            .map(|h| {
                let known = model
                    .filter
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.is_some())
                    .fold(0u64, |a, (n, _)| a | 1 << n);
                (h & known).count_ones() as u64
            })
            .sum::<u64>();
        if start && busy && !rst {
            stats.starts_while_busy += 1;
        }
        if start && !busy && !rst {
            recent.push(f);
            if recent.len() > 8 {
                recent.remove(0);
            }
        }
        stats.resets += rst as u64;
        stats.swaps += model.edge(&i) as u64;
        busy = model.busy();
        stats.cycles += 1;
    }
    Ok(stats)
}
