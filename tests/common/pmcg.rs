//! Register-level helpers and a pin recorder shared by tests/interrupts.rs and tests/capture.rs.
//!
//! ```text
//!   Pmcg { cfg, map }  ── write/read/... ──► Driver (APB)      every helper that writes returns
//!                                                               the edge the write acts at
//!   Log (observer)     ◄── every cycle: irq, OVF_EXPORT, CAPT_ACK, AXI master outputs, PRESETn
//! ```
//! Cycle arithmetic (docs/behaviour.md; "edge t" ends cycle t, `d.cycle` is the next cycle to
//! be stepped): a write takes 2 cycles and acts at edge `d.cycle - 1` after it returns; a read
//! set up in cycle s (`d.cycle` before the call) takes 3 cycles (setup, the wait state in which
//! it is performed, PRDATA in s+2; `d.cycle` is s+3 after it, s+6 after a split 64-bit read) and
//! returns the state after edge s; a stopped counter at `max - x` enabled by a CNTENSET0 write
//! at edge e counts cycles at e+1, e+2, ... and overflows at edge e+x+1.

use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{RegId, RegisterMap, COUNTER_HOLD_CYCLES};
use pmcg_sim::pins::{Access, Driver, Dut, LaneIn, PinInputs, PinOutputs, SecState};
use std::cell::RefCell;
use std::rc::Rc;

pub type D = Driver<Box<dyn Dut>>;

/// Every access of these tests is Secure unless a test says otherwise (always permitted).
pub const S: Access = Access::Secure;

/// The configuration of the interrupt, MSI and capture tests: 4 counters of 32 bits (overflows
/// are one write away), two lanes (a counter counting a lane event on both lanes adds 2 per
/// edge, so an overflow can leave a nonzero value), Secure state, MSI, capture, page 1 at
/// 0x10000 and a 40-bit physical address (IRQ_CFG0.ADDR bits [39:2]). Cheap for Verilator.
pub fn irq_config() -> (String, PmcgConfig) {
    let cfg = PmcgConfig::parse_kv([
        "counters=4",
        "counter_bits=32",
        "sid_bits=8",
        "lanes=2",
        "pa_bits=40",
    ])
    .unwrap();
    ("irq4x32".to_string(), cfg)
}

/// A configuration with its register map, and register-level helpers on a driver.
pub struct Pmcg {
    pub name: String,
    pub cfg: PmcgConfig,
    pub map: RegisterMap,
}

impl Pmcg {
    pub fn new(name: &str, cfg: &PmcgConfig) -> Pmcg {
        Pmcg {
            name: name.to_string(),
            cfg: cfg.clone(),
            map: RegisterMap::new(cfg),
        }
    }

    pub fn addr(&self, id: RegId) -> u32 {
        self.map.reg(id).addr
    }

    /// Mask of a field; panics if this configuration does not implement it.
    pub fn field(&self, id: RegId, name: &str) -> u32 {
        let m = self.map.field_mask(id, name);
        assert_ne!(m, 0, "{}: {id:?}.{name} not implemented", self.name);
        m as u32
    }

    /// All-ones value of a counter.
    pub fn max(&self) -> u64 {
        self.cfg.counter_mask()
    }

    /// A full-word Secure write of the low word of `id`; returns the edge it acts at.
    pub fn write(&self, d: &mut D, id: RegId, v: u32) -> u64 {
        d.apb_write(self.addr(id), v, S);
        d.cycle - 1
    }

    /// A full-word Secure write of the high word of the 64-bit `id`; returns the edge.
    pub fn write_hi(&self, d: &mut D, id: RegId, v: u32) -> u64 {
        d.apb_write(self.addr(id) + 4, v, S);
        d.cycle - 1
    }

    /// A 32-bit Secure read of the low word of `id`.
    pub fn read(&self, d: &mut D, id: RegId) -> u32 {
        d.apb_read(self.addr(id), S)
    }

    /// A 32-bit Secure read of the high word of the 64-bit `id`.
    pub fn read_hi(&self, d: &mut D, id: RegId) -> u32 {
        d.apb_read(self.addr(id) + 4, S)
    }

    /// A register's value: a split low-then-high read for 64-bit registers, one read otherwise.
    pub fn read_reg(&self, d: &mut D, id: RegId) -> u64 {
        if self.map.reg(id).bits == 64 {
            d.apb_read64(self.addr(id), S)
        } else {
            self.read(d, id) as u64
        }
    }

    /// A W1S/W1C bitmap write; the bits must sit in one word so the edge is exact. Returns it.
    pub fn write_bits(&self, d: &mut D, id: RegId, bits: u64) -> u64 {
        assert!(
            bits >> 32 == 0 || bits as u32 == 0,
            "bits {bits:#x} span both words"
        );
        if bits >> 32 != 0 {
            self.write_hi(d, id, (bits >> 32) as u32)
        } else {
            self.write(d, id, bits as u32)
        }
    }

    /// The OVS bitmap.
    pub fn ovs(&self, d: &mut D) -> u64 {
        d.apb_read64(self.addr(RegId::OvsSet0), S)
    }

    /// CR.E = 1; returns the edge.
    pub fn start(&self, d: &mut D) -> u64 {
        self.write(d, RegId::Cr, self.field(RegId::Cr, "E"))
    }

    /// CR.E = 0; returns the edge.
    pub fn stop(&self, d: &mut D) -> u64 {
        self.write(d, RegId::Cr, 0)
    }

    /// IRQ_CTRL.IRQEN; returns the edge.
    pub fn irqen(&self, d: &mut D, on: bool) -> u64 {
        let v = if on {
            self.field(RegId::IrqCtrl, "IRQEN")
        } else {
            0
        };
        self.write(d, RegId::IrqCtrl, v)
    }

    /// IRQ_CTRLACK.IRQEN as 0 or 1.
    pub fn ack(&self, d: &mut D) -> u32 {
        let m = self.field(RegId::IrqCtrlAck, "IRQEN");
        let v = self.read(d, RegId::IrqCtrlAck);
        assert_eq!(
            v & !m,
            0,
            "{}: IRQ_CTRLACK RES0 bits read {v:#x}",
            self.name
        );
        (v & m != 0) as u32
    }

    /// IRQ_STATUS.IRQ_ABT as 0 or 1.
    pub fn irq_abt(&self, d: &mut D) -> u32 {
        let m = self.field(RegId::IrqStatus, "IRQ_ABT");
        let v = self.read(d, RegId::IrqStatus);
        assert_eq!(v & !m, 0, "{}: IRQ_STATUS RES0 bits read {v:#x}", self.name);
        (v & m != 0) as u32
    }

    /// An EVTYPERn value: `event`, and OVFCAP when `ovfcap` (the configuration must have capture).
    pub fn evtyper(&self, n: u32, event: u16, ovfcap: bool) -> u32 {
        let reg = self.map.reg(RegId::Evtyper(n));
        let ev = reg.field("EVENT").expect("EVTYPER.EVENT");
        let mut v = ((event as u64) << ev.lsb) & ev.mask();
        if ovfcap {
            v |= self.field(RegId::Evtyper(n), "OVFCAP") as u64;
        }
        v as u32
    }

    /// EVTYPERn = `event` with OVFCAP as given (filter fields 0); returns the edge.
    pub fn set_event(&self, d: &mut D, n: u32, event: u16, ovfcap: bool) -> u64 {
        self.write(d, RegId::Evtyper(n), self.evtyper(n, event, ovfcap))
    }

    /// Writes EVCNTRn (low then high word for wide counters); returns the last write's edge.
    pub fn set_counter(&self, d: &mut D, n: u32, v: u64) -> u64 {
        let a = self.addr(RegId::Evcntr(n));
        if self.cfg.wide_counters() {
            d.apb_write64(a, v, S);
        } else {
            d.apb_write(a, v as u32, S);
        }
        d.cycle - 1
    }

    /// EVCNTRn (split low-then-high for wide counters).
    pub fn counter(&self, d: &mut D, n: u32) -> u64 {
        self.read_reg(d, RegId::Evcntr(n))
    }

    /// SVRn (split low-then-high for wide counters).
    pub fn svr(&self, d: &mut D, n: u32) -> u64 {
        self.read_reg(d, RegId::Svr(n))
    }

    /// Every SVR.
    pub fn svrs(&self, d: &mut D) -> Vec<u64> {
        (0..self.cfg.counters).map(|n| self.svr(d, n)).collect()
    }

    /// Stops the counters of `mask` (CNTENCLR0), writes each to `value`, then enables them all
    /// with one CNTENSET0 write; returns its edge e (they count lane events matched from cycle
    /// e+1 on, and cycles from edge e + CYCLE_ENABLE_DELAY on, when CR.E = 1).
    pub fn arm(&self, d: &mut D, mask: u64, value: u64) -> u64 {
        self.write_bits(d, RegId::CntenClr0, mask);
        for n in bits_of(mask) {
            self.set_counter(d, n, value);
        }
        self.write_bits(d, RegId::CntenSet0, mask)
    }

    /// [`Pmcg::arm`] with `max - x`: returns the overflow edge e + x + CYCLE_ENABLE_DELAY when
    /// the counters count one per edge (EVTYPER.EVENT = 0, cycles) and CR.E = 1.
    pub fn arm_overflow(&self, d: &mut D, mask: u64, x: u64) -> u64 {
        self.arm(d, mask, self.max() - x) + x + super::CYCLE_ENABLE_DELAY
    }

    /// [`Pmcg::arm_overflow`] timed so that the overflow edge is `o` (which must leave room for
    /// the writes: `arm` takes 2 cycles per write, and each counter write its held cycles).
    pub fn arm_overflow_at(&self, d: &mut D, mask: u64, o: u64) -> u64 {
        let counter_writes =
            bits_of(mask).len() as u64 * if self.cfg.wide_counters() { 2 } else { 1 };
        let e =
            d.cycle + 2 * (2 + counter_writes) + COUNTER_HOLD_CYCLES as u64 * counter_writes - 1;
        assert!(
            o >= e + super::CYCLE_ENABLE_DELAY,
            "overflow edge {o} too early (CNTENSET0 at edge {e})"
        );
        let got = self.arm_overflow(d, mask, o - e - super::CYCLE_ENABLE_DELAY);
        assert_eq!(got, o, "arm_overflow_at: edge arithmetic");
        got
    }

    /// The lane event-vector bit of a supported lane event.
    pub fn lane_bit(&self, event: u16) -> u32 {
        1 << self
            .cfg
            .lane_bit_of(event)
            .unwrap_or_else(|| panic!("{}: event {event:#x} is not a lane event", self.name))
    }

    /// The MSI target, payload and attributes (IRQ_CFG0 low and high word, IRQ_CFG1, IRQ_CFG2).
    /// Guarded: only effective while IRQEN and its acknowledge are 0.
    pub fn set_msi(&self, d: &mut D, addr: u64, data: u32, cfg2: u32) {
        self.write(d, RegId::IrqCfg0, addr as u32);
        self.write_hi(d, RegId::IrqCfg0, (addr >> 32) as u32);
        self.write(d, RegId::IrqCfg1, data);
        self.write(d, RegId::IrqCfg2, cfg2);
    }

    /// IRQ_CFG0.ADDR as read (split low-then-high).
    pub fn msi_addr(&self, d: &mut D) -> u64 {
        d.apb_read64(self.addr(RegId::IrqCfg0), S)
    }

    /// The ADDR field mask: bits [pa_bits-1:2].
    pub fn addr_mask(&self) -> u64 {
        self.map.mask(field::IRQ_CFG0_ADDR)
    }

    /// Asserts a register reads `expect` (one word), naming the configuration and context.
    pub fn check(&self, d: &mut D, id: RegId, expect: u64, what: &str) {
        let got = self.read_reg(d, id);
        assert_eq!(
            got, expect,
            "config `{}`: {id:?} ({what}): expected {expect:#x}, got {got:#x}",
            self.name
        );
    }
}

/// Indices of the set bits of a bitmap.
pub fn bits_of(mask: u64) -> Vec<u32> {
    (0..64).filter(|n| mask >> n & 1 == 1).collect()
}

/// Idles until `d.cycle == cycle` (the next cycle stepped is `cycle`).
pub fn idle_until(d: &mut D, cycle: u64) {
    assert!(
        d.cycle <= cycle,
        "cycle {cycle} already passed (now {})",
        d.cycle
    );
    d.idle(cycle - d.cycle);
}

/// Every lane valid with `events` from StreamID 0, Non-secure (what the reset filter counts).
pub fn all_lanes(d: &D, events: u32) -> Vec<LaneIn> {
    (0..d.lanes())
        .map(|_| LaneIn {
            valid: true,
            events,
            sid: 0,
            ss: SecState::NonSecure,
            ..LaneIn::default()
        })
        .collect()
}

/// What the recorder saw of the pins, cycle by cycle (only cycles where something is set).
#[derive(Default, Debug)]
pub struct Log {
    /// Cycles with irq = 1.
    pub irq: Vec<u64>,
    /// (cycle, OVF_EXPORT) for cycles with a nonzero export.
    pub export: Vec<(u64, u64)>,
    /// Cycles with CAPT_ACK = 1.
    pub capt_ack: Vec<u64>,
    /// Cycles with AWVALID, WVALID, BREADY = 1.
    pub aw: Vec<u64>,
    pub w: Vec<u64>,
    pub bready: Vec<u64>,
    /// (cycle, outputs) for cycles with AWVALID or WVALID.
    pub valid_outs: Vec<(u64, PinOutputs)>,
    /// First cycle of each MSI: AWVALID or WVALID after a cycle with neither and no BREADY.
    pub msi_starts: Vec<u64>,
    /// Cycles with PRESETn = 0.
    pub resets: Vec<u64>,
    /// AWVALID/WVALID/BREADY in the previous cycle.
    busy_prev: bool,
}

impl Log {
    pub fn observe(&mut self, c: u64, inp: &PinInputs, out: &PinOutputs) {
        if out.irq {
            self.irq.push(c);
        }
        if out.ovf_export != 0 {
            self.export.push((c, out.ovf_export));
        }
        if out.capt_ack {
            self.capt_ack.push(c);
        }
        if out.awvalid {
            self.aw.push(c);
        }
        if out.wvalid {
            self.w.push(c);
        }
        if out.bready {
            self.bready.push(c);
        }
        if out.awvalid || out.wvalid {
            self.valid_outs.push((c, *out));
            if !self.busy_prev {
                self.msi_starts.push(c);
            }
        }
        if !inp.presetn {
            self.resets.push(c);
        }
        self.busy_prev = out.awvalid || out.wvalid || out.bready;
    }

    /// Clears everything recorded (the previous-cycle state is kept).
    pub fn clear(&mut self) {
        let busy_prev = self.busy_prev;
        *self = Log {
            busy_prev,
            ..Log::default()
        };
    }

    /// The recorded cycles of `list` within `from..to`.
    pub fn within(list: &[u64], from: u64, to: u64) -> Vec<u64> {
        list.iter()
            .copied()
            .filter(|c| (from..to).contains(c))
            .collect()
    }
}

/// Records the pins from now on (replaces any observer).
pub fn record(d: &mut D) -> Rc<RefCell<Log>> {
    let log = Rc::new(RefCell::new(Log::default()));
    let l = log.clone();
    d.observer = Some(Box::new(move |c, inp, out| {
        l.borrow_mut().observe(c, inp, out)
    }));
    log
}

/// The inclusive range `a..=b` as a list of cycles.
pub fn span(a: u64, b: u64) -> Vec<u64> {
    (a..=b).collect()
}

/// The IRQ_CTRL/CR churn of tests/interrupts.rs (also run in lock-step against a planted fault
/// by tests/planted_faults.rs): `steps` random actions among IRQ_CTRL and CR.E toggles (80% of
/// such writes flip the value), counter writes near the top (all counters count cycles once
/// enabled), INTEN changes, Guarded IRQ_CFG1 and IRQ_CFG0 writes (ADDR low word `addr_lo` or 0)
/// and reads of the IRQ registers, and idle gaps. Starts from IRQEN = 1, CR.E = 1. Returns the
/// numbers of IRQEN and CR.E flips.
pub fn irq_churn(
    p: &Pmcg,
    d: &mut D,
    rng: &mut rand_chacha::ChaCha8Rng,
    steps: u32,
    addr_lo: u32,
) -> (u32, u32) {
    use rand::Rng;
    let all = p.cfg.counter_bitmap();
    let (mut en, mut cr) = (true, true);
    let (mut en_toggles, mut cr_toggles) = (0u32, 0u32);
    for _ in 0..steps {
        match rng.gen_range(0..100) {
            0..=24 => {
                let v = if rng.gen_bool(0.8) { !en } else { en };
                en_toggles += (v != en) as u32;
                en = v;
                p.irqen(d, v);
            }
            25..=44 => {
                let v = if rng.gen_bool(0.8) { !cr } else { cr };
                cr_toggles += (v != cr) as u32;
                cr = v;
                if v {
                    p.start(d);
                } else {
                    p.stop(d);
                }
            }
            45..=64 => {
                let n = rng.gen_range(0..p.cfg.counters);
                p.set_counter(d, n, p.max() - rng.gen_range(0..12));
            }
            65..=69 => {
                let id = if rng.gen_bool(0.5) {
                    RegId::IntenSet0
                } else {
                    RegId::IntenClr0
                };
                p.write_bits(d, id, rng.gen_range(0..=all));
            }
            70..=73 => {
                p.write(d, RegId::IrqCfg1, rng.gen());
            }
            74..=75 => {
                let lo = if rng.gen_bool(0.8) { addr_lo } else { 0 };
                p.write(d, RegId::IrqCfg0, lo);
            }
            76..=89 => {
                let id = [
                    RegId::IrqCtrlAck,
                    RegId::IrqStatus,
                    RegId::IrqCtrl,
                    RegId::IrqCfg1,
                ][rng.gen_range(0..4)];
                p.read(d, id);
            }
            _ => d.idle(rng.gen_range(1..=40)),
        }
    }
    (en_toggles, cr_toggles)
}
