//! Acceptance tests of the split 64-bit counter write rule (docs/behaviour.md "Split 64-bit
//! counter writes"; issue 10 part 1) on every backend (reference model, native RustHDL
//! simulation, emitted Verilog under Verilator).
//!
//! ```text
//!   test ──per-cycle bus ops + lane schedule──► Driver ──► backend ──► outputs
//!                                                  │                     │
//!                                                  └──► PairOracle ◄─────┘  (every cycle)
//!   PairOracle: the contract as a state machine (counting, CR/CNTEN/INTEN/OVS/IRQ_CTRL, the
//!   one pair register with base B, c = carries, rebase-then-count, the overflow rule, the
//!   64-bit read snapshot); it checks irq and OVF_EXPORT in every cycle and every EVCNTR/OVS
//!   read.
//! ```
//! Expected values come from two independent places, both written from the contract text and
//! never from a backend: the [`PairOracle`] applies the rule mechanically (B, H, c, rebase), and
//! each test also states the rule's promise in closed form: "as if the 64-bit value had been
//! written whole at the low write's edge t1 and counted since", value(t) = V + events counted at
//! edges t1+1 ..= t (mod 2^W), and asserts the values read back through the bus equal it.
//!
//! Cycle arithmetic ("edge t" ends cycle t; docs/behaviour.md): a write set up in cycle s has
//! its access cycle s+1 and acts at edge s+1; a read set up in cycle s has two access cycles, is
//! performed in s+1 (the wait state, PREADY = 0) on the state after edge s and returns it on
//! PRDATA in s+2, so the next transfer's setup is in s+3 at the earliest; lane events presented in
//! cycle e count at edge e+1; CR/CNTEN written at edge t gate lane events matched from cycle
//! t+1 and cycle counting from edge t+2 (a cycle counter adds 1 at an edge when it was enabled
//! in the cycle before). Every
//! counter (EVCNTR) access is held for HOLD = `COUNTER_HOLD_CYCLES` wait states after its real
//! setup (docs/behaviour.md "Counter and shadow accesses") and then performed as if set up in
//! the last of them: the cases name it by that *effective* setup cycle s, so the formulas above
//! hold for it, and its real setup is HOLD cycles earlier (so it follows the previous operation's
//! last cycle by at least HOLD + 1 cycles in effective terms).
//!
//! Tests:
//! - `cycle_counter_write64_at_every_gap`: M >> 1, 2^32 - k and M - k on a cycle counter, idle
//!   gaps 0-10 between the halves, with INTEN/IRQEN: values, OVS and irq at the exact edges.
//! - `lane_counter_write64_at_every_event_offset`: events on 1 and 3 lanes starting and
//!   stopping at every cycle around both halves, gaps 0-6.
//! - `a_low_write_alone_is_plain`, `a_high_write_alone_is_plain`,
//!   `other_transfers_between_the_halves_keep_the_pair`, `another_counters_evcntr_write_closes_the_pair`,
//!   `a_pair_to_different_counters_is_two_plain_writes`, `a_reset_between_the_halves_closes_the_pair`,
//!   `cr_and_cnten_changes_between_the_halves`, `h_plus_c_wrapping_overflows_at_the_high_write`,
//!   `partial_strobes_take_the_base_bytes`, `atomic_64_bit_reads_still_work`: the edges of the rule.
//! - `an_overflow_at_the_high_write_interrupts_sends_an_msi_and_captures`: irq, OVF_EXPORT, MSI,
//!   OVFCAP capture at the high write's edge.
//! - `thirty_two_bit_counters_have_no_pairs`: adjacent 32-bit counters written like a writeq.
//! - `oracle_agrees_with_every_closed_form_and_catches_a_dropped_carry`: the oracle as the
//!   backend passes every case (its mechanical rule gives each closed form), and a backend that
//!   drops the carries between the halves fails them.
//! - `split_write_script_passes_on_every_backend`: tests/scripts/split-write-running.pmcg
//!   through the CLI.

mod common;

use common::{
    for_each_backend, named_config, wide_config, COUNT_DELAY, CYCLE_ENABLE_DELAY, IRQ_LATENCY,
    MSI_LATENCY,
};
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{RegId, RegisterMap, Word, COUNTER_HOLD_CYCLES};
use pmcg_sim::pins::{Access, Driver, Dut, LaneIn, PinInputs, PinOutputs, SecState};
use std::cell::RefCell;
use std::rc::Rc;

type D = Driver<Box<dyn Dut>>;

const S: Access = Access::Secure;
const NS: Access = Access::NonSecure;

// ---------------------------------------------------------------------------------------------
// Configurations: every counter width over 32 bits
// ---------------------------------------------------------------------------------------------

/// One configuration per width over 32 bits: 36 (`odd`: 3 lanes, Secure state, page 1 at
/// 0x20000), 40 (8 lanes), 44 (4 lanes), 48 (2 lanes), 64 (3 lanes).
fn wide_configs() -> Vec<(String, PmcgConfig)> {
    let v = vec![
        named_config("odd"),
        wide_config("w40x8"),
        wide_config("w44x4"),
        wide_config("w48x2"),
        wide_config("w64x3"),
    ];
    let widths: Vec<u32> = v.iter().map(|(_, c)| c.counter_bits).collect();
    assert_eq!(widths, [36, 40, 44, 48, 64], "one config per wide width");
    v
}

// ---------------------------------------------------------------------------------------------
// The contract as a state machine
// ---------------------------------------------------------------------------------------------

/// A transfer as registered in its setup cycle.
#[derive(Clone, Copy, Debug)]
struct Xfer {
    write: bool,
    addr: u32,
    data: u32,
    strb: u8,
    pprot: u8,
}

/// A paired high write the oracle applied: edge, counter, base B, merged H, carries c, overflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Paired {
    edge: u64,
    n: u32,
    b: u64,
    h: u64,
    c: u64,
    overflow: bool,
}

fn byte_mask(strb: u8) -> u32 {
    (0..4)
        .filter(|b| strb >> b & 1 == 1)
        .fold(0, |m, b| m | 0xFF << (8 * b))
}

fn merge(old: u32, new: u32, strb: u8) -> u32 {
    let m = byte_mask(strb);
    (old & !m) | (new & m)
}

/// docs/behaviour.md "Counter writes", "Split 64-bit counter writes", "Event lanes and
/// counting", "Bitmaps, control and interrupt registers" (wired interrupt) and "Atomic 64-bit
/// counter reads", for configurations without Realm. EVTYPERn may select cycles (event 0) or a
/// lane event with filter fields 0 (the reset SMR matches StreamID 0, Non-secure: the tests'
/// lanes carry that). Register state is "in cycle t" (after edge t-1); `observe(c, ..)` checks
/// cycle c's outputs, then applies edge c with cycle c's inputs.
struct PairOracle {
    cfg: PmcgConfig,
    map: RegisterMap,
    mask: u64,
    kmask: u64,
    e_mask: u32,
    irqen_mask: u32,
    nsra_mask: u32,
    event_mask: u32,
    synced: bool,
    rst_q: bool,
    /// The transfer set up in the previous cycle (performed in this cycle; a write acts at
    /// this cycle's edge, a read is in its wait state).
    setup: Option<Xfer>,
    /// A held transfer (EVCNTR or SVR region: docs/behaviour.md "Counter and shadow
    /// accesses") and its held cycles left; presented at the edge ending the last.
    hold: Option<(Xfer, u32)>,
    /// A tracked read performed in the previous cycle (its first access cycle, the wait state):
    /// the PRDATA the contract gives in this cycle (its second access cycle) and what it read.
    read_due: Option<(u32, String)>,
    val: Vec<u64>,
    evtyper: Vec<u32>,
    cnten: u64,
    inten: u64,
    ovs: u64,
    cr_e: bool,
    irqen: bool,
    nsra: bool,
    /// The enables (CR.E and CNTEN) of the previous cycle: a cycle counter adds 1 at an edge
    /// when it was enabled in the cycle before (docs/behaviour.md "Reconfiguration").
    cycle_en: u64,
    /// The pair register: (counter, base B) when open.
    pair: Option<(u32, u64)>,
    lanes_q: Vec<LaneIn>,
    /// Each counter's match register: the lanes it matched in the previous cycle (0 when it was
    /// not enabled then), added at this edge.
    match_q: Vec<u64>,
    irq: bool,
    /// A qualifying overflow at the previous edge: irq in the next cycle (overflow -> irq is
    /// two cycles, docs/behaviour.md "Wired interrupt").
    irq_next: bool,
    /// OVF_EXPORT of the current cycle: the counters that overflowed at the previous edge.
    export: u64,
    /// The immediately preceding transfer was a permitted low read of this counter; its snapshot.
    low_read: Option<(u32, u32)>,
    /// A planted fault for the self-test: the paired high write ignores the carries (c = 0).
    drop_carry: bool,
    errors: Vec<String>,
    paired: Vec<Paired>,
    /// (edge, counter) of every plain high-word write.
    plain_high: Vec<(u64, u32)>,
    /// (edge, counter) of every overflow.
    overflows: Vec<(u64, u32)>,
    reads_checked: u64,
}

impl PairOracle {
    fn new(cfg: &PmcgConfig) -> PairOracle {
        assert!(!cfg.realm, "the oracle does not model Root/Realm accesses");
        let map = RegisterMap::new(cfg);
        let n = cfg.counters as usize;
        let k = cfg.counter_bits.saturating_sub(32);
        PairOracle {
            mask: cfg.counter_mask(),
            kmask: if k == 0 { 0 } else { u64::MAX >> (64 - k) },
            e_mask: map.mask(field::CR_E) as u32,
            irqen_mask: map.mask(field::IRQ_CTRL_IRQEN) as u32,
            nsra_mask: map.mask(field::SCR_NSRA) as u32,
            event_mask: map.mask(field::EVTYPER_EVENT) as u32,
            cfg: cfg.clone(),
            map,
            synced: false,
            rst_q: false,
            setup: None,
            hold: None,
            read_due: None,
            val: vec![0; n],
            evtyper: vec![0; n],
            cnten: 0,
            cycle_en: 0,
            inten: 0,
            ovs: 0,
            cr_e: false,
            irqen: false,
            nsra: true,
            pair: None,
            lanes_q: vec![LaneIn::default(); cfg.lanes as usize],
            match_q: vec![0; cfg.counters as usize],
            irq: false,
            irq_next: false,
            export: 0,
            low_read: None,
            drop_carry: false,
            errors: Vec::new(),
            paired: Vec::new(),
            plain_high: Vec::new(),
            overflows: Vec::new(),
            reads_checked: 0,
        }
    }

    fn err(&mut self, c: u64, what: String) {
        if self.errors.len() < 20 {
            self.errors.push(format!("cycle {c}: {what}"));
        }
    }

    fn reset_state(&mut self) {
        let n = self.val.len();
        self.val = vec![0; n];
        self.evtyper = vec![0; n];
        (self.cnten, self.inten, self.ovs) = (0, 0, 0);
        (self.cr_e, self.irqen, self.irq, self.irq_next) = (false, false, false, false);
        self.cycle_en = 0;
        self.export = 0;
        self.nsra = self.map.get(RegId::Scr).map_or(0, |r| r.reset()) as u32 & self.nsra_mask != 0;
        self.pair = None;
        self.lanes_q.iter_mut().for_each(|l| *l = LaneIn::default());
        self.match_q.iter_mut().for_each(|m| *m = 0);
        self.low_read = None;
    }

    fn permitted(&self, pprot: u8) -> bool {
        !self.cfg.secure || pprot & 0b010 == 0 || self.nsra
    }

    /// What counter n adds at this edge: 1 when it counts cycles (event 0) and was enabled in
    /// the previous cycle, else its match register.
    fn increment(&self, n: usize) -> u64 {
        match self.event(n) {
            0 => self.cycle_en >> n & 1,
            _ => self.match_q[n],
        }
    }

    fn event(&self, n: usize) -> u32 {
        (self.evtyper[n] & self.event_mask) >> self.event_mask.trailing_zeros()
    }

    /// Counter n's match of this cycle (into its match register): the registered lanes carrying
    /// the lane event it selects, when enabled in this cycle.
    fn lane_match(&self, n: usize) -> u64 {
        if !(self.cr_e && self.cnten >> n & 1 == 1) {
            return 0;
        }
        match self
            .cfg
            .lane_bit_of(self.event(n) as u16)
            .filter(|_| self.event(n) != 0)
        {
            Some(b) => self
                .lanes_q
                .iter()
                .filter(|l| l.valid && l.events >> b & 1 == 1)
                .count() as u64,
            None => 0,
        }
    }

    fn observe(&mut self, c: u64, inp: &PinInputs, out: &PinOutputs) {
        if self.synced {
            self.check(c, out);
        }
        self.edge(c, inp);
    }

    /// Whether this cycle is a held cycle or a read's first access cycle, its wait state
    /// (PREADY = 0).
    fn read_wait(&self) -> bool {
        self.hold.is_some() || self.setup.is_some_and(|x| !x.write)
    }

    /// The value the contract gives for a read of a tracked register (EVCNTR, OVS) performed in
    /// this cycle, its first access cycle (docs/behaviour.md "APB4 completer": the state of this
    /// cycle; it is on PRDATA in the next cycle).
    fn expected_read(&self) -> Option<(u32, String)> {
        let x = self.setup.filter(|x| !x.write)?;
        let (reg, word) = self.map.lookup(x.addr).map(|(r, w)| (r.id, w))?;
        let hi = |v: u64| (v >> 32) as u32;
        let want = match (reg, word) {
            (RegId::Evcntr(n), Word::Low) => self.val[n as usize] as u32,
            (RegId::Evcntr(n), Word::High) => match self.low_read {
                Some((m, snap)) if m == n => snap,
                _ => hi(self.val[n as usize]),
            },
            (RegId::OvsSet0 | RegId::OvsClr0, Word::Low) => self.ovs as u32,
            (RegId::OvsSet0 | RegId::OvsClr0, Word::High) => hi(self.ovs),
            _ => return None,
        };
        let want = if self.permitted(x.pprot) { want } else { 0 };
        Some((want, format!("{reg:?} {word:?} ({:#x})", x.addr)))
    }

    /// Cycle c's outputs against the state of cycle c: irq, PREADY (0 in a read's wait state
    /// only), and PRDATA in the second access cycle of a tracked read performed in cycle c - 1.
    fn check(&mut self, c: u64, out: &PinOutputs) {
        if out.irq != self.irq {
            self.err(
                c,
                format!("irq = {}, the contract gives {}", out.irq, self.irq),
            );
        }
        let pready = !self.read_wait();
        if out.pready != pready {
            self.err(
                c,
                format!("PREADY = {}, the contract gives {pready}", out.pready),
            );
        }
        if let Some((want, what)) = self.read_due.take() {
            self.reads_checked += 1;
            if out.prdata != want {
                self.err(
                    c,
                    format!(
                        "read of {what} returned {:#x}, the contract gives {want:#x}",
                        out.prdata
                    ),
                );
            }
        }
        self.read_due = self.expected_read();
    }

    /// Edge t with cycle t's inputs.
    fn edge(&mut self, t: u64, inp: &PinInputs) {
        let rst = self.rst_q;
        self.rst_q = !inp.presetn;
        let access = self.setup.take();
        // The APB setup registers take PRESETn directly; so does the hold, whose last cycle
        // presents the transfer as if set up then.
        self.hold = match self.hold.take() {
            _ if !inp.presetn => None,
            Some((x, 1)) => {
                self.setup = Some(x);
                None
            }
            Some((x, left)) => Some((x, left - 1)),
            None => None,
        };
        if inp.presetn && inp.psel && !inp.penable {
            let x = Xfer {
                write: inp.pwrite,
                addr: inp.paddr & !3,
                data: inp.pwdata,
                strb: inp.pstrb,
                pprot: inp.pprot,
            };
            if self.map.held_access(x.addr) {
                self.hold = Some((x, COUNTER_HOLD_CYCLES));
            } else {
                self.setup = Some(x);
            }
        }
        if rst {
            self.reset_state();
            self.synced = true;
            return;
        }
        if !self.synced {
            return;
        }
        let n_ctr = self.val.len();
        let inc: Vec<u64> = (0..n_ctr).map(|n| self.increment(n)).collect();
        self.cycle_en = if self.cr_e { self.cnten } else { 0 };
        let matched: Vec<u64> = (0..n_ctr).map(|n| self.lane_match(n)).collect();
        // Counters written at this edge: their new value and whether they overflowed.
        let mut written: Vec<Option<(u64, bool)>> = vec![None; n_ctr];
        let (mut cnten, mut inten, mut ovs) = (self.cnten, self.inten, self.ovs);
        let (mut cr_e, mut irqen, mut nsra) = (self.cr_e, self.irqen, self.nsra);
        let mut evtyper = self.evtyper.clone();
        // Any transfer ends the snapshot; idle cycles keep it.
        let mut low_read = if access.is_some() {
            None
        } else {
            self.low_read
        };
        if let Some(x) = access {
            let target = self.map.lookup(x.addr).map(|(r, w)| (r.id, w));
            let secure_access = x.pprot & 0b010 == 0;
            if !x.write {
                if let (true, Some((RegId::Evcntr(n), Word::Low))) =
                    (self.permitted(x.pprot), target)
                {
                    if self.cfg.wide_counters() {
                        low_read = Some((n, (self.val[n as usize] >> 32) as u32));
                    }
                }
            } else if target.map(|t| t.0) == Some(RegId::Scr) {
                if self.cfg.secure && secure_access {
                    let old = if nsra { self.nsra_mask } else { 0 };
                    nsra = merge(old, x.data, x.strb) & self.nsra_mask != 0;
                }
            } else if self.permitted(x.pprot) {
                let bits = |word: Word| {
                    let v = (x.data & byte_mask(x.strb)) as u64;
                    let v = if word == Word::High { v << 32 } else { v };
                    v & self.cfg.counter_bitmap()
                };
                match target {
                    Some((RegId::Evcntr(n), word)) => {
                        let i = n as usize;
                        let v = self.val[i];
                        if !self.cfg.wide_counters() {
                            written[i] = Some((merge(v as u32, x.data, x.strb) as u64, false));
                            self.pair = None;
                        } else if word == Word::Low {
                            let lo = merge(v as u32, x.data, x.strb) as u64;
                            written[i] = Some(((v & !0xFFFF_FFFF) | lo, false));
                            self.pair = Some((n, v >> 32));
                        } else if let Some((m, b)) = self.pair.filter(|p| p.0 == n) {
                            let h = merge(b as u32, x.data, x.strb) as u64 & self.kmask;
                            let c = if self.drop_carry {
                                0
                            } else {
                                (v >> 32).wrapping_sub(b) & self.kmask
                            };
                            let rebased = ((h + c) & self.kmask) << 32 | (v & 0xFFFF_FFFF);
                            let sum = rebased as u128 + inc[i] as u128;
                            let overflow = h + c > self.kmask || sum > self.mask as u128;
                            written[i] = Some(((sum as u64) & self.mask, overflow));
                            self.paired.push(Paired {
                                edge: t,
                                n: m,
                                b,
                                h,
                                c,
                                overflow,
                            });
                            self.pair = None;
                        } else {
                            let h = merge((v >> 32) as u32, x.data, x.strb) as u64 & self.kmask;
                            written[i] = Some((h << 32 | (v & 0xFFFF_FFFF), false));
                            self.plain_high.push((t, n));
                            self.pair = None;
                        }
                    }
                    Some((RegId::Evtyper(n), Word::Low)) => {
                        let v = merge(self.evtyper[n as usize], x.data, x.strb);
                        if v & !self.event_mask != 0 {
                            self.err(t, format!("EVTYPER{n} = {v:#x}: only EVENT is modelled"));
                        }
                        evtyper[n as usize] = v;
                    }
                    Some((RegId::Cr, Word::Low)) => {
                        let old = if cr_e { self.e_mask } else { 0 };
                        cr_e = merge(old, x.data, x.strb) & self.e_mask != 0;
                    }
                    Some((RegId::IrqCtrl, Word::Low)) => {
                        let old = if irqen { self.irqen_mask } else { 0 };
                        irqen = merge(old, x.data, x.strb) & self.irqen_mask != 0;
                    }
                    Some((RegId::CntenSet0, w)) => cnten |= bits(w),
                    Some((RegId::CntenClr0, w)) => cnten &= !bits(w),
                    Some((RegId::IntenSet0, w)) => inten |= bits(w),
                    Some((RegId::IntenClr0, w)) => inten &= !bits(w),
                    Some((RegId::OvsSet0, w)) => ovs |= bits(w),
                    Some((RegId::OvsClr0, w)) => ovs &= !bits(w),
                    _ => {}
                }
            }
        }
        let mut ovf = 0u64;
        for (i, w) in written.iter().enumerate() {
            let (v, o) = match *w {
                Some(vo) => vo,
                None => {
                    let sum = self.val[i] as u128 + inc[i] as u128;
                    ((sum as u64) & self.mask, sum > self.mask as u128)
                }
            };
            self.val[i] = v;
            if o {
                ovf |= 1 << i;
                self.overflows.push((t, i as u32));
            }
        }
        // Same-edge precedence: an overflow beats an OVSCLR0 write.
        self.irq = self.irq_next;
        self.irq_next = ovf & self.inten != 0 && self.irqen;
        self.export = ovf;
        self.ovs = ovs | ovf;
        (self.cnten, self.inten) = (cnten, inten);
        (self.cr_e, self.irqen, self.nsra) = (cr_e, irqen, nsra);
        self.evtyper = evtyper;
        self.low_read = low_read;
        self.lanes_q.clone_from(&inp.lanes);
        self.match_q = matched;
    }
}

/// The oracle as a backend: its outputs are what the contract gives (irq, PRDATA of tracked
/// reads in their second access cycle, PREADY = 0 in every read's wait state; everything else
/// 0). Running the directed cases on it checks the oracle's
/// mechanical rule against each case's closed form, without any implementation involved.
struct OracleDut {
    oracle: PairOracle,
    cycle: u64,
}

impl Dut for OracleDut {
    fn step(&mut self, inp: &PinInputs) -> PinOutputs {
        let out = PinOutputs {
            pready: !(self.oracle.synced && self.oracle.read_wait()),
            irq: self.oracle.synced && self.oracle.irq,
            ovf_export: if self.oracle.synced {
                self.oracle.export
            } else {
                0
            },
            prdata: self
                .oracle
                .read_due
                .as_ref()
                .filter(|_| self.oracle.synced)
                .map_or(0, |r| r.0),
            ..PinOutputs::default()
        };
        self.oracle.observe(self.cycle, inp, &out);
        self.cycle += 1;
        out
    }
    fn name(&self) -> &'static str {
        "oracle"
    }
}

// ---------------------------------------------------------------------------------------------
// Bench: per-cycle bus operations and lanes, with the oracle attached
// ---------------------------------------------------------------------------------------------

/// A bus operation of a [`Prog`].
#[derive(Clone, Copy, Debug)]
enum Op {
    Write {
        addr: u32,
        data: u32,
        strb: u8,
        access: Access,
    },
    Read {
        addr: u32,
        access: Access,
    },
}

impl Op {
    /// The cycles the operation occupies from its (effective) setup cycle (docs/behaviour.md
    /// "APB4 completer"): a write's setup and access cycle; a read's setup, wait state and
    /// second access cycle.
    fn cycles(&self) -> u64 {
        match self {
            Op::Write { .. } => 2,
            Op::Read { .. } => 3,
        }
    }

    fn addr(&self) -> u32 {
        match *self {
            Op::Write { addr, .. } | Op::Read { addr, .. } => addr,
        }
    }
}

/// The held cycles of every counter access (docs/behaviour.md "Counter and shadow accesses"):
/// the cases below schedule each EVCNTR access H cycles after the previous operation ends, by
/// its effective setup cycle.
const HOLD: u64 = COUNTER_HOLD_CYCLES as u64;

/// The held cycles of an access to `addr` (docs/behaviour.md "Counter and shadow accesses").
fn hold_of(map: &RegisterMap, addr: u32) -> u64 {
    map.hold_cycles(addr) as u64
}

/// Bus operations at given setup cycles (absolute), to be stepped with a lane schedule.
/// A held operation (an EVCNTR access) is scheduled by its *effective* setup cycle s, the cycle
/// the contract performs it as if set up in: the bench drives its real setup H cycles earlier
/// (s - H), then its H held cycles, so that its access cycle stays s+1. Every cycle formula of
/// the cases below is in effective setup cycles.
#[derive(Default)]
struct Prog {
    ops: Vec<(u64, Op)>,
}

impl Prog {
    /// A full-word Secure write set up in cycle `s`: it acts at edge s+1. Returns s+1.
    fn w(&mut self, s: u64, addr: u32, data: u32) -> u64 {
        self.ws(s, addr, data, 0xF, S)
    }
    fn ws(&mut self, s: u64, addr: u32, data: u32, strb: u8, access: Access) -> u64 {
        self.ops.push((
            s,
            Op::Write {
                addr,
                data,
                strb,
                access,
            },
        ));
        s + 1
    }
    /// A Secure read set up in cycle `s`: performed in s+1 (the wait state) on the state after
    /// edge s, its value on PRDATA in s+2. The next operation can be set up in s+3.
    fn r(&mut self, s: u64, addr: u32) {
        self.ops.push((s, Op::Read { addr, access: S }));
    }
    /// A 64-bit read of a counter: low word set up (effectively) in `s`, high word in s+3+H
    /// (its held cycles first); returns the value after edge s. It occupies cycles s ..= s+5+H
    /// (and the H held cycles before s).
    fn r64(&mut self, s: u64, addr: u32) {
        self.r(s, addr);
        self.r(s + 3 + HOLD, addr + 4);
    }
    /// The last cycle any operation occupies (a write's access cycle, a read's second access
    /// cycle); held cycles come before the effective setup, so they do not move it.
    fn end(&self) -> u64 {
        self.ops
            .iter()
            .map(|(s, op)| s + op.cycles() - 1)
            .max()
            .unwrap_or(0)
    }
}

/// The oracle and the lane schedule on one driver.
struct Bench {
    oracle: Rc<RefCell<PairOracle>>,
}

/// Attaches a fresh oracle and resets the PMCG (the oracle synchronizes at that reset edge).
fn attach(cfg: &PmcgConfig, d: &mut D) -> Bench {
    let oracle = Rc::new(RefCell::new(PairOracle::new(cfg)));
    let o = oracle.clone();
    d.observer = Some(Box::new(move |c, inp, out| {
        o.borrow_mut().observe(c, inp, out)
    }));
    d.clear_lanes();
    d.reset(1);
    Bench { oracle }
}

impl Bench {
    /// Steps from `d.cycle` through the program's last cycle (and at least until `until`), with
    /// lanes `lanes(cycle)` in every cycle. A write is driven for its setup and access cycle, a
    /// read for its setup and two access cycles (PRDATA taken in the second, s+2). Returns every
    /// read as (setup cycle, word).
    fn run(
        &self,
        d: &mut D,
        prog: &Prog,
        until: u64,
        lanes: &dyn Fn(u64) -> Vec<LaneIn>,
    ) -> Vec<(u64, u32)> {
        let map = self.oracle.borrow().map.clone();
        // (real setup cycle, effective setup cycle, op)
        let mut ops: Vec<(u64, u64, Op)> = prog
            .ops
            .iter()
            .map(|&(s, op)| {
                let h = hold_of(&map, op.addr());
                assert!(s >= h, "held operation at effective setup {s} < {h}");
                (s - h, s, op)
            })
            .collect();
        ops.sort_by_key(|(real, _, _)| *real);
        for w in ops.windows(2) {
            assert!(
                w[1].0 >= w[0].1 + w[0].2.cycles(),
                "overlapping bus operations (real setup, effective setup, op): {w:?}"
            );
        }
        if let Some((real, s, _)) = ops.first() {
            assert!(
                *real >= d.cycle,
                "operation set up in cycle {real} (effective {s}) already passed"
            );
        }
        let end = prog.end().max(until);
        let mut reads = Vec::new();
        let mut next = ops.into_iter().peekable();
        // The operation in progress and its effective setup cycle.
        let mut current: Option<(u64, Op)> = None;
        while d.cycle <= end {
            let c = d.cycle;
            let mut b = PinInputs::idle(d.lanes());
            let mut phase = None;
            if let Some((s, op)) = current.filter(|(s, op)| c < s + op.cycles()) {
                phase = Some((s, op, true));
            } else if next.peek().is_some_and(|(real, _, _)| *real == c) {
                let (_, s, op) = next.next().unwrap();
                current = Some((s, op));
                phase = Some((s, op, false));
            }
            if let Some((_, op, access)) = phase {
                b.psel = true;
                b.penable = access;
                let acc = match op {
                    Op::Write {
                        addr,
                        data,
                        strb,
                        access,
                    } => {
                        (b.pwrite, b.paddr, b.pwdata, b.pstrb) = (true, addr, data, strb);
                        access
                    }
                    Op::Read { addr, access } => {
                        b.paddr = addr;
                        access
                    }
                };
                b.pprot = acc.pprot();
                b.pnse = acc.pnse();
            }
            d.set_lanes(&lanes(c));
            let out = d.step_with(b);
            if let Some((s, Op::Read { .. }, true)) = phase {
                if c == s + 2 {
                    reads.push((s, out.prdata));
                }
            }
        }
        d.clear_lanes();
        reads
    }

    /// The value of a 64-bit read whose low word was set up in cycle `s`.
    fn read64(reads: &[(u64, u32)], s: u64) -> u64 {
        let word = |c: u64| {
            reads
                .iter()
                .find(|r| r.0 == c)
                .unwrap_or_else(|| panic!("no read set up in cycle {c}"))
                .1 as u64
        };
        word(s + 3 + HOLD) << 32 | word(s)
    }

    fn check(&self, what: &str) {
        let o = self.oracle.borrow();
        assert!(
            o.errors.is_empty(),
            "{what}: the backend broke the contract:\n  {}",
            o.errors.join("\n  ")
        );
    }
}

/// `count` lanes (the first ones) valid with `events`, StreamID 0, Non-secure; the rest idle.
fn lanes_with(total: usize, count: usize, events: u32) -> Vec<LaneIn> {
    (0..total)
        .map(|l| LaneIn {
            valid: l < count,
            events,
            sid: 0,
            ss: SecState::NonSecure,
            ..LaneIn::default()
        })
        .collect()
}

/// Register addresses of a configuration.
struct Regs {
    map: RegisterMap,
}

impl Regs {
    fn new(cfg: &PmcgConfig) -> Regs {
        Regs {
            map: RegisterMap::new(cfg),
        }
    }
    fn a(&self, id: RegId) -> u32 {
        self.map.reg(id).addr
    }
    fn cnt(&self, n: u32) -> u32 {
        self.a(RegId::Evcntr(n))
    }
    fn e(&self) -> u32 {
        self.map.mask(field::CR_E) as u32
    }
    fn event(&self, ev: u16) -> u32 {
        let f = self.map.field(field::EVTYPER_EVENT).unwrap();
        ((ev as u64) << f.lsb & f.mask()) as u32
    }
}

/// Configures counting (Secure writes through the driver, no oracle timing needed): counter
/// `n` counts `event` (0 = cycles), CNTEN for `cnten`, INTEN for `inten`, IRQEN, CR.E = 1.
/// Returns the CR write's edge (counting from the next edge on).
fn setup(r: &Regs, d: &mut D, events: &[(u32, u16)], cnten: u64, inten: u64) -> u64 {
    for &(n, ev) in events {
        d.apb_write(r.a(RegId::Evtyper(n)), r.event(ev), S);
    }
    d.apb_write(r.a(RegId::CntenSet0), cnten as u32, S);
    d.apb_write(r.a(RegId::IntenSet0), inten as u32, S);
    d.apb_write(r.a(RegId::IrqCtrl), 1, S);
    d.apb_write(r.a(RegId::Cr), r.e(), S);
    d.cycle - 1
}

/// The first lane event of a configuration (event 1) and its lane bit.
fn lane_event(cfg: &PmcgConfig) -> (u16, u32) {
    (1, 1 << cfg.lane_bit_of(1).unwrap())
}

// ---------------------------------------------------------------------------------------------
// 1. write64 sweeps
// ---------------------------------------------------------------------------------------------

/// No lane carries anything.
fn no_lanes(cfg: &PmcgConfig) -> impl Fn(u64) -> Vec<LaneIn> {
    let n = cfg.lanes as usize;
    move |_| lanes_with(n, 0, 0)
}

/// Overflow edges of counter `n` the oracle saw in `from ..= to`.
fn overflow_edges(b: &Bench, n: u32, from: u64, to: u64) -> Vec<u64> {
    b.oracle
        .borrow()
        .overflows
        .iter()
        .filter(|x| x.1 == n && (from..=to).contains(&x.0))
        .map(|x| x.0)
        .collect()
}

/// The value a single read set up in cycle `s` returned.
fn word(reads: &[(u64, u32)], s: u64) -> u32 {
    reads
        .iter()
        .find(|r| r.0 == s)
        .unwrap_or_else(|| panic!("no read set up in cycle {s}"))
        .1
}

const LO: u64 = 0xFFFF_FFFF;

/// A directed case: run on one driver (a backend, or the oracle itself).
type Case = fn(&str, &PmcgConfig, &mut D);

/// Runs `case` on every backend of every configuration.
fn on_every_backend(cfgs: Vec<(String, PmcgConfig)>, case: Case) {
    for (name, cfg) in cfgs {
        for_each_backend(&cfg, |d| case(&name, &cfg, d));
    }
}

/// Runs `case` on the oracle as a backend (see [`OracleDut`]).
fn on_oracle(name: &str, cfg: &PmcgConfig, case: Case, drop_carry: bool) {
    let mut oracle = PairOracle::new(cfg);
    oracle.drop_carry = drop_carry;
    let dut: Box<dyn Dut> = Box::new(OracleDut { oracle, cycle: 0 });
    let mut d = Driver::new(dut, cfg.lanes as usize);
    d.reset(1);
    case(name, cfg, &mut d);
}

// ---------------------------------------------------------------------------------------------
// 1. write64 sweeps
// ---------------------------------------------------------------------------------------------

/// Counter 1 counts cycles (INTEN, IRQEN set). For each idle gap g = 0..=10 cycles between the
/// halves and each value V: M >> 1 (Linux's period), 2^32 - k (k = 1 ..= g + HOLD + 3: the
/// carry out of the low word falls before, at and after the high write) and M + 1 - k (the count
/// passes the top k edges after t1: between the halves, at the high write or after it). Each
/// case starts with a write64 of 0 and an OVSCLR0 (so the old high part is small), then the low
/// word at edge t1, the high word at t2 = t1 + 2 + HOLD + g (g idle cycles on the bus), 64-bit
/// reads of the value after edges t2 + 1 + HOLD and t2 + 7 + 3 HOLD (each takes 6 + 2 HOLD
/// cycles: two held reads with a wait state each) and an OVS read. Every value read is
/// V + (t - t1) mod 2^W; the overflow (OVS, and irq two cycles
/// later, which the oracle checks) is at edge max(t2, t1 + k) for M + 1 - k (the first edge
/// at which the 64-bit value exists and has passed the top), none otherwise.
#[test]
fn cycle_counter_write64_at_every_gap() {
    on_every_backend(wide_configs(), case_cycle_counter);
}

fn case_cycle_counter(name: &str, cfg: &PmcgConfig, d: &mut D) {
    let r = Regs::new(cfg);
    let mask = cfg.counter_mask();
    let n = 1u32;
    let bench = attach(cfg, d);
    setup(&r, d, &[(n, 0)], 1 << n, 1 << n);
    let a = r.cnt(n);
    let mut cases = 0;
    for g in 0..=10u64 {
        let mut values = vec![mask >> 1];
        values.extend((1..=g + HOLD + 3).map(|k| (1u64 << 32) - k));
        values.extend(
            [1, 2, g + HOLD + 1, g + HOLD + 2, g + HOLD + 3, g + HOLD + 6].map(|k| mask - k + 1),
        );
        for v in values {
            let s0 = d.cycle + HOLD;
            let mut p = Prog::default();
            p.w(s0, a, 0);
            p.w(s0 + 2 + HOLD, a + 4, 0);
            p.w(s0 + 4 + HOLD, r.a(RegId::OvsClr0), 1 << n);
            let t1 = p.w(s0 + 6 + 2 * HOLD, a, v as u32);
            let t2 = p.w(t1 + 1 + HOLD + g, a + 4, (v >> 32) as u32);
            let (x1, x2) = (t2 + 1 + HOLD, t2 + 7 + 3 * HOLD);
            p.r64(x1, a);
            p.r64(x2, a);
            let ovs_at = x2 + 6 + HOLD;
            p.r(ovs_at, r.a(RegId::OvsSet0));
            let end = ovs_at + 3;
            let reads = bench.run(d, &p, end, &no_lanes(cfg));
            let what =
                format!("config `{name}`, V = {v:#x}, gap {g} (low at edge {t1}, high at {t2})");
            for s in [x1, x2] {
                assert_eq!(
                    Bench::read64(&reads, s),
                    v.wrapping_add(s - t1) & mask,
                    "{what}: value after edge {s} (as if written whole at {t1})"
                );
            }
            let k = mask - v + 1; // the count passes the top at edge t1 + k
            let ovf: Vec<u64> = if v > mask - 64 && t1 + k <= end {
                vec![t2.max(t1 + k)]
            } else {
                vec![]
            };
            let ovs_want = ovf.first().is_some_and(|&o| o <= ovs_at);
            assert_eq!(
                word(&reads, ovs_at) >> n & 1 == 1,
                ovs_want,
                "{what}: OVS bit {n}"
            );
            assert_eq!(
                overflow_edges(&bench, n, t1, end),
                ovf,
                "{what}: overflow edges"
            );
            cases += 1;
        }
    }
    bench.check(&format!("config `{name}`"));
    let o = bench.oracle.borrow();
    let carried = o.paired.iter().filter(|p| p.c > 0).count();
    let wrapped = o.paired.iter().filter(|p| p.overflow).count();
    assert!(
        carried >= 60 && wrapped >= 30 && cases > 150 && o.reads_checked >= 5 * cases,
        "config `{name}`: exercised {carried} carries, {wrapped} overflows at the high write, \
         {cases} cases, {} reads",
        o.reads_checked
    );
}

/// Counter 1 counts lane event 1; `l` lanes (1, and 3 where the configuration has 3 or more; 2
/// on the 2-lane one) carry it in every cycle of a window [a, b). For gaps g of 0, 1, 2, 3 and 6
/// idle cycles between the halves (low at t1, high at t2 = t1 + 2 + HOLD + g), every window with
/// t1 - 3 <= a < b <= t2 + 3 (events starting and stopping at each cycle around both halves),
/// and V = M >> 1, 2^32 - 2, 2^32 - 4 and M - 3: the values after edges x1 = t2 + 1 + HOLD and
/// x2 = t2 + 7 + 3 HOLD are
/// V + l * |[a, b) ∩ [t1 - 1, t - 2]| mod 2^W (events presented in cycle e count at edge e + 2,
/// [`COUNT_DELAY`]; edge t1 is the low write's own), and for M - 3 the overflow is at edge max(t2, the edge the
/// count passes the top) when that is by x2 (none otherwise).
#[test]
fn lane_counter_write64_at_every_event_offset() {
    on_every_backend(wide_configs(), case_lane_counter);
}

fn case_lane_counter(name: &str, cfg: &PmcgConfig, d: &mut D) {
    let r = Regs::new(cfg);
    let mask = cfg.counter_mask();
    let n = 1u32;
    let (ev, bit) = lane_event(cfg);
    let total = cfg.lanes as usize;
    let counts: Vec<usize> = if total >= 3 {
        vec![1, 3]
    } else {
        vec![1, total]
    };
    let bench = attach(cfg, d);
    setup(&r, d, &[(n, ev)], 1 << n, 1 << n);
    let a_cnt = r.cnt(n);
    let mut cases = 0u64;
    for &l in &counts {
        for g in [0u64, 1, 2, 3, 6] {
            for v in [mask >> 1, (1 << 32) - 2, (1 << 32) - 4, mask - 3] {
                let span = g + HOLD + 8; // a, b in t1-3 ..= t2+3
                for da in 0..span {
                    for db in da + 1..=span {
                        let s0 = d.cycle;
                        let mut p = Prog::default();
                        let t1 = p.w(s0 + 3 + HOLD, a_cnt, v as u32);
                        let t2 = p.w(t1 + 1 + HOLD + g, a_cnt + 4, (v >> 32) as u32);
                        let (a, b) = (t1 - 3 + da, t1 - 3 + db);
                        assert!(b <= t2 + 3);
                        let (x1, x2) = (t2 + 1 + HOLD, t2 + 7 + 3 * HOLD);
                        p.r64(x1, a_cnt);
                        p.r64(x2, a_cnt);
                        let mut end = x2 + 5 + HOLD;
                        let near_top = v > mask - 64;
                        if near_top {
                            // Back to a small value, so the next case's old high part is not
                            // all ones.
                            p.w(end + 1, r.a(RegId::OvsClr0), 1 << n);
                            p.w(end + 3 + HOLD, a_cnt, 0);
                            end = p.w(end + 5 + 2 * HOLD, a_cnt + 4, 0);
                        }
                        let lanes = |c: u64| {
                            let on = (a..b).contains(&c);
                            lanes_with(total, if on { l } else { 0 }, bit)
                        };
                        let reads = bench.run(d, &p, end, &lanes);
                        // Events counted at edges t1+1 ..= t: presented in cycles
                        // t1+1-COUNT_DELAY ..= t-COUNT_DELAY.
                        let events = |t: u64| {
                            b.min(t + 1 - COUNT_DELAY)
                                .saturating_sub(a.max(t1 + 1 - COUNT_DELAY))
                                * l as u64
                        };
                        let what = format!(
                            "config `{name}`, V = {v:#x}, {l} lanes, gap {g}: low at edge {t1}, \
                             high at {t2}, events in cycles {a}..{b}"
                        );
                        for s in [x1, x2] {
                            assert_eq!(
                                Bench::read64(&reads, s),
                                v.wrapping_add(events(s)) & mask,
                                "{what}: value after edge {s}"
                            );
                        }
                        if near_top {
                            // M - 3 passes the top at the edge where the count exceeds 3.
                            let pass = (t1 + 1..=x2).find(|&t| events(t) > 3);
                            let want: Vec<u64> = pass.map(|t| t.max(t2)).into_iter().collect();
                            assert_eq!(
                                overflow_edges(&bench, n, t1, x2),
                                want,
                                "{what}: overflow edges"
                            );
                        }
                        cases += 1;
                    }
                }
            }
        }
    }
    bench.check(&format!("config `{name}`"));
    let o = bench.oracle.borrow();
    let carried = o.paired.iter().filter(|p| p.c > 0).count();
    assert!(
        carried >= 200 && cases > 1000,
        "config `{name}`: {carried} pairs with carries, {cases} cases"
    );
}

// ---------------------------------------------------------------------------------------------
// 2. The edges of the rule
// ---------------------------------------------------------------------------------------------

/// Counters 0 and 1 count cycles from edge e_on + 2 (the CR write at e_on). A low write
/// of 2^32 - 2 to counter 0 at t1 (its high part 0) is a plain low write: the carry at t1 + 2
/// goes into the high part as usual (values read after it). A low write to counter 1 at
/// tm closes counter 0's pair, so counter 0's high write of 3 at th is plain: 3:(its low word in
/// cycle th), the edge th not counted. Counter 1 keeps its low write plus counting. No pair is
/// ever applied.
#[test]
fn a_low_write_alone_is_plain() {
    on_every_backend(wide_configs(), case_low_alone);
}

fn case_low_alone(name: &str, cfg: &PmcgConfig, d: &mut D) {
    let r = Regs::new(cfg);
    let mask = cfg.counter_mask();
    let (a0, a1) = (r.cnt(0), r.cnt(1));
    let bench = attach(cfg, d);
    let e_on = setup(&r, d, &[(0, 0), (1, 0)], 0b11, 0);
    let s = d.cycle + HOLD;
    let mut p = Prog::default();
    let l = (1u64 << 32) - 2;
    let t1 = p.w(s, a0, l as u32);
    p.r64(t1 + 1 + HOLD, a0);
    p.r64(t1 + 7 + 3 * HOLD, a0);
    let tm = p.w(t1 + 13 + 5 * HOLD, a1, 0x10);
    let th = p.w(tm + 3 + HOLD, a0 + 4, 3);
    let (y1, y2) = (th + 1 + HOLD, th + 7 + 3 * HOLD);
    p.r64(y1, a0);
    p.r64(y2, a1);
    let reads = bench.run(d, &p, y2 + 6 + HOLD, &no_lanes(cfg));
    assert!(t1 - 1 - e_on < 1 << 20, "counter 0's high part is 0 at t1");
    let what = format!("config `{name}`: low write at {t1}");
    for x in [t1 + 1 + HOLD, t1 + 7 + 3 * HOLD] {
        assert_eq!(
            Bench::read64(&reads, x),
            l + (x - t1),
            "{what}: after edge {x}"
        );
    }
    let low_th = (l + (th - 1 - t1)) & LO;
    assert_eq!(
        Bench::read64(&reads, y1),
        (3 << 32 | low_th) + (y1 - th),
        "{what}, counter 1's low write at {tm}, a plain high write at {th}"
    );
    assert_eq!(
        Bench::read64(&reads, y2),
        (0x10 + (y2 - tm)) & mask,
        "{what}: counter 1 written at {tm}"
    );
    bench.check(&what);
    let o = bench.oracle.borrow();
    assert!(o.paired.is_empty() && o.plain_high == [(th, 0)], "{what}");
}

/// Counters 0 and 1 count cycles. With no pair open (after reset), a high write of the all-ones
/// high part to counter 0 at th is plain: all-ones:(its low word in cycle th), edge th not
/// counted, no OVS. A low write of 2^32 - 2 to counter 1 at t1, then a high write of 5 to
/// counter 0 at th0 (plain: the pair is counter 1's) which closes the pair, then counter 1's
/// high write of 7 at th1 is plain too although its low word carried between (t1 + 2).
#[test]
fn a_high_write_alone_is_plain() {
    on_every_backend(wide_configs(), case_high_alone);
}

fn case_high_alone(name: &str, cfg: &PmcgConfig, d: &mut D) {
    let r = Regs::new(cfg);
    let kmask = cfg.counter_mask() >> 32;
    let (a0, a1) = (r.cnt(0), r.cnt(1));
    let bench = attach(cfg, d);
    // e_on: the edge before the first counted cycle (CYCLE_ENABLE_DELAY after the CR write).
    let e_on = setup(&r, d, &[(0, 0), (1, 0)], 0b11, 0b11) + CYCLE_ENABLE_DELAY - 1;
    let s = d.cycle + HOLD;
    let mut p = Prog::default();
    let th = p.w(s, a0 + 4, kmask as u32);
    let x = th + 1 + HOLD;
    p.r64(x, a0);
    let ovs1 = x + 6 + HOLD;
    p.r(ovs1, r.a(RegId::OvsSet0));
    let l1 = (1u64 << 32) - 2;
    let t1 = p.w(ovs1 + 3 + HOLD, a1, l1 as u32);
    let th0 = p.w(t1 + 1 + HOLD, a0 + 4, 5);
    let th1 = p.w(th0 + 3 + HOLD, a1 + 4, 7);
    let (y1, y2) = (th1 + 1 + HOLD, th1 + 7 + 3 * HOLD);
    p.r64(y1, a0);
    p.r64(y2, a1);
    let ovs2 = y2 + 6 + HOLD;
    p.r(ovs2, r.a(RegId::OvsSet0));
    let reads = bench.run(d, &p, ovs2 + 3, &no_lanes(cfg));
    let what = format!("config `{name}`");
    let low_th = th - 1 - e_on;
    assert_eq!(
        Bench::read64(&reads, x),
        (kmask << 32 | low_th) + (x - th),
        "{what}: a high write alone at {th}"
    );
    assert_eq!(word(&reads, ovs1), 0, "{what}: a high write never sets OVS");
    let low0 = (low_th + (th0 - 1 - th)) & LO;
    assert_eq!(
        Bench::read64(&reads, y1),
        (5 << 32 | low0) + (y1 - th0),
        "{what}: counter 0's high write at {th0} after counter 1's low write: plain"
    );
    let low1 = (l1 + (th1 - 1 - t1)) & LO;
    assert_eq!(
        Bench::read64(&reads, y2),
        (7 << 32 | low1) + (y2 - th1),
        "{what}: counter 1's low write at {t1}, its high write at {th1} after counter 0's: plain"
    );
    assert_eq!(word(&reads, ovs2), 0, "{what}: no OVS");
    bench.check(&what);
    let o = bench.oracle.borrow();
    assert!(o.paired.is_empty() && o.plain_high.len() == 3, "{what}");
}

/// A pair split by other transfers is still a pair. Counter 0 counts cycles; low word 2^32 - k
/// at t1 (k = 1..=96, so the carry falls at every point between the halves, also while counting
/// is stopped); then a read of OVS, a 64-bit read of counter 1, CR = 0 (edge e0), CR.E = 1
/// (e1), CNTENCLR0 (e2), CNTENSET0 (e3), a 64-bit read of counter 0, an EVTYPER1 and an
/// IRQ_CTRL write, and with Secure state two refused Non-secure writes (SCR.NSRA = 0) to counter
/// 1's low word and counter 0's high word; then the high word 2 at t2. Counting stops for the
/// edges in (e0, e1] and (e2, e3]; the value after t is (2:2^32-k) + the edges counted in
/// (t1, t]. One more case waits 100 idle cycles between the halves.
#[test]
fn other_transfers_between_the_halves_keep_the_pair() {
    on_every_backend(wide_configs(), case_other_transfers);
}

fn case_other_transfers(name: &str, cfg: &PmcgConfig, d: &mut D) {
    let r = Regs::new(cfg);
    let mask = cfg.counter_mask();
    let (a0, a1) = (r.cnt(0), r.cnt(1));
    let bench = attach(cfg, d);
    setup(&r, d, &[(0, 0), (1, 0)], 0b11, 0);
    // The halves are 35 + 7H edges apart with Secure state (91 for H = 8): k runs past that.
    const KMAX: u64 = 96;
    for k in 1..=KMAX + 1 {
        let s = d.cycle;
        let mut p = Prog::default();
        if cfg.secure {
            p.w(s, r.a(RegId::Scr), 0);
        }
        let l = (1u64 << 32) - k.min(KMAX);
        let t1 = p.w(s + 2 + HOLD, a0, l as u32);
        let (stops, t2) = if k <= KMAX {
            p.r(t1 + 1, r.a(RegId::OvsSet0));
            p.r64(t1 + 4 + HOLD, a1);
            let e0 = p.w(t1 + 10 + 2 * HOLD, r.a(RegId::Cr), 0);
            let e1 = p.w(e0 + 1, r.a(RegId::Cr), r.e());
            let e2 = p.w(e1 + 1, r.a(RegId::CntenClr0), 1);
            let e3 = p.w(e2 + 3, r.a(RegId::CntenSet0), 1);
            p.r64(e3 + 1 + HOLD, a0);
            p.w(e3 + 7 + 2 * HOLD, r.a(RegId::Evtyper(1)), r.event(0));
            p.w(e3 + 9 + 2 * HOLD, r.a(RegId::IrqCtrl), 1);
            let mut next = e3 + 11 + 2 * HOLD;
            if cfg.secure {
                p.ws(next + HOLD, a1, 0x1234, 0xF, NS);
                p.ws(next + 2 + 2 * HOLD, a0 + 4, 0x77, 0xF, NS);
                next += 4 + 2 * HOLD;
            }
            let t2 = p.w(next + HOLD, a0 + 4, 2);
            assert!(
                t2 - t1 < KMAX,
                "the carry falls at every point between the halves"
            );
            (vec![(e0, e1), (e2, e3)], t2)
        } else {
            (vec![], p.w(t1 + 100, a0 + 4, 2))
        };
        let (x1, x2) = (t2 + 1 + HOLD, t2 + 7 + 3 * HOLD);
        p.r64(x1, a0);
        p.r64(x2, a0);
        let reads = bench.run(d, &p, x2 + 5 + HOLD, &no_lanes(cfg));
        let counted = |t: u64| {
            (t1 + 1..=t)
                .filter(|&e| !stops.iter().any(|&(x, y)| x < e && e <= y))
                .count() as u64
        };
        let what = format!(
            "config `{name}`: low {l:#x} at edge {t1}, high 2 at {t2}, counting stopped in {stops:?}"
        );
        for x in [x1, x2] {
            assert_eq!(
                Bench::read64(&reads, x),
                ((2 << 32 | l) + counted(x)) & mask,
                "{what}: value after edge {x}"
            );
        }
    }
    bench.check(&format!("config `{name}`"));
    let o = bench.oracle.borrow();
    assert_eq!(
        o.paired.len(),
        KMAX as usize + 1,
        "config `{name}`: every high write paired"
    );
    let carried = o.paired.iter().filter(|p| p.c > 0).count();
    assert!(
        carried >= 15,
        "config `{name}`: {carried} pairs with a carry"
    );
}

/// A permitted write to another counter's EVCNTR word closes the pair. Counters 0 and 1 count
/// cycles. (a) low 2^32 - 2 to counter 0 at t1, low 2^32 - 1 to counter 1 at tm, high 4 to
/// counter 0 at t2: plain (4:low word of cycle t2, edge t2 skipped); then counter 1's high 6 at t3
/// is plain as well (counter 0's high write closed counter 1's pair). (b) low 2^32 - 2 to counter
/// 0, high 9 to counter 1 (plain), high 4 to counter 0: plain. (c) A low write reopens the pair
/// for its own counter: low 0x100 then low 2^32 - 3 to counter 0 (t1b), high 2: paired from t1b.
#[test]
fn another_counters_evcntr_write_closes_the_pair() {
    on_every_backend(wide_configs(), case_other_counter);
}

fn case_other_counter(name: &str, cfg: &PmcgConfig, d: &mut D) {
    let r = Regs::new(cfg);
    let mask = cfg.counter_mask();
    let (a0, a1) = (r.cnt(0), r.cnt(1));
    let bench = attach(cfg, d);
    setup(&r, d, &[(0, 0), (1, 0)], 0b11, 0);
    let what = format!("config `{name}`");
    // A counter's value as (value after edge `at`, `at`): it counts one per edge after.
    let after = |(v, at): (u64, u64), t: u64| (v + (t - at)) & mask;
    let plain_high = |cur: (u64, u64), h: u64, t: u64| {
        let low = after(cur, t - 1) & LO;
        (h << 32 | low, t)
    };
    // Two 64-bit reads from effective setup `x1` (each H held cycles after the previous
    // operation ends); returns their effective setup cycles.
    let two_reads = |p: &mut Prog, x1: u64, first: u32, second: u32| {
        let x2 = x1 + 6 + 2 * HOLD;
        p.r64(x1, first);
        p.r64(x2, second);
        (x1, x2)
    };
    // (a)
    let s = d.cycle + HOLD;
    let mut p = Prog::default();
    let t1 = p.w(s, a0, 0xFFFF_FFFE);
    let tm = p.w(t1 + 1 + HOLD, a1, 0xFFFF_FFFF);
    let t2 = p.w(tm + 1 + HOLD, a0 + 4, 4);
    let t3 = p.w(t2 + 3 + HOLD, a1 + 4, 6);
    let (x1, x2) = two_reads(&mut p, t3 + 1 + HOLD, a0, a1);
    let reads = bench.run(d, &p, x2 + 5 + HOLD, &no_lanes(cfg));
    let c0 = plain_high((0xFFFF_FFFE, t1), 4, t2);
    let c1 = plain_high((0xFFFF_FFFF, tm), 6, t3);
    assert_eq!(
        Bench::read64(&reads, x1),
        after(c0, x1),
        "{what} (a): counter 0 low at {t1}, counter 1 low at {tm}, counter 0 high at {t2}"
    );
    assert_eq!(
        Bench::read64(&reads, x2),
        after(c1, x2),
        "{what} (a): counter 1's high at {t3} after counter 0's"
    );
    // (b)
    let s = d.cycle + HOLD;
    let mut p = Prog::default();
    let t1 = p.w(s, a0, 0xFFFF_FFFE);
    let tm = p.w(t1 + 1 + HOLD, a1 + 4, 9);
    let t2 = p.w(tm + 3 + HOLD, a0 + 4, 4);
    let (x1, x2) = two_reads(&mut p, t2 + 1 + HOLD, a0, a1);
    let reads = bench.run(d, &p, x2 + 5 + HOLD, &no_lanes(cfg));
    let c0 = plain_high((0xFFFF_FFFE | (after(c0, t1 - 1) & !LO), t1), 4, t2);
    let c1 = plain_high(c1, 9, tm);
    assert_eq!(
        Bench::read64(&reads, x1),
        after(c0, x1),
        "{what} (b): counter 0 low at {t1}, counter 1 high at {tm}, counter 0 high at {t2}"
    );
    assert_eq!(
        Bench::read64(&reads, x2),
        after(c1, x2),
        "{what} (b): counter 1"
    );
    // (c)
    let s = d.cycle + HOLD;
    let mut p = Prog::default();
    p.w(s, a0, 0x100);
    let t1b = p.w(s + 3 + HOLD, a0, 0xFFFF_FFFD);
    let t2 = p.w(t1b + 4 + HOLD, a0 + 4, 2);
    let (x1, x2) = two_reads(&mut p, t2 + 1 + HOLD, a0, a0);
    let reads = bench.run(d, &p, x2 + 5 + HOLD, &no_lanes(cfg));
    for x in [x1, x2] {
        assert_eq!(
            Bench::read64(&reads, x),
            (2 << 32 | 0xFFFF_FFFD) + (x - t1b),
            "{what} (c): low at {t1b} reopened the pair, high at {t2}: after edge {x}"
        );
    }
    bench.check(&what);
    let o = bench.oracle.borrow();
    assert_eq!(o.paired.len(), 1, "{what}: only (c) pairs");
    assert_eq!(o.plain_high.len(), 4, "{what}: plain high writes");
}

/// A reset between the halves closes the pair. Counter 0 counts cycles at 5:FFFF_FFF0 (a
/// write64); low word 2^32 - 2 at t1; PRESETn low for one cycle (reset edge after it); the high
/// word 7 at t2 is a plain write to the reset counter (0, not counting): 7:0. Enabled again, it
/// counts from 7:0. No OVS.
#[test]
fn a_reset_between_the_halves_closes_the_pair() {
    on_every_backend(wide_configs(), case_reset_between);
}

fn case_reset_between(name: &str, cfg: &PmcgConfig, d: &mut D) {
    let r = Regs::new(cfg);
    let a0 = r.cnt(0);
    let bench = attach(cfg, d);
    setup(&r, d, &[(0, 0)], 1, 1);
    let s = d.cycle + HOLD;
    let mut p = Prog::default();
    p.w(s, a0, 0xFFFF_FFF0);
    p.w(s + 2 + HOLD, a0 + 4, 5);
    let t1 = p.w(s + 6 + 2 * HOLD, a0, 0xFFFF_FFFE);
    bench.run(d, &p, t1 + 3, &no_lanes(cfg));
    d.reset(1);
    let s = d.cycle + HOLD;
    let mut p = Prog::default();
    let t2 = p.w(s, a0 + 4, 7);
    let x = t2 + 1 + HOLD;
    p.r64(x, a0);
    let ovs = x + 6 + HOLD;
    p.r(ovs, r.a(RegId::OvsSet0));
    let reads = bench.run(d, &p, ovs + 3, &no_lanes(cfg));
    let what = format!("config `{name}`: low at {t1}, reset, high 7 at {t2}");
    assert_eq!(Bench::read64(&reads, x), 7 << 32, "{what}");
    assert_eq!(word(&reads, ovs), 0, "{what}: OVS");
    // The edge before the first counted cycle (CYCLE_ENABLE_DELAY after the CR write).
    let e_on = setup(&r, d, &[(0, 0)], 1, 0) + CYCLE_ENABLE_DELAY - 1;
    let s = d.cycle + HOLD;
    let mut p = Prog::default();
    p.r64(s, a0);
    let reads = bench.run(d, &p, s + 6 + HOLD, &no_lanes(cfg));
    assert_eq!(
        Bench::read64(&reads, s),
        (7 << 32) + (s - e_on),
        "{what}: counting again"
    );
    bench.check(&what);
    let o = bench.oracle.borrow();
    assert_eq!(o.paired.len(), 1, "{what}: only the first write64 pairs");
}

/// CR.E and CNTEN changes between the halves: counter 0 counts cycles; low word 2^32 - k at t1
/// (k = 1, 2, 3, 5), then counting stops at e0 and restarts at e1 (CR = 0 / CR.E = 1, or
/// CNTENCLR0 / CNTENSET0), with 0-2 idle cycles between each of t1, e0, e1, t2; a third mode
/// stops before the low write and restarts between the halves. High word 1 at t2. The value
/// after t is (1:2^32-k) + the edges counted in (t1, t], cycle counting stopped in
/// (e0 + 1, e1 + 1] (it follows an enable write one edge later).
#[test]
fn cr_and_cnten_changes_between_the_halves() {
    on_every_backend(wide_configs(), case_enable_changes);
}

fn case_enable_changes(name: &str, cfg: &PmcgConfig, d: &mut D) {
    let r = Regs::new(cfg);
    let mask = cfg.counter_mask();
    let a0 = r.cnt(0);
    let bench = attach(cfg, d);
    setup(&r, d, &[(0, 0)], 1, 0);
    let cr = (r.a(RegId::Cr), 0, r.e());
    let cnten = (r.a(RegId::CntenClr0), r.a(RegId::CntenSet0));
    for mode in 0..3 {
        for k in [1u64, 2, 3, 5] {
            for x in 0..3u64 {
                for y in 0..3u64 {
                    for z in 0..3u64 {
                        let s = d.cycle;
                        let mut p = Prog::default();
                        let l = (1u64 << 32) - k;
                        let stop = |p: &mut Prog, at: u64| p.w(at, cr.0, cr.1);
                        let start = |p: &mut Prog, at: u64| p.w(at, cr.0, cr.2);
                        // x, y, z: idle cycles on the bus (a counter write's held cycles
                        // come after its setup, so its effective setup is H later).
                        let (t1, e0, e1) = match mode {
                            0 => {
                                let t1 = p.w(s + HOLD, a0, l as u32);
                                let e0 = stop(&mut p, t1 + 1 + x);
                                (t1, e0, start(&mut p, e0 + 1 + y))
                            }
                            1 => {
                                let t1 = p.w(s + HOLD, a0, l as u32);
                                let e0 = p.w(t1 + 1 + x, cnten.0, 1);
                                (t1, e0, p.w(e0 + 1 + y, cnten.1, 1))
                            }
                            _ => {
                                let e0 = stop(&mut p, s);
                                let t1 = p.w(e0 + 1 + x + HOLD, a0, l as u32);
                                (t1, e0, start(&mut p, t1 + 1 + y))
                            }
                        };
                        let t2 = p.w(e1 + 1 + z + HOLD, a0 + 4, 1);
                        let (x1, x2) = (t2 + 1 + HOLD, t2 + 7 + 3 * HOLD);
                        p.r64(x1, a0);
                        p.r64(x2, a0);
                        let reads = bench.run(d, &p, x2 + 5 + HOLD, &no_lanes(cfg));
                        // Cycle counting follows each enable write one edge later
                        // (CYCLE_ENABLE_DELAY): stopped in (e0 + 1, e1 + 1].
                        let lag = CYCLE_ENABLE_DELAY - 1;
                        let counted = |t: u64| {
                            (t1 + 1..=t)
                                .filter(|&e| !(e0 + lag < e && e <= e1 + lag))
                                .count() as u64
                        };
                        let what = format!(
                            "config `{name}`, mode {mode}: low {l:#x} at edge {t1}, stopped in \
                             ({e0}, {e1}], high 1 at {t2}"
                        );
                        for t in [x1, x2] {
                            assert_eq!(
                                Bench::read64(&reads, t),
                                ((1 << 32 | l) + counted(t)) & mask,
                                "{what}: value after edge {t}"
                            );
                        }
                    }
                }
            }
        }
    }
    bench.check(&format!("config `{name}`"));
}

/// H + c wrapping, and an overflow of the intermediate value. Counter 0 counts cycles (INTEN,
/// IRQEN set) at all-ones:0x10 (high part all ones); low word 2^32 - 2 at t1: the carry at t1 + 2
/// wraps the intermediate value (a real overflow at t1 + 2: OVS, irq in t1 + 4); high word H at t2 =
/// t1 + 4 + HOLD with c = 1. H = 5: value (6:...) and no overflow at t2; H = all ones: H + c = 2^K, a
/// second overflow at t2 (OVS, irq). The value is (H:2^32-2) + (t - t1) mod 2^W either way.
#[test]
fn h_plus_c_wrapping_overflows_at_the_high_write() {
    on_every_backend(wide_configs(), case_wrap);
}

fn case_wrap(name: &str, cfg: &PmcgConfig, d: &mut D) {
    let r = Regs::new(cfg);
    let mask = cfg.counter_mask();
    let kmask = mask >> 32;
    let a0 = r.cnt(0);
    let bench = attach(cfg, d);
    setup(&r, d, &[(0, 0)], 1, 1);
    let log = Rc::new(RefCell::new(Vec::new()));
    let l2 = log.clone();
    let oracle = bench.oracle.clone();
    d.observer = Some(Box::new(move |c, inp, out| {
        if out.irq {
            l2.borrow_mut().push(c);
        }
        oracle.borrow_mut().observe(c, inp, out)
    }));
    for h in [5, kmask] {
        let s = d.cycle + HOLD;
        let mut p = Prog::default();
        p.w(s, a0, 0x10);
        p.w(s + 2 + HOLD, a0 + 4, kmask as u32);
        p.w(s + 4 + HOLD, r.a(RegId::OvsClr0), 1);
        let t1 = p.w(s + 6 + 2 * HOLD, a0, 0xFFFF_FFFE);
        let t2 = p.w(t1 + 3 + HOLD, a0 + 4, h as u32);
        let x = t2 + 1 + HOLD;
        p.r64(x, a0);
        let ovs = x + 6 + HOLD;
        p.r(ovs, r.a(RegId::OvsSet0));
        log.borrow_mut().clear();
        let reads = bench.run(d, &p, ovs + 3, &no_lanes(cfg));
        let what = format!("config `{name}`: old high all ones, low at {t1}, high {h:#x} at {t2}");
        assert_eq!(
            Bench::read64(&reads, x),
            (h << 32 | 0xFFFF_FFFE).wrapping_add(x - t1) & mask,
            "{what}"
        );
        assert_eq!(word(&reads, ovs), 1, "{what}: OVS");
        let want = if h == kmask {
            vec![t1 + 2, t2]
        } else {
            vec![t1 + 2]
        };
        assert_eq!(
            overflow_edges(&bench, 0, t1, ovs),
            want,
            "{what}: overflows"
        );
        let pulses: Vec<u64> = want.iter().map(|o| o + IRQ_LATENCY).collect();
        assert_eq!(*log.borrow(), pulses, "{what}: irq pulses");
    }
    bench.check(&format!("config `{name}`"));
}

/// PSTRB on the paired high write: bytes whose strobe is 0 take B's. Counter 0 counts cycles at
/// B:0x100 (B = 0xA5C3_5A3C within K bits); low word 2^32 - 2 at t1, high word 0x1234_5678 with
/// each strobe 0..=15 at t2 = t1 + 4 + HOLD (a carry between): the value is (H:2^32-2) + (t - t1), H =
/// the merge of B and the data. Then partial strobes on the low write (bytes of the low word in
/// cycle t1 kept) with a full high write of 3.
#[test]
fn partial_strobes_take_the_base_bytes() {
    on_every_backend(wide_configs(), case_strobes);
}

fn case_strobes(name: &str, cfg: &PmcgConfig, d: &mut D) {
    let r = Regs::new(cfg);
    let mask = cfg.counter_mask();
    let kmask = mask >> 32;
    let a0 = r.cnt(0);
    let bench = attach(cfg, d);
    setup(&r, d, &[(0, 0)], 1, 0);
    let bpat = 0xA5C3_5A3C & kmask;
    for strb in 0..16u8 {
        let s = d.cycle + HOLD;
        let mut p = Prog::default();
        p.w(s, a0, 0x100);
        p.w(s + 2 + HOLD, a0 + 4, bpat as u32);
        let t1 = p.w(s + 4 + 2 * HOLD, a0, 0xFFFF_FFFE);
        let t2 = p.ws(t1 + 3 + HOLD, a0 + 4, 0x1234_5678, strb, S);
        let x = t2 + 1 + HOLD;
        p.r64(x, a0);
        let reads = bench.run(d, &p, x + 5 + HOLD, &no_lanes(cfg));
        let h = merge(bpat as u32, 0x1234_5678, strb) as u64 & kmask;
        assert_eq!(
            Bench::read64(&reads, x),
            ((h << 32 | 0xFFFF_FFFE) + (x - t1)) & mask,
            "config `{name}`: B = {bpat:#x}, high 0x12345678 with PSTRB {strb:#06b} at {t2}"
        );
    }
    for strb in [0b0001u8, 0b0110, 0b1000] {
        let s = d.cycle + HOLD;
        let mut p = Prog::default();
        let t0 = p.w(s, a0, 0x100);
        p.w(s + 2 + HOLD, a0 + 4, 0);
        let t1 = p.ws(s + 4 + 2 * HOLD, a0, 0xFFFF_FFFE, strb, S);
        let t2 = p.w(t1 + 3 + HOLD, a0 + 4, 3);
        let x = t2 + 1 + HOLD;
        p.r64(x, a0);
        let reads = bench.run(d, &p, x + 5 + HOLD, &no_lanes(cfg));
        let low_t1 = 0x100 + (t1 - 1 - t0);
        let l = merge(low_t1 as u32, 0xFFFF_FFFE, strb) as u64;
        assert_eq!(
            Bench::read64(&reads, x),
            (3 << 32 | l) + (x - t1),
            "config `{name}`: low 0xFFFFFFFE with PSTRB {strb:#06b} at {t1} (low word {low_t1:#x})"
        );
    }
    bench.check(&format!("config `{name}`"));
}

/// The atomic 64-bit read still works. Counter 0 counts cycles, written 2:2^32-4-2 HOLD (pair,
/// gap 0: the carry is at t1 + 4 + 2 HOLD): a 64-bit read with its low word set up in each cycle s around the
/// carry returns the value after edge s. A 64-bit read between the halves of a pair returns the
/// intermediate value and leaves the pair open. A low read, another transfer, then a high read
/// returns the live high word (the snapshot ended).
#[test]
fn atomic_64_bit_reads_still_work() {
    on_every_backend(wide_configs(), case_atomic_reads);
}

fn case_atomic_reads(name: &str, cfg: &PmcgConfig, d: &mut D) {
    let r = Regs::new(cfg);
    let a0 = r.cnt(0);
    let bench = attach(cfg, d);
    setup(&r, d, &[(0, 0)], 1, 0);
    // The carry at t1 + 4 + 2H: one edge after the first read's low word (set up in
    // t2 + 1 + H = t1 + 3 + 2H), at the second's, before the others'.
    let v = 2u64 << 32 | ((1 << 32) - 4 - 2 * HOLD);
    for j in 0..6 {
        let s = d.cycle + HOLD;
        let mut p = Prog::default();
        let t1 = p.w(s, a0, v as u32);
        let t2 = p.w(t1 + 1 + HOLD, a0 + 4, 2);
        let x = t2 + 1 + HOLD + j;
        p.r64(x, a0);
        let reads = bench.run(d, &p, x + 5 + HOLD, &no_lanes(cfg));
        assert_eq!(
            Bench::read64(&reads, x),
            v + (x - t1),
            "config `{name}`: 64-bit read set up in {x}, carry at edge {}",
            t1 + 4 + 2 * HOLD
        );
    }
    // Between the halves; the old value is 2:2^32-4-2H + (t - t1) (last case above).
    let s = d.cycle + HOLD;
    let mut p = Prog::default();
    let t0 = p.w(s, a0, 0xFFFF_FF00);
    p.w(s + 2 + HOLD, a0 + 4, 3);
    let t1 = p.w(s + 4 + 2 * HOLD, a0, 0xFFFF_FFFE);
    let (x1, x2) = (t1 + 1 + HOLD, t1 + 7 + 3 * HOLD);
    p.r64(x1, a0);
    p.r64(x2, a0);
    let t2 = p.w(x2 + 6 + 2 * HOLD, a0 + 4, 4);
    let y = t2 + 1 + HOLD;
    p.r64(y, a0);
    // Snapshot ended by another transfer: low read before the carry, high read after it.
    let t3 = p.w(y + 6 + 2 * HOLD, a0, (0xFFFF_FFFD - HOLD) as u32);
    let lo_at = t3 + 1 + HOLD;
    p.r(lo_at, a0);
    p.w(lo_at + 3, r.a(RegId::OvsClr0), 0);
    let hi_at = lo_at + 5 + HOLD;
    p.r(hi_at, a0 + 4);
    let reads = bench.run(d, &p, hi_at + 3, &no_lanes(cfg));
    let what = format!("config `{name}`: low at {t1}, reads, high at {t2}");
    let b = (3u64 << 32 | 0xFFFF_FF00) + (t1 - 1 - t0);
    assert_eq!(b >> 32, 3, "no carry before t1");
    for x in [x1, x2] {
        assert_eq!(
            Bench::read64(&reads, x),
            (3 << 32 | 0xFFFF_FFFE) + (x - t1),
            "{what}: the intermediate value after edge {x}"
        );
    }
    assert_eq!(
        Bench::read64(&reads, y),
        (4 << 32 | 0xFFFF_FFFE) + (y - t1),
        "{what}: still paired"
    );
    assert_eq!(
        word(&reads, lo_at),
        0xFFFF_FFFE,
        "low word after edge {lo_at}"
    );
    assert_eq!(
        word(&reads, hi_at),
        6,
        "the high read after another transfer is live: the low word 2^32 - 3 - HOLD written at \
         {t3} over the high part 5 carried at {} (the snapshot would give 5)",
        t3 + 3 + HOLD
    );
    bench.check(&what);
}

/// Counters of 32 bits have no high word: EVCNTR1 sits where EVCNTR0's high word would be, so a
/// writeq-like pair (2^32 - 2 to counter 0 at t1, 7 to counter 1 at t2) is two plain writes;
/// counter 0 overflows for real at t1 + 2.
#[test]
fn thirty_two_bit_counters_have_no_pairs() {
    on_every_backend(vec![named_config("small")], case_thirty_two);
}

fn case_thirty_two(name: &str, cfg: &PmcgConfig, d: &mut D) {
    let r = Regs::new(cfg);
    let (a0, a1) = (r.cnt(0), r.cnt(1));
    assert_eq!(a1, a0 + 4);
    let bench = attach(cfg, d);
    setup(&r, d, &[(0, 0), (1, 0)], 0b11, 0);
    let s = d.cycle + HOLD;
    let mut p = Prog::default();
    let t1 = p.w(s, a0, 0xFFFF_FFFE);
    let t2 = p.w(t1 + 1 + HOLD, a1, 7);
    let (r0, r1) = (t2 + 1 + HOLD, t2 + 4 + 2 * HOLD);
    p.r(r0, a0);
    p.r(r1, a1);
    let ovs = r1 + 3;
    p.r(ovs, r.a(RegId::OvsSet0));
    let reads = bench.run(d, &p, ovs + 3, &no_lanes(cfg));
    let what = format!("config `{name}`");
    assert_eq!(
        word(&reads, r0) as u64,
        (0xFFFF_FFFE + (r0 - t1)) & LO,
        "{what}"
    );
    assert_eq!(word(&reads, r1) as u64, 7 + (r1 - t2), "{what}");
    assert_eq!(word(&reads, ovs), 1, "{what}: counter 0 overflowed");
    assert_eq!(
        overflow_edges(&bench, 0, t1, ovs + 3),
        vec![t1 + 2],
        "{what}"
    );
    bench.check(&what);
}

// ---------------------------------------------------------------------------------------------
// 3. The oracle itself
// ---------------------------------------------------------------------------------------------

/// Every case on every configuration with the oracle as the backend: the oracle's mechanical
/// rule (B, H, c, rebase, overflow) gives every closed-form value the cases assert. And the
/// cases fail on a backend that drops the carries between the halves (the oracle with c = 0 as
/// backend, checked by a correct oracle): the tests catch that fault.
#[test]
fn oracle_agrees_with_every_closed_form_and_catches_a_dropped_carry() {
    let cases: [(&str, Case); 10] = [
        ("cycle counter", case_cycle_counter),
        ("lane counter", case_lane_counter),
        ("low alone", case_low_alone),
        ("high alone", case_high_alone),
        ("other transfers", case_other_transfers),
        ("other counter", case_other_counter),
        ("reset between", case_reset_between),
        ("enable changes", case_enable_changes),
        ("wrap", case_wrap),
        ("strobes", case_strobes),
    ];
    for (name, cfg) in wide_configs() {
        for (_, case) in cases
            .iter()
            .chain([("atomic reads", case_atomic_reads as Case)].iter())
        {
            on_oracle(&name, &cfg, *case, false);
        }
    }
    let (name, cfg) = named_config("small");
    on_oracle(&name, &cfg, case_thirty_two, false);
    // Planted fault: the backend ignores c. The cases with carries between the halves fail.
    for (what, case) in [
        ("cycle counter", case_cycle_counter as Case),
        ("lane counter", case_lane_counter),
        ("other transfers", case_other_transfers),
        ("wrap", case_wrap),
    ] {
        for (name, cfg) in wide_configs() {
            let r = std::panic::catch_unwind(|| on_oracle(&name, &cfg, case, true));
            assert!(
                r.is_err(),
                "{what} on `{name}`: a dropped carry went unnoticed"
            );
        }
    }
}

/// An overflow at the paired high write does everything an overflow does (docs/behaviour.md:
/// "Overflow at t2 ... with everything an overflow does"): on `3x44 global` (MSI and capture),
/// counter 0 counts cycles with INTEN, IRQEN, an MSI target and EVTYPER0.OVFCAP; low word
/// 2^32 - 2 at t1 (high part 0), high word all ones at t2 = t1 + 4 + HOLD (held): the carry at
/// t1 + 2 makes
/// c = 1 and H + c = 2^K, so at t2 OVS is set, OVF_EXPORT pulses in cycle t2 + 1, irq in t2 + 2,
/// the MSI's AWVALID rises in cycle t2 + 2, and SVR0 captures the counter's value after t2:
/// (M - 1) + (t2 - t1) mod 2^44. Nothing overflows between the halves.
#[test]
fn an_overflow_at_the_high_write_interrupts_sends_an_msi_and_captures() {
    let (name, cfg) = named_config("3x44 global");
    assert!(cfg.msi && cfg.capture && cfg.counter_bits == 44);
    let p = common::pmcg::Pmcg::new(&name, &cfg);
    let mask = cfg.counter_mask();
    for_each_backend(&cfg, |d| {
        p.set_event(d, 0, 0, true);
        p.write_bits(d, RegId::IntenSet0, 1);
        p.set_msi(d, 0x1234_5670, 0xCAFE_0001, 0);
        p.irqen(d, true);
        p.write_bits(d, RegId::CntenSet0, 1);
        p.start(d);
        d.idle(3);
        let log = common::pmcg::record(d);
        let a = p.addr(RegId::Evcntr(0));
        d.apb_write(a, 0xFFFF_FFFE, S);
        let t1 = d.cycle - 1;
        d.idle(2);
        d.apb_write(a + 4, (mask >> 32) as u32, S);
        let t2 = d.cycle - 1;
        assert_eq!(t2, t1 + 4 + HOLD, "the high write is held");
        d.idle(6);
        let l = log.borrow();
        let what = format!("config `{name}`: low at {t1}, high all ones at {t2}");
        assert_eq!(l.irq, vec![t2 + IRQ_LATENCY], "{what}: irq");
        assert_eq!(l.export, vec![(t2 + 1, 1)], "{what}: OVF_EXPORT");
        assert_eq!(
            l.msi_starts,
            vec![t2 + MSI_LATENCY],
            "{what}: MSI AWVALID/WVALID"
        );
        drop(l);
        assert_eq!(d.msi.completed.len(), 1, "{what}: one MSI");
        assert_eq!(p.ovs(d), 1, "{what}: OVS");
        assert_eq!(
            p.svr(d, 0),
            (mask - 1).wrapping_add(t2 - t1) & mask,
            "{what}: SVR0 captured at {t2}"
        );
    });
}

/// tests/scripts/split-write-running.pmcg (Linux's `smmu_pmu_set_period()` on running 64-bit
/// counters, expectations derived by hand in the script) through the CLI on every backend, with
/// the model in lock-step.
#[test]
fn split_write_script_passes_on_every_backend() {
    common::scripts_pass_on_every_backend(&["split-write-running.pmcg"]);
}
