//! StreamID and security-state filtering on every backend (reference model, native RustHDL
//! simulation, emitted Verilog under Verilator): docs/behaviour.md, "StreamID and security-state
//! filtering (10.4, 10.6)", and spec 10.4, 10.4.1, 10.4.2.
//!
//! ```text
//!   lane l: valid, events, sid S, ss SS, nosid N ───────────────┐
//!   EVTYPERn {EVENT, FILTER_SID_SPAN, FILTER_SEC_SID}           ▼
//!   SMRn.STREAMID X, SCR.SO ─────────────────────────────► match stage ──► EVCNTRn += lanes
//!     (global filter: EVTYPER0 and SMR0 for every n;                       that carry EVENT
//!      the EVENT is still EVTYPERn's)                                      and pass the filter
//!
//!   passes(W, SPAN, SEC, SO, secure, X, S, SS, N)   the oracle below, written from the contract
//!        │                                          and unit-checked against the spec's examples
//!        ▼                                          and mode table
//!   every expected value in this file (or a cycle count from the edges a test's writes act at)
//! ```
//!
//! Tests:
//! - `oracle_*`: the oracle against spec 10.4 (binary PartialSID examples, mode table, the
//!   security-state rules). They need no design.
//! - `exhaustive_matcher_w1` .. `_w6`: for W = 1..6, every filter value X (one counter each), every
//!   SPAN, SEC, SO, every StreamID, security state and NoStreamID flag, one event at a time.
//! - `random_filters_w16`, `random_filters_w32`: seeded random filters biased to the corners,
//!   counted over bursts of random lane traffic (`PMCG_SEED` reproduces a run; the seed is
//!   printed).
//! - `global_filter_applies_evtyper0_and_smr0_to_every_counter`.
//! - `every_lane_every_cycle_with_different_stream_ids`: exact counts, nothing lost.
//! - `unfilterable_events_ignore_the_filter`: event 0 and an `impdef_global` event.
//! - `filter_writes_apply_to_events_at_their_documented_cycle`: SMRn, SPAN, SEC and SO writes.
//! - `filter_scripts_pass_on_every_backend`: tests/scripts/filter-*.pmcg through the CLI.
//!
//! The exhaustive test reads which counters counted an event as an overflow vector:
//! ```text
//!   every counter at 0xFFFF_FFFF ── one event, cycle e ──► edge e+2: each counter that counts it
//!   wraps to 0 and sets OVS[n] ──► OVSSET0 read set up in cycle e+2 (access e+3) = the vector
//!   ──► OVSCLR0 those bits, rewrite those counters to 0xFFFF_FFFF ──► next event
//! ```
//!
//! Timing used (docs/behaviour.md): lane inputs presented in cycle e are counted at edge e+2
//! ([`COUNT_DELAY`]) and seen by a read set up in cycle e+2; a write (EVTYPERn, SMRn, SCR, CR, CNTEN) that completes
//! before an event is presented is in force for it; CR.E written at edge `on` and cleared at
//! edge `off` lets a cycle counter count `off - on` edges.

mod common;
use common::sid_modes::{all_ones, care, mode, Mode};

use common::{for_each_backend, named_config, COUNT_DELAY};
use pmcg_hdl::config::{PmcgConfig, SidFilterType};
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{RegId, RegisterMap};
use pmcg_sim::pins::{Access, Driver, Dut, LaneIn, PinInputs, SecState};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type D = Driver<Box<dyn Dut>>;

/// Every access in these tests is Secure (always permitted; SCR needs it).
const S: Access = Access::Secure;

/// The filterable event most tests count (10.3: transaction or request).
const EVENT_1: u16 = 1;

/// The three security states a lane can carry.
const SECURITY_STATES: [SecState; 3] = [SecState::NonSecure, SecState::Secure, SecState::Realm];

// ---------------------------------------------------------------------------------------------
// The oracle (docs/behaviour.md, "StreamID and security-state filtering")
// ---------------------------------------------------------------------------------------------

/// Whether a counter with filter (SPAN, SEC, X), SCR.SO = `so`, in a PMCG with
/// (`secure_impl`) or without Secure state and W StreamID bits, counts a filterable lane event
/// with StreamID `sid` (only its W low bits are the StreamID), security state `ss` and
/// NoStreamID flag `nosid`.
#[allow(clippy::too_many_arguments)]
fn passes(
    w: u32,
    span: bool,
    sec: bool,
    so: bool,
    secure_impl: bool,
    x: u32,
    sid: u32,
    ss: SecState,
    nosid: bool,
) -> bool {
    let all = all_ones(w);
    let care = care(w, span, x);
    let value = x & care;
    // Without Secure state, SEC and SO are 0.
    let so = so && secure_impl;
    let sec_eff = sec && secure_impl && so;
    let many = mode(w, span, x) == Mode::AllSidManySecSid;
    let stream_id_ok = if nosid {
        // 10.4.2: only under a filter that matches all streams.
        span && care == 0
    } else {
        sid & all & care == value
    };
    let state_ok = match ss {
        // These configurations have no Realm (so no ROOTCR: RLO, RTO, SAO and PMO are 0):
        // Realm, Root, SA and NSP traffic is never counted by a filterable event.
        SecState::Realm | SecState::Root | SecState::SystemAgent | SecState::NonSecureProtected => {
            false
        }
        SecState::NonSecure => many || !sec_eff,
        SecState::Secure => {
            if many {
                so
            } else {
                sec_eff
            }
        }
    };
    stream_id_ok && state_ok
}

/// Whether `event` is subject to the filter: every event but event 0 (cycles) and the
/// IMPLEMENTATION DEFINED events the configuration declares global (10.4).
fn filterable(cfg: &PmcgConfig, event: u16) -> bool {
    event != 0 && !cfg.impdef_global.contains(&event)
}

/// One counter's filter as software programs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Filter {
    /// EVTYPERn.FILTER_SID_SPAN.
    span: bool,
    /// EVTYPERn.FILTER_SEC_SID.
    sec: bool,
    /// The value written to SMRn.STREAMID (bits above W are dropped by the register).
    x: u32,
}

impl Filter {
    fn exact(x: u32, sec: bool) -> Filter {
        Filter {
            span: false,
            sec,
            x,
        }
    }

    fn span(x: u32, sec: bool) -> Filter {
        Filter { span: true, sec, x }
    }

    /// Whether `lane` (valid, carrying a filterable event) passes this filter.
    fn passes(&self, cfg: &PmcgConfig, so: bool, lane: &LaneIn) -> bool {
        passes(
            cfg.sid_bits,
            self.span,
            self.sec,
            so,
            cfg.secure,
            self.x,
            lane.sid,
            lane.ss,
            lane.nosid,
        )
    }

    fn describe(&self, w: u32) -> String {
        let care = care(w, self.span, self.x);
        format!(
            "SPAN={} SEC={} X={:#x} ({:?}, CARE={care:#x}, VALUE={:#x})",
            self.span as u8,
            self.sec as u8,
            self.x,
            mode(w, self.span, self.x),
            self.x & care
        )
    }
}

/// The contract's count for a counter selecting lane event `event` under `filter`: the valid
/// lanes of `history` (one entry per cycle, one `LaneIn` per lane) that carry the event and pass
/// the filter (or carry it at all, for an unfilterable event).
fn expected_count(p: &Pmcg, event: u16, filter: Filter, so: bool, history: &[Vec<LaneIn>]) -> u64 {
    let bit = p.lane_bit(event);
    history
        .iter()
        .flatten()
        .filter(|l| l.valid && l.events & bit != 0)
        .filter(|l| !filterable(&p.cfg, event) || filter.passes(&p.cfg, so, l))
        .count() as u64
}

// ---------------------------------------------------------------------------------------------
// Oracle checks against the spec (no design needed)
// ---------------------------------------------------------------------------------------------

/// The three binary PartialSID examples of spec 10.4: X matches every StreamID that equals X
/// above the ignored low bits (the lowest 0 of X and every bit below it), and nothing that
/// differs in any other implemented bit.
#[test]
fn oracle_matches_the_spec_partial_sid_examples() {
    // (X, number of low bits shown as x in the spec's match pattern)
    let examples = [
        // 0000:0000:0001:1011:1111:0111:1111:0111 matches ...:1111:xxxx
        (0b0000_0000_0001_1011_1111_0111_1111_0111u32, 4),
        // 0000:0000:0001:1011:1111:0111:1111:0110 matches ...:1111:011x
        (0b0000_0000_0001_1011_1111_0111_1111_0110, 1),
        // 0000:0000:0001:1011:1111:0101:1111:1111 matches ...:1111:01xx:xxxx:xxxx
        (0b0000_0000_0001_1011_1111_0101_1111_1111, 10),
    ];
    // The examples need 21 bits; check them at every W that holds them.
    for w in 21..=32 {
        for (x, ignored) in examples {
            assert_eq!(mode(w, true, x), Mode::PartialSid, "W={w} X={x:#x}");
            let low = (1u32 << ignored) - 1;
            let base = x & !low;
            for sid in base..=base | low {
                for so in [false, true] {
                    assert!(
                        passes(w, true, false, so, true, x, sid, SecState::NonSecure, false),
                        "W={w} X={x:#x} must match {sid:#x}"
                    );
                }
            }
            for bit in ignored..w {
                let sid = x ^ (1 << bit);
                assert!(
                    !passes(
                        w,
                        true,
                        false,
                        false,
                        true,
                        x,
                        sid,
                        SecState::NonSecure,
                        false
                    ),
                    "W={w} X={x:#x} must not match {sid:#x} (bit {bit} differs)"
                );
            }
            // ExactSID with the same X matches X alone.
            assert!(passes(
                w,
                false,
                false,
                false,
                true,
                x,
                x,
                SecState::NonSecure,
                false
            ));
            assert!(!passes(
                w,
                false,
                false,
                false,
                true,
                x,
                x ^ 1,
                SecState::NonSecure,
                false
            ));
        }
    }
}

/// Spec 10.4 mode table at every W, including the corner W = 1 (X = 0 with SPAN = 1 is
/// AllSIDOneSECSID) and the recommended all-ones write 0xFFFF_FFFF (10.4.1 truncation).
#[test]
fn oracle_mode_table() {
    for w in 1..=32 {
        let all = all_ones(w);
        for x in [0, 1, all >> 1, all, 0x1234_5678, u32::MAX] {
            assert_eq!(mode(w, false, x), Mode::ExactSid, "W={w} X={x:#x}");
        }
        assert_eq!(mode(w, true, all), Mode::AllSidManySecSid, "W={w}");
        assert_eq!(mode(w, true, u32::MAX), Mode::AllSidManySecSid, "W={w}");
        assert_eq!(mode(w, true, all >> 1), Mode::AllSidOneSecSid, "W={w}");
        assert_eq!(care(w, true, all), 0, "W={w}");
        assert_eq!(care(w, true, all >> 1), 0, "W={w}");
        assert_eq!(care(w, false, 0), all, "W={w}");
        if w >= 2 {
            // All ones but the top two bits: PartialSID ignoring all but the top bit.
            assert_eq!(mode(w, true, all >> 2), Mode::PartialSid, "W={w}");
            assert_eq!(care(w, true, all >> 2), 1 << (w - 1), "W={w}");
            assert_eq!(mode(w, true, 0), Mode::PartialSid, "W={w}");
        }
    }
    assert_eq!(mode(1, true, 0), Mode::AllSidOneSecSid);
    // 10.4.1's example: a 16-bit SMR written with 0x12345 filters on 0x2345.
    assert!(passes(
        16,
        false,
        false,
        false,
        true,
        0x12345,
        0x2345,
        SecState::NonSecure,
        false
    ));
    assert!(!passes(
        16,
        false,
        false,
        false,
        true,
        0x12345,
        0x2344,
        SecState::NonSecure,
        false
    ));
}

/// CARE against the spec's own wording of PartialSID, independently of the CARE formula: with Y
/// = (trailing ones of X) + 1, STREAMID[Y-1] = 0, STREAMID[Y-2:0] = 1, and the bits from Y up
/// must match. Every X and StreamID for W = 1..8.
#[test]
fn oracle_partial_sid_agrees_with_the_spec_wording() {
    for w in 1..=8u32 {
        let all = all_ones(w);
        for x in 0..=all {
            for sid in 0..=all {
                let spec = if x == all {
                    true
                } else {
                    let y = x.trailing_ones() + 1;
                    (sid as u64 >> y) == (x as u64 >> y)
                };
                let got = passes(
                    w,
                    true,
                    false,
                    false,
                    true,
                    x,
                    sid,
                    SecState::NonSecure,
                    false,
                );
                assert_eq!(got, spec, "W={w} X={x:#x} S={sid:#x}");
                let exact = passes(
                    w,
                    false,
                    false,
                    false,
                    true,
                    x,
                    sid,
                    SecState::NonSecure,
                    false,
                );
                assert_eq!(exact, sid == x, "ExactSID W={w} X={x:#x} S={sid:#x}");
            }
        }
    }
}

/// The security-state rules per mode, as a literal table from the contract (and spec 10.4,
/// 10.4.2, 10.6): which of NS, S, Realm, NS-NoStreamID, S-NoStreamID, Realm-NoStreamID count.
#[test]
fn oracle_security_state_table() {
    const W: u32 = 8;
    // (mode, X, a StreamID inside the filter)
    let modes = [
        (Mode::ExactSid, false, 0x42, 0x42),
        (Mode::PartialSid, true, 0x41, 0x43),
        (Mode::AllSidOneSecSid, true, 0x7F, 0xC3),
        (Mode::AllSidManySecSid, true, 0xFF, 0xC3),
    ];
    // (secure implemented, SEC, SO) -> counted: [NS, S, Realm, NS+N, S+N, Realm+N]
    let exact_or_partial = [
        ((true, false, false), [1, 0, 0, 0, 0, 0]),
        ((true, true, false), [1, 0, 0, 0, 0, 0]), // SO = 0 overrides SEC
        ((true, false, true), [1, 0, 0, 0, 0, 0]),
        ((true, true, true), [0, 1, 0, 0, 0, 0]),
        ((false, false, false), [1, 0, 0, 0, 0, 0]),
        ((false, true, false), [1, 0, 0, 0, 0, 0]), // without Secure state SEC, SO are 0
        ((false, false, true), [1, 0, 0, 0, 0, 0]),
        ((false, true, true), [1, 0, 0, 0, 0, 0]),
    ];
    let one = [
        ((true, false, false), [1, 0, 0, 1, 0, 0]),
        ((true, true, false), [1, 0, 0, 1, 0, 0]),
        ((true, false, true), [1, 0, 0, 1, 0, 0]),
        ((true, true, true), [0, 1, 0, 0, 1, 0]),
        ((false, false, false), [1, 0, 0, 1, 0, 0]),
        ((false, true, false), [1, 0, 0, 1, 0, 0]),
        ((false, false, true), [1, 0, 0, 1, 0, 0]),
        ((false, true, true), [1, 0, 0, 1, 0, 0]),
    ];
    let many = [
        ((true, false, false), [1, 0, 0, 1, 0, 0]),
        ((true, true, false), [1, 0, 0, 1, 0, 0]),
        ((true, false, true), [1, 1, 0, 1, 1, 0]), // SO = 1: both namespaces, whatever SEC
        ((true, true, true), [1, 1, 0, 1, 1, 0]),
        ((false, false, false), [1, 0, 0, 1, 0, 0]),
        ((false, true, false), [1, 0, 0, 1, 0, 0]),
        ((false, false, true), [1, 0, 0, 1, 0, 0]),
        ((false, true, true), [1, 0, 0, 1, 0, 0]),
    ];
    for (m, span, x, sid) in modes {
        assert_eq!(mode(W, span, x), m);
        let table = match m {
            Mode::ExactSid | Mode::PartialSid => &exact_or_partial,
            Mode::AllSidOneSecSid => &one,
            Mode::AllSidManySecSid => &many,
        };
        for &((secure, sec, so), row) in table {
            let mut i = 0;
            for nosid in [false, true] {
                for ss in SECURITY_STATES {
                    let got = passes(W, span, sec, so, secure, x, sid, ss, nosid);
                    assert_eq!(
                        got,
                        row[i] == 1,
                        "{m:?} secure={secure} SEC={sec} SO={so} {ss:?} nosid={nosid}"
                    );
                    i += 1;
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Register helpers
// ---------------------------------------------------------------------------------------------

/// A configuration with its register map, and register-level helpers on a driver. Every
/// address and field position comes from the map.
struct Pmcg {
    name: String,
    cfg: PmcgConfig,
    map: RegisterMap,
    /// EVTYPER0's filter field masks (0 when absent: FILTER_SEC_SID without Secure state).
    span_mask: u32,
    sec_mask: u32,
    event_mask: u32,
}

impl Pmcg {
    fn new(name: &str, cfg: &PmcgConfig) -> Pmcg {
        let map = RegisterMap::new(cfg);
        let span_mask = map.mask(field::EVTYPER_FILTER_SID_SPAN) as u32;
        let sec_mask = map.mask(field::EVTYPER_FILTER_SEC_SID) as u32;
        let event_mask = map.mask(field::EVTYPER_EVENT) as u32;
        assert_ne!(span_mask, 0, "{name}: EVTYPER0.FILTER_SID_SPAN");
        assert_eq!(
            sec_mask != 0,
            cfg.secure,
            "{name}: FILTER_SEC_SID iff Secure state"
        );
        Pmcg {
            name: name.to_string(),
            cfg: cfg.clone(),
            map,
            span_mask,
            sec_mask,
            event_mask,
        }
    }

    fn addr(&self, id: RegId) -> u32 {
        self.map.reg(id).addr
    }

    /// A full-word write of the low word of `id`; returns the edge it acts at.
    fn write(&self, d: &mut D, id: RegId, v: u32) -> u64 {
        d.apb_write(self.addr(id), v, S);
        d.cycle - 1
    }

    fn read(&self, d: &mut D, id: RegId) -> u32 {
        d.apb_read(self.addr(id), S)
    }

    /// The lane event-vector bit of a lane event.
    fn lane_bit(&self, event: u16) -> u32 {
        1 << self
            .cfg
            .lane_bit_of(event)
            .unwrap_or_else(|| panic!("{}: event {event:#x} is not a lane event", self.name))
    }

    /// Mask of every lane event bit of this configuration.
    fn lane_bits(&self) -> u32 {
        let n = self.cfg.lane_event_ids().len() as u32;
        if n == 32 {
            u32::MAX
        } else {
            (1 << n) - 1
        }
    }

    /// An EVTYPER value: EVENT and the filter bits at EVTYPER0's positions (in an EVTYPERn
    /// without filter fields they land on RES0 bits).
    fn evtyper(&self, event: u16, f: Filter) -> u32 {
        (event as u32 & self.event_mask)
            | if f.span { self.span_mask } else { 0 }
            | if f.sec { self.sec_mask } else { 0 }
    }

    /// Programs counter n as a driver does: EVTYPERn (event and filter fields), then SMRn when
    /// this configuration has one for n.
    fn program(&self, d: &mut D, n: u32, event: u16, f: Filter) {
        self.write(d, RegId::Evtyper(n), self.evtyper(event, f));
        if self.map.get(RegId::Smr(n)).is_some() {
            self.write(d, RegId::Smr(n), f.x);
        }
    }

    /// SCR.SO (read-modify-write, other SCR fields kept). Without Secure state there is no SCR
    /// and SO is 0.
    fn set_so(&self, d: &mut D, so: bool) {
        if !self.cfg.secure {
            return;
        }
        let so_mask = self.map.mask(field::SCR_SO) as u32;
        assert_ne!(so_mask, 0, "{}: SCR.SO", self.name);
        let scr = self.read(d, RegId::Scr);
        let v = if so { scr | so_mask } else { scr & !so_mask };
        self.write(d, RegId::Scr, v);
    }

    /// A W1S/W1C write of a 64-bit bitmap, one word write per word with bits set.
    fn write_bits(&self, d: &mut D, id: RegId, bits: u64) {
        let a = self.addr(id);
        if bits as u32 != 0 {
            d.apb_write(a, bits as u32, S);
        }
        if bits >> 32 != 0 {
            d.apb_write(a + 4, (bits >> 32) as u32, S);
        }
    }

    /// CNTENSET0 for `counters`, then CR.E = 1; returns CR.E's edge (counting from the next
    /// edge on).
    fn enable(&self, d: &mut D, counters: u64) -> u64 {
        self.write_bits(d, RegId::CntenSet0, counters);
        self.write(d, RegId::Cr, self.map.mask(field::CR_E) as u32)
    }

    /// CR.E = 0; returns the edge (the last edge that counts).
    fn stop(&self, d: &mut D) -> u64 {
        self.write(d, RegId::Cr, 0)
    }

    /// EVCNTRn (a split 64-bit read for wide counters: the atomic snapshot).
    fn counter(&self, d: &mut D, n: u32) -> u64 {
        let a = self.addr(RegId::Evcntr(n));
        if self.cfg.wide_counters() {
            d.apb_read64(a, S)
        } else {
            d.apb_read(a, S) as u64
        }
    }

    /// Writes EVCNTRn (low then high word for wide counters).
    fn set_counter(&self, d: &mut D, n: u32, v: u64) {
        let a = self.addr(RegId::Evcntr(n));
        if self.cfg.wide_counters() {
            d.apb_write64(a, v, S);
        } else {
            d.apb_write(a, v as u32, S);
        }
    }

    /// OVSSET0: the low word, and the high word only when there are more than 32 counters.
    fn ovs(&self, d: &mut D) -> u64 {
        let a = self.addr(RegId::OvsSet0);
        let lo = d.apb_read(a, S) as u64;
        if self.cfg.counters > 32 {
            lo | ((d.apb_read(a + 4, S) as u64) << 32)
        } else {
            lo
        }
    }

    /// Presents `lane` on lane 0 for one cycle e (other lanes idle) and returns the OVS vector
    /// read with its setup in cycle e+2: the counters that were at their maximum and counted it.
    fn overflow_vector_of(&self, d: &mut D, lane: LaneIn) -> u64 {
        let mut lanes = vec![LaneIn::default(); d.lanes()];
        lanes[0] = lane;
        d.set_lanes(&lanes);
        d.idle(1);
        d.clear_lanes();
        d.idle(COUNT_DELAY - 1);
        self.ovs(d)
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
}

/// Indices of the set bits of a bitmap.
fn bits_of(mask: u64) -> impl Iterator<Item = u32> {
    (0..64).filter(move |n| mask >> n & 1 == 1)
}

/// A bitmap with the given bits set.
fn bitmap(bits: impl Iterator<Item = u32>) -> u64 {
    bits.fold(0, |m, n| m | 1 << n)
}

/// Every (SPAN, SEC, SO) in {0,1}^3.
fn span_sec_so() -> impl Iterator<Item = (bool, bool, bool)> {
    (0..8u32).map(|i| (i & 1 != 0, i & 2 != 0, i & 4 != 0))
}

/// A valid lane carrying `events`.
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

fn parse(items: &[&str]) -> PmcgConfig {
    PmcgConfig::parse_kv(items.iter().copied()).unwrap()
}

/// The base seed (`PMCG_SEED`, else the time) and this test's seed, base + salt.
fn seed(salt: u64) -> (u64, u64) {
    let base = common::base_seed();
    (base, base.wrapping_add(salt))
}

// ---------------------------------------------------------------------------------------------
// 1. Exhaustive matcher, W = 1..6
// ---------------------------------------------------------------------------------------------

/// 2^W counters of 32 bits, one lane, W StreamID bits, Secure state.
fn exhaustive_config(w: u32) -> PmcgConfig {
    let counters = format!("counters={}", 1u32 << w);
    let sid_bits = format!("sid_bits={w}");
    parse(&[
        &counters,
        "counter_bits=32",
        "lanes=1",
        &sid_bits,
        "secure=on",
        "capture=off",
        "msi=off",
    ])
}

/// Counter n counts event 1 with SMRn = n, so the counters hold every W-bit filter value. For
/// each (SPAN, SEC, SO), every StreamID, security state and NoStreamID flag is presented alone,
/// and the set of counters that count it must be the oracle's.
///
/// Cycles (2 per APB transfer): set-up 6·2^W + 6, then per (SPAN, SEC, SO) 4 + 2·2^W, then per
/// event 1 + 2·(OVS words) + 2·(OVSCLR0 words written) + 2·(counters matched). Counted with the
/// oracle: W=1..6 need about 0.5k, 1.1k, 2.1k, 4.4k, 8.9k and 25.5k cycles per backend.
fn exhaustive_matcher(w: u32) {
    let cfg = exhaustive_config(w);
    let p = Pmcg::new(&format!("exhaustive W={w}"), &cfg);
    let counters = cfg.counters;
    let event_bit = p.lane_bit(EVENT_1);
    for_each_backend(&cfg, |d| {
        let first_cycle = d.cycle;
        // EVTYPERn resets to event 0 (cycles): select event 1 before enabling.
        for n in 0..counters {
            p.write(d, RegId::Smr(n), n);
            p.write(
                d,
                RegId::Evtyper(n),
                p.evtyper(EVENT_1, Filter::exact(n, false)),
            );
            p.set_counter(d, n, cfg.counter_mask());
        }
        p.enable(d, cfg.counter_bitmap());
        for (span, sec, so) in span_sec_so() {
            p.set_so(d, so);
            for n in 0..counters {
                let f = Filter { span, sec, x: n };
                p.write(d, RegId::Evtyper(n), p.evtyper(EVENT_1, f));
            }
            for nosid in [false, true] {
                for ss in SECURITY_STATES {
                    for sid in 0..counters {
                        let got = p.overflow_vector_of(d, lane(event_bit, sid, ss, nosid));
                        let expected = bitmap(
                            (0..counters)
                                .filter(|&x| passes(w, span, sec, so, true, x, sid, ss, nosid)),
                        );
                        if got != expected {
                            let wrong: Vec<String> = bits_of(got ^ expected)
                                .take(8)
                                .map(|x| {
                                    format!(
                                        "counter {x} ({}) {}",
                                        Filter { span, sec, x }.describe(w),
                                        if expected >> x & 1 == 1 {
                                            "missed it"
                                        } else {
                                            "counted it"
                                        }
                                    )
                                })
                                .collect();
                            panic!(
                                "W={w} SPAN={} SEC={} SO={} event S={sid:#x} SS={ss:?} N={nosid}: \
                                 counters that counted it {got:#x}, expected {expected:#x}; {}",
                                span as u8,
                                sec as u8,
                                so as u8,
                                wrong.join("; ")
                            );
                        }
                        p.rearm(d, got);
                    }
                }
            }
        }
        eprintln!(
            "{} on {}: {} cycles",
            p.name,
            d.dut.name(),
            d.cycle - first_cycle
        );
    });
}

#[test]
fn exhaustive_matcher_w1() {
    exhaustive_matcher(1);
}

#[test]
fn exhaustive_matcher_w2() {
    exhaustive_matcher(2);
}

#[test]
fn exhaustive_matcher_w3() {
    exhaustive_matcher(3);
}

#[test]
fn exhaustive_matcher_w4() {
    exhaustive_matcher(4);
}

#[test]
fn exhaustive_matcher_w5() {
    exhaustive_matcher(5);
}

#[test]
fn exhaustive_matcher_w6() {
    exhaustive_matcher(6);
}

// ---------------------------------------------------------------------------------------------
// 2. Random filters at W = 16 and 32
// ---------------------------------------------------------------------------------------------

/// `cycles` cycles of random lane traffic on `lanes` lanes: each lane valid with probability
/// `p.0`, any of the `lane_bits` events, a StreamID from `sids`, any security state, and
/// NoStreamID with probability `p.1`.
fn random_traffic(
    rng: &mut ChaCha8Rng,
    cycles: u64,
    lanes: usize,
    sids: &[u32],
    lane_bits: u32,
    p: (f64, f64),
) -> Vec<Vec<LaneIn>> {
    (0..cycles)
        .map(|_| {
            (0..lanes)
                .map(|_| LaneIn {
                    valid: rng.gen_bool(p.0),
                    events: rng.gen::<u32>() & lane_bits,
                    sid: sids[rng.gen_range(0..sids.len())],
                    ss: SECURITY_STATES[rng.gen_range(0..3)],
                    nosid: rng.gen_bool(p.1),
                    ..LaneIn::default()
                })
                .collect()
        })
        .collect()
}

/// StreamIDs the round's filters and traffic gather around: two random, one near 0, one near
/// ALL.
fn random_anchors(rng: &mut ChaCha8Rng, w: u32) -> [u32; 4] {
    let all = all_ones(w);
    [
        rng.gen::<u32>() & all,
        rng.gen::<u32>() & all,
        rng.gen_range(0..4u32) & all,
        all - (rng.gen_range(0..4u32) & all),
    ]
}

/// X with its lowest k+1 bits replaced by 0 then k ones: PartialSID ignoring bits [k:0] around
/// `anchor` (k = W-1 gives ALL >> 1, AllSIDOneSECSID).
fn partial_mask(anchor: u32, k: u32) -> u32 {
    let ignored = (2u64 << k) - 1;
    ((anchor as u64 & !ignored) | (ignored >> 1)) as u32
}

/// A filter biased to the interesting values: exact values near the anchors, partial masks
/// around them, ALL, ALL >> 1, the recommended 0xFFFF_FFFF, anything; sometimes with bits above
/// W set (dropped by SMRn, 10.4.1).
fn random_filter(rng: &mut ChaCha8Rng, w: u32, anchors: &[u32]) -> Filter {
    let all = all_ones(w);
    let anchor = anchors[rng.gen_range(0..anchors.len())];
    let sec = rng.gen_bool(0.5);
    let (span, x) = match rng.gen_range(0..10) {
        0..=2 => (
            false,
            anchor.wrapping_add(rng.gen_range(0..3)).wrapping_sub(1) & all,
        ),
        3..=5 => (true, partial_mask(anchor, rng.gen_range(0..w))),
        6 => (true, all),
        7 => (true, all >> 1),
        8 => (true, u32::MAX),
        _ => (rng.gen(), rng.gen()),
    };
    let x = if w < 32 && rng.gen_bool(0.2) {
        x | (rng.gen::<u32>() << w)
    } else {
        x
    };
    Filter { span, sec, x }
}

/// A StreamID near an anchor, at or next to the edge of one of the round's filters, one bit away
/// from an anchor, or anything; sometimes with bits above W (not part of the StreamID).
fn random_sid(rng: &mut ChaCha8Rng, w: u32, anchors: &[u32], filters: &[Filter]) -> u32 {
    let all = all_ones(w);
    let anchor = anchors[rng.gen_range(0..anchors.len())];
    let sid = match rng.gen_range(0..8) {
        0..=2 => anchor.wrapping_add(rng.gen_range(0..5)).wrapping_sub(2),
        3..=5 => {
            let f = filters[rng.gen_range(0..filters.len())];
            let care = care(w, f.span, f.x);
            let lo = f.x & care;
            let hi = lo | (all & !care);
            match rng.gen_range(0..5) {
                0 => lo.wrapping_sub(1),
                1 => lo,
                2 => hi,
                3 => hi.wrapping_add(1),
                _ => lo | (rng.gen::<u32>() & all & !care),
            }
        }
        6 => anchor ^ (1 << rng.gen_range(0..w)),
        _ => rng.gen(),
    } & all;
    if w < 32 && rng.gen_bool(0.2) {
        sid | (rng.gen::<u32>() << w)
    } else {
        sid
    }
}

/// One lane for one cycle: mostly valid, each lane event with probability 1/2, Non-secure,
/// Secure or (rarely) Realm, sometimes NoStreamID.
fn random_lane(rng: &mut ChaCha8Rng, p: &Pmcg, anchors: &[u32], filters: &[Filter]) -> LaneIn {
    let ss = match rng.gen_range(0..20) {
        0..=8 => SecState::NonSecure,
        9..=16 => SecState::Secure,
        _ => SecState::Realm,
    };
    LaneIn {
        valid: rng.gen_bool(0.9),
        events: rng.gen::<u32>() & p.lane_bits(),
        sid: random_sid(rng, p.cfg.sid_bits, anchors, filters),
        ss,
        nosid: rng.gen_bool(0.1),
        ..LaneIn::default()
    }
}

/// `rounds` rounds, each from reset: a random SO, a random lane event and filter per counter,
/// `cycles` cycles of random traffic on every lane, then every counter against the oracle. The
/// same seeded stream drives every backend.
///
/// Cycles per round (2 per APB transfer, 4 per 64-bit read): 1 reset + 4 SCR + 4 per counter
/// (EVTYPER, SMR) + 4-6 enable + `cycles` + 2 or 4 per counter read.
fn random_filters(name: &str, cfg: &PmcgConfig, salt: u64, rounds: u32, cycles: usize) {
    let (base, seed) = seed(salt);
    eprintln!(
        "random filters `{name}` (W={}): seed {seed} (reproduce with PMCG_SEED={base})",
        cfg.sid_bits
    );
    let p = Pmcg::new(name, cfg);
    let w = cfg.sid_bits;
    let ids = cfg.lane_event_ids();
    for_each_backend(cfg, |d| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for round in 0..rounds {
            d.reset(1);
            let anchors = random_anchors(&mut rng, w);
            let so = rng.gen_bool(0.7);
            let programs: Vec<(u16, Filter)> = (0..cfg.counters)
                .map(|_| {
                    let event = ids[rng.gen_range(0..ids.len())];
                    (event, random_filter(&mut rng, w, &anchors))
                })
                .collect();
            let filters: Vec<Filter> = programs.iter().map(|&(_, f)| f).collect();
            p.set_so(d, so);
            for (n, &(event, f)) in programs.iter().enumerate() {
                p.program(d, n as u32, event, f);
            }
            p.enable(d, cfg.counter_bitmap());
            let history: Vec<Vec<LaneIn>> = (0..cycles)
                .map(|_| {
                    (0..d.lanes())
                        .map(|_| random_lane(&mut rng, &p, &anchors, &filters))
                        .collect()
                })
                .collect();
            for lanes in &history {
                d.set_lanes(lanes);
                d.idle(1);
            }
            d.clear_lanes();
            d.idle(COUNT_DELAY - 1);
            let mut wrong = Vec::new();
            for (n, &(event, f)) in programs.iter().enumerate() {
                let expected = expected_count(&p, event, f, so, &history);
                let got = p.counter(d, n as u32);
                if got != expected {
                    wrong.push((n, event, f, expected, got));
                }
            }
            if let Some(&(_, event, f, _, _)) = wrong.first() {
                // The first wrong counter's traffic with the oracle's verdict on each event.
                let bit = p.lane_bit(event);
                let traffic: Vec<String> = history
                    .iter()
                    .enumerate()
                    .flat_map(|(i, lanes)| lanes.iter().enumerate().map(move |(l, x)| (i, l, x)))
                    .filter(|(_, _, x)| x.valid && x.events & bit != 0)
                    .take(32)
                    .map(|(i, l, x)| {
                        format!(
                            "cycle {i} lane {l} S={:#x} {:?}{}: {}",
                            x.sid,
                            x.ss,
                            if x.nosid { " NoStreamID" } else { "" },
                            if f.passes(&p.cfg, so, x) {
                                "counts"
                            } else {
                                "filtered out"
                            }
                        )
                    })
                    .collect();
                let counters: Vec<String> = wrong
                    .iter()
                    .take(16)
                    .map(|(n, event, f, expected, got)| {
                        format!(
                            "counter {n} (event {event:#x}, {}): expected {expected}, got {got}",
                            f.describe(w)
                        )
                    })
                    .collect();
                panic!(
                    "{name} round {round} (PMCG_SEED={base}), SO={}: {} counters wrong (first 16):\n  {}\n\
                     event {event:#x} on the lanes (first 32):\n  {}",
                    so as u8,
                    wrong.len(),
                    counters.join("\n  "),
                    traffic.join("\n  ")
                );
            }
        }
    });
}

/// W = 16: the default configuration (64 x 64-bit counters, one lane, Secure state).
/// About 12 x (1 + 4 + 256 + 10 + 192 + 256) = 8.6k cycles per backend.
#[test]
fn random_filters_w16() {
    let (name, cfg) = named_config("default");
    assert_eq!(cfg.sid_bits, 16);
    random_filters(&name, &cfg, 0xF16, 12, 192);
}

/// W = 32: 64 x 32-bit counters on 4 lanes with Secure state, and 16 x 48-bit counters on 8
/// lanes without (SEC and SO ignored, only Non-secure events count). About 12 x (1 + 4 + 256 +
/// 10 + 96 + 128) = 5.9k and 12 x (1 + 64 + 6 + 64 + 64) = 2.4k cycles per backend.
#[test]
fn random_filters_w32() {
    for (i, (name, cfg)) in [
        named_config("64x32 4 lanes sid32"),
        named_config("16x48 8 lanes sid32"),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(cfg.sid_bits, 32);
        random_filters(&name, &cfg, 0xF32 + i as u64, 12, 96 - 32 * i);
    }
}

/// Filter tables (`filter_tables = on`, issue 11): the same oracle on the block-RAM tables'
/// StreamID compare, 32 x 32-bit counters (one lane, W = 16, the sweep's 32x32) and 9 x 40-bit
/// counters on 3 lanes with Realm (W = 12). Every EVTYPERn and SMRn write holds the bus until its
/// column is rebuilt (258 wait states), so the programming is most of each round: 32 x 2 x 259 =
/// 16.6k cycles, 4 rounds, 66k cycles per backend (9 counters: 19k).
#[test]
fn random_filters_tables() {
    for (i, name) in [
        "32x32 filter tables",
        "9x40 filter tables realm 3 lanes sid12",
    ]
    .into_iter()
    .enumerate()
    {
        let (name, cfg) = named_config(name);
        assert!(cfg.filter_tables);
        random_filters(&name, &cfg, 0xF7A + i as u64, 4, 192);
    }
}

/// Filter tables (docs/behaviour.md "Filter tables"): an EVTYPERn write performed at the edge
/// ending its access cycle a holds PREADY at 0 in cycles a..a+258 (259 wait states) and the
/// counter's new event applies at edge a+258: lane events presented up to cycle a+257 count
/// under the old event, none after. Counter 0 counts event A (exact StreamID 0x42) while every
/// cycle from cycle L on carries A from 0x42; EVTYPER0 := event B during it. A switch at the
/// write (as without tables) would stop the count 257 events early. A write to an EVTYPER
/// element beyond the counters (not performed) has one wait state.
#[test]
fn a_filter_table_write_holds_the_bus_until_its_column_swaps_in() {
    let (name, cfg) = named_config("32x32 filter tables");
    let p = Pmcg::new(&name, &cfg);
    let ids: Vec<u16> = cfg
        .lane_event_ids()
        .into_iter()
        .filter(|&e| filterable(&cfg, e))
        .collect();
    let (a_ev, b_ev) = (ids[0], ids[1]);
    let f = Filter::exact(0x42, false);
    for_each_backend(&cfg, |d| {
        p.program(d, 0, a_ev, f);
        p.enable(d, 1);
        d.set_lanes(&[lane(p.lane_bit(a_ev), 0x42, SecState::NonSecure, false)]);
        let first_lane_cycle = d.cycle;
        d.idle(10);
        // EVTYPER0 := event B, same filter: setup, then access cycles until PREADY = 1.
        let mut bus = PinInputs::idle(1);
        (bus.psel, bus.pwrite, bus.paddr, bus.pwdata, bus.pstrb) = (
            true,
            true,
            p.addr(RegId::Evtyper(0)),
            p.evtyper(b_ev, f),
            0xF,
        );
        bus.pprot = S.pprot();
        d.step_with(bus.clone());
        bus.penable = true;
        let access = d.cycle;
        let mut waits = 0;
        while !d.step_with(bus.clone()).pready {
            waits += 1;
            assert!(waits < 400, "PREADY stuck");
        }
        assert_eq!(waits, 259, "wait states of a filter write");
        d.clear_lanes();
        d.idle(COUNT_DELAY + 1);
        let expected = access + 257 - first_lane_cycle + 1;
        assert_eq!(
            p.counter(d, 0),
            expected,
            "events of cycles {first_lane_cycle}..={} under the old event",
            access + 257
        );
        // An element beyond the counters: not performed, one wait state.
        let beyond = p.addr(RegId::Evtyper(0)) + 4 * cfg.counters;
        (bus.penable, bus.paddr) = (false, beyond);
        d.step_with(bus.clone());
        bus.penable = true;
        assert!(!d.step_with(bus.clone()).pready, "the access cycle");
        assert!(d.step_with(bus.clone()).pready, "no rebuild to wait for");
    });
}

// ---------------------------------------------------------------------------------------------
// 3. Global filter
// ---------------------------------------------------------------------------------------------

/// With SID_FILTER_TYPE = 1, EVTYPER0's SPAN/SEC and SMR0 filter every counter, while each
/// counter counts the EVENT of its own EVTYPERn. EVTYPERn (n > 0) is written with the opposite
/// SPAN and SEC at EVTYPER0's bit positions: those are RES0 there and must change nothing.
/// Counter 5 counts cycles (event 0, unfilterable), counter 6 repeats counter 0's event 1.
///
/// Per filter: 1 reset + 4 SCR + 16 (EVTYPER0-6, SMR0) + 4 enable + 48 traffic + 2 stop + 28
/// (7 64-bit reads) = 103 cycles; 7 filters, 0.7k cycles per backend.
#[test]
fn global_filter_applies_evtyper0_and_smr0_to_every_counter() {
    let (name, cfg) = named_config("odd");
    assert_eq!(cfg.sid_filter, SidFilterType::Global);
    let p = Pmcg::new(&name, &cfg);
    let w = cfg.sid_bits;
    let all = all_ones(w);
    let events: [u16; 7] = [1, 2, 6, 0x80, 0x91, 0, 1];
    assert_eq!(events.len() as u32, cfg.counters);
    for n in 1..cfg.counters {
        assert_eq!(
            p.map.mask(field::EVTYPER_FILTER_SID_SPAN.at(n)),
            0,
            "global filter: no filter fields in EVTYPER{n}"
        );
    }
    // (global filter, SO)
    let cases = [
        (Filter::exact(0x0123, false), false),
        (Filter::exact(0x0123, true), true),
        (Filter::span(0x0127, false), false),  // 0x0120-0x012F
        (Filter::span(0x0127, true), false),   // SO = 0: Non-secure anyway
        (Filter::span(all >> 1, true), true),  // every Secure StreamID
        (Filter::span(u32::MAX, false), true), // everything Non-secure or Secure
        (Filter::span(u32::MAX, true), false), // everything Non-secure
    ];
    let sids = [
        0x0122, 0x0123, 0x0124, 0x011F, 0x0120, 0x012F, 0x0130, 0xFFFF,
    ];
    for_each_backend(&cfg, |d| {
        let mut rng = ChaCha8Rng::seed_from_u64(0x610B);
        for (global, so) in cases {
            d.reset(1);
            p.set_so(d, so);
            p.program(d, 0, events[0], global);
            let opposite = Filter {
                span: !global.span,
                sec: !global.sec,
                x: 0,
            };
            for n in 1..cfg.counters {
                p.write(
                    d,
                    RegId::Evtyper(n),
                    p.evtyper(events[n as usize], opposite),
                );
            }
            let on = p.enable(d, cfg.counter_bitmap());
            let history =
                random_traffic(&mut rng, 48, d.lanes(), &sids, p.lane_bits(), (0.9, 0.15));
            for lanes in &history {
                d.set_lanes(lanes);
                d.idle(1);
            }
            d.clear_lanes();
            let off = p.stop(d);
            for (n, &event) in events.iter().enumerate() {
                let expected = if event == 0 {
                    off - on
                } else {
                    expected_count(&p, event, global, so, &history)
                };
                let got = p.counter(d, n as u32);
                assert_eq!(
                    got,
                    expected,
                    "{name}: counter {n} (event {event:#x}) under the global filter {} SO={}",
                    global.describe(w),
                    so as u8
                );
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 4. Every lane, every cycle
// ---------------------------------------------------------------------------------------------

/// Every lane carries event 1 every cycle (and event 2 every other cycle), each lane with a
/// different StreamID and security state, rotating so each lane carries each of eight
/// (StreamID, state) slots; every fifth cycle one lane is a NoStreamID access. Ten counters
/// with different filters, SO = 1: exact counts from the oracle, and two sums that need no
/// oracle: the AllSIDManySECSID counter sees every non-Realm event 1 (Non-secure only without
/// Secure state), and the two AllSIDOneSECSID counters split it by state.
///
/// 4 SCR + 40 program + 4 enable + 60 traffic + 10 reads (20 or 40) = 128-148 cycles per
/// configuration and backend.
#[test]
fn every_lane_every_cycle_with_different_stream_ids() {
    const K: usize = 60;
    let slots: [(u32, SecState); 8] = [
        (0x100, SecState::NonSecure),
        (0x101, SecState::Secure),
        (0x102, SecState::NonSecure),
        (0x103, SecState::Secure),
        (0x2_0000, SecState::Realm),
        (0xFFFF_FFFE, SecState::NonSecure),
        (0x7FFF_FFFF, SecState::Secure),
        (0x104, SecState::NonSecure),
    ];
    let all = u32::MAX;
    let counters: [(u16, Filter); 10] = [
        (1, Filter::exact(0x100, false)),
        (1, Filter::exact(0x101, true)),
        (1, Filter::span(0x101, false)), // 0x100-0x103
        (1, Filter::span(0x101, true)),
        (1, Filter::span(all, false)), // AllSIDManySECSID
        (1, Filter::span(all >> 1, false)),
        (1, Filter::span(all >> 1, true)),
        (2, Filter::span(0x103, false)), // 0x100-0x107
        (1, Filter::exact(0xFFFF_FFFE, false)),
        (1, Filter::exact(0x1_2345, false)), // no lane carries it
    ];
    const MANY: usize = 4;
    const ONE_NS: usize = 5;
    const ONE_S: usize = 6;
    for (name, cfg) in [
        named_config("64x32 4 lanes sid32"),
        named_config("16x48 8 lanes sid32"),
    ] {
        let p = Pmcg::new(&name, &cfg);
        let lanes = cfg.lanes as usize;
        let (ev1, ev2) = (p.lane_bit(1), p.lane_bit(2));
        let history: Vec<Vec<LaneIn>> = (0..K)
            .map(|i| {
                (0..lanes)
                    .map(|l| {
                        let (sid, ss) = slots[(l + i) % slots.len()];
                        let events = if (i + l) % 2 == 0 { ev1 | ev2 } else { ev1 };
                        lane(events, sid, ss, i % 5 == 0 && l == i / 5 % lanes)
                    })
                    .collect()
            })
            .collect();
        let so = true;
        let expected: Vec<u64> = counters
            .iter()
            .map(|&(event, f)| expected_count(&p, event, f, so, &history))
            .collect();
        // The sums that need no oracle.
        let event1_of = |want: &[SecState]| {
            history
                .iter()
                .flatten()
                .filter(|l| want.contains(&l.ss))
                .count() as u64
        };
        if cfg.secure {
            let (ns, s) = (
                event1_of(&[SecState::NonSecure]),
                event1_of(&[SecState::Secure]),
            );
            assert_eq!(expected[MANY], ns + s, "{name}: AllSIDManySECSID, SO=1");
            assert_eq!(expected[ONE_NS], ns, "{name}: AllSIDOneSECSID, SEC=0");
            assert_eq!(expected[ONE_S], s, "{name}: AllSIDOneSECSID, SEC=1");
            assert!(
                expected[..9].iter().all(|&c| c > 0),
                "{name}: every filter but the last sees traffic: {expected:?}"
            );
        } else {
            let ns = event1_of(&[SecState::NonSecure]);
            assert_eq!(expected[MANY], ns, "{name}: no Secure state");
            assert_eq!(expected[ONE_NS], ns, "{name}: no Secure state");
            assert_eq!(expected[ONE_S], ns, "{name}: no Secure state, SEC ignored");
        }
        assert_eq!(expected[9], 0, "{name}: StreamID 0x12345 is on no lane");
        for_each_backend(&cfg, |d| {
            p.set_so(d, so);
            for (n, &(event, f)) in counters.iter().enumerate() {
                p.program(d, n as u32, event, f);
            }
            p.enable(d, bitmap(0..counters.len() as u32));
            for lanes in &history {
                d.set_lanes(lanes);
                d.idle(1);
            }
            d.clear_lanes();
            d.idle(COUNT_DELAY - 1);
            for (n, &(event, f)) in counters.iter().enumerate() {
                let got = p.counter(d, n as u32);
                assert_eq!(
                    got,
                    expected[n],
                    "{name}: counter {n} (event {event}, {}), {lanes} lanes x {K} cycles",
                    f.describe(cfg.sid_bits)
                );
            }
        });
    }
}

// ---------------------------------------------------------------------------------------------
// 5. Unfilterable events
// ---------------------------------------------------------------------------------------------

/// 4 x 32-bit counters, 2 lanes, 8 StreamID bits, Secure state, IMPLEMENTATION DEFINED events
/// 0x80 (filterable) and 0x91 (`impdef_global`).
fn small_two_lanes() -> (String, PmcgConfig) {
    let items = [
        "counters=4",
        "counter_bits=32",
        "lanes=2",
        "sid_bits=8",
        "impdef=0x80,0x91",
        "impdef_global=0x91",
        "capture=off",
        "msi=off",
    ];
    ("4x32 2 lanes impdef_global".to_string(), parse(&items))
}

/// Event 0 and the `impdef_global` event 0x91 ignore the filter: with a filter that rejects
/// almost everything, the cycle counter counts every enabled edge and the 0x91 counter every
/// valid lane carrying 0x91, whatever StreamID, state (Realm included) and NoStreamID flag;
/// the filterable 0x80 and event 1 under the same filter count what the oracle says.
///
/// Per filter: 1 reset + 4 SCR + 16 program + 4 enable + 40 traffic + 2 stop + 8 reads = 75
/// cycles; 3 filters, about 0.2k cycles per backend.
#[test]
fn unfilterable_events_ignore_the_filter() {
    let (name, cfg) = small_two_lanes();
    let p = Pmcg::new(&name, &cfg);
    let events: [u16; 4] = [0, 0x91, 0x80, 1];
    assert!(!filterable(&cfg, 0) && !filterable(&cfg, 0x91));
    assert!(filterable(&cfg, 0x80) && filterable(&cfg, 1));
    let cases = [
        (Filter::exact(0x77, true), false), // SO = 0: Non-secure 0x77 only
        (Filter::exact(0x77, true), true),  // Secure 0x77 only
        (Filter::span(0x7F, true), true),   // AllSIDOneSECSID: every Secure StreamID
    ];
    let sids = [0x77, 0x76, 0x12, 0xFF];
    for_each_backend(&cfg, |d| {
        let mut rng = ChaCha8Rng::seed_from_u64(0x91);
        for (filter, so) in cases {
            d.reset(1);
            p.set_so(d, so);
            for (n, &event) in events.iter().enumerate() {
                p.program(d, n as u32, event, filter);
            }
            let on = p.enable(d, cfg.counter_bitmap());
            let history =
                random_traffic(&mut rng, 40, d.lanes(), &sids, p.lane_bits(), (0.85, 0.2));
            // The traffic must hold 0x91 events the filter would reject, or this proves nothing.
            let bit_91 = p.lane_bit(0x91);
            assert!(
                history
                    .iter()
                    .flatten()
                    .any(|l| l.valid && l.events & bit_91 != 0 && !filter.passes(&cfg, so, l)),
                "stimulus has filtered-out 0x91 events"
            );
            for lanes in &history {
                d.set_lanes(lanes);
                d.idle(1);
            }
            d.clear_lanes();
            let off = p.stop(d);
            let carrying_91 = history
                .iter()
                .flatten()
                .filter(|l| l.valid && l.events & bit_91 != 0)
                .count() as u64;
            for (n, &event) in events.iter().enumerate() {
                let expected = match event {
                    0 => off - on,
                    0x91 => carrying_91,
                    _ => expected_count(&p, event, filter, so, &history),
                };
                let got = p.counter(d, n as u32);
                assert_eq!(
                    got,
                    expected,
                    "{name}: counter {n} (event {event:#x}) under {} SO={}",
                    filter.describe(cfg.sid_bits),
                    so as u8
                );
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 6. When a filter write takes effect
// ---------------------------------------------------------------------------------------------

/// A write of SMRn or EVTYPERn's filter fields at edge t (its access cycle t) filters the events
/// presented from cycle t+1 on (the decode is registered at edge t+1); a write of SCR.SO (a live
/// control) those from cycle t on. Lanes are registered as they arrive and matched in the next
/// cycle under the filter in force then. Each case drives both lanes in the write's setup and
/// access cycles and in the two cycles after, with traffic chosen so that a switch one cycle
/// early or late gives another count.
///
/// Per case: 1 reset + 4 SCR + 4 program + 4 enable + 2 write + 2 traffic + 2 read = 19 cycles.
#[test]
fn filter_writes_apply_to_events_at_their_documented_cycle() {
    let (name, cfg) = small_two_lanes();
    let p = Pmcg::new(&name, &cfg);
    let ev = p.lane_bit(EVENT_1);
    let ns = |sid| lane(ev, sid, SecState::NonSecure, false);
    let sec = |sid| lane(ev, sid, SecState::Secure, false);
    let idle = LaneIn::default();
    let so_mask = p.map.mask(field::SCR_SO) as u32;
    // SCR at its reset value (NSRA, and NSMSI with MSI, stay 1) with SO = 1.
    let scr_so = p.map.reg(RegId::Scr).reset() as u32 | so_mask;
    struct Case {
        what: &'static str,
        old: (Filter, bool),
        new: (Filter, bool),
        write: (RegId, u32),
        /// Lanes in the write's setup cycle, access cycle, and the two cycles after.
        traffic: [[LaneIn; 2]; 4],
        /// The traffic cycle from which the new filter applies: 2 (the cycle after the access
        /// cycle) for EVTYPER and SMR, whose decode is registered; 1 (the access cycle) for SCR.
        switch: usize,
    }
    let exact_10 = Filter::exact(0x10, false);
    let cases = [
        Case {
            what: "SMR0.STREAMID 0x10 -> 0x20",
            old: (exact_10, false),
            new: (Filter::exact(0x20, false), false),
            write: (RegId::Smr(0), 0x20),
            traffic: [
                [ns(0x10), ns(0x10)],
                [ns(0x20), idle],
                [ns(0x20), ns(0x20)],
                [ns(0x10), ns(0x20)],
            ],
            switch: 2,
        },
        Case {
            what: "EVTYPER0.FILTER_SID_SPAN 0 -> 1 (X = 0x21)",
            old: (Filter::exact(0x21, false), false),
            new: (Filter::span(0x21, false), false),
            write: (
                RegId::Evtyper(0),
                p.evtyper(EVENT_1, Filter::span(0x21, false)),
            ),
            traffic: [
                [ns(0x21), ns(0x22)],
                [ns(0x22), ns(0x22)],
                [ns(0x22), ns(0x23)],
                [ns(0x20), idle],
            ],
            switch: 2,
        },
        Case {
            what: "EVTYPER0.FILTER_SEC_SID 0 -> 1 (SO = 1)",
            old: (exact_10, true),
            new: (Filter::exact(0x10, true), true),
            write: (
                RegId::Evtyper(0),
                p.evtyper(EVENT_1, Filter::exact(0x10, true)),
            ),
            traffic: [
                [ns(0x10), ns(0x10)],
                [sec(0x10), idle],
                [sec(0x10), sec(0x10)],
                [ns(0x10), sec(0x10)],
            ],
            switch: 2,
        },
        Case {
            what: "SCR.SO 0 -> 1 (AllSIDManySECSID)",
            old: (Filter::span(u32::MAX, false), false),
            new: (Filter::span(u32::MAX, false), true),
            write: (RegId::Scr, scr_so),
            traffic: [
                [sec(0x10), sec(0x20)],
                [sec(0x30), sec(0x40)],
                [sec(0x50), idle],
                [sec(0x60), ns(0x70)],
            ],
            switch: 1,
        },
    ];
    // The count if the new filter applied from traffic cycle `switch` on (1: cycle t, the access
    // cycle).
    let count_if_switched_at = |c: &Case, switch: usize| -> u64 {
        let history: Vec<Vec<LaneIn>> = c.traffic.iter().map(|l| l.to_vec()).collect();
        (0..4)
            .map(|i| {
                let (f, so) = if i < switch { c.old } else { c.new };
                expected_count(&p, EVENT_1, f, so, &history[i..=i])
            })
            .sum()
    };
    for c in &cases {
        let expected = count_if_switched_at(c, c.switch);
        assert!(
            expected != count_if_switched_at(c, c.switch - 1)
                && expected != count_if_switched_at(c, c.switch + 1),
            "{}: the traffic must tell a switch one cycle early or late apart",
            c.what
        );
    }
    for_each_backend(&cfg, |d| {
        for c in &cases {
            d.reset(1);
            p.set_so(d, c.old.1);
            p.program(d, 0, EVENT_1, c.old.0);
            p.enable(d, 0b1);
            // The write, with lanes in its setup and access cycles.
            let mut bus = PinInputs::idle(d.lanes());
            (bus.psel, bus.pwrite, bus.paddr) = (true, true, p.addr(c.write.0));
            (bus.pwdata, bus.pstrb, bus.pprot) = (c.write.1, 0xF, 0); // PPROT[1] = 0: Secure
            d.set_lanes(&c.traffic[0]);
            d.step_with(bus.clone());
            bus.penable = true;
            d.set_lanes(&c.traffic[1]);
            d.step_with(bus);
            for lanes in &c.traffic[2..] {
                d.set_lanes(lanes);
                d.idle(1);
            }
            d.clear_lanes();
            d.idle(COUNT_DELAY - 1);
            let got = p.counter(d, 0);
            assert_eq!(
                got,
                count_if_switched_at(c, c.switch),
                "{name}: {}: the events of traffic cycles before {} (1: the write's access \
                 cycle) keep the old filter, the others take the new",
                c.what,
                c.switch
            );
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 7. Scripts
// ---------------------------------------------------------------------------------------------

/// The filter scripts: a driver's programming sequence with hand-derived expectations.
const FILTER_SCRIPTS: [&str; 6] = [
    "filter-exact-0x42.pmcg",
    "filter-span-0x42.pmcg",
    "filter-span-0x41.pmcg",
    "filter-all.pmcg",
    "filter-global.pmcg",
    "filter-spec-examples.pmcg",
];

#[test]
fn filter_scripts_pass_on_every_backend() {
    common::scripts_pass_on_every_backend(&FILTER_SCRIPTS);
}
