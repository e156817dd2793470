//! `FilterMatch`: every counter's event selection and filter, and the match of the registered
//! lanes against them (SMMUv3 10.4, 10.4.2-10.4.4, 10.6; docs/behaviour.md "Event lanes and
//! counting", "Accepted set", "Reconfiguration"): counter n's increment for the next edge,
//! which the register file loads into its match register (match_regs.rs).
//!
//! ```text
//!   the decoder's outputs (filter_decode.rs) ──► at `filt_go` (the counter's, or every one with
//!     the global filter): f_care[n], f_mode[n]; at `sel_load`: c_sel[n] (event selection);
//!     at `smr_load`: c_smr[n]; a reset edge: the register map's reset values decoded
//!   SCR, ROOTCR after this edge (`scr_nx`, `rootcr_nx`), f_mode[n], c_sel[n] after this edge
//!     ──► (only at an edge that changes a source: `acc_ld`) acc_r[n]: the accepted security
//!         states (MPAM limits applied); evk_free / evk_filt bit n: the event kind
//!   lane_events[l] (registered lanes) ─► bit c_sel[n] ─┐
//!   lane_sid / lane_mpam & f_care[n] == VALUE ─────────┼─► hit[l] ─► Σ over lanes ─► m_sum
//!     (with filter tables: tab_hit[l] bit n)           │
//!   lane_nosid (match-all modes only), lane_acc & acc_r[n]
//!   match_nx[n] = reset ? 0 : c_sel[n] after the edge is the cycle event ? (cr_e & cnten[n])
//!                 : (cr_e & cnten[n] ? m_sum : 0)
//! ```
//!
//! Every input is a register of the register file or the top block, or the register file's
//! value of a register after this edge (`scr_nx`, `rootcr_nx`); `match_nx` goes to the match
//! registers, so no path runs from a lane through the compare into a counter's adder. VALUE is
//! SMRn & CARE: no register of its own (SMRn loads with the decode, one edge after its access,
//! so the two never mix). The per-counter registers live in this block's loop, not in a block
//! each (rust-hdl's settle and the Verilator model stay short).

use crate::c32;
use crate::config::{PmcgConfig, SidFilterType, LANE_MPAM_SP_LSB};
use crate::filter_decode::{event_sel, FilterDecode};
use crate::regmap::field;
use crate::regmap::{Access, RegId, RegisterMap};
use rust_hdl::prelude::*;

/// A fault planted in the match block, for the tests that must catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchFault {
    /// `acc_r` / `evk_*` loaded from their sources' current values, not their values after the
    /// edge: an SCR, ROOTCR, filter or event-selection change is missed until the next load.
    StaleAccept,
}

#[derive(LogicBlock)]
pub struct FilterMatch {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// The lane inputs of the previous cycle (registered by the top block): the events are 0
    /// when the lane was not valid; `lane_acc` is the security state as a one-hot of the `acc`
    /// codes; `lane_mpam` is `config::lane_mpam_word` (MPAM filter only).
    pub lane_events: Vec<Signal<In, Bits<32>>>,
    pub lane_sid: Vec<Signal<In, Bits<32>>>,
    pub lane_acc: Vec<Signal<In, Bits<8>>>,
    pub lane_nosid: Vec<Signal<In, Bit>>,
    pub lane_mpam: Vec<Signal<In, Bits<32>>>,
    /// With filter tables: lane l's StreamID compare of every counter (filter_table.rs).
    pub tab_hit: Vec<Signal<In, Bits<64>>>,
    /// CR.E and CNTEN of this cycle (registers).
    pub cr_e: Signal<In, Bit>,
    pub cnten: Signal<In, Bits<64>>,
    /// SCR and ROOTCR of this cycle (registers: MPAM filtering's PARTID space) and after this
    /// edge (the accepted sets).
    pub scr: Signal<In, Bits<32>>,
    pub rootcr: Signal<In, Bits<32>>,
    pub scr_nx: Signal<In, Bits<32>>,
    pub rootcr_nx: Signal<In, Bits<32>>,
    /// SCR or ROOTCR may change at this edge (a write of either).
    pub ctl_wr: Signal<In, Bit>,
    /// This edge loads the decoded event selection (`sel_load`) and filter (`filt_go`) into the
    /// counters of `ld_sel` (one-hot), or with the global filter the filter into every counter
    /// when `ld_wr0` (the write was EVTYPER0/SMR0's).
    pub sel_load: Signal<In, Bit>,
    pub filt_go: Signal<In, Bit>,
    pub ld_sel: Signal<In, Bits<64>>,
    pub ld_wr0: Signal<In, Bit>,
    /// What they load: the event selection (`event_sel` layout) and its cycle-event bit (from
    /// registers), CARE and the mode bits (`FilterDecode`).
    pub ld_evsel: Signal<In, Bits<7>>,
    pub ld_cyc: Signal<In, Bit>,
    pub ld_care: Signal<In, Bits<32>>,
    pub ld_mode: Signal<In, Bits<13>>,
    /// This edge loads SMRn of the counters of `ld_sel` with `ld_smr` (an SMR write's decode).
    pub smr_load: Signal<In, Bit>,
    pub ld_smr: Signal<In, Bits<32>>,
    /// Counter n's increment at the next edge (into its match register).
    pub match_nx: Vec<Signal<Out, Bits<4>>>,
    /// Counter n: EVTYPERn's event decode (`event_sel` layout), SMRn, the filter registers (the
    /// key bits that must match: StreamID bits, or the MPAM lane bits {space, PMG, PARTID};
    /// the mode bits, `FilterDecode::mode`), the accepted security states (`acc` codes).
    c_sel: Vec<DFF<Bits<7>>>,
    c_smr: Vec<DFF<Bits<32>>>,
    f_care: Vec<DFF<Bits<32>>>,
    f_mode: Vec<DFF<Bits<13>>>,
    acc_r: Vec<DFF<Bits<8>>>,
    /// Bit n: counter n's event is a lane event that counts unfiltered (`evk_free`) or obeys
    /// the filter (`evk_filt`); a word each, not a flip-flop per counter.
    evk_free: DFF<Bits<64>>,
    evk_filt: DFF<Bits<64>>,
    // Configuration and register-map constants.
    smr_wmask: Vec<Constant<Bits<32>>>,
    smr_reset: Vec<Constant<Bits<32>>>,
    sel_reset: Vec<Constant<Bits<7>>>,
    /// The reset filter: the EVTYPERn/SMRn reset values decoded.
    care_reset: Constant<Bits<32>>,
    mode_reset: Constant<Bits<13>>,
    /// Bit k: lane event k obeys the filters (not a global or non-attributable event); bit k:
    /// lane event k is non-attributable (10.4.4).
    filterable: Constant<Bits<32>>,
    nonattr: Constant<Bits<32>>,
    /// The lane vector's bits that carry a supported event, and the lane-bit selector's bits
    /// that can be nonzero: each counter's event select is a mux over the supported events.
    lane_event_mask: Constant<Bits<32>>,
    lane_bit_mask: Constant<Bits<5>>,
    one: Constant<Bits<4>>,
    secure_impl: Constant<Bit>,
    global_filter: Constant<Bit>,
    realm_impl: Constant<Bit>,
    mpam_on: Constant<Bit>,
    tables: Constant<Bit>,
    stale_accept: Constant<Bit>,
    so_mask: Constant<Bits<32>>,
    scr_nao_mask: Constant<Bits<32>>,
    rlo_mask: Constant<Bits<32>>,
    rto_mask: Constant<Bits<32>>,
    sao_mask: Constant<Bits<32>>,
    pmo_mask: Constant<Bits<32>>,
    root_nao_mask: Constant<Bits<32>>,
    /// SMR's PARTID and PMG fields, and the PARTID-space codes in place (lane_mpam layout).
    partid_field: Constant<Bits<32>>,
    pmg_field: Constant<Bits<32>>,
    sp_ns_word: Constant<Bits<32>>,
    sp_s_word: Constant<Bits<32>>,
    sp_realm_word: Constant<Bits<32>>,
    // Locals (the per-counter ones reused in the loops).
    /// The registered lanes' event vectors, the supported events only.
    lane_in: Vec<Signal<Local, Bits<32>>>,
    hit: Vec<Signal<Local, Bit>>,
    /// SCR.SO and ROOTCR.RLO of this cycle (MPAM filtering's VALUE).
    so_live: Signal<Local, Bit>,
    rlo_live: Signal<Local, Bit>,
    /// SCR and ROOTCR as `acc_r` / `evk_*` take them, and their controls (0 when not
    /// implemented).
    scr_acc: Signal<Local, Bits<32>>,
    rootcr_acc: Signal<Local, Bits<32>>,
    so: Signal<Local, Bit>,
    scr_nao: Signal<Local, Bit>,
    rlo: Signal<Local, Bit>,
    rto: Signal<Local, Bit>,
    sao: Signal<Local, Bit>,
    pmo: Signal<Local, Bit>,
    root_nao: Signal<Local, Bit>,
    /// 10.4.4: non-attributable events may count.
    na_ok: Signal<Local, Bit>,
    /// `acc_r` / `evk_*` load at this edge (a source may change).
    acc_ld: Signal<Local, Bit>,
    sel_now: Signal<Local, Bits<7>>,
    lane_bit: Signal<Local, Bits<5>>,
    is_lane: Signal<Local, Bit>,
    ctr_en: Signal<Local, Bit>,
    sel_nx: Signal<Local, Bits<7>>,
    cyc_nx: Signal<Local, Bit>,
    filt_load: Signal<Local, Bit>,
    m_now: Signal<Local, Bits<13>>,
    sec_eff: Signal<Local, Bit>,
    rel: Signal<Local, Bit>,
    acc: Signal<Local, Bits<8>>,
    /// The VALUE to compare with (with MPAM filtering VALUE and the selected space), the
    /// counter's SMR (SMR0 with the global filter), the MPAM VALUE before its space.
    val_now: Signal<Local, Bits<32>>,
    smr_now: Signal<Local, Bits<32>>,
    m_val: Signal<Local, Bits<32>>,
    /// A lane's compare key: its StreamID, or with MPAM filtering its MPAM labels.
    key: Signal<Local, Bits<32>>,
    lim_ok: Signal<Local, Bit>,
    ev_ok: Signal<Local, Bit>,
    filtered: Signal<Local, Bit>,
    evk: Signal<Local, Bits<2>>,
    m_sum: Signal<Local, Bits<4>>,
    match_v: Signal<Local, Bits<4>>,
}

impl FilterMatch {
    /// The match block of a validated configuration (with `fault` planted, tests only).
    pub fn new(cfg: &PmcgConfig, fault: Option<MatchFault>) -> Self {
        let map = RegisterMap::new(cfg);
        let n = cfg.counters as usize;
        let lanes = cfg.lanes as usize;
        let wmask = |id| map.get(id).map(|r| r.mask_of(Access::RW)).unwrap_or(0);
        let reset = |id| map.get(id).map(|r| r.reset()).unwrap_or(0);
        let event_field = map
            .reg(RegId::Evtyper(0))
            .field("EVENT")
            .expect("EVTYPER.EVENT");
        let lane_ids = cfg.lane_event_ids();
        // The reset filter, decoded as a write would decode it (every EVTYPERn/SMRn resets alike).
        let f_reset = FilterDecode::new(cfg, &map, reset(RegId::Evtyper(0)), reset(RegId::Smr(0)));
        let lane_bits = |keep: &dyn Fn(u16) -> bool| {
            lane_ids
                .iter()
                .enumerate()
                .filter(|(_, &e)| keep(e))
                .fold(0u64, |m, (k, _)| m | 1 << k)
        };
        let filterable = lane_bits(&|e| cfg.event_filterable(e));
        let lane_event_bits = lane_bits(&|_| true);
        let nonattr = lane_bits(&|e| cfg.event_nonattr(e));
        if cfg.mpam_filter {
            // The lane_mpam packing mirrors SMR's {PMG, PARTID} so one AND-compare matches both.
            assert_eq!(map.mask(field::SMR_PARTID), 0xFFFF);
            assert_eq!(map.mask(field::SMR_PMG), 0xFF_0000);
        }
        let sp_word = |code: u64| c32(code << LANE_MPAM_SP_LSB);
        let rootcr_field = |name| c32(map.field_mask(RegId::Rootcr, name));
        let per_counter = |f: &dyn Fn(u32) -> u64| (0..cfg.counters).map(|i| c32(f(i))).collect();
        FilterMatch {
            clock: Default::default(),
            rst: Default::default(),
            lane_events: (0..lanes).map(|_| Default::default()).collect(),
            lane_sid: (0..lanes).map(|_| Default::default()).collect(),
            lane_acc: (0..lanes).map(|_| Default::default()).collect(),
            lane_nosid: (0..lanes).map(|_| Default::default()).collect(),
            lane_mpam: (0..lanes).map(|_| Default::default()).collect(),
            tab_hit: (0..lanes).map(|_| Default::default()).collect(),
            cr_e: Default::default(),
            cnten: Default::default(),
            scr: Default::default(),
            rootcr: Default::default(),
            scr_nx: Default::default(),
            rootcr_nx: Default::default(),
            ctl_wr: Default::default(),
            sel_load: Default::default(),
            filt_go: Default::default(),
            ld_sel: Default::default(),
            ld_wr0: Default::default(),
            ld_evsel: Default::default(),
            ld_cyc: Default::default(),
            ld_care: Default::default(),
            ld_mode: Default::default(),
            smr_load: Default::default(),
            ld_smr: Default::default(),
            match_nx: (0..n).map(|_| Default::default()).collect(),
            c_sel: (0..n).map(|_| Default::default()).collect(),
            c_smr: (0..n).map(|_| Default::default()).collect(),
            f_care: (0..n).map(|_| Default::default()).collect(),
            f_mode: (0..n).map(|_| Default::default()).collect(),
            acc_r: (0..n).map(|_| Default::default()).collect(),
            evk_free: Default::default(),
            evk_filt: Default::default(),
            smr_wmask: per_counter(&|i| wmask(RegId::Smr(i))),
            smr_reset: per_counter(&|i| reset(RegId::Smr(i))),
            sel_reset: (0..cfg.counters)
                .map(|i| {
                    let ev =
                        ((reset(RegId::Evtyper(i)) & event_field.mask()) >> event_field.lsb) as u16;
                    let bit = cfg.lane_bit_of(ev);
                    Constant::new(
                        event_sel(
                            ev == crate::config::CYCLE_EVENT,
                            bit.is_some(),
                            bit.unwrap_or(0),
                        )
                        .into(),
                    )
                })
                .collect(),
            care_reset: c32(f_reset.care),
            mode_reset: Constant::new(f_reset.mode.into()),
            // The bits of unsupported events read as filterable: no counter selects them, and
            // so "filtered" is a constant 1 when every supported lane event is filterable.
            filterable: Constant::new((filterable | !lane_event_bits & 0xFFFF_FFFF).into()),
            nonattr: Constant::new(nonattr.into()),
            lane_event_mask: Constant::new(lane_event_bits.into()),
            lane_bit_mask: Constant::new(
                ((lane_ids.len().max(1).next_power_of_two() - 1) as u64).into(),
            ),
            one: Constant::new(1.into()),
            secure_impl: Constant::new(cfg.secure),
            global_filter: Constant::new(cfg.sid_filter == SidFilterType::Global),
            realm_impl: Constant::new(cfg.realm),
            mpam_on: Constant::new(cfg.mpam_filter),
            tables: Constant::new(cfg.filter_tables),
            stale_accept: Constant::new(fault == Some(MatchFault::StaleAccept)),
            so_mask: c32(map.mask(field::SCR_SO)),
            scr_nao_mask: c32(map.mask(field::SCR_NAO)),
            rlo_mask: rootcr_field("RLO"),
            rto_mask: rootcr_field("RTO"),
            sao_mask: rootcr_field("SAO"),
            pmo_mask: rootcr_field("PMO"),
            root_nao_mask: rootcr_field("NAO"),
            partid_field: c32(map.mask(field::SMR_PARTID)),
            pmg_field: c32(map.mask(field::SMR_PMG)),
            sp_s_word: sp_word(0),
            sp_ns_word: sp_word(1),
            sp_realm_word: sp_word(3),
            lane_in: (0..lanes).map(|_| Default::default()).collect(),
            hit: (0..lanes).map(|_| Default::default()).collect(),
            so_live: Default::default(),
            rlo_live: Default::default(),
            scr_acc: Default::default(),
            rootcr_acc: Default::default(),
            so: Default::default(),
            scr_nao: Default::default(),
            rlo: Default::default(),
            rto: Default::default(),
            sao: Default::default(),
            pmo: Default::default(),
            root_nao: Default::default(),
            na_ok: Default::default(),
            acc_ld: Default::default(),
            sel_now: Default::default(),
            lane_bit: Default::default(),
            is_lane: Default::default(),
            ctr_en: Default::default(),
            sel_nx: Default::default(),
            cyc_nx: Default::default(),
            filt_load: Default::default(),
            m_now: Default::default(),
            sec_eff: Default::default(),
            rel: Default::default(),
            acc: Default::default(),
            val_now: Default::default(),
            smr_now: Default::default(),
            m_val: Default::default(),
            key: Default::default(),
            lim_ok: Default::default(),
            ev_ok: Default::default(),
            filtered: Default::default(),
            evk: Default::default(),
            m_sum: Default::default(),
            match_v: Default::default(),
        }
    }
}

impl Logic for FilterMatch {
    #[hdl_gen]
    // hdl_gen has no `&&`: an index compare that only a strobe's cycle should pay for is a nested
    // `if` (the native simulation evaluates both sides of `&`).
    #[allow(clippy::collapsible_if)]
    fn update(&mut self) {
        dff_setup!(self, clock, evk_free, evk_filt);
        for l in 0..self.lane_in.len() {
            self.lane_in[l].next = self.lane_events[l].val() & self.lane_event_mask.val();
        }
        // Live security controls for MPAM filtering's VALUE (the PARTID space; registers, 0 when
        // not implemented). The accepted states use their values after the edge (`acc_r`).
        self.so_live.next = (self.scr.val() & self.so_mask.val()).any();
        self.rlo_live.next = (self.rootcr.val() & self.rlo_mask.val()).any();
        // Assigned on every path (no latch); the lane loop sets it with the MPAM filter only.
        self.key.next = 0.into();
        for n in 0..self.c_sel.len() {
            self.c_smr[n].clock.next = self.clock.val();
            self.c_sel[n].clock.next = self.clock.val();
            self.f_care[n].clock.next = self.clock.val();
            self.f_mode[n].clock.next = self.clock.val();
            self.c_smr[n].d.next = self.c_smr[n].q.val();
            // The counter's event decode (`event_sel` layout).
            // (bit_cast of a loop-indexed value breaks rust-hdl's Verilog generation: copy first.)
            self.sel_now.next = self.c_sel[n].q.val();
            self.lane_bit.next = bit_cast::<5, 7>(self.sel_now.val()) & self.lane_bit_mask.val();
            self.is_lane.next = self.sel_now.val().get_bit(5);
            // ---- Match: the registered lanes against the counter's event and filter of this
            // cycle (10.4, 10.4.2-10.4.4, 10.6; docs/behaviour.md "Accepted set").
            self.m_now.next = self.f_mode[n].q.val();
            // MPAM: the selected PARTID space (FILTER_MPAM_SP) and its MPAMIDR limits.
            // VALUE = SMR & CARE (the global filter's is SMR0's); SMR's PARTID/PMG under MPAM.
            self.smr_now.next = self.c_smr[n].q.val();
            if self.global_filter.val() {
                self.smr_now.next = self.c_smr[0].q.val();
            }
            self.val_now.next = self.smr_now.val() & self.f_care[n].q.val();
            // Assigned on every path: a Local left unassigned on some path chains through every
            // counter of the loop, and Yosys 0.23's proc_dlatch took 22 s on 16x32 (1.7 s
            // without) and more than 20 minutes on 32x32.
            self.m_val.next = self.val_now.val() & (self.partid_field.val() | self.pmg_field.val());
            if self.mpam_on.val() & self.m_now.val().get_bit(4) {
                self.val_now.next = self.m_val.val();
                if (!self.m_now.val().get_bit(7)) & self.so_live.val() {
                    // 0b00 / 0b10: Secure when SO = 1.
                    self.val_now.next = self.m_val.val() | self.sp_s_word.val();
                } else {
                    // Otherwise Non-secure, or Realm for 0b11 with RLO = 1.
                    self.val_now.next = self.m_val.val() | self.sp_ns_word.val();
                    if self.m_now.val().get_bit(7)
                        & self.m_now.val().get_bit(8)
                        & self.rlo_live.val()
                    {
                        self.val_now.next = self.m_val.val() | self.sp_realm_word.val();
                    }
                }
            }
            // The accepted states and the event kind (registered, `acc_r` / `evk_*`).
            self.acc.next = self.acc_r[n].q.val();
            self.m_sum.next = 0.into();
            for l in 0..self.hit.len() {
                // A dynamic bit select, not a shift (rust-hdl 0.46 simulated shifts with BigUint).
                self.hit[l].next = self.lane_in[l].val().get_bit(self.lane_bit.val().index());
                // The filter, when the event obeys it: the key (StreamID, or the MPAM labels
                // under MPAM filtering) against CARE/VALUE, a NoStreamID access only under a
                // match-all mode (10.4.2; MPAM filtering is one), and the security state.
                // Branch-free, which keeps the Verilator model fast on random traffic.
                // (Two copies of the expression: without the MPAM filter the key is the StreamID,
                // and the native simulation is spared a copy per lane and counter.)
                if self.tables.val() {
                    // The StreamID compare is the tables' (the lanes registered at the edge
                    // that looked them up).
                    self.hit[l].next = self.hit[l].val()
                        & (self.evk_free.q.val().get_bit(n)
                            | (self.evk_filt.q.val().get_bit(n)
                                & (self.tab_hit[l].val().get_bit(n)
                                    & ((!self.lane_nosid[l].val())
                                        | self.m_now.val().get_bit(0))
                                    & (self.acc.val() & self.lane_acc[l].val()).any())));
                } else if self.mpam_on.val() {
                    self.key.next = self.lane_sid[l].val();
                    if self.m_now.val().get_bit(4) {
                        self.key.next = self.lane_mpam[l].val();
                    }
                    self.hit[l].next = self.hit[l].val()
                        & (self.evk_free.q.val().get_bit(n)
                            | (self.evk_filt.q.val().get_bit(n)
                                & (((self.key.val() & self.f_care[n].q.val())
                                    == self.val_now.val())
                                    & ((!self.lane_nosid[l].val())
                                        | self.m_now.val().get_bit(0))
                                    & (self.acc.val() & self.lane_acc[l].val()).any())));
                } else {
                    self.hit[l].next = self.hit[l].val()
                        & (self.evk_free.q.val().get_bit(n)
                            | (self.evk_filt.q.val().get_bit(n)
                                & (((self.lane_sid[l].val() & self.f_care[n].q.val())
                                    == self.val_now.val())
                                    & ((!self.lane_nosid[l].val())
                                        | self.m_now.val().get_bit(0))
                                    & (self.acc.val() & self.lane_acc[l].val()).any())));
                }
                self.m_sum.next = self.m_sum.val() + self.hit[l].val();
            }
            // The match, taken while the counter is enabled (CR.E and CNTEN[n] of this cycle;
            // a reset edge clears it). The counter adds it at the next edge, or 1 per cycle
            // under event 0 of this cycle while enabled.
            self.ctr_en.next = self.cr_e.val() & self.cnten.val().get_bit(n);
            // The event selection after this edge: it follows an EVTYPER write one edge later,
            // with the filter (the index compare nested under the strobe: the native simulation
            // runs it only then). `cyc_nx` is `sel_nx`'s bit 6 from registers (`ld_cyc`), so
            // the event decode is not on the match register's path (below).
            self.sel_nx.next = self.c_sel[n].q.val();
            self.cyc_nx.next = self.c_sel[n].q.val().get_bit(6);
            if self.sel_load.val() {
                if self.ld_sel.val().get_bit(n) {
                    self.sel_nx.next = self.ld_evsel.val();
                    self.cyc_nx.next = self.ld_cyc.val();
                }
            }
            if self.rst.val() {
                self.sel_nx.next = self.sel_reset[n].val();
                self.cyc_nx.next = self.sel_reset[n].val().get_bit(6);
            }
            self.c_sel[n].d.next = self.sel_nx.val();
            self.match_v.next = 0.into();
            if self.ctr_en.val() {
                self.match_v.next = self.m_sum.val();
            }
            // Event 0 in the next cycle: its increment is 1 when the counter is enabled in this
            // cycle (CR.E and CNTEN[n] from their registers, not from this edge's write: the
            // write's decode stays off the match register; docs/behaviour.md "Reconfiguration":
            // cycle counting follows an enable write one edge later); the match of this cycle
            // is dropped. The counter's adder starts from a register either way.
            if self.cyc_nx.val() {
                self.match_v.next = 0.into();
                if self.ctr_en.val() {
                    self.match_v.next = self.one.val();
                }
            }
            if self.rst.val() {
                self.match_v.next = 0.into();
            }
            self.match_nx[n].next = self.match_v.val();
            // Filter registers: loaded with the decode of the EVTYPER/SMR write. The global
            // filter (SID_FILTER_TYPE = 1) is EVTYPER0/SMR0's, loaded into every counter.
            self.filt_load.next = false;
            if self.filt_go.val() {
                if self.global_filter.val() {
                    self.filt_load.next = self.ld_wr0.val();
                } else {
                    self.filt_load.next = self.ld_sel.val().get_bit(n);
                }
            }
            self.f_care[n].d.next = self.f_care[n].q.val();
            self.f_mode[n].d.next = self.f_mode[n].q.val();
            if self.filt_load.val() {
                self.f_care[n].d.next = self.ld_care.val();
                self.f_mode[n].d.next = self.ld_mode.val();
            }
            // SMRn takes an SMR write one edge after its access, with the filter decode: no read
            // sees the difference (the next access is set up after the write's access cycle),
            // and the match side never sees a new SMR with an old CARE.
            if self.smr_load.val() {
                if self.ld_sel.val().get_bit(n) {
                    self.c_smr[n].d.next = self.ld_smr.val() & self.smr_wmask[n].val();
                }
            }
            if self.rst.val() {
                self.f_care[n].d.next = self.care_reset.val();
                self.f_mode[n].d.next = self.mode_reset.val();
                self.c_smr[n].d.next = self.smr_reset[n].val();
            }
        }
        // ---- Counter n's accepted security states and event kind after this edge (`acc_r`,
        // `evk_free`, `evk_filt`): the match's rules (10.4, 10.4.2-10.4.4, 10.6;
        // docs/behaviour.md "Accepted set") on the values its sources take at this edge (SCR,
        // ROOTCR, the counter's filter mode and event selection, after every write and the
        // reset). --------------------------------------------------------------------------------
        self.scr_acc.next = self.scr_nx.val();
        self.rootcr_acc.next = self.rootcr_nx.val();
        if self.stale_accept.val() {
            self.scr_acc.next = self.scr.val();
            self.rootcr_acc.next = self.rootcr.val();
        }
        self.so.next = (self.scr_acc.val() & self.so_mask.val()).any();
        self.scr_nao.next = (self.scr_acc.val() & self.scr_nao_mask.val()).any();
        self.rlo.next = (self.rootcr_acc.val() & self.rlo_mask.val()).any();
        self.rto.next = (self.rootcr_acc.val() & self.rto_mask.val()).any();
        self.sao.next = (self.rootcr_acc.val() & self.sao_mask.val()).any();
        self.pmo.next = (self.rootcr_acc.val() & self.pmo_mask.val()).any();
        self.root_nao.next = (self.rootcr_acc.val() & self.root_nao_mask.val()).any();
        // 10.4.4: non-attributable events count always without Secure state, with SO = 1
        // without Realm, and with ROOTCR.NAO & (SO | SCR.NAO) with Realm.
        self.na_ok.next = true;
        if self.secure_impl.val() {
            self.na_ok.next = self.so.val();
        }
        if self.realm_impl.val() {
            self.na_ok.next = self.root_nao.val() & (self.so.val() | self.scr_nao.val());
        }
        // They change only at an edge that changes a source: a write of SCR or ROOTCR, a filter
        // or event-selection load, the reset (a superset: every SCR / ROOTCR write). Between
        // such edges they hold, and neither simulator evaluates the per-counter rules (both
        // evaluate every assignment of a cycle; on the iCE40 this is the flip-flops' enable).
        self.acc_ld.next =
            self.rst.val() | self.filt_go.val() | self.sel_load.val() | self.ctl_wr.val();
        // Assigned on every path (no latch).
        self.rel.next = false;
        self.sec_eff.next = false;
        self.lim_ok.next = true;
        self.filtered.next = false;
        self.ev_ok.next = false;
        self.evk.next = 0.into();
        for n in 0..self.acc_r.len() {
            self.acc_r[n].clock.next = self.clock.val();
            self.acc_r[n].d.next = self.acc_r[n].q.val();
        }
        if self.acc_ld.val() {
            for n in 0..self.acc_r.len() {
                self.m_now.next = self.f_mode[n].d.val();
                if self.stale_accept.val() {
                    self.m_now.next = self.f_mode[n].q.val();
                }
                self.sec_eff.next = self.m_now.val().get_bit(2) & self.so.val();
                self.acc.next = 0.into();
                if self.realm_impl.val() {
                    self.rel.next = self.m_now.val().get_bit(3) & self.rlo.val();
                    if self.m_now.val().get_bit(1) {
                        // AllSIDManySECSID: Non-secure; Secure with SO unless only Realm was added;
                        // Realm, and Root / SA NoStreamID accesses per RTO / SAO, with Rel.
                        self.acc.next = 0x01u64.into();
                        if self.so.val() & ((!self.rel.val()) | self.m_now.val().get_bit(2)) {
                            self.acc.next = self.acc.val() | 0x02u64;
                        }
                        if self.rel.val() {
                            self.acc.next = self.acc.val() | 0x04u64;
                            if self.rto.val() {
                                self.acc.next = self.acc.val() | 0x08u64;
                            }
                            if self.sao.val() {
                                self.acc.next = self.acc.val() | 0x10u64;
                            }
                        }
                    } else {
                        // One state by the Rel/Sec table; {1, 1} is reserved and behaves as {0, 0}.
                        if !(self.rel.val() ^ self.sec_eff.val()) {
                            self.acc.next = 0x01u64.into();
                        }
                        if self.sec_eff.val() & (!self.rel.val()) {
                            self.acc.next = 0x02u64.into();
                        }
                        if self.rel.val() & (!self.sec_eff.val()) {
                            self.acc.next = 0x04u64.into();
                        }
                    }
                    // NSP (PM = 1) counts like Non-secure, only with ROOTCR.PMO.
                    if self.pmo.val() & self.acc.val().get_bit(0) {
                        self.acc.next = self.acc.val() | 0x20u64;
                    }
                } else {
                    self.rel.next = false;
                    // Without Realm (RLO, RTO, SAO, PMO are 0) the same rules reduce to the Secure
                    // state's: AllSIDManySECSID takes NS, and S with SO; the others one state.
                    // (A separate branch only to spare the native simulation the work.)
                    self.acc.next = 0x01u64.into();
                    if self.m_now.val().get_bit(1) & self.so.val() {
                        self.acc.next = 0x03u64.into();
                    }
                    if (!self.m_now.val().get_bit(1)) & self.sec_eff.val() {
                        self.acc.next = 0x02u64.into();
                    }
                }
                // MPAM filtering (FILTER_MPAM_SP): a PARTID or PMG filter beyond the selected
                // space's MPAMIDR limits counts nothing.
                self.lim_ok.next = true;
                if self.mpam_on.val() & self.m_now.val().get_bit(4) {
                    if (!self.m_now.val().get_bit(7)) & self.so.val() {
                        // 0b00 / 0b10: Secure when SO = 1.
                        self.lim_ok.next = ((!self.m_now.val().get_bit(5))
                            | self.m_now.val().get_bit(10))
                            & ((!self.m_now.val().get_bit(6)) | self.m_now.val().get_bit(12));
                    } else {
                        // Otherwise Non-secure, or Realm (MPAMIDR's limits).
                        self.lim_ok.next = ((!self.m_now.val().get_bit(5))
                            | self.m_now.val().get_bit(9))
                            & ((!self.m_now.val().get_bit(6)) | self.m_now.val().get_bit(11));
                    }
                }
                if !self.lim_ok.val() {
                    self.acc.next = 0.into();
                }
                self.acc_r[n].d.next = self.acc.val();
                // The event kind: a lane event (`event_sel` layout), filterable or not;
                // non-attributable events (10.4.4) skip the filters but obey NAO/SO.
                self.sel_now.next = self.c_sel[n].d.val();
                if self.stale_accept.val() {
                    self.sel_now.next = self.c_sel[n].q.val();
                }
                self.lane_bit.next =
                    bit_cast::<5, 7>(self.sel_now.val()) & self.lane_bit_mask.val();
                self.is_lane.next = self.sel_now.val().get_bit(5);
                self.filtered.next = self.filterable.val().get_bit(self.lane_bit.val().index());
                self.ev_ok.next = self.is_lane.val()
                    & ((!self.nonattr.val().get_bit(self.lane_bit.val().index()))
                        | self.na_ok.val());
                self.evk.next = 0.into();
                if self.ev_ok.val() & (!self.filtered.val()) {
                    self.evk.next = 1.into();
                }
                if self.ev_ok.val() & self.filtered.val() {
                    self.evk.next = 2.into();
                }
                self.evk_free.d.next = self
                    .evk_free
                    .d
                    .val()
                    .replace_bit(n, self.evk.val().get_bit(0));
                self.evk_filt.d.next = self
                    .evk_filt
                    .d
                    .val()
                    .replace_bit(n, self.evk.val().get_bit(1));
            }
        }
    }
}
