//! Directed tests of counting, overflow and the wired interrupt, on every backend (reference
//! model, native RustHDL simulation, emitted Verilog under Verilator).
//!
//! ```text
//!   Pmcg (config + register map) ──► register helpers that return the edge a write acts at
//!        │                            and the edge a read samples after
//!        ▼
//!   for_each_backend(cfg, |d| ...)  ──►  exact expected values from docs/behaviour.md
//! ```
//!
//! Cycle arithmetic used throughout (docs/behaviour.md; "edge t" ends cycle t, `d.cycle` is the
//! index of the next cycle to be stepped):
//! - a write's access cycle is the last cycle it steps: it acts at edge `d.cycle - 1` after the
//!   call returns; CR, CNTEN and EVTYPER written at edge t are used from edge t+1 on, except
//!   that cycle counting follows CR and CNTEN from edge t + 2 ([`CYCLE_ENABLE_DELAY`]: a cycle
//!   counter counts at edge t when it was enabled in cycle t-1);
//! - a read whose setup cycle is s returns, in its access cycle s+1, the state after edge s
//!   (`d.cycle` before the call); the read's own cycles still count;
//! - a counter enabled by a write at edge `on` and disabled by a write at edge `off` counts
//!   cycles at edges on+2 ..= off+1: `off - on` cycles;
//! - lane inputs presented in cycle e count at edge e+2 ([`COUNT_DELAY`]): registered at edge e,
//!   matched into the counter's match register at edge e+1 under the enables, event and filter
//!   of cycle e+1;
//! - a counter written at edge t does not count at edge t (except the paired high write of a split
//!   64-bit write, which counts: docs/behaviour.md "Split 64-bit counter writes");
//! - a stopped counter at `max - x` enabled by a CNTENSET0 write at edge e counts cycles at
//!   e+2, e+3, ...: it holds `max` after edge e+x+1 and overflows at edge e+x+2;
//! - an overflow at edge o with INTEN and IRQEN set drives `irq` high in cycle o+2 only.
//!
//! Every offset and field position comes from the register map; every expected value is derived
//! from the contract above and the stimulus the test drives, never from a backend's output.

mod common;

use common::{
    configs, for_each_backend, named_config, wide_config, COUNT_DELAY, CYCLE_ENABLE_DELAY,
    IRQ_LATENCY,
};
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{RegId, RegisterMap, COUNTER_HOLD_CYCLES};
use pmcg_sim::pins::{Access, Driver, Dut, LaneIn, PinInputs, SecState};
use std::cell::RefCell;
use std::rc::Rc;

type D = Driver<Box<dyn Dut>>;

/// Every access in these tests is Secure (always permitted, with or without Secure state).
const S: Access = Access::Secure;

// ---------------------------------------------------------------------------------------------
// Configurations
// ---------------------------------------------------------------------------------------------

/// The three shared configurations.
fn shared_all() -> Vec<(String, PmcgConfig)> {
    configs()
        .into_iter()
        .map(|(n, c)| (n.to_string(), c))
        .collect()
}

/// One configuration per architected counter width: 32 (small), 36 (odd), 40, 44, 48, 64
/// (default).
fn width_configs() -> Vec<(String, PmcgConfig)> {
    let v = vec![
        named_config("small"),
        named_config("odd"),
        wide_config("w40x8"),
        wide_config("w44x4"),
        wide_config("w48x2"),
        named_config("default"),
    ];
    let widths: Vec<u32> = v.iter().map(|(_, c)| c.counter_bits).collect();
    assert_eq!(widths, [32, 36, 40, 44, 48, 64], "one config per width");
    v
}

// ---------------------------------------------------------------------------------------------
// Register helpers
// ---------------------------------------------------------------------------------------------

/// A configuration with its register map, and register-level helpers on a driver.
struct Pmcg {
    name: String,
    cfg: PmcgConfig,
    map: RegisterMap,
}

impl Pmcg {
    fn new(name: &str, cfg: &PmcgConfig) -> Pmcg {
        Pmcg {
            name: name.to_string(),
            cfg: cfg.clone(),
            map: RegisterMap::new(cfg),
        }
    }

    fn addr(&self, id: RegId) -> u32 {
        self.map.reg(id).addr
    }

    /// Mask of a field; panics if this configuration does not implement it.
    fn field(&self, id: RegId, name: &str) -> u32 {
        let m = self.map.field_mask(id, name);
        assert_ne!(m, 0, "{}: {id:?}.{name} not implemented", self.name);
        m as u32
    }

    /// All-ones value of a counter.
    fn max(&self) -> u64 {
        self.cfg.counter_mask()
    }

    fn lanes(&self) -> u64 {
        self.cfg.lanes as u64
    }

    /// The lane event-vector bit of a supported lane event.
    fn lane_bit(&self, event: u16) -> u32 {
        1 << self
            .cfg
            .lane_bit_of(event)
            .unwrap_or_else(|| panic!("{}: event {event:#x} is not a lane event", self.name))
    }

    /// A full-word write of the low word of `id`; returns the edge it acts at.
    fn write(&self, d: &mut D, id: RegId, v: u32) -> u64 {
        d.apb_write(self.addr(id), v, S);
        d.cycle - 1
    }

    /// A 32-bit read of the low word of `id`.
    fn read(&self, d: &mut D, id: RegId) -> u32 {
        d.apb_read(self.addr(id), S)
    }

    /// A W1S/W1C write of a 64-bit bitmap: one word write per word with bits set (the low word
    /// when `bits` is 0). Returns the edge of the last write.
    fn write_bits(&self, d: &mut D, id: RegId, bits: u64) -> u64 {
        let a = self.addr(id);
        if bits as u32 != 0 || bits == 0 {
            d.apb_write(a, bits as u32, S);
        }
        if bits >> 32 != 0 {
            d.apb_write(a + 4, (bits >> 32) as u32, S);
        }
        d.cycle - 1
    }

    /// A single-write W1S/W1C bitmap update (the bits must sit in one word, so the write's edge
    /// is exact); returns its edge.
    fn write_bits_once(&self, d: &mut D, id: RegId, bits: u64) -> u64 {
        assert!(
            bits >> 32 == 0 || bits as u32 == 0,
            "bits {bits:#x} span both words"
        );
        self.write_bits(d, id, bits)
    }

    /// A 64-bit bitmap (CNTEN, INTEN, OVS views), low word then high word.
    fn read_bits(&self, d: &mut D, id: RegId) -> u64 {
        d.apb_read64(self.addr(id), S)
    }

    fn ovs(&self, d: &mut D) -> u64 {
        self.read_bits(d, RegId::OvsSet0)
    }

    /// CR.E = 1; returns the edge (counting from the next edge on).
    fn start(&self, d: &mut D) -> u64 {
        self.write(d, RegId::Cr, self.field(RegId::Cr, "E"))
    }

    /// CR.E = 0; returns the edge (the last edge that counts).
    fn stop(&self, d: &mut D) -> u64 {
        self.write(d, RegId::Cr, 0)
    }

    /// IRQ_CTRL.IRQEN.
    fn irqen(&self, d: &mut D, on: bool) -> u64 {
        let v = if on {
            self.field(RegId::IrqCtrl, "IRQEN")
        } else {
            0
        };
        self.write(d, RegId::IrqCtrl, v)
    }

    /// EVTYPERn.EVENT = `event` (other fields 0).
    fn set_event(&self, d: &mut D, n: u32, event: u16) -> u64 {
        let f = self
            .map
            .reg(RegId::Evtyper(n))
            .field("EVENT")
            .expect("EVTYPER.EVENT");
        let v = ((event as u64) << f.lsb) & f.mask();
        self.write(d, RegId::Evtyper(n), v as u32)
    }

    /// EVCNTRn (a split 64-bit read, snapshot-consistent, for wide counters) and the edge its
    /// value is the state after (the edge ending the (low-word) read's last held cycle: its
    /// setup cycle + COUNTER_HOLD_CYCLES).
    fn counter_at(&self, d: &mut D, n: u32) -> (u64, u64) {
        let edge = d.cycle + COUNTER_HOLD_CYCLES as u64;
        let a = self.addr(RegId::Evcntr(n));
        let v = if self.cfg.wide_counters() {
            d.apb_read64(a, S)
        } else {
            d.apb_read(a, S) as u64
        };
        (v, edge)
    }

    fn counter(&self, d: &mut D, n: u32) -> u64 {
        self.counter_at(d, n).0
    }

    /// Writes EVCNTRn (low then high word for wide counters); returns the last write's edge.
    fn set_counter(&self, d: &mut D, n: u32, v: u64) -> u64 {
        let a = self.addr(RegId::Evcntr(n));
        if self.cfg.wide_counters() {
            d.apb_write64(a, v, S);
        } else {
            d.apb_write(a, v as u32, S);
        }
        d.cycle - 1
    }

    /// Writes the low word of EVCNTRn only; returns the edge.
    fn set_counter_lo(&self, d: &mut D, n: u32, v: u32) -> u64 {
        d.apb_write(self.addr(RegId::Evcntr(n)), v, S);
        d.cycle - 1
    }

    /// A full-word Secure write of `id` with the lane inputs of its setup cycle and of its
    /// access cycle given separately; the lanes are cleared afterwards. Returns the edge.
    fn write_with_lanes(
        &self,
        d: &mut D,
        id: RegId,
        v: u32,
        setup: &[LaneIn],
        access: &[LaneIn],
    ) -> u64 {
        let mut b = PinInputs::idle(d.lanes());
        b.psel = true;
        b.pwrite = true;
        b.paddr = self.addr(id);
        b.pwdata = v;
        b.pstrb = 0xF;
        b.pprot = 0; // PPROT[1] = 0: Secure
        d.set_lanes(setup);
        d.step_with(b.clone());
        b.penable = true;
        d.set_lanes(access);
        let out = d.step_with(b);
        assert!(
            out.pready && !out.pslverr,
            "write completes without wait or error"
        );
        d.clear_lanes();
        d.cycle - 1
    }

    /// Asserts EVCNTRn reads `expect`, naming the configuration, counter and context.
    fn check(&self, d: &mut D, n: u32, expect: u64, what: &str) {
        let got = self.counter(d, n);
        assert_eq!(
            got, expect,
            "config `{}`: counter {n} ({what}): expected {expect:#x}, got {got:#x}",
            self.name
        );
    }

    /// Asserts the OVS bitmap reads `expect`.
    fn check_ovs(&self, d: &mut D, expect: u64, what: &str) {
        let got = self.ovs(d);
        assert_eq!(
            got, expect,
            "config `{}`: OVS ({what}): expected {expect:#x}, got {got:#x}",
            self.name
        );
    }

    /// Stops the counters of `mask` (CNTENCLR0), makes them count cycles from `max - x`, then
    /// enables them all with one CNTENSET0 write at edge e. Returns the overflow edge
    /// e + x + CYCLE_ENABLE_DELAY (behaviour.md: cycle counting follows CNTEN written at edge e
    /// from edge e+2; max is reached after e + x + 1). CR.E must be 1 (or be set before the
    /// overflow edge for the arithmetic to hold).
    fn arm_overflow(&self, d: &mut D, mask: u64, x: u64) -> u64 {
        self.arm_at(d, mask, self.max(), x)
    }

    /// Like `arm_overflow`, from `top - x`: returns the edge at which the counters reach
    /// `top + 1` (a carry out of every bit of `top`'s trailing ones).
    fn arm_at(&self, d: &mut D, mask: u64, top: u64, x: u64) -> u64 {
        self.write_bits(d, RegId::CntenClr0, mask);
        for n in bits_of(mask) {
            self.set_event(d, n, 0);
            self.set_counter(d, n, top - x);
        }
        let e = self.write_bits_once(d, RegId::CntenSet0, mask);
        e + x + CYCLE_ENABLE_DELAY
    }
}

/// Indices of the set bits of a bitmap.
fn bits_of(mask: u64) -> Vec<u32> {
    (0..64).filter(|n| mask >> n & 1 == 1).collect()
}

/// Idles until `d.cycle == cycle` (the next cycle stepped is `cycle`).
fn idle_until(d: &mut D, cycle: u64) {
    assert!(
        d.cycle <= cycle,
        "cycle {cycle} already passed (now {})",
        d.cycle
    );
    d.idle(cycle - d.cycle);
}

/// A lane carrying `events` (valid) from StreamID 0, Non-secure: the traffic the reset filter
/// (ExactSID on StreamID 0, Non-secure; docs/behaviour.md) counts. Filtering has its own tests
/// (tests/filtering.rs); `i` and `l` are kept for call sites that vary lanes per cycle.
fn lane(valid: bool, events: u32, _i: u64, _l: usize) -> LaneIn {
    LaneIn {
        valid,
        events,
        sid: 0,
        ss: SecState::NonSecure,
        nosid: false,
        ..LaneIn::default()
    }
}

/// Every lane valid with `events`.
fn all_lanes(d: &D, events: u32) -> Vec<LaneIn> {
    (0..d.lanes()).map(|l| lane(true, events, 0, l)).collect()
}

/// Records the cycles in which `irq` is 1 from now on (replaces any observer).
fn irq_log(d: &mut D) -> Rc<RefCell<Vec<u64>>> {
    let log = Rc::new(RefCell::new(Vec::new()));
    let l = log.clone();
    d.observer = Some(Box::new(move |c, _inp, out| {
        if out.irq {
            l.borrow_mut().push(c);
        }
    }));
    log
}

// ---------------------------------------------------------------------------------------------
// 1. Each supported event
// ---------------------------------------------------------------------------------------------

/// For every lane event k: counters 0 and 3 count event k, counter 1 the next lane event,
/// counter 2 cycles. For K = 30 cycles each valid lane carries only bit k on cycles i % 3 != 0
/// (20 cycles) and every bit but k on cycles i % 3 == 0 (10 cycles); with more than one lane,
/// the last lane is not valid and carries every bit. So event k counts 20 per valid lane, the
/// other event 10 per valid lane, and the cycle counter the edges between CR.E on and off.
#[test]
fn each_supported_event_counts_exactly_its_lane_bit() {
    const K: u64 = 30;
    const WITH_K: u64 = 20; // i in 0..30 with i % 3 != 0
    const WITHOUT_K: u64 = 10; // i in 0..30 with i % 3 == 0
    let mut cfgs = shared_all();
    cfgs.push(wide_config("w48x2"));
    for (name, cfg) in cfgs {
        let p = Pmcg::new(&name, &cfg);
        let ids = cfg.lane_event_ids();
        if cfg.ats {
            assert!(ids.contains(&6) && ids.contains(&7), "ATS events listed");
        }
        let valid_lanes = if cfg.lanes > 1 {
            cfg.lanes as u64 - 1
        } else {
            1
        };
        for_each_backend(&cfg, |d| {
            for (k, &id) in ids.iter().enumerate() {
                let other = ids[(k + 1) % ids.len()];
                d.reset(1);
                p.set_event(d, 0, id);
                p.set_event(d, 1, other);
                p.set_event(d, 2, 0);
                // Counter 3: the same event with every other EVTYPER bit set (FILTER_SID_SPAN,
                // FILTER_SEC_SID, OVFCAP, RES0) and, with per-counter filters, SMR3 all ones:
                // AllSIDManySECSID, which takes the Non-secure lanes (behaviour.md); with the
                // global filter it follows EVTYPER0/SMR0 (ExactSID 0). Either way it counts like
                // counter 0, which keeps the reset filter (ExactSID 0, Non-secure).
                let event_mask = p.map.mask(field::EVTYPER_EVENT.at(3)) as u32;
                p.write(d, RegId::Evtyper(3), !event_mask | id as u32);
                if p.map.get(RegId::Smr(3)).is_some() {
                    p.write(d, RegId::Smr(3), 0xFFFF_FFFF);
                }
                p.write_bits(d, RegId::CntenSet0, 0b1111);
                let on = p.start(d);
                let bit = p.lane_bit(id);
                assert_eq!(bit, 1 << k, "lane bit order");
                for i in 0..K {
                    let events = if i % 3 != 0 { bit } else { !bit };
                    let lanes: Vec<LaneIn> = (0..d.lanes())
                        .map(|l| {
                            if d.lanes() > 1 && l == d.lanes() - 1 {
                                lane(false, u32::MAX, i, l)
                            } else {
                                lane(true, events, i, l)
                            }
                        })
                        .collect();
                    d.set_lanes(&lanes);
                    d.idle(1);
                }
                d.clear_lanes();
                d.idle(1); // the last stream cycle counts at this edge
                let off = p.stop(d);
                let what = format!("event {id:#x}, {valid_lanes} valid lanes");
                p.check(d, 0, valid_lanes * WITH_K, &what);
                p.check(d, 3, valid_lanes * WITH_K, &what);
                let what = format!("event {other:#x} while streaming event {id:#x}");
                p.check(d, 1, valid_lanes * WITHOUT_K, &what);
                p.check(d, 2, off - on, "event 0: one per enabled edge");
                p.check_ovs(d, 0, "no overflow");
            }
        });
    }
}

/// Event 0 counts every enabled edge whatever the lanes carry, including the edges of the APB
/// transfers; a lane pattern that changes every cycle does not disturb it.
#[test]
fn cycle_event_counts_every_enabled_edge() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        for_each_backend(&cfg, |d| {
            p.write_bits(d, RegId::CntenSet0, 0b1);
            let on = p.start(d);
            for i in 0..23u64 {
                let lanes: Vec<LaneIn> = (0..d.lanes())
                    .map(|l| lane(i % 2 == 0, (i as u32).wrapping_mul(0x0101_0101), i, l))
                    .collect();
                d.set_lanes(&lanes);
                d.idle(1);
            }
            // A read while running: the state after edge s-1 (counted from on + 2).
            let (v, edge) = p.counter_at(d, 0);
            assert_eq!(
                v,
                edge + 1 - on - CYCLE_ENABLE_DELAY,
                "config `{name}`: counter 0 (event 0, read after edge {edge}): expected {}, got {v}",
                edge + 1 - on - CYCLE_ENABLE_DELAY
            );
            d.idle(17);
            let off = p.stop(d);
            d.idle(9);
            p.check(d, 0, off - on, "event 0 between CR.E on and off");
        });
    }
}

/// Lane inputs presented in cycle e count at edge e+2: a read whose access cycle is e+2 (set up
/// in cycle e+1) does not see them, a read whose access cycle is e+3 (set up in e+2) or later
/// does.
#[test]
fn lane_events_count_two_edges_later() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        let l = p.lanes();
        let ev = cfg.lane_event_ids()[0];
        for_each_backend(&cfg, |d| {
            p.set_event(d, 0, ev);
            p.write_bits(d, RegId::CntenSet0, 0b1);
            p.start(d);
            // Presented in cycle e only; a read of the low word set up in cycle e+1.
            d.set_lanes(&all_lanes(d, p.lane_bit(ev)));
            d.idle(1);
            d.clear_lanes();
            d.idle(COUNT_DELAY - 2);
            let mut bus = PinInputs::idle(d.lanes());
            (bus.psel, bus.paddr) = (true, p.addr(RegId::Evcntr(0)));
            d.step_with(bus.clone());
            bus.penable = true;
            let v = d.step_with(bus).prdata;
            assert_eq!(
                v, 0,
                "config `{name}`: counter 0 (event {ev:#x}) read in access cycle e+{COUNT_DELAY}"
            );
            // Presented in cycle e2 only; read set up in e2+2 (access cycle e2+3).
            d.set_lanes(&all_lanes(d, p.lane_bit(ev)));
            d.idle(1);
            d.clear_lanes();
            d.idle(COUNT_DELAY - 1);
            let (v, at) = p.counter_at(d, 0);
            assert_eq!(
                v,
                2 * l,
                "config `{name}`: counter 0 (event {ev:#x}) read after edge {at}, access cycle \
                 e2+{}",
                COUNT_DELAY + 1
            );
        });
    }
}

/// EVTYPERn written at edge t: its decode is registered at edge t+1, and lane events are
/// registered as they arrive and matched to counters in the next cycle under the selection in
/// force then, so events presented up to the write's access cycle t count with the old event and
/// those from cycle t+1 on with the new one; cycle counting follows the selection from edge t+2
/// (a switch of a cycle counter to an unsupported event counts edges t and t+1, and back to
/// event 0 counts from t+2).
#[test]
fn evtyper_change_takes_effect_one_cycle_after_the_write() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        let l = p.lanes();
        let ids = cfg.lane_event_ids();
        let (a, b) = (ids[0], ids[1]);
        for_each_backend(&cfg, |d| {
            // Counter 0: event a, changed to b at edge t. Lanes carry a in the setup cycle and in
            // the access cycle (matched with a: +2L), then b for one cycle (matched with b: +L).
            // A switch one cycle early or late would give 2L.
            p.set_event(d, 0, a);
            p.set_event(d, 1, 0);
            p.write_bits(d, RegId::CntenSet0, 0b11);
            let on = p.start(d);
            let la = all_lanes(d, p.lane_bit(a));
            let t = p.write_with_lanes(d, RegId::Evtyper(0), b as u32, &la, &la);
            d.set_lanes(&all_lanes(d, p.lane_bit(b)));
            d.idle(1);
            d.clear_lanes();
            d.idle(1);
            p.check(
                d,
                0,
                3 * l,
                &format!("event {a:#x} changed to {b:#x} at edge {t}"),
            );
            // Counter 1: event 0 changed to 0xFFFF (unsupported) at t1, back to 0 at t2: it
            // counts edges up to t1 + 1 and from t2 + 2 (and from CR.E's edge `on` it counts
            // from on + 2, up to off + 1). Checked in between too (it holds while 0xFFFF is
            // selected): a switch late both ways would cancel in the total.
            let t1 = p.set_event(d, 1, 0xFFFF);
            d.idle(5);
            p.check(
                d,
                1,
                (t1 + 1) - (on + 2) + 1,
                &format!("event 0 until edge {t1}, then 0xFFFF"),
            );
            let t2 = p.set_event(d, 1, 0);
            d.idle(3);
            let off = p.stop(d);
            p.check(
                d,
                1,
                (t1 + 1 - on) + (off - (t2 + 1)),
                &format!("event 0 until edge {t1}, 0xFFFF until {t2}, then 0"),
            );
        });
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Unsupported event numbers
// ---------------------------------------------------------------------------------------------

/// Candidate event numbers, each used where the configuration does not support it: just past
/// the lane events (8), the top of the CEID range (0x7F), IMPLEMENTATION DEFINED numbers not
/// listed (0x81, 0x90; 0x80 and 0x91 unless listed), numbers above the CEID range (0x100,
/// 0x7FFF, 0xFFFF, the largest EVENT value), and numbers inside the CEID0/CEID1 range that are
/// not implemented (6/7 without ATS, 0x20, 0x3F, 0x40). CEID does not advertise them, and each
/// counts nothing even with every bit of every lane set, while a control counter on event 1
/// counts every lane.
#[test]
fn unsupported_events_count_nothing() {
    const K: u64 = 20;
    let candidates: [u16; 14] = [
        6, 7, 8, 0x20, 0x3F, 0x40, 0x7F, 0x80, 0x81, 0x90, 0x91, 0x100, 0x7FFF, 0xFFFF,
    ];
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        let supported = cfg.supported_events();
        let ids: Vec<u16> = candidates
            .iter()
            .copied()
            .filter(|e| !supported.contains(e))
            .collect();
        assert!(ids.len() >= 8, "enough unsupported ids for `{name}`");
        let control = cfg.counters - 1;
        let group = (cfg.counters - 1) as usize;
        for_each_backend(&cfg, |d| {
            // CEID0/CEID1 advertise none of them.
            let ceid = [p.read_bits(d, RegId::Ceid0), p.read_bits(d, RegId::Ceid1)];
            for &id in ids.iter().filter(|&&e| e < 128) {
                let bit = ceid[(id / 64) as usize] >> (id % 64) & 1;
                assert_eq!(bit, 0, "config `{name}`: CEID bit of event {id:#x}");
            }
            for chunk in ids.chunks(group) {
                d.reset(1);
                let mut mask = 1u64 << control;
                for (n, &id) in chunk.iter().enumerate() {
                    p.set_event(d, n as u32, id);
                    mask |= 1 << n;
                }
                p.set_event(d, control, 1);
                p.write_bits(d, RegId::CntenSet0, mask);
                d.set_lanes(&all_lanes(d, u32::MAX));
                p.start(d);
                d.idle(K);
                d.clear_lanes();
                d.idle(2);
                p.stop(d);
                // Lanes streamed from before CR.E = 1 at edge `on` until the clear in cycle
                // on+K+1: edges on+1 ..= on+K+1 count every lane, later edges nothing.
                let got = p.counter(d, control);
                assert_eq!(
                    got,
                    p.lanes() * (K + 1),
                    "config `{name}`: control counter {control} (event 1, every lane, every cycle)"
                );
                for (n, &id) in chunk.iter().enumerate() {
                    p.check(d, n as u32, 0, &format!("unsupported event {id:#x}"));
                }
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// 3. CR.E and CNTEN
// ---------------------------------------------------------------------------------------------

/// Counters 0, 1 count cycles, counter 2 event 1 (every lane carries it every cycle), counter 3
/// cycles but is never enabled. With CR.E = 0 nothing moves; then each enable and disable acts
/// at the edge the contract gives, checked by exact counts and by reads while running.
#[test]
fn cr_e_and_cnten_gate_counting_at_the_exact_edge() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        let l = p.lanes();
        let last = cfg.counters - 1; // 63 in the default config: a CNTEN high-word bit
        for_each_backend(&cfg, |d| {
            p.set_event(d, 0, 0);
            p.set_event(d, 1, 0);
            p.set_event(d, 2, 1);
            p.set_event(d, 3, 0);
            d.set_lanes(&all_lanes(d, p.lane_bit(1)));
            // CNTEN set, CR.E = 0: no counter moves.
            p.write_bits(d, RegId::CntenSet0, 0b111);
            d.idle(20);
            for n in 0..4 {
                p.check(d, n, 0, "CR.E = 0");
            }
            // CR.E on at edge `on`: cycle counting from on + CYCLE_ENABLE_DELAY.
            let on = p.start(d);
            d.idle(6);
            let (v, e) = p.counter_at(d, 0);
            assert_eq!(
                v,
                e + 1 - on - CYCLE_ENABLE_DELAY,
                "config `{name}`: counter 0 (cycles, read after edge {e}, CR.E on at {on})"
            );
            // Counter 2: the lanes of cycle on (CR.E = 1 from cycle on+1, when they are matched)
            // are the first counted, at edge on+2.
            let (v, e) = p.counter_at(d, 2);
            assert_eq!(
                v,
                l * (e + 1 - COUNT_DELAY - on),
                "config `{name}`: counter 2 (event 1 on {l} lanes, read after edge {e}, CR.E on at {on})"
            );
            // CNTENCLR0 of counter 1 at edge c1: its last counted edge.
            let c1 = p.write_bits_once(d, RegId::CntenClr0, 0b10);
            d.idle(4);
            let off = p.stop(d);
            d.idle(5);
            p.check(d, 0, off - on, "cycles, CR.E on..off");
            p.check(d, 1, c1 - on, "cycles, CR.E on..CNTENCLR0");
            p.check(d, 2, l * (off - on), "event 1, CR.E on..off");
            p.check(d, 3, 0, "CNTEN = 0");
            p.check(d, last, 0, "CNTEN = 0");
            // CNTENSET0 while CR.E = 0: still nothing moves.
            p.write_bits_once(d, RegId::CntenSet0, 0b10);
            d.idle(7);
            p.check(d, 1, c1 - on, "CNTEN = 1 but CR.E = 0");
            // CR.E on again at on2; counter 0 stopped by CNTENCLR0 at c0; CR.E off at off2.
            let on2 = p.start(d);
            d.idle(3);
            let c0 = p.write_bits_once(d, RegId::CntenClr0, 0b1);
            d.idle(2);
            // CNTENSET0 of counter 3 at s3: it counts from s3 + CYCLE_ENABLE_DELAY.
            let s3 = p.write_bits_once(d, RegId::CntenSet0, 0b1000);
            d.idle(5);
            let off2 = p.stop(d);
            d.idle(3);
            p.check(d, 0, (off - on) + (c0 - on2), "second window, CNTENCLR0");
            p.check(d, 1, (c1 - on) + (off2 - on2), "second window");
            p.check(d, 2, l * ((off - on) + (off2 - on2)), "second window");
            p.check(d, 3, off2 - s3, "CNTENSET0 while running");
            if last > 3 {
                p.check(d, last, 0, "CNTEN = 0");
            }
            // The enable bitmap reads back what was written.
            let cnten = p.read_bits(d, RegId::CntenSet0);
            assert_eq!(cnten, 0b1110, "config `{name}`: CNTENSET0");
        });
    }
}

/// CR.E and CNTEN written at edge w gate lane events exactly: events presented in the write's
/// setup cycle w-1 are matched under the old setting (counted at edge w+1), those of its access
/// cycle w under the new one (counted at w+2). Counters 0, 1, 2 count lane events 0, 1, 2 (bit order); the write's setup
/// cycle carries event 0, its access cycle event 1, the next cycle event 2.
#[test]
fn enable_and_disable_gate_lane_events_at_the_write_edge() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        let l = p.lanes();
        let ids = cfg.lane_event_ids();
        for_each_backend(&cfg, |d| {
            let cr_e = p.field(RegId::Cr, "E");
            let lanes_of = |d: &D, k: usize| all_lanes(d, p.lane_bit(ids[k]));
            // (register written, value, CNTEN before, CR.E before, expected counts)
            let cases: [(RegId, u32, u64, bool, [u64; 3]); 4] = [
                (RegId::Cr, cr_e, 0b111, false, [0, l, l]),
                (RegId::Cr, 0, 0b111, true, [l, 0, 0]),
                (RegId::CntenSet0, 0b111, 0, true, [0, l, l]),
                (RegId::CntenClr0, 0b111, 0b111, true, [l, 0, 0]),
            ];
            for (id, v, cnten, e, expect) in cases {
                d.reset(1);
                for k in 0..3 {
                    p.set_event(d, k, ids[k as usize]);
                }
                p.write_bits(d, RegId::CntenSet0, cnten);
                if e {
                    p.start(d);
                }
                let (s, a) = (lanes_of(d, 0), lanes_of(d, 1));
                let w = p.write_with_lanes(d, id, v, &s, &a);
                d.set_lanes(&lanes_of(d, 2));
                d.idle(1);
                d.clear_lanes();
                d.idle(1);
                for k in 0..3u32 {
                    p.check(
                        d,
                        k,
                        expect[k as usize],
                        &format!(
                            "{id:?} = {v:#x} at edge {w}; event {:#x} presented in cycle {}",
                            ids[k as usize],
                            w - 1 + k as u64
                        ),
                    );
                }
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// 4. Every lane active every cycle
// ---------------------------------------------------------------------------------------------

/// Part A: every lane valid with event 1 for K cycles counts lanes x K exactly (up to 8 per edge
/// in `w40x8`). Part B: every lane carries event 1, and lane l also carries lane event bit
/// 1 + (l mod (E-1)) (E lane events): event 1 counts lanes x K, and lane bit j >= 1 counts K
/// times the number of lanes l with 1 + (l mod (E-1)) = j.
#[test]
fn every_lane_every_cycle_exact_totals() {
    const K: u64 = 37;
    let cfgs = vec![
        wide_config("w44x4"),
        named_config("odd"),
        wide_config("w40x8"),
    ];
    for (name, cfg) in cfgs {
        let p = Pmcg::new(&name, &cfg);
        let ids = cfg.lane_event_ids();
        let e = ids.len() as u64;
        let lanes = cfg.lanes as u64;
        let used = (cfg.counters as usize).min(ids.len());
        for_each_backend(&cfg, |d| {
            // Part A.
            for n in 0..cfg.counters {
                p.set_event(d, n, ids[n as usize % ids.len()]);
            }
            p.write_bits(d, RegId::CntenSet0, cfg.counter_bitmap());
            p.start(d);
            d.set_lanes(&all_lanes(d, p.lane_bit(ids[0])));
            d.idle(K);
            d.clear_lanes();
            d.idle(1);
            p.stop(d);
            p.check(
                d,
                0,
                lanes * K,
                &format!("event {:#x} on all {lanes} lanes for {K} cycles", ids[0]),
            );
            for n in 1..used as u32 {
                p.check(d, n, 0, "event not on any lane");
            }
            // Part B.
            d.reset(1);
            for n in 0..used as u32 {
                p.set_event(d, n, ids[n as usize]);
            }
            p.write_bits(d, RegId::CntenSet0, cfg.counter_bitmap());
            p.start(d);
            let pattern: Vec<LaneIn> = (0..d.lanes())
                .map(|l| lane(true, 1 | 1 << (1 + l as u64 % (e - 1)), 0, l))
                .collect();
            d.set_lanes(&pattern);
            d.idle(K);
            d.clear_lanes();
            d.idle(1);
            p.stop(d);
            p.check(d, 0, lanes * K, "event on every lane");
            for j in 1..used as u64 {
                let carriers = (0..lanes).filter(|l| 1 + l % (e - 1) == j).count() as u64;
                p.check(
                    d,
                    j as u32,
                    carriers * K,
                    &format!("event {:#x} on {carriers} lanes", ids[j as usize]),
                );
            }
            p.check_ovs(d, 0, "no overflow");
        });
    }
}

// ---------------------------------------------------------------------------------------------
// 5. Overflow at each width
// ---------------------------------------------------------------------------------------------

/// Part A (cycles): counter 0 written (stopped) to max - 3 counts 3 edges to max (no OVS), then
/// 1 + 5 more: wraps to 5 with OVS[0] set; counter 1 counts the same edges from 100 and its OVS
/// bit stays clear. OVSCLR0 clears OVS[0]. Part B (lanes): counter 0 at max - (2L + 1) counts
/// L events per edge for 5 edges: 5L = (2L + 1) + 1 + (3L - 2), so it wraps to 3L - 2.
#[test]
fn overflow_wraps_and_sets_ovs_at_every_width() {
    const K: u64 = 3;
    const M: u64 = 5;
    for (name, cfg) in width_configs() {
        let p = Pmcg::new(&name, &cfg);
        let max = p.max();
        assert_eq!(max, u64::MAX >> (64 - cfg.counter_bits), "counter_mask");
        for_each_backend(&cfg, |d| {
            // Part A.
            p.set_event(d, 0, 0);
            p.set_event(d, 1, 0);
            p.set_counter(d, 0, max - K);
            p.set_counter(d, 1, 100);
            p.write_bits(d, RegId::CntenSet0, 0b11);
            p.check(d, 0, max - K, "written while stopped");
            p.check_ovs(d, 0, "after reset");
            // A window of w edges: CR.E on at `on`, idle w-2, off at on + w.
            let window = |d: &mut D, w: u64| {
                let on = p.start(d);
                d.idle(w - 2);
                let off = p.stop(d);
                assert_eq!(off - on, w, "window arithmetic");
            };
            window(d, K);
            p.check(d, 0, max, "max - 3 plus 3 cycles");
            p.check_ovs(d, 0, "max reached, no carry yet");
            window(d, 1 + M);
            p.check(d, 0, M, "wrapped: max - 3 plus 3 + 1 + 5 cycles");
            p.check(d, 1, 100 + K + 1 + M, "no overflow");
            p.check_ovs(d, 0b01, "counter 0 overflowed, counter 1 did not");
            p.write_bits(d, RegId::OvsClr0, 0b01);
            p.check_ovs(d, 0, "OVSCLR0");
            p.check(d, 0, M, "OVSCLR0 does not touch the counter");
            // Part B.
            let l = p.lanes();
            let k2 = 2 * l + 1;
            p.set_event(d, 0, 1);
            p.set_event(d, 1, 1);
            p.set_counter(d, 0, max - k2);
            p.set_counter(d, 1, 0);
            p.start(d);
            d.set_lanes(&all_lanes(d, p.lane_bit(1)));
            d.idle(5);
            d.clear_lanes();
            d.idle(2);
            p.stop(d);
            p.check(
                d,
                0,
                3 * l - 2,
                &format!("max - {k2} plus {l} lanes x 5 cycles"),
            );
            p.check(d, 1, 5 * l, "0 plus 5 edges of all lanes");
            p.check_ovs(d, 0b01, "lane-event overflow");
            p.write_bits(d, RegId::OvsClr0, 0b11);
            p.check_ovs(d, 0, "OVSCLR0");
        });
    }
}

/// A 32-bit-word write of a wide counter's high word with its top value, then counting across
/// bit 31 and the full width: the carry out of the low word reaches the high word (no overflow)
/// and the carry out of the top bit is an overflow.
#[test]
fn carry_out_of_the_low_word_is_not_an_overflow() {
    for (name, cfg) in width_configs()
        .into_iter()
        .filter(|(_, c)| c.wide_counters())
    {
        let p = Pmcg::new(&name, &cfg);
        let max = p.max();
        for_each_backend(&cfg, |d| {
            p.set_event(d, 0, 0);
            // Counter 0 at 0x0000_0000_FFFF_FFFE (stopped): 2 + 3 edges reach 0x1_0000_0003.
            p.set_counter(d, 0, 0xFFFF_FFFE);
            p.write_bits(d, RegId::CntenSet0, 0b1);
            let on = p.start(d);
            d.idle(3);
            let off = p.stop(d);
            assert_eq!(off - on, 5);
            p.check(d, 0, 0x1_0000_0003, "carry into the high word");
            p.check_ovs(d, 0, "a carry out of bit 31 is not an overflow");
            // High word at its top value, low word near its top: the carry out of the width
            // overflows.
            d.apb_write(p.addr(RegId::Evcntr(0)) + 4, u32::MAX, S);
            p.set_counter_lo(d, 0, 0xFFFF_FFFD);
            p.check(
                d,
                0,
                max - 2,
                "high word written with all ones keeps counter_bits",
            );
            let on = p.start(d);
            d.idle(3);
            let off = p.stop(d);
            assert_eq!(off - on, 5);
            p.check(d, 0, 2, "max - 2 plus 5 cycles");
            p.check_ovs(d, 0b1, "carry out of counter_bits");
        });
    }
}

/// Wide counters: the carry out of the low word is visible at once. Counter 0 counts cycles
/// from 0xFFFF_FFFF - 5 (enabled at edge e), so the low word carries at edge c = e + 6; reads set
/// up in cycles c-1 .. c+3 (split 64-bit and lone high-word reads) see 0x1_0000_0000 + s-1-c.
/// A high-word write at edge c+1 (the cycle after the carry) merges its unstrobed bytes with
/// the current high word (1) and skips counting.
#[test]
fn carry_into_the_high_word_is_visible_at_once() {
    // Counter accesses are held (H cycles): X leaves room to set a read up H cycles early.
    const H: u64 = COUNTER_HOLD_CYCLES as u64;
    const X: u64 = 5 + H;
    for (name, cfg) in width_configs()
        .into_iter()
        .filter(|(_, c)| c.wide_counters())
    {
        let p = Pmcg::new(&name, &cfg);
        let hi_max = p.max() >> 32;
        let value_after = |c: u64, edge: u64| (1u64 << 32) + edge - c; // edge >= c - 1
        for_each_backend(&cfg, |d| {
            p.start(d);
            let a = p.addr(RegId::Evcntr(0));
            let arm = |d: &mut D| p.arm_at(d, 0b1, 0xFFFF_FFFF, X);
            for r in 0..5u64 {
                // Split read performed in cycle c + r (set up H + 1 cycles before).
                let c = arm(d);
                idle_until(d, c - 1 + r - H);
                let (v, edge) = p.counter_at(d, 0);
                assert_eq!(
                    v,
                    value_after(c, edge),
                    "config `{name}`: counter 0 carries out of bit 31 at edge {c}, split read after edge {edge}"
                );
                // A lone high-word read performed in cycle c + r.
                let c = arm(d);
                idle_until(d, c - 1 + r - H);
                let edge = d.cycle + H;
                let hi = d.apb_read(a + 4, S) as u64;
                assert_eq!(
                    hi,
                    value_after(c, edge) >> 32,
                    "config `{name}`: counter 0 carries at edge {c}, high word read after edge {edge}"
                );
            }
            p.check_ovs(d, 0, "no carry out of the width");
            // High-word writes at edge c+1, byte 3 strobed, then no byte strobed.
            for (strb, data) in [(0b1000u8, 0xAB00_0000u32), (0, 0xFFFF_FFFF)] {
                let c = arm(d);
                idle_until(d, c - H); // setup in cycle c - H, access (edge) c+1
                d.apb_write_strb(a + 4, data, strb, S);
                let t = d.cycle - 1;
                assert_eq!(t, c + 1);
                // Strobed bytes take the data, the others keep the current high word, 1.
                let bytes: u64 = if strb == 0 { 0 } else { 0xFF00_0000 };
                let hi = ((data as u64 & bytes) | (1 & !bytes)) & hi_max;
                let (v, edge) = p.counter_at(d, 0);
                assert_eq!(
                    v,
                    (hi << 32) + (edge - t),
                    "config `{name}`: high word written {data:#x} strobe {strb:#06b} at edge {t}, \
                     right after the carry at {c}; read after edge {edge}"
                );
            }
        });
    }
}

/// A carry out of the low word that crosses bit 16 is visible at once, in EVCNTR's low word and
/// in a shadow captured meanwhile: the read path adds bits [31:L]'s pending carry as one to bits
/// [15:L] and, when those are all ones, one to bits [31:16]. Counter 0 counts cycles from
/// 0x1_FFFF - X (enabled at edge e), so it reaches 0x2_0000 at edge c = e + X +
/// CYCLE_ENABLE_DELAY: bits [16:0] all carry. Low-word reads performed in cycles c-1 .. c+3
/// see 0x2_0000 + edge - c; a CAPR write at edge t in c-1 .. c+3 makes SVR0's low word
/// 0x2_0000 + t - c (read later, its pending carry still to add if the bank has not served it).
#[test]
fn carry_across_bit_16_is_visible_at_once() {
    const H: u64 = COUNTER_HOLD_CYCLES as u64;
    const X: u64 = 5 + H;
    for (name, cfg) in width_configs() {
        let p = Pmcg::new(&name, &cfg);
        let value_after = |c: u64, edge: u64| (0x2_0000u64 + edge - c) & 0xFFFF_FFFF; // edge >= c - 1
        for_each_backend(&cfg, |d| {
            p.start(d);
            let a = p.addr(RegId::Evcntr(0));
            let arm = |d: &mut D| p.arm_at(d, 0b1, 0x1_FFFF, X);
            for r in 0..5u64 {
                // A low-word read performed in cycle c - 1 + r (set up H cycles before).
                let c = arm(d);
                idle_until(d, c - 1 + r - H);
                let edge = d.cycle + H;
                let lo = d.apb_read(a, S) as u64;
                assert_eq!(
                    lo,
                    value_after(c, edge),
                    "config `{name}`: counter 0 crosses 0x2_0000 at edge {c}, low word read after edge {edge}"
                );
                if !cfg.capture {
                    continue;
                }
                // A capture at edge t = c - 1 + r, then SVR0's low word.
                let c = arm(d);
                idle_until(d, c - 2 + r);
                let t = p.write(d, RegId::Capr, 1);
                assert_eq!(t, c - 1 + r);
                let svr = p.read(d, RegId::Svr(0)) as u64;
                assert_eq!(
                    svr,
                    value_after(c, t),
                    "config `{name}`: counter 0 crosses 0x2_0000 at edge {c}, captured at edge {t}"
                );
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// 6. Writes while counting
// ---------------------------------------------------------------------------------------------

/// A running cycle counter (counter 0) and a running lane-event counter (counter 1, every lane
/// carrying event 1 every cycle) are written; afterwards each holds the written value plus the
/// events of the edges after the write's edge (the write's own edge is skipped).
#[test]
fn counter_write_while_counting_skips_its_edge() {
    for (name, cfg) in width_configs() {
        let p = Pmcg::new(&name, &cfg);
        let l = p.lanes();
        for_each_backend(&cfg, |d| {
            p.set_event(d, 0, 0);
            p.set_event(d, 1, 1);
            p.write_bits(d, RegId::CntenSet0, 0b11);
            d.set_lanes(&all_lanes(d, p.lane_bit(1)));
            p.start(d);
            d.idle(7);
            // Counter 0 (cycles): one word written with 1000 while its value is small.
            let t0 = p.set_counter_lo(d, 0, 1000);
            let (v, e) = p.counter_at(d, 0);
            assert_eq!(
                v,
                1000 + (e - t0),
                "config `{name}`: counter 0 (cycles) written 1000 at edge {t0}, read after edge {e}"
            );
            // Counter 1 (lanes): written 5000 at t1.
            let t1 = p.set_counter_lo(d, 1, 5000);
            let (v, e) = p.counter_at(d, 1);
            assert_eq!(
                v,
                5000 + l * (e - t1),
                "config `{name}`: counter 1 (event 1 on {l} lanes) written 5000 at edge {t1}, read after edge {e}"
            );
            // Lanes cleared from cycle c: the last lane events (cycle c-1) count at edge c+1.
            // The write at t1 skipped its match register (the events of cycle t1-2), so edges
            // t1+1 ..= c+1 count.
            let c = d.cycle;
            d.clear_lanes();
            d.idle(4);
            let off = p.stop(d);
            p.check(
                d,
                0,
                1000 + (off + CYCLE_ENABLE_DELAY - 1 - t0),
                "cycles after the write",
            );
            p.check(
                d,
                1,
                5000 + l * (c + COUNT_DELAY - 1 - t1),
                "lane events after the write",
            );
            // A written value of max is not an overflow; the write's edge skips counting even
            // at max (it would have overflowed).
            p.start(d);
            d.idle(3);
            let t = p.set_counter_lo(d, 0, 0xFFFF_FFFF);
            // High word 0 for wide counters: the value is 0xFFFF_FFFF, max only at 32 bits.
            let top = 0xFFFF_FFFFu64;
            let (v, e) = p.counter_at(d, 0);
            assert_eq!(
                e,
                t + 1 + COUNTER_HOLD_CYCLES as u64,
                "read set up right after the write"
            );
            assert_eq!(
                v,
                (top + (e - t)) & p.max(),
                "config `{name}`: counter 0 written {top:#x} at edge {t}, one count at edge {e}"
            );
            let off = p.stop(d);
            p.check(
                d,
                0,
                (top + (off + CYCLE_ENABLE_DELAY - 1 - t)) & p.max(),
                "counting on after the write",
            );
            // The edge after the write carries out of bit 31: an overflow at 32 bits only.
            let ovs = if cfg.wide_counters() { 0 } else { 0b1 };
            p.check_ovs(d, ovs, "carry out of bit 31 after the write");
            // A byte-strobed write (byte 1 only) replaces that byte of the value of its access
            // cycle t, the value after edge t-1, on a running cycle counter.
            d.reset(1);
            p.set_counter(d, 0, 0x1234_5678);
            p.write_bits(d, RegId::CntenSet0, 0b1);
            let on = p.start(d);
            d.idle(5);
            d.apb_write_strb(p.addr(RegId::Evcntr(0)), 0xFFFF_55FF, 0b0010, S);
            let t = d.cycle - 1;
            let before = 0x1234_5678 + (t - on - CYCLE_ENABLE_DELAY);
            let written = (before & !0xFF00) | 0x5500;
            let (v, e) = p.counter_at(d, 0);
            assert_eq!(
                v,
                written + (e - t),
                "config `{name}`: counter 0 at {before:#x} in cycle {t}, byte 1 written 0x55 at \
                 edge {t}, read after edge {e}"
            );
        });
    }
}

/// A write at the edge a counter would overflow: the write wins, no OVS (behaviour.md: a
/// counter write never sets OVS and skips that edge's events).
#[test]
fn counter_write_at_the_overflow_edge_never_sets_ovs() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        for_each_backend(&cfg, |d| {
            p.start(d);
            // Counter 0 overflows at edge o; a single-word write of the low word acts at o.
            // Low word write needs the counter's other bits at max: arm writes max - x.
            let hold = COUNTER_HOLD_CYCLES as u64;
            let x = 4 + hold;
            let o = p.arm_overflow(d, 0b1, x);
            // Write setup at o-1-hold (then its held cycles), access at o.
            idle_until(d, o - 1 - hold);
            let t = p.set_counter_lo(d, 0, 7);
            assert_eq!(t, o, "write at the overflow edge");
            d.idle(2);
            let (v, e) = p.counter_at(d, 0);
            // The low word is replaced; the high word (wide counters) keeps its all-ones value.
            let expect = ((p.max() >> 32) << 32 | 7) + (e - t);
            assert_eq!(
                v, expect,
                "config `{name}`: counter 0 written at edge {t} where it would overflow"
            );
            p.check_ovs(d, 0, "a counter write never sets OVS");
        });
    }
}

/// The split 64-bit write rule on running wide counters (cycle counter and lane counter;
/// docs/behaviour.md "Split 64-bit counter writes"): low word L at edge t1, high word H at edge
/// t2 = t1+g (g = 2 + COUNTER_HOLD_CYCLES: the high write's setup, its held cycles, its access)
/// behave as {H, L} written at t1: the counter counts at t1+1 ..= t2, and a carry out of the low
/// word between the writes is kept. The value after t2 is {H, L} + g * inc.
#[test]
fn split_64_bit_write_to_a_running_counter_keeps_the_carry() {
    for (name, cfg) in width_configs()
        .into_iter()
        .filter(|(_, c)| c.wide_counters())
    {
        let p = Pmcg::new(&name, &cfg);
        let l = p.lanes();
        let hi_max = p.max() >> 32;
        let h: u64 = 0x5 & hi_max; // a high word every width holds
        assert_eq!(h, 5);
        for_each_backend(&cfg, |d| {
            p.set_event(d, 0, 0);
            p.set_event(d, 1, 1);
            p.write_bits(d, RegId::CntenSet0, 0b11);
            d.set_lanes(&all_lanes(d, p.lane_bit(1)));
            p.start(d);
            d.idle(4);
            let a0 = p.addr(RegId::Evcntr(0));
            let a1 = p.addr(RegId::Evcntr(1));
            let g = 2 + COUNTER_HOLD_CYCLES as u64;

            // No carry: cycles.
            d.apb_write64(a0, h << 32 | 0x100, S);
            let t2 = d.cycle - 1;
            let (v, e) = p.counter_at(d, 0);
            assert_eq!(
                v,
                (h << 32 | 0x100) + g + (e - t2),
                "config `{name}`: counter 0 (cycles) split write {:#x} without carry",
                h << 32 | 0x100
            );

            // Carry between the writes: cycles, low word 0xFFFF_FFFF + 1 at t1+1.
            d.apb_write64(a0, h << 32 | 0xFFFF_FFFF, S);
            let t2 = d.cycle - 1;
            let (v, e) = p.counter_at(d, 0);
            assert_eq!(
                v,
                ((h + 1) << 32 | (g - 1)) + (e - t2),
                "config `{name}`: counter 0 (cycles) split write {:#x}: the carry between the \
                 writes must be kept (a lost carry would give {:#x})",
                h << 32 | 0xFFFF_FFFF,
                (h << 32 | (g - 1)) + (e - t2)
            );

            // Carry between the writes: L lanes, low word 2^32 - L plus L at t1+1 = 2^32.
            let lo = (1u64 << 32) - l;
            d.apb_write64(a1, h << 32 | lo, S);
            let t2 = d.cycle - 1;
            let (v, e) = p.counter_at(d, 1);
            assert_eq!(
                v,
                ((h + 1) << 32) + l * (g - 1) + l * (e - t2),
                "config `{name}`: counter 1 (event 1 on {l} lanes) split write {:#x}: the carry \
                 between the writes must be kept",
                h << 32 | lo
            );
            p.check_ovs(d, 0, "these split writes never overflow");
        });
    }
}

// ---------------------------------------------------------------------------------------------
// 7. Overflow against OVSCLR0 at the same edge
// ---------------------------------------------------------------------------------------------

/// The last counter (63 in the default configuration: an OVS high-word bit) overflows at edge
/// o; an OVSCLR0 write of its bit acts at edge o + delta. delta = -1: the overflow sets it again
/// afterwards; delta = 0: the overflow beats the clear; delta = +1: the clear wins. Each with
/// OVS clear and OVS already set (OVSSET0) beforehand.
#[test]
fn overflow_beats_a_same_edge_ovsclr0() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        let n = cfg.counters - 1;
        let bit = 1u64 << n;
        for_each_backend(&cfg, |d| {
            for prior in [false, true] {
                for delta in [-1i64, 0, 1] {
                    d.reset(1);
                    p.start(d);
                    if prior {
                        p.write_bits_once(d, RegId::OvsSet0, bit);
                    }
                    let o = p.arm_overflow(d, bit, 6);
                    let a = (o as i64 + delta) as u64;
                    idle_until(d, a - 1);
                    let edge = p.write_bits_once(d, RegId::OvsClr0, bit);
                    assert_eq!(edge, a, "OVSCLR0 access edge");
                    d.idle(2); // a read set up after both edges
                    let expect = if delta <= 0 { bit } else { 0 };
                    p.check_ovs(
                        d,
                        expect,
                        &format!(
                            "counter {n} overflows at edge {o}, OVSCLR0 at edge {a}, OVS before: {prior}"
                        ),
                    );
                    let (v, e) = p.counter_at(d, n);
                    assert_eq!(
                        v,
                        e - o,
                        "config `{name}`: counter {n} wrapped to 0 at edge {o}, read after edge {e}"
                    );
                }
            }
        });
    }
}

/// OVS is set from the overflow's own edge o (10.2.1): a read performed in cycle o (set up in
/// o - 1) sees the bit clear, reads performed in cycles o + 1 and o + 2 see it set. The design
/// writes an overflow into its OVS flip-flops one edge late and ORs the last edge's overflows
/// into every OVS read and write: a read in cycle o + 1 is the one that catches a missing OR.
#[test]
fn ovs_is_readable_in_the_cycle_after_the_overflow_edge() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        let n = cfg.counters - 1;
        let bit = 1u64 << n;
        let word = if n >= 32 {
            RegId::OvsSet0
        } else {
            RegId::OvsClr0
        };
        for_each_backend(&cfg, |d| {
            for k in 0..=2u64 {
                d.reset(1);
                p.start(d);
                let o = p.arm_overflow(d, bit, 6);
                idle_until(d, o + k - 1);
                // Both bitmap views read OVS; the word holding the bit.
                let a = p.addr(word) + if n >= 32 { 4 } else { 0 };
                let got = (d.apb_read(a, S) >> (n % 32)) & 1;
                let expect = u32::from(k >= 1);
                assert_eq!(
                    got,
                    expect,
                    "config `{name}`: counter {n} overflows at edge {o}; OVS read performed in \
                     cycle {}: expected bit {expect}, got {got}",
                    o + k
                );
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// 8. Wired interrupt
// ---------------------------------------------------------------------------------------------

/// All four INTEN x IRQEN combinations: counter n overflows at edge o; `irq` is 1 in cycle
/// o + IRQ_LATENCY (o+2) only, when both are set, and never otherwise; OVS is set in every case.
#[test]
fn irq_needs_inten_and_irqen() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        let n = cfg.counters - 1;
        let bit = 1u64 << n;
        for_each_backend(&cfg, |d| {
            for (inten, irqen) in [(false, false), (false, true), (true, false), (true, true)] {
                d.reset(1);
                let log = irq_log(d);
                let pulses = d.irq_pulses;
                p.start(d);
                if inten {
                    p.write_bits(d, RegId::IntenSet0, bit);
                }
                p.irqen(d, irqen);
                let o = p.arm_overflow(d, bit, 5);
                idle_until(d, o + 6);
                let expect: Vec<u64> = if inten && irqen {
                    vec![o + IRQ_LATENCY]
                } else {
                    vec![]
                };
                assert_eq!(
                    *log.borrow(),
                    expect,
                    "config `{name}`: counter {n} overflows at edge {o}, INTEN {inten}, IRQEN \
                     {irqen}: cycles with irq = 1"
                );
                assert_eq!(d.irq_pulses - pulses, expect.len() as u64);
                p.check_ovs(d, bit, "overflow sets OVS whatever INTEN and IRQEN");
            }
        });
    }
}

/// One pulse per overflow edge whatever OVS holds: the Linux driver's race (overflow of i, read
/// OVSSET0, overflow of j, clear only i: OVSSET0 shows j, two pulses), a second overflow of the
/// same counter while its OVS bit is still set (a third pulse), no pulse for an OVSSET0 write,
/// and one pulse for two counters overflowing at the same edge.
#[test]
fn irq_one_pulse_per_overflow_edge() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        let i = 0u32;
        let j = cfg.counters - 1; // a high-word bit in the default configuration
        let (bi, bj) = (1u64 << i, 1u64 << j);
        // Two counters in one bitmap word for the same-edge case.
        let (a, b) = (cfg.counters - 2, cfg.counters - 3);
        let same = 1u64 << a | 1u64 << b;
        for_each_backend(&cfg, |d| {
            let log = irq_log(d);
            p.start(d);
            p.write_bits(d, RegId::IntenSet0, cfg.counter_bitmap());
            p.irqen(d, true);
            // Overflow of i.
            let oi = p.arm_overflow(d, bi, 4);
            idle_until(d, oi + IRQ_LATENCY + 1);
            let ovs = p.ovs(d);
            assert_eq!(
                ovs, bi,
                "config `{name}`: OVSSET0 after counter {i} overflowed"
            );
            // Overflow of j while OVS[i] is still set.
            let oj = p.arm_overflow(d, bj, 4);
            idle_until(d, oj + IRQ_LATENCY + 1);
            // The handler clears only what it read.
            p.write_bits(d, RegId::OvsClr0, bi);
            p.check_ovs(d, bj, "overflow i, read, overflow j, clear i");
            assert_eq!(
                *log.borrow(),
                vec![oi + IRQ_LATENCY, oj + IRQ_LATENCY],
                "config `{name}`: pulses for overflows of {i} at {oi} and {j} at {oj}"
            );
            // Counter j again while OVS[j] is still set: a new pulse.
            let oj2 = p.arm_overflow(d, bj, 3);
            idle_until(d, oj2 + IRQ_LATENCY + 1);
            assert_eq!(
                *log.borrow(),
                [oi, oj, oj2].map(|o| o + IRQ_LATENCY).to_vec(),
                "config `{name}`: second overflow of {j} at {oj2} with OVS[{j}] already set"
            );
            p.check_ovs(d, bj, "still set");
            // OVSSET0 writes of every bit: OVS set, no pulse.
            p.write_bits(d, RegId::OvsSet0, cfg.counter_bitmap());
            d.idle(4);
            p.check_ovs(d, cfg.counter_bitmap(), "OVSSET0 of every counter");
            assert_eq!(
                log.borrow().len(),
                3,
                "config `{name}`: an OVSSET0 write raises no interrupt"
            );
            p.write_bits(d, RegId::OvsClr0, cfg.counter_bitmap());
            p.check_ovs(d, 0, "OVSCLR0 of every counter");
            // Two counters overflowing at the same edge: one pulse, both OVS bits.
            let o = p.arm_overflow(d, same, 5);
            idle_until(d, o + 4);
            assert_eq!(
                *log.borrow(),
                [oi, oj, oj2, o].map(|o| o + IRQ_LATENCY).to_vec(),
                "config `{name}`: counters {a} and {b} overflow at the same edge {o}: one pulse"
            );
            p.check_ovs(d, same, "both overflowed");
            assert_eq!(
                d.irq_pulses, 4,
                "config `{name}`: pulses counted by the driver"
            );
        });
    }
}

/// INTEN selects the counters that interrupt: two counters overflow at the same edge, only one
/// with INTEN: one pulse; only the one without INTEN: no pulse; IRQEN cleared: no pulse.
#[test]
fn irq_follows_inten_per_counter_and_irqen_changes() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        let (a, b) = (1u32, 2u32);
        let (ba, bb) = (1u64 << a, 1u64 << b);
        for_each_backend(&cfg, |d| {
            let log = irq_log(d);
            p.start(d);
            p.write_bits(d, RegId::IntenSet0, ba);
            p.irqen(d, true);
            let o1 = p.arm_overflow(d, ba | bb, 3);
            idle_until(d, o1 + 3);
            assert_eq!(
                *log.borrow(),
                vec![o1 + IRQ_LATENCY],
                "config `{name}`: {a} with INTEN"
            );
            let o2 = p.arm_overflow(d, bb, 3);
            idle_until(d, o2 + 3);
            assert_eq!(
                *log.borrow(),
                vec![o1 + IRQ_LATENCY],
                "config `{name}`: counter {b} has INTEN = 0"
            );
            // INTENCLR0 of a, INTENSET0 of b: now b interrupts, a does not.
            p.write_bits(d, RegId::IntenClr0, ba);
            p.write_bits(d, RegId::IntenSet0, bb);
            let o3 = p.arm_overflow(d, ba, 3);
            idle_until(d, o3 + 3);
            let o4 = p.arm_overflow(d, bb, 3);
            idle_until(d, o4 + 3);
            assert_eq!(
                *log.borrow(),
                vec![o1 + IRQ_LATENCY, o4 + IRQ_LATENCY],
                "config `{name}`: after INTENCLR0 {a} / INTENSET0 {b}"
            );
            // IRQEN cleared: overflow sets OVS, no pulse.
            p.write_bits(d, RegId::OvsClr0, cfg.counter_bitmap());
            p.irqen(d, false);
            let o5 = p.arm_overflow(d, bb, 3);
            idle_until(d, o5 + 3);
            assert_eq!(
                *log.borrow(),
                vec![o1 + IRQ_LATENCY, o4 + IRQ_LATENCY],
                "config `{name}`: IRQEN = 0"
            );
            p.check_ovs(d, bb, "overflow with IRQEN = 0");
        });
    }
}

/// Control writes at the overflow edge o of counter n (the last one) act from o+1: the irq
/// decision (pulse in cycle o+2) uses IRQEN and INTEN of cycle o, so IRQEN or INTEN set at o gives no pulse and
/// cleared at o still gives one; an OVSSET0 write at o adds no pulse to the overflow's; CR.E or
/// CNTEN cleared at o still lets the counter overflow at o (it was enabled in cycle o). Two
/// counters overflowing at consecutive edges give pulses in two consecutive cycles.
#[test]
fn irq_and_overflow_against_control_writes_at_the_overflow_edge() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        let n = cfg.counters - 1;
        let bit = 1u64 << n;
        let irqen = p.field(RegId::IrqCtrl, "IRQEN");
        for_each_backend(&cfg, |d| {
            // (register written at o, value, INTEN[n] before, IRQEN before, pulse expected)
            let cases: [(RegId, u64, bool, bool, bool); 6] = [
                (RegId::IrqCtrl, irqen as u64, true, false, false),
                (RegId::IrqCtrl, 0, true, true, true),
                (RegId::IntenSet0, bit, false, true, false),
                (RegId::IntenClr0, bit, true, true, true),
                (RegId::OvsSet0, bit, true, true, true),
                (RegId::OvsSet0, bit, false, true, false),
            ];
            for (id, v, inten, irq_on, pulse) in cases {
                d.reset(1);
                let log = irq_log(d);
                p.start(d);
                if inten {
                    p.write_bits(d, RegId::IntenSet0, bit);
                }
                p.irqen(d, irq_on);
                let o = p.arm_overflow(d, bit, 4);
                idle_until(d, o - 1);
                let w = if matches!(id, RegId::IrqCtrl) {
                    p.write(d, id, v as u32)
                } else {
                    p.write_bits_once(d, id, v)
                };
                assert_eq!(w, o, "write at the overflow edge");
                idle_until(d, o + 4);
                let expect: Vec<u64> = if pulse { vec![o + IRQ_LATENCY] } else { vec![] };
                assert_eq!(
                    *log.borrow(),
                    expect,
                    "config `{name}`: counter {n} overflows at edge {o} with INTEN {inten}, \
                     IRQEN {irq_on}; {id:?} = {v:#x} written at the same edge"
                );
                p.check_ovs(d, bit, &format!("overflow at {o}, {id:?} written at {o}"));
            }
            // CR.E or CNTEN cleared at o: the counter still overflows at o and, enabled in cycle
            // o, counts once more at o+1 (CYCLE_ENABLE_DELAY), then holds 1.
            for stop_cr in [true, false] {
                d.reset(1);
                p.start(d);
                let o = p.arm_overflow(d, bit, 4);
                idle_until(d, o - 1);
                let w = if stop_cr {
                    p.stop(d)
                } else {
                    p.write_bits_once(d, RegId::CntenClr0, bit)
                };
                assert_eq!(w, o);
                d.idle(3);
                let what = if stop_cr { "CR.E" } else { "CNTEN" };
                p.check(
                    d,
                    n,
                    CYCLE_ENABLE_DELAY - 1,
                    &format!("wrapped at {o}, {what} cleared at {o}"),
                );
                p.check_ovs(d, bit, &format!("overflow at {o}, {what} cleared at {o}"));
            }
            // Consecutive overflow edges: counters 0 and 1 at max - 4 and max - 5, enabled by
            // one CNTENSET0 write at e: overflows at e+6 and e+7 (cycles counted from e+2),
            // pulses in e+8 and e+9.
            d.reset(1);
            let log = irq_log(d);
            let pulses = d.irq_pulses;
            p.start(d);
            p.write_bits(d, RegId::IntenSet0, 0b11);
            p.irqen(d, true);
            p.set_counter(d, 0, p.max() - 4);
            p.set_counter(d, 1, p.max() - 5);
            let e = p.write_bits_once(d, RegId::CntenSet0, 0b11) + CYCLE_ENABLE_DELAY - 1;
            idle_until(d, e + 10);
            assert_eq!(
                *log.borrow(),
                vec![e + 5 + IRQ_LATENCY, e + 6 + IRQ_LATENCY],
                "config `{name}`: counters 0 and 1 overflow at edges {} and {}",
                e + 5,
                e + 6
            );
            assert_eq!(
                d.irq_pulses - pulses,
                2,
                "config `{name}`: one pulse per overflow edge"
            );
            p.check_ovs(d, 0b11, "both overflowed");
        });
    }
}

// ---------------------------------------------------------------------------------------------
// 9. Reset while counting
// ---------------------------------------------------------------------------------------------

/// Counters running (cycles and lane events), OVS, INTEN, IRQEN, CNTEN and CR.E set, and counter
/// 0 due to overflow exactly at the reset edge: after PRESETn low for one cycle every counter,
/// OVS and every enable reads 0, no interrupt pulse follows (nothing else happens at a reset
/// edge), nothing counts while the lanes keep streaming, and counting restarts from 0.
#[test]
fn reset_while_counting_clears_counters_ovs_and_enables() {
    for (name, cfg) in shared_all() {
        let p = Pmcg::new(&name, &cfg);
        let last = cfg.counters - 1;
        for_each_backend(&cfg, |d| {
            let log = irq_log(d);
            p.set_event(d, 1, 1);
            p.set_event(d, 2, 0);
            p.set_event(d, last, 1);
            d.set_lanes(&all_lanes(d, u32::MAX));
            p.write_bits(d, RegId::CntenSet0, 0b110 | 1 << last);
            p.write_bits(d, RegId::IntenSet0, cfg.counter_bitmap());
            p.irqen(d, true);
            p.write_bits_once(d, RegId::OvsSet0, 0b100);
            p.start(d);
            // CNTENSET0 at edge e, overflow at o = e + 31; d.cycle is e + 1 here, and the idle
            // cycles and counter 1's read (3 + 8 cycles, 6 + 16 for a split 64-bit read: one
            // wait state and 8 held cycles each) end by cycle e + 30 = o - 1.
            assert!(3 + 2 * (3 + COUNTER_HOLD_CYCLES as u64) < 30);
            let o = p.arm_overflow(d, 0b1, 30);
            d.idle(3);
            assert!(
                p.counter(d, 1) > 0,
                "config `{name}`: counting before reset"
            );
            // PRESETn low in cycle o-1: the reset edge (PRESETn is registered) is the overflow
            // edge o.
            idle_until(d, o - 1);
            d.reset(1);
            d.idle(10);
            assert!(
                log.borrow().is_empty(),
                "config `{name}`: no interrupt for an overflow at a reset edge, got {:?}",
                log.borrow()
            );
            for n in [0, 1, 2, last] {
                p.check(d, n, 0, "after reset, lanes still streaming");
            }
            p.check_ovs(d, 0, "after reset");
            for (id, what) in [(RegId::CntenSet0, "CNTEN"), (RegId::IntenSet0, "INTEN")] {
                let v = p.read_bits(d, id);
                assert_eq!(v, 0, "config `{name}`: {what} after reset");
            }
            for (id, what) in [
                (RegId::Cr, "CR"),
                (RegId::IrqCtrl, "IRQ_CTRL"),
                (RegId::IrqCtrlAck, "IRQ_CTRLACK"),
                (RegId::Evtyper(1), "EVTYPER1"),
            ] {
                let v = p.read(d, id);
                assert_eq!(v, 0, "config `{name}`: {what} after reset");
            }
            // Counting works again from 0: EVTYPER is back to event 0 (cycles).
            p.write_bits(d, RegId::CntenSet0, 0b10);
            let on = p.start(d);
            d.idle(6);
            let off = p.stop(d);
            p.check(
                d,
                1,
                off - on,
                "cycles after reset (EVTYPER1 reset to event 0)",
            );
            p.check(d, 0, 0, "CNTEN[0] = 0 after reset");
            assert!(log.borrow().is_empty(), "config `{name}`: no pulse");
        });
    }
}
