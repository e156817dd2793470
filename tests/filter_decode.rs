//! Block-level tests of the filter decoder (`pmcg_hdl::filter_decode::FilterDecoder`): after an
//! edge with `load`, its outputs are the decode of that edge's (EVTYPER, SMR), as the plain-Rust
//! `FilterDecode` and `event_sel` define it (SMMUv3 10.4, 10.4.2, 10.4.3; docs/behaviour.md);
//! after an edge without, they hold. On the native block and on its emitted Verilog under
//! Verilator, every edge, for configurations that cover the StreamID widths (1, 8, 12, 16 and 32
//! bits), Secure, Realm and MPAM filtering, and 1-8 lane events.
//!
//! ```text
//!   load, evt, smr ──► dyn DecodeDut: native | verilator ──► sel, cyc, care, mode, smr_q
//!                  └─► reference: FilterDecode::new(cfg, map, evt, smr), event_sel(EVENT)
//! ```
//! `PMCG_SEED` sets the base seed (printed); `PMCG_BACKENDS` / `PMCG_REQUIRE_TOOLS=1` as in
//! tests/common.

mod common;

use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::filter_decode::{event_sel, DecoderFault, FilterDecode, FilterDecoder};
use pmcg_hdl::regmap::{RegId, RegisterMap};
use pmcg_sim::verilator::VerilatedModel;
use pmcg_synth::filter_decode::{filter_decode_verilog, FILTER_DECODE_TOP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// The outputs after an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Outputs {
    sel: u64,
    cyc: bool,
    care: u64,
    mode: u64,
    smr_q: u64,
}

/// The contract: the decode of the loaded (EVTYPER, SMR), written from the plain-Rust decode.
fn reference(cfg: &PmcgConfig, map: &RegisterMap, evt: u64, smr: u64) -> Outputs {
    let f = FilterDecode::new(cfg, map, evt, smr);
    let event = (evt & 0xFFFF) as u16;
    let sel = if event == 0 {
        event_sel(true, false, 0)
    } else {
        match cfg.lane_event_ids().iter().position(|&e| e == event) {
            Some(k) => event_sel(false, true, k as u32),
            None => 0,
        }
    };
    Outputs {
        sel,
        cyc: event == 0,
        care: f.care,
        mode: f.mode,
        smr_q: smr,
    }
}

trait DecodeDut {
    fn name(&self) -> &'static str;
    /// Inputs in the low phase, then a rising edge: the outputs after it.
    fn edge(&mut self, load: bool, evt: u64, smr: u64) -> Outputs;
}

struct NativeDecode(FilterDecoder);

impl DecodeDut for NativeDecode {
    fn name(&self) -> &'static str {
        "native"
    }

    fn edge(&mut self, load: bool, evt: u64, smr: u64) -> Outputs {
        let u = &mut self.0;
        u.clock.next = Clock { clk: false };
        u.load.next = load;
        u.evt.next = evt.into();
        u.smr.next = smr.into();
        common::settle_block(u, "the filter decoder", 20);
        u.clock.next = Clock { clk: true };
        common::settle_block(u, "the filter decoder", 20);
        Outputs {
            sel: u.sel.val().to_u64(),
            cyc: u.cyc.val(),
            care: u.care.val().to_u64(),
            mode: u.mode.val().to_u64(),
            smr_q: u.smr_q.val().to_u64(),
        }
    }
}

struct VerilatorDecode {
    m: VerilatedModel,
    /// clock, load, evt, smr, sel, cyc, care, mode, smr_q
    p: [usize; 9],
}

impl DecodeDut for VerilatorDecode {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn edge(&mut self, load: bool, evt: u64, smr: u64) -> Outputs {
        let [clock, load_p, evt_p, smr_p, sel, cyc, care, mode, smr_q] = self.p;
        let m = &mut self.m;
        m.set(clock, 0);
        m.set(load_p, load as u64);
        m.set(evt_p, evt);
        m.set(smr_p, smr);
        m.eval();
        m.set(clock, 1);
        m.eval();
        Outputs {
            sel: m.get(sel),
            cyc: m.get(cyc) != 0,
            care: m.get(care),
            mode: m.get(mode),
            smr_q: m.get(smr_q),
        }
    }
}

fn duts(cfg: &PmcgConfig, fault: Option<DecoderFault>) -> Vec<Box<dyn DecodeDut>> {
    let mut v: Vec<Box<dyn DecodeDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            let mut u = FilterDecoder::new(cfg, fault);
            u.connect_all();
            v.push(Box::new(NativeDecode(u)));
        } else {
            let text = filter_decode_verilog(cfg, fault, FILTER_DECODE_TOP).unwrap();
            let (m, p) = common::block_model(
                &text,
                FILTER_DECODE_TOP,
                "the filter decoder",
                [
                    "clock", "load", "evt", "smr", "sel", "cyc", "care", "mode", "smr_q",
                ],
            );
            v.push(Box::new(VerilatorDecode { m, p }));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no backend");
    v
}

/// A random EVTYPER value as software writes one: EVENT a lane event, 0, or anything; every
/// filter bit random (FILTER_SID_SPAN, FILTER_SEC_SID, ..., the MPAM bits where implemented).
fn random_evt(rng: &mut ChaCha8Rng, cfg: &PmcgConfig, map: &RegisterMap) -> u64 {
    let ids = cfg.lane_event_ids();
    let event = match rng.gen_range(0..4) {
        0 => 0,
        1 => rng.gen_range(0..0x1_0000u64),
        _ => ids[rng.gen_range(0..ids.len())] as u64,
    };
    let writable = map.reg(RegId::Evtyper(0)).impl_mask() & !0xFFFF;
    event | rng.gen::<u64>() & writable
}

/// A random SMR value: STREAMID all ones, all ones but its top bit (the two match-all
/// encodings), ones below a random 0 (PartialSID), or anything; PARTID/PMG random, sometimes
/// at or just above their limits.
fn random_smr(rng: &mut ChaCha8Rng, cfg: &PmcgConfig, map: &RegisterMap) -> u64 {
    let all = (1u64 << cfg.sid_bits) - 1;
    let sid = match rng.gen_range(0..5) {
        0 => all,
        1 => all >> 1,
        2 => {
            let zero = rng.gen_range(0..cfg.sid_bits);
            (rng.gen::<u64>() & all & !((2u64 << zero) - 1)) | ((1u64 << zero) - 1)
        }
        _ => rng.gen::<u64>() & all,
    };
    let others = map.reg(RegId::Smr(0)).impl_mask() & !all;
    let mut smr = sid | rng.gen::<u64>() & others;
    if cfg.mpam_filter && rng.gen_ratio(1, 2) {
        // PARTID [15:0] and PMG [23:16] at or just above a limit.
        let partid = [cfg.partid_max, cfg.s_partid_max][rng.gen_range(0..2)] as u64;
        let pmg = [cfg.pmg_max, cfg.s_pmg_max][rng.gen_range(0..2)] as u64;
        smr = smr & !0xFF_FFFF
            | (partid + rng.gen_range(0..2)) & 0xFFFF
            | ((pmg + rng.gen_range(0..2)) & 0xFF) << 16;
    }
    smr
}

/// How many loads decoded to each corner: match-all, AllSIDManySECSID, MPAM filtering, event
/// 0, a lane event, an unsupported event.
#[derive(Debug, Default)]
struct Corners {
    all: u32,
    many: u32,
    mpam: u32,
    cycles: u32,
    lane: u32,
    unsupported: u32,
}

/// Runs `edges` random edges (a load in about half) on `duts`; the first mismatch.
fn run(
    cfg: &PmcgConfig,
    mut duts: Vec<Box<dyn DecodeDut>>,
    seed: u64,
    edges: u32,
) -> Result<Corners, String> {
    let map = RegisterMap::new(cfg);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = Corners::default();
    // The registers start at 0: the first load defines every output.
    let mut want: Option<Outputs> = None;
    for t in 0..edges {
        let load = t == 0 || rng.gen_ratio(1, 2);
        let evt = random_evt(&mut rng, cfg, &map);
        let smr = random_smr(&mut rng, cfg, &map);
        if load {
            let w = reference(cfg, &map, evt, smr);
            seen.all += (w.mode & 1) as u32;
            seen.many += (w.mode >> 1 & 1) as u32;
            seen.mpam += (w.mode >> 4 & 1) as u32;
            seen.cycles += w.cyc as u32;
            seen.lane += (w.sel >> 5 & 1) as u32;
            seen.unsupported += (w.sel == 0) as u32;
            want = Some(w);
        }
        for dut in duts.iter_mut() {
            let got = dut.edge(load, evt, smr);
            let want = want.expect("the first edge loads");
            if got != want {
                let differ: Vec<&str> = [
                    ("sel", got.sel != want.sel),
                    ("cyc", got.cyc != want.cyc),
                    ("care", got.care != want.care),
                    ("mode", got.mode != want.mode),
                    ("smr_q", got.smr_q != want.smr_q),
                ]
                .iter()
                .filter(|(_, d)| *d)
                .map(|(n, _)| *n)
                .collect();
                return Err(format!(
                    "{}: edge {t} (load {load}, evt {evt:#x}, smr {smr:#x}), seed {seed}: \
                     outputs {differ:?} differ: got {got:x?}, want {want:x?}",
                    dut.name()
                ));
            }
        }
    }
    Ok(seen)
}

const CONFIGS: [&str; 5] = [
    "default",
    "small",
    "1x64 sid1",
    "6x32 realm mpam 3 lanes",
    "16x48 8 lanes sid32",
];

#[test]
fn random_writes_decode_as_the_plain_rust_decode_says() {
    let seed = common::base_seed() ^ 0xfdec;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    for (i, name) in CONFIGS.iter().enumerate() {
        let (name, cfg) = common::named_config(name);
        let seen = run(&cfg, duts(&cfg, None), seed + i as u64, 3_000)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        println!("{name}: {seen:?}");
        assert!(
            seen.all > 0 && seen.many > 0 && seen.cycles > 0 && seen.lane > 0,
            "{name}: the loads missed a corner: {seen:?}"
        );
        assert!(
            seen.unsupported > 0,
            "{name}: no unsupported event: {seen:?}"
        );
        assert_eq!(seen.mpam > 0, cfg.mpam_filter, "{name}: {seen:?}");
    }
}

/// The validator: a decoder whose match-all flags come from the SMR before the write fails.
#[test]
fn a_stale_match_all_decode_is_caught_on_every_backend() {
    let seed = common::base_seed() ^ 0x5a1e;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    let (name, cfg) = common::named_config("default");
    for dut in duts(&cfg, Some(DecoderFault::StaleMatchAll)) {
        let who = dut.name();
        let err = run(&cfg, vec![dut], seed, 3_000)
            .expect_err(&format!("{who}: the stale match-all flags went unnoticed"));
        eprintln!("caught ({name}): {err}");
        assert!(err.contains("outputs [\"mode\"] differ"), "{err}");
    }
}

#[test]
fn the_decoder_synthesizes_with_no_latch() {
    if !common::have_tool("yosys") {
        return;
    }
    let (_, cfg) = common::named_config("6x32 realm mpam 3 lanes");
    let work = std::env::temp_dir().join(format!("pmcg-fdec-yosys-{}", std::process::id()));
    pmcg_synth::filter_decode::synthesize_filter_decode(&cfg, &work).unwrap();
    let log = std::fs::read_to_string(work.join("yosys.log")).unwrap();
    assert!(
        !log.contains("Latch inferred"),
        "a latch in the filter decoder"
    );
    let stat = std::fs::read_to_string(work.join("stat.txt")).unwrap();
    assert!(stat.contains("SB_DFF"), "no flip-flop in:\n{stat}");
    let _ = std::fs::remove_dir_all(&work);
}
