//! Acceptance tests of the interrupt side of the PMCG on every backend (reference model, native
//! RustHDL simulation, emitted Verilog under Verilator): the wired interrupt with INTEN/IRQEN,
//! the IRQ_CTRL/IRQ_CTRLACK update protocol, the Guarded IRQ_CFG0/1/2, IRQ_STATUS.IRQ_ABT, the
//! MSI AXI4-Lite write master and the per-counter overflow export (docs/behaviour.md "Bitmaps,
//! control and interrupt registers", "IRQ_CTRL / IRQ_CTRLACK and IRQ_STATUS", "MSI write master",
//! "Export"; spec 10.2.1, 10.5.2.19-24, 10.6).
//!
//! ```text
//!   test ──Pmcg helpers (APB)──► Driver ──► backend ──► outputs ──┬─► Log (pins per cycle)
//!          MsiResponder (AXI slave, protocol checks) ◄── AW/W/B ──┤
//!                                                                 └─► Oracle: the contract's
//!        IRQEN/ACK/BUSY/pending/IRQ_ABT/Guarded state machine, fed with the same pins, checks
//!        AWVALID/WVALID/BREADY and the payload in every cycle and every IRQ register read
//! ```
//! Every expected value is derived from the contract and the stimulus: directed tests spell out
//! the cycles (a qualifying overflow at edge o pulses irq in cycle o+2 ([`IRQ_LATENCY`]) and, with
//! nothing outstanding, raises AWVALID and WVALID in cycle o+2 ([`MSI_LATENCY`]): the MSI is issued
//! at edge o+1, the edge that acts on the overflow; with a slave whose AWREADY/WREADY are already
//! high both are accepted at edge o+2, BREADY is 1 from cycle o+3, and BVALID delayed by B cycles
//! is accepted at edge c = o+3+B ([`msi_at`])). The [`Oracle`] is the contract written as a state
//! machine; it takes the edges that act on a qualifying overflow from the irq pulses (whose exact
//! cycles the directed tests check) and checks everything else of the MSI master and the IRQ
//! registers.
//! Every test also asserts that the slave saw no AXI protocol violation.
//!
//! Tests:
//! - `overflow_with_inten_and_irqen_combinations`: pulse and MSI only with both; OVS always.
//! - `two_counter_race_gives_a_new_pulse_and_a_new_msi`: the Linux handler's OVS race.
//! - `irqen_clear_waits_for_the_outstanding_msi_response`: IRQ_CTRLACK 1 -> 0 at the B edge.
//! - `overflows_while_busy_give_one_more_msi_even_when_irqen_clears`: nothing lost, one more MSI.
//! - `guarded_irq_cfg_writes_are_ignored_while_irqen_or_ack`: including the 1 -> 0 wait.
//! - `pending_msi_survives_irq_ctrl_toggles_at_every_offset`: Linux's disable/enable (CR = 0,
//!   IRQ_CTRL 1 -> 0 -> 1) at every offset around an outstanding and a pending MSI.
//! - `irqen_clear_waits_for_the_pending_msi_response`: IRQ_CTRLACK falls at the pending MSI's
//!   response edge; Guarded writes ignored until then.
//! - `addr_zero_sends_no_msi_but_the_wired_pulse`: MSI_ON and RES0 address bits.
//! - `error_responses_set_irq_abt_until_irqen_rises`: SLVERR and DECERR.
//! - `msi_payload_protection_and_attributes`: AWADDR, WDATA, WSTRB, AWPROT[1], sidebands.
//! - `overflow_to_irq_and_msi_latency_and_read_ordering`: cycle t+2, and reads at t and t+1.
//! - `random_backpressure_every_qualifying_overflow_gets_an_msi`: delays up to 10,000 cycles.
//! - `reset_in_the_middle_of_an_msi`: AWVALID/WVALID/BREADY low, the PMCG works afterwards.
//! - `irq_ctrl_and_cr_churn_with_traffic`: thousands of toggles against the oracle.
//! - `overflow_export_pulses_at_every_overflow`: OVF_EXPORT whatever INTEN/IRQEN.
//! - `without_msi_ack_follows_irqen_and_the_msi_registers_are_res0`.
//! - `msi_scripts_pass_on_every_backend`: tests/scripts/msi-*.pmcg through the CLI.
//! - `oracle_follows_a_hand_written_trace`: the oracle itself on a hand-derived trace.
//!
//! Randomized tests print their seed; `PMCG_SEED=<base>` reproduces them.

mod common;

use common::pmcg::{all_lanes, idle_until, irq_churn, irq_config, span, Log, Pmcg, D, S};
use common::{
    base_seed, for_each_backend, named_config, COUNT_DELAY, CYCLE_ENABLE_DELAY, IRQ_LATENCY,
    MSI_LATENCY,
};
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{offset, Access as RegAccess, RegId, COUNTER_HOLD_CYCLES};
use pmcg_sim::axi::{MsiResponder, MsiWrite, RESP_DECERR, RESP_OKAY, RESP_SLVERR};
use pmcg_sim::pins::{PinInputs, PinOutputs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::rc::Rc;

// The oracle reads the edge that acts on a qualifying overflow (o+1, where the MSI is issued or
// made pending) off the irq pulse (cycle o+2): that needs the two latencies to be equal.
const _: () = assert!(IRQ_LATENCY == MSI_LATENCY);

/// The MSI of a qualifying overflow at edge o with nothing outstanding, to a slave with AWREADY
/// and WREADY high whose BVALID comes `b` cycles after both are accepted: (first AWVALID/WVALID
/// cycle, response edge). AW and W are accepted at edge o + MSI_LATENCY, BREADY is 1 from the
/// next cycle and the response is accepted b edges later.
fn msi_at(o: u64, b: u64) -> (u64, u64) {
    (o + MSI_LATENCY, o + MSI_LATENCY + 1 + b)
}

// ---------------------------------------------------------------------------------------------
// The contract as a state machine
// ---------------------------------------------------------------------------------------------

/// The inputs of one cycle the oracle needs.
#[derive(Clone, Copy, Debug, Default)]
struct In {
    presetn: bool,
    psel: bool,
    penable: bool,
    pwrite: bool,
    paddr: u32,
    pwdata: u32,
    pstrb: u8,
    pprot: u8,
    awready: bool,
    wready: bool,
    bvalid: bool,
    bresp: u8,
}

impl In {
    fn of(i: &PinInputs) -> In {
        In {
            presetn: i.presetn,
            psel: i.psel,
            penable: i.penable,
            pwrite: i.pwrite,
            paddr: i.paddr,
            pwdata: i.pwdata,
            pstrb: i.pstrb,
            pprot: i.pprot,
            awready: i.awready,
            wready: i.wready,
            bvalid: i.bvalid,
            bresp: i.bresp,
        }
    }
}

/// What an issued MSI carries (taken at its issue edge).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Payload {
    addr: u64,
    prot: u8,
    data: u32,
    memattr: u8,
    sh: u8,
}

/// docs/behaviour.md "IRQ_CTRL / IRQ_CTRLACK and IRQ_STATUS" and "MSI write master" as a state
/// machine, stepped with the pins of every cycle. Register values are "in cycle t" (after edge
/// t-1). Edge t is processed once cycle t+1 has been seen, because a qualifying overflow at edge
/// t-1, which edge t acts on (the MSI is issued or made pending there), shows as irq = 1 in cycle
/// t+1. It synchronizes at the first reset edge it sees and
/// checks, from then on, AWVALID, WVALID, BREADY, the payload while VALID, and every Secure or
/// permitted read of IRQ_CTRL, IRQ_CTRLACK, IRQ_CFG0/1/2 and IRQ_STATUS. It supports full-word
/// and strobed writes, Secure and Non-secure accesses (NSRA) and configurations without Realm.
struct Oracle {
    /// A read performed in the previous cycle (its first access cycle, the wait state): (PADDR,
    /// setup cycle, the value the contract gives), due on PRDATA in this cycle.
    read_due: Option<(u32, u64, u32)>,
    msi: bool,
    secure: bool,
    irqen_mask: u32,
    addr_mask: u64,
    cfg2_mask: u32,
    scr_rw: u32,
    nsra_mask: u32,
    nsmsi_mask: u32,
    synced: bool,
    /// The reset register in the current cycle (PRESETn of the previous cycle was 0).
    rst_q: bool,
    en: bool,
    /// EN in the cycle before the current one (a qualifying overflow at edge t-1 needs EN = 1 in
    /// cycle t-1).
    en_before: bool,
    ack: bool,
    abt: bool,
    addr: u64,
    data: u32,
    cfg2: u32,
    scr: u32,
    scr_reset: u32,
    busy: bool,
    pending: bool,
    awvalid: bool,
    wvalid: bool,
    payload: Payload,
    prev: Option<(u64, In)>,
    /// Contract violations seen (the first 30).
    errors: Vec<String>,
    /// Edges at which an MSI was issued.
    issues: Vec<u64>,
    /// Edges that act on a qualifying overflow (the overflow's edge + 1) with MSI_ON: each is
    /// owed an MSI issued at or after it.
    owed: Vec<u64>,
    /// MSIs issued at an edge with IRQEN = 0 in its cycle (owed from before the 1 -> 0 update).
    issued_while_off: u64,
    /// Edges at which IRQ_CTRLACK went 0 -> 1 (they clear IRQ_STATUS.IRQ_ABT).
    ack_rises: Vec<u64>,
    /// Cycles with IRQEN = 0 and IRQ_CTRLACK.IRQEN = 1 (1 -> 0 updates waiting).
    waiting_cycles: u64,
    /// Guarded writes ignored and taken.
    guard_ignored: u64,
    guard_taken: u64,
    /// IRQ register reads checked.
    reads_checked: u64,
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

impl Oracle {
    fn new(p: &Pmcg) -> Oracle {
        assert!(
            !p.cfg.realm,
            "the oracle does not model Root/Realm accesses"
        );
        let map = &p.map;
        let scr = map.get(RegId::Scr);
        Oracle {
            read_due: None,
            msi: p.cfg.msi,
            secure: p.cfg.secure,
            irqen_mask: map.mask(field::IRQ_CTRL_IRQEN) as u32,
            addr_mask: map.mask(field::IRQ_CFG0_ADDR),
            cfg2_mask: (map.mask(field::IRQ_CFG2_MEMATTR) | map.mask(field::IRQ_CFG2_SH)) as u32,
            scr_rw: scr.map(|r| r.mask_of(RegAccess::RW) as u32).unwrap_or(0),
            nsra_mask: map.mask(field::SCR_NSRA) as u32,
            nsmsi_mask: map.mask(field::SCR_NSMSI) as u32,
            synced: false,
            rst_q: false,
            en: false,
            en_before: false,
            ack: false,
            abt: false,
            addr: 0,
            data: 0,
            cfg2: 0,
            scr: 0,
            scr_reset: scr.map(|r| r.reset() as u32).unwrap_or(0),
            busy: false,
            pending: false,
            awvalid: false,
            wvalid: false,
            payload: Payload::default(),
            prev: None,
            errors: Vec::new(),
            issues: Vec::new(),
            owed: Vec::new(),
            issued_while_off: 0,
            ack_rises: Vec::new(),
            waiting_cycles: 0,
            guard_ignored: 0,
            guard_taken: 0,
            reads_checked: 0,
        }
    }

    fn err(&mut self, cycle: u64, what: String) {
        if self.errors.len() < 30 {
            self.errors.push(format!("cycle {cycle}: {what}"));
        }
    }

    fn reset_state(&mut self) {
        (self.en, self.en_before, self.ack, self.abt) = (false, false, false, false);
        (self.addr, self.data, self.cfg2) = (0, 0, 0);
        self.scr = self.scr_reset;
        (self.busy, self.pending, self.awvalid, self.wvalid) = (false, false, false, false);
    }

    /// The NS bit of AWPROT: SCR.NSMSI | SCR.NSRA with Secure state, else 1.
    fn ns(&self) -> bool {
        !self.secure || self.scr & (self.nsmsi_mask | self.nsra_mask) != 0
    }

    /// Whether an access with this PPROT may touch the registers (NSRA rule, 10.6).
    fn permitted(&self, pprot: u8) -> bool {
        !self.secure || pprot & 0b010 == 0 || self.scr & self.nsra_mask != 0
    }

    fn bready(&self) -> bool {
        self.busy && !self.awvalid && !self.wvalid
    }

    /// The value a permitted read of `addr` returns in the current state; None for registers the
    /// oracle does not track.
    fn read_value(&self, addr: u32) -> Option<u32> {
        let msi = |v: u32| if self.msi { v } else { 0 };
        Some(match addr & !3 {
            offset::IRQ_CTRL => self.en as u32,
            offset::IRQ_CTRLACK => self.ack as u32,
            offset::IRQ_STATUS => msi(self.abt as u32),
            offset::IRQ_CFG0 => msi(self.addr as u32),
            a if a == offset::IRQ_CFG0 + 4 => msi((self.addr >> 32) as u32),
            offset::IRQ_CFG1 => msi(self.data),
            offset::IRQ_CFG2 => msi(self.cfg2),
            _ => return None,
        })
    }

    fn observe(&mut self, c: u64, inp: &PinInputs, out: &PinOutputs) {
        let now = In::of(inp);
        if let Some((pc, pi)) = self.prev.take() {
            assert_eq!(pc + 1, c, "the oracle must see every cycle");
            self.edge(pc, &pi, out.irq);
            if self.synced {
                self.check(c, &pi, out);
            }
        }
        self.prev = Some((c, now));
    }

    /// Edge t with the inputs of cycle t; `qual` = irq in cycle t+1: edge t acts on a qualifying
    /// overflow at edge t-1.
    fn edge(&mut self, t: u64, i: &In, qual: bool) {
        let rst = self.rst_q;
        self.rst_q = !i.presetn;
        if rst {
            self.reset_state();
            self.synced = true;
            if qual {
                self.err(t + 1, "irq = 1 in the cycle after a reset edge".into());
            }
            return;
        }
        if !self.synced {
            return;
        }
        if qual && !self.en_before {
            self.err(
                t + 1,
                format!("irq pulse, but IRQ_CTRL.IRQEN was 0 in cycle {}", t - 1),
            );
        }
        // The MSI master at edge t (state of cycle t).
        let msi_on = self.msi && self.addr != 0;
        let cand = self.pending || (qual && msi_on);
        if qual && msi_on {
            self.owed.push(t);
        }
        // Issued whatever EN is: a pending MSI is never dropped (only a reset clears it).
        let issue = cand && !self.busy;
        let b_done = self.bready() && i.bvalid;
        let abt_set = b_done && (i.bresp == RESP_SLVERR || i.bresp == RESP_DECERR);
        let busy_n = issue || (self.busy && !b_done);
        let aw_n = issue || (self.awvalid && !i.awready);
        let w_n = issue || (self.wvalid && !i.wready);
        let pending_n = !issue && cand;
        if issue {
            self.payload = Payload {
                addr: self.addr,
                prot: 0b001 | (self.ns() as u8) << 1,
                data: self.data,
                memattr: (self.cfg2 & 0xF) as u8,
                sh: (self.cfg2 >> 4 & 3) as u8,
            };
            self.issues.push(t);
            self.issued_while_off += !self.en as u64;
        }
        // An APB write performed at edge t (its access cycle is t).
        let mut en_n = self.en;
        if i.psel && i.penable && i.pwrite {
            let a = i.paddr & !3;
            let secure_access = i.pprot & 0b010 == 0;
            let guarded = self.en || self.ack;
            let is_cfg = self.msi
                && [
                    offset::IRQ_CFG0,
                    offset::IRQ_CFG0 + 4,
                    offset::IRQ_CFG1,
                    offset::IRQ_CFG2,
                ]
                .contains(&a);
            if a == offset::SCR && self.secure && secure_access {
                self.scr = merge(self.scr, i.pwdata, i.pstrb) & self.scr_rw;
            } else if self.permitted(i.pprot) {
                if a == offset::IRQ_CTRL {
                    en_n = merge(self.en as u32, i.pwdata, i.pstrb) & self.irqen_mask != 0;
                } else if is_cfg && guarded {
                    self.guard_ignored += 1;
                } else if is_cfg {
                    self.guard_taken += 1;
                    match a {
                        offset::IRQ_CFG0 => {
                            let lo = merge(self.addr as u32, i.pwdata, i.pstrb) as u64;
                            self.addr = ((self.addr & !0xFFFF_FFFF) | lo) & self.addr_mask;
                        }
                        offset::IRQ_CFG1 => self.data = merge(self.data, i.pwdata, i.pstrb),
                        offset::IRQ_CFG2 => {
                            self.cfg2 = merge(self.cfg2, i.pwdata, i.pstrb) & self.cfg2_mask
                        }
                        _ => {
                            let hi = merge((self.addr >> 32) as u32, i.pwdata, i.pstrb) as u64;
                            self.addr = ((self.addr & 0xFFFF_FFFF) | hi << 32) & self.addr_mask;
                        }
                    }
                }
            }
        }
        // ACK waits for the outstanding and the pending MSI (every MSI owed before the update),
        // and with MSI one edge more after a cycle with EN = 1: an overflow that qualified at
        // this edge makes its MSI pending only at the next.
        let ack_n = en_n || (self.ack && (busy_n || pending_n || (self.msi && self.en)));
        let mut abt_n = self.abt || abt_set;
        if ack_n && !self.ack {
            abt_n = false; // cleared at the edge where ACK goes 0 -> 1
            self.ack_rises.push(t);
        }
        self.en_before = self.en;
        (self.en, self.ack, self.abt) = (en_n, ack_n, abt_n);
        (self.busy, self.pending, self.awvalid, self.wvalid) = (busy_n, pending_n, aw_n, w_n);
    }

    /// Cycle c = t+1 against the state after edge t; `i` are the inputs of cycle t (a read set up
    /// in cycle t returns, in cycle c, the state after edge t).
    fn check(&mut self, c: u64, i: &In, out: &PinOutputs) {
        let bready = self.bready();
        for (name, got, want) in [
            ("AWVALID", out.awvalid, self.awvalid),
            ("WVALID", out.wvalid, self.wvalid),
            ("BREADY", out.bready, bready),
        ] {
            if got != want {
                self.err(c, format!("{name} = {got}, the contract gives {want}"));
            }
        }
        let p = self.payload;
        if out.awvalid && self.awvalid {
            let got = (out.awaddr, out.awprot, out.msi_memattr, out.msi_sh);
            let want = (p.addr, p.prot, p.memattr, p.sh);
            if got != want {
                self.err(
                    c,
                    format!(
                        "(AWADDR, AWPROT, MSI_MEMATTR, MSI_SH) = {got:#x?}, the contract gives \
                         {want:#x?}"
                    ),
                );
            }
        }
        if out.wvalid && self.wvalid && (out.wdata, out.wstrb) != (p.data, 0xF) {
            self.err(
                c,
                format!(
                    "(WDATA, WSTRB) = ({:#x}, {:#x}), the contract gives ({:#x}, 0xf)",
                    out.wdata, out.wstrb, p.data
                ),
            );
        }
        if !self.en && self.ack {
            self.waiting_cycles += 1;
        }
        // docs/behaviour.md "APB4 completer": a read set up in cycle s is performed in s+1 (the
        // state of s+1) and its value is on PRDATA in s+2.
        if let Some((addr, setup, want)) = self.read_due.take() {
            self.reads_checked += 1;
            if out.prdata != want {
                self.err(
                    c,
                    format!(
                        "read of {addr:#x} (set up in cycle {setup}) returned {:#x}, the \
                         contract gives {want:#x}",
                        out.prdata
                    ),
                );
            }
        }
        if i.presetn && i.psel && !i.penable && !i.pwrite {
            let permitted = self.permitted(i.pprot);
            if let Some(v) = self.read_value(i.paddr) {
                let want = if permitted { v } else { 0 };
                self.read_due = Some((i.paddr, c - 1, want));
            }
        }
    }
}

/// The recorder and the oracle on one driver.
struct Probe {
    log: Rc<RefCell<Log>>,
    oracle: Rc<RefCell<Oracle>>,
}

/// Installs `slave` as the MSI slave, records the pins and runs the oracle from now on, and
/// resets the PMCG (the oracle synchronizes at that reset edge). Replaces any observer.
fn attach(p: &Pmcg, d: &mut D, slave: MsiResponder) -> Probe {
    d.msi = slave;
    let log = Rc::new(RefCell::new(Log::default()));
    let oracle = Rc::new(RefCell::new(Oracle::new(p)));
    let (l, o) = (log.clone(), oracle.clone());
    d.observer = Some(Box::new(move |c, inp, out| {
        l.borrow_mut().observe(c, inp, out);
        o.borrow_mut().observe(c, inp, out);
    }));
    d.reset(1);
    Probe { log, oracle }
}

impl Probe {
    fn irq(&self) -> Vec<u64> {
        self.log.borrow().irq.clone()
    }
    fn export(&self) -> Vec<(u64, u64)> {
        self.log.borrow().export.clone()
    }
    fn aw(&self) -> Vec<u64> {
        self.log.borrow().aw.clone()
    }
    fn w(&self) -> Vec<u64> {
        self.log.borrow().w.clone()
    }
    fn bready(&self) -> Vec<u64> {
        self.log.borrow().bready.clone()
    }
    fn msi_starts(&self) -> Vec<u64> {
        self.log.borrow().msi_starts.clone()
    }
    fn valid_outs(&self) -> Vec<(u64, PinOutputs)> {
        self.log.borrow().valid_outs.clone()
    }
    fn clear_log(&self) {
        self.log.borrow_mut().clear();
    }

    /// No contract violation by the oracle's account and no AXI protocol violation.
    fn check(&self, p: &Pmcg, d: &D, what: &str) {
        let o = self.oracle.borrow();
        assert!(
            o.errors.is_empty(),
            "config `{}` ({what}): the MSI master / IRQ registers broke the contract:\n  {}",
            p.name,
            o.errors.join("\n  ")
        );
        assert!(
            d.msi.violations.is_empty(),
            "config `{}` ({what}): AXI protocol violations: {:?}",
            p.name,
            d.msi.violations
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// The MSI address used by most tests (inside 40 physical address bits, bits [1:0] zero).
const ADDR: u64 = 0x12_3456_7890;
/// The churn test's MSI target (high word 0).
const CHURN_ADDR: u64 = 0x3456_7890;
/// AWPROT with NS = 1: {data, Non-secure, privileged}.
const PROT_NS: u8 = 0b011;

/// The configurations with MSI: Secure state and 40 PA bits, and no Secure state (48 PA bits).
fn msi_configs() -> Vec<(String, PmcgConfig)> {
    vec![irq_config(), named_config("small")]
}

/// CR.E = 1, INTEN for `inten`, the MSI target and payload (when the configuration has MSI),
/// IRQEN = 1. Returns the IRQEN write's edge.
fn enable(p: &Pmcg, d: &mut D, inten: u64, addr: u64, data: u32) -> u64 {
    p.start(d);
    p.write_bits(d, RegId::IntenSet0, inten);
    if p.cfg.msi {
        p.set_msi(d, addr, data, 0);
    }
    p.irqen(d, true)
}

/// Asserts the completed MSIs equal `expect`: (first_valid, completed) with the programmed
/// address and data, WSTRB 0xF, and `prot` and `resp`.
fn check_msis(
    p: &Pmcg,
    got: &[MsiWrite],
    expect: &[(u64, u64)],
    payload: (u64, u32, u8, u8),
    what: &str,
) {
    let times: Vec<(u64, u64)> = got.iter().map(|m| (m.first_valid, m.completed)).collect();
    assert_eq!(
        times, expect,
        "config `{}` ({what}): MSIs as (first AWVALID/WVALID cycle, response edge)",
        p.name
    );
    for m in got {
        assert_eq!(
            (m.addr, m.data, m.strb, m.prot, m.resp),
            (payload.0, payload.1, 0xF, payload.2, payload.3),
            "config `{}` ({what}): MSI (AWADDR, WDATA, WSTRB, AWPROT, BRESP) of {m:?}",
            p.name
        );
    }
}

/// The base seed and this test's seed.
fn seed(salt: u64) -> (u64, u64) {
    let base = base_seed();
    (base, base.wrapping_add(salt))
}

// ---------------------------------------------------------------------------------------------
// 1. INTEN x IRQEN, the race, IRQ_CTRLACK
// ---------------------------------------------------------------------------------------------

/// The last counter overflows at edge o under each INTEN x IRQEN combination: irq is 1 in cycle
/// o+2 only and one MSI (AWVALID from o+2, response accepted at o+3 by the default slave) is
/// sent only when both are set; OVF_EXPORT pulses in cycle o+1; OVS is set and OVF_EXPORT pulses in every case; IRQ_CTRLACK
/// reads IRQEN; IRQ_STATUS stays 0. On `odd` (no MSI) the pulse comes and the AXI master stays
/// idle.
#[test]
fn overflow_with_inten_and_irqen_combinations() {
    let mut cfgs = msi_configs();
    cfgs.push(named_config("odd"));
    for (name, cfg) in cfgs {
        let p = Pmcg::new(&name, &cfg);
        let n = cfg.counters - 1;
        let bit = 1u64 << n;
        for_each_backend(&cfg, |d| {
            for (k, (inten, irqen)) in [(false, false), (false, true), (true, false), (true, true)]
                .into_iter()
                .enumerate()
            {
                let what = format!("INTEN {inten}, IRQEN {irqen}");
                let probe = attach(&p, d, MsiResponder::default());
                let data = 0xC0DE_0000 | k as u32;
                p.start(d);
                if inten {
                    p.write_bits(d, RegId::IntenSet0, bit);
                }
                if cfg.msi {
                    p.set_msi(d, ADDR, data, 0);
                }
                if irqen {
                    p.irqen(d, true);
                }
                let o = p.arm_overflow(d, bit, 5);
                idle_until(d, o + 8);
                let fire = inten && irqen;
                assert_eq!(
                    probe.irq(),
                    if fire { vec![o + IRQ_LATENCY] } else { vec![] },
                    "config `{name}`: counter {n} overflows at edge {o}, {what}: cycles with irq"
                );
                assert_eq!(
                    probe.export(),
                    vec![(o + 1, bit)],
                    "config `{name}` ({what}): OVF_EXPORT"
                );
                let expect: Vec<(u64, u64)> = if fire && cfg.msi {
                    vec![msi_at(o, 0)]
                } else {
                    vec![]
                };
                check_msis(
                    &p,
                    &d.msi.completed,
                    &expect,
                    (ADDR, data, PROT_NS, RESP_OKAY),
                    &what,
                );
                if expect.is_empty() {
                    assert!(
                        probe.aw().is_empty() && probe.w().is_empty(),
                        "config `{name}` ({what}): no AWVALID/WVALID"
                    );
                } else {
                    let f = o + MSI_LATENCY;
                    assert_eq!(probe.aw(), vec![f], "config `{name}`: AWVALID cycles");
                    assert_eq!(probe.w(), vec![f], "config `{name}`: WVALID cycles");
                    assert_eq!(
                        probe.bready(),
                        vec![f + 1],
                        "config `{name}`: BREADY cycles"
                    );
                }
                assert_eq!(p.ovs(d), bit, "config `{name}` ({what}): OVS");
                assert_eq!(
                    p.ack(d),
                    irqen as u32,
                    "config `{name}` ({what}): IRQ_CTRLACK"
                );
                if cfg.msi {
                    assert_eq!(p.irq_abt(d), 0, "config `{name}` ({what}): IRQ_STATUS");
                }
                probe.check(&p, d, &what);
            }
        });
    }
}

/// The Linux handler's race: counter i overflows at oi (pulse oi+2, MSI from oi+2), the handler
/// reads OVSSET0 (= i), counter j overflows at oj (pulse oj+2, a new MSI from oj+2), the handler
/// clears only i with OVSCLR0: OVSSET0 shows j, and there were two pulses and two MSIs.
#[test]
fn two_counter_race_gives_a_new_pulse_and_a_new_msi() {
    for (name, cfg) in msi_configs() {
        let p = Pmcg::new(&name, &cfg);
        let (i, j) = (0u32, cfg.counters - 1);
        let (bi, bj) = (1u64 << i, 1u64 << j);
        for_each_backend(&cfg, |d| {
            let probe = attach(&p, d, MsiResponder::default());
            enable(&p, d, cfg.counter_bitmap(), ADDR, 0x5A5A_0001);
            let oi = p.arm_overflow(d, bi, 4);
            idle_until(d, oi + 3);
            assert_eq!(
                p.ovs(d),
                bi,
                "config `{name}`: OVSSET0 after counter {i} overflowed"
            );
            let oj = p.arm_overflow(d, bj, 4);
            idle_until(d, oj + 3);
            p.write_bits(d, RegId::OvsClr0, bi);
            assert_eq!(
                p.ovs(d),
                bj,
                "config `{name}`: overflow i, read, overflow j, clear i"
            );
            assert_eq!(
                probe.irq(),
                vec![oi + IRQ_LATENCY, oj + IRQ_LATENCY],
                "config `{name}`: pulses"
            );
            check_msis(
                &p,
                &d.msi.completed,
                &[msi_at(oi, 0), msi_at(oj, 0)],
                (ADDR, 0x5A5A_0001, PROT_NS, RESP_OKAY),
                "one MSI per overflow",
            );
            probe.check(&p, d, "race");
        });
    }
}

/// IRQ_CTRLACK follows an IRQEN 1 -> 0 update only once the outstanding MSI's response has been
/// accepted. The slave answers B = 120 cycles after AW and W (accepted at o+2), so the response
/// is accepted at edge c = o+3+B. Round 1: IRQEN cleared at w (o+2 < w < c): IRQ_CTRL reads 0 at
/// once, IRQ_CTRLACK 1, still 1 for a read set up in c-1 and 0 for one set up in c+2 (the read
/// set up in c-1 occupies c-1..=c+1: one wait state). Round 2: 1 for a read set up in c-3 and 0
/// in c (so ACK falls exactly at edge c: a read set up in s returns the state after edge s). With nothing
/// outstanding, 1 -> 0 and 0 -> 1 show in the first read after the write.
#[test]
fn irqen_clear_waits_for_the_outstanding_msi_response() {
    const B: u64 = 120;
    for (name, cfg) in msi_configs() {
        let p = Pmcg::new(&name, &cfg);
        for_each_backend(&cfg, |d| {
            let probe = attach(&p, d, MsiResponder::fixed(0, 0, B as u32, RESP_OKAY));
            p.start(d);
            p.write_bits(d, RegId::IntenSet0, 1);
            p.set_msi(d, ADDR, 0x0BAD_F00D, 0);
            assert_eq!(p.ack(d), 0, "config `{name}`: IRQ_CTRLACK resets to 0");
            p.irqen(d, true);
            assert_eq!(
                p.ack(d),
                1,
                "config `{name}`: 0 -> 1 completes at the write's edge"
            );
            let mut expect = Vec::new();
            for round in 1..=2 {
                let o = p.arm_overflow(d, 1, 3);
                let (f, c) = msi_at(o, B);
                expect.push((f, c));
                idle_until(d, o + 4);
                let w = p.irqen(d, false);
                assert!(
                    w + 20 < c,
                    "the IRQEN write lands while the MSI is outstanding"
                );
                assert_eq!(
                    p.read(d, RegId::IrqCtrl),
                    0,
                    "config `{name}`: IRQ_CTRL reads the new value at once"
                );
                assert_eq!(
                    p.ack(d),
                    1,
                    "config `{name}` round {round}: IRQEN 1 -> 0 at edge {w} with an MSI \
                     outstanding (response at edge {c}): IRQ_CTRLACK stays 1"
                );
                // Two reads are set up 3 cycles apart at the closest (setup, wait, PRDATA).
                let (before, after) = if round == 1 {
                    (c - 1, c + 2)
                } else {
                    (c - 3, c)
                };
                idle_until(d, before);
                assert_eq!(
                    p.ack(d),
                    1,
                    "config `{name}` round {round}: IRQ_CTRLACK read set up in cycle {before} \
                     (response accepted at edge {c})"
                );
                idle_until(d, after);
                assert_eq!(
                    p.ack(d),
                    0,
                    "config `{name}` round {round}: IRQ_CTRLACK read set up in cycle {after} \
                     (response accepted at edge {c})"
                );
                assert_eq!(
                    Log::within(&probe.bready(), o, c + 10),
                    span(f + 1, c),
                    "config `{name}` round {round}: BREADY from the cycle after AW and W are \
                     accepted to the response edge"
                );
                p.write_bits(d, RegId::OvsClr0, 1);
                p.irqen(d, true);
                assert_eq!(p.ack(d), 1, "config `{name}`: 0 -> 1 again");
            }
            check_msis(
                &p,
                &d.msi.completed,
                &expect,
                (ADDR, 0x0BAD_F00D, PROT_NS, RESP_OKAY),
                "the two MSIs",
            );
            // Nothing outstanding: both updates complete at the write's edge.
            for _ in 0..3 {
                p.irqen(d, false);
                assert_eq!(
                    p.ack(d),
                    0,
                    "config `{name}`: 1 -> 0 with nothing outstanding"
                );
                p.irqen(d, true);
                assert_eq!(p.ack(d), 1, "config `{name}`: 0 -> 1");
            }
            assert_eq!(d.msi.completed.len(), 2, "config `{name}`: no further MSI");
            let o = probe.oracle.borrow();
            assert!(
                o.waiting_cycles >= 2 * (B - 10),
                "the 1 -> 0 waits were seen"
            );
            drop(o);
            probe.check(&p, d, "IRQEN 1 -> 0 wait");
        });
    }
}

/// Overflows while an MSI is outstanding (B = 60). Part A: two more qualifying overflows before
/// the response (accepted at c1) give exactly one more MSI, issued at edge c1+1 (AWVALID in
/// c1+2). Part B: an overflow at the very edge c that accepts the response is not lost either
/// (AWVALID in c+2). Part C: a pending MSI is never dropped: IRQEN cleared before it is issued,
/// it is still issued at the edge after the outstanding one's response (AWVALID in c6+2) and
/// IRQ_CTRLACK stays 1 until its own response (docs/behaviour.md "MSI write master": Pending).
#[test]
fn overflows_while_busy_give_one_more_msi_even_when_irqen_clears() {
    const B: u64 = 60;
    for (name, cfg) in msi_configs() {
        let p = Pmcg::new(&name, &cfg);
        for_each_backend(&cfg, |d| {
            let probe = attach(&p, d, MsiResponder::fixed(0, 0, B as u32, RESP_OKAY));
            enable(&p, d, 0b111, ADDR, 0x600D_0001);
            // Part A.
            let o1 = p.arm_overflow(d, 0b001, 3);
            let (f1, c1) = msi_at(o1, B);
            let o2 = p.arm_overflow(d, 0b010, 3);
            let o3 = p.arm_overflow(d, 0b100, 3);
            assert!(o3 + 5 < c1);
            let f2 = c1 + 2;
            let c2 = f2 + 1 + B;
            idle_until(d, c2 + 5);
            assert_eq!(
                probe.irq(),
                [o1, o2, o3].map(|o| o + IRQ_LATENCY).to_vec(),
                "config `{name}`: pulses"
            );
            check_msis(
                &p,
                &d.msi.completed,
                &[(f1, c1), (f2, c2)],
                (ADDR, 0x600D_0001, PROT_NS, RESP_OKAY),
                "two overflows while busy: one more MSI",
            );
            // Part B: counter 1 overflows at the edge that accepts the response of counter 0's MSI.
            let o4 = p.arm_overflow(d, 0b001, 3);
            let (f4, c4) = msi_at(o4, B);
            p.arm_overflow_at(d, 0b010, c4);
            let c5 = c4 + 2 + 1 + B;
            idle_until(d, c5 + 5);
            check_msis(
                &p,
                &d.msi.completed[2..],
                &[(f4, c4), (c4 + 2, c5)],
                (ADDR, 0x600D_0001, PROT_NS, RESP_OKAY),
                "an overflow at the response edge",
            );
            // Part C: the pending MSI of o7 is issued at the response edge c6 + 1 although
            // IRQEN is 0 by then, and IRQ_CTRLACK stays 1 until its response (edge c7).
            let o6 = p.arm_overflow(d, 0b001, 3);
            let (f6, c6) = msi_at(o6, B);
            let o7 = p.arm_overflow(d, 0b010, 3);
            idle_until(d, o7 + 2);
            let w = p.irqen(d, false);
            assert!(o7 < w && w + 5 < c6);
            let c7 = c6 + 2 + 1 + B;
            idle_until(d, c7 - 1);
            assert_eq!(
                p.ack(d),
                1,
                "config `{name}`: IRQEN 1 -> 0 at {w} waits for the pending MSI's response at {c7}"
            );
            // The read set up in c7 - 1 occupies c7 - 1 ..= c7 + 1 (one wait state).
            idle_until(d, c7 + 2);
            assert_eq!(
                p.ack(d),
                0,
                "config `{name}`: ACK fell at the pending MSI's response edge {c7}"
            );
            p.irqen(d, true);
            d.idle(2 * B);
            check_msis(
                &p,
                &d.msi.completed[4..],
                &[(f6, c6), (c6 + 2, c7)],
                (ADDR, 0x600D_0001, PROT_NS, RESP_OKAY),
                "the pending MSI is sent although IRQEN = 0",
            );
            assert_eq!(
                Log::within(&probe.irq(), o6, d.cycle),
                vec![o6 + IRQ_LATENCY, o7 + IRQ_LATENCY],
                "config `{name}`: both overflows of part C pulse (IRQEN was 1)"
            );
            probe.check(&p, d, "overflows while busy");
        });
    }
}

/// IRQ_CFG0/1/2 take writes only while IRQEN and IRQ_CTRLACK are both 0: with IRQEN = 1 they are
/// ignored, and also while an IRQEN 1 -> 0 update waits for an MSI response (IRQEN = 0, ACK = 1);
/// once ACK is 0 they take. The MSI in flight keeps the old payload and attributes, the next one
/// carries the new ones.
#[test]
fn guarded_irq_cfg_writes_are_ignored_while_irqen_or_ack() {
    const B: u64 = 80;
    for (name, cfg) in msi_configs() {
        let p = Pmcg::new(&name, &cfg);
        let (a1, d1, c1) = (0x12_3456_7000u64, 0x1111_1111u32, 0x15u32); // SH 1, MEMATTR 5
        let (a2, d2, c2) = (0x0F_EDCB_A980u64, 0x2222_2222u32, 0x2Au32); // SH 2, MEMATTR 0xA
        let read_cfg = |d: &mut D| {
            (
                p.msi_addr(d),
                p.read(d, RegId::IrqCfg1),
                p.read(d, RegId::IrqCfg2),
            )
        };
        for_each_backend(&cfg, |d| {
            let probe = attach(&p, d, MsiResponder::fixed(0, 0, B as u32, RESP_OKAY));
            p.start(d);
            p.write_bits(d, RegId::IntenSet0, 1);
            p.set_msi(d, a1, d1, c1);
            assert_eq!(
                read_cfg(d),
                (a1, d1, c1),
                "config `{name}`: IRQEN = ACK = 0: RW"
            );
            p.irqen(d, true);
            p.set_msi(d, a2, d2, c2);
            assert_eq!(
                read_cfg(d),
                (a1, d1, c1),
                "config `{name}`: IRQEN = 1: ignored"
            );
            let o = p.arm_overflow(d, 1, 3);
            let c = msi_at(o, B).1;
            idle_until(d, o + 3);
            p.irqen(d, false);
            assert_eq!(p.ack(d), 1);
            p.set_msi(d, a2, d2, c2);
            assert_eq!(
                read_cfg(d),
                (a1, d1, c1),
                "config `{name}`: IRQEN = 0 but IRQ_CTRLACK = 1 (MSI outstanding): ignored"
            );
            assert!(d.cycle < c, "the Guarded writes landed during the wait");
            idle_until(d, c + 1);
            assert_eq!(p.ack(d), 0);
            p.set_msi(d, a2, d2, c2);
            assert_eq!(
                read_cfg(d),
                (a2, d2, c2),
                "config `{name}`: after ACK fell: RW"
            );
            p.irqen(d, true);
            let o2 = p.arm_overflow(d, 1, 3);
            idle_until(d, msi_at(o2, B).1 + 1);
            let m = &d.msi.completed;
            assert_eq!(m.len(), 2, "config `{name}`: two MSIs");
            assert_eq!(
                (m[0].addr, m[0].data),
                (a1, d1),
                "the MSI in flight kept its payload"
            );
            assert_eq!(
                (m[1].addr, m[1].data),
                (a2, d2),
                "the next MSI carries the new one"
            );
            for (cycle, out) in probe.valid_outs() {
                if out.awvalid {
                    let want = if cycle < o2 { (5, 1) } else { (0xA, 2) };
                    assert_eq!(
                        (out.msi_memattr, out.msi_sh),
                        want,
                        "config `{name}`: MSI_MEMATTR/MSI_SH in cycle {cycle}"
                    );
                }
            }
            let o = probe.oracle.borrow();
            assert!(o.guard_ignored >= 8 && o.guard_taken >= 8);
            drop(o);
            probe.check(&p, d, "Guarded");
        });
    }
}

/// IRQ_CFG0.ADDR = 0 means no MSI: a qualifying overflow still pulses irq but the AXI master
/// stays idle and IRQEN 1 -> 0 completes at once. Address bits above pa_bits and bits [1:0] are
/// RES0: a write of only those bits leaves ADDR = 0 (still no MSI); ADDR = 4 sends to 4.
#[test]
fn addr_zero_sends_no_msi_but_the_wired_pulse() {
    for (name, cfg) in msi_configs() {
        let p = Pmcg::new(&name, &cfg);
        let high_res0 = !((p.addr_mask() >> 32) as u32);
        for_each_backend(&cfg, |d| {
            let probe = attach(&p, d, MsiResponder::default());
            p.start(d);
            p.write_bits(d, RegId::IntenSet0, 1);
            p.write(d, RegId::IrqCfg1, 0xFEED_0000);
            let mut pulses = Vec::new();
            for (lo, hi, addr) in [(0, 0, 0), (0x3, high_res0, 0), (0x7, 0, 4)] {
                p.write(d, RegId::IrqCfg0, lo);
                p.write_hi(d, RegId::IrqCfg0, hi);
                assert_eq!(
                    p.msi_addr(d),
                    addr,
                    "config `{name}`: IRQ_CFG0 after writing {hi:#x}:{lo:#x}"
                );
                p.irqen(d, true);
                let o = p.arm_overflow(d, 1, 3);
                pulses.push(o + IRQ_LATENCY);
                idle_until(d, o + 10);
                assert_eq!(probe.irq(), pulses, "config `{name}`: the wired pulse");
                if addr == 0 {
                    assert!(probe.aw().is_empty() && probe.w().is_empty(), "no MSI");
                    assert!(d.msi.completed.is_empty());
                } else {
                    check_msis(
                        &p,
                        &d.msi.completed,
                        &[msi_at(o, 0)],
                        (4, 0xFEED_0000, PROT_NS, RESP_OKAY),
                        "ADDR = 4",
                    );
                }
                assert_eq!(p.ack(d), 1);
                p.irqen(d, false);
                assert_eq!(p.ack(d), 0, "config `{name}`: nothing outstanding");
            }
            probe.check(&p, d, "ADDR = 0");
        });
    }
}

/// IRQ_STATUS.IRQ_ABT is set at the edge that accepts an SLVERR or DECERR response (0 for a read
/// set up in c-1 or c-3, 1 in c+2 or c: a read set up in s returns the state after edge s and
/// occupies s..=s+2), survives IRQEN 1 -> 0 (also when the erroring MSI is the
/// one the update waits for), a rewrite of IRQEN = 1 and OKAY responses, and is cleared by IRQEN
/// 0 -> 1 and by reset.
#[test]
fn error_responses_set_irq_abt_until_irqen_rises() {
    const B: u64 = 10;
    for (name, cfg) in msi_configs() {
        let p = Pmcg::new(&name, &cfg);
        for_each_backend(&cfg, |d| {
            for resp in [RESP_SLVERR, RESP_DECERR] {
                let what = format!("BRESP {resp:#04b}");
                let probe = attach(&p, d, MsiResponder::fixed(0, 0, B as u32, resp));
                enable(&p, d, 1, ADDR, 0xABAB_0000);
                assert_eq!(p.irq_abt(d), 0, "config `{name}`: reset value");
                let mut resps = Vec::new();
                // Reads set up in c - before and c + after (3 cycles apart at the closest).
                for (before, after) in [(1, 2), (3, 0)] {
                    let o = p.arm_overflow(d, 1, 3);
                    let c = msi_at(o, B).1;
                    resps.push(resp);
                    idle_until(d, c - before);
                    assert_eq!(p.irq_abt(d), 0, "config `{name}` ({what}): before edge {c}");
                    idle_until(d, c + after);
                    assert_eq!(p.irq_abt(d), 1, "config `{name}` ({what}): after edge {c}");
                    p.irqen(d, false);
                    assert_eq!(p.irq_abt(d), 1, "config `{name}` ({what}): 1 -> 0 keeps it");
                    p.irqen(d, true);
                    assert_eq!(
                        p.irq_abt(d),
                        0,
                        "config `{name}` ({what}): 0 -> 1 clears it"
                    );
                }
                // Set again; a rewrite of IRQEN = 1 and an OKAY response leave it set.
                let o = p.arm_overflow(d, 1, 3);
                resps.push(resp);
                idle_until(d, msi_at(o, B).1 + 1);
                p.irqen(d, true);
                assert_eq!(p.irq_abt(d), 1, "config `{name}` ({what}): IRQEN 1 -> 1");
                d.msi.resp = RESP_OKAY;
                let o = p.arm_overflow(d, 1, 3);
                resps.push(RESP_OKAY);
                idle_until(d, msi_at(o, B).1 + 1);
                assert_eq!(p.irq_abt(d), 1, "config `{name}` ({what}): OKAY keeps it");
                p.irqen(d, false);
                p.irqen(d, true);
                assert_eq!(p.irq_abt(d), 0);
                // The error comes while IRQEN 1 -> 0 waits for it.
                d.msi.resp = resp;
                let o = p.arm_overflow(d, 1, 3);
                resps.push(resp);
                let c = msi_at(o, B).1;
                idle_until(d, o + 3);
                p.irqen(d, false);
                assert_eq!((p.ack(d), p.irq_abt(d)), (1, 0), "waiting");
                idle_until(d, c + 1);
                assert_eq!(
                    (p.ack(d), p.irq_abt(d)),
                    (0, 1),
                    "config `{name}` ({what}): the awaited response was an error"
                );
                // Reset clears it.
                d.reset(1);
                assert_eq!(p.irq_abt(d), 0, "config `{name}` ({what}): after reset");
                let got: Vec<u8> = d.msi.completed.iter().map(|m| m.resp).collect();
                assert_eq!(got, resps, "config `{name}`: responses given");
                probe.check(&p, d, &what);
            }
        });
    }
}

/// The MSIs the contract gives for qualifying overflow edges `quals` (ascending) with a slave
/// whose AWREADY and WREADY are high and whose BVALID comes `b` cycles after both are accepted:
/// (first AWVALID cycle, response edge). An MSI issued at edge i has AWVALID from i+1 and its
/// response at i+2+b. The overflow at edge q is acted on at edge a = q + MSI_LATENCY - 1: when an
/// MSI is outstanding there (BUSY in cycle a) it becomes pending and is issued at the edge after
/// that response, unless an MSI issued at or after a already covers it; else it is issued at a.
fn expected_msis(quals: &[u64], b: u64) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &q in quals {
        let a = q + MSI_LATENCY - 1;
        match out.last().copied() {
            Some((f, _)) if a < f => {} // the last MSI was issued at edge f - 1 >= a
            Some((_, c)) if c >= a => out.push((c + 2, c + 3 + b)),
            _ => out.push(msi_at(q, b)),
        }
    }
    out
}

/// Asserts that every edge a acting on a qualifying overflow with MSI_ON the oracle saw is
/// followed by an MSI whose AWVALID first rises after it (as the slave recorded it): at a+1 when
/// no MSI is in flight at edge a, else two cycles after the in-flight one's response edge. No "while IRQEN
/// stays 1" condition: a pending MSI is never dropped. Returns how many edges were owed.
fn assert_every_owed_msi_sent(probe: &Probe, msis: &[MsiWrite], what: &str) -> usize {
    let owed = probe.oracle.borrow().owed.clone();
    for &q in &owed {
        let next = msis
            .iter()
            .find(|m| m.first_valid > q)
            .unwrap_or_else(|| panic!("{what}: no MSI after the qualifying overflow edge {q}"));
        let in_flight = msis
            .iter()
            .rev()
            .find(|m| m.first_valid <= q)
            .filter(|m| m.completed >= q);
        let due = match in_flight {
            Some(m) => m.completed + 2,
            None => q + 1,
        };
        assert_eq!(
            next.first_valid, due,
            "{what}: the MSI after the qualifying edge {q} (in flight then: {in_flight:?})"
        );
    }
    owed.len()
}

/// Linux's perf disable/enable around two overflows (issue 10 part 1b), IRQ_CTRL 1 -> 0 -> 1 at
/// every offset. A slow completer (BVALID B = 12 cycles after AW and W). Counter 0 overflows at
/// o0 (its MSI outstanding until c0 = o0 + 3 + B), counter 1 at o1 = o0 + 5 (INTEN, IRQEN: its
/// MSI pending). IRQ_CTRL = 0 at edge w0 for every w0 from o0 - 4 to past the second MSI's
/// response, IRQ_CTRL = 1 at w1 = w0 + 2 (back to back) or w0 + 10 (with a Guarded IRQ_CFG1
/// write, 2 cycles, an IRQ_CFG1 read and an IRQ_CTRLACK read, 3 cycles each, between); with and without CR = 0 just
/// before (edge w0 - 2; CR.E = 1 again after w1). Expected: an overflow qualifies iff IRQEN is 1
/// in its cycle (a counter stopped by CR = 0 overflows later by the stopped edges); every
/// qualifying overflow gets an MSI issued after it ([`expected_msis`], exact cycles), whatever
/// IRQEN is when it is issued; IRQ_CTRLACK reads 1 while an owed MSI has not completed and the
/// Guarded write is ignored then (the oracle checks every read, AWVALID/WVALID/BREADY in every
/// cycle and the payload: the old IRQ_CFG1).
#[test]
fn pending_msi_survives_irq_ctrl_toggles_at_every_offset() {
    const B: u64 = 12;
    let (name, cfg) = irq_config();
    let p = Pmcg::new(&name, &cfg);
    for_each_backend(&cfg, |d| {
        let mut waited = 0;
        let mut guarded_ignored = 0;
        for cr_first in [false, true] {
            for gap in [0u64, 8] {
                for dw in 0..(2 * B + 14) {
                    let probe = attach(&p, d, MsiResponder::fixed(0, 0, B as u32, RESP_OKAY));
                    enable(&p, d, 0b11, ADDR, 0xD15A_0001);
                    // (Room for the two arms' counter writes and their held cycles.)
                    let o0 = d.cycle + 24 + 2 * COUNTER_HOLD_CYCLES as u64;
                    let o1 = o0 + 5;
                    p.arm_overflow_at(d, 0b10, o1);
                    p.arm_overflow_at(d, 0b01, o0);
                    let w0 = o0 - 4 + dw;
                    let e_cr = w0 - 2;
                    if cr_first {
                        idle_until(d, e_cr - 1);
                        assert_eq!(p.stop(d), e_cr);
                    }
                    idle_until(d, w0 - 1);
                    assert_eq!(p.irqen(d, false), w0);
                    if gap > 0 {
                        p.write(d, RegId::IrqCfg1, 0xBAD0_0000);
                        p.read(d, RegId::IrqCfg1);
                        p.ack(d);
                    }
                    let w1 = p.irqen(d, true);
                    assert_eq!(w1, w0 + 2 + gap);
                    let e_on = if cr_first { Some(p.start(d)) } else { None };
                    let end = o1 + 4 * B + 40;
                    idle_until(d, end);
                    // The overflow edges (a stopped counter overflows later: cycle counting stops
                    // after edge e_cr + 1 and resumes at on + 2, CYCLE_ENABLE_DELAY) and which
                    // qualify.
                    let shift = |o: u64| match e_on {
                        Some(on) if e_cr + CYCLE_ENABLE_DELAY - 1 < o => o + (on - e_cr),
                        _ => o,
                    };
                    let en_at = |o: u64| !(w0 < o && o <= w1);
                    let mut quals: Vec<u64> = [shift(o0), shift(o1)]
                        .into_iter()
                        .filter(|&o| en_at(o))
                        .collect();
                    quals.sort();
                    let what = format!(
                        "config `{name}`, CR = 0 first: {cr_first}, IRQ_CTRL 1 -> 0 at edge {w0}, \
                         0 -> 1 at {w1}; overflows at {o0} and {o1}"
                    );
                    assert_eq!(
                        probe
                            .irq()
                            .iter()
                            .map(|c| c - IRQ_LATENCY)
                            .collect::<Vec<_>>(),
                        quals,
                        "{what}: qualifying overflow edges (irq pulses)"
                    );
                    let msis = expected_msis(&quals, B);
                    // An MSI is owed after edge t from its overflow's edge to its response (the
                    // MSI that covers the overflow at q is issued at or after q + 1).
                    let owed_after = |t: u64| {
                        quals.iter().any(|&q| {
                            let m = msis.iter().find(|m| m.0 > q + MSI_LATENCY - 1).unwrap();
                            q <= t && t < m.1
                        })
                    };
                    // The Guarded write at edge g = w0 + 2 takes iff IRQ_CTRLACK is 0 in its
                    // cycle. ACK stays 1 at edge w0 (EN was 1 in cycle w0: an overflow there may
                    // still qualify) and falls at edge w0 + 1 = g - 1 iff nothing is owed after
                    // it (IRQEN is 0 in cycle w0 + 1).
                    let g = w0 + 2;
                    let took = gap > 0 && !owed_after(g - 1);
                    let times: Vec<(u64, u64)> = d
                        .msi
                        .completed
                        .iter()
                        .map(|m| (m.first_valid, m.completed))
                        .collect();
                    assert_eq!(
                        times, msis,
                        "{what}: MSIs (first AWVALID cycle, response edge)"
                    );
                    for m in &d.msi.completed {
                        let data = if took && m.first_valid - 1 > g {
                            0xBAD0_0000
                        } else {
                            0xD15A_0001
                        };
                        assert_eq!(
                            (m.addr, m.data, m.prot, m.resp),
                            (ADDR, data, PROT_NS, RESP_OKAY),
                            "{what}: the MSI of {m:?} (Guarded write taken: {took})"
                        );
                    }
                    assert_eq!(
                        assert_every_owed_msi_sent(&probe, &d.msi.completed, &what),
                        quals.len()
                    );
                    probe.check(&p, d, &what);
                    let o = probe.oracle.borrow();
                    waited += o.waiting_cycles;
                    guarded_ignored += o.guard_ignored;
                }
            }
        }
        assert!(
            waited > 500 && guarded_ignored > 20,
            "the 1 -> 0 waits ({waited} cycles) and Guarded writes ({guarded_ignored} ignored) \
             were exercised"
        );
    });
}

/// IRQ_CTRLACK waits for the pending MSI too, at the exact edge. Slow completer (B = 30).
/// Counter 0 overflows at o0 (MSI outstanding until c0 = o0 + 3 + B), counter 1 at o1 (pending),
/// then (optionally CR = 0 first) IRQ_CTRL = 0 at w (o1 < w < c0): IRQ_CTRL reads 0 at once,
/// IRQ_CTRLACK 1; a Guarded IRQ_CFG1 write is ignored; the pending MSI is issued at c0 + 1
/// (AWVALID from c0 + 2) with the old payload and its response is accepted at c1 = c0 + 3 + B;
/// IRQ_CTRLACK is 1 for a read set up in c1 - 1 (round 0) or c1 - 3 (round 1) and 0 for one set
/// up in c1 + 2 (round 0) or c1 (round 1): it falls exactly at edge c1 (a read set up in s returns
/// the state after edge s and occupies s..=s+2). Afterwards the Guarded
/// write takes.
#[test]
fn irqen_clear_waits_for_the_pending_msi_response() {
    const B: u64 = 30;
    for (name, cfg) in msi_configs() {
        let p = Pmcg::new(&name, &cfg);
        for_each_backend(&cfg, |d| {
            for (cr_first, round) in [(false, 0u64), (false, 1), (true, 0), (true, 1)] {
                let probe = attach(&p, d, MsiResponder::fixed(0, 0, B as u32, RESP_OKAY));
                enable(&p, d, 0b11, ADDR, 0x0DD5_0001);
                let o0 = p.arm_overflow(d, 0b01, 3);
                let o1 = p.arm_overflow(d, 0b10, 3);
                let (f0, c0) = msi_at(o0, B);
                let c1 = c0 + 3 + B;
                idle_until(d, o1 + 1);
                if cr_first {
                    p.stop(d);
                }
                let w = p.irqen(d, false);
                assert!(o1 < w && w + 12 < c0, "IRQEN cleared while both are owed");
                let what = format!(
                    "config `{name}`, CR = 0 first: {cr_first}: overflows at {o0} and {o1}, \
                     IRQEN 1 -> 0 at {w}, responses at {c0} and {c1}"
                );
                assert_eq!(p.read(d, RegId::IrqCtrl), 0, "{what}: IRQ_CTRL");
                assert_eq!(p.ack(d), 1, "{what}: IRQ_CTRLACK waits");
                p.write(d, RegId::IrqCfg1, 0x5EE5_0000);
                assert_eq!(
                    p.read(d, RegId::IrqCfg1),
                    0x0DD5_0001,
                    "{what}: Guarded write ignored while ACK = 1"
                );
                idle_until(d, c0 + 5);
                assert_eq!(p.ack(d), 1, "{what}: still waiting for the pending MSI");
                let (before, after) = if round == 0 {
                    (c1 - 1, c1 + 2)
                } else {
                    (c1 - 3, c1)
                };
                idle_until(d, before);
                assert_eq!(p.ack(d), 1, "{what}: IRQ_CTRLACK read set up in {before}");
                idle_until(d, after);
                assert_eq!(p.ack(d), 0, "{what}: IRQ_CTRLACK read set up in {after}");
                check_msis(
                    &p,
                    &d.msi.completed,
                    &[(f0, c0), (c0 + 2, c1)],
                    (ADDR, 0x0DD5_0001, PROT_NS, RESP_OKAY),
                    &what,
                );
                p.write(d, RegId::IrqCfg1, 0x5EE5_0000);
                assert_eq!(
                    p.read(d, RegId::IrqCfg1),
                    0x5EE5_0000,
                    "{what}: Guarded write takes once ACK = 0"
                );
                assert_eq!(
                    assert_every_owed_msi_sent(&probe, &d.msi.completed, &what),
                    2
                );
                probe.check(&p, d, &what);
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Payload, latency, ordering
// ---------------------------------------------------------------------------------------------

/// The MSI carries AWADDR = IRQ_CFG0.ADDR (bits above pa_bits RES0, all-ones written), WDATA =
/// IRQ_CFG1, WSTRB = 0xF, AWPROT = {0, NS, 1} with NS = SCR.NSMSI | SCR.NSRA with Secure state
/// (every combination) and NS = 1 without, MSI_MEMATTR/MSI_SH = IRQ_CFG2 while AWVALID. With a
/// slave taking 3 cycles for AWREADY, 5 for WREADY and 2 for BVALID: with f = o+2 the first
/// cycle of the MSI, AWVALID in f..=f+3, WVALID in f..=f+5, BREADY in f+6..=f+8, response at
/// edge f+8.
#[test]
fn msi_payload_protection_and_attributes() {
    for (name, cfg) in msi_configs() {
        let p = Pmcg::new(&name, &cfg);
        let addr = p.addr_mask();
        let combos: Vec<(bool, bool)> = if cfg.secure {
            vec![(true, true), (false, true), (true, false), (false, false)]
        } else {
            vec![(true, true)]
        };
        for_each_backend(&cfg, |d| {
            let probe = attach(&p, d, MsiResponder::fixed(3, 5, 2, RESP_OKAY));
            p.start(d);
            p.write_bits(d, RegId::IntenSet0, 1);
            p.write(d, RegId::IrqCfg0, 0xFFFF_FFFF);
            p.write_hi(d, RegId::IrqCfg0, 0xFFFF_FFFF);
            assert_eq!(
                p.msi_addr(d),
                addr,
                "config `{name}`: ADDR keeps [pa_bits-1:2]"
            );
            p.write(d, RegId::IrqCfg1, 0xDEAD_BEEF);
            p.write(d, RegId::IrqCfg2, 0xFFFF_FFFF);
            assert_eq!(
                p.read(d, RegId::IrqCfg2),
                0x3F,
                "config `{name}`: IRQ_CFG2 fields"
            );
            p.write(d, RegId::IrqCfg2, 0x3A);
            let mut expect = Vec::new();
            for &(nsmsi, nsra) in &combos {
                if cfg.secure {
                    let mut scr = 0;
                    if nsmsi {
                        scr |= p.field(RegId::Scr, "NSMSI");
                    }
                    if nsra {
                        scr |= p.field(RegId::Scr, "NSRA");
                    }
                    p.write(d, RegId::Scr, scr);
                }
                let ns = nsmsi || nsra || !cfg.secure;
                p.irqen(d, true);
                probe.clear_log();
                let o = p.arm_overflow(d, 1, 3);
                let f = o + MSI_LATENCY;
                idle_until(d, f + 13);
                let what = format!("NSMSI {nsmsi}, NSRA {nsra}");
                assert_eq!(
                    probe.aw(),
                    span(f, f + 3),
                    "config `{name}` ({what}): AWVALID"
                );
                assert_eq!(
                    probe.w(),
                    span(f, f + 5),
                    "config `{name}` ({what}): WVALID"
                );
                assert_eq!(
                    probe.bready(),
                    span(f + 6, f + 8),
                    "config `{name}`: BREADY"
                );
                for (cycle, out) in probe.valid_outs() {
                    if out.awvalid {
                        assert_eq!(
                            (out.awaddr, out.awprot, out.msi_memattr, out.msi_sh),
                            (addr, 0b001 | (ns as u8) << 1, 0xA, 0x3),
                            "config `{name}` ({what}): AW channel in cycle {cycle}"
                        );
                    }
                    if out.wvalid {
                        assert_eq!((out.wdata, out.wstrb), (0xDEAD_BEEF, 0xF), "W channel");
                    }
                }
                let m = *d.msi.completed.last().expect("an MSI");
                assert_eq!(
                    (m.addr, m.prot, m.data, m.strb, m.first_valid, m.completed),
                    (addr, 0b001 | (ns as u8) << 1, 0xDEAD_BEEF, 0xF, f, f + 8),
                    "config `{name}` ({what}): the MSI"
                );
                expect.push(f);
                p.irqen(d, false);
            }
            let starts: Vec<u64> = d.msi.completed.iter().map(|m| m.first_valid).collect();
            assert_eq!(starts, expect, "config `{name}`: one MSI per overflow");
            probe.check(&p, d, "payload");
        });
    }
}

/// A qualifying overflow at edge o: irq and AWVALID/WVALID first in cycle o+2 (with nothing
/// outstanding), OVF_EXPORT in cycle o+1. Ordering (10.2.1): a read set up in cycle o (access
/// cycle o+1, the cycle before the pulse and AWVALID) already returns the OVS bit, the new counter
/// value and, with OVFCAP, the captured SVR; so does a read set up in o+1 (the first cycle
/// software can react in). Counter 0 counts event 1 on both lanes (+2 per edge) from max - 8,
/// so it wraps to 1 at o; counter 1 counts cycles from 0x100 (enabled at the same edge e).
#[test]
fn overflow_to_irq_and_msi_latency_and_read_ordering() {
    let (name, cfg) = irq_config();
    let p = Pmcg::new(&name, &cfg);
    let svr = cfg.capture;
    for_each_backend(&cfg, |d| {
        let probe = attach(&p, d, MsiResponder::default());
        d.set_lanes(&all_lanes(d, p.lane_bit(1)));
        p.set_event(d, 0, 1, svr);
        enable(&p, d, 1, ADDR, 0x0DE5_0001);
        let reads: Vec<(&str, RegId)> = vec![
            ("OVSSET0", RegId::OvsSet0),
            ("EVCNTR0", RegId::Evcntr(0)),
            ("SVR0", RegId::Svr(0)),
            ("SVR1", RegId::Svr(1)),
        ];
        let mut pulses = Vec::new();
        for (reg, id) in reads {
            for delay in [0, 1] {
                // Counter 0 from max - 8 - 2h (+2 per edge from edge e + COUNT_DELAY: the lanes
                // of cycle e are the first matched while enabled), counter 1 from 0x100 (+1 per
                // edge from e1 + CYCLE_ENABLE_DELAY): counter 0 reaches max after edge e+5+h and wraps to 1 at
                // o = e+6+h. (h: the held cycles of a counter or SVR read, which is set up h
                // cycles earlier than an OVSSET0 read to be performed in the same cycle.)
                let h = COUNTER_HOLD_CYCLES as u64;
                p.write_bits(d, RegId::CntenClr0, 0b11);
                p.set_counter(d, 1, 0x100);
                let e = p.arm(d, 0b01, p.max() - 8 - 2 * h);
                p.write_bits(d, RegId::CntenSet0, 0b10);
                let e1 = d.cycle - 1;
                let o = e + COUNT_DELAY + 4 + h;
                let read_at = o + delay;
                let held = if id == RegId::OvsSet0 { 0 } else { h };
                idle_until(d, read_at - held);
                let got = p.read(d, id) as u64;
                // Values after edge read_at (SVRs: captured at o).
                let want = match id {
                    RegId::OvsSet0 => 1,
                    RegId::Evcntr(0) => 1 + 2 * delay,
                    RegId::Svr(0) => 1,
                    _ => 0x100 + (o + 1 - CYCLE_ENABLE_DELAY - e1),
                };
                assert_eq!(
                    got,
                    want,
                    "config `{name}`: {reg} read performed in cycle {} (overflow at edge {o})",
                    read_at + 1
                );
                pulses.push(o + IRQ_LATENCY);
                idle_until(d, o + 4);
                assert_eq!(probe.irq(), pulses, "config `{name}`: irq in cycle o+2");
                let last = *d.msi.completed.last().expect("an MSI");
                assert_eq!(
                    (last.first_valid, last.completed),
                    msi_at(o, 0),
                    "config `{name}`: AWVALID/WVALID first in cycle o+2"
                );
                assert_eq!(
                    probe.export().last().copied(),
                    Some((o + 1, 1)),
                    "config `{name}`: OVF_EXPORT[0] in cycle o+1"
                );
                p.write_bits(d, RegId::OvsClr0, 1);
            }
        }
        d.clear_lanes();
        probe.check(&p, d, "latency and ordering");
    });
}

// ---------------------------------------------------------------------------------------------
// 3. Random backpressure, reset, churn
// ---------------------------------------------------------------------------------------------

/// A slave with random AW, W and B delays (70% 0-3 cycles, 30% up to 10,000) and 10% error
/// responses, while counters overflow at random (counters count cycles and are written near
/// their maximum; INTEN changes; IRQ_CTRL goes 1 -> 0 -> 1 now and then, as Linux's perf
/// disable/enable does). About 150,000 cycles of traffic, then the
/// counters stop and the MSIs drain. Every cycle is checked by the oracle; the slave sees no
/// protocol violation; nothing hangs; and every edge a that acts on a qualifying overflow (irq in
/// a+1) is followed by an MSI whose AWVALID first rises after it: in cycle a+1 when no MSI is in
/// flight at edge a, else two cycles after the in-flight one's response edge. Every MSI follows
/// such an edge after the previous MSI's issue. IRQ_ABT ends set iff an error response came
/// after the last IRQ_CTRLACK 0 -> 1 edge.
#[test]
fn random_backpressure_every_qualifying_overflow_gets_an_msi() {
    let (name, cfg) = irq_config();
    let p = Pmcg::new(&name, &cfg);
    let (base, seed) = seed(0xB9E55);
    eprintln!("{name}: random MSI backpressure, seed {seed} (reproduce with PMCG_SEED={base})");
    const TRAFFIC: u64 = 150_000;
    for_each_backend(&cfg, |d| {
        let probe = attach(&p, d, MsiResponder::random(seed, 10_000, 100));
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0B5E_55ED);
        let all = cfg.counter_bitmap();
        enable(&p, d, all, ADDR, 0xB0B0_0000);
        p.write_bits(d, RegId::CntenSet0, all);
        while d.cycle < TRAFFIC {
            match rng.gen_range(0..100) {
                0..=54 => {
                    let n = rng.gen_range(0..cfg.counters);
                    p.set_counter(d, n, p.max() - rng.gen_range(0..300));
                }
                55..=64 => {
                    p.write_bits(d, RegId::IntenSet0, rng.gen_range(0..=all));
                }
                65..=69 => {
                    p.write_bits(d, RegId::IntenClr0, rng.gen_range(0..=all));
                }
                70..=72 => {
                    p.write_bits(d, RegId::OvsClr0, all);
                }
                73..=74 => {
                    // Linux's perf disable/enable: IRQ_CTRL 1 -> 0 -> 1.
                    p.irqen(d, false);
                    d.idle(rng.gen_range(0..20));
                    p.irqen(d, true);
                }
                75..=84 => {
                    p.ack(d);
                    p.irq_abt(d);
                }
                _ => {
                    let max = if rng.gen_bool(0.2) { 5000 } else { 200 };
                    d.idle(rng.gen_range(1..=max));
                }
            }
        }
        p.stop(d);
        let limit = d.cycle + 80_000;
        loop {
            let o = probe.oracle.borrow();
            if !(o.busy || o.pending) || d.cycle >= limit {
                break;
            }
            drop(o);
            d.idle(64);
        }
        d.idle(16);
        let what = format!("seed {seed}, PMCG_SEED={base}");
        {
            let o = probe.oracle.borrow();
            assert!(
                !o.busy && !o.pending,
                "{what}: the MSIs did not drain (hang)"
            );
        }
        probe.check(&p, d, &what);
        let quals: Vec<u64> = probe.irq().iter().map(|c| c - 1).collect();
        let msis = d.msi.completed.clone();
        assert!(
            quals.len() >= 100,
            "{what}: only {} qualifying edges",
            quals.len()
        );
        assert!(msis.len() >= 8, "{what}: only {} MSIs", msis.len());
        let longest = msis
            .iter()
            .map(|m| m.completed - m.first_valid)
            .max()
            .unwrap();
        assert!(
            longest > 1000,
            "{what}: no long stall exercised ({longest} cycles)"
        );
        let starts: Vec<u64> = msis.iter().map(|m| m.first_valid).collect();
        assert_eq!(
            probe.msi_starts(),
            starts,
            "{what}: MSI starts seen on the pins"
        );
        for &q in &quals {
            let next = msis
                .iter()
                .find(|m| m.first_valid > q)
                .unwrap_or_else(|| panic!("{what}: no MSI after the qualifying edge {q}"));
            let in_flight = msis
                .iter()
                .rev()
                .find(|m| m.first_valid <= q)
                .filter(|m| m.completed >= q);
            let due = match in_flight {
                Some(m) => m.completed + 2,
                None => q + 1,
            };
            assert_eq!(
                next.first_valid, due,
                "{what}: the MSI after the qualifying edge {q} (in flight then: {in_flight:?})"
            );
        }
        let mut prev_issue = None;
        for m in &msis {
            let issue = m.first_valid - 1;
            assert!(
                quals
                    .iter()
                    .any(|&q| q <= issue && prev_issue.is_none_or(|pi| q > pi)),
                "{what}: the MSI {m:?} follows no new qualifying edge"
            );
            assert_eq!((m.addr, m.data, m.strb), (ADDR, 0xB0B0_0000, 0xF), "{what}");
            prev_issue = Some(issue);
        }
        // IRQ_ABT: an error response after the last IRQ_CTRLACK 0 -> 1 edge (which clears it).
        let last_rise = probe.oracle.borrow().ack_rises.last().copied().unwrap_or(0);
        let errors = msis
            .iter()
            .any(|m| m.resp != RESP_OKAY && m.completed > last_rise);
        assert_eq!(p.irq_abt(d), errors as u32, "{what}: IRQ_ABT after the run");
        eprintln!(
            "  backend {}: {} cycles, {} qualifying edges, {} MSIs, longest {} cycles",
            d.dut.name(),
            d.cycle,
            quals.len(),
            msis.len(),
            longest
        );
    });
}

/// Reset while an MSI waits for AWREADY, for WREADY, or for BVALID (delays of 1000 cycles):
/// PRESETn is held low for cycles r and r+1 (so the slave, reset with the PMCG, sees the
/// master's outputs of cycle r+1 during its own reset), the PMCG resets at edge r+1, and from
/// cycle r+2 on AWVALID, WVALID and BREADY are 0 (they were as before until r+1). The MSI is
/// abandoned (never completes), the IRQ registers and OVS are at their reset values, and a new
/// MSI works afterwards.
#[test]
fn reset_in_the_middle_of_an_msi() {
    let (name, cfg) = irq_config();
    let p = Pmcg::new(&name, &cfg);
    for_each_backend(&cfg, |d| {
        for (case, aw, w, b) in [
            ("AWVALID waiting", 1000, 0, 0),
            ("WVALID waiting", 0, 1000, 0),
            ("BREADY waiting", 0, 0, 1000),
        ] {
            let probe = attach(&p, d, MsiResponder::fixed(aw, w, b, RESP_OKAY));
            enable(&p, d, 1, ADDR, 0x4E5E_7000);
            let o = p.arm_overflow(d, 1, 3);
            idle_until(d, o + 20);
            let r = d.cycle;
            d.reset(2);
            idle_until(d, r + 30);
            let f = o + MSI_LATENCY;
            let (aw_c, w_c, b_c) = match case {
                "AWVALID waiting" => (span(f, r + 1), vec![f], vec![]),
                "WVALID waiting" => (vec![f], span(f, r + 1), vec![]),
                _ => (vec![f], vec![f], span(f + 1, r + 1)),
            };
            assert_eq!(probe.aw(), aw_c, "config `{name}` ({case}): AWVALID cycles");
            assert_eq!(probe.w(), w_c, "config `{name}` ({case}): WVALID cycles");
            assert_eq!(
                probe.bready(),
                b_c,
                "config `{name}` ({case}): BREADY cycles"
            );
            assert!(d.msi.completed.is_empty(), "the MSI was abandoned");
            for id in [
                RegId::IrqCtrl,
                RegId::IrqCtrlAck,
                RegId::IrqStatus,
                RegId::IrqCfg1,
                RegId::OvsSet0,
            ] {
                p.check(d, id, 0, &format!("{case}: reset value"));
            }
            assert_eq!(p.msi_addr(d), 0);
            // The PMCG works afterwards.
            (d.msi.aw_delay, d.msi.w_delay, d.msi.b_delay) = (0, 0, 0);
            enable(&p, d, 1, ADDR, 0x4E5E_7001);
            let o2 = p.arm_overflow(d, 1, 3);
            idle_until(d, o2 + 5);
            check_msis(
                &p,
                &d.msi.completed,
                &[msi_at(o2, 0)],
                (ADDR, 0x4E5E_7001, PROT_NS, RESP_OKAY),
                &format!("{case}: after the reset"),
            );
            assert_eq!(probe.irq(), vec![o + IRQ_LATENCY, o2 + IRQ_LATENCY]);
            probe.check(&p, d, case);
        }
    });
}

/// Thousands of IRQ_CTRL and CR toggles with traffic: counters count cycles and are written near
/// their maximum, INTEN changes, Guarded IRQ_CFG0/IRQ_CFG1 writes (ADDR sometimes 0), reads of
/// IRQ_CTRLACK, IRQ_STATUS, IRQ_CTRL and IRQ_CFG1, and a slow completer (AW/W delays up to 30
/// cycles, every write response 10-40 cycles, 10% errors). The oracle checks every cycle and
/// every read exactly (ACK consistent with IRQEN and the outstanding and pending MSI); every
/// qualifying overflow edge with MSI_ON is followed by an MSI issued after it at the exact
/// cycle, whatever IRQEN did meanwhile (some are issued with IRQEN = 0); no protocol violation;
/// at the end IRQEN = 0 and IRQ_CTRLACK falls within the slave's worst case (no hang).
#[test]
fn irq_ctrl_and_cr_churn_with_traffic() {
    let (name, cfg) = irq_config();
    let p = Pmcg::new(&name, &cfg);
    let (base, seed) = seed(0xC4_0C4);
    eprintln!("{name}: IRQ_CTRL/CR churn, seed {seed} (reproduce with PMCG_SEED={base})");
    for_each_backend(&cfg, |d| {
        // A slow completer: every write response 10-40 cycles after AW and W.
        let slave = MsiResponder::random(seed, 30, 100).with_slow_responses(10, 40, 100);
        let probe = attach(&p, d, slave);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xC0C0);
        let all = cfg.counter_bitmap();
        // A target below 4 GiB, so that a low-word write of 0 turns MSIs off (ADDR = 0).
        enable(&p, d, all, CHURN_ADDR, 0x0C0C_0000);
        p.write_bits(d, RegId::CntenSet0, all);
        let (en_toggles, cr_toggles) = irq_churn(&p, d, &mut rng, 6000, CHURN_ADDR as u32);
        let w = p.irqen(d, false);
        let mut fell = None;
        while d.cycle < w + 400 {
            let s = d.cycle;
            if p.ack(d) == 0 {
                fell = Some(s);
                break;
            }
        }
        let what = format!("seed {seed}, PMCG_SEED={base}");
        assert!(
            fell.is_some(),
            "{what}: IRQ_CTRLACK still 1 400 cycles after IRQEN = 0"
        );
        let done = d.msi.completed.len();
        d.idle(200);
        assert_eq!(
            d.msi.completed.len(),
            done,
            "{what}: no MSI after the 1 -> 0 update"
        );
        probe.check(&p, d, &what);
        let owed = assert_every_owed_msi_sent(&probe, &d.msi.completed, &what);
        let o = probe.oracle.borrow();
        assert!(en_toggles >= 1000 && cr_toggles >= 800, "{what}: toggles");
        assert!(
            owed >= 50 && o.issued_while_off >= 5,
            "{what}: {owed} owed MSIs, {} issued after IRQEN went 0",
            o.issued_while_off
        );
        assert!(
            d.msi.completed.len() >= 20,
            "{what}: {} MSIs",
            d.msi.completed.len()
        );
        assert!(
            probe.irq().len() >= 50,
            "{what}: {} pulses",
            probe.irq().len()
        );
        assert!(
            o.waiting_cycles > 0,
            "{what}: no IRQEN 1 -> 0 update ever waited"
        );
        assert!(
            o.guard_ignored > 0 && o.guard_taken > 0,
            "{what}: Guarded writes"
        );
        assert!(
            o.reads_checked >= 500,
            "{what}: {} reads checked",
            o.reads_checked
        );
        eprintln!(
            "  backend {}: {} cycles, {en_toggles} IRQEN and {cr_toggles} CR.E toggles, {} MSIs \
             ({} issued with IRQEN = 0), {} pulses, {} cycles waiting for ACK",
            d.dut.name(),
            d.cycle,
            d.msi.completed.len(),
            o.issued_while_off,
            probe.irq().len(),
            o.waiting_cycles
        );
    });
}

// ---------------------------------------------------------------------------------------------
// 4. Export, configurations without MSI
// ---------------------------------------------------------------------------------------------

/// OVF_EXPORT bit n is 1 in cycle o+1 for every overflow of counter n at edge o, whatever
/// INTEN, IRQEN and OVS: a lone counter, two at one edge, a counter whose OVS bit is still set,
/// and the last counter with INTEN and IRQEN set (which also pulses irq, in cycle o+2). Counter writes and
/// OVSSET0/OVSCLR0 writes export nothing.
#[test]
fn overflow_export_pulses_at_every_overflow() {
    let mut cfgs = msi_configs();
    cfgs.push(named_config("odd"));
    for (name, cfg) in cfgs {
        let p = Pmcg::new(&name, &cfg);
        let last = 1u64 << (cfg.counters - 1);
        for_each_backend(&cfg, |d| {
            let probe = attach(&p, d, MsiResponder::default());
            p.start(d);
            let o0 = p.arm_overflow(d, 0b1, 4);
            let o12 = p.arm_overflow(d, 0b110, 6);
            let o0b = p.arm_overflow(d, 0b1, 3);
            idle_until(d, o0b + 3);
            assert_eq!(p.ovs(d), 0b111, "config `{name}`: OVS");
            p.write_bits(d, RegId::IntenSet0, last);
            p.irqen(d, true);
            let ol = p.arm_overflow(d, last, 2);
            idle_until(d, ol + 3);
            // Software writes to stopped counters and to OVS: no export.
            p.write_bits(d, RegId::CntenClr0, cfg.counter_bitmap() & 0xFFFF_FFFF);
            p.set_counter(d, 3, p.max());
            p.write_bits(d, RegId::OvsSet0, cfg.counter_bitmap() & 0xFFFF_FFFF);
            p.write_bits(d, RegId::OvsClr0, cfg.counter_bitmap() & 0xFFFF_FFFF);
            p.set_counter(d, 3, 0);
            d.idle(5);
            assert_eq!(
                probe.export(),
                vec![
                    (o0 + 1, 0b1),
                    (o12 + 1, 0b110),
                    (o0b + 1, 0b1),
                    (ol + 1, last)
                ],
                "config `{name}`: (cycle, OVF_EXPORT)"
            );
            assert_eq!(
                probe.irq(),
                vec![ol + IRQ_LATENCY],
                "config `{name}`: irq only with INTEN+IRQEN"
            );
            probe.check(&p, d, "export");
        });
    }
}

/// Without MSI (`odd`): IRQ_CTRLACK follows IRQEN at once (BUSY is always 0), IRQ_CFG0/1/2 and
/// IRQ_STATUS are RAZ/WI, a qualifying overflow pulses irq and the AXI master never moves.
#[test]
fn without_msi_ack_follows_irqen_and_the_msi_registers_are_res0() {
    let (name, cfg) = named_config("odd");
    assert!(!cfg.msi);
    let p = Pmcg::new(&name, &cfg);
    let absent = [
        offset::IRQ_CFG0,
        offset::IRQ_CFG0 + 4,
        offset::IRQ_CFG1,
        offset::IRQ_CFG2,
        offset::IRQ_STATUS,
    ];
    for_each_backend(&cfg, |d| {
        let probe = attach(&p, d, MsiResponder::default());
        for a in absent {
            d.apb_write(a, 0xFFFF_FFFF, S);
            assert_eq!(
                d.apb_read(a, S),
                0,
                "config `{name}`: {a:#x} is RES0 without MSI"
            );
        }
        p.start(d);
        p.write_bits(d, RegId::IntenSet0, 1);
        let mut pulses = Vec::new();
        for _ in 0..3 {
            p.irqen(d, true);
            assert_eq!(p.ack(d), 1);
            let o = p.arm_overflow(d, 1, 3);
            pulses.push(o + IRQ_LATENCY);
            idle_until(d, o + 3);
            p.irqen(d, false);
            assert_eq!(p.ack(d), 0, "config `{name}`: no MSI, ACK follows at once");
        }
        assert_eq!(probe.irq(), pulses);
        assert!(probe.aw().is_empty() && probe.w().is_empty() && probe.bready().is_empty());
        assert!(d.msi.completed.is_empty());
        probe.check(&p, d, "no MSI");
    });
}

// ---------------------------------------------------------------------------------------------
// 5. Scripts and the oracle itself
// ---------------------------------------------------------------------------------------------

const MSI_SCRIPTS: [&str; 3] = ["msi-overflow.pmcg", "msi-abort.pmcg", "msi-irqen-wait.pmcg"];

/// tests/scripts/msi-*.pmcg through the CLI on every backend (each also in lock-step with the
/// reference model, every output every cycle).
#[test]
fn msi_scripts_pass_on_every_backend() {
    common::scripts_pass_on_every_backend(&MSI_SCRIPTS);
}

/// The oracle on a hand-written trace (no backend): reset in cycle 0 (reset edge 1), IRQ_CFG0 =
/// 0x1000 at edge 3, IRQ_CFG1 = 0x55 at edge 5, IRQEN = 1 at edge 7, a qualifying overflow at
/// edge 9 (irq in cycle 11, the MSI issued at edge 10), AWVALID and WVALID in cycle 11 accepted
/// at once, BREADY in cycle 12 with BVALID (response at edge 12), then a read of IRQ_CTRLACK set
/// up in cycle 13. The same trace with AWVALID one cycle late, or a wrong ACK read, is reported;
/// so is the pulse when IRQEN was set at the overflow's edge (edge 9).
#[test]
fn oracle_follows_a_hand_written_trace() {
    let (name, cfg) = irq_config();
    let p = Pmcg::new(&name, &cfg);
    let run = |late: bool, ack_read: u32, irqen_late: bool| {
        let mut o = Oracle::new(&p);
        let irqen_edge = if irqen_late { 9 } else { 7 };
        for c in 0..18u64 {
            let mut i = PinInputs::idle(2);
            let mut out = PinOutputs {
                pready: true,
                ..Default::default()
            };
            let write = |i: &mut PinInputs, a: u32, v: u32, access: bool| {
                (i.psel, i.pwrite, i.penable) = (true, true, access);
                (i.paddr, i.pwdata, i.pstrb) = (a, v, 0xF);
            };
            match c {
                0 => i.presetn = false,
                2 | 3 => write(&mut i, offset::IRQ_CFG0, 0x1000, c == 3),
                4 | 5 => write(&mut i, offset::IRQ_CFG1, 0x55, c == 5),
                c if c + 1 == irqen_edge || c == irqen_edge => {
                    write(&mut i, offset::IRQ_CTRL, 1, c == irqen_edge)
                }
                13 => (i.psel, i.paddr) = (true, offset::IRQ_CTRLACK),
                // The read's two access cycles: the wait state, then PRDATA.
                14 | 15 => (i.psel, i.penable, i.paddr) = (true, true, offset::IRQ_CTRLACK),
                _ => {}
            }
            (i.awready, i.wready) = (true, true);
            if c == 11 {
                out.irq = true;
            }
            if c == if late { 12 } else { 11 } {
                (out.awvalid, out.wvalid) = (true, true);
                (out.awaddr, out.awprot, out.wdata, out.wstrb) = (0x1000, PROT_NS, 0x55, 0xF);
            }
            if c == if late { 13 } else { 12 } {
                (out.bready, i.bvalid) = (true, true);
            }
            if c == 14 {
                out.pready = false;
            }
            if c == 15 {
                out.prdata = ack_read;
            }
            o.observe(c, &i, &out);
        }
        o
    };
    let o = run(false, 1, false);
    assert!(o.errors.is_empty(), "{:?}", o.errors);
    assert_eq!(o.issues, vec![10]);
    assert_eq!(o.owed, vec![10]);
    assert_eq!(o.reads_checked, 1);
    assert!(!o.busy && o.ack && o.en);
    let o = run(true, 1, false);
    assert!(
        o.errors
            .iter()
            .any(|e| e.starts_with("cycle 11: AWVALID = false")),
        "{:?}",
        o.errors
    );
    let o = run(false, 0, false);
    assert_eq!(
        o.errors,
        vec!["cycle 15: read of 0xe54 (set up in cycle 13) returned 0x0, the contract gives 0x1"]
    );
    // IRQEN set at edge 9: 1 in cycle 10, the cycle of the acting edge, but 0 in cycle 9, the
    // overflow's cycle; the pulse in cycle 11 breaks the contract.
    let o = run(false, 1, true);
    assert!(
        o.errors
            .iter()
            .any(|e| e == "cycle 11: irq pulse, but IRQ_CTRL.IRQEN was 0 in cycle 9"),
        "{:?}",
        o.errors
    );
}

/// MPAM for MSIs (CFGR.MPAM, 10.5.2.25; docs/behaviour.md "MSI write master"): GMPAM's
/// PO_PARTID and PO_PMG keep the bits of the larger MPAMIDR / S_MPAMIDR widths and Update reads
/// 0; an MSI carries them on MSI_PARTID/MSI_PMG with its PARTID space on MSI_MPAM_NS (its
/// AWPROT[1]), all taken at the issue and 0 outside AWVALID; a GMPAM write applies to the next MSI.
#[test]
fn msi_mpam_sidebands_follow_gmpam_and_the_msi_target() {
    let (name, mut cfg) = irq_config();
    let name = format!("{name} msi_mpam");
    cfg.msi_mpam = true;
    cfg.validate().unwrap();
    let p = Pmcg::new(&name, &cfg);
    let partid = p.map.mask(field::GMPAM_PO_PARTID);
    let pmg = p.map.mask(field::GMPAM_PO_PMG);
    // The larger of the two limits sets each width (10.5.2.25).
    let width = |a: u64, b: u64| 64 - a.max(b).leading_zeros();
    let pmg_lsb = pmg.trailing_zeros();
    assert_eq!(
        partid,
        (1 << width(cfg.partid_max as u64, cfg.s_partid_max as u64)) - 1
    );
    assert_eq!(
        pmg >> pmg_lsb,
        (1 << width(cfg.pmg_max as u64, cfg.s_pmg_max as u64)) - 1
    );
    let cfgr_mpam = p.map.mask(field::CFGR_MPAM) as u32;
    for_each_backend(&cfg, |d| {
        let probe = attach(&p, d, MsiResponder::fixed(1, 0, 1, RESP_OKAY));
        assert_eq!(p.read(d, RegId::Cfgr) & cfgr_mpam, cfgr_mpam, "CFGR.MPAM");
        enable(&p, d, 1, ADDR, 0x5151_5151);
        // Update (bit 31) set as software must; it reads back 0, the bits above the widths RES0.
        p.write(d, RegId::Gmpam, 0xFFFF_FFFF);
        assert_eq!(
            p.read(d, RegId::Gmpam) as u64,
            partid | pmg,
            "config `{name}`: GMPAM fields, Update reads 0"
        );
        let values = [(0x5A_u64, 0x3_u64), (0x21, 0x6)];
        for (i, &(part, group)) in values.iter().enumerate() {
            let g = (part & partid) | ((group << pmg_lsb) & pmg) | 1 << 31;
            p.write(d, RegId::Gmpam, g as u32);
            // The MSI target: Non-secure for the first, Secure for the second (SCR.NSMSI and
            // NSRA both 0).
            let secure_target = i == 1;
            if secure_target {
                p.write(d, RegId::Scr, 0);
            }
            probe.clear_log();
            let o = p.arm_overflow(d, 1, 3);
            idle_until(d, o + 8);
            let outs = probe.valid_outs();
            assert!(
                outs.iter().any(|(_, out)| out.awvalid),
                "config `{name}`: an MSI for overflow {i}"
            );
            for (cycle, out) in outs {
                let expect = if out.awvalid {
                    (
                        (part & partid) as u16,
                        ((group << pmg_lsb & pmg) >> pmg_lsb) as u8,
                        !secure_target,
                    )
                } else {
                    (0, 0, false)
                };
                assert_eq!(
                    (out.msi_partid, out.msi_pmg, out.msi_mpam_ns),
                    expect,
                    "config `{name}`: MPAM sidebands in cycle {cycle} (MSI {i})"
                );
                if out.awvalid {
                    assert_eq!(out.awprot >> 1 & 1 == 1, !secure_target, "AWPROT[1]");
                }
            }
            p.irqen(d, false);
            p.irqen(d, true);
        }
        assert_eq!(d.msi.completed.len(), 2, "config `{name}`: two MSIs");
        assert!(d.msi.violations.is_empty(), "{:?}", d.msi.violations);
    });
}
