//! `MatchStage`: the event match stage of every counter, with its StreamID and security-state
//! filter (10.4, 10.6). The only block that reads the event lanes.
//!
//! ```text
//!   lane l (live): valid, events, sid, ss, nosid
//!        │
//!        ▼                 per counter n: filter registers care[n] value[n] many[n] all_sid[n]
//!   ev   = valid & events[lane_bit[n]]   sec[n] (loaded from filt_* when filt_wr[n]), SCR.SO
//!   sid  = nosid ? all_sid[n] : (sid & care[n]) == value[n]
//!   ss   = NS: many | !(sec & so);  S: so & (many | sec);  Realm: never
//!   Σ_l ev & (!filterable(lane_bit[n]) | sid & ss)  + next_is_cycle[n] ──► match_q[n] ──► matched[n]
//! ```
//! One registered stage: events presented in cycle e are in `matched` during cycle e+1 and are
//! counted at edge e+1, under the event selection and filter in force in cycle e
//! (docs/behaviour.md). The filter is decoded by the register file when EVTYPERn or SMRn is
//! written, so the per-event work is one AND-compare per lane and counter. The count of one
//! counter is at most MAX_LANES + 1 = 9 (config.rs), so it fits 4 bits.

use crate::config::PmcgConfig;
use crate::regmap::{RegId, RegisterMap};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct MatchStage {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (active high).
    pub rst: Signal<In, Bit>,
    pub lane_valid: Vec<Signal<In, Bit>>,
    pub lane_events: Vec<Signal<In, Bits<32>>>,
    pub lane_sid: Vec<Signal<In, Bits<32>>>,
    pub lane_ss: Vec<Signal<In, Bits<2>>>,
    pub lane_nosid: Vec<Signal<In, Bit>>,
    /// Counter n's EVTYPERn selects a lane event, carried on lane event bit `lane_bit[n]`.
    pub is_lane: Vec<Signal<In, Bit>>,
    pub lane_bit: Vec<Signal<In, Bits<5>>>,
    /// Counter n counts cycles (EVENT = 0) in the next cycle.
    pub next_is_cycle: Vec<Signal<In, Bit>>,
    /// Load counter n's filter registers from `filt_*` at this edge.
    pub filt_wr: Vec<Signal<In, Bit>>,
    pub filt_care: Signal<In, Bits<32>>,
    pub filt_value: Signal<In, Bits<32>>,
    pub filt_many: Signal<In, Bit>,
    pub filt_all_sid: Signal<In, Bit>,
    pub filt_sec: Signal<In, Bit>,
    /// SCR.SO: Secure observation enabled.
    pub so: Signal<In, Bit>,
    /// Events counter n adds at this edge when enabled.
    pub matched: Vec<Signal<Out, Bits<4>>>,
    match_q: Vec<DFF<Bits<4>>>,
    /// StreamID bits that must match, and their value (10.4 ExactSID / PartialSID).
    care: Vec<DFF<Bits<32>>>,
    value: Vec<DFF<Bits<32>>>,
    /// AllSIDManySECSID: STREAMID all ones with FILTER_SID_SPAN = 1.
    many: Vec<DFF<Bit>>,
    /// A match-all mode (care = 0 with FILTER_SID_SPAN = 1): NoStreamID accesses may count.
    all_sid: Vec<DFF<Bit>>,
    /// FILTER_SEC_SID.
    sec: Vec<DFF<Bit>>,
    /// Reset value of each stage: 1 when the counter's reset EVENT is 0.
    match_reset: Vec<Constant<Bits<4>>>,
    /// Reset filter: EVTYPERn and SMRn reset values decoded (ExactSID on StreamID 0).
    care_reset: Constant<Bits<32>>,
    value_reset: Constant<Bits<32>>,
    many_reset: Constant<Bit>,
    all_sid_reset: Constant<Bit>,
    sec_reset: Constant<Bit>,
    /// Bit k: lane event k obeys the filter (not event 0, not a global IMPLEMENTATION DEFINED one).
    filterable: Constant<Bits<32>>,
    zero: Constant<Bits<4>>,
    /// This cycle's lane event vectors (zero when a lane is not valid or not configured).
    lane_in: Vec<Signal<Local, Bits<32>>>,
    lane_ns: Vec<Signal<Local, Bit>>,
    lane_s: Vec<Signal<Local, Bit>>,
    /// Per counter (reused in the loop): the security states it accepts, whether it filters.
    ns_ok: Signal<Local, Bit>,
    s_ok: Signal<Local, Bit>,
    filtered: Signal<Local, Bit>,
    hit: Vec<Signal<Local, Bit>>,
    count: Signal<Local, Bits<4>>,
}

/// (care, value, many, all_sid) of a filter (10.4), as the register file decodes it.
pub fn decode_filter(sid_all: u64, span: bool, x: u64) -> (u64, u64, bool, bool) {
    let x = x & sid_all;
    let care = if span {
        sid_all & !(x ^ (x + 1))
    } else {
        sid_all
    };
    (care, x & care, span && x == sid_all, span && care == 0)
}

impl MatchStage {
    /// The match stage of a validated configuration.
    pub fn new(cfg: &PmcgConfig) -> Self {
        let map = RegisterMap::new(cfg);
        let n = cfg.counters as usize;
        let lanes = cfg.lanes as usize;
        let event_field = map
            .reg(RegId::Evtyper(0))
            .field("EVENT")
            .expect("EVTYPER.EVENT");
        let reset = |id| map.get(id).map(|r| r.reset()).unwrap_or(0);
        let match_reset = (0..cfg.counters)
            .map(|i| {
                let event = (reset(RegId::Evtyper(i)) & event_field.mask()) >> event_field.lsb;
                Constant::new((u64::from(event == u64::from(crate::config::CYCLE_EVENT))).into())
            })
            .collect();
        let evtyper0 = reset(RegId::Evtyper(0));
        let span = evtyper0 & map.field_mask(RegId::Evtyper(0), "FILTER_SID_SPAN") != 0;
        let sec = evtyper0 & map.field_mask(RegId::Evtyper(0), "FILTER_SEC_SID") != 0;
        let sid_all = map.field_mask(RegId::Smr(0), "STREAMID");
        let (care, value, many, all_sid) = decode_filter(sid_all, span, reset(RegId::Smr(0)));
        let filterable = cfg
            .lane_event_ids()
            .iter()
            .enumerate()
            .filter(|(_, &e)| cfg.event_filterable(e))
            .fold(0u64, |m, (k, _)| m | 1 << k);
        MatchStage {
            clock: Default::default(),
            rst: Default::default(),
            lane_valid: (0..lanes).map(|_| Default::default()).collect(),
            lane_events: (0..lanes).map(|_| Default::default()).collect(),
            lane_sid: (0..lanes).map(|_| Default::default()).collect(),
            lane_ss: (0..lanes).map(|_| Default::default()).collect(),
            lane_nosid: (0..lanes).map(|_| Default::default()).collect(),
            is_lane: (0..n).map(|_| Default::default()).collect(),
            lane_bit: (0..n).map(|_| Default::default()).collect(),
            next_is_cycle: (0..n).map(|_| Default::default()).collect(),
            filt_wr: (0..n).map(|_| Default::default()).collect(),
            filt_care: Default::default(),
            filt_value: Default::default(),
            filt_many: Default::default(),
            filt_all_sid: Default::default(),
            filt_sec: Default::default(),
            so: Default::default(),
            matched: (0..n).map(|_| Default::default()).collect(),
            match_q: (0..n).map(|_| Default::default()).collect(),
            care: (0..n).map(|_| Default::default()).collect(),
            value: (0..n).map(|_| Default::default()).collect(),
            many: (0..n).map(|_| Default::default()).collect(),
            all_sid: (0..n).map(|_| Default::default()).collect(),
            sec: (0..n).map(|_| Default::default()).collect(),
            match_reset,
            care_reset: Constant::new(care.into()),
            value_reset: Constant::new(value.into()),
            many_reset: Constant::new(many),
            all_sid_reset: Constant::new(all_sid),
            sec_reset: Constant::new(sec),
            filterable: Constant::new(filterable.into()),
            zero: Constant::new(0.into()),
            lane_in: (0..lanes).map(|_| Default::default()).collect(),
            lane_ns: (0..lanes).map(|_| Default::default()).collect(),
            lane_s: (0..lanes).map(|_| Default::default()).collect(),
            ns_ok: Default::default(),
            s_ok: Default::default(),
            filtered: Default::default(),
            hit: (0..lanes).map(|_| Default::default()).collect(),
            count: Default::default(),
        }
    }
}

impl Logic for MatchStage {
    #[hdl_gen]
    fn update(&mut self) {
        for l in 0..self.lane_valid.len() {
            self.lane_in[l].next = 0.into();
            if self.lane_valid[l].val() {
                self.lane_in[l].next = self.lane_events[l].val();
            }
            // Security state codes: 0 Non-secure, 1 Secure (2 Realm is never accepted).
            self.lane_ns[l].next = self.lane_ss[l].val() == 0;
            self.lane_s[l].next = self.lane_ss[l].val() == 1;
        }
        for n in 0..self.match_q.len() {
            self.match_q[n].clock.next = self.clock.val();
            self.care[n].clock.next = self.clock.val();
            self.value[n].clock.next = self.clock.val();
            self.many[n].clock.next = self.clock.val();
            self.all_sid[n].clock.next = self.clock.val();
            self.sec[n].clock.next = self.clock.val();
            self.care[n].d.next = self.care[n].q.val();
            self.value[n].d.next = self.value[n].q.val();
            self.many[n].d.next = self.many[n].q.val();
            self.all_sid[n].d.next = self.all_sid[n].q.val();
            self.sec[n].d.next = self.sec[n].q.val();
            if self.filt_wr[n].val() {
                self.care[n].d.next = self.filt_care.val();
                self.value[n].d.next = self.filt_value.val();
                self.many[n].d.next = self.filt_many.val();
                self.all_sid[n].d.next = self.filt_all_sid.val();
                self.sec[n].d.next = self.filt_sec.val();
            }
            // 10.4 / 10.6: AllSIDManySECSID takes Non-secure, and Secure when SO = 1; the other
            // modes take the one state FILTER_SEC_SID & SO selects.
            self.ns_ok.next = self.many[n].q.val() | (!(self.sec[n].q.val() & self.so.val()));
            self.s_ok.next = self.so.val() & (self.many[n].q.val() | self.sec[n].q.val());
            self.filtered.next = self
                .filterable
                .val()
                .get_bit(self.lane_bit[n].val().index());
            // Per configured lane: the counter's event, passing the filter when the event obeys
            // it. (A dynamic bit select, not a shift: rust-hdl simulates short shifts with BigUint.)
            self.count.next = self.zero.val() + self.next_is_cycle[n].val();
            for l in 0..self.lane_valid.len() {
                self.hit[l].next = self.lane_in[l]
                    .val()
                    .get_bit(self.lane_bit[n].val().index());
                if self.filtered.val() {
                    if self.lane_nosid[l].val() {
                        // 10.4.2: NoStreamID accesses count only under a match-all filter.
                        self.hit[l].next = self.hit[l].val() & self.all_sid[n].q.val();
                    } else {
                        self.hit[l].next = self.hit[l].val()
                            & ((self.lane_sid[l].val() & self.care[n].q.val())
                                == self.value[n].q.val());
                    }
                    self.hit[l].next = self.hit[l].val()
                        & ((self.lane_ns[l].val() & self.ns_ok.val())
                            | (self.lane_s[l].val() & self.s_ok.val()));
                }
                if self.is_lane[n].val() {
                    self.count.next = self.count.val() + self.hit[l].val();
                }
            }
            self.match_q[n].d.next = self.count.val();
            if self.rst.val() {
                self.match_q[n].d.next = self.match_reset[n].val();
                self.care[n].d.next = self.care_reset.val();
                self.value[n].d.next = self.value_reset.val();
                self.many[n].d.next = self.many_reset.val();
                self.all_sid[n].d.next = self.all_sid_reset.val();
                self.sec[n].d.next = self.sec_reset.val();
            }
            self.matched[n].next = self.match_q[n].q.val();
        }
    }
}
