//! The built-in demo: what `cargo run --release` does.
//!
//! ```text
//!   default config ──► out/smmu_pmcg.v
//!                  └─► Driver ──► Checked(reference model, native RustHDL) ──► report
//!       discover CFGR/CEID0 → program 4 counters → stream traffic → read counts → overflow + irq
//! ```
//! Every cycle of the native simulation is compared with the reference model, and the counts are
//! compared with the totals of the traffic the demo itself generated.

use crate::output::say;
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{RegId, RegisterMap};
use pmcg_sim::checked::Checked;
use pmcg_sim::model::Model;
use pmcg_sim::native::NativeDut;
use pmcg_sim::pins::{Access, Driver, LaneIn};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;
use std::process::ExitCode;

const TRAFFIC_CYCLES: u64 = 2_000;
const SEED: u64 = 2026;

fn field(map: &RegisterMap, id: RegId, name: &str, value: u64) -> u64 {
    let f = map.reg(id).field(name).expect("field in the register map");
    (value & f.mask()) >> f.lsb
}

pub fn run(out: &Path) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let cfg = PmcgConfig::default();
    let map = RegisterMap::new(&cfg);
    let (verilog, bytes) = crate::write_verilog(&cfg, out, pmcg_synth::DEFAULT_TOP)?;
    say!("SMMUv3 PMCG demo ({})", cfg.summary());
    say!("  Verilog: {} ({bytes} bytes)", verilog.display());

    let dut = Checked::new(Model::new(&cfg), NativeDut::new(&cfg)?);
    let mut d = Driver::new(dut, cfg.lanes as usize);
    let s = Access::Secure;
    let addr = |id| map.reg(id).addr;
    d.reset(1);

    // Discovery, as a driver does it.
    let cfgr = d.apb_read(addr(RegId::Cfgr), s) as u64;
    let ceid0 = d.apb_read64(addr(RegId::Ceid0), s);
    say!(
        "  CFGR {cfgr:#010x}: {} counters of {} bits, reloc_ctrs={} msi={} capture={} sid_filter_type={}",
        field(&map, RegId::Cfgr, "NCTR", cfgr) + 1,
        field(&map, RegId::Cfgr, "SIZE", cfgr) + 1,
        field(&map, RegId::Cfgr, "RELOC_CTRS", cfgr),
        field(&map, RegId::Cfgr, "MSI", cfgr),
        field(&map, RegId::Cfgr, "CAPTURE", cfgr),
        field(&map, RegId::Cfgr, "SID_FILTER_TYPE", cfgr),
    );
    let events: Vec<u32> = (0..64).filter(|b| ceid0 >> b & 1 == 1).collect();
    say!("  CEID0 {ceid0:#x}: events {events:?}");

    // Four counters on four events, filtered the way a driver programs them (10.4): every
    // stream, StreamIDs 0x20-0x3F (PartialSID: SMR 0x2F ignores bits 4:0), StreamID 7 (ExactSID),
    // and cycles (never filtered).
    let span = map.mask(field::EVTYPER_FILTER_SID_SPAN) as u32;
    let program: [(u32, u16, u32, u32, &str); 4] = [
        (0, 1, span, 0xFFFF_FFFF, "transactions, all"),
        (1, 2, span, 0x2F, "TLB misses, 0x20-0x3F"),
        (2, 4, 0, 7, "walks, SID 7"),
        (3, 0, 0, 0, "clock cycles"),
    ];
    let passes = |n: u32, sid: u32| match n {
        0 => true,
        1 => (0x20..=0x3F).contains(&sid),
        2 => sid == 7,
        _ => true,
    };
    for (n, event, filter, smr, _) in program {
        if let Some(r) = map.get(RegId::Smr(n)) {
            d.apb_write(r.addr, smr, s);
        }
        d.apb_write(addr(RegId::Evtyper(n)), event as u32 | filter, s);
    }
    d.apb_write(addr(RegId::CntenSet0), 0xF, s);
    d.apb_write(addr(RegId::Cr), map.mask(field::CR_E) as u32, s);

    // Traffic: the demo keeps its own totals per event, the oracle for the lane-event counters.
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    // Per counter: events sent that its filter passes.
    let mut sent = [0u64; 4];
    for _ in 0..TRAFFIC_CYCLES {
        let mut lanes = vec![LaneIn::default(); cfg.lanes as usize];
        for lane in lanes.iter_mut() {
            if rng.gen_bool(0.7) {
                lane.valid = true;
                lane.sid = rng.gen_range(0..64);
                for (n, event, _, _, _) in &program[..3] {
                    let p = match event {
                        1 => 0.9,
                        2 => 0.2,
                        _ => 0.35,
                    };
                    if rng.gen_bool(p) {
                        lane.events |= 1 << cfg.lane_bit_of(*event).expect("mandatory event");
                        if passes(*n, lane.sid) {
                            sent[*n as usize] += 1;
                        }
                    }
                }
            }
        }
        d.set_lanes(&lanes);
        d.idle(1);
    }
    d.clear_lanes();
    d.idle(1); // the match stage: the last traffic cycle is counted at this edge
    d.apb_write(addr(RegId::Cr), 0, s);
    let mut ok = true;
    say!("  after {TRAFFIC_CYCLES} cycles of traffic:");
    for (n, event, _, _, what) in program {
        let count = d.apb_read64(addr(RegId::Evcntr(n)), s);
        if event == 0 {
            say!("    EVCNTR{n} event {event} ({what:<20}) = {count:>6}");
        } else {
            let expected = sent[n as usize];
            let good = count == expected;
            ok &= good;
            say!(
                "    EVCNTR{n} event {event} ({what:<20}) = {count:>6}   sent {expected:>6}  {}",
                if good { "ok" } else { "WRONG" }
            );
        }
    }

    // Overflow: counter 0 just below 2^64, interrupt enabled.
    let top = cfg.counter_mask() - 4;
    d.apb_write64(addr(RegId::Evcntr(0)), top, s);
    d.apb_write(addr(RegId::IntenSet0), 1, s);
    d.apb_write(
        addr(RegId::IrqCtrl),
        map.mask(field::IRQ_CTRL_IRQEN) as u32,
        s,
    );
    let irq_before = d.irq_pulses;
    d.apb_write(addr(RegId::Cr), map.mask(field::CR_E) as u32, s);
    let event1 = LaneIn {
        valid: true,
        events: 1 << cfg.lane_bit_of(1).expect("event 1"),
        ..LaneIn::default()
    };
    d.set_lanes(&vec![event1; cfg.lanes as usize]);
    d.idle(8);
    d.clear_lanes();
    d.idle(2);
    d.apb_write(addr(RegId::Cr), 0, s);
    let ovs = d.apb_read64(addr(RegId::OvsSet0), s);
    let value = d.apb_read64(addr(RegId::Evcntr(0)), s);
    let pulses = d.irq_pulses - irq_before;
    let overflow_ok = ovs & 1 == 1 && pulses == 1 && value == (top + 8) & cfg.counter_mask();
    ok &= overflow_ok;
    say!(
        "  overflow: EVCNTR0 {top:#x} + 8 events = {value:#x}, OVSSET0 = {ovs:#x}, irq pulses = {pulses}  {}",
        if overflow_ok { "ok" } else { "WRONG" }
    );
    match d.dut.mismatch {
        None => {
            say!(
                "  reference model agreed with the native RTL on all {} cycles",
                d.cycle
            )
        }
        Some((cycle, expected, actual)) => {
            ok = false;
            say!("  MISMATCH with the reference model at cycle {cycle}: {expected:x?} vs {actual:x?}");
        }
    }
    say!("{}", if ok { "demo passed" } else { "demo FAILED" });
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
