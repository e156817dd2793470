//! `MatchStage`: the event match stage of every counter, the only block that reads the event
//! lanes.
//!
//! ```text
//!   lane_valid[l], lane_events[l] (live)          per counter n (registers of the RegFile):
//!        │                                        is_lane[n], lane_bit[n], next_is_cycle[n]
//!        ▼                                                   │
//!   Σ_l valid[l] & events[l][lane_bit[n]]  (when is_lane[n]) ─┤
//!   + next_is_cycle[n] (EVENT = 0 in the next cycle) ─────────┘──► match_q[n] ──► matched[n]
//! ```
//! One registered stage: events presented in cycle e are in `matched` during cycle e+1 and are
//! counted at edge e+1 (docs/behaviour.md, "Match stage"). The count of one counter is at most
//! MAX_LANES + 1 = 9, so it fits 4 bits. StreamID and security filtering (10.4) will sit here.

use crate::config::{PmcgConfig, MAX_LANES};
use crate::regmap::{RegId, RegisterMap};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct MatchStage {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (active high).
    pub rst: Signal<In, Bit>,
    pub lane_valid: Vec<Signal<In, Bit>>,
    pub lane_events: Vec<Signal<In, Bits<32>>>,
    /// Counter n's EVTYPERn selects a lane event, carried on lane event bit `lane_bit[n]`.
    pub is_lane: Vec<Signal<In, Bit>>,
    pub lane_bit: Vec<Signal<In, Bits<5>>>,
    /// Counter n counts cycles (EVENT = 0) in the next cycle.
    pub next_is_cycle: Vec<Signal<In, Bit>>,
    /// Events counter n adds at this edge when enabled.
    pub matched: Vec<Signal<Out, Bits<4>>>,
    match_q: Vec<DFF<Bits<4>>>,
    /// Reset value of each stage: 1 when the counter's reset EVENT is 0.
    match_reset: Vec<Constant<Bits<4>>>,
    zero: Constant<Bits<4>>,
    /// This cycle's lane event vectors (zero when a lane is not valid or not configured).
    lane_in: [Signal<Local, Bits<32>>; MAX_LANES as usize],
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
        let match_reset = (0..cfg.counters)
            .map(|i| {
                let evtyper = map.get(RegId::Evtyper(i)).map(|r| r.reset()).unwrap_or(0);
                let event = (evtyper & event_field.mask()) >> event_field.lsb;
                Constant::new((u64::from(event == u64::from(crate::config::CYCLE_EVENT))).into())
            })
            .collect();
        MatchStage {
            clock: Default::default(),
            rst: Default::default(),
            lane_valid: (0..lanes).map(|_| Default::default()).collect(),
            lane_events: (0..lanes).map(|_| Default::default()).collect(),
            is_lane: (0..n).map(|_| Default::default()).collect(),
            lane_bit: (0..n).map(|_| Default::default()).collect(),
            next_is_cycle: (0..n).map(|_| Default::default()).collect(),
            matched: (0..n).map(|_| Default::default()).collect(),
            match_q: (0..n).map(|_| Default::default()).collect(),
            match_reset,
            zero: Constant::new(0.into()),
            lane_in: Default::default(),
        }
    }
}

impl Logic for MatchStage {
    #[hdl_gen]
    fn update(&mut self) {
        for l in 0..self.lane_in.len() {
            self.lane_in[l].next = 0.into();
        }
        for l in 0..self.lane_valid.len() {
            if self.lane_valid[l].val() {
                self.lane_in[l].next = self.lane_events[l].val();
            }
        }
        for n in 0..self.match_q.len() {
            self.match_q[n].clock.next = self.clock.val();
            // Lanes carrying the counter's event under its current selection, plus the cycle
            // event. (A dynamic bit select, not a shift: rust-hdl simulates short shifts with
            // BigUint.)
            self.match_q[n].d.next = self.zero.val() + self.next_is_cycle[n].val();
            if self.is_lane[n].val() {
                self.match_q[n].d.next = self.zero.val()
                    + self.next_is_cycle[n].val()
                    + self.lane_in[0]
                        .val()
                        .get_bit(self.lane_bit[n].val().index())
                    + self.lane_in[1]
                        .val()
                        .get_bit(self.lane_bit[n].val().index())
                    + self.lane_in[2]
                        .val()
                        .get_bit(self.lane_bit[n].val().index())
                    + self.lane_in[3]
                        .val()
                        .get_bit(self.lane_bit[n].val().index())
                    + self.lane_in[4]
                        .val()
                        .get_bit(self.lane_bit[n].val().index())
                    + self.lane_in[5]
                        .val()
                        .get_bit(self.lane_bit[n].val().index())
                    + self.lane_in[6]
                        .val()
                        .get_bit(self.lane_bit[n].val().index())
                    + self.lane_in[7]
                        .val()
                        .get_bit(self.lane_bit[n].val().index());
            }
            if self.rst.val() {
                self.match_q[n].d.next = self.match_reset[n].val();
            }
            self.matched[n].next = self.match_q[n].q.val();
        }
    }
}
