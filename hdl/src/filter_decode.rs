//! `FilterDecoder`: the registered decode of an EVTYPERn / SMRn write into what counter n's
//! match needs (SMMUv3 10.4, 10.4.2, 10.4.3; docs/behaviour.md "Event lanes and counting",
//! "Reconfiguration"): the event selection (`event_sel` layout), the filter's CARE mask and its
//! mode bits (`FilterDecode::mode`).
//!
//! ```text
//!   load, evt (EVTYPER after the write), smr (SMR after the write)
//!     ──► at a load edge: fd_evt, fd_smr, and their compares registered from the same values:
//!         fd_cyc (EVENT = 0), fd_nib[k] (per nibble, EVENT = lane k's event),
//!         fd_all / fd_allm (per nibble, STREAMID all ones / with its top bit taken as 1)
//!     ──► sel  = cycle_sel | lane k's selection (an AND of fd_nib[k]) | 0 (unsupported)
//!     ──► cyc  = fd_cyc
//!     ──► care, mode = the 10.4 decode of (fd_evt, fd_smr), the match-all and
//!                      AllSIDManySECSID bits from fd_all / fd_allm
//!     ──► smr_q = fd_smr
//! ```
//!
//! The register file (regfile.rs) loads the outputs into the written counter's filter and
//! event-selection registers one edge after the write (or, with filter tables, at the rebuild's
//! swap). The compares are registered with their operands, not behind them, so that every
//! output is one AND of flip-flops or a short decode of `fd_evt` / `fd_smr` (issue 11: as whole
//! compares behind the registers, they were 32x32's slowest paths into the counters' filter
//! mode and event selection, 97.7-98.5 MHz). The registers load only at a load edge and the
//! compares are computed only then, so neither simulator evaluates them in other cycles.
//!
//! [`FilterDecode`] is the decode in plain Rust: the reset values come from it, and the block's
//! tests (tests/filter_decode.rs, native and Verilator) check every output against it and
//! [`event_sel`] for random writes.

use crate::c32;
use crate::config::{PmcgConfig, LANE_MPAM_SP_FIELD};
use crate::regmap::field;
use crate::regmap::{RegId, RegisterMap};
use rust_hdl::prelude::*;

/// The packed event decode of an EVTYPER value: [4:0] lane event bit, [5] a lane event, [6]
/// event 0 (clock cycles). One register, not three: every register costs simulation time.
pub fn event_sel(is_cycle: bool, is_lane: bool, lane_bit: u32) -> u64 {
    u64::from(lane_bit & 31) | u64::from(is_lane) << 5 | u64::from(is_cycle) << 6
}

/// The decode of a counter's filter (EVTYPER, SMR) as the RTL computes it at an EVTYPER/SMR
/// write (10.4, 10.4.3; docs/behaviour.md). Plain Rust: the RTL uses it for the reset values, and
/// it documents the layout of the mode register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilterDecode {
    /// Key bits that must match: the StreamID's, or with MPAM filtering the lane's {space, PMG,
    /// PARTID} (`config::lane_mpam_word` layout). Their value is SMR & CARE (with MPAM, SMR's
    /// PARTID/PMG and the space added per cycle): no field of its own.
    pub care: u64,
    /// [0] a match-all StreamID mode (NoStreamID may count), [1] AllSIDManySECSID's security
    /// rules, [2] FILTER_SEC_SID, [3] FILTER_REALM_SID, [4] MPAM filtering (FILTER_PARTID or
    /// FILTER_PMG), [5] FILTER_PARTID, [6] FILTER_PMG, [8:7] FILTER_MPAM_SP, [9] PARTID <=
    /// MPAMIDR.PARTID_MAX, [10] PARTID <= S_MPAMIDR.PARTID_MAX, [11] PMG <= MPAMIDR.PMG_MAX,
    /// [12] PMG <= S_MPAMIDR.PMG_MAX.
    pub mode: u64,
}

impl FilterDecode {
    /// Decodes EVTYPER value `evt` and SMR value `smr` (both as stored).
    pub fn new(cfg: &PmcgConfig, map: &RegisterMap, evt: u64, smr: u64) -> Self {
        let fm = |name| map.field_mask(RegId::Evtyper(0), name);
        let sm = |name| map.field_mask(RegId::Smr(0), name);
        let sid_all = sm("STREAMID");
        let span = evt & fm("FILTER_SID_SPAN") != 0;
        let x = smr & sid_all;
        let care = if span {
            sid_all & !(x ^ (x + 1))
        } else {
            sid_all
        };
        let (fp, fg) = (evt & fm("FILTER_PARTID") != 0, evt & fm("FILTER_PMG") != 0);
        let mpam = cfg.mpam_filter && (fp || fg);
        let all_sid = mpam || (span && care == 0);
        let many = mpam || (span && x == sid_all);
        let (sp0, sp1) = mpam_sp_masks(map);
        let lim = mpam_limits(cfg, map);
        let (partid, pmg) = (smr & sm("PARTID"), smr & sm("PMG"));
        let bit = |b: bool, k: u32| u64::from(b) << k;
        let mode = bit(all_sid, 0)
            | bit(many, 1)
            | bit(evt & fm("FILTER_SEC_SID") != 0, 2)
            | bit(evt & fm("FILTER_REALM_SID") != 0, 3)
            | bit(mpam, 4)
            | bit(fp, 5)
            | bit(fg, 6)
            | bit(evt & sp0 != 0, 7)
            | bit(evt & sp1 != 0, 8)
            | bit(partid <= lim[0], 9)
            | bit(partid <= lim[1], 10)
            | bit(pmg <= lim[2], 11)
            | bit(pmg <= lim[3], 12);
        if mpam {
            // The MPAM labels take the StreamID's place in CARE/VALUE (10.4.3).
            let mut care = LANE_MPAM_SP_FIELD;
            if fp {
                care |= sm("PARTID");
            }
            if fg {
                care |= sm("PMG");
            }
            return FilterDecode { care, mode };
        }
        FilterDecode { care, mode }
    }
}

/// EVTYPER.FILTER_MPAM_SP's two bits (bit [1] is 0 when the field is one bit wide or absent).
pub(crate) fn mpam_sp_masks(map: &RegisterMap) -> (u64, u64) {
    match map.field(field::EVTYPER_FILTER_MPAM_SP) {
        Some(f) => (1 << f.lsb, if f.width > 1 { 2 << f.lsb } else { 0 }),
        None => (0, 0),
    }
}

/// The MPAMIDR / S_MPAMIDR limits in SMR's field positions: [PARTID Non-secure, PARTID Secure,
/// PMG Non-secure, PMG Secure] (10.4.3: a filter value above its limit counts nothing).
pub(crate) fn mpam_limits(cfg: &PmcgConfig, map: &RegisterMap) -> [u64; 4] {
    let pmg_lsb = map
        .reg(RegId::Smr(0))
        .field("PMG")
        .map(|f| f.lsb)
        .unwrap_or(0);
    [
        cfg.partid_max as u64,
        cfg.s_partid_max as u64,
        (cfg.pmg_max as u64) << pmg_lsb,
        (cfg.s_pmg_max as u64) << pmg_lsb,
    ]
}

/// A fault planted in the decoder (tests only: its block test must catch it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecoderFault {
    /// `fd_all` / `fd_allm` computed from the SMR before the write (`fd_smr`'s current value),
    /// not after it: a match-all or AllSIDManySECSID filter decoded from the previous STREAMID.
    StaleMatchAll,
}

/// The registered filter and event decode of an EVTYPERn / SMRn write (module docs).
#[derive(LogicBlock)]
pub struct FilterDecoder {
    pub clock: Signal<In, Clock>,
    /// An EVTYPER or SMR write is performed at this edge: the registers load.
    pub load: Signal<In, Bit>,
    /// The written counter's EVTYPER and SMR as they are after the write (an EVTYPER write
    /// gives the counter's SMR unchanged, and the reverse).
    pub evt: Signal<In, Bits<32>>,
    pub smr: Signal<In, Bits<32>>,
    /// The event selection (`event_sel` layout) and its event-0 bit, from registers.
    pub sel: Signal<Out, Bits<7>>,
    pub cyc: Signal<Out, Bit>,
    /// CARE and the mode bits (`FilterDecode`) of the last load's (EVTYPER, SMR).
    pub care: Signal<Out, Bits<32>>,
    pub mode: Signal<Out, Bits<13>>,
    /// The last load's SMR.
    pub smr_q: Signal<Out, Bits<32>>,
    fd_evt: DFF<Bits<32>>,
    fd_smr: DFF<Bits<32>>,
    /// EVENT is 0 (cycles); per nibble j of EVENT, bit j of `fd_nib[k]`: nibble j is lane k's
    /// event's (lane k's event when all four are set). Nibbles, not whole compares: the write's
    /// block-RAM read and merge in front of a whole compare were five LUT levels.
    fd_cyc: DFF<Bit>,
    fd_nib: Vec<DFF<Bits<4>>>,
    /// Per nibble j of STREAMID: all ones within the implemented bits (`fd_all`), the same with
    /// the top implemented bit taken as 1 (`fd_allm`). The nibbles above the implemented bits
    /// (`nib_none`) are 0 in the registers (constant: no flip-flop) and 1 in the ANDs.
    fd_all: DFF<Bits<8>>,
    fd_allm: DFF<Bits<8>>,
    nib_none: Constant<Bits<8>>,
    nib_eq: Signal<Local, Bits<4>>,
    cz_eq: Signal<Local, Bits<4>>,
    smr_x_nx: Signal<Local, Bits<32>>,
    smr_xm_nx: Signal<Local, Bits<32>>,
    nib_all: Signal<Local, Bits<8>>,
    nib_allm: Signal<Local, Bits<8>>,
    /// The lane event table: event number and its selection; event 0's selection.
    lane_ev_id: Vec<Constant<Bits<32>>>,
    lane_ev_sel: Vec<Constant<Bits<7>>>,
    cycle_sel: Constant<Bits<7>>,
    // Field masks and limits from the register map and the configuration.
    sid_all: Constant<Bits<32>>,
    sid_msb: Constant<Bits<32>>,
    span_mask: Constant<Bits<32>>,
    sec_mask: Constant<Bits<32>>,
    realm_mask: Constant<Bits<32>>,
    fpart_mask: Constant<Bits<32>>,
    fpmg_mask: Constant<Bits<32>>,
    sp0_mask: Constant<Bits<32>>,
    sp1_mask: Constant<Bits<32>>,
    mpam_on: Constant<Bit>,
    partid_field: Constant<Bits<32>>,
    pmg_field: Constant<Bits<32>>,
    sp_lane_field: Constant<Bits<32>>,
    partid_max_ns: Constant<Bits<32>>,
    partid_max_s: Constant<Bits<32>>,
    pmg_max_ns: Constant<Bits<32>>,
    pmg_max_s: Constant<Bits<32>>,
    stale_all: Constant<Bit>,
    // The decode (10.4).
    filt_evt: Signal<Local, Bits<32>>,
    filt_x: Signal<Local, Bits<32>>,
    filt_span: Signal<Local, Bit>,
    filt_care_l: Signal<Local, Bits<32>>,
    filt_care: Signal<Local, Bits<32>>,
    filt_many: Signal<Local, Bit>,
    filt_mode: Signal<Local, Bits<13>>,
    filt_mpam: Signal<Local, Bit>,
    filt_m: Signal<Local, Bits<32>>,
    filt_mcare: Signal<Local, Bits<32>>,
    dec_sel: Signal<Local, Bits<7>>,
}

impl FilterDecoder {
    /// The decoder of a validated configuration (its registers start at 0: the register file
    /// loads its counters' reset filters from `FilterDecode` directly).
    pub fn new(cfg: &PmcgConfig, fault: Option<DecoderFault>) -> Self {
        let map = RegisterMap::new(cfg);
        let event_field = map
            .reg(RegId::Evtyper(0))
            .field("EVENT")
            .expect("EVTYPER.EVENT");
        let lane_ids = cfg.lane_event_ids();
        assert!(
            event_field.lsb == 0 && event_field.mask() == 0xFFFF && !lane_ids.contains(&0),
            "the event decode's nibble flags (`fd_cyc`, `fd_nib`): EVENT is bits [15:0], lane \
             events are not event 0"
        );
        let efield = |name| c32(map.field_mask(RegId::Evtyper(0), name));
        let (sp0, sp1) = mpam_sp_masks(&map);
        let lim = mpam_limits(cfg, &map);
        Self {
            clock: Default::default(),
            load: Default::default(),
            evt: Default::default(),
            smr: Default::default(),
            sel: Default::default(),
            cyc: Default::default(),
            care: Default::default(),
            mode: Default::default(),
            smr_q: Default::default(),
            fd_evt: Default::default(),
            fd_smr: Default::default(),
            fd_cyc: Default::default(),
            fd_nib: lane_ids.iter().map(|_| Default::default()).collect(),
            fd_all: Default::default(),
            fd_allm: Default::default(),
            nib_none: Constant::new(((0xFFu64 << cfg.sid_bits.div_ceil(4)) & 0xFF).into()),
            nib_eq: Default::default(),
            cz_eq: Default::default(),
            smr_x_nx: Default::default(),
            smr_xm_nx: Default::default(),
            nib_all: Default::default(),
            nib_allm: Default::default(),
            lane_ev_id: lane_ids.iter().map(|&e| c32(e as u64)).collect(),
            lane_ev_sel: (0..lane_ids.len())
                .map(|k| Constant::new(event_sel(false, true, k as u32).into()))
                .collect(),
            cycle_sel: Constant::new(event_sel(true, false, 0).into()),
            sid_all: c32(map.mask(field::SMR_STREAMID)),
            sid_msb: c32(1 << (cfg.sid_bits - 1)),
            span_mask: c32(map.mask(field::EVTYPER_FILTER_SID_SPAN)),
            sec_mask: efield("FILTER_SEC_SID"),
            realm_mask: efield("FILTER_REALM_SID"),
            fpart_mask: efield("FILTER_PARTID"),
            fpmg_mask: efield("FILTER_PMG"),
            sp0_mask: c32(sp0),
            sp1_mask: c32(sp1),
            mpam_on: Constant::new(cfg.mpam_filter),
            partid_field: c32(map.mask(field::SMR_PARTID)),
            pmg_field: c32(map.mask(field::SMR_PMG)),
            sp_lane_field: c32(LANE_MPAM_SP_FIELD),
            partid_max_ns: c32(lim[0]),
            partid_max_s: c32(lim[1]),
            pmg_max_ns: c32(lim[2]),
            pmg_max_s: c32(lim[3]),
            stale_all: Constant::new(fault == Some(DecoderFault::StaleMatchAll)),
            filt_evt: Default::default(),
            filt_x: Default::default(),
            filt_span: Default::default(),
            filt_care_l: Default::default(),
            filt_care: Default::default(),
            filt_many: Default::default(),
            filt_mode: Default::default(),
            filt_mpam: Default::default(),
            filt_m: Default::default(),
            filt_mcare: Default::default(),
            dec_sel: Default::default(),
        }
    }
}

impl Logic for FilterDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fd_evt, fd_smr, fd_cyc, fd_all, fd_allm);
        // ---- The registers and their compares, at a load edge only (they hold otherwise). ----
        // Assigned on every path (no latch).
        self.nib_eq.next = 0.into();
        self.cz_eq.next = 0.into();
        self.smr_x_nx.next = 0.into();
        self.smr_xm_nx.next = 0.into();
        self.nib_all.next = 0.into();
        self.nib_allm.next = 0.into();
        for k in 0..self.fd_nib.len() {
            self.fd_nib[k].clock.next = self.clock.val();
            self.fd_nib[k].d.next = self.fd_nib[k].q.val();
            if self.load.val() {
                // (Built in a Local, then assigned whole: every bit is replaced.)
                for j in 0..4 {
                    self.nib_eq.next = self.nib_eq.val().replace_bit(
                        j,
                        self.evt.val().get_bits::<4>(4 * j)
                            == self.lane_ev_id[k].val().get_bits::<4>(4 * j),
                    );
                }
                self.fd_nib[k].d.next = self.nib_eq.val();
            }
        }
        if self.load.val() {
            self.fd_evt.d.next = self.evt.val();
            self.fd_smr.d.next = self.smr.val();
            for j in 0..4 {
                self.cz_eq.next = self
                    .cz_eq
                    .val()
                    .replace_bit(j, !self.evt.val().get_bits::<4>(4 * j).any());
            }
            self.fd_cyc.d.next = self.cz_eq.val().all();
            // STREAMID's nibble compares, of the value `fd_smr` loads.
            self.smr_x_nx.next = self.smr.val() & self.sid_all.val();
            if self.stale_all.val() {
                self.smr_x_nx.next = self.fd_smr.q.val() & self.sid_all.val();
            }
            self.smr_xm_nx.next = (self.smr_x_nx.val() | self.sid_msb.val()) & self.sid_all.val();
            for j in 0..8 {
                self.nib_all.next = self.nib_all.val().replace_bit(
                    j,
                    (self.smr_x_nx.val().get_bits::<4>(4 * j)
                        == self.sid_all.val().get_bits::<4>(4 * j))
                        & !self.nib_none.val().get_bit(j),
                );
                self.nib_allm.next = self.nib_allm.val().replace_bit(
                    j,
                    (self.smr_xm_nx.val().get_bits::<4>(4 * j)
                        == self.sid_all.val().get_bits::<4>(4 * j))
                        & !self.nib_none.val().get_bit(j),
                );
            }
            self.fd_all.d.next = self.nib_all.val();
            self.fd_allm.d.next = self.nib_allm.val();
        }
        // ---- The event selection: event 0, a lane event, or unsupported (counts nothing). ----
        self.dec_sel.next = 0.into();
        if self.fd_cyc.q.val() {
            self.dec_sel.next = self.cycle_sel.val();
        }
        for k in 0..self.lane_ev_id.len() {
            if self.fd_nib[k].q.val().all() {
                self.dec_sel.next = self.lane_ev_sel[k].val();
            }
        }
        self.sel.next = self.dec_sel.val();
        self.cyc.next = self.fd_cyc.q.val();
        self.smr_q.next = self.fd_smr.q.val();
        // ---- The filter (10.4): CARE and the mode bits of (fd_evt, fd_smr). ----
        self.filt_evt.next = self.fd_evt.q.val();
        self.filt_x.next = self.fd_smr.q.val() & self.sid_all.val();
        self.filt_span.next = (self.filt_evt.val() & self.span_mask.val()).any();
        // ExactSID compares every implemented bit; with SPAN = 1 the lowest 0 bit of STREAMID and
        // every bit below it are ignored (x ^ (x + 1) is exactly those bits).
        self.filt_care_l.next = self.sid_all.val();
        if self.filt_span.val() {
            self.filt_care_l.next =
                self.sid_all.val() & (!(self.filt_x.val() ^ (self.filt_x.val() + 1u64)));
        }
        self.filt_care.next = self.filt_care_l.val();
        self.filt_many.next =
            self.filt_span.val() & (self.fd_all.q.val() | self.nib_none.val()).all();
        // MPAM (10.4.3): FILTER_PARTID or FILTER_PMG turn StreamID filtering off; the lane's
        // {space, PMG, PARTID} is compared instead (the space is added per cycle: it depends on
        // SCR.SO and ROOTCR.RLO).
        self.filt_mpam.next = self.mpam_on.val()
            & ((self.filt_evt.val() & (self.fpart_mask.val() | self.fpmg_mask.val())).any());
        self.filt_m.next = self.fd_smr.q.val() & (self.partid_field.val() | self.pmg_field.val());
        self.filt_mcare.next = 0.into();
        if self.filt_mpam.val() {
            self.filt_mcare.next = self.sp_lane_field.val();
            if (self.filt_evt.val() & self.fpart_mask.val()).any() {
                self.filt_mcare.next = self.filt_mcare.val() | self.partid_field.val();
            }
            if (self.filt_evt.val() & self.fpmg_mask.val()).any() {
                self.filt_mcare.next = self.filt_mcare.val() | self.pmg_field.val();
            }
        }
        // Mode bits (`FilterDecode::mode`).
        self.filt_mode.next = 0.into();
        // CARE = 0 exactly for the two match-all encodings (ALL and ALL >> 1); testing STREAMID
        // directly keeps the incrementer off this path.
        if self.filt_span.val() & (self.fd_allm.q.val() | self.nib_none.val()).all() {
            self.filt_mode.next = self.filt_mode.val() | 0x0001u64;
        }
        if self.filt_many.val() {
            self.filt_mode.next = self.filt_mode.val() | 0x0002u64;
        }
        if (self.filt_evt.val() & self.sec_mask.val()).any() {
            self.filt_mode.next = self.filt_mode.val() | 0x0004u64;
        }
        if (self.filt_evt.val() & self.realm_mask.val()).any() {
            self.filt_mode.next = self.filt_mode.val() | 0x0008u64;
        }
        if self.filt_mpam.val() {
            // No StreamID filter: match-all with AllSIDManySECSID's security rules; CARE selects
            // the MPAM labels to match instead (VALUE is SMR's PARTID/PMG; the space is added
            // per cycle).
            self.filt_mode.next = self.filt_mode.val() | 0x0013u64;
            self.filt_care.next = self.filt_mcare.val();
        }
        if (self.filt_evt.val() & self.fpart_mask.val()).any() {
            self.filt_mode.next = self.filt_mode.val() | 0x0020u64;
        }
        if (self.filt_evt.val() & self.fpmg_mask.val()).any() {
            self.filt_mode.next = self.filt_mode.val() | 0x0040u64;
        }
        if (self.filt_evt.val() & self.sp0_mask.val()).any() {
            self.filt_mode.next = self.filt_mode.val() | 0x0080u64;
        }
        if (self.filt_evt.val() & self.sp1_mask.val()).any() {
            self.filt_mode.next = self.filt_mode.val() | 0x0100u64;
        }
        if (self.filt_m.val() & self.partid_field.val()) <= self.partid_max_ns.val() {
            self.filt_mode.next = self.filt_mode.val() | 0x0200u64;
        }
        if (self.filt_m.val() & self.partid_field.val()) <= self.partid_max_s.val() {
            self.filt_mode.next = self.filt_mode.val() | 0x0400u64;
        }
        if (self.filt_m.val() & self.pmg_field.val()) <= self.pmg_max_ns.val() {
            self.filt_mode.next = self.filt_mode.val() | 0x0800u64;
        }
        if (self.filt_m.val() & self.pmg_field.val()) <= self.pmg_max_s.val() {
            self.filt_mode.next = self.filt_mode.val() | 0x1000u64;
        }
        self.care.next = self.filt_care.val();
        self.mode.next = self.filt_mode.val();
    }
}
