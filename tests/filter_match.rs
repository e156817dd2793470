//! Block-level tests of the match block (`pmcg_hdl::filter_match::FilterMatch`): in every cycle,
//! counter n's `match_nx` is 0 at a reset edge; (CR.E & CNTEN[n]) when its event selection after
//! the edge is event 0; else, while enabled, the number of registered lanes that count for it
//! under this cycle's event selection, filter, SCR and ROOTCR (SMMUv3 10.4, 10.4.2-10.4.4, 10.6;
//! docs/behaviour.md "Event lanes and counting", "Accepted set", "Reconfiguration"). The
//! reference is the reference model's match (`pmcg_sim::model::Model::lane_matches`, its own
//! decode from the raw register values), not the RTL. On the native block and on its emitted
//! Verilog under Verilator, every cycle, for the default configuration, a small one without
//! Secure state, the global filter, Realm with MPAM filtering and 3 lanes, MPAM with the global
//! filter, and filter tables.
//!
//! ```text
//!   emulated register file (random EVTYPERk / SMRk loads one edge after their "write", SCR /
//!   ROOTCR writes, CR.E, CNTEN, resets) + random lanes
//!        ├─► dyn MatchDut: native | verilator ──► match_nx[n] (before the edge)
//!        └─► Model::set_match_side(EVTYPERn, SMRn, SCR, ROOTCR) ─► lane_matches(lanes),
//!            counts_cycles(n) after the edge ─► want[n]
//! ```
//! The loads are driven as the register file drives them (regfile.rs, `self.fmatch.`): the
//! decode of the written register (`FilterDecode`, `event_sel`), `ld_sel` one-hot, `ld_wr0` for
//! counter 0; the `ld_*` inputs carry random values at edges that load nothing. With filter
//! tables, `tab_hit[l]` bit n is the StreamID compare of counter n's filter of this cycle (the
//! model's CARE / VALUE: `Model::sid_matches`), and a load is the tables' swap (the rebuild's
//! 257 edges are the tables' own tests' matter, tests/filter_table.rs); without, `tab_hit` is
//! random (the block ignores it).
//! `PMCG_SEED` sets the base seed (printed); `PMCG_BACKENDS` / `PMCG_REQUIRE_TOOLS=1` as in
//! tests/common.

mod common;

use pmcg_hdl::config::{lane_mpam_word, PmcgConfig, SidFilterType};
use pmcg_hdl::filter_decode::{event_sel, FilterDecode};
use pmcg_hdl::filter_match::{FilterMatch, MatchFault};
use pmcg_hdl::regmap::{field, Access, RegId, RegisterMap};
use pmcg_sim::model::Model;
use pmcg_sim::pins::{LaneIn, MpamSpace, SecState};
use pmcg_sim::verilator::VerilatedModel;
use pmcg_synth::filter_match::{filter_match_verilog, FILTER_MATCH_TOP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// One cycle's inputs of the block.
#[derive(Clone, Debug, Default)]
struct Inputs {
    rst: bool,
    lane_events: Vec<u32>,
    lane_sid: Vec<u32>,
    lane_acc: Vec<u8>,
    lane_nosid: Vec<bool>,
    lane_mpam: Vec<u32>,
    tab_hit: Vec<u64>,
    cr_e: bool,
    cnten: u64,
    scr: u64,
    rootcr: u64,
    scr_nx: u64,
    rootcr_nx: u64,
    ctl_wr: bool,
    sel_load: bool,
    filt_go: bool,
    ld_sel: u64,
    ld_wr0: bool,
    ld_evsel: u64,
    ld_cyc: bool,
    ld_care: u64,
    ld_mode: u64,
    smr_load: bool,
    ld_smr: u64,
}

trait MatchDut {
    fn name(&self) -> &'static str;
    /// Inputs in the low phase: `match_nx` before the edge; then the rising edge.
    fn cycle(&mut self, i: &Inputs) -> Vec<u8>;
}

struct NativeMatch(FilterMatch);

impl MatchDut for NativeMatch {
    fn name(&self) -> &'static str {
        "native"
    }

    fn cycle(&mut self, i: &Inputs) -> Vec<u8> {
        let u = &mut self.0;
        u.clock.next = Clock { clk: false };
        u.rst.next = i.rst;
        for l in 0..u.lane_events.len() {
            u.lane_events[l].next = (i.lane_events[l] as u64).into();
            u.lane_sid[l].next = (i.lane_sid[l] as u64).into();
            u.lane_acc[l].next = (i.lane_acc[l] as u64).into();
            u.lane_nosid[l].next = i.lane_nosid[l];
            u.lane_mpam[l].next = (i.lane_mpam[l] as u64).into();
            u.tab_hit[l].next = i.tab_hit[l].into();
        }
        u.cr_e.next = i.cr_e;
        u.cnten.next = i.cnten.into();
        u.scr.next = i.scr.into();
        u.rootcr.next = i.rootcr.into();
        u.scr_nx.next = i.scr_nx.into();
        u.rootcr_nx.next = i.rootcr_nx.into();
        u.ctl_wr.next = i.ctl_wr;
        u.sel_load.next = i.sel_load;
        u.filt_go.next = i.filt_go;
        u.ld_sel.next = i.ld_sel.into();
        u.ld_wr0.next = i.ld_wr0;
        u.ld_evsel.next = i.ld_evsel.into();
        u.ld_cyc.next = i.ld_cyc;
        u.ld_care.next = i.ld_care.into();
        u.ld_mode.next = i.ld_mode.into();
        u.smr_load.next = i.smr_load;
        u.ld_smr.next = i.ld_smr.into();
        common::settle_block(u, "the match block", 20);
        let out = u.match_nx.iter().map(|m| m.val().to_u64() as u8).collect();
        u.clock.next = Clock { clk: true };
        common::settle_block(u, "the match block", 20);
        out
    }
}

/// The scalar ports (the clock first), in this order.
const SCALARS: [&str; 19] = [
    "clock",
    "rst",
    "cr_e",
    "cnten",
    "scr",
    "rootcr",
    "scr_nx",
    "rootcr_nx",
    "ctl_wr",
    "sel_load",
    "filt_go",
    "ld_sel",
    "ld_wr0",
    "ld_evsel",
    "ld_cyc",
    "ld_care",
    "ld_mode",
    "smr_load",
    "ld_smr",
];

struct VerilatorMatch {
    m: VerilatedModel,
    p: [usize; 19],
    /// Per lane: lane_events, lane_sid, lane_acc, lane_nosid, lane_mpam, tab_hit.
    lane: Vec<[usize; 6]>,
    match_nx: Vec<usize>,
}

impl MatchDut for VerilatorMatch {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn cycle(&mut self, i: &Inputs) -> Vec<u8> {
        let m = &mut self.m;
        // In `SCALARS` order, the clock low.
        let values = [
            0,
            i.rst as u64,
            i.cr_e as u64,
            i.cnten,
            i.scr,
            i.rootcr,
            i.scr_nx,
            i.rootcr_nx,
            i.ctl_wr as u64,
            i.sel_load as u64,
            i.filt_go as u64,
            i.ld_sel,
            i.ld_wr0 as u64,
            i.ld_evsel,
            i.ld_cyc as u64,
            i.ld_care,
            i.ld_mode,
            i.smr_load as u64,
            i.ld_smr,
        ];
        for (&p, v) in self.p.iter().zip(values) {
            m.set(p, v);
        }
        for (l, &[ev, sid, acc, nosid, mpam, hit]) in self.lane.iter().enumerate() {
            m.set(ev, i.lane_events[l] as u64);
            m.set(sid, i.lane_sid[l] as u64);
            m.set(acc, i.lane_acc[l] as u64);
            m.set(nosid, i.lane_nosid[l] as u64);
            m.set(mpam, i.lane_mpam[l] as u64);
            m.set(hit, i.tab_hit[l]);
        }
        m.eval();
        let out = self.match_nx.iter().map(|&p| m.get(p) as u8).collect();
        m.set(self.p[0], 1);
        m.eval();
        out
    }
}

fn duts(cfg: &PmcgConfig, fault: Option<MatchFault>) -> Vec<Box<dyn MatchDut>> {
    let mut v: Vec<Box<dyn MatchDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            let mut u = FilterMatch::new(cfg, fault);
            u.connect_all();
            v.push(Box::new(NativeMatch(u)));
        } else {
            let text = filter_match_verilog(cfg, fault, FILTER_MATCH_TOP).unwrap();
            let (m, p) = common::block_model(&text, FILTER_MATCH_TOP, "the match block", SCALARS);
            let port = |n: String| {
                m.port(&n)
                    .unwrap_or_else(|| panic!("the match block has no port `{n}`"))
            };
            let lane = (0..cfg.lanes)
                .map(|l| {
                    [
                        "lane_events",
                        "lane_sid",
                        "lane_acc",
                        "lane_nosid",
                        "lane_mpam",
                        "tab_hit",
                    ]
                    .map(|name| port(format!("{name}${l}")))
                })
                .collect();
            let match_nx = (0..cfg.counters)
                .map(|n| port(format!("match_nx${n}")))
                .collect();
            v.push(Box::new(VerilatorMatch {
                m,
                p,
                lane,
                match_nx,
            }));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no backend");
    v
}

/// The registers around the block, as the register file holds them: the match side's
/// EVTYPERn and SMRn (the values its decode loaded), SCR, ROOTCR, CR.E and CNTEN.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Regs {
    evt: Vec<u64>,
    smr: Vec<u64>,
    scr: u64,
    rootcr: u64,
    cr_e: bool,
    cnten: u64,
}

/// The register map's facts the driver needs.
struct Map {
    map: RegisterMap,
    reset: Regs,
    evt_wmask: Vec<u64>,
    smr_wmask: Vec<u64>,
    smr_impl: Vec<u64>,
    evt_impl: u64,
    scr_wmask: u64,
    rootcr_wmask: u64,
    so: u64,
    /// ALL = 2^W - 1 (SMR.STREAMID), SMR.PARTID and SMR.PMG.
    sid_all: u64,
    partid: u64,
    pmg: u64,
    counters_mask: u64,
}

impl Map {
    fn new(cfg: &PmcgConfig) -> Map {
        let map = RegisterMap::new(cfg);
        let n = cfg.counters;
        let mask = |id: RegId| map.get(id).map_or(0, |r| r.mask_of(Access::RW));
        let reset = |id: RegId| map.get(id).map_or(0, |r| r.reset());
        let cr_reset = reset(RegId::Cr) & map.mask(field::CR_E) != 0;
        Map {
            reset: Regs {
                evt: (0..n).map(|i| reset(RegId::Evtyper(i))).collect(),
                smr: (0..n).map(|i| reset(RegId::Smr(i))).collect(),
                scr: reset(RegId::Scr),
                rootcr: reset(RegId::Rootcr),
                cr_e: cr_reset,
                cnten: reset(RegId::CntenSet0),
            },
            evt_wmask: (0..n).map(|i| mask(RegId::Evtyper(i))).collect(),
            smr_wmask: (0..n).map(|i| mask(RegId::Smr(i))).collect(),
            smr_impl: (0..n)
                .map(|i| map.get(RegId::Smr(i)).map_or(0, |r| r.impl_mask()))
                .collect(),
            evt_impl: map.reg(RegId::Evtyper(0)).impl_mask(),
            scr_wmask: mask(RegId::Scr),
            rootcr_wmask: mask(RegId::Rootcr),
            so: map.mask(field::SCR_SO),
            sid_all: map.mask(field::SMR_STREAMID),
            partid: map.mask(field::SMR_PARTID),
            pmg: map.mask(field::SMR_PMG),
            counters_mask: if n == 64 { u64::MAX } else { (1 << n) - 1 },
            map,
        }
    }
}

/// The event selection a load of EVTYPER value `evt` takes (`event_sel` layout), written from
/// the configuration's lane events as tests/filter_decode.rs does.
fn sel_of(cfg: &PmcgConfig, evt: u64) -> u64 {
    let event = (evt & 0xFFFF) as u16;
    if event == 0 {
        event_sel(true, false, 0)
    } else {
        match cfg.lane_event_ids().iter().position(|&e| e == event) {
            Some(k) => event_sel(false, true, k as u32),
            None => 0,
        }
    }
}

/// A random EVTYPER value as software writes one: EVENT a lane event, 0, or anything; every
/// filter bit random.
fn random_evt(rng: &mut ChaCha8Rng, cfg: &PmcgConfig, m: &Map) -> u64 {
    let ids = cfg.lane_event_ids();
    let event = match rng.gen_range(0..6) {
        0 => 0,
        1 => rng.gen_range(0..0x1_0000u64),
        _ => ids[rng.gen_range(0..ids.len())] as u64,
    };
    event | rng.gen::<u64>() & m.evt_impl & !0xFFFF
}

/// A random SMR value: STREAMID all ones, all ones but its top bit (the two match-all
/// encodings), ones below a random 0 (PartialSID), or anything; PARTID/PMG random, often at or
/// just above their limits.
fn random_smr(rng: &mut ChaCha8Rng, cfg: &PmcgConfig, m: &Map, k: usize) -> u64 {
    let all = m.sid_all;
    let sid = match rng.gen_range(0..5) {
        0 => all,
        1 => all >> 1,
        2 => {
            let zero = rng.gen_range(0..cfg.sid_bits);
            (rng.gen::<u64>() & all & !((2u64 << zero) - 1)) | ((1u64 << zero) - 1)
        }
        _ => rng.gen::<u64>() & all,
    };
    let mut smr = sid | rng.gen::<u64>() & m.smr_impl[k] & !all;
    if cfg.mpam_filter && rng.gen_ratio(2, 3) {
        let partid = [cfg.partid_max, cfg.s_partid_max][rng.gen_range(0..2)] as u64;
        let pmg = [cfg.pmg_max, cfg.s_pmg_max][rng.gen_range(0..2)] as u64;
        let partid = partid.saturating_sub(rng.gen_range(0..2)) + rng.gen_range(0..2);
        let pmg = pmg.saturating_sub(rng.gen_range(0..2)) + rng.gen_range(0..2);
        smr = smr & !(m.partid | m.pmg) | partid & 0xFFFF | (pmg & 0xFF) << 16;
    }
    smr
}

/// The coverage of a run: matches that counted lanes, lanes of a counter's enabled lane event
/// that its filter (or 10.4.4) dropped, lanes counted from NoStreamID and from Secure accesses,
/// cycle-event increments, SCR / ROOTCR changes, EVTYPER and SMR loads, resets, and increments
/// of 2 or more.
#[derive(Debug, Default)]
struct Seen {
    nonzero: u64,
    filtered_out: u64,
    nosid: u64,
    secure: u64,
    cycles: u64,
    ctl_changes: u64,
    evt_loads: u64,
    smr_loads: u64,
    resets: u64,
    multi: u64,
}

/// The stimulus: the emulated register file, a cycle at a time.
struct Stim<'a> {
    cfg: &'a PmcgConfig,
    m: Map,
    regs: Regs,
    rng: ChaCha8Rng,
    /// The reference model, holding the match side of this cycle (`regs`).
    model: Model,
}

impl<'a> Stim<'a> {
    fn new(cfg: &'a PmcgConfig, seed: u64) -> Self {
        let m = Map::new(cfg);
        let regs = m.reset.clone();
        let mut model = Model::new(cfg);
        model.set_match_side(&regs.evt, &regs.smr, regs.scr, regs.rootcr);
        Stim {
            cfg,
            m,
            regs,
            rng: ChaCha8Rng::seed_from_u64(seed),
            model,
        }
    }

    /// A random lane as the pins carry it: StreamIDs and MPAM labels often a counter's SMR's.
    fn random_lane(&mut self) -> LaneIn {
        let (cfg, m, rng) = (self.cfg, &self.m, &mut self.rng);
        let lane_bits = (1u64 << cfg.lane_event_ids().len()) - 1;
        let mut events = (rng.gen::<u64>() & lane_bits) as u32;
        if rng.gen_ratio(1, 8) {
            events |= rng.gen::<u32>(); // bits of no supported event too
        }
        let smr = self.regs.smr[if cfg.sid_filter == SidFilterType::Global {
            0
        } else {
            rng.gen_range(0..cfg.counters as usize)
        }];
        let sid = match rng.gen_range(0..8) {
            0..=3 => smr & m.sid_all,
            4 => (smr & m.sid_all) ^ 1 << rng.gen_range(0..cfg.sid_bits),
            5 => rng.gen::<u64>() & m.sid_all,
            _ => rng.gen::<u32>() as u64,
        } as u32;
        let (partid, pmg) = if rng.gen_ratio(2, 3) {
            ((smr & m.partid) as u16, ((smr & m.pmg) >> 16) as u8)
        } else {
            (
                rng.gen_range(0..=cfg.partid_max as u32 + 1) as u16,
                rng.gen(),
            )
        };
        LaneIn {
            valid: rng.gen_ratio(4, 5),
            events,
            sid,
            ss: SecState::ALL[rng.gen_range(0..6)],
            nosid: rng.gen_ratio(1, 5),
            partid,
            pmg,
            mpam_sp: MpamSpace::ALL[rng.gen_range(0..4)],
        }
    }

    /// The next cycle: its inputs, the lanes as the model takes them, the expected `match_nx`;
    /// `regs` and the model advance to after the edge.
    fn next(&mut self, seen: &mut Seen, t: u64) -> (Inputs, Vec<LaneIn>, Vec<u8>) {
        let cfg = self.cfg;
        let lanes: Vec<LaneIn> = (0..cfg.lanes).map(|_| self.random_lane()).collect();
        let (m, rng, cur) = (&self.m, &mut self.rng, &self.regs);
        let mut i = Inputs {
            rst: t == 0 || rng.gen_ratio(1, 1_000),
            lane_events: lanes
                .iter()
                .map(|l| if l.valid { l.events } else { 0 })
                .collect(),
            lane_sid: lanes.iter().map(|l| l.sid).collect(),
            // The top block's one-hot of the lane's `acc` code: Root and SA only from
            // NoStreamID accesses (top.rs).
            lane_acc: lanes
                .iter()
                .map(|l| {
                    let root_or_sa = matches!(l.ss, SecState::Root | SecState::SystemAgent);
                    if !l.nosid && root_or_sa {
                        0
                    } else {
                        1 << l.ss.code()
                    }
                })
                .collect(),
            lane_nosid: lanes.iter().map(|l| l.nosid).collect(),
            lane_mpam: lanes
                .iter()
                .map(|l| lane_mpam_word(l.partid, l.pmg, l.mpam_sp.code()))
                .collect(),
            tab_hit: if cfg.filter_tables {
                lanes
                    .iter()
                    .map(|l| self.model.sid_matches(l.sid))
                    .collect()
            } else {
                lanes.iter().map(|_| rng.gen()).collect()
            },
            cr_e: cur.cr_e,
            cnten: cur.cnten,
            scr: cur.scr,
            rootcr: cur.rootcr,
            scr_nx: cur.scr,
            rootcr_nx: cur.rootcr,
            // The loads' inputs, random at an edge that loads nothing.
            ld_sel: rng.gen(),
            ld_wr0: rng.gen(),
            ld_evsel: rng.gen_range(0..128),
            ld_cyc: rng.gen(),
            ld_care: rng.gen::<u32>() as u64,
            ld_mode: rng.gen_range(0..1 << 13),
            ld_smr: rng.gen::<u32>() as u64,
            ..Default::default()
        };
        let mut nx = cur.clone();
        // (a) The decode of an EVTYPERk or SMRk write of the previous edge loads at this edge.
        if rng.gen_ratio(1, 5) {
            let k = if rng.gen_ratio(1, 3) {
                0
            } else {
                rng.gen_range(0..cfg.counters as usize)
            };
            let evt_write = m.smr_wmask[k] == 0 || rng.gen_ratio(1, 2);
            let (evt, smr) = if evt_write {
                (random_evt(rng, cfg, m) & m.evt_wmask[k], cur.smr[k])
            } else {
                (cur.evt[k], random_smr(rng, cfg, m, k))
            };
            let f = FilterDecode::new(cfg, &m.map, evt, smr);
            i.filt_go = true;
            i.ld_sel = 1 << k;
            i.ld_wr0 = k == 0;
            i.ld_care = f.care;
            i.ld_mode = f.mode;
            if evt_write {
                i.sel_load = true;
                i.ld_evsel = sel_of(cfg, evt);
                i.ld_cyc = evt & 0xFFFF == 0;
                nx.evt[k] = evt;
                seen.evt_loads += 1;
            } else {
                // The register file's SMR write data (the block keeps the writable bits). With
                // filter tables the swap loads the event selection too (unchanged).
                i.smr_load = true;
                if cfg.filter_tables {
                    i.sel_load = true;
                    i.ld_evsel = sel_of(cfg, evt);
                    i.ld_cyc = evt & 0xFFFF == 0;
                }
                i.ld_smr = smr;
                nx.smr[k] = smr & m.smr_wmask[k];
                seen.smr_loads += 1;
            }
        }
        // (b) An SCR or ROOTCR write at this edge (SO toggled, or anything).
        if rng.gen_ratio(1, 8) {
            i.ctl_wr = true;
            if m.rootcr_wmask != 0 && rng.gen_ratio(1, 2) {
                nx.rootcr = rng.gen::<u64>() & m.rootcr_wmask;
            } else if rng.gen_ratio(1, 2) {
                nx.scr = cur.scr ^ m.so;
            } else {
                nx.scr = rng.gen::<u64>() & m.scr_wmask;
            }
            seen.ctl_changes += (nx.scr != cur.scr || nx.rootcr != cur.rootcr) as u64;
        }
        // (c) CR.E and CNTEN writes, mostly enabling.
        if rng.gen_ratio(1, 12) {
            nx.cr_e = rng.gen_ratio(5, 6);
            nx.cnten = match rng.gen_range(0..4) {
                0 => u64::MAX,
                1 => rng.gen(),
                _ => rng.gen::<u64>() | rng.gen::<u64>(),
            } & m.counters_mask;
        }
        // (e) A reset edge: every register takes its reset value, the loads are dropped.
        if i.rst {
            nx = m.reset.clone();
            seen.resets += 1;
        }
        i.scr_nx = nx.scr;
        i.rootcr_nx = nx.rootcr;
        // The reference: this cycle's lane match under this cycle's registers, then the event
        // selection after the edge.
        let enabled = if cur.cr_e { cur.cnten } else { 0 };
        let hits = self.model.lane_matches(&lanes);
        if enabled != 0 && !i.rst {
            // Coverage: the lanes counted (by some enabled counter) from NoStreamID and from
            // Secure accesses.
            for l in lanes.iter().filter(|l| l.nosid || l.ss == SecState::Secure) {
                let lane_hits = self.model.lane_matches(std::slice::from_ref(l));
                let counted = (0..lane_hits.len()).any(|n| {
                    lane_hits[n] > 0 && enabled >> n & 1 != 0 && !self.model.counts_cycles(n)
                });
                seen.nosid += (counted && l.nosid) as u64;
                seen.secure += (counted && l.ss == SecState::Secure) as u64;
            }
        }
        if nx != *cur {
            self.model
                .set_match_side(&nx.evt, &nx.smr, nx.scr, nx.rootcr);
        }
        let ids = cfg.lane_event_ids();
        let want = (0..cfg.counters as usize)
            .map(|n| {
                let en = enabled >> n & 1 != 0;
                if i.rst {
                    0
                } else if self.model.counts_cycles(n) {
                    seen.cycles += en as u64;
                    en as u8
                } else if en {
                    // Coverage: lanes carrying the counter's lane event that did not count.
                    let event = (cur.evt[n] & 0xFFFF) as u16;
                    if let Some(k) = ids.iter().position(|&e| e == event) {
                        let carried = lanes
                            .iter()
                            .filter(|l| l.valid && l.events >> k & 1 != 0)
                            .count() as u64;
                        seen.filtered_out += carried.saturating_sub(hits[n] as u64);
                    }
                    seen.nonzero += (hits[n] > 0) as u64;
                    seen.multi += (hits[n] > 1) as u64;
                    hits[n] as u8
                } else {
                    0
                }
            })
            .collect();
        self.regs = nx;
        (i, lanes, want)
    }
}

/// Runs `cycles` random cycles on `duts`; the first mismatch.
fn run(
    cfg: &PmcgConfig,
    mut duts: Vec<Box<dyn MatchDut>>,
    seed: u64,
    cycles: u64,
) -> Result<Seen, String> {
    let mut stim = Stim::new(cfg, seed);
    let mut seen = Seen::default();
    for t in 0..cycles {
        let cur = stim.regs.clone();
        let (i, lanes, want) = stim.next(&mut seen, t);
        for dut in duts.iter_mut() {
            let got = dut.cycle(&i);
            if let Some(n) = (0..want.len()).find(|&n| got[n] != want[n]) {
                let g = if cfg.sid_filter == SidFilterType::Global {
                    0
                } else {
                    n
                };
                return Err(format!(
                    "{}: cycle {t}, seed {seed}: counter {n}: match_nx {} (want {}); \
                     EVTYPER{n} {:#x}, filter EVTYPER{g} {:#x} SMR{g} {:#x}, SCR {:#x}, \
                     ROOTCR {:#x}, CR.E {}, CNTEN[{n}] {}; after the edge: EVTYPER{n} {:#x}, \
                     SCR {:#x}, ROOTCR {:#x}; lanes {lanes:x?}; inputs {i:x?}",
                    dut.name(),
                    got[n],
                    want[n],
                    cur.evt[n],
                    cur.evt[g],
                    cur.smr[g],
                    cur.scr,
                    cur.rootcr,
                    cur.cr_e,
                    cur.cnten >> n & 1,
                    stim.regs.evt[n],
                    stim.regs.scr,
                    stim.regs.rootcr,
                ));
            }
        }
    }
    Ok(seen)
}

/// The configurations and their cycles (the 64-counter default simulates slowest natively).
const CONFIGS: [(&str, u64); 6] = [
    ("default", 8_000),
    ("small", 15_000),
    ("odd", 15_000),
    ("6x32 realm mpam 3 lanes", 15_000),
    ("4x36 mpam global no-secure", 15_000),
    ("9x40 filter tables realm 3 lanes sid12", 15_000),
];

#[test]
fn random_cycles_match_as_the_reference_model_says() {
    let seed = common::base_seed() ^ 0xf3a7;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    for (i, (name, cycles)) in CONFIGS.iter().enumerate() {
        let (name, cfg) = common::named_config(name);
        let start = std::time::Instant::now();
        let seen = run(&cfg, duts(&cfg, None), seed + i as u64, *cycles)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        println!(
            "{name}: {cycles} cycles in {:.1} s: {seen:?}",
            start.elapsed().as_secs_f64()
        );
        assert!(
            seen.nonzero > 0 && seen.filtered_out > 0 && seen.cycles > 0,
            "{name}: the matches missed a corner: {seen:?}"
        );
        assert!(
            seen.nosid > 0,
            "{name}: no NoStreamID access counted: {seen:?}"
        );
        assert!(
            seen.secure > 0 || !cfg.secure,
            "{name}: no Secure access counted: {seen:?}"
        );
        assert!(
            seen.evt_loads > 0 && seen.smr_loads > 0 && seen.resets > 1,
            "{name}: {seen:?}"
        );
        assert_eq!(seen.ctl_changes > 0, cfg.secure, "{name}: {seen:?}");
        assert_eq!(seen.multi > 0, cfg.lanes > 1, "{name}: {seen:?}");
    }
}

/// The validator: a match block whose accepted states and event kinds are loaded from their
/// sources' values before the edge (an SCR, ROOTCR, filter or event change missed until the next
/// load) fails on every backend.
#[test]
fn a_stale_accepted_set_is_caught_on_every_backend() {
    let seed = common::base_seed() ^ 0x5ac7;
    println!("seed {seed} (PMCG_SEED {})", common::base_seed());
    let (name, cfg) = common::named_config("6x32 realm mpam 3 lanes");
    for dut in duts(&cfg, Some(MatchFault::StaleAccept)) {
        let who = dut.name();
        let err = run(&cfg, vec![dut], seed, 4_000)
            .expect_err(&format!("{who}: the stale accepted sets went unnoticed"));
        eprintln!("caught ({name}): {err}");
        assert!(err.contains(": match_nx "), "{err}");
    }
}

#[test]
fn the_match_block_synthesizes_with_no_latch() {
    if !common::have_tool("yosys") {
        return;
    }
    let (_, cfg) = common::named_config("6x32 realm mpam 3 lanes");
    let work = std::env::temp_dir().join(format!("pmcg-fmatch-yosys-{}", std::process::id()));
    pmcg_synth::filter_match::synthesize_filter_match(&cfg, &work).unwrap();
    let log = std::fs::read_to_string(work.join("yosys.log")).unwrap();
    assert!(
        !log.contains("Latch inferred"),
        "a latch in the match block"
    );
    let stat = std::fs::read_to_string(work.join("stat.txt")).unwrap();
    assert!(stat.contains("SB_DFF"), "no flip-flop in:\n{stat}");
    let _ = std::fs::remove_dir_all(&work);
}
