//! `smmu-pmcg timing`: latencies of the counter path, measured in cycles on the simulated design
//! (native RustHDL or the emitted Verilog), written to docs/timing.md with an annotated SVG
//! waveform of the overflow path.
//!
//! ```text
//!   for each path: fresh design ─► program ─► stimulus at cycle e ─► search the smallest offset
//!                  at which the effect is observable at the pins (PRDATA of a read, IRQ, PREADY)
//! ```
//! Every figure is found by searching over offsets in fresh runs, not computed from the contract.

use crate::output::{self, say};
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{RegId, RegisterMap, FILTER_TABLE_APPLY_EDGES};
use pmcg_sim::model::Model;
use pmcg_sim::native::NativeDut;
use pmcg_sim::pins::{Dut, LaneIn, PinInputs, PinOutputs, MAX_WAIT_STATES};
use pmcg_sim::vdut::VerilatorDut;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// A design under measurement, stepped one cycle at a time at pin level.
struct Bench {
    dut: Box<dyn Dut>,
    lanes: usize,
    cycle: u64,
    map: RegisterMap,
    cfg: PmcgConfig,
}

/// What one transfer did (`Bench::transfer_at`).
struct Transfer {
    /// The outputs of its last cycle (PREADY = 1, PRDATA).
    out: PinOutputs,
    /// Access cycles with PREADY = 0.
    waits: u64,
    /// The cycle it was performed in: the last with PREADY = 0 (its setup cycle if none).
    performed: u64,
    /// Its setup cycle.
    setup: u64,
}

impl Bench {
    fn new(cfg: &PmcgConfig, verilator: bool) -> Result<Self, Box<dyn std::error::Error>> {
        let dut: Box<dyn Dut> = if verilator {
            Box::new(VerilatorDut::new(cfg)?)
        } else {
            Box::new(NativeDut::new(cfg)?)
        };
        let mut b = Bench {
            dut,
            lanes: cfg.lanes as usize,
            cycle: 0,
            map: RegisterMap::new(cfg),
            cfg: cfg.clone(),
        };
        let mut rst = PinInputs::idle(b.lanes);
        rst.presetn = false;
        b.step(rst);
        Ok(b)
    }

    fn step(&mut self, inp: PinInputs) -> PinOutputs {
        self.cycle += 1;
        self.dut.step(&inp)
    }

    fn idle(&mut self, lanes: &[LaneIn]) -> PinOutputs {
        let mut inp = PinInputs::idle(self.lanes);
        inp.lanes.copy_from_slice(lanes);
        self.step(inp)
    }

    /// Setup then access; `lanes` in the setup cycle, none in the access cycles. Returns the
    /// outputs of the last access cycle (PREADY = 1) and the number of wait states (access
    /// cycles with PREADY = 0 before it; a read's value is that of its first access cycle).
    fn transfer(&mut self, addr: u32, write: Option<u32>, lanes: &[LaneIn]) -> (PinOutputs, u64) {
        let t = self.transfer_at(addr, write, lanes, 0);
        (t.out, t.waits)
    }

    /// A transfer set up in cycle s, with `lanes` on the lanes in cycle s + `at` only (if the
    /// transfer lasts that long; no lanes in its other cycles). The one loop every measurement's
    /// transfer goes through.
    fn transfer_at(
        &mut self,
        addr: u32,
        write: Option<u32>,
        lanes: &[LaneIn],
        at: u64,
    ) -> Transfer {
        let setup = self.cycle;
        let none = self.no_lanes();
        let mut inp = PinInputs::idle(self.lanes);
        inp.psel = true;
        inp.paddr = addr;
        if let Some(v) = write {
            inp.pwrite = true;
            inp.pwdata = v;
            inp.pstrb = 0xF;
        }
        let (mut performed, mut waits) = (setup, 0);
        loop {
            let c = self.cycle;
            inp.lanes
                .copy_from_slice(if c == setup + at { lanes } else { &none });
            let out = self.step(inp.clone());
            if c > setup {
                if out.pready {
                    return Transfer {
                        out,
                        waits,
                        performed,
                        setup,
                    };
                }
                waits += 1;
            }
            inp.penable = true;
            performed = c;
        }
    }

    /// A read of `addr` set up in cycle s (returned), with `lanes` on the lanes in cycle
    /// s + `at` only. Returns the outputs of its last cycle (PREADY = 1, PRDATA), the cycle it
    /// was performed in (the last with PREADY = 0) and s.
    fn read_with_lanes_at(
        &mut self,
        addr: u32,
        lanes: &[LaneIn],
        at: u64,
    ) -> (PinOutputs, u64, u64) {
        let t = self.transfer_at(addr, None, lanes, at);
        (t.out, t.performed, t.setup)
    }

    /// A write of `value` to `addr` with `lanes` on the lanes in cycle a + `at` only (a: its
    /// access cycle; -1: its setup cycle), other cycles idle: held while PREADY is 0, then idle
    /// cycles until a + `at` has passed. Returns the write's wait states.
    fn write_with_lanes_at(&mut self, addr: u32, value: u32, lanes: &[LaneIn], at: i64) -> u64 {
        let from_setup = (at + 1).max(0) as u64;
        let t = self.transfer_at(addr, Some(value), lanes, from_setup);
        let none = self.no_lanes();
        while self.cycle <= t.setup + from_setup {
            let l = if self.cycle == t.setup + from_setup {
                lanes
            } else {
                &none[..]
            };
            let l = l.to_vec();
            self.idle(&l);
        }
        t.waits
    }

    fn write(&mut self, id: RegId, v: u32) -> u64 {
        let addr = self.map.reg(id).addr;
        self.transfer(addr, Some(v), &self.no_lanes()).1
    }

    fn read(&mut self, id: RegId) -> u32 {
        let addr = self.map.reg(id).addr;
        self.transfer(addr, None, &self.no_lanes()).0.prdata
    }

    fn no_lanes(&self) -> Vec<LaneIn> {
        vec![LaneIn::default(); self.lanes]
    }

    fn event(&self, id: u16) -> Vec<LaneIn> {
        let mut l = self.no_lanes();
        l[0] = LaneIn {
            valid: true,
            events: 1 << self.cfg.lane_bit_of(id).expect("supported lane event"),
            ..LaneIn::default()
        };
        l
    }

    /// Lane 0 carrying `id` from StreamID `sid` (Non-secure).
    fn event_from(&self, id: u16, sid: u32) -> Vec<LaneIn> {
        let mut l = self.event(id);
        l[0].sid = sid;
        l
    }

    /// Counter 0 on `event`, enabled, counting.
    fn start(&mut self, event: u16) {
        let e = self.map.mask(field::CR_E) as u32;
        self.write(RegId::Evtyper(0), event as u32);
        self.write(RegId::CntenSet0, 1);
        self.write(RegId::Cr, e);
        let n = self.no_lanes();
        self.idle(&n);
    }
}

struct Row {
    path: &'static str,
    measured: String,
    target: String,
    met: Option<bool>,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// (overflow edge t → first read access cycle t+k whose PRDATA shows OVS, overflow edge t → IRQ
/// high in cycle t+k, overflow edge t → MSI AWVALID high in cycle t+k when the configuration has
/// MSI), in cycles.
fn overflow_paths(cfg: &PmcgConfig, v: bool) -> Res<(u64, u64, Option<u64>)> {
    // Counter 0 one event from wrapping, INTEN, IRQEN (and an MSI target), counting; returns the
    // bench with the event presented for one cycle and the index of that cycle.
    let armed = || -> Res<(Bench, u64)> {
        let mut b = Bench::new(cfg, v)?;
        let en = b.map.mask(field::IRQ_CTRL_IRQEN) as u32;
        b.write(RegId::Evtyper(0), 1);
        b.write(RegId::Evcntr(0), u32::MAX);
        if cfg.wide_counters() {
            let hi = b.map.reg(RegId::Evcntr(0)).addr + 4;
            b.transfer(hi, Some((cfg.counter_mask() >> 32) as u32), &b.no_lanes());
        }
        b.write(RegId::IntenSet0, 1);
        if cfg.msi {
            // Any non-zero MSI address (IRQ_CFG0.ADDR = 0 means no MSI).
            b.write(RegId::IrqCfg0, 0x1000);
        }
        b.write(RegId::IrqCtrl, en);
        b.start(1);
        let s0 = b.cycle;
        let ev = b.event(1);
        b.idle(&ev);
        Ok((b, s0))
    };
    // The overflow edge t, found on the pins: OVF_EXPORT[0] pulses in cycle t+1. `after` is
    // (t+1) - (the event's cycle), so no figure below assumes the event -> count latency.
    let after = {
        let (mut b, s0) = armed()?;
        let n = b.no_lanes();
        (0..32)
            .find_map(|_| {
                let out = b.idle(&n);
                (out.ovf_export & 1 == 1).then(|| b.cycle - 1 - s0)
            })
            .ok_or("no overflow (OVF_EXPORT) after the event")?
    };
    let mut irq_after = None;
    let mut ovs_after = None;
    let mut aw_after = None;
    for k in 0..after + 6 {
        let (mut b, s0) = armed()?;
        let overflow_edge = s0 + after; // t+1, the cycle after the overflow edge
        let ovs_addr = b.map.reg(RegId::OvsSet0).addr;
        let n = b.no_lanes();
        for _ in 0..k {
            let out = b.idle(&n);
            if out.irq && irq_after.is_none() {
                irq_after = Some(b.cycle - overflow_edge);
            }
            if out.awvalid && aw_after.is_none() {
                aw_after = Some(b.cycle - overflow_edge);
            }
        }
        let (out, _) = b.transfer(ovs_addr, None, &n);
        if out.prdata & 1 == 1 && ovs_after.is_none() {
            // The read's setup cycle was s0 + 1 + k, its first access cycle (in which it is
            // performed) s0 + 2 + k; the overflow edge t = s0 + after - 1.
            ovs_after = (k + 3).checked_sub(after);
        }
    }
    if cfg.msi && aw_after.is_none() {
        return Err("no MSI AWVALID after the overflow".into());
    }
    Ok((
        ovs_after.ok_or("OVS never set")?,
        irq_after.ok_or("no interrupt")?,
        aw_after,
    ))
}

/// Whether a CAPR write's capture is visible to the very next APB access (10.2.1): EVCNTR0 is
/// written a value, CAPR written, SVR0 read by the next transfer. `None` without capture.
fn capture_next_access(cfg: &PmcgConfig, v: bool) -> Res<Option<bool>> {
    if !cfg.capture {
        return Ok(None);
    }
    let mut b = Bench::new(cfg, v)?;
    let value = 0x1234_5678 & cfg.counter_mask() as u32;
    b.write(RegId::Evcntr(0), value);
    b.write(RegId::Capr, 1);
    Ok(Some(b.read(RegId::Svr(0)) == value))
}

/// Cycles from the cycle an event (event 1 from StreamID `sid`) is on a lane to the first cycle
/// a read performed in (its access cycle; PRDATA follows after its wait state) returns it;
/// with `Some(sid)`, counter 0 filters on ExactSID `sid` (10.4), so this is the matcher's latency.
/// The EVCNTR read is held (docs/behaviour.md "Counter and shadow accesses"), so the event is
/// presented during the read's transfer: in cycle e = s + d of a read set up in cycle s, found on
/// the pins as the cycle before the one with PREADY = 1.
fn event_to_count(cfg: &PmcgConfig, v: bool, filter: Option<u32>) -> Res<u64> {
    let map = RegisterMap::new(cfg);
    let hold = map.hold_cycles(map.reg(RegId::Evcntr(0)).addr) as u64;
    // Latency k: the read is performed in cycle s + 1 + hold = e + k.
    for k in 1..=1 + hold {
        let d = 1 + hold - k;
        let mut b = Bench::new(cfg, v)?;
        if let Some(sid) = filter {
            b.write(RegId::Smr(0), sid);
        }
        b.start(1);
        let ev = b.event_from(1, filter.unwrap_or(0));
        let addr = b.map.reg(RegId::Evcntr(0)).addr;
        let (out, performed, s) = b.read_with_lanes_at(addr, &ev, d);
        if performed != s + 1 + hold {
            return Err(format!(
                "the EVCNTR0 read set up in cycle {s} was performed in cycle {performed}, \
                 not {} (docs/behaviour.md)",
                s + 1 + hold
            )
            .into());
        }
        if out.prdata == 1 {
            return Ok(performed - (s + d));
        }
    }
    Err("event never became visible".into())
}

/// Offset k (cycles after the access cycle a of a write of `value` to `reg`) of the first lane
/// event `ev` counted by counter 0 under the new configuration, and the write's wait states;
/// `before` programs the old one (counter 0 then counts event 1, which `ev` must not match).
/// With filter tables the write holds the bus until the new filter applies (docs/behaviour.md
/// "Filter tables"), so `ev` may fall in its held cycles: k is searched up to a few cycles past
/// `FILTER_TABLE_APPLY_EDGES`, by bisection (an event is counted under the old configuration
/// before the switch and under the new one from it).
fn reconfig_delay(
    cfg: &PmcgConfig,
    v: bool,
    before: impl Fn(&mut Bench),
    (reg, value): (RegId, u32),
    ev: impl Fn(&Bench) -> Vec<LaneIn>,
) -> Res<(i64, u64)> {
    let counted = |k: i64| -> Res<(bool, u64)> {
        let mut b = Bench::new(cfg, v)?;
        before(&mut b);
        b.start(1);
        let ev = ev(&b);
        let n = b.no_lanes();
        let addr = b.map.reg(reg).addr;
        let waits = b.write_with_lanes_at(addr, value, &ev, k);
        b.idle(&n);
        b.idle(&n);
        Ok((b.read(RegId::Evcntr(0)) == 1, waits))
    };
    let (mut lo, mut hi) = (-1i64, FILTER_TABLE_APPLY_EDGES as i64 + 4);
    let (last, waits) = counted(hi)?;
    if !last {
        return Err("no event counted under the new configuration".into());
    }
    if counted(lo)?.0 {
        return Ok((lo, waits));
    }
    // counted(lo) is false and counted(hi) true.
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if counted(mid)?.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok((hi, waits))
}

/// Edges after a CR.E write's access edge until the first counted edge (cycle counter).
fn enable_delay(cfg: &PmcgConfig, v: bool) -> Res<u64> {
    let mut b = Bench::new(cfg, v)?;
    b.write(RegId::Evtyper(0), 0);
    b.write(RegId::CntenSet0, 1);
    let e = b.map.mask(field::CR_E) as u32;
    b.write(RegId::Cr, e);
    let write_edge = b.cycle; // the access cycle's edge
    let n = b.no_lanes();
    for _ in 0..5 {
        b.idle(&n);
    }
    // (Cycles counted from 1 here, as `write_edge`; the read is held, so its access cycle is
    // found on the pins.)
    let addr = b.map.reg(RegId::Evcntr(0)).addr;
    let (out, performed, _) = b.read_with_lanes_at(addr, &n, 0);
    let access = performed + 1;
    let value = out.prdata as u64;
    // The read returns the state of its first access cycle, after edge access-1: `value` edges
    // were counted, the last one access-1.
    let first_counted = access - value;
    Ok(first_counted - write_edge)
}

pub fn run(cfg: &PmcgConfig, verilator: bool, out: &Path, svg: &Path) -> Res<ExitCode> {
    let backend = if verilator {
        "emitted Verilog (Verilator)"
    } else {
        "native RustHDL"
    };
    // Progress on a terminal: the eight measurements (a Verilator build comes first).
    let bar = output::progress(8, "measurements");
    bar.set_message(format!("timing on the {backend}"));
    let e2c = event_to_count(cfg, verilator, None)?;
    bar.inc(1);
    let (ovs, irq, aw) = overflow_paths(cfg, verilator)?;
    bar.inc(1);
    let capture = capture_next_access(cfg, verilator)?;
    bar.inc(1);
    let filtered = event_to_count(cfg, verilator, Some(0x42))?;
    bar.inc(1);
    // EVTYPER0: event 1 -> 2, events 2. SMR0: ExactSID 0x10 -> 0x20, events from StreamID 0x20.
    let (reconf, evt_waits) = reconfig_delay(
        cfg,
        verilator,
        |_| {},
        (RegId::Evtyper(0), 2),
        |b| b.event(2),
    )?;
    bar.inc(1);
    let (smr, smr_waits) = reconfig_delay(
        cfg,
        verilator,
        |b| {
            b.write(RegId::Smr(0), 0x10);
        },
        (RegId::Smr(0), 0x20),
        |b| b.event_from(1, 0x20),
    )?;
    bar.inc(1);
    let enable = enable_delay(cfg, verilator)?;
    bar.inc(1);
    // Wait states, measured on the pins (PREADY = 0 access cycles): the most over a constant, a
    // bitmap and an unmapped word (flip-flop registers), each read and written; and over the
    // counter and shadow registers (held, docs/behaviour.md "Counter and shadow accesses"),
    // idle (typical) and with every counter counting every cycle near its wrap (a carry burst),
    // the fewest and the most.
    let mut b = Bench::new(cfg, verilator)?;
    let probes = [
        b.map.reg(RegId::Cfgr).addr,
        b.map.reg(RegId::CntenSet0).addr,
        0x0FFC,
    ];
    let (mut read_waits, mut write_waits) = (0, 0);
    for a in probes {
        let n = b.no_lanes();
        read_waits = read_waits.max(b.transfer(a, None, &n).1);
        write_waits = write_waits.max(b.transfer(a, Some(0), &n).1);
    }
    let mut held_probes = vec![b.map.reg(RegId::Evcntr(0)).addr];
    if let Some(r) = b.map.get(RegId::Svr(0)) {
        held_probes.push(r.addr);
    }
    let (mut held_min, mut held_max) = (u64::MAX, 0);
    for burst in [false, true] {
        if burst {
            // Every counter counts cycles from 2^32 - 4: they all carry out of bit 31 within
            // the measurement.
            b.write(RegId::Cr, 0);
            for n in 0..cfg.counters {
                b.write(RegId::Evtyper(n), 0);
                b.write(RegId::Evcntr(n), 0xFFFF_FFFC);
            }
            b.write(RegId::CntenSet0, u32::MAX);
            if cfg.counters > 32 {
                let hi = b.map.reg(RegId::CntenSet0).addr + 4;
                let n = b.no_lanes();
                b.transfer(hi, Some(u32::MAX), &n);
            }
            b.start(0);
        }
        for &a in &held_probes {
            let n = b.no_lanes();
            for w in [b.transfer(a, None, &n).1, b.transfer(a, Some(0), &n).1] {
                held_min = held_min.min(w);
                held_max = held_max.max(w);
            }
        }
    }
    bar.finish_and_clear();
    // Without filter tables a configuration write applies one edge after its access edge and
    // takes no wait state; with them at `FILTER_TABLE_APPLY_EDGES`, and the write is held until
    // then (docs/behaviour.md "Filter tables").
    let tables = cfg.filter_tables;
    let apply = FILTER_TABLE_APPLY_EDGES as i64;
    let cfg_target = if tables {
        format!("= {apply} (filter tables)")
    } else {
        "≤ 2".to_string()
    };
    let cfg_met = |k: i64| if tables { k == apply } else { k <= 2 };
    let filter_waits = evt_waits.max(smr_waits);
    let rows = [
        Row {
            path: "lane event (cycle e) → counter value returned by a read performed in cycle e+k (its access cycle, after its held cycles; on PRDATA after its wait state)",
            measured: format!("k = {e2c}"),
            target: "≤ 3".into(),
            met: Some(e2c <= 3),
        },
        Row {
            path: "StreamID-filtered lane event (cycle e, ExactSID match) → counter value returned by a read performed in cycle e+k (the matcher's latency)",
            measured: format!("k = {filtered}"),
            target: "≤ 3".into(),
            met: Some(filtered <= 3),
        },
        Row {
            path: "counter overflow (edge t) → OVS set, returned by a read performed in cycle t+k",
            measured: format!("k = {ovs}"),
            target: "-".into(),
            met: None,
        },
        Row {
            path: "counter overflow (edge t) → IRQ high in cycle t+k",
            measured: format!("k = {irq} (one-cycle pulse)"),
            target: "≤ 3".into(),
            met: Some(irq <= 3),
        },
        Row {
            path: "counter overflow (edge t) → MSI AWVALID high in cycle t+k (nothing outstanding)",
            measured: match aw {
                Some(k) => format!("k = {k}"),
                None => "no MSI in this configuration".into(),
            },
            target: "≤ 4".into(),
            met: aw.map(|k| k <= 4),
        },
        Row {
            path: "CAPR write (access cycle a) → SVR value on PRDATA of the next access (set up in cycle a+1)",
            measured: match capture {
                Some(true) => "visible".into(),
                Some(false) => "NOT visible".into(),
                None => "no capture in this configuration".into(),
            },
            target: "next access".into(),
            met: capture,
        },
        Row {
            path: "EVTYPER write (access cycle a) → first lane event counted under the new event: presented in cycle a+k",
            measured: format!("k = {reconf}"),
            target: cfg_target.clone(),
            met: Some(cfg_met(reconf)),
        },
        Row {
            path: "SMR write (access cycle a) → first lane event counted under the new StreamID filter: presented in cycle a+k",
            measured: format!("k = {smr}"),
            target: cfg_target.clone(),
            met: Some(cfg_met(smr)),
        },
        Row {
            path: "CR.E write (access edge a) → first counted edge a+k (cycle counting)",
            measured: format!("k = {enable}"),
            // A configuration write applies at most 2 cycles after its access (issue 11).
            target: "≤ 2".into(),
            met: Some(enable <= 2),
        },
        Row {
            path: "APB read wait states, flip-flop registers (PREADY = 0 access cycles)",
            measured: format!("{read_waits}"),
            target: "≤ 2".into(),
            met: Some(read_waits <= 2),
        },
        Row {
            path: "APB write wait states, flip-flop registers (PREADY = 0 access cycles)",
            measured: format!("{write_waits}"),
            target: "≤ 2".into(),
            met: Some(write_waits <= 2),
        },
        Row {
            path: "APB wait states of EVCNTR and SVR accesses (held), reads and writes: fewest / most, idle and with every counter carrying",
            measured: format!("{held_min} / {held_max}"),
            target: "≤ 16".into(),
            met: Some(held_max <= 16),
        },
        Row {
            path: "APB wait states of the EVTYPER and SMR writes above (with filter tables held until the new filter applies)",
            measured: format!("{filter_waits}"),
            target: if tables {
                format!("= {} (filter tables)", apply + 1)
            } else {
                "≤ 2".into()
            },
            met: Some(if tables {
                filter_waits == apply as u64 + 1
            } else {
                filter_waits <= 2
            }),
        },
    ];
    let stamp = pmcg_synth::stamp::Stamp::timing(cfg, verilator).comment_lines("");
    let mut md = stamp.clone();
    writeln!(md, "# Counter-path timing, in cycles of PCLK\n")?;
    writeln!(
        md,
        "Generated by `cargo run --release -- timing` (do not edit by hand) on the {backend} simulation of\n\
         `{}`. Each figure is found by searching offsets in fresh runs; \"edge t\" ends cycle t\n\
         (docs/behaviour.md).\n",
        cfg.summary()
    )?;
    writeln!(md, "| path | measured | target | |\n|---|---|---|---|")?;
    let mut all_met = true;
    for r in &rows {
        let verdict = match r.met {
            Some(true) => "met",
            Some(false) => {
                all_met = false;
                "**missed**"
            }
            None => "",
        };
        writeln!(
            md,
            "| {} | {} | {} | {verdict} |",
            r.path, r.measured, r.target
        )?;
        say!("{:<100} {:<32} {}", r.path, r.measured, verdict);
    }
    let picture = waveform_svg(cfg)?;
    writeln!(
        md,
        "\n![Overflow of counter 0: event, count, OVS, interrupt and the read that sees them]({})\n",
        svg.file_name().and_then(|f| f.to_str()).unwrap_or("timing.svg")
    )?;
    output::write_file(out, md.as_bytes())?;
    // The stamp goes inside the root element: the file still starts with `<svg`.
    let stamped = picture.replacen('\n', &format!("\n{stamp}"), 1);
    output::write_file(svg, stamped.as_bytes())?;
    say!("wrote {} and {}", out.display(), svg.display());
    Ok(if all_met {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// One annotated waveform: counter 0 one below wrapping, two events, overflow, IRQ, OVS read.
/// Pins come from the native design; EVCNTR0 and OVS[0] are the reference model's architectural
/// state in the same cycles (the design matches the model on every cycle).
fn waveform_svg(cfg: &PmcgConfig) -> Res<String> {
    let mut native = NativeDut::new(cfg)?;
    let mut model = Model::new(cfg);
    let map = RegisterMap::new(cfg);
    let lanes = cfg.lanes as usize;
    let mut inputs: Vec<PinInputs> = Vec::new();
    let bus = |addr: u32, write: Option<u32>, access: bool| {
        let mut i = PinInputs::idle(lanes);
        i.psel = true;
        i.penable = access;
        i.paddr = addr;
        if let Some(v) = write {
            i.pwrite = true;
            i.pwdata = v;
            i.pstrb = 0xF;
        }
        i
    };
    let mut rst = PinInputs::idle(lanes);
    rst.presetn = false;
    inputs.push(rst);
    let top = (cfg.counter_mask() - 1) as u32; // two events from wrapping (low word)
    let mut setup = vec![
        (map.reg(RegId::Evtyper(0)).addr, 1u32),
        (map.reg(RegId::Evcntr(0)).addr, top),
    ];
    if cfg.wide_counters() {
        setup.push((
            map.reg(RegId::Evcntr(0)).addr + 4,
            (cfg.counter_mask() >> 32) as u32,
        ));
    }
    setup.extend([
        (map.reg(RegId::IntenSet0).addr, 1),
        (
            map.reg(RegId::IrqCtrl).addr,
            map.mask(field::IRQ_CTRL_IRQEN) as u32,
        ),
        (map.reg(RegId::CntenSet0).addr, 1),
        (map.reg(RegId::Cr).addr, map.mask(field::CR_E) as u32),
    ]);
    // Each write as an APB4 master makes it: its access cycle repeated until PREADY (EVCNTR
    // writes are held), which a probe of the reference model tells ahead of the run below.
    let mut probe = Model::new(cfg);
    probe.step(&inputs[0]);
    for (a, v) in setup {
        inputs.push(bus(a, Some(v), false));
        probe.step(&bus(a, Some(v), false));
        let mut waited = 0;
        loop {
            inputs.push(bus(a, Some(v), true));
            if probe.step(&bus(a, Some(v), true)).pready {
                break;
            }
            waited += 1;
            if waited > MAX_WAIT_STATES {
                return Err(format!(
                    "the write of {a:#x} is not ready after {MAX_WAIT_STATES} wait states"
                )
                .into());
            }
        }
    }
    let shown_from = inputs.len();
    let mut ev = PinInputs::idle(lanes);
    ev.lanes[0] = LaneIn {
        valid: true,
        events: 1 << cfg.lane_bit_of(1).expect("event 1"),
        ..LaneIn::default()
    };
    inputs.push(PinInputs::idle(lanes));
    inputs.push(ev.clone());
    inputs.push(ev);
    inputs.push(PinInputs::idle(lanes));
    inputs.push(PinInputs::idle(lanes));
    let ovs = map.reg(RegId::OvsSet0).addr;
    inputs.push(bus(ovs, None, false));
    // The read's two access cycles: the wait state (PREADY = 0), then PRDATA (PREADY = 1).
    inputs.push(bus(ovs, None, true));
    inputs.push(bus(ovs, None, true));
    inputs.push(PinInputs::idle(lanes));
    // Run both; record pins (native) and architectural state (model) per shown cycle.
    struct Sample {
        valid: bool,
        psel: bool,
        penable: bool,
        pready: bool,
        prdata: u32,
        irq: bool,
        count: u64,
        ovs: bool,
    }
    let mut samples = Vec::new();
    for (i, inp) in inputs.iter().enumerate() {
        let count = model.counter(0);
        let ovs0 = model.ovs() & 1 == 1;
        let m = model.step(inp);
        let n = native.step(inp);
        if m != n {
            return Err(format!("native and model differ at cycle {i}").into());
        }
        if i >= shown_from {
            samples.push(Sample {
                valid: inp.lanes[0].valid,
                psel: inp.psel,
                penable: inp.penable,
                pready: n.pready,
                prdata: n.prdata,
                irq: n.irq,
                count,
                ovs: ovs0,
            });
        }
    }
    // The picture's premise, checked: counter 0 starts two below wrapping and its overflow sets
    // OVS[0] within the shown cycles (a setup write lost to the bus sequence once left it at 0).
    let start = samples.first().map(|s| s.count);
    if start != Some(cfg.counter_mask() - 1) || !samples.iter().any(|s| s.ovs) {
        return Err(format!(
            "the waveform's setup did not take: counter 0 starts at {start:?} (expected {:#x}) \
             and OVS[0] is set in {} of the shown cycles",
            cfg.counter_mask() - 1,
            samples.iter().filter(|s| s.ovs).count()
        )
        .into());
    }
    // Drawing.
    let (x0, cw, rh) = (170.0, 90.0, 42.0);
    let width = (x0 + cw * samples.len() as f64 + 20.0).max(1000.0);
    // Values wider than 16 bits are shown by their low 16 bits.
    let short = |v: u64| {
        if v > 0xFFFF {
            format!("…{:04x}", v & 0xFFFF)
        } else {
            format!("{v:#x}")
        }
    };
    let rows = [
        "PCLK",
        "LANE0_VALID (event 1)",
        "EVCNTR0 (state)",
        "OVS[0] (state)",
        "IRQ",
        "PSEL / PENABLE",
        "PREADY",
        "PRDATA",
    ];
    let height = 60.0 + rh * rows.len() as f64 + 120.0;
    let mut s = String::new();
    writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="monospace" font-size="12">"#
    )?;
    writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#)?;
    writeln!(
        s,
        r#"<text x="10" y="20" font-size="14">Counter 0 ({} bits) two events below wrapping: event → count → overflow → IRQ → OVS read</text>"#,
        cfg.counter_bits
    )?;
    let y = |r: usize| 50.0 + rh * r as f64;
    for (r, name) in rows.iter().enumerate() {
        writeln!(s, r#"<text x="10" y="{}">{name}</text>"#, y(r) + 22.0)?;
    }
    for (c, smp) in samples.iter().enumerate() {
        let x = x0 + cw * c as f64;
        writeln!(
            s,
            r##"<line x1="{x}" y1="40" x2="{x}" y2="{}" stroke="#ddd"/><text x="{}" y="45" fill="#888">c{c}</text>"##,
            y(rows.len()),
            x + 4.0
        )?;
        // PCLK rises at the cycle boundaries: "edge t" ends cycle t.
        let (hi, lo) = (y(0) + 8.0, y(0) + 32.0);
        writeln!(
            s,
            r#"<polyline fill="none" stroke="black" points="{x},{lo} {x},{hi} {},{hi} {},{lo} {},{lo}"/>"#,
            x + cw / 2.0,
            x + cw / 2.0,
            x + cw
        )?;
        let bit = |row: usize, v: bool, s: &mut String| -> std::fmt::Result {
            let yy = if v { y(row) + 8.0 } else { y(row) + 32.0 };
            writeln!(
                s,
                r#"<line x1="{x}" y1="{yy}" x2="{}" y2="{yy}" stroke="{}" stroke-width="2"/>"#,
                x + cw,
                if v { "#c00" } else { "black" }
            )
        };
        bit(1, smp.valid, &mut s)?;
        bit(3, smp.ovs, &mut s)?;
        bit(4, smp.irq, &mut s)?;
        bit(5, smp.psel && smp.penable, &mut s)?;
        bit(6, smp.pready, &mut s)?;
        for (row, text) in [(2, short(smp.count)), (7, short(smp.prdata as u64))] {
            writeln!(
                s,
                r#"<rect x="{}" y="{}" width="{}" height="24" fill="none" stroke="black"/><text x="{}" y="{}" font-size="10">{text}</text>"#,
                x + 2.0,
                y(row) + 8.0,
                cw - 4.0,
                x + 5.0,
                y(row) + 24.0
            )?;
        }
        if smp.psel && !smp.penable {
            writeln!(
                s,
                r#"<text x="{}" y="{}" font-size="10">setup</text>"#,
                x + 5.0,
                y(5) + 22.0
            )?;
        }
    }
    let notes = [
        "Events on LANE0 in cycles c1 and c2: each is registered at the edge ending its cycle, matched into the match register at the next edge and counted at the one after.",
        "The second count wraps the counter at the edge ending c4: OVS[0] is set and EVCNTR0 wraps at that same edge.",
        "IRQ is high for exactly the second cycle after the overflow edge (c6); the OVSSET0 read set up in c5 is performed in c6 (its wait state, PREADY = 0) and returns bit 0 set on PRDATA in c7.",
        "Pins: native RustHDL simulation. EVCNTR0 and OVS[0]: reference-model state, equal to the RTL's on every cycle.",
        "Values wider than 16 bits show their low 16 bits (…ffff).",
    ];
    for (i, n) in notes.iter().enumerate() {
        writeln!(
            s,
            r#"<text x="10" y="{}">{n}</text>"#,
            y(rows.len()) + 25.0 + 18.0 * i as f64
        )?;
    }
    writeln!(s, "</svg>")?;
    Ok(s)
}
