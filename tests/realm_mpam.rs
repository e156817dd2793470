//! Realm/Root state filtering (10.4 and its Realm tables, 10.4.2, 10.7), MPAM PARTID/PMG filtering
//! (10.4.3), non-attributable events (10.4.4) and the register rules that come with them (ROOTCR,
//! the SCR alias and SCR.NAO, MPAMIDR/S_MPAMIDR, the new EVTYPER fields, PNSE) on every backend
//! (reference model, native RustHDL simulation, emitted Verilog under Verilator).
//! Contract: docs/behaviour.md, "Security (10.6, 10.7)", "Event lanes and counting" and
//! "StreamID and security-state filtering".
//!
//! ```text
//!   lane l: valid, events, sid S, ss SS (6 states), nosid N, partid, pmg, mpam_sp ─────┐
//!   EVTYPERn {EVENT, SPAN, SEC, REALM, FILTER_PARTID, FILTER_PMG, FILTER_MPAM_SP}       ▼
//!   SMRn (STREAMID, or PARTID [15:0] / PMG [23:16]) ──────────────────────────────► match stage
//!   SCR {SO, NAO} (Secure/Root), ROOTCR {RLO, RTO, SAO, PMO, NAO} (Root writes only)   │
//!                                                                                       ▼
//!   counted(cfg, ctl, filter, event, lane)   the oracle below, written from the contract and
//!        │                                   checked against the spec's tables (oracle_* tests)
//!        ▼
//!   every expected value in this file (or a cycle count from the edges the writes act at)
//! ```
//!
//! Tests:
//! - `oracle_*`: the oracle against the spec's Rel/Sec table, the AllSIDManySECSID list, the
//!   10.4.2 NoStreamID rules and note, the FILTER_MPAM_SP table and limits (10.4.3), the 10.4.4
//!   rules, and the pre-Realm Secure-state rule. They need no design.
//! - `exhaustive_realm_filter_w1` .. `_w3`: realm=on, W = 1, 2, 3 StreamID bits, one counter per
//!   (SPAN, SEC, REALM, SMR value); for every (SO, RLO, RTO, SAO, PMO), every StreamID x six states
//!   x NoStreamID flag, one event at a time on a rotating lane, read back as an overflow vector.
//! - `mpam_directed_realm`, `mpam_directed_secure_no_realm`: FILTER_PARTID / FILTER_PMG alone and
//!   together, every FILTER_MPAM_SP with SO and RLO both ways, values at and above the MPAMIDR and
//!   S_MPAMIDR limits, StreamID ignored, events 3 and 5 filtered, event 0 / global / non-attributable
//!   events unaffected; exact counts over a product of lane attributes.
//! - `mpam_random_w16`: seeded random filters and traffic (`PMCG_SEED` reproduces it; printed).
//! - `nonattr_without_secure`, `nonattr_secure_no_realm`, `nonattr_realm`: 10.4.4 gating.
//! - Registers: `rootcr_access_per_state`, `scr_alias_and_nao`, `mpam_id_registers_and_cfgr`,
//!   `evtyper_new_fields_read_back`, `smr_implements_24_bits_with_mpam`,
//!   `pnse_ignored_without_realm`.
//! - `control_writes_apply_to_events_at_their_documented_cycle`: ROOTCR (RLO, RTO, SAO/PMO, NAO),
//!   SCR.NAO through the alias, FILTER_REALM_SID, SMR.PARTID and FILTER_MPAM_SP writes.
//! - `realm_scripts_pass_on_every_backend`: tests/scripts/{realm-filter,mpam-partid,nonattr}.pmcg.
//!
//! Readings of the contract where it leaves room (each is what the oracle implements):
//! - AllSIDManySECSID: Root (RTO) and SA (SAO) belong to Rel = FILTER_REALM_SID & RLO = 1 whatever
//!   FILTER_SEC_SID, so both also need RLO; Secure needs SO and (Rel = 0 or SEC = 1).
//! - PMO gates every PM = 1 access (NSP), with or without a StreamID, in every mode; NSP is then
//!   accepted exactly when Non-secure is. Root and SA with a StreamID never count, MPAM mode included.
//! - With the MPAM filter and W < 24, SMR bits [23:W] are not StreamID bits: the mode and the match
//!   use the low W bits only (E2 writes junk there); with W > 24, bits [W-1:24] are ignored by the
//!   MPAM filter. FILTER_MPAM_SP written as 0b1x without Realm behaves as its bit 18 alone.
//! - The limit is that of the space FILTER_MPAM_SP resolves to after SO/RLO (00 with SO = 0 is
//!   Non-secure, so MPAMIDR's limit applies); Realm uses MPAMIDR's limits.
//! - SCR.NAO and ROOTCR.NAO changes take effect with the same timing as the filter (from the
//!   write's access cycle). Without Secure state non-attributable events always count.
//! - Realm accesses obey NSRA like Non-secure ones for every register (MPAMIDR, ROOTCR reads
//!   included); Root accesses are never blocked by NSRA and may write SCR (both views).
//! - Without Secure state S_MPAMIDR is absent (RAZ/WI) and MPAMIDR is readable by every access.
//!
//! Timing used (docs/behaviour.md): lane inputs presented in cycle e are counted at edge e+2
//! ([`COUNT_DELAY`]) and seen by a read set up in cycle e+2; a write (EVTYPERn, SMRn, SCR, ROOTCR, CR, CNTEN) completed
//! before an event is presented is in force for it; CR.E written at edge `on` and cleared at edge
//! `off` lets a cycle counter count `off - on` edges.

mod common;
use common::sid_modes::{all_ones, care, mode, Mode};

use common::{for_each_backend, COUNT_DELAY};
use pmcg_hdl::config::{PmcgConfig, SidFilterType};
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{offset, Access as FieldAccess, RegId, RegisterMap};
use pmcg_sim::pins::{Access, Driver, Dut, LaneIn, MpamSpace, PinInputs, SecState};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type D = Driver<Box<dyn Dut>>;

const S: Access = Access::Secure;
const NS: Access = Access::NonSecure;
const ROOT: Access = Access::Root;
const REALM: Access = Access::Realm;
const ACCESSES: [Access; 4] = [S, NS, ROOT, REALM];
const ONES: u32 = u32::MAX;

/// The filterable event most tests count (10.3: transaction or request).
const EVENT_1: u16 = 1;
/// IMPLEMENTATION DEFINED events of the shared configurations: filterable, global,
/// non-attributable.
const IMPDEF: u16 = 0x80;
const GLOBAL: u16 = 0x81;
const NONATTR: u16 = 0x82;

// ---------------------------------------------------------------------------------------------
// Configurations (each Verilator model is built once and cached)
// ---------------------------------------------------------------------------------------------

fn parse(items: &[&str]) -> PmcgConfig {
    PmcgConfig::parse_kv(items.iter().copied()).unwrap()
}

/// "R": Realm and MPAM, 16 x 32-bit counters, 4 lanes, W = 16, default MPAM limits
/// (MPAMIDR 0xFF / 7, S_MPAMIDR 0xF / 1). The scripts use the same configuration.
fn cfg_realm() -> (String, PmcgConfig) {
    let c = parse(&[
        "counters=16",
        "counter_bits=32",
        "lanes=4",
        "realm=on",
        "mpam_filter=on",
        "impdef=0x80,0x81,0x82",
        "impdef_global=0x81",
        "impdef_nonattr=0x82",
        "capture=off",
        "msi=off",
    ]);
    assert_eq!(c.sid_bits, 16);
    ("R: realm mpam 16x32 4 lanes".into(), c)
}

/// "S": Secure state without Realm, MPAM with non-default limits, 12 x 32-bit counters, 2
/// lanes, W = 28 (so SMR has StreamID bits above PMG).
fn cfg_secure() -> (String, PmcgConfig) {
    let c = parse(&[
        "counters=12",
        "counter_bits=32",
        "lanes=2",
        "sid_bits=28",
        "secure=on",
        "realm=off",
        "mpam_filter=on",
        "partid_max=0x123",
        "pmg_max=0x1F",
        "s_partid_max=0x45",
        "s_pmg_max=0x3",
        "impdef=0x80,0x81,0x82",
        "impdef_global=0x81",
        "impdef_nonattr=0x82",
        "capture=off",
        "msi=off",
    ]);
    ("S: secure mpam 12x32 2 lanes sid28".into(), c)
}

/// "N": no Secure state, MPAM (PMG_MAX = 0), global filter, 4 x 32-bit counters, 2 lanes, W = 8.
fn cfg_nonsecure() -> (String, PmcgConfig) {
    let c = parse(&[
        "counters=4",
        "counter_bits=32",
        "lanes=2",
        "sid_bits=8",
        "secure=off",
        "mpam_filter=on",
        "partid_max=0x3F",
        "pmg_max=0",
        "sid_filter=global",
        "impdef=0x80,0x81,0x82",
        "impdef_global=0x81",
        "impdef_nonattr=0x82",
        "capture=off",
        "msi=off",
    ]);
    ("N: no secure mpam global 4x32 2 lanes".into(), c)
}

/// The exhaustive configurations: realm=on, W StreamID bits, 8·2^W x 32-bit counters (one per
/// SPAN, SEC, REALM and SMR value), W + 1 lanes; W = 2 also has the MPAM filter (unused by the
/// exhaustive test's filters: FILTER_PARTID = FILTER_PMG = 0).
fn cfg_exhaustive(w: u32) -> (String, PmcgConfig) {
    let counters = format!("counters={}", 8u32 << w);
    let sid_bits = format!("sid_bits={w}");
    let lanes = format!("lanes={}", w + 1);
    let mpam = if w == 2 {
        "mpam_filter=on"
    } else {
        "mpam_filter=off"
    };
    let c = parse(&[
        &counters,
        "counter_bits=32",
        &lanes,
        &sid_bits,
        "realm=on",
        mpam,
        "capture=off",
        "msi=off",
    ]);
    (format!("E{w}: realm exhaustive W={w} ({mpam})"), c)
}

// ---------------------------------------------------------------------------------------------
// The oracle (docs/behaviour.md, "StreamID and security-state filtering")
// ---------------------------------------------------------------------------------------------

/// SCR and ROOTCR bits as software programs them (absent bits are 0 to the oracle).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Ctl {
    /// SCR.SO, SCR.NAO.
    so: bool,
    scr_nao: bool,
    /// ROOTCR.RLO, RTO, SAO, PMO, NAO.
    rlo: bool,
    rto: bool,
    sao: bool,
    pmo: bool,
    root_nao: bool,
}

impl Ctl {
    /// The values after reset (contract: every bit 0 but ROOTCR.NAO).
    const RESET: Ctl = Ctl {
        so: false,
        scr_nao: false,
        rlo: false,
        rto: false,
        sao: false,
        pmo: false,
        root_nao: true,
    };

    /// The bits that exist in this configuration (SO without Secure state, the rest without
    /// Realm, are 0).
    fn effective(self, cfg: &PmcgConfig) -> Ctl {
        let r = cfg.realm;
        Ctl {
            so: self.so && cfg.secure,
            scr_nao: self.scr_nao && r,
            rlo: self.rlo && r,
            rto: self.rto && r,
            sao: self.sao && r,
            pmo: self.pmo && r,
            root_nao: self.root_nao && r,
        }
    }

    /// The 2^7 combinations, bit i of `i` selecting the fields in declaration order.
    fn from_bits(i: u32) -> Ctl {
        Ctl {
            so: i & 1 != 0,
            scr_nao: i & 2 != 0,
            rlo: i & 4 != 0,
            rto: i & 8 != 0,
            sao: i & 16 != 0,
            pmo: i & 32 != 0,
            root_nao: i & 64 != 0,
        }
    }

    fn describe(&self) -> String {
        format!(
            "SO={} SCR.NAO={} RLO={} RTO={} SAO={} PMO={} ROOTCR.NAO={}",
            self.so as u8,
            self.scr_nao as u8,
            self.rlo as u8,
            self.rto as u8,
            self.sao as u8,
            self.pmo as u8,
            self.root_nao as u8
        )
    }
}

/// One counter's filter as software programs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Filter {
    /// EVTYPERn.FILTER_SID_SPAN, FILTER_SEC_SID, FILTER_REALM_SID.
    span: bool,
    sec: bool,
    realm: bool,
    /// EVTYPERn.FILTER_PARTID, FILTER_PMG, FILTER_MPAM_SP (written as 2 bits; bit 19 is RES0
    /// without Realm).
    partid: bool,
    pmg: bool,
    sp: u8,
    /// The value written to SMRn (bits above the implemented ones are dropped by the register).
    smr: u32,
}

impl Filter {
    fn sid(span: bool, sec: bool, realm: bool, x: u32) -> Filter {
        Filter {
            span,
            sec,
            realm,
            smr: x,
            ..Filter::default()
        }
    }

    /// An MPAM filter: PARTID and/or PMG, the PARTID space, SMR = PMG << 16 | PARTID.
    fn mpam(partid: Option<u16>, pmg: Option<u8>, sp: u8) -> Filter {
        Filter {
            partid: partid.is_some(),
            pmg: pmg.is_some(),
            sp,
            smr: partid.unwrap_or(0) as u32 | (pmg.unwrap_or(0) as u32) << 16,
            ..Filter::default()
        }
    }

    fn with_sec_realm(mut self, sec: bool, realm: bool) -> Filter {
        self.sec = sec;
        self.realm = realm;
        self
    }

    fn describe(&self, cfg: &PmcgConfig) -> String {
        let w = cfg.sid_bits;
        let smr = self.smr & smr_mask(cfg);
        let x = smr & all_ones(w);
        let mut s = format!(
            "SPAN={} SEC={} REALM={} SMR={smr:#x}",
            self.span as u8, self.sec as u8, self.realm as u8
        );
        if cfg.mpam_filter && (self.partid || self.pmg) {
            s += &format!(
                " MPAM: FILTER_PARTID={} FILTER_PMG={} FILTER_MPAM_SP={:#b} (PARTID={:#x} PMG={:#x})",
                self.partid as u8,
                self.pmg as u8,
                self.sp,
                smr & 0xFFFF,
                smr >> 16 & 0xFF
            );
        } else {
            s += &format!(
                " ({:?}, CARE={:#x})",
                mode(w, self.span, x),
                care(w, self.span, x)
            );
        }
        s
    }
}

/// Implemented SMRn bits: W, or max(W, 24) with the MPAM filter.
fn smr_mask(cfg: &PmcgConfig) -> u32 {
    let bits = if cfg.mpam_filter {
        cfg.sid_bits.max(24)
    } else {
        cfg.sid_bits
    };
    all_ones(bits)
}

/// The contract's accepted set: whether a lane in state `ss` (NoStreamID flag `nosid`) is in the
/// set of a counter with FILTER_SEC_SID `sec` and FILTER_REALM_SID `realm` (already 0 when not
/// implemented), in AllSIDManySECSID (`many`) or a one-state mode, under the effective controls.
fn accepted(c: Ctl, sec: bool, realm: bool, many: bool, ss: SecState, nosid: bool) -> bool {
    let rel = realm && c.rlo;
    let sec_eff = sec && c.so;
    let in_set = |s: SecState| -> bool {
        if many {
            match s {
                SecState::NonSecure => true,
                SecState::Secure => c.so && (!rel || sec),
                SecState::Realm => rel,
                SecState::Root => rel && c.rto,
                SecState::SystemAgent => rel && c.sao,
                SecState::NonSecureProtected => unreachable!("NSP is checked as Non-secure"),
            }
        } else {
            let one = match (rel, sec_eff) {
                (false, true) => SecState::Secure,
                (true, false) => SecState::Realm,
                // (0, 0) and the reserved (1, 1).
                _ => SecState::NonSecure,
            };
            s == one
        }
    };
    match ss {
        // Root and SA: NoStreamID accesses only.
        SecState::Root | SecState::SystemAgent => nosid && in_set(ss),
        // NSP: as Non-secure, and only with PMO.
        SecState::NonSecureProtected => c.pmo && in_set(SecState::NonSecure),
        _ => in_set(ss),
    }
}

/// The PARTID space FILTER_MPAM_SP selects (10.5.2.2): 00 and 10 Secure if SO else Non-secure;
/// 01 Non-secure; 11 Realm if RLO else Non-secure. Without Realm bit 19 is RES0.
fn selected_space(cfg: &PmcgConfig, c: Ctl, sp: u8) -> MpamSpace {
    let sp = if cfg.realm { sp & 3 } else { sp & 1 };
    match sp {
        0 | 2 if c.so => MpamSpace::Secure,
        3 if c.rlo => MpamSpace::Realm,
        _ => MpamSpace::NonSecure,
    }
}

/// (PARTID_MAX, PMG_MAX) of a PARTID space: S_MPAMIDR's for Secure, MPAMIDR's otherwise.
fn limits(cfg: &PmcgConfig, space: MpamSpace) -> (u16, u8) {
    if space == MpamSpace::Secure {
        (cfg.s_partid_max, cfg.s_pmg_max)
    } else {
        (cfg.partid_max, cfg.pmg_max)
    }
}

/// Whether the filter is an MPAM filter (FILTER_PARTID or FILTER_PMG, with the MPAM filter).
fn is_mpam(cfg: &PmcgConfig, f: &Filter) -> bool {
    cfg.mpam_filter && (f.partid || f.pmg)
}

/// Whether a valid lane carrying a filterable event passes filter `f` under controls `ctl`.
fn passes(cfg: &PmcgConfig, ctl: Ctl, f: &Filter, l: &LaneIn) -> bool {
    let c = ctl.effective(cfg);
    let w = cfg.sid_bits;
    let all = all_ones(w);
    let smr = f.smr & smr_mask(cfg);
    let x = smr & all;
    let sec = f.sec && cfg.secure;
    let realm = f.realm && cfg.realm;
    let mpam = is_mpam(cfg, f);
    let cr = care(w, f.span, x);
    let many = mpam || mode(w, f.span, x) == Mode::AllSidManySecSid;
    let sid_ok = mpam
        || if l.nosid {
            f.span && cr == 0
        } else {
            l.sid & all & cr == x & cr
        };
    let state_ok = accepted(c, sec, realm, many, l.ss, l.nosid);
    let mpam_ok = !mpam || {
        let space = selected_space(cfg, c, f.sp);
        let (pmax, gmax) = limits(cfg, space);
        let (partid, pmg) = ((smr & 0xFFFF) as u16, (smr >> 16 & 0xFF) as u8);
        l.mpam_sp == space
            && (!f.partid || (l.partid == partid && partid <= pmax))
            && (!f.pmg || (l.pmg == pmg && pmg <= gmax))
    };
    sid_ok && state_ok && mpam_ok
}

/// 10.4.4 as the contract states it: whether non-attributable events count.
fn nonattr_counts(cfg: &PmcgConfig, ctl: Ctl) -> bool {
    let c = ctl.effective(cfg);
    if !cfg.secure {
        true
    } else if !cfg.realm {
        c.so
    } else {
        c.root_nao && (c.so || c.scr_nao)
    }
}

/// Whether a counter selecting lane event `event` with filter `f` counts lane `l` (valid and
/// carrying the event are checked here too).
fn counted(p: &Pmcg, ctl: Ctl, f: &Filter, event: u16, l: &LaneIn) -> bool {
    if !l.valid || l.events & p.lane_bit(event) == 0 {
        return false;
    }
    if p.cfg.impdef_global.contains(&event) {
        true
    } else if p.cfg.impdef_nonattr.contains(&event) {
        nonattr_counts(&p.cfg, ctl)
    } else {
        passes(&p.cfg, ctl, f, l)
    }
}

/// The count of a counter selecting lane event `event` with filter `f` over `history`.
fn expected_count(p: &Pmcg, ctl: Ctl, f: &Filter, event: u16, history: &[Vec<LaneIn>]) -> u64 {
    history
        .iter()
        .flatten()
        .filter(|l| counted(p, ctl, f, event, l))
        .count() as u64
}

/// A valid lane carrying `events`, with the given StreamID, state and NoStreamID flag (MPAM
/// inputs 0, 0, Non-secure).
fn lane(events: u32, sid: u32, ss: SecState, nosid: bool) -> LaneIn {
    LaneIn {
        valid: true,
        events,
        sid,
        ss,
        nosid,
        ..LaneIn::default()
    }
}

/// A valid lane with MPAM inputs.
fn mpam_lane(events: u32, ss: SecState, partid: u16, pmg: u8, sp: MpamSpace) -> LaneIn {
    LaneIn {
        valid: true,
        events,
        sid: 0x1234,
        ss,
        nosid: false,
        partid,
        pmg,
        mpam_sp: sp,
    }
}

/// Asserts that a test's expectations include a counted and an uncounted case, so that it cannot
/// pass on a design that counts everything or nothing.
fn assert_not_vacuous(what: &str, expected: &[u64]) {
    assert!(
        expected.iter().any(|&c| c > 0) && expected.contains(&0),
        "{what}: the expected counts must include zero and nonzero ones: {expected:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Oracle checks against the spec (no design needed)
// ---------------------------------------------------------------------------------------------

/// A Realm + MPAM configuration for the oracle-only tests.
fn oracle_cfg(w: u32) -> PmcgConfig {
    let sid_bits = format!("sid_bits={w}");
    parse(&[&sid_bits, "realm=on", "mpam_filter=on"])
}

fn oracle_pmcg(cfg: &PmcgConfig) -> Pmcg {
    Pmcg::new("oracle", cfg)
}

/// The spec's Realm table for ExactSID, PartialSID and AllSIDOneSECSID: Rel = FILTER_REALM_SID &
/// RLO, Sec = FILTER_SEC_SID & SO; 00 Non-secure only, 01 Secure only, 10 Realm only, 11 reserved,
/// behaves as 00. Every (REALM, SEC, SO, RLO, RTO, SAO, PMO), every state, both NoStreamID flags.
#[test]
fn oracle_realm_rel_sec_table() {
    const W: u32 = 4;
    let cfg = oracle_cfg(W);
    // The spec's table, literally.
    let table = |rel: u8, sec: u8| match (rel, sec) {
        (0, 0) => SecState::NonSecure,
        (0, 1) => SecState::Secure,
        (1, 0) => SecState::Realm,
        (1, 1) => SecState::NonSecure,
        _ => unreachable!(),
    };
    // (mode, SPAN, X, a StreamID inside the filter)
    let modes = [
        (Mode::ExactSid, false, 0x9, 0x9),
        (Mode::PartialSid, true, 0x9, 0x8),
        (Mode::AllSidOneSecSid, true, 0x7, 0x3),
    ];
    let mut seen = [0u32; 2];
    for (m, span, x, sid) in modes {
        assert_eq!(mode(W, span, x), m);
        for i in 0..128 {
            let ctl = Ctl::from_bits(i);
            for (sec, realm) in [(false, false), (true, false), (false, true), (true, true)] {
                let f = Filter::sid(span, sec, realm, x);
                let rel = (realm && ctl.rlo) as u8;
                let secb = (sec && ctl.so) as u8;
                let one = table(rel, secb);
                for nosid in [false, true] {
                    for ss in SecState::ALL {
                        let l = lane(1, sid, ss, nosid);
                        // StreamID: NoStreamID accesses only where CARE = 0 (AllSIDOneSECSID).
                        let sid_ok = !nosid || m == Mode::AllSidOneSecSid;
                        let state_ok = match ss {
                            SecState::NonSecureProtected => ctl.pmo && one == SecState::NonSecure,
                            s => s == one,
                        };
                        let want = sid_ok && state_ok;
                        let got = passes(&cfg, ctl, &f, &l);
                        assert_eq!(
                            got,
                            want,
                            "{m:?} SEC={} REALM={} {} {ss:?} nosid={nosid}",
                            sec as u8,
                            realm as u8,
                            ctl.describe()
                        );
                        seen[got as usize] += 1;
                        // Outside the filter nothing counts (AllSIDOneSECSID has no outside).
                        if !nosid && m != Mode::AllSidOneSecSid {
                            let outside = lane(1, sid ^ 0x8, ss, false);
                            assert!(!passes(&cfg, ctl, &f, &outside), "{m:?} outside");
                        }
                    }
                }
            }
        }
    }
    assert!(seen[0] > 0 && seen[1] > 0);
}

/// The spec's AllSIDManySECSID list, transcribed literally (FILTER_REALM_SID treated as 0 when
/// RLO = 0, 10.5.2.2; the RTO and SAO items read as belonging to FILTER_REALM_SID = 1 whatever
/// FILTER_SEC_SID is, as the contract says), plus 10.4.2: Root and SA from NoStreamID accesses
/// only, NSP as Non-secure with PMO. Compared with the oracle for every combination.
#[test]
fn oracle_all_sid_many_sec_sid_list() {
    const W: u32 = 5;
    let cfg = oracle_cfg(W);
    let spec_set = |realm: bool, sec: bool, c: Ctl| -> Vec<SecState> {
        let realm = realm && c.rlo;
        let mut v = vec![SecState::NonSecure];
        if !realm {
            if c.so {
                v.push(SecState::Secure);
            }
        } else {
            if sec && c.so {
                v.push(SecState::Secure);
            }
            if c.rlo {
                v.push(SecState::Realm);
            }
            if c.rto {
                v.push(SecState::Root);
            }
            if c.sao {
                v.push(SecState::SystemAgent);
            }
        }
        v
    };
    let mut counted_root = false;
    for i in 0..128 {
        let ctl = Ctl::from_bits(i);
        for sec in [false, true] {
            for realm in [false, true] {
                let set = spec_set(realm, sec, ctl);
                for x in [all_ones(W), u32::MAX] {
                    let f = Filter::sid(true, sec, realm, x);
                    for nosid in [false, true] {
                        for sid in [0, 0x15, 0x1F] {
                            for ss in SecState::ALL {
                                let want = match ss {
                                    SecState::Root | SecState::SystemAgent => {
                                        nosid && set.contains(&ss)
                                    }
                                    SecState::NonSecureProtected => ctl.pmo,
                                    s => set.contains(&s),
                                };
                                let got = passes(&cfg, ctl, &f, &lane(1, sid, ss, nosid));
                                assert_eq!(
                                    got,
                                    want,
                                    "AllSIDManySECSID SEC={} REALM={} {} {ss:?} nosid={nosid}",
                                    sec as u8,
                                    realm as u8,
                                    ctl.describe()
                                );
                                counted_root |= got && ss == SecState::Root;
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(counted_root, "some filter counts NoStreamID Root accesses");
}

/// 10.4.2: NoStreamID accesses count only under SPAN = 1 with a match-all STREAMID, and, per its
/// note, "if FILTER_REALM_SID is zero, or not implemented, then no PMCG events are counted for
/// accesses from NoStreamID devices to Root or Realm physical address spaces". Every filter of
/// W = 3 (SPAN, SEC, REALM, X), every control combination, Realm implemented or not; SA counts
/// only in AllSIDManySECSID with SAO; NSP like Non-secure with PMO.
#[test]
fn oracle_nostreamid_rules() {
    const W: u32 = 3;
    let with_realm = oracle_cfg(W);
    let without = parse(&["sid_bits=3", "mpam_filter=on"]);
    let mut realm_counted = false;
    for cfg in [&with_realm, &without] {
        for i in 0..128 {
            let ctl = Ctl::from_bits(i);
            for x in 0..8 {
                for bits in 0..8u32 {
                    let (span, sec, realm) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
                    let f = Filter::sid(span, sec, realm, x);
                    let m = mode(W, span, x);
                    for ss in SecState::ALL {
                        let got = passes(cfg, ctl, &f, &lane(1, 0, ss, true));
                        if got {
                            assert!(
                                matches!(m, Mode::AllSidManySecSid | Mode::AllSidOneSecSid),
                                "NoStreamID counted in {m:?}"
                            );
                        }
                        if !(realm && cfg.realm) && matches!(ss, SecState::Root | SecState::Realm) {
                            assert!(!got, "FILTER_REALM_SID=0: NoStreamID {ss:?} counted");
                        }
                        if ss == SecState::SystemAgent && got {
                            assert!(m == Mode::AllSidManySecSid && ctl.sao && cfg.realm);
                        }
                        let ns = passes(cfg, ctl, &f, &lane(1, 0, SecState::NonSecure, true));
                        if ss == SecState::NonSecureProtected {
                            assert_eq!(got, ns && ctl.pmo && cfg.realm, "NSP as NS with PMO");
                        }
                        realm_counted |= got && ss == SecState::Realm;
                    }
                }
            }
        }
    }
    assert!(
        realm_counted,
        "FILTER_REALM_SID = 1 lets NoStreamID Realm accesses count"
    );
}

/// Without Realm the accepted set is the Secure-state rule of 10.4/10.6 (the pre-Realm
/// contract): Non-secure in AllSIDManySECSID or when SEC & SO = 0, Secure in AllSIDManySECSID
/// when SO = 1 or else when SEC & SO; Realm, Root, SA and NSP never (REALM and ROOTCR absent).
/// Without Secure state only Non-secure.
#[test]
fn oracle_without_realm_is_the_secure_state_rule() {
    const W: u32 = 4;
    for secure in [false, true] {
        let cfg = if secure {
            parse(&["sid_bits=4"])
        } else {
            parse(&["sid_bits=4", "secure=off"])
        };
        for i in 0..128 {
            let ctl = Ctl::from_bits(i);
            for x in 0..16 {
                for bits in 0..8u32 {
                    let (span, sec, realm) = (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0);
                    let f = Filter::sid(span, sec, realm, x);
                    let many = mode(W, span, x) == Mode::AllSidManySecSid;
                    let so = ctl.so && secure;
                    let sec_eff = sec && so && secure;
                    for ss in SecState::ALL {
                        let want_state = match ss {
                            SecState::NonSecure => many || !sec_eff,
                            SecState::Secure => {
                                if many {
                                    so
                                } else {
                                    sec_eff
                                }
                            }
                            _ => false,
                        };
                        let sid = x & care(W, span, x);
                        let got = passes(&cfg, ctl, &f, &lane(1, sid, ss, false));
                        assert_eq!(got, want_state, "secure={secure} {ss:?} {f:?}");
                    }
                }
            }
        }
    }
}

/// 10.4.4, literally: without Realm but with Secure state, non-attributable events count only
/// when SCR.SO = 1; with the Realm programming interface only when ROOTCR.NAO = 1 and SCR.SO or
/// SCR.NAO is 1; without Secure state (the contract) always. Global events always count; the
/// filter never matters.
#[test]
fn oracle_non_attributable_10_4_4() {
    let items = [
        "impdef=0x80,0x81,0x82",
        "impdef_global=0x81",
        "impdef_nonattr=0x82",
    ];
    let with = |extra: &[&str]| {
        let mut v: Vec<&str> = items.to_vec();
        v.extend_from_slice(extra);
        parse(&v)
    };
    let n = with(&["secure=off"]);
    let s = with(&[]);
    let r = with(&["realm=on", "mpam_filter=on"]);
    let rejecting = Filter {
        span: false,
        sec: true,
        realm: true,
        partid: true,
        pmg: true,
        sp: 3,
        smr: 0xFFFF_FFFF,
    };
    let mut seen = [false; 2];
    for (cfg, name) in [(&n, "N"), (&s, "S"), (&r, "R")] {
        let p = oracle_pmcg(cfg);
        for i in 0..128 {
            let ctl = Ctl::from_bits(i);
            let want = match name {
                "N" => true,
                "S" => ctl.so,
                _ => ctl.root_nao && (ctl.so || ctl.scr_nao),
            };
            for ss in SecState::ALL {
                let l = lane(p.lane_bits(), 0x77, ss, false);
                assert_eq!(
                    counted(&p, ctl, &rejecting, NONATTR, &l),
                    want,
                    "{name}: {} {ss:?}",
                    ctl.describe()
                );
                assert!(counted(&p, ctl, &rejecting, GLOBAL, &l));
                assert!(!counted(&p, ctl, &rejecting, EVENT_1, &l));
                seen[want as usize] = true;
            }
        }
    }
    assert!(seen[0] && seen[1]);
}

/// 10.4.3 and 10.5.2.2: the FILTER_MPAM_SP table (00 Secure if SO else Non-secure, 01 Non-secure,
/// 10 as 00, 11 Realm if RLO else Non-secure; bit 19 RES0 without Realm), the MPAMIDR /
/// S_MPAMIDR limits (a value above its space's limit counts nothing, at the limit counts),
/// PARTID and PMG each alone, StreamID ignored, NoStreamID accesses pass, the accepted set is
/// AllSIDManySECSID's.
#[test]
fn oracle_mpam_rules() {
    let cfg = oracle_cfg(16);
    let norealm = parse(&["sid_bits=16", "mpam_filter=on"]);
    assert_eq!((cfg.partid_max, cfg.pmg_max), (0xFF, 7));
    assert_eq!((cfg.s_partid_max, cfg.s_pmg_max), (0xF, 1));
    let table = [
        // (sp, SO, RLO, space with Realm, space without Realm)
        (0, false, false, MpamSpace::NonSecure, MpamSpace::NonSecure),
        (0, true, false, MpamSpace::Secure, MpamSpace::Secure),
        (1, true, true, MpamSpace::NonSecure, MpamSpace::NonSecure),
        (2, true, true, MpamSpace::Secure, MpamSpace::Secure),
        (2, false, true, MpamSpace::NonSecure, MpamSpace::NonSecure),
        (3, false, true, MpamSpace::Realm, MpamSpace::NonSecure),
        (3, true, false, MpamSpace::NonSecure, MpamSpace::NonSecure),
        (3, true, true, MpamSpace::Realm, MpamSpace::NonSecure),
    ];
    for (sp, so, rlo, with_realm, without_realm) in table {
        let c = Ctl {
            so,
            rlo,
            ..Ctl::RESET
        };
        assert_eq!(selected_space(&cfg, c.effective(&cfg), sp), with_realm);
        assert_eq!(
            selected_space(&norealm, c.effective(&norealm), sp),
            without_realm
        );
    }
    let ctl = Ctl {
        so: true,
        rlo: true,
        ..Ctl::RESET
    };
    let ns = |partid, pmg| mpam_lane(1, SecState::NonSecure, partid, pmg, MpamSpace::NonSecure);
    // FILTER_PARTID alone: PMG ignored; at the limit counts, above it nothing.
    let f = Filter::mpam(Some(0xFF), None, 1);
    assert!(passes(&cfg, ctl, &f, &ns(0xFF, 5)));
    assert!(!passes(&cfg, ctl, &f, &ns(0xFE, 5)));
    assert!(!passes(
        &cfg,
        ctl,
        &Filter::mpam(Some(0x100), None, 1),
        &ns(0x100, 0)
    ));
    // FILTER_PMG alone: PARTID ignored.
    let f = Filter::mpam(None, Some(7), 1);
    assert!(passes(&cfg, ctl, &f, &ns(0x1234, 7)));
    assert!(!passes(&cfg, ctl, &f, &ns(0x1234, 6)));
    assert!(!passes(
        &cfg,
        ctl,
        &Filter::mpam(None, Some(8), 1),
        &ns(0, 8)
    ));
    // Both.
    let f = Filter::mpam(Some(0x12), Some(3), 1);
    assert!(passes(&cfg, ctl, &f, &ns(0x12, 3)));
    assert!(!passes(&cfg, ctl, &f, &ns(0x12, 2)));
    assert!(!passes(&cfg, ctl, &f, &ns(0x13, 3)));
    // Secure space: S_MPAMIDR's limits. 0xF counts, 0x10 (fine for Non-secure) does not.
    let sec = |partid, pmg| mpam_lane(1, SecState::Secure, partid, pmg, MpamSpace::Secure);
    assert!(passes(
        &cfg,
        ctl,
        &Filter::mpam(Some(0xF), Some(1), 0),
        &sec(0xF, 1)
    ));
    assert!(!passes(
        &cfg,
        ctl,
        &Filter::mpam(Some(0x10), None, 0),
        &sec(0x10, 1)
    ));
    assert!(!passes(
        &cfg,
        ctl,
        &Filter::mpam(None, Some(2), 0),
        &sec(0, 2)
    ));
    assert!(passes(
        &cfg,
        ctl,
        &Filter::mpam(Some(0x10), None, 1),
        &ns(0x10, 2)
    ));
    // The lane's space must be the selected one.
    let f = Filter::mpam(Some(5), None, 1);
    for sp in MpamSpace::ALL {
        let l = mpam_lane(1, SecState::NonSecure, 5, 0, sp);
        assert_eq!(passes(&cfg, ctl, &f, &l), sp == MpamSpace::NonSecure);
    }
    // StreamID ignored whatever SPAN and STREAMID say; NoStreamID passes too.
    let mut f = Filter::mpam(Some(5), None, 1);
    f.span = false;
    let mut l = ns(5, 0);
    for (sid, nosid) in [(0, false), (0x5, false), (0xFFFF, false), (0x77, true)] {
        (l.sid, l.nosid) = (sid, nosid);
        assert!(passes(&cfg, ctl, &f, &l), "sid {sid:#x} nosid={nosid}");
    }
    // The accepted set is AllSIDManySECSID's: Secure with SO, Realm only with REALM.
    let f = Filter::mpam(Some(5), None, 1);
    let st = |ss| mpam_lane(1, ss, 5, 0, MpamSpace::NonSecure);
    assert!(passes(&cfg, ctl, &f, &st(SecState::Secure)));
    assert!(!passes(&cfg, ctl, &f, &st(SecState::Realm)));
    assert!(passes(
        &cfg,
        ctl,
        &f.with_sec_realm(false, true),
        &st(SecState::Realm)
    ));
    assert!(
        !passes(&cfg, ctl, &f, &st(SecState::Root)),
        "Root needs a NoStreamID access"
    );
    // Without the MPAM filter flags the MPAM inputs are ignored.
    let f = Filter {
        sp: 3,
        ..Filter::sid(true, false, false, 0xFFFF)
    };
    assert!(passes(
        &cfg,
        ctl,
        &f,
        &mpam_lane(1, SecState::NonSecure, 9, 9, MpamSpace::Root)
    ));
}

// ---------------------------------------------------------------------------------------------
// Register helpers
// ---------------------------------------------------------------------------------------------

/// A configuration with its register map and register-level helpers; every address and field
/// position comes from the map.
struct Pmcg {
    name: String,
    cfg: PmcgConfig,
    map: RegisterMap,
    event_mask: u32,
    span_mask: u32,
    sec_mask: u32,
    realm_mask: u32,
    partid_mask: u32,
    pmg_mask: u32,
    /// FILTER_MPAM_SP's lsb (with the MPAM filter).
    sp_lsb: Option<u32>,
}

impl Pmcg {
    fn new(name: &str, cfg: &PmcgConfig) -> Pmcg {
        let map = RegisterMap::new(cfg);
        let m = |f: &str| map.field_mask(RegId::Evtyper(0), f) as u32;
        let sp_lsb = map
            .reg(RegId::Evtyper(0))
            .field("FILTER_MPAM_SP")
            .map(|f| f.lsb);
        assert_eq!(sp_lsb.is_some(), cfg.mpam_filter, "{name}: FILTER_MPAM_SP");
        assert_eq!(
            m("FILTER_REALM_SID") != 0,
            cfg.realm,
            "{name}: FILTER_REALM_SID"
        );
        Pmcg {
            name: name.to_string(),
            cfg: cfg.clone(),
            event_mask: m("EVENT"),
            span_mask: m("FILTER_SID_SPAN"),
            sec_mask: m("FILTER_SEC_SID"),
            realm_mask: m("FILTER_REALM_SID"),
            partid_mask: m("FILTER_PARTID"),
            pmg_mask: m("FILTER_PMG"),
            sp_lsb,
            map,
        }
    }

    fn addr(&self, id: RegId) -> u32 {
        self.map.reg(id).addr
    }

    fn mask(&self, id: RegId, field: &str) -> u32 {
        self.map.field_mask(id, field) as u32
    }

    /// A full-word write of the low word of `id` through `acc`; returns the edge it acts at.
    fn write_as(&self, d: &mut D, id: RegId, v: u32, acc: Access) -> u64 {
        d.apb_write(self.addr(id), v, acc);
        d.cycle - 1
    }

    fn write(&self, d: &mut D, id: RegId, v: u32) -> u64 {
        self.write_as(d, id, v, S)
    }

    fn read_as(&self, d: &mut D, id: RegId, acc: Access) -> u32 {
        d.apb_read(self.addr(id), acc)
    }

    fn lane_bit(&self, event: u16) -> u32 {
        1 << self
            .cfg
            .lane_bit_of(event)
            .unwrap_or_else(|| panic!("{}: event {event:#x} is not a lane event", self.name))
    }

    fn lane_bits(&self) -> u32 {
        all_ones(self.cfg.lane_event_ids().len() as u32)
    }

    /// An EVTYPER value: EVENT and the filter fields at EVTYPER0's positions; FILTER_MPAM_SP is
    /// written as two bits (bit 19 is RES0 without Realm).
    fn evtyper(&self, event: u16, f: &Filter) -> u32 {
        let bit = |b: bool, m: u32| if b { m } else { 0 };
        (event as u32 & self.event_mask)
            | bit(f.span, self.span_mask)
            | bit(f.sec, self.sec_mask)
            | bit(f.realm, self.realm_mask)
            | bit(f.partid, self.partid_mask)
            | bit(f.pmg, self.pmg_mask)
            | self.sp_lsb.map(|lsb| (f.sp as u32 & 3) << lsb).unwrap_or(0)
    }

    /// EVTYPERn, then SMRn when this configuration has one for n.
    fn program(&self, d: &mut D, n: u32, event: u16, f: &Filter) {
        self.write(d, RegId::Evtyper(n), self.evtyper(event, f));
        if self.map.get(RegId::Smr(n)).is_some() {
            self.write(d, RegId::Smr(n), f.smr);
        }
    }

    /// The SCR value for SO and NAO (other fields at reset).
    fn scr_value(&self, so: bool, nao: bool) -> u32 {
        let so_m = self.mask(RegId::Scr, "SO");
        let nao_m = self.mask(RegId::Scr, "NAO");
        let base = self.map.reg(RegId::Scr).reset() as u32 & !(so_m | nao_m);
        base | if so { so_m } else { 0 } | if nao { nao_m } else { 0 }
    }

    /// The ROOTCR value with these RW bits.
    fn rootcr_value(&self, c: Ctl) -> u32 {
        let m = |f| self.mask(RegId::Rootcr, f);
        let bit = |b: bool, f| if b { m(f) } else { 0 };
        bit(c.rlo, "RLO")
            | bit(c.rto, "RTO")
            | bit(c.sao, "SAO")
            | bit(c.pmo, "PMO")
            | bit(c.root_nao, "NAO")
    }

    /// SCR (Secure write) and ROOTCR (Root write) as `c` says, where they exist.
    fn set_ctl(&self, d: &mut D, c: Ctl) {
        if self.cfg.secure {
            self.write(d, RegId::Scr, self.scr_value(c.so, c.scr_nao));
        }
        if self.cfg.realm {
            self.write_as(d, RegId::Rootcr, self.rootcr_value(c), ROOT);
        }
    }

    fn write_bits(&self, d: &mut D, id: RegId, bits: u64) {
        let a = self.addr(id);
        if bits as u32 != 0 {
            d.apb_write(a, bits as u32, S);
        }
        if bits >> 32 != 0 {
            d.apb_write(a + 4, (bits >> 32) as u32, S);
        }
    }

    /// CNTENSET0, then CR.E = 1; returns CR.E's edge.
    fn enable(&self, d: &mut D, counters: u64) -> u64 {
        self.write_bits(d, RegId::CntenSet0, counters);
        self.write(d, RegId::Cr, self.mask(RegId::Cr, "E"))
    }

    /// CR.E = 0; returns its edge.
    fn stop(&self, d: &mut D) -> u64 {
        self.write(d, RegId::Cr, 0)
    }

    /// EVCNTRn (every configuration here has 32-bit counters).
    fn counter(&self, d: &mut D, n: u32) -> u64 {
        assert!(!self.cfg.wide_counters());
        d.apb_read(self.addr(RegId::Evcntr(n)), S) as u64
    }

    fn set_counter(&self, d: &mut D, n: u32, v: u64) {
        assert!(!self.cfg.wide_counters());
        d.apb_write(self.addr(RegId::Evcntr(n)), v as u32, S);
    }

    /// OVSSET0 (the high word only with more than 32 counters).
    fn ovs(&self, d: &mut D) -> u64 {
        let a = self.addr(RegId::OvsSet0);
        let lo = d.apb_read(a, S) as u64;
        if self.cfg.counters > 32 {
            lo | (d.apb_read(a + 4, S) as u64) << 32
        } else {
            lo
        }
    }

    /// Clears the OVS bits of `wrapped` and sets those counters back to their maximum.
    fn rearm(&self, d: &mut D, wrapped: u64) {
        if wrapped == 0 {
            return;
        }
        self.write_bits(d, RegId::OvsClr0, wrapped);
        for n in bits_of(wrapped) {
            self.set_counter(d, n, self.cfg.counter_mask());
        }
    }

    /// The filter in force for counter n: its own, or counter 0's with the global filter.
    fn filter_of<'a>(&self, programs: &'a [(u16, Filter)], n: usize) -> &'a Filter {
        match self.cfg.sid_filter {
            SidFilterType::PerCounter => &programs[n].1,
            SidFilterType::Global => &programs[0].1,
        }
    }

    /// The expected lane-event counts of `programs` (event 0: `None`, a cycle count).
    fn expected(
        &self,
        ctl: Ctl,
        programs: &[(u16, Filter)],
        h: &[Vec<LaneIn>],
    ) -> Vec<Option<u64>> {
        programs
            .iter()
            .enumerate()
            .map(|(n, (event, _))| {
                (*event != 0)
                    .then(|| expected_count(self, ctl, self.filter_of(programs, n), *event, h))
            })
            .collect()
    }

    /// From reset: `ctl`, the programs (one per counter from 0), CR.E, the traffic (one entry per
    /// cycle), CR.E = 0, then every counter against the oracle (event 0: the enabled edges).
    /// Returns the expected counts. `what` names the round in failures.
    fn run_round(
        &self,
        d: &mut D,
        what: &str,
        ctl: Ctl,
        programs: &[(u16, Filter)],
        history: &[Vec<LaneIn>],
    ) -> Vec<u64> {
        d.reset(1);
        self.set_ctl(d, ctl);
        for (n, (event, f)) in programs.iter().enumerate() {
            self.program(d, n as u32, *event, f);
        }
        let on = self.enable(d, bitmap(0..programs.len() as u32));
        for lanes in history {
            d.set_lanes(lanes);
            d.idle(1);
        }
        d.clear_lanes();
        let off = self.stop(d);
        let expected: Vec<u64> = self
            .expected(ctl, programs, history)
            .into_iter()
            .map(|e| e.unwrap_or(off - on))
            .collect();
        let mut wrong = Vec::new();
        for (n, (event, _)) in programs.iter().enumerate() {
            let got = self.counter(d, n as u32);
            if got != expected[n] {
                wrong.push(format!(
                    "counter {n} (event {event:#x}, {}): expected {}, got {got}",
                    self.filter_of(programs, n).describe(&self.cfg),
                    expected[n]
                ));
            }
        }
        if !wrong.is_empty() {
            panic!(
                "{}: {what}, {}: {} counter(s) wrong:\n  {}",
                self.name,
                ctl.describe(),
                wrong.len(),
                wrong.join("\n  ")
            );
        }
        expected
    }
}

/// Indices of the set bits of a bitmap.
fn bits_of(mask: u64) -> impl Iterator<Item = u32> {
    (0..64).filter(move |n| mask >> n & 1 == 1)
}

fn bitmap(bits: impl Iterator<Item = u32>) -> u64 {
    bits.fold(0, |m, n| m | 1 << n)
}

/// Packs lane events into cycles of `lanes` lanes (the last cycle padded with idle lanes).
fn pack(events: Vec<LaneIn>, lanes: usize) -> Vec<Vec<LaneIn>> {
    events
        .chunks(lanes)
        .map(|c| {
            let mut v = c.to_vec();
            v.resize(lanes, LaneIn::default());
            v
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// 1. Exhaustive StreamID / security-state filter with Realm, W = 1..3
// ---------------------------------------------------------------------------------------------

/// Counter n = c·2^W + x has SMRn = x (with W = 2 and the MPAM filter, junk in SMR bits [23:W]
/// that the StreamID match must ignore, and a nonzero FILTER_MPAM_SP that FILTER_PARTID =
/// FILTER_PMG = 0 makes IGNORED) and (SPAN, SEC, REALM) = the bits of c. For each of the 32
/// (SO, RLO, RTO, SAO, PMO), every StreamID x six states x NoStreamID flag is presented alone on
/// a rotating lane (the other lanes carry a different case, invalid or with an event no counter
/// selects), and the set of counters that count it, read as an overflow vector, must be the
/// oracle's. Every counter starts at its maximum, so counting the event wraps it and sets OVS[n].
///
/// Cycles: set-up 6·N + 4 (N counters), per round 4 + (per case 1 + 2·(OVS words) + 2·(OVSCLR0
/// words written) + 2·(counters matched)); printed by the test (about 13k, 30k and 77k cycles per
/// backend for W = 1, 2, 3).
fn exhaustive(w: u32) {
    let (name, cfg) = cfg_exhaustive(w);
    let p = Pmcg::new(&name, &cfg);
    let all = all_ones(w);
    let counters = cfg.counters;
    assert_eq!(counters, 8 << w);
    let lanes = cfg.lanes as usize;
    let (ev1, ev2) = (p.lane_bit(EVENT_1), p.lane_bit(2));
    let filter_of = |n: u32| {
        let (c, x) = (n >> w, n & all);
        let mut f = Filter::sid(c & 1 != 0, c & 2 != 0, c & 4 != 0, x);
        if cfg.mpam_filter {
            f.smr |= (0x00A5_A5A5 ^ n) << w;
            f.sp = (n % 4) as u8;
        }
        f
    };
    let rounds: Vec<Ctl> = (0..32u32)
        .map(|i| Ctl {
            so: i & 1 != 0,
            rlo: i & 2 != 0,
            rto: i & 4 != 0,
            sao: i & 8 != 0,
            pmo: i & 16 != 0,
            ..Ctl::RESET
        })
        .collect();
    let mut cases = Vec::new();
    for nosid in [false, true] {
        for ss in SecState::ALL {
            for sid in 0..=all {
                cases.push((sid, ss, nosid));
            }
        }
    }
    // Non-vacuity: over all rounds every counter counts something and misses something.
    let mut counted_any = 0u64;
    let mut missed_any = 0u64;
    for ctl in &rounds {
        for &(sid, ss, nosid) in &cases {
            let l = lane(ev1, sid, ss, nosid);
            for n in 0..counters {
                if passes(&cfg, *ctl, &filter_of(n), &l) {
                    counted_any |= 1 << n;
                } else {
                    missed_any |= 1 << n;
                }
            }
        }
    }
    assert_eq!(
        counted_any,
        cfg.counter_bitmap(),
        "{name}: every counter counts something"
    );
    assert_eq!(
        missed_any,
        cfg.counter_bitmap(),
        "{name}: every counter misses something"
    );

    for_each_backend(&cfg, |d| {
        let first_cycle = d.cycle;
        for n in 0..counters {
            let f = filter_of(n);
            p.program(d, n, EVENT_1, &f);
            p.set_counter(d, n, cfg.counter_mask());
        }
        p.enable(d, cfg.counter_bitmap());
        for ctl in &rounds {
            p.set_ctl(d, *ctl);
            for (i, &(sid, ss, nosid)) in cases.iter().enumerate() {
                let main = lane(ev1, sid, ss, nosid);
                let on = i % lanes;
                let mut ls: Vec<LaneIn> = (0..lanes)
                    .map(|j| {
                        // Another case on every other lane: invalid with event 1, or valid with
                        // event 2, which no counter selects.
                        let other = SecState::ALL[(ss.code() as usize + 1 + j) % 6];
                        let mut o = lane(ev2, sid ^ all, other, !nosid);
                        if (i + j) % 2 == 0 {
                            (o.valid, o.events) = (false, ev1);
                        }
                        o
                    })
                    .collect();
                ls[on] = main;
                d.set_lanes(&ls);
                d.idle(1);
                d.clear_lanes();
                d.idle(COUNT_DELAY - 1);
                let got = p.ovs(d);
                let expected =
                    bitmap((0..counters).filter(|&n| passes(&cfg, *ctl, &filter_of(n), &main)));
                if got != expected {
                    let wrong: Vec<String> = bits_of(got ^ expected)
                        .take(8)
                        .map(|n| {
                            format!(
                                "counter {n} ({}) {}",
                                filter_of(n).describe(&cfg),
                                if expected >> n & 1 == 1 {
                                    "missed it"
                                } else {
                                    "counted it"
                                }
                            )
                        })
                        .collect();
                    panic!(
                        "{name}: {} event S={sid:#x} SS={ss:?} N={nosid} on lane {on}: counters \
                         that counted it {got:#x}, expected {expected:#x}; {}",
                        ctl.describe(),
                        wrong.join("; ")
                    );
                }
                p.rearm(d, got);
            }
        }
        eprintln!(
            "{name} on {}: {} cycles",
            d.dut.name(),
            d.cycle - first_cycle
        );
    });
}

#[test]
fn exhaustive_realm_filter_w1() {
    exhaustive(1);
}

#[test]
fn exhaustive_realm_filter_w2() {
    exhaustive(2);
}

#[test]
fn exhaustive_realm_filter_w3() {
    exhaustive(3);
}

// ---------------------------------------------------------------------------------------------
// 2. MPAM filtering, directed
// ---------------------------------------------------------------------------------------------

/// PARTID values around the configuration's limits: inside both, at and above S_MPAMIDR's, at
/// and above MPAMIDR's (deduplicated, in order).
fn partid_values(cfg: &PmcgConfig) -> Vec<u16> {
    let mut v = vec![1, cfg.s_partid_max, cfg.s_partid_max.saturating_add(1)];
    v.extend([cfg.partid_max, cfg.partid_max.saturating_add(1)]);
    v.dedup();
    let mut out = Vec::new();
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

fn pmg_values(cfg: &PmcgConfig) -> Vec<u8> {
    let v = [
        0,
        cfg.s_pmg_max,
        cfg.s_pmg_max.saturating_add(1),
        cfg.pmg_max,
        cfg.pmg_max.saturating_add(1),
    ];
    let mut out = Vec::new();
    for x in v {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// Traffic over the product of PARTID values (plus one), PMG values, the four PARTID spaces,
/// the six states and both NoStreamID flags; StreamIDs rotate over three values, the event
/// vector over four subsets of the lane events, and every 11th lane event is invalid.
fn mpam_product_traffic(p: &Pmcg) -> Vec<Vec<LaneIn>> {
    let cfg = &p.cfg;
    let mut partids = partid_values(cfg);
    partids.push(partids[0] + 1);
    let pmgs = pmg_values(cfg);
    let all = p.lane_bits();
    let subsets = [
        all,
        p.lane_bit(1) | p.lane_bit(3) | p.lane_bit(GLOBAL),
        p.lane_bit(2) | p.lane_bit(5) | p.lane_bit(NONATTR) | p.lane_bit(4),
        p.lane_bit(1) | p.lane_bit(IMPDEF) | p.lane_bit(NONATTR),
    ];
    let sids = [0x1234 & cfg.sid_mask(), 0, cfg.sid_mask()];
    let mut events = Vec::new();
    let mut i = 0usize;
    for &partid in &partids {
        for &pmg in &pmgs {
            for sp in MpamSpace::ALL {
                for ss in SecState::ALL {
                    for nosid in [false, true] {
                        events.push(LaneIn {
                            valid: i % 11 != 10,
                            events: subsets[i % 4],
                            sid: sids[i % 3],
                            ss,
                            nosid,
                            partid,
                            pmg,
                            mpam_sp: sp,
                        });
                        i += 1;
                    }
                }
            }
        }
    }
    pack(events, cfg.lanes as usize)
}

/// The role of a counter in a directed MPAM round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// A filterable event under an MPAM filter.
    Mpam,
    /// An MPAM filter whose PARTID is above both limits: counts nothing.
    OverLimit,
    /// Event 0, a global or a non-attributable event under a filter that rejects everything.
    Unfilterable,
}

/// One directed MPAM round's programs for `p`, with each counter's role: FILTER_PARTID alone,
/// FILTER_PMG alone and both, each in every PARTID space (without Realm FILTER_MPAM_SP is written
/// as 00/01/10/11 anyway: bit 19 is RES0), values from [`partid_values`] / [`pmg_values`] rotating
/// with the round, the other MPAM field holding junk, SEC/REALM/SPAN varied; then a filter above
/// both limits, (W > 24) one with StreamID bits above PMG, and the global, non-attributable and
/// cycle events under the over-limit filter.
fn mpam_directed_programs(p: &Pmcg, round: usize) -> Vec<(u16, Filter, Role)> {
    let cfg = &p.cfg;
    let partids = partid_values(cfg);
    let pmgs = pmg_values(cfg);
    // Without Realm two values per role, one of them with bit 19 set.
    let spaces = |role: usize| -> Vec<u8> {
        if cfg.realm {
            vec![0, 1, 2, 3]
        } else {
            [vec![2, 1], vec![0, 3], vec![2, 3]][role].clone()
        }
    };
    let pick_p = |k: usize| partids[(round + k) % partids.len()];
    let pick_g = |k: usize| pmgs[(round * 3 + k) % pmgs.len()];
    let secrealm = |k: usize| {
        let b = round + k;
        (b & 1 != 0, b & 2 != 0)
    };
    let over_partid = cfg
        .partid_max
        .max(cfg.s_partid_max)
        .checked_add(1)
        .expect("a PARTID above both limits");
    let over = Filter::mpam(Some(over_partid), None, 1);
    let events_both = [3u16, 5, IMPDEF, EVENT_1];
    let mut v = Vec::new();
    let mut k = 0;
    // FILTER_PARTID alone (PMG field junk: ignored).
    for sp in spaces(0) {
        let mut f = Filter::mpam(Some(pick_p(k)), None, sp);
        f.smr |= (pick_g(k + 1) as u32) << 16;
        f.span = (round + k).is_multiple_of(2);
        let (s, r) = secrealm(k);
        v.push((EVENT_1, f.with_sec_realm(s, r), Role::Mpam));
        k += 1;
    }
    // FILTER_PMG alone (PARTID field junk: ignored).
    for sp in spaces(1) {
        let mut f = Filter::mpam(None, Some(pick_g(k)), sp);
        f.smr |= pick_p(k + 2) as u32;
        let (s, r) = secrealm(k);
        let event = if k % 2 == 0 { 2 } else { 4 };
        v.push((event, f.with_sec_realm(s, r), Role::Mpam));
        k += 1;
    }
    // Both; events 3 and 5 are filtered too.
    for (i, sp) in spaces(2).into_iter().enumerate() {
        let f = Filter::mpam(Some(pick_p(k)), Some(pick_g(k)), sp);
        let (s, r) = secrealm(k);
        v.push((
            events_both[(round + i) % 4],
            f.with_sec_realm(s, r),
            Role::Mpam,
        ));
        k += 1;
    }
    v.push((
        EVENT_1,
        Filter {
            sp: (round % 4) as u8,
            ..over
        },
        Role::OverLimit,
    ));
    if cfg.sid_bits > 24 {
        let mut f = Filter::mpam(Some(1), None, 1);
        f.smr |= 0xF << 24;
        v.push((EVENT_1, f, Role::Mpam));
    }
    for event in [GLOBAL, NONATTR, 0] {
        v.push((event, over, Role::Unfilterable));
    }
    assert!(v.len() <= cfg.counters as usize, "{} programs", v.len());
    v
}

/// The programs without roles.
fn programs_of(v: &[(u16, Filter, Role)]) -> Vec<(u16, Filter)> {
    v.iter().map(|&(e, f, _)| (e, f)).collect()
}

/// Directed rounds on `p`: for each control combination, every counter against the oracle,
/// plus non-vacuity by role.
fn mpam_directed(p: &Pmcg, rounds: &[Ctl]) {
    let history = mpam_product_traffic(p);
    let carrying = |event| {
        history
            .iter()
            .flatten()
            .filter(|l| l.valid && l.events & p.lane_bit(event) != 0)
            .count() as u64
    };
    let mut mpam_counts = Vec::new();
    let mut over_counts = Vec::new();
    let mut nonattr_seen = Vec::new();
    let mut sid_rejected_but_counted = false;
    // (PARTID or PMG, space) pairs where a value exactly at the space's limit counted.
    let mut at_limit_counted: Vec<(&str, MpamSpace)> = Vec::new();
    for (r, &ctl) in rounds.iter().enumerate() {
        let v = mpam_directed_programs(p, r);
        let expected = p.expected(ctl, &programs_of(&v), &history);
        for (n, &(event, f, role)) in v.iter().enumerate() {
            let Some(e) = expected[n] else { continue };
            match (role, event) {
                (Role::Unfilterable, GLOBAL) => {
                    assert_eq!(e, carrying(GLOBAL), "global events ignore the MPAM filter")
                }
                (Role::Unfilterable, _) => {
                    let open = nonattr_counts_open(&p.cfg, ctl);
                    assert_eq!(e, if open { carrying(NONATTR) } else { 0 });
                    nonattr_seen.push(e);
                }
                (Role::OverLimit, _) => over_counts.push(e),
                (Role::Mpam, _) => {
                    mpam_counts.push(e);
                    let space = selected_space(&p.cfg, ctl.effective(&p.cfg), f.sp);
                    let (pmax, gmax) = limits(&p.cfg, space);
                    let (fp, fg) = (f.smr & 0xFFFF, f.smr >> 16 & 0xFF);
                    if e > 0 && f.partid != f.pmg {
                        if f.partid && fp == pmax as u32 {
                            at_limit_counted.push(("PARTID", space));
                        }
                        if f.pmg && fg == gmax as u32 {
                            at_limit_counted.push(("PMG", space));
                        }
                    }
                    // StreamID ignored: some counted event fails the same SPAN/STREAMID as a
                    // StreamID filter.
                    let sid_only = Filter {
                        partid: false,
                        pmg: false,
                        ..f
                    };
                    sid_rejected_but_counted |= history.iter().flatten().any(|l| {
                        counted(p, ctl, &f, event, l) && !counted(p, ctl, &sid_only, event, l)
                    });
                }
            }
        }
    }
    assert_not_vacuous(&format!("{}: MPAM-filtered counters", p.name), &mpam_counts);
    assert!(!over_counts.is_empty() && over_counts.iter().all(|&c| c == 0));
    assert_not_vacuous(
        &format!("{}: non-attributable counters", p.name),
        &nonattr_seen,
    );
    assert!(
        sid_rejected_but_counted,
        "the traffic shows StreamIDs being ignored"
    );
    let mut spaces = vec![MpamSpace::Secure, MpamSpace::NonSecure];
    if p.cfg.realm {
        spaces.push(MpamSpace::Realm);
    }
    for field in ["PARTID", "PMG"] {
        for &space in &spaces {
            assert!(
                at_limit_counted.contains(&(field, space)),
                "{}: a {field} filter at the {space:?} limit counts in some round",
                p.name
            );
        }
    }
    eprintln!(
        "{}: {} rounds x {} traffic cycles",
        p.name,
        rounds.len(),
        history.len()
    );
    for_each_backend(&p.cfg, |d| {
        let first = d.cycle;
        for (r, &ctl) in rounds.iter().enumerate() {
            let programs = programs_of(&mpam_directed_programs(p, r));
            p.run_round(
                d,
                &format!("directed MPAM round {r}"),
                ctl,
                &programs,
                &history,
            );
        }
        eprintln!("{} on {}: {} cycles", p.name, d.dut.name(), d.cycle - first);
    });
}

/// 10.4.4 written out again (independently of [`nonattr_counts`]) for the cross-checks.
fn nonattr_counts_open(cfg: &PmcgConfig, c: Ctl) -> bool {
    match (cfg.secure, cfg.realm) {
        (false, _) => true,
        (true, false) => c.so,
        (true, true) => c.root_nao && (c.so || c.scr_nao),
    }
}

/// Realm + MPAM: FILTER_PARTID, FILTER_PMG and both, each with every FILTER_MPAM_SP value, over
/// all 32 combinations of SO, RLO, RTO, SAO and PMO (SCR.NAO and ROOTCR.NAO varying with them);
/// PARTID/PMG values inside, at and above both limits (rotating with the round); SEC/REALM varied
/// (the accepted set is AllSIDManySECSID's); events 1-5 and 0x80 filtered; 0x81 (global), 0x82
/// (non-attributable) and event 0 under a filter that rejects everything.
///
/// Per round: 1 reset + 4 control + 4·16 program + 4 enable + 360 traffic + 2 stop + 32 reads =
/// about 470 cycles; 32 rounds, 15k cycles per backend.
#[test]
fn mpam_directed_realm() {
    let (name, cfg) = cfg_realm();
    let p = Pmcg::new(&name, &cfg);
    let rounds: Vec<Ctl> = (0..32u32)
        .map(|i| Ctl {
            so: i & 1 != 0,
            rlo: i & 2 != 0,
            rto: i & 4 != 0,
            sao: i & 8 != 0,
            pmo: i & 16 != 0,
            scr_nao: i % 3 == 0,
            root_nao: i % 5 != 0,
        })
        .collect();
    mpam_directed(&p, &rounds);
}

/// Secure state without Realm, non-default limits (MPAMIDR 0x123 / 0x1F, S_MPAMIDR 0x45 / 3),
/// W = 28: FILTER_MPAM_SP is one bit (bit 19, written as 1 in half the counters, is RES0),
/// SO both ways; SMR bits [27:24] are StreamID bits the MPAM filter ignores.
///
/// Per round: 1 + 2 + 4·11 + 4 + 720 + 2 + 22 = about 800 cycles; 4 rounds, 3.2k cycles.
#[test]
fn mpam_directed_secure_no_realm() {
    let (name, cfg) = cfg_secure();
    let p = Pmcg::new(&name, &cfg);
    let rounds: Vec<Ctl> = (0..4u32)
        .map(|i| Ctl {
            so: i & 1 != 0,
            // Without Realm these are absent; the oracle treats them as 0.
            rlo: i & 2 != 0,
            ..Ctl::RESET
        })
        .collect();
    mpam_directed(&p, &rounds);
}

// ---------------------------------------------------------------------------------------------
// 3. MPAM filtering, random (W = 16)
// ---------------------------------------------------------------------------------------------

/// The base seed (`PMCG_SEED`, else the time) and this test's seed, base + salt.
fn seed(salt: u64) -> (u64, u64) {
    let base = common::base_seed();
    (base, base.wrapping_add(salt))
}

/// A random filter biased to the interesting values: MPAM filters (PARTID, PMG or both) with
/// values at, around and above the limits, StreamID filters around the anchors, any SEC, REALM
/// and FILTER_MPAM_SP.
fn random_filter(rng: &mut ChaCha8Rng, cfg: &PmcgConfig, anchors: &[u32]) -> Filter {
    let partids = partid_values(cfg);
    let pmgs = pmg_values(cfg);
    let w = cfg.sid_bits;
    let all = all_ones(w);
    let mut f = Filter {
        span: rng.gen(),
        sec: rng.gen(),
        realm: rng.gen(),
        sp: rng.gen_range(0..4),
        ..Filter::default()
    };
    let kind = rng.gen_range(0..10);
    (f.partid, f.pmg) = match kind {
        0..=2 => (true, false),
        3..=4 => (false, true),
        5..=7 => (true, true),
        _ => (false, false),
    };
    let partid = if rng.gen_bool(0.8) {
        partids[rng.gen_range(0..partids.len())]
    } else {
        rng.gen()
    };
    let pmg = if rng.gen_bool(0.8) {
        pmgs[rng.gen_range(0..pmgs.len())]
    } else {
        rng.gen()
    };
    f.smr = if f.partid || f.pmg || rng.gen_bool(0.3) {
        partid as u32 | (pmg as u32) << 16
    } else {
        let anchor = anchors[rng.gen_range(0..anchors.len())];
        let x = match rng.gen_range(0..4) {
            0 => anchor,
            1 => all,
            2 => all >> 1,
            _ => {
                let k = rng.gen_range(0..w);
                let ignored = (2u64 << k) - 1;
                ((anchor as u64 & !ignored) | (ignored >> 1)) as u32
            }
        };
        x | (pmg as u32) << 16
    };
    if rng.gen_bool(0.2) {
        f.smr |= rng.gen::<u32>() << 24;
    }
    f
}

/// One random lane: mostly valid, random events, a StreamID near an anchor, any state, sometimes
/// NoStreamID, PARTID/PMG from the round's filters (or their neighbours, or the limits), any space.
fn random_lane(rng: &mut ChaCha8Rng, p: &Pmcg, anchors: &[u32], filters: &[Filter]) -> LaneIn {
    let cfg = &p.cfg;
    let f = filters[rng.gen_range(0..filters.len())];
    let (fp, fg) = ((f.smr & 0xFFFF) as u16, (f.smr >> 16 & 0xFF) as u8);
    let partid = match rng.gen_range(0..6) {
        0..=2 => fp,
        3 => fp.wrapping_add(1),
        4 => partid_values(cfg)[rng.gen_range(0..partid_values(cfg).len())],
        _ => rng.gen(),
    };
    let pmg = match rng.gen_range(0..6) {
        0..=2 => fg,
        3 => fg ^ 1,
        4 => pmg_values(cfg)[rng.gen_range(0..pmg_values(cfg).len())],
        _ => rng.gen(),
    };
    let anchor = anchors[rng.gen_range(0..anchors.len())];
    LaneIn {
        valid: rng.gen_bool(0.9),
        events: rng.gen::<u32>() & p.lane_bits(),
        sid: if rng.gen_bool(0.8) {
            anchor.wrapping_add(rng.gen_range(0..3)).wrapping_sub(1) & cfg.sid_mask()
        } else {
            rng.gen()
        },
        ss: SecState::ALL[rng.gen_range(0..6)],
        nosid: rng.gen_bool(0.15),
        partid,
        pmg,
        mpam_sp: MpamSpace::ALL[rng.gen_range(0..4)],
    }
}

/// One round: the controls, one (event, filter) per counter, and the traffic (one entry per cycle).
type Round = (Ctl, Vec<(u16, Filter)>, Vec<Vec<LaneIn>>);

/// Seeded random rounds on the Realm + MPAM configuration (W = 16): random controls (all seven
/// bits), a random event (sometimes 0) and filter per counter, 160 cycles of random traffic on
/// 4 lanes, every counter against the oracle. The seed is printed; `PMCG_SEED` reproduces it.
///
/// Per round: 1 + 4 + 64 + 4 + 160 + 2 + 32 = about 270 cycles; 40 rounds, 11k per backend.
#[test]
fn mpam_random_w16() {
    const ROUNDS: usize = 40;
    const CYCLES: usize = 160;
    let (name, cfg) = cfg_realm();
    let p = Pmcg::new(&name, &cfg);
    let (base, seed) = seed(0x3A3);
    eprintln!("{name}: random MPAM filters, seed {seed} (reproduce with PMCG_SEED={base})");
    let ids = cfg.lane_event_ids();
    // The rounds, generated once (the same for every backend).
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rounds: Vec<Round> = (0..ROUNDS)
        .map(|_| {
            let ctl = Ctl::from_bits(rng.gen_range(0..128));
            let anchors = [
                rng.gen::<u32>() & 0xFFFF,
                rng.gen_range(0..4),
                0xFFFF - rng.gen_range(0..4),
            ];
            let programs: Vec<(u16, Filter)> = (0..cfg.counters)
                .map(|_| {
                    let event = if rng.gen_bool(0.05) {
                        0
                    } else {
                        ids[rng.gen_range(0..ids.len())]
                    };
                    (event, random_filter(&mut rng, &cfg, &anchors))
                })
                .collect();
            let filters: Vec<Filter> = programs.iter().map(|(_, f)| *f).collect();
            let history = (0..CYCLES)
                .map(|_| {
                    (0..cfg.lanes)
                        .map(|_| random_lane(&mut rng, &p, &anchors, &filters))
                        .collect()
                })
                .collect();
            (ctl, programs, history)
        })
        .collect();
    // Non-vacuity over the MPAM-filtered counters.
    let mut mpam = Vec::new();
    for (ctl, programs, history) in &rounds {
        for (n, e) in p.expected(*ctl, programs, history).into_iter().enumerate() {
            let (event, f) = &programs[n];
            if let Some(e) = e {
                if is_mpam(&cfg, f) && cfg.event_filterable(*event) {
                    mpam.push(e);
                }
            }
        }
    }
    assert_not_vacuous(
        &format!("{name} (seed {seed}): MPAM-filtered counters"),
        &mpam,
    );
    for_each_backend(&cfg, |d| {
        let first = d.cycle;
        for (r, (ctl, programs, history)) in rounds.iter().enumerate() {
            p.run_round(
                d,
                &format!("random round {r} (seed {seed}, PMCG_SEED={base})"),
                *ctl,
                programs,
                history,
            );
        }
        eprintln!("{name} on {}: {} cycles", d.dut.name(), d.cycle - first);
    });
}

// ---------------------------------------------------------------------------------------------
// 4. Non-attributable events (10.4.4)
// ---------------------------------------------------------------------------------------------

/// For each control combination: counter 0 counts the non-attributable event under a filter that
/// rejects everything filterable (an unmatched exact StreamID, SEC, REALM and, with MPAM, a
/// PARTID above the limit), counter 1 the non-attributable event under AllSIDManySECSID, counter
/// 2 the global event, counter 3 event 1 (AllSIDManySECSID; with the global filter of `N`,
/// counter 0's filter applies to all). The traffic covers every state, NoStreamID flag, PARTID
/// space. Each count is compared with the oracle and, for the non-attributable counters, with
/// the 10.4.4 rule written out again here.
fn nonattr(p: &Pmcg, ctls: &[Ctl], rule: impl Fn(Ctl) -> bool) {
    let cfg = &p.cfg;
    let rejecting = Filter {
        span: false,
        sec: true,
        realm: true,
        partid: cfg.mpam_filter,
        pmg: false,
        sp: 1,
        smr: if cfg.mpam_filter {
            cfg.partid_max as u32 + 1
        } else {
            0x66
        },
    };
    let many = Filter::sid(true, false, false, ONES);
    let programs = vec![
        (NONATTR, rejecting),
        (NONATTR, many),
        (GLOBAL, rejecting),
        (EVENT_1, many),
    ];
    let mut events = Vec::new();
    let mut i = 0usize;
    for ss in SecState::ALL {
        for nosid in [false, true] {
            for sp in MpamSpace::ALL {
                for sid in [0x11, 0x22] {
                    events.push(LaneIn {
                        valid: i % 7 != 6,
                        events: if i.is_multiple_of(3) {
                            p.lane_bit(NONATTR)
                        } else {
                            p.lane_bits()
                        },
                        sid,
                        ss,
                        nosid,
                        partid: (i % 5) as u16,
                        pmg: 0,
                        mpam_sp: sp,
                    });
                    i += 1;
                }
            }
        }
    }
    let history = pack(events, cfg.lanes as usize);
    let carrying = history
        .iter()
        .flatten()
        .filter(|l| l.valid && l.events & p.lane_bit(NONATTR) != 0)
        .count() as u64;
    let mut all_expected = Vec::new();
    for &ctl in ctls {
        let e = p.expected(ctl, &programs, &history);
        let want = if rule(ctl) { carrying } else { 0 };
        assert_eq!(
            e[0],
            Some(want),
            "{}: oracle vs 10.4.4, {}",
            p.name,
            ctl.describe()
        );
        assert_eq!(e[1], Some(want));
        all_expected.extend(e.into_iter().flatten());
    }
    assert_not_vacuous(&p.name, &all_expected);
    if cfg.secure {
        let opens: Vec<bool> = ctls.iter().map(|&c| rule(c)).collect();
        assert!(
            opens.contains(&true) && opens.contains(&false),
            "both gate states tested"
        );
    }
    for_each_backend(cfg, |d| {
        let first = d.cycle;
        for &ctl in ctls {
            p.run_round(d, "non-attributable", ctl, &programs, &history);
        }
        eprintln!("{} on {}: {} cycles", p.name, d.dut.name(), d.cycle - first);
    });
}

/// Without Secure state non-attributable events always count (SCR is absent: an SO write to its
/// location changes nothing). Global filter: counter 0's rejecting filter applies to every
/// counter. 2 rounds x about 70 cycles.
#[test]
fn nonattr_without_secure() {
    let (name, cfg) = cfg_nonsecure();
    let p = Pmcg::new(&name, &cfg);
    let ctls = [
        Ctl::RESET,
        Ctl {
            so: true,
            ..Ctl::RESET
        },
    ];
    nonattr(&p, &ctls, |_| true);
}

/// Secure state, no Realm: only SCR.SO = 1 lets them count; a write of SCR's NAO bit position
/// (from a Realm configuration's map: RES0 here) does not. 4 rounds x about 80 cycles, then 40.
#[test]
fn nonattr_secure_no_realm() {
    let (name, cfg) = cfg_secure();
    let p = Pmcg::new(&name, &cfg);
    let nao_pos = RegisterMap::new(&cfg_realm().1).mask(field::SCR_NAO) as u32;
    assert_ne!(nao_pos, 0);
    assert_eq!(
        p.mask(RegId::Scr, "NAO"),
        0,
        "SCR.NAO exists only with Realm"
    );
    let ctls: Vec<Ctl> = (0..4u32)
        .map(|i| Ctl {
            so: i & 1 != 0,
            scr_nao: i & 2 != 0,
            ..Ctl::RESET
        })
        .collect();
    nonattr(&p, &ctls, |c| c.so);
    // The same with the NAO bit really written (set_ctl leaves it out: the map has no NAO).
    for_each_backend(&cfg, |d| {
        let scr = p.map.reg(RegId::Scr).reset() as u32 | nao_pos;
        p.write(d, RegId::Scr, scr);
        assert_eq!(
            p.read_as(d, RegId::Scr, S) & nao_pos,
            0,
            "NAO position is RES0"
        );
        p.program(d, 0, NONATTR, &Filter::default());
        p.enable(d, 1);
        let mut ls = vec![LaneIn::default(); cfg.lanes as usize];
        ls[0] = lane(p.lane_bit(NONATTR), 0, SecState::NonSecure, false);
        d.set_lanes(&ls);
        d.idle(5);
        d.clear_lanes();
        d.idle(COUNT_DELAY - 1);
        assert_eq!(
            p.counter(d, 0),
            0,
            "SO = 0: nothing, whatever the NAO position holds"
        );
        p.write(d, RegId::Scr, p.scr_value(true, false));
        d.set_lanes(&ls);
        d.idle(5);
        d.clear_lanes();
        d.idle(COUNT_DELAY - 1);
        assert_eq!(p.counter(d, 0), 5, "SO = 1: counted");
    });
}

/// Realm: ROOTCR.NAO = 1 and (SCR.SO or SCR.NAO); all 8 combinations. 8 rounds x about 60
/// cycles.
#[test]
fn nonattr_realm() {
    let (name, cfg) = cfg_realm();
    let p = Pmcg::new(&name, &cfg);
    let ctls: Vec<Ctl> = (0..8u32)
        .map(|i| Ctl {
            so: i & 1 != 0,
            scr_nao: i & 2 != 0,
            root_nao: i & 4 != 0,
            // RLO/RTO/SAO/PMO vary with the gate's inputs so they are seen not to matter.
            rlo: i & 1 == 0,
            rto: i & 2 == 0,
            sao: i == 5,
            pmo: i == 6,
        })
        .collect();
    nonattr(&p, &ctls, |c| c.root_nao && (c.so || c.scr_nao));
}

// ---------------------------------------------------------------------------------------------
// 5. Registers
// ---------------------------------------------------------------------------------------------

/// Reads `addr` through `acc` and checks the value.
fn check(d: &mut D, addr: u32, acc: Access, want: u32, what: &str) {
    let (got, err) = d.apb_read_full(addr, acc);
    assert!(!err, "PSLVERR on a {acc:?} read of {addr:#x}");
    assert_eq!(
        got, want,
        "{what}: {acc:?} read of {addr:#x}: got {got:#010x}, expected {want:#010x}"
    );
}

fn write(d: &mut D, addr: u32, v: u32, acc: Access) {
    assert!(
        !d.apb_write(addr, v, acc),
        "PSLVERR on a {acc:?} write of {addr:#x}"
    );
}

/// ROOTCR (10.5.2.18, contract): at 0xE48; reset value from the map (ROOTCR_IMPL and NAO 1);
/// readable by every access while NSRA = 1; only Root writes it (Secure, Non-secure and Realm
/// writes are ignored); with NSRA = 0, Non-secure and Realm accesses are RAZ/WI (to ROOTCR and to
/// every other register) while Secure and Root ones are not. About 150 cycles per backend.
#[test]
fn rootcr_access_per_state() {
    let (name, cfg) = cfg_realm();
    let p = Pmcg::new(&name, &cfg);
    let r = p.map.reg(RegId::Rootcr);
    assert_eq!(r.addr, 0xE48, "ROOTCR offset (10.5.1)");
    assert!(r.root_write);
    let addr = r.addr;
    let reset = r.reset() as u32;
    let rw = r.mask_of(FieldAccess::RW) as u32;
    let ro = r.mask_of(FieldAccess::RO) as u32;
    let impl_bit = p.mask(RegId::Rootcr, "ROOTCR_IMPL");
    let nao = p.mask(RegId::Rootcr, "NAO");
    assert_eq!(reset & impl_bit, impl_bit, "ROOTCR_IMPL reads 1");
    assert_eq!(reset & nao, nao, "ROOTCR.NAO resets to 1");
    assert_eq!(ro, impl_bit);
    assert_eq!(reset & rw, nao, "every other RW bit resets to 0");
    for f in ["RTO", "RLO", "SAO", "PMO"] {
        assert_ne!(p.mask(RegId::Rootcr, f) & rw, 0, "{f} is RW");
    }
    let scr = p.addr(RegId::Scr);
    let scr_reset = p.map.reg(RegId::Scr).reset() as u32;
    let nsra = p.mask(RegId::Scr, "NSRA");
    let evt = p.addr(RegId::Evtyper(3));
    let evt_rw = p.map.reg(RegId::Evtyper(3)).mask_of(FieldAccess::RW) as u32;
    for_each_backend(&cfg, |d| {
        for acc in ACCESSES {
            check(d, addr, acc, reset, "reset value");
        }
        for acc in [S, NS, REALM] {
            write(d, addr, ONES, acc);
            check(
                d,
                addr,
                ROOT,
                reset,
                &format!("after a {acc:?} all-ones write"),
            );
            write(d, addr, 0, acc);
            check(d, addr, S, reset, &format!("after a {acc:?} zero write"));
        }
        write(d, addr, ONES, ROOT);
        for acc in ACCESSES {
            check(d, addr, acc, ro | rw, "after a Root all-ones write");
        }
        write(d, addr, 0, ROOT);
        check(
            d,
            addr,
            ROOT,
            ro,
            "after a Root zero write (ROOTCR_IMPL is RO)",
        );
        for f in ["RTO", "RLO", "NAO", "SAO", "PMO"] {
            let m = p.mask(RegId::Rootcr, f);
            write(d, addr, m, ROOT);
            check(
                d,
                addr,
                S,
                ro | m,
                &format!("after a Root write of {f} alone"),
            );
        }
        write(d, addr, rw, ROOT);
        for acc in [S, NS, REALM] {
            write(d, addr, 0, acc);
        }
        check(
            d,
            addr,
            ROOT,
            ro | rw,
            "after Secure, Non-secure and Realm zero writes",
        );

        // NSRA = 0 (Secure write): Non-secure and Realm accesses RAZ/WI, Secure and Root not.
        write(d, scr, scr_reset & !nsra, S);
        for acc in [NS, REALM] {
            check(d, addr, acc, 0, "NSRA = 0");
            check(d, evt, acc, 0, "NSRA = 0");
            write(d, evt, ONES, acc);
            write(d, addr, 0, acc);
        }
        check(
            d,
            evt,
            S,
            0,
            "after Non-secure and Realm writes with NSRA = 0",
        );
        check(
            d,
            addr,
            S,
            ro | rw,
            "after Non-secure and Realm writes with NSRA = 0",
        );
        write(d, evt, ONES, ROOT);
        check(d, evt, ROOT, evt_rw, "Root access with NSRA = 0");
        write(d, addr, nao, ROOT);
        check(d, addr, ROOT, ro | nao, "Root write with NSRA = 0");
        // Root may write SCR like Secure: NSRA = 1 again, Realm then accesses like Non-secure.
        write(d, scr, scr_reset, ROOT);
        check(d, scr, S, scr_reset, "after a Root write of SCR");
        for acc in [NS, REALM] {
            check(d, addr, acc, ro | nao, "NSRA = 1");
            write(d, evt, 0x5, acc);
            check(d, evt, acc, 0x5, "NSRA = 1: EVTYPER is RW");
        }
    });
}

/// The SCR alias (10.5.2.12): at 0xE40 with Realm, the same register as 0xDF8 (same fields and
/// reset, one storage), RW for Secure and Root, RAZ/WI for Non-secure and Realm whatever NSRA;
/// SCR.NAO is RW and resets to 0. About 130 cycles per backend.
#[test]
fn scr_alias_and_nao() {
    let (name, cfg) = cfg_realm();
    let p = Pmcg::new(&name, &cfg);
    let scr = p.map.reg(RegId::Scr);
    let alias = p.map.reg(RegId::ScrAlias);
    assert_eq!(alias.addr, 0xE40, "SCR alias offset (10.5.2.12)");
    assert_eq!(alias.fields, scr.fields);
    assert!(scr.secure_only && alias.secure_only);
    let reset = scr.reset() as u32;
    let rw = scr.mask_of(FieldAccess::RW) as u32;
    let nao = p.mask(RegId::Scr, "NAO");
    let so = p.mask(RegId::Scr, "SO");
    let nsra = p.mask(RegId::Scr, "NSRA");
    assert_ne!(nao, 0);
    assert_eq!(reset & nao, 0, "SCR.NAO resets to 0");
    assert_ne!(nao & rw, 0, "SCR.NAO is RW");
    let (a, b) = (scr.addr, alias.addr);
    for_each_backend(&cfg, |d| {
        for addr in [a, b] {
            for acc in [S, ROOT] {
                check(d, addr, acc, reset, "reset value");
            }
            for acc in [NS, REALM] {
                check(d, addr, acc, 0, "Non-secure and Realm reads of SCR");
            }
        }
        // One storage: each view's writes are the other's reads.
        for (from, to, acc) in [(a, b, S), (b, a, ROOT), (b, a, S), (a, b, ROOT)] {
            for v in [reset | so | nao, reset | nao, reset & !nsra, reset] {
                write(d, from, v, acc);
                for reader in [S, ROOT] {
                    check(
                        d,
                        to,
                        reader,
                        v,
                        &format!("after a {acc:?} write of {from:#x}"),
                    );
                    check(
                        d,
                        from,
                        reader,
                        v,
                        &format!("after a {acc:?} write of {from:#x}"),
                    );
                }
            }
        }
        // Each RW field alone through the alias; the RO READS_AS_ONE stays.
        for f in scr.fields.iter().filter(|f| f.access == FieldAccess::RW) {
            let m = f.mask() as u32;
            write(d, b, m, ROOT);
            check(d, a, S, (reset & !rw) | m, &format!("{} alone", f.name));
        }
        write(d, a, reset | nao, S);
        // Non-secure and Realm writes ignored, with NSRA = 1 and 0.
        for v in [reset | so | nao, reset & !nsra] {
            write(d, a, v, S);
            for addr in [a, b] {
                for acc in [NS, REALM] {
                    write(d, addr, !v, acc);
                    check(d, addr, acc, 0, "Non-secure and Realm reads");
                }
                check(d, addr, S, v, "after Non-secure and Realm writes");
            }
        }
        write(d, b, reset, S);
        check(d, a, ROOT, reset, "restored");
    });
}

/// MPAMIDR (0xE74) and S_MPAMIDR (0xE78) hold the configured limits (10.5.2.27/28, CFGR.MPAM =
/// 0); MPAMIDR obeys NSRA, S_MPAMIDR is Secure-or-Root only; without Secure state S_MPAMIDR is
/// absent; without the MPAM filter both are. CFGR.FILTER_PARTID_PMG = mpam_filter. Configurations
/// R, S, N and E1 (Realm without MPAM). About 40 cycles per configuration and backend.
#[test]
fn mpam_id_registers_and_cfgr() {
    let (rn, r) = cfg_realm();
    assert_eq!(
        RegisterMap::new(&r).reg(RegId::Mpamidr).addr,
        0xE74,
        "MPAMIDR offset"
    );
    assert_eq!(
        RegisterMap::new(&r).reg(RegId::SMpamidr).addr,
        0xE78,
        "S_MPAMIDR offset"
    );
    let mut checked_values = Vec::new();
    for (name, cfg) in [(rn, r), cfg_secure(), cfg_nonsecure(), cfg_exhaustive(1)] {
        let p = Pmcg::new(&name, &cfg);
        let cfgr = p.addr(RegId::Cfgr);
        let fpp = p.mask(RegId::Cfgr, "FILTER_PARTID_PMG");
        let msi_mpam = p.mask(RegId::Cfgr, "MPAM");
        assert_ne!(fpp, 0);
        assert_ne!(msi_mpam, 0);
        let mpamidr = (cfg.partid_max as u32) | (cfg.pmg_max as u32) << 16;
        let s_mpamidr = (cfg.s_partid_max as u32) | (cfg.s_pmg_max as u32) << 16;
        let accesses: Vec<Access> = if cfg.realm {
            ACCESSES.to_vec()
        } else {
            vec![S, NS]
        };
        if cfg.mpam_filter {
            assert_eq!(p.map.reg(RegId::Mpamidr).reset() as u32, mpamidr, "{name}");
            assert_eq!(p.mask(RegId::Mpamidr, "PARTID_MAX"), 0xFFFF);
            assert_eq!(p.mask(RegId::Mpamidr, "PMG_MAX"), 0xFF_0000);
            checked_values.push(mpamidr);
        }
        if cfg.mpam_filter && cfg.secure {
            assert_eq!(
                p.map.reg(RegId::SMpamidr).reset() as u32,
                s_mpamidr,
                "{name}"
            );
            checked_values.push(s_mpamidr);
        }
        for_each_backend(&cfg, |d| {
            let c = d.apb_read(cfgr, S);
            assert_eq!(
                c & fpp != 0,
                cfg.mpam_filter,
                "{name}: CFGR.FILTER_PARTID_PMG"
            );
            assert_eq!(c & msi_mpam, 0, "{name}: CFGR.MPAM stays 0");
            let (m, sm) = (offset::MPAMIDR, offset::S_MPAMIDR);
            if !cfg.mpam_filter {
                assert!(p.map.lookup(m).is_none() && p.map.lookup(sm).is_none());
                for &acc in &accesses {
                    check(d, m, acc, 0, &format!("{name}: MPAMIDR absent"));
                    check(d, sm, acc, 0, &format!("{name}: S_MPAMIDR absent"));
                }
                return;
            }
            for &acc in &accesses {
                check(d, m, acc, mpamidr, &format!("{name}: MPAMIDR"));
                let secure_side = !cfg.secure || matches!(acc, Access::Secure | Access::Root);
                let want = if cfg.secure && secure_side {
                    s_mpamidr
                } else {
                    0
                };
                check(d, sm, acc, want, &format!("{name}: S_MPAMIDR"));
                write(d, m, ONES, acc);
                write(d, sm, ONES, acc);
            }
            check(d, m, S, mpamidr, &format!("{name}: MPAMIDR is RO"));
            if cfg.secure {
                check(d, sm, S, s_mpamidr, &format!("{name}: S_MPAMIDR is RO"));
                // NSRA = 0: MPAMIDR RAZ for Non-secure (and Realm), not for Secure (and Root).
                let scr = p.addr(RegId::Scr);
                let reset = p.map.reg(RegId::Scr).reset() as u32;
                write(d, scr, reset & !p.mask(RegId::Scr, "NSRA"), S);
                for &acc in &accesses {
                    let open = matches!(acc, Access::Secure | Access::Root);
                    check(
                        d,
                        m,
                        acc,
                        if open { mpamidr } else { 0 },
                        &format!("{name}: NSRA = 0"),
                    );
                }
            } else {
                assert!(
                    p.map.lookup(sm).is_none(),
                    "{name}: no S_MPAMIDR without Secure state"
                );
            }
        });
    }
    assert!(checked_values.iter().all(|&v| v != 0));
}

/// The EVTYPERn fields of this feature read back what was written: FILTER_REALM_SID with Realm,
/// FILTER_PARTID, FILTER_PMG and FILTER_MPAM_SP with the MPAM filter (two bits with Realm, one
/// without: bit 19 RES0), each alone and all at once; absent fields (positions taken from the R
/// configuration's map) read 0; with the global filter EVTYPERn (n > 0) has none of them.
/// Configurations R, S, N and E1. About 60 cycles per configuration and backend.
#[test]
fn evtyper_new_fields_read_back() {
    let reference = RegisterMap::new(&cfg_realm().1);
    let names = [
        "FILTER_REALM_SID",
        "FILTER_PARTID",
        "FILTER_PMG",
        "FILTER_MPAM_SP",
    ];
    let ref_mask = |f: &str| reference.field_mask(RegId::Evtyper(0), f) as u32;
    let ref_sp = reference
        .reg(RegId::Evtyper(0))
        .field("FILTER_MPAM_SP")
        .unwrap()
        .clone();
    assert_eq!(ref_sp.width, 2, "FILTER_MPAM_SP is two bits with Realm");
    for (name, cfg) in [
        cfg_realm(),
        cfg_secure(),
        cfg_nonsecure(),
        cfg_exhaustive(1),
    ] {
        let p = Pmcg::new(&name, &cfg);
        if let Some(sp) = p.map.field(field::EVTYPER_FILTER_MPAM_SP) {
            assert_eq!(sp.lsb, ref_sp.lsb);
            assert_eq!(
                sp.width,
                if cfg.realm { 2 } else { 1 },
                "{name}: bit 19 only with Realm"
            );
        }
        let last = cfg.counters - 1;
        for_each_backend(&cfg, |d| {
            for n in [0, last] {
                let id = RegId::Evtyper(n);
                let reg = p.map.reg(id);
                let rw = reg.mask_of(FieldAccess::RW) as u32;
                let a = reg.addr;
                write(d, a, ONES, S);
                let got = d.apb_read(a, S);
                assert_eq!(got, rw, "{name}: EVTYPER{n} after all-ones");
                for f in names {
                    let own = p.map.field_mask(id, f) as u32;
                    assert_eq!(got & ref_mask(f), own, "{name}: EVTYPER{n}.{f} bits");
                    let present = match f {
                        "FILTER_REALM_SID" => cfg.realm,
                        _ => cfg.mpam_filter,
                    } && (n == 0 || cfg.sid_filter == SidFilterType::PerCounter);
                    assert_eq!(own != 0, present, "{name}: EVTYPER{n}.{f} presence");
                    write(d, a, 0, S);
                    write(d, a, ref_mask(f), S);
                    check(d, a, S, own, &format!("{name}: EVTYPER{n}.{f} alone"));
                }
                if n == 0 && cfg.mpam_filter && !cfg.realm {
                    let bit19 = ref_mask("FILTER_MPAM_SP") & !p.mask(id, "FILTER_MPAM_SP");
                    assert_ne!(bit19, 0);
                    write(d, a, bit19 | 1, S);
                    check(
                        d,
                        a,
                        S,
                        1,
                        &format!("{name}: FILTER_MPAM_SP[1] is RES0 without Realm"),
                    );
                }
                write(d, a, 0, S);
            }
        });
    }
}

/// SMRn implements W bits, or max(W, 24) bits with the MPAM filter (PARTID [15:0], PMG [23:16]):
/// R (W = 16: 24 bits), S (W = 28: 28 bits), N (W = 8: 24 bits, SMR0 only: global filter), E1
/// (W = 1, no MPAM: 1 bit). About 20 cycles per configuration and backend.
#[test]
fn smr_implements_24_bits_with_mpam() {
    for (name, cfg) in [
        cfg_realm(),
        cfg_secure(),
        cfg_nonsecure(),
        cfg_exhaustive(1),
    ] {
        let p = Pmcg::new(&name, &cfg);
        let bits = if cfg.mpam_filter {
            cfg.sid_bits.max(24)
        } else {
            cfg.sid_bits
        };
        let want = all_ones(bits);
        assert_eq!(
            p.map.reg(RegId::Smr(0)).impl_mask() as u32,
            want,
            "{name}: map"
        );
        if cfg.mpam_filter {
            assert_eq!(p.mask(RegId::Smr(0), "PARTID"), 0xFFFF);
            assert_eq!(p.mask(RegId::Smr(0), "PMG"), 0xFF_0000);
        }
        let smrs: Vec<RegId> = (0..cfg.counters)
            .map(RegId::Smr)
            .filter(|&id| p.map.get(id).is_some())
            .collect();
        assert_eq!(smrs.len() == 1, cfg.sid_filter == SidFilterType::Global);
        let probe = [ONES, 0x0012_3456, 0x5A00_00A5, 0];
        for_each_backend(&cfg, |d| {
            for &id in [smrs[0], *smrs.last().unwrap()].iter() {
                for v in probe {
                    p.write(d, id, v);
                    check(
                        d,
                        p.addr(id),
                        S,
                        v & want,
                        &format!("{name}: {id:?} after {v:#x}"),
                    );
                }
            }
        });
    }
}

/// Without Realm PNSE is ignored: a "Root" access (PNSE = 1, PPROT[1] = 0) is a Secure one and a
/// "Realm" access (PNSE = 1, PPROT[1] = 1) a Non-secure one; ROOTCR and the SCR alias are
/// absent (RAZ/WI for every access). Without Secure state every access is alike. Configurations
/// S and N. About 70 cycles per configuration and backend.
#[test]
fn pnse_ignored_without_realm() {
    let (sname, scfg) = cfg_secure();
    let p = Pmcg::new(&sname, &scfg);
    assert!(p.map.lookup(offset::ROOTCR).is_none() && p.map.lookup(offset::SCR_ALIAS).is_none());
    let scr = p.addr(RegId::Scr);
    let scr_reset = p.map.reg(RegId::Scr).reset() as u32;
    let so = p.mask(RegId::Scr, "SO");
    let nsra = p.mask(RegId::Scr, "NSRA");
    let evt = p.addr(RegId::Evtyper(1));
    let sm = p.addr(RegId::SMpamidr);
    let sm_value = p.map.reg(RegId::SMpamidr).reset() as u32;
    for_each_backend(&scfg, |d| {
        for acc in ACCESSES {
            for a in [offset::ROOTCR, offset::SCR_ALIAS] {
                write(d, a, ONES, acc);
                check(d, a, acc, 0, &format!("{sname}: absent {a:#x}"));
            }
        }
        check(
            d,
            scr,
            S,
            scr_reset,
            "SCR untouched by writes to the alias location",
        );
        check(d, scr, ROOT, scr_reset, "Root = Secure without Realm");
        check(d, scr, REALM, 0, "Realm = Non-secure without Realm");
        check(d, sm, ROOT, sm_value, "S_MPAMIDR, Root = Secure");
        check(d, sm, REALM, 0, "S_MPAMIDR, Realm = Non-secure");
        write(d, scr, scr_reset | so, REALM);
        check(
            d,
            scr,
            S,
            scr_reset,
            "a Realm (= Non-secure) SCR write is ignored",
        );
        write(d, scr, scr_reset | so, ROOT);
        check(d, scr, S, scr_reset | so, "a Root (= Secure) SCR write");
        write(d, evt, 0x3, REALM);
        check(
            d,
            evt,
            NS,
            0x3,
            "NSRA = 1: Realm (= Non-secure) writes EVTYPER",
        );
        write(d, scr, (scr_reset | so) & !nsra, ROOT);
        check(d, evt, REALM, 0, "NSRA = 0: Realm (= Non-secure) reads 0");
        write(d, evt, 0x4, REALM);
        check(
            d,
            evt,
            ROOT,
            0x3,
            "NSRA = 0: Realm writes ignored, Root (= Secure) reads",
        );
        write(d, evt, 0x5, ROOT);
        check(d, evt, S, 0x5, "NSRA = 0: Root (= Secure) writes");
    });
    let (nname, ncfg) = cfg_nonsecure();
    let p = Pmcg::new(&nname, &ncfg);
    let evt = p.addr(RegId::Evtyper(0));
    let m = p.addr(RegId::Mpamidr);
    let mv = p.map.reg(RegId::Mpamidr).reset() as u32;
    for_each_backend(&ncfg, |d| {
        for (i, acc) in ACCESSES.into_iter().enumerate() {
            for a in [offset::SCR, offset::ROOTCR, offset::SCR_ALIAS] {
                write(d, a, 0, acc);
                check(d, a, acc, 0, &format!("{nname}: absent {a:#x}"));
            }
            write(d, evt, 0x10 + i as u32, acc);
            for reader in ACCESSES {
                check(
                    d,
                    evt,
                    reader,
                    0x10 + i as u32,
                    &format!("{nname}: {acc:?} write"),
                );
                check(d, m, reader, mv, &format!("{nname}: MPAMIDR"));
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 6. When a control write takes effect
// ---------------------------------------------------------------------------------------------

/// A write of ROOTCR (RLO, RTO, SAO/PMO, NAO) or of SCR.NAO through the alias at edge t (its
/// access cycle t) filters the events presented from cycle t on (live controls); a write of
/// EVTYPER0's FILTER_REALM_SID or FILTER_MPAM_SP, or of SMR0.PARTID, those from cycle t+1 on (the
/// decode is registered at edge t+1). Each case
/// drives lanes in the write's setup and access cycles and in the two cycles after, with traffic
/// chosen so that a switch one cycle early or late gives another count (checked).
///
/// Per case: 1 reset + 4 control + 4 program + 4 enable + 2 write + 2 traffic + 2 read = 19
/// cycles; 9 cases, under 200 cycles per backend.
#[test]
fn control_writes_apply_to_events_at_their_documented_cycle() {
    let (name, cfg) = cfg_realm();
    let p = Pmcg::new(&name, &cfg);
    let lanes = cfg.lanes as usize;
    let ev = p.lane_bit(EVENT_1);
    let na = p.lane_bit(NONATTR);
    let l = |ss, nosid| lane(ev, 0x42, ss, nosid);
    let realm = l(SecState::Realm, false);
    let ns = l(SecState::NonSecure, false);
    let root_n = l(SecState::Root, true);
    let sa_n = l(SecState::SystemAgent, true);
    let nsp = l(SecState::NonSecureProtected, false);
    let nonattr_l = lane(na, 0x42, SecState::Secure, false);
    let part = |partid, sp| mpam_lane(ev, SecState::NonSecure, partid, 0, sp);
    let idle = LaneIn::default();
    let many_realm = Filter::sid(true, false, true, ONES);
    let exact_realm = Filter::sid(false, false, true, 0x42);
    let base = Ctl::RESET;
    let rlo = Ctl { rlo: true, ..base };
    struct Case {
        what: &'static str,
        event: u16,
        old: (Ctl, Filter),
        new: (Ctl, Filter),
        write: (RegId, u32, Access),
        traffic: [[LaneIn; 2]; 4],
    }
    let cases = [
        Case {
            what: "ROOTCR.RLO 0 -> 1 (AllSIDManySECSID, FILTER_REALM_SID)",
            event: EVENT_1,
            old: (base, many_realm),
            new: (rlo, many_realm),
            write: (RegId::Rootcr, p.rootcr_value(rlo), ROOT),
            traffic: [[realm, realm], [realm, idle], [realm, ns], [ns, realm]],
        },
        Case {
            what: "ROOTCR.RLO 1 -> 0 (ExactSID, FILTER_REALM_SID: Realm only -> Non-secure only)",
            event: EVENT_1,
            old: (rlo, exact_realm),
            new: (base, exact_realm),
            write: (RegId::Rootcr, p.rootcr_value(base), ROOT),
            traffic: [[realm, realm], [ns, idle], [realm, ns], [ns, realm]],
        },
        Case {
            what: "ROOTCR.RTO 0 -> 1 (NoStreamID Root)",
            event: EVENT_1,
            old: (rlo, many_realm),
            new: (Ctl { rto: true, ..rlo }, many_realm),
            write: (
                RegId::Rootcr,
                p.rootcr_value(Ctl { rto: true, ..rlo }),
                ROOT,
            ),
            traffic: [
                [root_n, root_n],
                [root_n, idle],
                [root_n, ns],
                [root_n, root_n],
            ],
        },
        Case {
            what: "ROOTCR.SAO and PMO 0 -> 1 (NoStreamID SA, NSP)",
            event: EVENT_1,
            old: (rlo, many_realm),
            new: (
                Ctl {
                    sao: true,
                    pmo: true,
                    ..rlo
                },
                many_realm,
            ),
            write: (
                RegId::Rootcr,
                p.rootcr_value(Ctl {
                    sao: true,
                    pmo: true,
                    ..rlo
                }),
                ROOT,
            ),
            traffic: [[sa_n, nsp], [sa_n, idle], [nsp, nsp], [sa_n, ns]],
        },
        Case {
            what: "ROOTCR.NAO 1 -> 0 (non-attributable, SO = 1)",
            event: NONATTR,
            old: (Ctl { so: true, ..base }, many_realm),
            new: (
                Ctl {
                    so: true,
                    root_nao: false,
                    ..base
                },
                many_realm,
            ),
            write: (
                RegId::Rootcr,
                p.rootcr_value(Ctl {
                    root_nao: false,
                    ..base
                }),
                ROOT,
            ),
            traffic: [
                [nonattr_l, nonattr_l],
                [nonattr_l, idle],
                [nonattr_l, nonattr_l],
                [idle, nonattr_l],
            ],
        },
        Case {
            what: "SCR.NAO 0 -> 1 through the alias (non-attributable, SO = 0)",
            event: NONATTR,
            old: (base, many_realm),
            new: (
                Ctl {
                    scr_nao: true,
                    ..base
                },
                many_realm,
            ),
            write: (RegId::ScrAlias, p.scr_value(false, true), ROOT),
            traffic: [
                [nonattr_l, nonattr_l],
                [nonattr_l, nonattr_l],
                [nonattr_l, idle],
                [idle, nonattr_l],
            ],
        },
        Case {
            what: "EVTYPER0.FILTER_REALM_SID 0 -> 1 (RLO = 1, ExactSID)",
            event: EVENT_1,
            old: (rlo, Filter::sid(false, false, false, 0x42)),
            new: (rlo, exact_realm),
            write: (RegId::Evtyper(0), p.evtyper(EVENT_1, &exact_realm), S),
            traffic: [[ns, ns], [realm, idle], [realm, realm], [ns, realm]],
        },
        Case {
            what: "SMR0.PARTID 0x12 -> 0x34 (FILTER_PARTID)",
            event: EVENT_1,
            old: (base, Filter::mpam(Some(0x12), None, 1)),
            new: (base, Filter::mpam(Some(0x34), None, 1)),
            write: (RegId::Smr(0), 0x34, S),
            traffic: [
                [
                    part(0x12, MpamSpace::NonSecure),
                    part(0x12, MpamSpace::NonSecure),
                ],
                [part(0x34, MpamSpace::NonSecure), idle],
                [
                    part(0x34, MpamSpace::NonSecure),
                    part(0x34, MpamSpace::NonSecure),
                ],
                [
                    part(0x12, MpamSpace::NonSecure),
                    part(0x34, MpamSpace::NonSecure),
                ],
            ],
        },
        Case {
            what: "EVTYPER0.FILTER_MPAM_SP 01 -> 11 (RLO = 1: Non-secure -> Realm space)",
            event: EVENT_1,
            old: (rlo, Filter::mpam(Some(0x12), None, 1)),
            new: (rlo, Filter::mpam(Some(0x12), None, 3)),
            write: (
                RegId::Evtyper(0),
                p.evtyper(EVENT_1, &Filter::mpam(Some(0x12), None, 3)),
                S,
            ),
            traffic: [
                [
                    part(0x12, MpamSpace::NonSecure),
                    part(0x12, MpamSpace::NonSecure),
                ],
                [part(0x12, MpamSpace::Realm), idle],
                [part(0x12, MpamSpace::Realm), part(0x12, MpamSpace::Realm)],
                [
                    part(0x12, MpamSpace::NonSecure),
                    part(0x12, MpamSpace::Realm),
                ],
            ],
        },
    ];
    let history_of = |c: &Case| -> Vec<Vec<LaneIn>> {
        c.traffic
            .iter()
            .map(|t| {
                let mut v = t.to_vec();
                v.resize(lanes, LaneIn::default());
                v
            })
            .collect()
    };
    let count_if_switched_at = |c: &Case, switch: usize| -> u64 {
        let h = history_of(c);
        (0..4)
            .map(|i| {
                let (ctl, f) = if i < switch { c.old } else { c.new };
                expected_count(&p, ctl, &f, c.event, &h[i..=i])
            })
            .sum()
    };
    // The traffic cycle from which the new filter applies (1: the write's access cycle).
    let switch_of = |c: &Case| match c.write.0 {
        RegId::Evtyper(_) | RegId::Smr(_) => 2,
        _ => 1,
    };
    let mut expected_all = Vec::new();
    for c in &cases {
        let sw = switch_of(c);
        let e = count_if_switched_at(c, sw);
        let total = history_of(c)
            .iter()
            .flatten()
            .filter(|l| l.valid && l.events & p.lane_bit(c.event) != 0)
            .count() as u64;
        assert!(
            e < total,
            "{}: the filter rejects part of the traffic",
            c.what
        );
        assert!(
            e != count_if_switched_at(c, sw - 1) && e != count_if_switched_at(c, sw + 1),
            "{}: the traffic must tell a switch one cycle early or late apart",
            c.what
        );
        expected_all.push(e);
    }
    assert!(expected_all.iter().all(|&e| e > 0));
    for_each_backend(&cfg, |d| {
        for c in &cases {
            d.reset(1);
            p.set_ctl(d, c.old.0);
            p.program(d, 0, c.event, &c.old.1);
            p.enable(d, 0b1);
            let (id, value, acc) = c.write;
            let mut bus = PinInputs::idle(lanes);
            (bus.psel, bus.pwrite, bus.paddr) = (true, true, p.addr(id));
            (bus.pwdata, bus.pstrb) = (value, 0xF);
            (bus.pprot, bus.pnse) = (acc.pprot(), acc.pnse());
            let h = history_of(c);
            d.set_lanes(&h[0]);
            d.step_with(bus.clone());
            bus.penable = true;
            d.set_lanes(&h[1]);
            d.step_with(bus);
            for lanes in &h[2..] {
                d.set_lanes(lanes);
                d.idle(1);
            }
            d.clear_lanes();
            d.idle(COUNT_DELAY - 1);
            let got = p.counter(d, 0);
            let sw = switch_of(c);
            assert_eq!(
                got,
                count_if_switched_at(c, sw),
                "{name}: {}: the new filter applies from traffic cycle {sw} (1: the write's \
                 access cycle; early: {}, late: {})",
                c.what,
                count_if_switched_at(c, sw - 1),
                count_if_switched_at(c, sw + 1)
            );
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 7. Scripts
// ---------------------------------------------------------------------------------------------

const REALM_SCRIPTS: [&str; 3] = ["realm-filter.pmcg", "mpam-partid.pmcg", "nonattr.pmcg"];

fn script_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scripts")
        .join(name)
}

/// The scripts use configuration R (one Verilator build with the tests above).
#[test]
fn realm_scripts_pass_on_every_backend() {
    let r = cfg_realm().1;
    for script in REALM_SCRIPTS {
        let text = std::fs::read_to_string(script_path(script)).unwrap();
        let parsed = pmcg_sim::script::parse(&text).unwrap_or_else(|e| panic!("{script}: {e}"));
        assert_eq!(parsed.config, r, "{script}: configuration R");
        let expectations = text
            .lines()
            .filter(|l| l.split('#').next().unwrap_or("").contains(" expect "))
            .count();
        assert!(expectations >= 8, "{script}: {expectations} expectations");
    }
    common::scripts_pass_on_every_backend(&REALM_SCRIPTS);
}
