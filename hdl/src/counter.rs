//! `EventCounter`: one PMCG counter (10.5.2.1) with its EVTYPERn and SMRn storage.
//!
//! ```text
//!   matched (the register file's match of this cycle: events to add) ─┐
//!   en (CR.E & CNTEN[n]) ─────────────────────────────────────────────►  inc = en ? matched : 0
//!               │
//!   ┌───────────▼──────────┐  carry   ┌──────────────┐
//!   │ lo[31:0] += inc      ├─────────►│ pend (1 bit) │──► hi += pend next edge
//!   └───────────┬──────────┘          └──────────────┘
//!               │ ovf = carry & (narrow | hi+pend == max)   (10.2.1 carry-out of counter_bits)
//!   wr_lo / wr_hi / wr_evtyper / wr_smr + wdata (merged per PSTRB by the register file)
//!   is_cycle, is_lane, lane_bit ──► the register file's match of the registered lanes
//! ```
//!
//! The value is two 32-bit halves so that the native simulation never does 64-bit arithmetic
//! (rust-hdl stores wider `Bits` as bool arrays) and so that the carry between the halves is
//! registered (`pend`) instead of rippling 64 bits in one cycle. The architectural value is
//! `((hi + pend) << 32) | lo`, truncated to `counter_bits`; the register file adds `pend` after its
//! read mux, so one adder serves all counters. Overflow is predicted without that adder:
//! `hi + pend` is all ones exactly when (pend = 0 and hi = max) or (pend = 1 and hi = max - 1).

use crate::config::PmcgConfig;
use crate::regmap::{RegId, RegisterMap};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct EventCounter {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (active high).
    pub rst: Signal<In, Bit>,
    /// Events to add at this edge (matched by the register file; at most MAX_LANES).
    pub matched: Signal<In, Bits<4>>,
    /// CR.E & CNTEN[n] in this cycle: the counter counts at this edge.
    pub en: Signal<In, Bit>,
    /// Write the low word of the value from `wdata` (no counting at this edge).
    pub wr_lo: Signal<In, Bit>,
    /// Write the high word of the value from `wdata` (no counting at this edge).
    pub wr_hi: Signal<In, Bit>,
    /// Write EVTYPERn from `evt_wdata`, with its event decode in `wr_sel`.
    pub wr_evtyper: Signal<In, Bit>,
    /// Write SMRn from `wdata`.
    pub wr_smr: Signal<In, Bit>,
    /// Write data of the value, already merged with the old value per PSTRB.
    pub wdata: Signal<In, Bits<32>>,
    /// Write data of EVTYPERn, already merged per PSTRB (decoded in `wr_sel`).
    pub evt_wdata: Signal<In, Bits<32>>,
    /// Write data of SMRn, already merged per PSTRB.
    pub smr_wdata: Signal<In, Bits<32>>,
    /// The event decode of `evt_wdata`: [4:0] lane event bit, [5] a lane event, [6] event 0.
    pub wr_sel: Signal<In, Bits<7>>,
    /// Low word of the value.
    pub lo: Signal<Out, Bits<32>>,
    /// High word of the value, before the pending carry is added.
    pub hi: Signal<Out, Bits<32>>,
    /// A carry from the low word not yet added to `hi`.
    pub pend: Signal<Out, Bit>,
    pub evtyper: Signal<Out, Bits<32>>,
    pub smr: Signal<Out, Bits<32>>,
    /// EVTYPER.EVENT is a supported lane event, carried on lane event bit `lane_bit`.
    pub is_lane: Signal<Out, Bit>,
    pub lane_bit: Signal<Out, Bits<5>>,
    /// EVTYPER.EVENT is 0 (clock cycles): the register file's match adds 1 per edge.
    pub is_cycle: Signal<Out, Bit>,
    /// The counter overflows at this edge.
    pub ovf: Signal<Out, Bit>,
    /// Implemented bits of the high word (0 for 32-bit counters).
    hi_max: Constant<Bits<32>>,
    hi_max_less_one: Constant<Bits<32>>,
    /// Counters are wider than 32 bits.
    wide: Constant<Bit>,
    /// Writable bits of EVTYPERn and SMRn (from the register map).
    evtyper_wmask: Constant<Bits<32>>,
    smr_wmask: Constant<Bits<32>>,
    /// Reset values (from the register map) and the event decode of EVTYPERn's reset value.
    lo_reset: Constant<Bits<32>>,
    hi_reset: Constant<Bits<32>>,
    evtyper_reset: Constant<Bits<32>>,
    smr_reset: Constant<Bits<32>>,
    reset_sel: Constant<Bits<7>>,
    lo_r: DFF<Bits<32>>,
    hi_r: DFF<Bits<32>>,
    pend_r: DFF<Bit>,
    evtyper_r: DFF<Bits<32>>,
    smr_r: DFF<Bits<32>>,
    /// The event decode of EVTYPERn (the layout of `wr_sel`): one register, not three, because
    /// every register costs simulation time on both backends.
    sel_r: DFF<Bits<7>>,
    /// Events added at this edge (at most MAX_LANES + 1).
    inc: Signal<Local, Bits<32>>,
    lo_next: Signal<Local, Bits<32>>,
    carry: Signal<Local, Bit>,
    hi_at_max: Signal<Local, Bit>,
}

/// The packed event decode of an EVTYPER value: [4:0] lane event bit, [5] a lane event, [6]
/// event 0 (clock cycles).
pub fn event_sel(is_cycle: bool, is_lane: bool, lane_bit: u32) -> u64 {
    u64::from(lane_bit & 31) | u64::from(is_lane) << 5 | u64::from(is_cycle) << 6
}

impl EventCounter {
    /// Counter `n` of a validated configuration.
    pub fn new(cfg: &PmcgConfig, map: &RegisterMap, n: u32) -> Self {
        let hi_max = (cfg.counter_mask() >> 32) as u32;
        let wmask = |id| {
            map.get(id)
                .map(|r| r.mask_of(crate::regmap::Access::RW))
                .unwrap_or(0)
        };
        let reset = |id| map.get(id).map(|r| r.reset()).unwrap_or(0);
        let value_reset = reset(RegId::Evcntr(n));
        let evtyper_reset = reset(RegId::Evtyper(n));
        let event_field = map
            .reg(RegId::Evtyper(n))
            .field("EVENT")
            .expect("EVTYPER.EVENT");
        let reset_event = ((evtyper_reset & event_field.mask()) >> event_field.lsb) as u16;
        let reset_is_cycle = reset_event == crate::config::CYCLE_EVENT;
        let reset_lane_bit = cfg.lane_bit_of(reset_event);
        EventCounter {
            clock: Default::default(),
            rst: Default::default(),
            matched: Default::default(),
            en: Default::default(),
            wr_lo: Default::default(),
            wr_hi: Default::default(),
            wr_evtyper: Default::default(),
            wr_smr: Default::default(),
            wdata: Default::default(),
            evt_wdata: Default::default(),
            smr_wdata: Default::default(),
            wr_sel: Default::default(),
            lo: Default::default(),
            hi: Default::default(),
            pend: Default::default(),
            evtyper: Default::default(),
            smr: Default::default(),
            is_lane: Default::default(),
            lane_bit: Default::default(),
            is_cycle: Default::default(),
            ovf: Default::default(),
            hi_max: Constant::new((hi_max as u64).into()),
            hi_max_less_one: Constant::new((hi_max.wrapping_sub(1) as u64).into()),
            wide: Constant::new(cfg.wide_counters()),
            evtyper_wmask: Constant::new(wmask(RegId::Evtyper(n)).into()),
            smr_wmask: Constant::new(wmask(RegId::Smr(n)).into()),
            lo_reset: Constant::new((value_reset & 0xFFFF_FFFF).into()),
            hi_reset: Constant::new((value_reset >> 32).into()),
            evtyper_reset: Constant::new(evtyper_reset.into()),
            smr_reset: Constant::new(reset(RegId::Smr(n)).into()),
            reset_sel: Constant::new(
                event_sel(
                    reset_is_cycle,
                    reset_lane_bit.is_some(),
                    reset_lane_bit.unwrap_or(0),
                )
                .into(),
            ),
            lo_r: Default::default(),
            hi_r: Default::default(),
            pend_r: Default::default(),
            evtyper_r: Default::default(),
            smr_r: Default::default(),
            sel_r: Default::default(),
            inc: Default::default(),
            lo_next: Default::default(),
            carry: Default::default(),
            hi_at_max: Default::default(),
        }
    }
}

impl Logic for EventCounter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lo_r, hi_r, pend_r, evtyper_r, smr_r, sel_r);
        // An enabled counter adds the register file's match of this cycle: 1 when it counts
        // cycles (EVENT = 0), else the lanes (registered last cycle) carrying its event.
        self.inc.next = 0.into();
        if self.en.val() {
            self.inc.next = bit_cast::<32, 4>(self.matched.val());
        }
        // Carry out of the low word. `inc` is at most MAX_LANES + 1 (9) < 16, so lo + inc carries
        // exactly when lo[31:4] are all ones and lo[3:0] + inc > 15: a 5-bit add (sum <= 23)
        // beside the 32-bit one, not a 32-bit compare behind it.
        self.carry.next = ((self.lo_r.q.val() & 0xFFFF_FFF0u64) == 0xFFFF_FFF0u64)
            & ((bit_cast::<5, 32>(self.lo_r.q.val() & 15) + bit_cast::<5, 32>(self.inc.val()))
                > 15);
        self.hi_at_max.next = ((!self.pend_r.q.val()) & (self.hi_r.q.val() == self.hi_max.val()))
            | (self.pend_r.q.val() & (self.hi_r.q.val() == self.hi_max_less_one.val()));
        self.lo_next.next = self.lo_r.q.val() + self.inc.val();
        self.hi_r.d.next = (self.hi_r.q.val() + self.pend_r.q.val()) & self.hi_max.val();
        self.pend_r.d.next = self.carry.val() & self.wide.val();
        // 10.2.1: overflow is the carry out of the counter width; the counter wraps and goes on.
        self.ovf.next = self.carry.val() & ((!self.wide.val()) | self.hi_at_max.val());
        // 10.5.2.1: a write replaces its word and the counter skips this edge's events; a write
        // never overflows.
        if self.wr_lo.val() {
            self.lo_next.next = self.wdata.val();
            self.pend_r.d.next = false;
            self.ovf.next = false;
        }
        if self.wr_hi.val() {
            self.lo_next.next = self.lo_r.q.val();
            self.hi_r.d.next = self.wdata.val() & self.hi_max.val();
            self.pend_r.d.next = false;
            self.ovf.next = false;
        }
        if self.wr_evtyper.val() {
            self.evtyper_r.d.next = self.evt_wdata.val() & self.evtyper_wmask.val();
            self.sel_r.d.next = self.wr_sel.val();
        }
        if self.wr_smr.val() {
            self.smr_r.d.next = self.smr_wdata.val() & self.smr_wmask.val();
        }
        // Reset: register-map reset values, and the decode of EVTYPERn's reset EVENT.
        if self.rst.val() {
            self.lo_next.next = self.lo_reset.val();
            self.hi_r.d.next = self.hi_reset.val();
            self.pend_r.d.next = false;
            self.evtyper_r.d.next = self.evtyper_reset.val();
            self.smr_r.d.next = self.smr_reset.val();
            self.sel_r.d.next = self.reset_sel.val();
            self.ovf.next = false;
        }
        self.lo_r.d.next = self.lo_next.val();
        self.lo.next = self.lo_r.q.val();
        self.hi.next = self.hi_r.q.val();
        self.pend.next = self.pend_r.q.val();
        self.evtyper.next = self.evtyper_r.q.val();
        self.smr.next = self.smr_r.q.val();
        self.lane_bit.next = bit_cast::<5, 7>(self.sel_r.q.val());
        self.is_lane.next = self.sel_r.q.val().get_bit(5);
        self.is_cycle.next = self.sel_r.q.val().get_bit(6);
    }
}
