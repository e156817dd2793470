//! The reference model of the PMCG: plain Rust written from SMMUv3 chapter 10 and
//! `docs/behaviour.md`, the oracle every randomized test compares the RTL against, cycle by cycle.
//!
//! Every offset, field position, access type and reset value comes from the
//! [`RegisterMap`]; the model only knows *which kind of storage* each register is a view of.
//!
//! ```text
//!  state (every item is a register)          step(inp): one PCLK cycle, edge t
//!  ┌────────────────────────────────────┐    ─────────────────────────────────────────────
//!  │ vals[slot]  EVTYPER, SMR, CR, SCR, │ ─► 1. out: PRDATA is the read of the access
//!  │             ROOTCR, IRQ_*, ID, ... │       cycle (state of cycle t); irq, AXI master,
//!  │ counters[n] EVCNTRn (counter_bits) │       CAPT_ACK, OVF_EXPORT from registers
//!  │ svr[n]      SVRn (capture)         │    2. rst_q (PRESETn of cycle t-1 low):
//!  │ cnten inten ovs   bitmap storages  │       all := reset values; go to 11
//!  │ decode masks  (from EVTYPERn)      │    3. APB read access: 64-bit snapshot rule
//!  │ filter[n]   (CARE, VALUE, states,  │    4. count: the match register (cycle t-1's
//!  │   MPAM key) from EVTYPER, SMR, SCR,│       match), or 1 under cycle-t event 0, CR.E
//!  │   ROOTCR                           │       and CNTEN; carry -> ovf (a counter written
//!  │ lanes_q     lane inputs of t-1     │       at this edge skips counting)
//!  │ stage       match register         │    5. match: per counter enabled in cycle t, the
//!  │ setup       APB setup register     │       lanes_q lanes whose event it selects and
//!  │ rst_q       PRESETn register       │       that pass its filter (cycle t) -> stage
//!  │ snap        64-bit read snapshot   │    6. qualifying := (ovf & INTEN) != 0 && IRQEN
//!  │ irq, qual_q interrupt, qualifying  │    7. MSI master (cycle-t state, last edge's
//!  │             edge registers         │       qualifying): AW/W/B
//!  │ MSI master  pending, BUSY, AW/W    │       handshakes, response -> IRQ_ABT, pending,
//!  │   done, AWADDR AWPROT WDATA WSTRB  │       issue (payload latched)
//!  │ capt_req_q capt_ack ovf_export     │    8. capture triggers: CAPT_REQ handshake,
//!  └────────────────────────────────────┘       OVFCAP overflow, CAPR write
//!                                            9. APB write access: PSTRB merge, guards;
//!                                               re-decode event / filter if written
//!                                           10. OVS |= ovf; irq := last edge's qualifying;
//!                                               qual_q := qualifying; export :=
//!                                               ovf; ACK := EN' | (ACK & (BUSY|PEND|MSI&EN)) (0 -> 1
//!                                               clears IRQ_ABT); capture: svr := counters
//!                                           11. setup := this cycle's APB setup (PRESETn
//!                                               high); rst_q := !PRESETn
//! ```
//!
//! Decode is precomputed when a register is written, never per event: EVTYPERn gives a
//! cycle-counter mask and one counter mask per lane event bit; EVTYPERn, SMRn, SCR and ROOTCR give
//! each counter's filter (CARE, VALUE, the security states accepted from StreamID and from
//! NoStreamID accesses, an MPAM key mask and value), grouped into the distinct filters in use.
//! `step` checks each valid lane once per distinct filter (a few AND-compares), keeps the
//! per-counter lane counts bit-sliced, and never allocates.
//!
//! Scope, as `docs/behaviour.md` sets it: register access by Secure, Non-secure, Root and Realm
//! accesses (10.6, 10.7: NSRA, Secure-only registers, ROOTCR written by Root only, the SCR alias);
//! lane events filtered by StreamID and security state (10.4 ExactSID, PartialSID, AllSIDOneSECSID
//! and AllSIDManySECSID with the Realm tables; 10.4.1 truncation to `sid_bits`; 10.4.2 NoStreamID,
//! Root, SA and NSP; 10.6 SCR.SO; ROOTCR RLO/RTO/SAO/PMO; per-counter or global filter), by MPAM
//! PARTID/PMG (10.4.3), and non-attributable events gated by SCR.SO, SCR.NAO and ROOTCR.NAO
//! (10.4.4); the wired interrupt, IRQ_CTRLACK and IRQ_STATUS (10.5.2.19-24), the MSI AXI4-Lite
//! write master (10.2.1, 10.6 NS), the capture bank (SVRn, CAPR, OVFCAP and the external 4-phase
//! request; 10.2.1, 10.5.2.3, 10.5.2.11) and the per-counter overflow export.

use std::collections::HashMap;

use pmcg_hdl::config::{PmcgConfig, SidFilterType, CYCLE_EVENT, LANE_EVENT_BITS, MAX_LANES};
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{
    Access as FieldAccess, RegId, RegisterMap, Word, COUNTER_HOLD_CYCLES, FILTER_TABLE_APPLY_EDGES,
};

use crate::pins::{Dut, LaneIn, MpamSpace, PinInputs, PinOutputs, SecState};

/// `PPROT[1]`: 1 marks a Non-secure access (AMBA APB4; behaviour.md "Security").
const PPROT_NONSECURE: u8 = 0b010;

/// The three bitmap storages, each seen through a W1S and a W1C register (10.5.2.5-10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bitmap {
    Cnten,
    Inten,
    Ovs,
}

/// Where a register's state lives in the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// EVCNTRn: `counters[n]`.
    Counter(usize),
    /// One of the W1S/W1C views of a bitmap storage.
    Bitmap(Bitmap),
    /// EVTYPERn: `vals[slot]`, and its write re-decodes counter n (event and filter).
    Evtyper(usize),
    /// SMRn: `vals[slot]`, and its write re-decodes the filter of the counters it applies to.
    Smr(usize),
    /// CR: `vals[slot]`, mirrored in `cr_e`.
    Cr,
    /// SCR and its alias (10.5.2.12): one storage, `vals[store]` of the SCR slot; NSRA, SO and NAO
    /// are mirrored, and a write re-decodes every filter (SO, NAO).
    Scr,
    /// ROOTCR (10.5.2.18): `vals[slot]`, RTO, RLO, NAO, SAO and PMO mirrored; a write re-decodes
    /// every filter.
    Rootcr,
    /// IRQ_CTRL: `vals[slot]`, IRQEN mirrored in `irqen` (IRQ_CTRLACK follows at every edge).
    IrqCtrl,
    /// SVRn (with capture): `svr[n]`, read-only; written by captures only.
    Svr(usize),
    /// CAPR (with capture): write-only; a permitted write of CAPTURE = 1 captures (10.5.2.11).
    Capr,
    /// Every other register: `vals[slot]` (RO constants, IRQ_CTRLACK, IRQ_CFGx, IRQ_STATUS, ...).
    Plain,
}

/// What the model precomputes about one register of the map (slot i is `map.regs[i]`).
#[derive(Clone, Debug)]
struct Slot {
    kind: Kind,
    /// Index of `vals` holding the register's value: the slot itself, or the SCR slot for the
    /// SCR alias (the same register at two addresses).
    store: usize,
    /// Bits that read as their state (WO and RES0 bits read 0).
    read_mask: u64,
    /// RW, W1S and W1C bits.
    rw: u64,
    w1s: u64,
    w1c: u64,
    /// Reset value of the whole register.
    reset: u64,
    /// Non-secure and Realm accesses are RAZ/WI (SCR, its alias, S_MPAMIDR).
    secure_only: bool,
    /// Only a Root access writes it; RO for the others (ROOTCR).
    root_write: bool,
    /// Writes ignored while IRQ_CTRL.IRQEN or IRQ_CTRLACK.IRQEN is 1 (IRQ_CFG0/1/2).
    guarded: bool,
    /// A low-word read latches the high word (64-bit EVCNTRn and SVRn).
    snapshot: bool,
}

/// Counter decode of one EVTYPERn.EVENT value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Decode {
    /// Event 0: one per edge.
    Cycles,
    /// A supported lane event carried on this bit of each lane's event vector.
    Lane(u32),
    /// Unsupported event number: counts nothing.
    Nothing,
}

/// Bit of a [`SecState`] in a set of security states ([`Filter::sid_states`]).
#[inline]
fn ss_bit(ss: SecState) -> u8 {
    1 << ss.code()
}

const ST_NS: u8 = 1 << 0; // ss_bit(NonSecure), checked in the tests
const ST_SEC: u8 = 1 << 1;
const ST_REALM: u8 = 1 << 2;
const ST_ROOT: u8 = 1 << 3;
const ST_SA: u8 = 1 << 4;
const ST_NSP: u8 = 1 << 5;
/// Every security state a lane can carry.
const ALL_STATES: u8 = ST_NS | ST_SEC | ST_REALM | ST_ROOT | ST_SA | ST_NSP;
/// The states an access with a StreamID can be counted in: Root and SA only ever come from
/// NoStreamID accesses (behaviour.md, "Accepted set").
const STREAM_STATES: u8 = ALL_STATES & !(ST_ROOT | ST_SA);

/// An MPAM lane key: PARTID [15:0], PMG [23:16], PARTID space [25:24] (the FILTER_MPAM_SP code).
#[inline]
fn mpam_key(partid: u32, pmg: u32, space: u32) -> u32 {
    (partid & 0xFFFF) | (pmg & 0xFF) << 16 | (space & 3) << 24
}
const MPAM_PARTID: u32 = 0xFFFF;
const MPAM_PMG: u32 = 0xFF << 16;
const MPAM_SPACE: u32 = 3 << 24;

/// The filter fields of one counter: its EVTYPERn / SMRn, or EVTYPER0 / SMR0 with the global
/// filter (fields a configuration does not implement are 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct FilterFields {
    /// EVTYPER.FILTER_SID_SPAN.
    span: bool,
    /// EVTYPER.FILTER_SEC_SID.
    sec: bool,
    /// EVTYPER.FILTER_REALM_SID.
    realm: bool,
    /// SMR.STREAMID (its W implemented bits).
    x: u32,
    /// EVTYPER.FILTER_PARTID, FILTER_PMG and FILTER_MPAM_SP.
    filter_partid: bool,
    filter_pmg: bool,
    mpam_sp: u32,
    /// SMR.PARTID and SMR.PMG.
    partid: u32,
    pmg: u32,
}

/// The controls the filters depend on: SCR.SO, the ROOTCR bits (0 without Realm) and the MPAM
/// limits (MPAMIDR, S_MPAMIDR).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Controls {
    so: bool,
    rlo: bool,
    rto: bool,
    sao: bool,
    pmo: bool,
    /// MPAMIDR.PARTID_MAX and PMG_MAX: the Non-secure and Realm limits.
    partid_max: u32,
    pmg_max: u32,
    /// S_MPAMIDR.PARTID_MAX and PMG_MAX: the Secure limits.
    s_partid_max: u32,
    s_pmg_max: u32,
}

/// A counter's StreamID, security-state and MPAM filter, decoded from its filter fields and the
/// controls when one of them is written (docs/behaviour.md, "StreamID and security-state
/// filtering"), so that the match stage does a few AND-compares per lane event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Filter {
    /// StreamID bits that must match (10.4: ExactSID all W bits, PartialSID the bits above the
    /// ignored span, match-all none).
    care: u32,
    /// Their required value (`STREAMID & care`).
    value: u32,
    /// Security states counted from accesses with a StreamID, one bit per [`ss_bit`].
    sid_states: u8,
    /// Security states counted from NoStreamID accesses (10.4.2: none unless the filter matches
    /// all streams).
    nosid_states: u8,
    /// MPAM key bits that must match ([`mpam_key`]) and their value (10.4.3).
    mpam_care: u32,
    mpam_value: u32,
}

impl Filter {
    /// The filter of an event that cannot be filtered (event 0, `impdef_global`, and the
    /// non-attributable events when counting them is permitted; 10.4, 10.4.4): every valid lane
    /// event counts, whatever its StreamID, security state, NoStreamID flag and MPAM inputs.
    const ALL: Filter = Filter {
        care: 0,
        value: 0,
        sid_states: ALL_STATES,
        nosid_states: ALL_STATES,
        mpam_care: 0,
        mpam_value: 0,
    };

    /// A filter nothing passes (non-attributable events while 10.4.4 prevents counting them; an
    /// MPAM filter value above its limit, 10.4.3).
    const NONE: Filter = Filter {
        care: 0,
        value: 0,
        sid_states: 0,
        nosid_states: 0,
        mpam_care: 0,
        mpam_value: 0,
    };

    /// The one state of ExactSID, PartialSID and AllSIDOneSECSID (10.4, its Realm table): Rel =
    /// FILTER_REALM_SID & RLO, Sec = FILTER_SEC_SID & SO; {1, 1} is reserved and behaves as {0, 0}.
    fn one_state(rel: bool, sec: bool) -> u8 {
        match (rel, sec) {
            (false, true) => ST_SEC,
            (true, false) => ST_REALM,
            _ => ST_NS,
        }
    }

    /// The AllSIDManySECSID set (10.4 and its Realm list, as behaviour.md reads it): Non-secure
    /// always; Secure when SO and (Rel = 0 or SEC); Realm when Rel; Root when Rel and RTO; SA when
    /// Rel and SAO. Without Realm: Non-secure, and Secure when SO (the SMMUv3.1+ rule).
    fn many_states(f: &FilterFields, c: &Controls, rel: bool) -> u8 {
        let mut set = ST_NS;
        if c.so && (!rel || f.sec) {
            set |= ST_SEC;
        }
        if rel {
            set |= ST_REALM;
            if c.rto {
                set |= ST_ROOT;
            }
            if c.sao {
                set |= ST_SA;
            }
        }
        set
    }

    /// 10.4 / 10.4.2: accesses with PM = 1 (NSP) count as Non-secure ones, only when ROOTCR.PMO = 1.
    fn with_nsp(set: u8, pmo: bool) -> u8 {
        if set & ST_NS != 0 && pmo {
            set | ST_NSP
        } else {
            set
        }
    }

    /// Decodes a filterable event's filter: `f` the counter's filter fields (0 where not
    /// implemented), `c` the controls, `all` = 2^W - 1.
    fn decode(f: &FilterFields, c: &Controls, all: u32) -> Filter {
        // 10.5.2.2: FILTER_REALM_SID is treated as 0 when ROOTCR.RLO = 0.
        let rel = f.realm && c.rlo;
        if f.filter_partid || f.filter_pmg {
            // 10.4.3 / 10.5.2.2: the StreamID is not filtered (SPAN and STREAMID IGNORED; as if
            // match-all, so NoStreamID accesses pass too), the security state as AllSIDManySECSID.
            let set = Self::with_nsp(Self::many_states(f, c, rel), c.pmo);
            // FILTER_MPAM_SP: 00 and 10 (reserved, as 00) Secure if SO else Non-secure; 01
            // Non-secure; 11 Realm if RLO else Non-secure (without Realm, bit 19 is RES0).
            let nsp_space = (MpamSpace::NonSecure.code(), c.partid_max, c.pmg_max);
            let (space, partid_max, pmg_max) = match f.mpam_sp & 3 {
                0 | 2 if c.so => (MpamSpace::Secure.code(), c.s_partid_max, c.s_pmg_max),
                3 if c.rlo => (MpamSpace::Realm.code(), c.partid_max, c.pmg_max),
                _ => nsp_space,
            };
            let mut mpam_care = MPAM_SPACE;
            let mut mpam_value = mpam_key(0, 0, space);
            if f.filter_partid {
                if f.partid > partid_max {
                    return Filter::NONE; // 10.4.3: a value above the limit counts nothing
                }
                mpam_care |= MPAM_PARTID;
                mpam_value |= mpam_key(f.partid, 0, 0);
            }
            if f.filter_pmg {
                if f.pmg > pmg_max {
                    return Filter::NONE;
                }
                mpam_care |= MPAM_PMG;
                mpam_value |= mpam_key(0, f.pmg, 0);
            }
            return Filter {
                care: 0,
                value: 0,
                sid_states: set & STREAM_STATES,
                nosid_states: set,
                mpam_care,
                mpam_value,
            };
        }
        let x = f.x & all;
        // 10.4 modes. AllSIDManySECSID: SPAN = 1 and STREAMID all ones in the W implemented bits.
        let many = f.span && x == all;
        let care = if !f.span {
            all // ExactSID
        } else if many {
            0
        } else {
            // PartialSID: STREAMID[Y-1] is the lowest 0 and STREAMID[Y-2:0] are ones; bits [Y-1:0]
            // are ignored. x < all here, so x + 1 does not overflow. X = ALL >> 1 (AllSIDOneSECSID)
            // gives care = 0.
            all & !(x ^ (x + 1))
        };
        let set = if many {
            Self::many_states(f, c, rel)
        } else {
            // 10.5.2.12 SO = 0: FILTER_SEC_SID is effectively 0 (Sec = SEC & SO).
            Self::one_state(rel, f.sec && c.so)
        };
        let set = Self::with_nsp(set, c.pmo);
        Filter {
            care,
            value: x & care,
            sid_states: set & STREAM_STATES,
            // 10.4.2: NoStreamID accesses count only with SPAN = 1 and a match-all STREAMID
            // (AllSIDManySECSID or AllSIDOneSECSID), in an accepted security state.
            nosid_states: if f.span && care == 0 { set } else { 0 },
            mpam_care: 0,
            mpam_value: 0,
        }
    }

    /// Whether a valid lane event passes the filter; `key` is the lane's [`mpam_key`].
    #[inline]
    fn passes(&self, l: &LaneIn, key: u32) -> bool {
        // A NoStreamID access is only accepted under a filter with CARE = 0 (nosid_states is
        // empty otherwise), so its meaningless sid is never compared to a cared bit.
        let states = if l.nosid {
            self.nosid_states
        } else {
            self.sid_states
        };
        states & ss_bit(l.ss) != 0
            // The lane's W SID bits: care has no bit above W.
            && l.sid & self.care == self.value
            && key & self.mpam_care == self.mpam_value
    }
}

/// Bits of a match-stage number and of a counter's increment per edge (at most `MAX_LANES`
/// lanes, plus 1 when it counts cycles).
const STAGE_BITS: usize = 4;
const _: () = assert!((MAX_LANES as usize) < (1 << STAGE_BITS) - 1);

/// A register field as (mask, lsb); (0, 0) when the configuration does not implement it.
type FieldPos = (u64, u32);

/// Positions of the filter fields (EVTYPER0's and SMR0's; EVTYPERn and SMRn have the same
/// positions where they have the fields, 10.5.2.2 / 10.5.2.4).
#[derive(Clone, Copy, Debug)]
struct FilterPos {
    span: u64,
    sec: u64,
    realm: u64,
    filter_partid: u64,
    filter_pmg: u64,
    mpam_sp: FieldPos,
    /// SMR0.STREAMID: it implements W = sid_bits bits (10.4.1).
    streamid: FieldPos,
    partid: FieldPos,
    pmg: FieldPos,
}

/// The security state of an APB access (behaviour.md "Security").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AccessState {
    Secure,
    NonSecure,
    Root,
    Realm,
}

/// The reference model of one PMCG instance.
#[derive(Clone, Debug)]
pub struct Model {
    map: RegisterMap,
    slots: Vec<Slot>,
    /// Word address (low two bits clear) → (slot, word).
    by_addr: HashMap<u32, (usize, Word)>,
    by_id: HashMap<RegId, usize>,
    /// Slot of EVTYPERn, per counter.
    evtyper_slot: Vec<usize>,
    /// Slots of the EVTYPER and SMR holding each counter's filter: its own with per-counter
    /// filters, EVTYPER0 and SMR0 for every counter with the global filter (10.4).
    filter_slots: Vec<(usize, usize)>,
    /// SID_FILTER_TYPE = 1: EVTYPER0 / SMR0 filter every counter.
    global_filter: bool,
    /// Slot of IRQ_CTRLACK, when present.
    ack_slot: Option<usize>,
    /// Security rules apply (cfg.secure).
    secure: bool,
    /// Realm and Root state (cfg.realm): PNSE is honoured, ROOTCR exists.
    realm: bool,
    lanes: usize,
    /// Event numbers carried on the lane event vector, in bit order.
    lane_events: Vec<u16>,
    /// Implemented bits of a counter (EVCNTR COUNTER_VALUE field).
    counter_mask: u64,
    /// EVTYPERn.EVENT field.
    event_field: FieldPos,
    /// The filter fields.
    pos: FilterPos,
    /// ALL = 2^W - 1.
    sid_all: u32,
    /// Lane event bits whose event can be filtered (`cfg.event_filterable`).
    filterable_bits: u32,
    /// Lane event bits whose event is non-attributable (`cfg.event_nonattr`, 10.4.4).
    nonattr_bits: u32,
    cr_e_mask: u64,
    scr_nsra_mask: u64,
    scr_so_mask: u64,
    scr_nao_mask: u64,
    rootcr_rto_mask: u64,
    rootcr_rlo_mask: u64,
    rootcr_nao_mask: u64,
    rootcr_sao_mask: u64,
    rootcr_pmo_mask: u64,
    irq_ctrl_irqen_mask: u64,
    ack_irqen_mask: u64,
    /// The MSI write master exists (cfg.msi): IRQ_CFG0/1/2 and IRQ_STATUS are then present.
    msi: bool,
    /// Slots of IRQ_CFG0/1/2 and IRQ_STATUS (meaningful with `msi` only).
    cfg0_slot: usize,
    cfg1_slot: usize,
    cfg2_slot: usize,
    /// GMPAM (with `msi_mpam`): its PO_PARTID and PO_PMG masks (10.5.2.25).
    msi_mpam: bool,
    gmpam_slot: usize,
    gmpam_partid: FieldPos,
    gmpam_pmg: FieldPos,
    /// The MSI's PARTID, PMG and PARTID space (Non-secure), taken at the issue.
    msi_partid: u16,
    msi_pmg: u8,
    msi_mpam_ns: bool,
    status_slot: usize,
    /// IRQ_CFG0.ADDR ([pa_bits-1:2]), IRQ_CFG1.DATA, IRQ_CFG2.MEMATTR and SH, IRQ_STATUS.IRQ_ABT.
    cfg0_addr_mask: u64,
    cfg1_data: FieldPos,
    cfg2_memattr: FieldPos,
    cfg2_sh: FieldPos,
    status_abt_mask: u64,
    /// Slot of SCR and its NSMSI bit (0 without Secure state or MSI).
    scr_slot: usize,
    scr_nsmsi_mask: u64,
    /// The capture bank exists (cfg.capture): SVRn, CAPR, EVTYPERn.OVFCAP, CAPT_REQ/CAPT_ACK.
    capture: bool,
    /// CAPR.CAPTURE and EVTYPERn.OVFCAP (0 without capture).
    capr_capture_mask: u64,
    ovfcap_field: u64,

    // ---- architectural state ----
    /// Register values of every slot not held elsewhere (see [`Kind`]).
    vals: Vec<u64>,
    /// The match side's copy of `vals` for EVTYPERn and SMRn: what the event decode and the
    /// filter registers hold. An EVTYPERn or SMRn write at edge t updates `vals` at t (reads see
    /// it at once) and this copy at edge t+1 (the decode is registered: docs/behaviour.md
    /// "Event lanes and counting", Reconfiguration).
    match_vals: Vec<u64>,
    /// The EVTYPERn or SMRn slot written at an earlier edge, and the edges left until the match
    /// side takes it (1: this edge): 1 after the write, or with filter tables the rebuild's
    /// swap, [`FILTER_TABLE_APPLY_EDGES`] after it (docs/behaviour.md "Filter tables").
    decode_pending: Option<(usize, u64)>,
    /// Filter tables (`PmcgConfig::filter_tables`): EVTYPERn/SMRn writes wait for the rebuild.
    filter_tables: bool,
    /// With filter tables: a write to the EVTYPER or SMR region completed its access cycle at
    /// the last edge, and waits while its rebuild is pending (the APB completer's register).
    fw_wait: bool,
    counters: Vec<u64>,
    cnten: u64,
    inten: u64,
    ovs: u64,
    /// The enables (CR.E and CNTEN) of the previous cycle: cycle counting at an edge is gated
    /// by them (docs/behaviour.md "Reconfiguration"; the match register is loaded with event
    /// 0's increment from registers, one edge ahead). 0 after a reset edge.
    cycle_en: u64,
    /// SVRn (with capture).
    svr: Vec<u64>,

    // ---- derived from the architectural state (kept in step with it) ----
    cr_e: bool,
    nsra: bool,
    /// SCR.SO, the ROOTCR bits and the MPAM limits the filters use (0 where absent).
    controls: Controls,
    /// SCR.NAO and ROOTCR.NAO (0 where absent).
    scr_nao: bool,
    root_nao: bool,
    irqen: bool,
    ack_irqen: bool,
    decode: Vec<Decode>,
    /// Counters whose EVTYPERn.OVFCAP is 1 (with capture).
    ovfcap_mask: u64,
    /// Counters whose EVENT is 0.
    cycle_mask: u64,
    /// Counters whose EVENT is the lane event of bit k.
    lane_mask: [u64; LANE_EVENT_BITS as usize],
    /// Lane event bits some counter selects.
    used_lane_bits: u32,
    /// Each counter's decoded filter (per counter even with the global filter: whether the filter
    /// applies depends on the counter's own EVENT).
    filter: Vec<Filter>,
    /// The distinct filters of `filter`, each with the counters that have it: the match stage
    /// checks each lane once per distinct filter, not once per counter.
    filter_groups: Vec<(Filter, u64)>,

    // ---- pipeline registers ----
    /// Match stage: the lane inputs of the previous cycle (docs/behaviour.md). They are matched
    /// to counters at this edge under this cycle's event selection and filter.
    lanes_q: [LaneIn; MAX_LANES as usize],
    /// Match register: per counter, the number of `lanes_q` lanes that carried the event it
    /// selected and passed its filter in the previous cycle; this edge adds it (docs/behaviour.md
    /// "Event lanes and counting": event -> count 3 cycles). Bit-sliced: bit n of `stage[i]` is
    /// bit i of counter n's number.
    stage: [u64; STAGE_BITS],
    /// APB setup register: the transfer whose (first) access cycle is the next cycle
    /// (behaviour.md).
    setup: Option<Setup>,
    /// A held transfer (an access to the EVCNTR or SVR region, behaviour.md "Counter and shadow
    /// accesses") and the wait states it has still to take before its access cycle.
    hold: Option<(Setup, u32)>,
    /// Read data register: `Some(value)` in a read's second access cycle (PREADY = 1, PRDATA =
    /// value), loaded at the edge ending its first access cycle, in which the read was performed
    /// (behaviour.md "APB4 completer": one wait state per read).
    rdata_q: Option<u32>,
    /// PRESETn of the previous cycle was low: this edge resets (behaviour.md, "Clocking and reset").
    rst_q: bool,
    /// 64-bit read snapshot: valid flag, register (slot) and latched high word.
    snap_valid: bool,
    snap_slot: usize,
    snap_hi: u32,
    /// Wired interrupt output register.
    irq: bool,
    /// Interrupt pulses raised so far (a statistic, not cleared by PRESETn).
    irq_pulses: u64,
    /// MSI master (behaviour.md "MSI write master"): an MSI is pending; BUSY (issued, response
    /// not accepted yet); its AW and W handshakes done. AWVALID = BUSY & !aw_done, WVALID =
    /// BUSY & !w_done, BREADY = BUSY & aw_done & w_done.
    msi_pending: bool,
    /// The last edge was a qualifying overflow edge: the interrupt and the MSI act on it at this
    /// edge (behaviour.md "Wired interrupt": the overflow is registered first).
    qual_q: bool,
    busy: bool,
    aw_done: bool,
    w_done: bool,
    /// AWADDR, AWPROT, WDATA and WSTRB, loaded at the issuing edge and held until the next one.
    awaddr: u64,
    awprot: u8,
    wdata: u32,
    wstrb: u8,
    /// CAPT_REQ registered at the previous edge, and the CAPT_ACK output register.
    capt_req_q: bool,
    capt_ack: bool,
    /// OVF_EXPORT output register: the counters that overflowed at the previous edge.
    ovf_export: u64,
    /// Split 64-bit counter writes (behaviour.md "Split 64-bit counter writes"): the pair
    /// register. A low-word write of counter `pair_ctr` opened it with `pair_base` = B, the
    /// counter's high part in the cycle of that write.
    pair_open: bool,
    pair_ctr: usize,
    pair_base: u64,
    /// A fault planted by a test to show that a check can fail (never set otherwise).
    fault: Option<PlantedFault>,
}

/// A fault a test plants in the model (as a device under test beside a correct model) to show
/// that the random stimulus and the lock-step comparison catch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlantedFault {
    /// A paired high-word write ignores the carries out of the low word between the two halves
    /// (c = 0): the bug issue 10 reported, in its subtle form.
    DropPairCarry,
    /// The old MSI rule: a pending MSI is dropped at an edge with IRQEN = 0 in its cycle, and
    /// IRQ_CTRLACK does not wait for a pending MSI.
    DropPendingMsi,
    /// A stale filter decode: an EVTYPERn/SMRn write reaches the registers (reads, OVFCAP) but
    /// the match side keeps decoding the value from before the write.
    StaleFilterDecode,
    /// The decode of an EVTYPERn/SMRn write applied at the write's edge instead of one edge
    /// later (the match side switching a cycle early: the registered decode forgotten).
    EarlyFilterDecode,
    /// A counter written at an edge also adds that edge's events (the RTL clears the written
    /// counter's match register at the setup edge, issue 11: this is that clear forgotten).
    WriteCountsEvents,
}

/// An APB transfer as registered in its setup cycle (APB4 keeps these stable into the access).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Setup {
    write: bool,
    paddr: u32,
    pwdata: u32,
    pstrb: u8,
    pprot: u8,
    /// APB5 PNSE (meaningful with Realm only).
    pnse: bool,
}

/// The byte lanes PSTRB selects, as a 32-bit mask.
#[inline]
fn strobe_mask(strb: u8) -> u64 {
    (0..4).fold(0u64, |m, b| {
        if strb & (1 << b) != 0 {
            m | (0xFF << (8 * b))
        } else {
            m
        }
    })
}

/// A field's (mask, lsb) in the map, (0, 0) when absent.
fn field_pos(map: &RegisterMap, id: RegId, name: &str) -> FieldPos {
    map.get(id)
        .and_then(|r| r.field(name))
        .map_or((0, 0), |f| (f.mask(), f.lsb))
}

/// A field's reset value in the map (the value of an RO constant), 0 when absent.
fn field_reset(map: &RegisterMap, id: RegId, name: &str) -> u32 {
    map.get(id)
        .and_then(|r| r.field(name))
        .map_or(0, |f| f.reset as u32)
}

/// The value of a field at `pos` in `v`.
#[inline]
fn get(v: u64, (mask, lsb): FieldPos) -> u32 {
    ((v & mask) >> lsb) as u32
}

impl Model {
    /// Builds the model of a validated configuration, in its reset state.
    pub fn new(cfg: &PmcgConfig) -> Model {
        let map = RegisterMap::new(cfg);
        let mut slots = Vec::with_capacity(map.regs.len());
        let mut by_addr = HashMap::new();
        let mut by_id = HashMap::new();
        for (i, r) in map.regs.iter().enumerate() {
            let kind = match r.id {
                RegId::Evcntr(n) => Kind::Counter(n as usize),
                RegId::Evtyper(n) => Kind::Evtyper(n as usize),
                RegId::Smr(n) => Kind::Smr(n as usize),
                RegId::CntenSet0 | RegId::CntenClr0 => Kind::Bitmap(Bitmap::Cnten),
                RegId::IntenSet0 | RegId::IntenClr0 => Kind::Bitmap(Bitmap::Inten),
                RegId::OvsSet0 | RegId::OvsClr0 => Kind::Bitmap(Bitmap::Ovs),
                RegId::Cr => Kind::Cr,
                RegId::Scr | RegId::ScrAlias => Kind::Scr,
                RegId::Rootcr => Kind::Rootcr,
                RegId::IrqCtrl => Kind::IrqCtrl,
                RegId::Svr(n) => Kind::Svr(n as usize),
                RegId::Capr => Kind::Capr,
                _ => Kind::Plain,
            };
            slots.push(Slot {
                kind,
                store: i,
                read_mask: r.read_mask(),
                rw: r.mask_of(FieldAccess::RW),
                w1s: r.mask_of(FieldAccess::W1S),
                w1c: r.mask_of(FieldAccess::W1C),
                reset: r.reset(),
                secure_only: r.secure_only,
                root_write: r.root_write,
                guarded: r.guarded,
                snapshot: r.bits == 64 && matches!(r.id, RegId::Evcntr(_) | RegId::Svr(_)),
            });
            // 10.5: a 64-bit register is two words, low at the offset, high at +4.
            by_addr.insert(r.addr & !3, (i, Word::Low));
            if r.bits == 64 {
                by_addr.insert((r.addr & !3) + 4, (i, Word::High));
            }
            by_id.insert(r.id, i);
        }
        // 10.5.2.12: the alias at 0xE40 is SCR itself: one storage.
        if let (Some(&alias), Some(&scr)) = (by_id.get(&RegId::ScrAlias), by_id.get(&RegId::Scr)) {
            slots[alias].store = scr;
        }
        let counters = cfg.counters as usize;
        let evtyper_slot = (0..cfg.counters)
            .map(|n| by_id[&RegId::Evtyper(n)])
            .collect();
        let event_field = field_pos(&map, RegId::Evtyper(0), "EVENT");
        let streamid = field_pos(&map, RegId::Smr(0), "STREAMID");
        let sid_all = (streamid.0 >> streamid.1) as u32;
        let ev0 = RegId::Evtyper(0);
        let pos = FilterPos {
            span: map.field_mask(ev0, "FILTER_SID_SPAN"),
            sec: map.field_mask(ev0, "FILTER_SEC_SID"),
            realm: map.field_mask(ev0, "FILTER_REALM_SID"),
            filter_partid: map.field_mask(ev0, "FILTER_PARTID"),
            filter_pmg: map.field_mask(ev0, "FILTER_PMG"),
            mpam_sp: field_pos(&map, ev0, "FILTER_MPAM_SP"),
            streamid,
            partid: field_pos(&map, RegId::Smr(0), "PARTID"),
            pmg: field_pos(&map, RegId::Smr(0), "PMG"),
        };
        let global_filter = cfg.sid_filter == SidFilterType::Global;
        let filter_slots = (0..cfg.counters)
            .map(|n| {
                let src = if global_filter { 0 } else { n };
                (by_id[&RegId::Evtyper(src)], by_id[&RegId::Smr(src)])
            })
            .collect();
        let lane_bits = |pred: &dyn Fn(u16) -> bool| {
            cfg.lane_event_ids()
                .iter()
                .enumerate()
                .fold(0u32, |a, (k, &e)| if pred(e) { a | 1 << k } else { a })
        };
        let filterable_bits = lane_bits(&|e| cfg.event_filterable(e));
        let nonattr_bits = lane_bits(&|e| cfg.event_nonattr(e));
        // 10.5.2.27/28: the MPAM filter limits are the ID registers' constants (0 when absent).
        let controls = Controls {
            partid_max: field_reset(&map, RegId::Mpamidr, "PARTID_MAX"),
            pmg_max: field_reset(&map, RegId::Mpamidr, "PMG_MAX"),
            s_partid_max: field_reset(&map, RegId::SMpamidr, "PARTID_MAX"),
            s_pmg_max: field_reset(&map, RegId::SMpamidr, "PMG_MAX"),
            ..Controls::default()
        };
        let ack_slot = by_id.get(&RegId::IrqCtrlAck).copied();
        let slot_of = |id: RegId| by_id.get(&id).copied().unwrap_or(0);
        let mut m = Model {
            msi: cfg.msi,
            cfg0_slot: slot_of(RegId::IrqCfg0),
            cfg1_slot: slot_of(RegId::IrqCfg1),
            cfg2_slot: slot_of(RegId::IrqCfg2),
            msi_mpam: cfg.msi_mpam,
            gmpam_slot: slot_of(RegId::Gmpam),
            gmpam_partid: field_pos(&map, RegId::Gmpam, "PO_PARTID"),
            gmpam_pmg: field_pos(&map, RegId::Gmpam, "PO_PMG"),
            msi_partid: 0,
            msi_pmg: 0,
            msi_mpam_ns: false,
            status_slot: slot_of(RegId::IrqStatus),
            cfg0_addr_mask: map.mask(field::IRQ_CFG0_ADDR),
            cfg1_data: field_pos(&map, RegId::IrqCfg1, "DATA"),
            cfg2_memattr: field_pos(&map, RegId::IrqCfg2, "MEMATTR"),
            cfg2_sh: field_pos(&map, RegId::IrqCfg2, "SH"),
            status_abt_mask: map.mask(field::IRQ_STATUS_IRQ_ABT),
            scr_slot: slot_of(RegId::Scr),
            scr_nsmsi_mask: map.mask(field::SCR_NSMSI),
            capture: cfg.capture,
            capr_capture_mask: map.mask(field::CAPR_CAPTURE),
            ovfcap_field: map.mask(field::EVTYPER_OVFCAP),
            counter_mask: map.reg(RegId::Evcntr(0)).impl_mask(),
            event_field,
            pos,
            sid_all,
            filterable_bits,
            nonattr_bits,
            cr_e_mask: map.mask(field::CR_E),
            scr_nsra_mask: map.mask(field::SCR_NSRA),
            scr_so_mask: map.mask(field::SCR_SO),
            scr_nao_mask: map.mask(field::SCR_NAO),
            rootcr_rto_mask: map.mask(field::ROOTCR_RTO),
            rootcr_rlo_mask: map.mask(field::ROOTCR_RLO),
            rootcr_nao_mask: map.mask(field::ROOTCR_NAO),
            rootcr_sao_mask: map.mask(field::ROOTCR_SAO),
            rootcr_pmo_mask: map.mask(field::ROOTCR_PMO),
            irq_ctrl_irqen_mask: map.mask(field::IRQ_CTRL_IRQEN),
            ack_irqen_mask: map.mask(field::IRQ_CTRLACK_IRQEN),
            vals: vec![0; slots.len()],
            match_vals: vec![0; slots.len()],
            decode_pending: None,
            filter_tables: cfg.filter_tables,
            fw_wait: false,
            slots,
            by_addr,
            by_id,
            evtyper_slot,
            filter_slots,
            global_filter,
            ack_slot,
            secure: cfg.secure,
            realm: cfg.realm,
            lanes: cfg.lanes as usize,
            lane_events: cfg.lane_event_ids(),
            map,
            counters: vec![0; counters],
            cnten: 0,
            cycle_en: 0,
            inten: 0,
            ovs: 0,
            svr: vec![0; if cfg.capture { counters } else { 0 }],
            cr_e: false,
            nsra: false,
            controls,
            scr_nao: false,
            root_nao: false,
            irqen: false,
            ack_irqen: false,
            decode: vec![Decode::Nothing; counters],
            ovfcap_mask: 0,
            cycle_mask: 0,
            lane_mask: [0; LANE_EVENT_BITS as usize],
            used_lane_bits: 0,
            filter: vec![Filter::ALL; counters],
            filter_groups: Vec::with_capacity(counters),
            lanes_q: [LaneIn::default(); MAX_LANES as usize],
            stage: [0; STAGE_BITS],
            setup: None,
            hold: None,
            rdata_q: None,
            rst_q: false,
            snap_valid: false,
            snap_slot: 0,
            snap_hi: 0,
            irq: false,
            irq_pulses: 0,
            msi_pending: false,
            qual_q: false,
            busy: false,
            aw_done: false,
            w_done: false,
            awaddr: 0,
            awprot: 0,
            wdata: 0,
            wstrb: 0,
            capt_req_q: false,
            capt_ack: false,
            ovf_export: 0,
            pair_open: false,
            pair_ctr: 0,
            pair_base: 0,
            fault: None,
        };
        m.reset();
        m
    }

    /// The register map the model decodes with.
    pub fn map(&self) -> &RegisterMap {
        &self.map
    }

    /// Counter n's value now (0 for an unimplemented counter).
    pub fn counter(&self, n: u32) -> u64 {
        self.counters.get(n as usize).copied().unwrap_or(0)
    }

    /// The OVS bitmap now.
    pub fn ovs(&self) -> u64 {
        self.ovs
    }

    /// The architectural value of a register now (both words of a 64-bit register), with no side
    /// effects and no security check; 0 for a register this configuration does not implement.
    pub fn read_reg(&self, id: RegId) -> u64 {
        self.by_id.get(&id).map_or(0, |&s| self.value(s))
    }

    /// Interrupt pulses raised so far (counted at the edge that raises `irq`; not cleared by reset).
    pub fn irq_pulses(&self) -> u64 {
        self.irq_pulses
    }

    /// The `irq` output register now (the value driven during the next cycle).
    pub fn irq(&self) -> bool {
        self.irq
    }

    /// SVRn now (0 without capture or for an unimplemented counter).
    pub fn svr(&self, n: u32) -> u64 {
        self.svr.get(n as usize).copied().unwrap_or(0)
    }

    /// BUSY: an MSI has been issued and its write response not accepted yet.
    pub fn msi_busy(&self) -> bool {
        self.busy
    }

    /// Plants a fault (tests only: a model with a fault is a broken device under test).
    pub fn plant_fault(&mut self, fault: PlantedFault) {
        self.fault = Some(fault);
    }

    /// An MSI is pending (waiting for BUSY to fall).
    pub fn msi_pending(&self) -> bool {
        self.msi_pending
    }

    /// A field of IRQ_CFG2 as an MSI sideband output (0 without MSI).
    #[inline]
    fn msi_sideband(&self, pos: FieldPos) -> u8 {
        if self.msi {
            get(self.vals[self.cfg2_slot], pos) as u8
        } else {
            0
        }
    }

    /// PRDATA in the current cycle: the value of the read performed in the previous cycle when
    /// this is a read's second access cycle, else 0.
    pub fn prdata(&self) -> u32 {
        self.rdata_q.unwrap_or(0)
    }

    /// PREADY in the current cycle: 0 in a held transfer's wait states and in a read's first
    /// access cycle (its own wait state), else 1.
    pub fn pready(&self) -> bool {
        let waiting = self.hold.is_some()
            || matches!(self.setup, Some(r) if !r.write)
            || self.filter_write_access()
            || (self.fw_wait && self.decode_pending.is_some());
        !waiting
    }

    /// With filter tables: this cycle is the access cycle of a write to the EVTYPER or SMR
    /// region (PREADY 0; docs/behaviour.md "Filter tables").
    fn filter_write_access(&self) -> bool {
        self.filter_tables
            && matches!(self.setup, Some(r) if r.write && self.map.filter_access(r.paddr))
    }

    /// Edges from an EVTYPERn/SMRn write to the match side taking it.
    fn decode_edges(&self) -> u64 {
        if self.filter_tables {
            FILTER_TABLE_APPLY_EDGES
        } else {
            1
        }
    }

    /// Synchronous reset: every register takes its reset value from the map.
    fn reset(&mut self) {
        for (v, s) in self.vals.iter_mut().zip(&self.slots) {
            *v = s.reset;
        }
        for (n, c) in self.counters.iter_mut().enumerate() {
            *c = self.slots[self.by_id[&RegId::Evcntr(n as u32)]].reset;
        }
        self.cnten = self.slots[self.by_id[&RegId::CntenSet0]].reset;
        self.inten = self.slots[self.by_id[&RegId::IntenSet0]].reset;
        self.ovs = self.slots[self.by_id[&RegId::OvsSet0]].reset;
        self.refresh_control();
        self.match_vals.clone_from(&self.vals);
        self.decode_pending = None;
        for n in 0..self.counters.len() {
            self.set_ovfcap(n);
            self.redecode(n);
        }
        self.refilter_all();
        self.lanes_q = [LaneIn::default(); MAX_LANES as usize];
        self.stage = [0; STAGE_BITS];
        self.cycle_en = 0;
        self.setup = None;
        self.rdata_q = None;
        self.snap_valid = false;
        self.snap_slot = 0;
        self.snap_hi = 0;
        self.irq = false;
        for (n, v) in self.svr.iter_mut().enumerate() {
            *v = self.slots[self.by_id[&RegId::Svr(n as u32)]].reset;
        }
        // Every MSI state: an outstanding MSI is abandoned (behaviour.md "MSI write master").
        self.msi_pending = false;
        self.qual_q = false;
        self.busy = false;
        self.aw_done = false;
        self.w_done = false;
        self.awaddr = 0;
        self.awprot = 0;
        self.wdata = 0;
        self.wstrb = 0;
        self.capt_req_q = false;
        self.capt_ack = false;
        self.ovf_export = 0;
        self.pair_open = false;
    }

    /// Recomputes the mirrors of CR.E, SCR.{NSRA, SO, NAO}, ROOTCR.{RTO, RLO, NAO, SAO, PMO},
    /// IRQ_CTRL.IRQEN and IRQ_CTRLACK.IRQEN (0 for a field of an absent register).
    fn refresh_control(&mut self) {
        let field = |id: RegId, mask: u64, this: &Model| {
            this.by_id
                .get(&id)
                .is_some_and(|&s| this.vals[this.slots[s].store] & mask != 0)
        };
        self.cr_e = field(RegId::Cr, self.cr_e_mask, self);
        self.nsra = field(RegId::Scr, self.scr_nsra_mask, self);
        self.controls.so = field(RegId::Scr, self.scr_so_mask, self);
        self.scr_nao = field(RegId::Scr, self.scr_nao_mask, self);
        self.controls.rto = field(RegId::Rootcr, self.rootcr_rto_mask, self);
        self.controls.rlo = field(RegId::Rootcr, self.rootcr_rlo_mask, self);
        self.root_nao = field(RegId::Rootcr, self.rootcr_nao_mask, self);
        self.controls.sao = field(RegId::Rootcr, self.rootcr_sao_mask, self);
        self.controls.pmo = field(RegId::Rootcr, self.rootcr_pmo_mask, self);
        self.irqen = field(RegId::IrqCtrl, self.irq_ctrl_irqen_mask, self);
        self.ack_irqen = field(RegId::IrqCtrlAck, self.ack_irqen_mask, self);
    }

    /// 10.5.2.2 OVFCAP of counter n from EVTYPERn's storage (RES0 without capture: the field mask
    /// is then 0); it acts from the write's edge (it is not part of the match-side decode).
    fn set_ovfcap(&mut self, n: usize) {
        let bit = 1u64 << n;
        if self.vals[self.evtyper_slot[n]] & self.ovfcap_field != 0 {
            self.ovfcap_mask |= bit;
        } else {
            self.ovfcap_mask &= !bit;
        }
    }

    /// Re-decodes counter n's EVTYPERn.EVENT (the match side's copy) into the counting masks.
    fn redecode(&mut self, n: usize) {
        let bit = 1u64 << n;
        let evtyper = self.match_vals[self.evtyper_slot[n]];
        let event = get(evtyper, self.event_field) as u16;
        let d = if event == CYCLE_EVENT {
            Decode::Cycles
        } else if let Some(k) = self.lane_events.iter().position(|&e| e == event) {
            Decode::Lane(k as u32)
        } else {
            Decode::Nothing // 10.3: an unsupported event number counts nothing
        };
        self.decode[n] = d;
        self.cycle_mask &= !bit;
        self.lane_mask.iter_mut().for_each(|m| *m &= !bit);
        match d {
            Decode::Cycles => self.cycle_mask |= bit,
            Decode::Lane(k) => self.lane_mask[k as usize] |= bit,
            Decode::Nothing => {}
        }
        self.used_lane_bits =
            self.lane_mask
                .iter()
                .enumerate()
                .fold(0, |a, (k, m)| if *m != 0 { a | (1 << k) } else { a });
    }

    /// 10.4.4: whether non-attributable events may be counted now. Always without Secure state;
    /// SCR.SO with Secure state and no Realm; ROOTCR.NAO and (SCR.SO or SCR.NAO) with Realm.
    fn nonattr_permitted(&self) -> bool {
        if !self.secure {
            true
        } else if !self.realm {
            self.controls.so
        } else {
            self.root_nao && (self.controls.so || self.scr_nao)
        }
    }

    /// The filter fields of counter n: its own EVTYPERn/SMRn, or EVTYPER0/SMR0 with the global
    /// filter.
    fn fields_of(&self, n: usize) -> FilterFields {
        let (evtyper, smr) = self.filter_slots[n];
        let (e, s, p) = (self.match_vals[evtyper], self.match_vals[smr], &self.pos);
        FilterFields {
            span: e & p.span != 0,
            sec: e & p.sec != 0,
            realm: e & p.realm != 0,
            x: get(s, p.streamid),
            filter_partid: e & p.filter_partid != 0,
            filter_pmg: e & p.filter_pmg != 0,
            mpam_sp: get(e, p.mpam_sp),
            partid: get(s, p.partid),
            pmg: get(s, p.pmg),
        }
    }

    /// Counter n's filter, from its EVENT (filterable, non-attributable or neither), the filter
    /// fields that apply to it and the controls (SCR, ROOTCR).
    fn filter_of(&self, n: usize) -> Filter {
        match self.decode[n] {
            // 10.4: only filterable events are filtered (not event 0, not the IMPLEMENTATION
            // DEFINED events declared global or non-attributable); 10.5.2.4: STREAMID is then
            // IGNORED.
            Decode::Lane(k) if self.filterable_bits & (1 << k) != 0 => {
                Filter::decode(&self.fields_of(n), &self.controls, self.sid_all)
            }
            // 10.4.4: no StreamID, security or MPAM filter, only the global permission.
            Decode::Lane(k) if self.nonattr_bits & (1 << k) != 0 => {
                if self.nonattr_permitted() {
                    Filter::ALL
                } else {
                    Filter::NONE
                }
            }
            _ => Filter::ALL,
        }
    }

    /// Re-decodes counter n's filter (its EVTYPERn or SMRn written).
    fn refilter(&mut self, n: usize) {
        self.filter[n] = self.filter_of(n);
        self.regroup();
    }

    /// Re-decodes every counter's filter (SCR, ROOTCR, or EVTYPER0/SMR0 of the global filter,
    /// written).
    fn refilter_all(&mut self) {
        for n in 0..self.counters.len() {
            self.filter[n] = self.filter_of(n);
        }
        self.regroup();
    }

    /// Rebuilds `filter_groups` from `filter` (no allocation: capacity is one group per counter).
    fn regroup(&mut self) {
        self.filter_groups.clear();
        for (n, f) in self.filter.iter().enumerate() {
            match self.filter_groups.iter_mut().find(|(g, _)| g == f) {
                Some((_, members)) => *members |= 1 << n,
                None => self.filter_groups.push((*f, 1 << n)),
            }
        }
    }

    /// Full value of a slot, masked to the bits that read (no security check).
    #[inline]
    fn value(&self, s: usize) -> u64 {
        let slot = &self.slots[s];
        let v = match slot.kind {
            Kind::Counter(n) => self.counters[n],
            Kind::Bitmap(Bitmap::Cnten) => self.cnten,
            Kind::Bitmap(Bitmap::Inten) => self.inten,
            Kind::Bitmap(Bitmap::Ovs) => self.ovs,
            Kind::Svr(n) => self.svr[n],
            _ => self.vals[slot.store],
        };
        v & slot.read_mask
    }

    /// The security state of an APB access: {PNSE, PPROT[1]} with Realm (00 Secure, 01
    /// Non-secure, 10 Root, 11 Realm), PPROT[1] alone otherwise (PNSE ignored).
    #[inline]
    fn access_state(&self, r: &Setup) -> AccessState {
        let ns = r.pprot & PPROT_NONSECURE != 0;
        match (self.realm && r.pnse, ns) {
            (false, false) => AccessState::Secure,
            (false, true) => AccessState::NonSecure,
            (true, false) => AccessState::Root,
            (true, true) => AccessState::Realm,
        }
    }

    /// 10.6, 10.7: whether this access may read (`write` false) or write this register.
    #[inline]
    fn permitted(&self, s: usize, r: &Setup, write: bool) -> bool {
        if !self.secure {
            return true; // no Secure state: every access is treated alike
        }
        let slot = &self.slots[s];
        let state = self.access_state(r);
        // Realm is treated as Non-secure by every rule: SCR (and its alias) and S_MPAMIDR are
        // Secure-or-Root only; NSRA = 0 makes every Non-secure access RAZ/WI.
        let non_secure = matches!(state, AccessState::NonSecure | AccessState::Realm);
        if non_secure && (!self.nsra || slot.secure_only) {
            return false;
        }
        // 10.5.2.18: ROOTCR is RW for Root, RO for every other access.
        !(write && slot.root_write && state != AccessState::Root)
    }

    /// The permitted register and word an APB access selects (`None`: RAZ/WI, or a write ignored
    /// as to an RO register).
    #[inline]
    fn target(&self, r: &Setup) -> Option<(usize, Word)> {
        self.by_addr
            .get(&(r.paddr & !3))
            .copied()
            .filter(|&(s, _)| self.permitted(s, r, r.write))
    }

    /// A write of one word of a register, bytes per PSTRB, with the register's side effects.
    fn write(&mut self, s: usize, word: Word, data: u32, strb: u8) {
        let slot = &self.slots[s];
        // 10.5.2.21-23: Guarded registers ignore writes while IRQEN or its ACK is 1.
        if slot.guarded && (self.irqen || self.ack_irqen) {
            return;
        }
        let shift = match word {
            Word::Low => 0,
            Word::High => 32,
        };
        let bytes = strobe_mask(strb) << shift;
        let wdata = (data as u64) << shift;
        // RW bits of unstrobed bytes keep their value; W1S/W1C bits of unstrobed bytes count as 0.
        let rw = slot.rw & bytes;
        let set = slot.w1s & bytes & wdata;
        let clr = slot.w1c & bytes & wdata;
        let merge = |old: u64| ((old & !rw) | (wdata & rw) | set) & !clr;
        let st = slot.store;
        match slot.kind {
            // 10.5.2.1: the written word replaces that word of the current value.
            Kind::Counter(n) => self.counters[n] = merge(self.counters[n]) & self.counter_mask,
            Kind::Bitmap(Bitmap::Cnten) => self.cnten = merge(self.cnten),
            Kind::Bitmap(Bitmap::Inten) => self.inten = merge(self.inten),
            Kind::Bitmap(Bitmap::Ovs) => self.ovs = merge(self.ovs),
            Kind::Evtyper(n) => {
                self.vals[st] = merge(self.vals[st]);
                self.set_ovfcap(n);
                self.decode_pending = Some((s, self.decode_edges()));
            }
            Kind::Smr(_) => {
                self.vals[st] = merge(self.vals[st]);
                self.decode_pending = Some((s, self.decode_edges()));
            }
            Kind::Cr => {
                self.vals[st] = merge(self.vals[st]);
                self.refresh_control();
            }
            Kind::Scr | Kind::Rootcr => {
                self.vals[st] = merge(self.vals[st]);
                self.refresh_control();
                // SO, RLO, RTO, SAO, PMO and the NAO bits change the filters.
                self.refilter_all();
            }
            Kind::Plain => self.vals[st] = merge(self.vals[st]),
            Kind::IrqCtrl => {
                // IRQ_CTRLACK follows at the end of the edge (Model::edge).
                self.vals[st] = merge(self.vals[st]);
                self.refresh_control();
            }
            // 10.5.2.3: SVRn are RO; 10.5.2.11: CAPR reads 0 and holds nothing (its capture is
            // triggered in Model::edge).
            Kind::Svr(_) | Kind::Capr => {}
        }
        if self.fault == Some(PlantedFault::EarlyFilterDecode) {
            if let Some((p, _)) = self.decode_pending.take() {
                self.apply_decode(p);
            }
        }
    }
    /// The registered decode of the EVTYPERn or SMRn write of the previous edge (slot `s`): the
    /// match side takes the new value, its event decode and filter.
    fn apply_decode(&mut self, s: usize) {
        if self.fault != Some(PlantedFault::StaleFilterDecode) {
            self.match_vals[s] = self.vals[s];
        }
        match self.slots[s].kind {
            Kind::Evtyper(n) => {
                self.redecode(n);
                // 10.4: with the global filter, EVTYPER0's filter fields apply to every counter.
                if self.global_filter && n == 0 {
                    self.refilter_all();
                } else {
                    self.refilter(n);
                }
            }
            // 10.5.2.4: SMR0 applies to every counter with the global filter (SMRn, n > 0,
            // exist only with per-counter filters).
            Kind::Smr(_) if self.global_filter => self.refilter_all(),
            Kind::Smr(n) => self.refilter(n),
            _ => {}
        }
    }

    /// Adds `inc` to every counter of `set`; returns the counters that carried out.
    #[inline]
    fn add(&mut self, mut set: u64, inc: u64) -> u64 {
        let mask = self.counter_mask;
        let mut ovf = 0;
        while set != 0 {
            let n = set.trailing_zeros();
            set &= set - 1;
            let c = &mut self.counters[n as usize];
            let (sum, carry) = c.overflowing_add(inc);
            // 10.2.1: a carry out of counter_bits is an overflow; the counter wraps.
            if carry || sum > mask {
                ovf |= 1 << n;
            }
            *c = sum & mask;
        }
        ovf
    }

    /// Counting at one edge with the configuration of the cycle; `skip` are counters written at
    /// this edge (they do not count). Returns the counters that overflowed.
    #[inline]
    fn count(&mut self, skip: u64) -> u64 {
        // 10.5.2.14: CR.E = 0 stops every counter; 10.5.2.5: CNTEN[n] enables counter n. A
        // counter of clock cycles (event 0 now) adds 1 when it was enabled in the previous
        // cycle and drops its match register (taken under a lane event it selected before an
        // EVTYPERn write); every other counter adds its match register, which is 0 unless it
        // was enabled when it matched.
        let cycles = self.cycle_mask & self.cycle_en & !skip;
        self.cycle_en = if self.cr_e { self.cnten } else { 0 };
        let lanes = !self.cycle_mask & !skip;
        // The increments, bit-sliced like the stage (they fit, see STAGE_BITS).
        let mut inc = self.stage.map(|p| p & lanes);
        inc[0] |= cycles;
        // Counters grouped by increment, smallest first.
        let mut left = inc.iter().fold(0, |a, p| a | p);
        let mut ovf = 0;
        let mut v = 1usize;
        while left != 0 {
            let set = (0..STAGE_BITS).fold(left, |m, i| {
                m & if v >> i & 1 != 0 { inc[i] } else { !inc[i] }
            });
            if set != 0 {
                left &= !set;
                ovf |= self.add(set, v as u64);
            }
            v += 1;
        }
        ovf
    }

    /// This cycle's match, into the match register at this edge: per counter enabled in this
    /// cycle (CR.E and CNTEN[n]), the valid registered lanes that carry the event it selects and
    /// pass its filter, under this cycle's EVTYPERn, SMRn, SCR and ROOTCR.
    #[inline]
    fn match_lanes(&mut self, lanes: &[LaneIn]) {
        let enabled = if self.cr_e { self.cnten } else { 0 };
        self.stage = self.lane_stage(lanes, enabled);
    }

    /// The match of `lanes` (the registered lanes) for the counters of `enabled`, bit-sliced
    /// like `stage`: per counter, the valid lanes that carry the event it selects and pass its
    /// filter, under the match side's EVTYPERn, SMRn, SCR and ROOTCR.
    #[inline]
    fn lane_stage(&self, lanes: &[LaneIn], enabled: u64) -> [u64; STAGE_BITS] {
        let mut stage = [0u64; STAGE_BITS];
        if self.used_lane_bits != 0 && enabled != 0 {
            for l in lanes.iter().take(self.lanes).filter(|l| l.valid) {
                // Counters selecting an event this lane carries (each selects one event).
                let mut e = l.events & self.used_lane_bits;
                let mut selected = 0u64;
                while e != 0 {
                    selected |= self.lane_mask[e.trailing_zeros() as usize];
                    e &= e - 1;
                }
                if selected == 0 {
                    continue;
                }
                // Counters whose filter the lane passes.
                let key = mpam_key(l.partid as u32, l.pmg as u32, l.mpam_sp.code());
                let mut passed = 0u64;
                for (f, members) in &self.filter_groups {
                    if selected & members != 0 && f.passes(l, key) {
                        passed |= members;
                    }
                }
                // Add 1 to each hit counter's bit-sliced number.
                let mut carry = selected & passed & enabled;
                for p in stage.iter_mut() {
                    let c = *p & carry;
                    *p ^= carry;
                    carry = c;
                }
            }
        }
        stage
    }

    /// The match side on its own, for the match block's tests (tests/filter_match.rs): sets the
    /// EVTYPERn and SMRn values the match side holds (`evtyper[n]`, `smr[n]`, as written: RW
    /// bits only; an SMRn the configuration does not implement is ignored), SCR and ROOTCR, and
    /// re-decodes every counter's event and filter from them with the model's own decode (as
    /// `reset` and `apply_decode` do). Nothing else changes; `step` is not meant to follow.
    pub fn set_match_side(&mut self, evtyper: &[u64], smr: &[u64], scr: u64, rootcr: u64) {
        for n in 0..self.counters.len() {
            self.match_vals[self.evtyper_slot[n]] = evtyper[n];
            if let Some(&s) = self.by_id.get(&RegId::Smr(n as u32)) {
                self.match_vals[s] = smr[n];
            }
            self.redecode(n);
        }
        for (id, v) in [(RegId::Scr, scr), (RegId::Rootcr, rootcr)] {
            if let Some(&s) = self.by_id.get(&id) {
                let store = self.slots[s].store;
                self.vals[store] = v;
            }
        }
        self.refresh_control();
        self.refilter_all();
    }

    /// Per counter, how many of `lanes` (the registered lanes of a cycle) carry the event it
    /// selects and pass its filter under the match side's state: the match its match register
    /// takes at an edge when it is enabled (0 for a counter of clock cycles or of an unsupported
    /// event).
    pub fn lane_matches(&self, lanes: &[LaneIn]) -> Vec<u32> {
        let stage = self.lane_stage(lanes, u64::MAX);
        (0..self.counters.len())
            .map(|n| (0..STAGE_BITS).fold(0, |a, i| a | ((stage[i] >> n & 1) as u32) << i))
            .collect()
    }

    /// Whether the match side decodes counter n's EVENT as event 0 (it counts clock cycles).
    pub fn counts_cycles(&self, n: usize) -> bool {
        self.decode[n] == Decode::Cycles
    }

    /// Bit n: counter n's filter passes StreamID `sid` (its CARE / VALUE compare alone: what the
    /// filter tables' column n holds for `sid`, docs/behaviour.md "Filter tables").
    pub fn sid_matches(&self, sid: u32) -> u64 {
        self.filter
            .iter()
            .enumerate()
            .fold(0, |a, (n, f)| a | u64::from(sid & f.care == f.value) << n)
    }

    /// A read access of `r` in this cycle: (PRDATA, the snapshot it takes).
    fn read_access(&self, r: &Setup) -> (u32, Option<(usize, u32)>) {
        match self.target(r) {
            Some((s, Word::Low)) => {
                let v = self.value(s);
                let snap = self.slots[s].snapshot.then_some((s, (v >> 32) as u32));
                (v as u32, snap)
            }
            Some((s, Word::High)) => {
                // The snapshot answers only right after a low-word read of the same register.
                if self.snap_valid && self.snap_slot == s {
                    (self.snap_hi, None)
                } else {
                    ((self.value(s) >> 32) as u32, None)
                }
            }
            None => (0, None), // RAZ: unmapped, absent or refused by the security rules
        }
    }

    /// The rising edge that ends a cycle with lane inputs `inp` (no reset at this edge). The APB
    /// transfer in its access cycle is `self.setup`, registered at its setup edge.
    fn edge(&mut self, inp: &PinInputs) {
        let req = self.setup;
        let access_read = req.filter(|r| !r.write);
        let access_write = req.filter(|r| r.write);

        // APB read, first access cycle (the wait state): the register state of this cycle is
        // registered for PRDATA in the next cycle; the snapshot rule.
        self.rdata_q = None;
        if let Some(r) = access_read {
            let (value, snap) = self.read_access(&r);
            self.rdata_q = Some(value);
            // Any transfer other than a permitted low-word read ends the snapshot.
            match snap {
                Some((s, hi)) => {
                    self.snap_valid = true;
                    self.snap_slot = s;
                    self.snap_hi = hi;
                }
                None => self.snap_valid = false,
            }
        }

        let write = access_write.and_then(|r| self.target(&r).map(|t| (t, r)));
        if access_write.is_some() {
            self.snap_valid = false;
        }
        // Split 64-bit counter writes (10.5 leaves 64-bit atomicity IMPLEMENTATION DEFINED;
        // behaviour.md "Split 64-bit counter writes"): a low-word write opens the pair register,
        // the next EVCNTR write closes it, and a high-word write to the paired counter rebases
        // the counter to {H + c, low} and lets it count at this edge.
        let mut paired = false;
        let mut pair_ovf = 0u64;
        let hi_mask = self.counter_mask >> 32;
        if let Some(((s, w), r)) = write {
            if let Kind::Counter(n) = self.slots[s].kind {
                if hi_mask != 0 {
                    let high = self.counters[n] >> 32;
                    match w {
                        Word::Low => {
                            self.pair_open = true;
                            self.pair_ctr = n;
                            self.pair_base = high;
                        }
                        Word::High => {
                            if self.pair_open && self.pair_ctr == n {
                                paired = true;
                                let bytes = strobe_mask(r.pstrb);
                                let base = self.pair_base;
                                let h = ((base & !bytes) | (r.pwdata as u64 & bytes)) & hi_mask;
                                let c = if self.fault == Some(PlantedFault::DropPairCarry) {
                                    0
                                } else {
                                    high.wrapping_sub(base) & hi_mask
                                };
                                // 10.2.1: the 64-bit write's count passed the top between the
                                // halves: an overflow at this edge.
                                if h + c > hi_mask {
                                    pair_ovf = 1 << n;
                                }
                                self.counters[n] =
                                    ((h + c) & hi_mask) << 32 | (self.counters[n] & 0xFFFF_FFFF);
                            }
                            self.pair_open = false;
                        }
                    }
                }
            }
        }
        // 10.5.2.1 / behaviour.md: a counter written at this edge does not count at it (a paired
        // high-word write does: it only rebased the counter).
        let skip = match write {
            _ if self.fault == Some(PlantedFault::WriteCountsEvents) => 0,
            Some(((s, _), _)) if !paired => match self.slots[s].kind {
                Kind::Counter(n) => 1u64 << n,
                _ => 0,
            },
            _ => 0,
        };

        // Counting adds the match register (the previous cycle's match); matching the lanes
        // registered at the previous edge uses this cycle's configuration and enables and loads
        // the match register (writes at this edge act from the next).
        let ovf = self.count(skip) | pair_ovf;
        let lanes_q = self.lanes_q;
        self.match_lanes(&lanes_q);
        // The EVTYPERn/SMRn write of the previous edge reaches the match side at this edge
        // (after this cycle's match and count, before this edge's write).
        // With filter tables at the rebuild's swap, FILTER_TABLE_APPLY_EDGES after the write.
        match self.decode_pending {
            Some((s, 1)) => {
                self.decode_pending = None;
                self.apply_decode(s);
            }
            Some((s, k)) => self.decode_pending = Some((s, k - 1)),
            None => {}
        }
        // 10.5.2.7 / 10.5.2.19: overflow of a counter with INTEN = 1 while IRQEN = 1 interrupts:
        // a qualifying overflow edge. It is registered at this edge and acted on (irq, MSI) at the
        // next (behaviour.md "Wired interrupt"): `irq` here is the previous edge's.
        let irq = self.qual_q;
        let qualifying = ovf & self.inten != 0 && self.irqen;
        // IRQ_CTRL.IRQEN of this cycle (the write at this edge acts from the next).
        let en_now = self.irqen;
        // Match stage: this cycle's lane inputs, matched at the next edge.
        for (q, l) in self.lanes_q.iter_mut().zip(&inp.lanes) {
            *q = *l;
        }

        // The MSI master and the capture triggers see the state of this cycle (before the write).
        // (With nothing pending, outstanding or qualifying, the master has nothing to do.)
        if self.msi && (irq || self.busy || self.msi_pending) {
            self.msi_edge(inp, irq);
        }
        let mut capture = false;
        if self.capture {
            // External request (4-phase), from the registered request and CAPT_ACK of this
            // cycle: request 1 and ACK 0 captures and sets ACK; request 0 clears ACK.
            if self.capt_req_q != self.capt_ack {
                self.capt_ack = self.capt_req_q;
                capture = self.capt_req_q;
            }
            self.capt_req_q = inp.capt_req;
            // 10.2.1: overflow of a counter with OVFCAP = 1 (this cycle's EVTYPERn).
            capture |= ovf & self.ovfcap_mask != 0;
            // 10.5.2.11: a permitted write of CAPTURE = 1 (byte 0 strobed).
            if let Some(((s, _), r)) = write {
                capture |= self.slots[s].kind == Kind::Capr
                    && (r.pwdata as u64) & strobe_mask(r.pstrb) & self.capr_capture_mask != 0;
            }
        }

        if let Some(((s, w), r)) = write {
            if !paired {
                self.write(s, w, r.pwdata, r.pstrb);
            }
        }
        // 10.2.1: overflow sets OVS (after the write: it beats a same-edge OVSCLR0).
        self.ovs |= ovf;
        self.irq = irq;
        if irq {
            self.irq_pulses += 1;
        }
        self.qual_q = qualifying;
        self.ovf_export = ovf;
        // IRQ_CTRLACK.IRQEN := EN or (ACK and (BUSY or PENDING)), with EN, BUSY and PENDING after
        // this edge: a 1 -> 0 update completes when every prior MSI, issued or pending, has
        // completed (10.5.2.19); IRQ_ABT clears where ACK goes 0 -> 1 (10.5.2.24).
        // With MSI, ACK also holds while EN was 1 in this cycle: an overflow that qualified at
        // this edge makes its MSI pending only at the next.
        let owed = self.busy
            || (self.msi_pending && self.fault != Some(PlantedFault::DropPendingMsi))
            || (self.msi && en_now);
        let ack = self.irqen || (self.ack_irqen && owed);
        if ack != self.ack_irqen {
            if let Some(a) = self.ack_slot {
                let m = self.ack_irqen_mask;
                self.vals[a] = (self.vals[a] & !m) | if ack { m } else { 0 };
            }
            if ack && self.msi {
                self.vals[self.status_slot] &= !self.status_abt_mask;
            }
            self.ack_irqen = ack;
        }
        // A capture copies every counter's value after this edge (writes and counting included).
        if capture {
            self.svr.copy_from_slice(&self.counters);
        }
    }

    /// The MSI master at one edge, from the state of this cycle: `qualifying` is whether this
    /// edge is a qualifying overflow edge (behaviour.md "MSI write master").
    #[inline]
    fn msi_edge(&mut self, inp: &PinInputs, qualifying: bool) {
        // Cycle-t IRQEN (the write at this edge acts from the next).
        let en = self.irqen;
        let busy = self.busy;
        if busy {
            // This cycle's outputs (registers) and the handshakes at this edge.
            let bready = self.aw_done && self.w_done;
            if !self.aw_done && inp.awready {
                self.aw_done = true;
            }
            if !self.w_done && inp.wready {
                self.w_done = true;
            }
            if bready && inp.bvalid {
                // The response is accepted: BUSY falls; SLVERR or DECERR is an abort.
                self.busy = false;
                self.aw_done = false;
                self.w_done = false;
                if inp.bresp & 0b10 != 0 {
                    self.vals[self.status_slot] |= self.status_abt_mask;
                }
            }
        }
        // 10.5.2.21: ADDR == 0 sends no MSI.
        let msi_on = self.vals[self.cfg0_slot] & self.cfg0_addr_mask != 0;
        let want = self.msi_pending || (qualifying && msi_on);
        // A pending MSI is issued whatever IRQEN is now: its overflow qualified while IRQEN was 1
        // (10.5.2.7), so it is a prior MSI (10.5.2.19).
        let old_rule = self.fault == Some(PlantedFault::DropPendingMsi);
        if want && !busy && (en || !old_rule) {
            // Issue: the payload of this cycle, held while the MSI is outstanding. 10.6: NS =
            // SCR.NSMSI | SCR.NSRA with Secure state, else 1; AWPROT = {data, NS, privileged}.
            let ns = !self.secure
                || self.vals[self.scr_slot] & (self.scr_nsmsi_mask | self.scr_nsra_mask) != 0;
            self.awaddr = self.vals[self.cfg0_slot] & self.cfg0_addr_mask;
            self.awprot = (ns as u8) << 1 | 1;
            self.wdata = get(self.vals[self.cfg1_slot], self.cfg1_data);
            self.wstrb = 0xF;
            if self.msi_mpam {
                // CFGR.MPAM: GMPAM's PO_PARTID/PO_PMG, in the PARTID space of the MSI's target
                // (S_MPAMIDR.HAS_MPAM_NS = 0: SCR.MSI_MPAM_NS is RES0).
                let g = self.vals[self.gmpam_slot];
                self.msi_partid = get(g, self.gmpam_partid) as u16;
                self.msi_pmg = get(g, self.gmpam_pmg) as u8;
                self.msi_mpam_ns = ns;
            }
            self.busy = true;
            self.aw_done = false;
            self.w_done = false;
            self.msi_pending = false;
        } else {
            // Pending until issued (only a reset drops it).
            self.msi_pending = want && (en || !old_rule);
        }
    }
}

impl Dut for Model {
    fn step(&mut self, inp: &PinInputs) -> PinOutputs {
        // Every output is a function of registers only: PREADY = 0 in a read's first access
        // cycle (PRDATA 0), PREADY = 1 and PRDATA = the read's value in its second; PSLVERR = 0.
        // A payload output is 0 outside its VALID (docs/behaviour.md "MSI write master").
        let awvalid = self.busy && !self.aw_done;
        let wvalid = self.busy && !self.w_done;
        let out = PinOutputs {
            prdata: self.prdata(),
            pready: self.pready(),
            pslverr: false,
            irq: self.irq,
            awvalid,
            awaddr: if awvalid { self.awaddr } else { 0 },
            awprot: if awvalid { self.awprot } else { 0 },
            msi_partid: if awvalid { self.msi_partid } else { 0 },
            msi_pmg: if awvalid { self.msi_pmg } else { 0 },
            msi_mpam_ns: awvalid && self.msi_mpam_ns,
            wvalid,
            wdata: if wvalid { self.wdata } else { 0 },
            wstrb: if wvalid { self.wstrb } else { 0 },
            bready: self.busy && self.aw_done && self.w_done,
            msi_memattr: self.msi_sideband(self.cfg2_memattr),
            msi_sh: self.msi_sideband(self.cfg2_sh),
            capt_ack: self.capt_ack,
            ovf_export: self.ovf_export,
        };
        // The APB completer's filter-write wait (it sees PRESETn live, like its setup register).
        let fw_wait = inp.presetn
            && (self.filter_write_access() || (self.fw_wait && self.decode_pending.is_some()));
        if self.rst_q {
            self.reset(); // registered synchronous reset: nothing else happens at this edge
        } else {
            self.edge(inp);
        }
        self.fw_wait = fw_wait;
        // The setup register samples every cycle PRESETn is high; the reset register every cycle.
        // A transfer to the EVCNTR or SVR region is held for COUNTER_HOLD_CYCLES wait states
        // first; its access cycle is then the cycle after the last (APB4 keeps the bus stable),
        // unless PRESETn is low in that last cycle (then it is dropped, like a setup).
        let setup = (inp.presetn && inp.psel && !inp.penable).then_some(Setup {
            write: inp.pwrite,
            // The decoded window only (docs/behaviour.md "Addresses"): an alias is the address.
            paddr: inp.paddr & self.map.addr_mask(),
            pwdata: inp.pwdata,
            pstrb: inp.pstrb,
            pprot: inp.pprot,
            pnse: inp.pnse,
        });
        self.setup = None;
        self.hold = match self.hold {
            _ if !inp.presetn => None,
            Some((h, 1)) => {
                self.setup = Some(h);
                None
            }
            Some((h, left)) => Some((h, left - 1)),
            None => None,
        };
        if let Some(r) = setup {
            if self.map.held_access(r.paddr) {
                self.hold = Some((r, COUNTER_HOLD_CYCLES));
            } else {
                self.setup = Some(r);
            }
        }
        self.rst_q = !inp.presetn;
        out
    }

    fn name(&self) -> &'static str {
        "model"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::axi::{MsiResponder, RESP_DECERR, RESP_OKAY, RESP_SLVERR};
    use crate::pins::{Access, Driver};
    use pmcg_hdl::regmap::offset;

    const S: Access = Access::Secure;
    const NS: Access = Access::NonSecure;

    fn cfg(items: &[&str]) -> PmcgConfig {
        PmcgConfig::parse_kv(items.iter().copied()).unwrap()
    }

    fn drv(cfg: &PmcgConfig) -> Driver<Model> {
        Driver::new(Model::new(cfg), cfg.lanes as usize)
    }

    fn addr(d: &Driver<Model>, id: RegId) -> u32 {
        d.dut.map().reg(id).addr
    }

    fn wr(d: &mut Driver<Model>, id: RegId, v: u32) {
        let a = addr(d, id);
        d.apb_write(a, v, S);
    }

    fn wr64(d: &mut Driver<Model>, id: RegId, v: u64) {
        let a = addr(d, id);
        d.apb_write64(a, v, S);
    }

    fn rd(d: &mut Driver<Model>, id: RegId) -> u32 {
        let a = addr(d, id);
        d.apb_read(a, S)
    }

    fn rd64(d: &mut Driver<Model>, id: RegId) -> u64 {
        let a = addr(d, id);
        d.apb_read64(a, S)
    }

    fn lane(valid: bool, events: u32) -> LaneIn {
        LaneIn {
            valid,
            events,
            ..LaneIn::default()
        }
    }

    /// One idle cycle; returns its outputs.
    fn tick(d: &mut Driver<Model>) -> PinOutputs {
        let n = d.dut.lanes;
        d.step_with(PinInputs::idle(n))
    }

    #[test]
    fn name_and_address_decode_agree_with_the_map() {
        for c in [
            PmcgConfig::default(),
            cfg(&[
                "counters=5",
                "counter_bits=32",
                "reloc_ctrs=off",
                "msi=off",
                "secure=off",
            ]),
            cfg(&[
                "counters=3",
                "counter_bits=36",
                "page1_offset=0x2000",
                "sid_filter=global",
            ]),
        ] {
            let m = Model::new(&c);
            assert_eq!(m.name(), "model");
            // (The model decodes the window: a setup's address is masked first.)
            for a in (0..0x2_1000u32).step_by(4) {
                let ours = m
                    .by_addr
                    .get(&(a & m.map().addr_mask()))
                    .map(|&(s, w)| (m.map().regs[s].id, w));
                let map = m.map().lookup(a).map(|(r, w)| (r.id, w));
                assert_eq!(ours, map, "address {a:#x}");
            }
        }
    }

    #[test]
    fn reset_values_from_the_spec() {
        // Default: 64 counters x 64 bits, RELOC_CTRS, MSI, CAPTURE, per-counter filter.
        let mut d = drv(&PmcgConfig::default());
        // 10.5.2.13 CFGR: NCTR = 63, SIZE = 63 << 8, RELOC_CTRS bit 20, MSI bit 21, CAPTURE bit 22.
        assert_eq!(
            d.apb_read(0xE00, S),
            0x0070_3F3F,
            "CFGR at spec offset 0xE00"
        );
        // 10.5.2.12 SCR: READS_AS_ONE (31) = 1, NSMSI (2) = 1, NSRA (1) = 1, SO = 0.
        assert_eq!(d.apb_read(0xDF8, S), 0x8000_0006);
        assert_eq!(rd(&mut d, RegId::Cr), 0);
        assert_eq!(rd(&mut d, RegId::IrqCtrl), 0);
        assert_eq!(rd(&mut d, RegId::IrqCtrlAck), 0);
        // 10.5.2.26 AIDR: SMMUv3.3 PMCG = 0x03.
        assert_eq!(rd(&mut d, RegId::Aidr), 0x03);
        // 10.5.2.29: PMDEVARCH = 0x23B << 21 | PRESENT << 20 | 0x2A56, PMDEVTYPE = 5 << 4 | 6.
        assert_eq!(d.apb_read(0xFBC, S), 0x4770_2A56);
        assert_eq!(d.apb_read(0xFCC, S), 0x56);
        assert_eq!(d.apb_read(0xFF4, S), 0x90, "CIDR1");
        // 10.5.2.16 CEID0: events 0 (cycles) and 1-5 (mandatory) → bits 0-5.
        assert_eq!(rd64(&mut d, RegId::Ceid0), 0x3F);
        assert_eq!(rd64(&mut d, RegId::Ceid1), 0);
        assert_eq!(d.dut.read_reg(RegId::Cfgr), 0x0070_3F3F);
        assert_eq!(d.dut.read_reg(RegId::CntenSet0), 0);

        // 8 counters x 32 bits, no page 1, global filter: NCTR 7, SIZE 31, SID_FILTER_TYPE bit 23.
        let c = cfg(&[
            "counters=8",
            "counter_bits=32",
            "reloc_ctrs=off",
            "msi=off",
            "capture=off",
            "secure=off",
            "sid_filter=global",
        ]);
        let mut d = drv(&c);
        assert_eq!(d.apb_read(0xE00, S), 0x0080_1F07);
        // With ATS: CEID0 bits 0-7. CEID1 covers events 64-127 (10.5.2.17), so the
        // IMPLEMENTATION DEFINED events 0x80 and 0x91 appear in neither.
        let mut d = drv(&cfg(&["ats=on", "impdef=0x80,0x91"]));
        assert_eq!(rd64(&mut d, RegId::Ceid0), 0xFF);
        assert_eq!(rd64(&mut d, RegId::Ceid1), 0);
        // Absent registers read 0 through the direct API too.
        assert_eq!(Model::new(&c).read_reg(RegId::Scr), 0);
    }

    #[test]
    fn bitmap_set_and_clear_views_share_one_storage() {
        let mut d = drv(&cfg(&["counters=40"]));
        let (set, clr) = (addr(&d, RegId::CntenSet0), addr(&d, RegId::CntenClr0));
        d.apb_write(set, 0x0000_000B, S);
        assert_eq!(d.apb_read(clr, S), 0xB);
        // High word: only counters 32-39 exist, bits above NCTR are RES0.
        d.apb_write(set + 4, 0xFFFF_FFFF, S);
        assert_eq!(d.apb_read(clr + 4, S), 0xFF);
        d.apb_write(clr, 0x2, S); // W1C
        assert_eq!(d.apb_read(set, S), 0x9);
        assert_eq!(d.dut.read_reg(RegId::CntenSet0), 0xFF_0000_0009);
        assert_eq!(d.dut.read_reg(RegId::CntenClr0), 0xFF_0000_0009);
        // Writing 0 bits through either view changes nothing.
        d.apb_write(set, 0, S);
        d.apb_write(clr, 0, S);
        assert_eq!(d.dut.read_reg(RegId::CntenSet0), 0xFF_0000_0009);

        wr(&mut d, RegId::IntenSet0, 0x30);
        assert_eq!(rd(&mut d, RegId::IntenClr0), 0x30);
        wr(&mut d, RegId::IntenClr0, 0x10);
        assert_eq!(rd(&mut d, RegId::IntenSet0), 0x20);

        wr(&mut d, RegId::OvsSet0, 0x5);
        assert_eq!(rd(&mut d, RegId::OvsClr0), 0x5);
        assert_eq!(d.dut.ovs(), 0x5);
        wr(&mut d, RegId::OvsClr0, 0x1);
        assert_eq!(d.dut.ovs(), 0x4);
        assert_eq!(
            d.dut.read_reg(RegId::CntenSet0),
            0xFF_0000_0009,
            "storages are separate"
        );
    }

    #[test]
    fn cycle_event_and_lane_events_with_several_lanes() {
        let c = cfg(&["counters=5", "counter_bits=32", "lanes=3"]);
        let mut d = drv(&c);
        // Lane bits: 0 = event 1, 1 = event 2, 2 = event 3 (10.3 mandatory events in order).
        for (n, ev) in [(0, 0), (1, 1), (2, 3), (3, 2), (4, 0x80)] {
            wr(&mut d, RegId::Evtyper(n), ev); // 0x80 is unsupported here: counts nothing
        }
        wr(&mut d, RegId::CntenSet0, 0x1F);
        start(&mut d); // cycle counting from the next edge
        let base: Vec<u64> = (0..5).map(|n| d.dut.counter(n)).collect();
        assert_eq!(base[1..], [0, 0, 0, 0], "no lane events yet");
        d.set_lanes(&[lane(true, 0b101), lane(true, 0b011), lane(false, 0b111)]);
        d.idle(10); // presented in 10 cycles: 9 counted so far, the 10th at the next edge
        d.clear_lanes();
        d.idle(10);
        // Per edge: event 1 on lanes 0 and 1 (2), event 3 on lane 0 (1), event 2 on lane 1 (1);
        // lane 2 is not valid and contributes nothing.
        assert_eq!(d.dut.counter(1), 20);
        assert_eq!(d.dut.counter(2), 10);
        assert_eq!(d.dut.counter(3), 10);
        assert_eq!(d.dut.counter(4), 0);
        assert_eq!(
            d.dut.counter(0) - base[0],
            20,
            "event 0: one per edge, whatever the lanes"
        );
    }

    #[test]
    fn ats_and_impdef_lane_bits() {
        let mut d = drv(&cfg(&[
            "counters=3",
            "counter_bits=32",
            "ats=on",
            "impdef=0x80,0x91",
        ]));
        // Lane bits: 0-4 events 1-5, 5-6 events 6-7, 7 = 0x80, 8 = 0x91.
        wr(&mut d, RegId::Evtyper(0), 0x91);
        wr(&mut d, RegId::Evtyper(1), 6);
        wr(&mut d, RegId::Evtyper(2), 0x80);
        wr(&mut d, RegId::CntenSet0, 0x7);
        wr(&mut d, RegId::Cr, 1);
        d.set_lanes(&[lane(true, 1 << 8 | 1 << 5)]);
        d.idle(4);
        d.clear_lanes();
        d.idle(2);
        assert_eq!(
            (d.dut.counter(0), d.dut.counter(1), d.dut.counter(2)),
            (4, 4, 0)
        );

        // Without ATS, event 6 is unsupported: nothing counts even with lane bit 5 set.
        let mut d = drv(&cfg(&["counters=1", "counter_bits=32"]));
        wr(&mut d, RegId::Evtyper(0), 6);
        wr(&mut d, RegId::CntenSet0, 1);
        wr(&mut d, RegId::Cr, 1);
        d.set_lanes(&[lane(true, u32::MAX)]);
        d.idle(5);
        assert_eq!(d.dut.counter(0), 0);
    }

    #[test]
    fn lane_event_to_count_latency_is_three_cycles() {
        let setup = || {
            let mut d = drv(&cfg(&["counters=1", "counter_bits=32"]));
            wr(&mut d, RegId::Evtyper(0), 1);
            wr(&mut d, RegId::CntenSet0, 1);
            wr(&mut d, RegId::Cr, 1);
            d
        };
        let mut d = setup();
        d.set_lanes(&[lane(true, 1)]);
        d.idle(1); // cycle e: registered at edge e
        d.clear_lanes();
        assert_eq!(d.dut.counter(0), 0);
        d.idle(1); // edge e+1: matched into the match register
        assert_eq!(d.dut.counter(0), 0);
        d.idle(1); // edge e+2 counts it
        assert_eq!(d.dut.counter(0), 1);
        d.idle(3);
        assert_eq!(d.dut.counter(0), 1);

        // A read whose (first) access cycle is e+2 does not see it; one whose access cycle is e+3
        // does. EVCNTR is held: setup in cycle c, COUNTER_HOLD_CYCLES wait states c+1.., the
        // access cycle after them. The value is that of the access cycle (a wait state too,
        // PREADY = 0, PRDATA = 0) and appears on PRDATA in the next (PREADY = 1), whatever the
        // later edges count.
        let hold = COUNTER_HOLD_CYCLES as u64;
        for (access, want) in [(2u64, 0u32), (3, 1)] {
            let mut d = setup();
            let a = addr(&d, RegId::Evcntr(0));
            let mut bus = PinInputs::idle(1);
            (bus.psel, bus.paddr) = (true, a);
            d.step_with(bus.clone()); // the read's setup, cycle c
            bus.penable = true;
            // The access cycle is c + hold + 1 = e + access.
            let e = hold + 1 - access;
            for k in 1..=hold {
                if k == e {
                    d.set_lanes(&[lane(true, 1)]);
                }
                let o = d.step_with(bus.clone());
                d.clear_lanes();
                assert_eq!((o.pready, o.prdata), (false, 0), "wait state c+{k}");
            }
            let wait = d.step_with(bus.clone()); // the access cycle: the read is performed
            assert_eq!(
                (wait.pready, wait.prdata),
                (false, 0),
                "access cycle e+{access}"
            );
            assert_eq!(d.dut.counter(0), 1);
            let done = d.step_with(bus);
            assert_eq!(
                (done.pready, done.prdata),
                (true, want),
                "access cycle e+{access}"
            );
        }
    }

    #[test]
    fn cr_e_and_cnten_gate_with_the_documented_edge_timing() {
        // docs/behaviour.md: at edge t a cycle counter adds 1 when it was enabled (CR.E and
        // CNTEN[n]) in cycle t-1; a write takes effect at its access edge, so it gates cycle
        // counting from the second edge after it.
        let mut d = drv(&cfg(&["counters=2", "counter_bits=32"]));
        // EVTYPER resets to 0: both counters count cycles when enabled; only counter 0 is.
        wr(&mut d, RegId::CntenSet0, 1);
        assert_eq!(d.dut.counter(0), 0, "CR.E = 0: nothing counts");
        wr(&mut d, RegId::Cr, 1); // access edge a: CR.E = 1 from cycle a+1
        assert_eq!(d.dut.counter(0), 0);
        d.idle(1); // edge a+1: CR.E was 0 in cycle a
        assert_eq!(d.dut.counter(0), 0);
        d.idle(4); // edges a+2 ..= a+5
        assert_eq!(d.dut.counter(0), 4);
        wr(&mut d, RegId::Cr, 0); // its setup and access edges still count (E = 1 before both)
        assert_eq!(d.dut.counter(0), 6);
        d.idle(3); // the edge after the access edge counts (E = 1 in the access cycle)
        assert_eq!(d.dut.counter(0), 7);
        wr(&mut d, RegId::Cr, 1); // setup and access edges: E = 0 before both
        assert_eq!(d.dut.counter(0), 7);
        d.idle(2); // the first edge after: E = 0 in the access cycle; the second counts
        assert_eq!(d.dut.counter(0), 8);
        wr(&mut d, RegId::CntenClr0, 1);
        assert_eq!(d.dut.counter(0), 10);
        d.idle(3); // CNTEN[0] = 1 in the access cycle: one more edge
        assert_eq!(d.dut.counter(0), 11);
        wr(&mut d, RegId::CntenSet0, 1); // CNTEN = 0 before its setup and access edges
        assert_eq!(d.dut.counter(0), 11);
        d.idle(1); // CNTEN = 0 in the access cycle: this edge does not count
        assert_eq!(d.dut.counter(0), 11);
        d.idle(1);
        assert_eq!(d.dut.counter(0), 12);
        assert_eq!(d.dut.counter(1), 0, "CNTEN[1] = 0");
    }

    #[test]
    fn evtyper_change_takes_effect_two_edges_after_the_write() {
        let mut d = drv(&cfg(&["counters=1", "counter_bits=32"]));
        wr(&mut d, RegId::CntenSet0, 1);
        wr(&mut d, RegId::Cr, 1);
        // Unsupported: decoded at the next edge, which still counts a cycle; nothing after.
        // (Cycle counting starts at the second edge after the CR write: the EVTYPER write's
        // access edge.)
        wr(&mut d, RegId::Evtyper(0), 0x80);
        assert_eq!(d.dut.counter(0), 1);
        d.idle(1);
        assert_eq!(d.dut.counter(0), 2);
        d.idle(5);
        assert_eq!(d.dut.counter(0), 2);
    }

    #[test]
    fn overflow_at_32_bits_wraps_and_sets_ovs() {
        let mut d = drv(&cfg(&["counters=1", "counter_bits=32"]));
        wr(&mut d, RegId::Evcntr(0), 0xFFFF_FFFE);
        wr(&mut d, RegId::CntenSet0, 1);
        start(&mut d); // CR.E = 1 and one more edge: cycle counting from the next
        assert_eq!((d.dut.counter(0), d.dut.ovs()), (0xFFFF_FFFE, 0));
        d.idle(1);
        assert_eq!((d.dut.counter(0), d.dut.ovs()), (0xFFFF_FFFF, 0));
        d.idle(1);
        assert_eq!(
            (d.dut.counter(0), d.dut.ovs()),
            (0, 1),
            "10.2.1: wraps, OVS set"
        );
        d.idle(1);
        assert_eq!(
            (d.dut.counter(0), d.dut.ovs()),
            (1, 1),
            "counting continues"
        );
        assert_eq!(rd(&mut d, RegId::OvsClr0), 1);
    }

    #[test]
    fn overflow_at_36_and_64_bits() {
        let mut d = drv(&cfg(&["counters=1", "counter_bits=36", "lanes=2"]));
        let a = addr(&d, RegId::Evcntr(0));
        d.apb_write(a + 4, 0xFFFF_FFFF, S);
        assert_eq!(d.apb_read(a + 4, S), 0xF, "bits [63:36] are RES0");
        wr64(&mut d, RegId::Evcntr(0), 0xF_FFFF_FFFD);
        assert_eq!(rd64(&mut d, RegId::Evcntr(0)), 0xF_FFFF_FFFD);
        wr(&mut d, RegId::Evtyper(0), 1);
        d.set_lanes(&[lane(true, 1), lane(true, 1)]);
        wr(&mut d, RegId::CntenSet0, 1);
        wr(&mut d, RegId::Cr, 1);
        assert_eq!(d.dut.counter(0), 0xF_FFFF_FFFD);
        d.idle(1); // the first enabled cycle's match is registered
        assert_eq!(d.dut.counter(0), 0xF_FFFF_FFFD);
        d.idle(1); // +2 per edge
        assert_eq!((d.dut.counter(0), d.dut.ovs()), (0xF_FFFF_FFFF, 0));
        d.idle(1); // 0xF_FFFF_FFFF + 2 = 2^36 + 1 → wraps to 1
        assert_eq!((d.dut.counter(0), d.dut.ovs()), (1, 1));
        d.idle(1);
        assert_eq!(d.dut.counter(0), 3);

        let mut d = drv(&cfg(&["counters=1"]));
        wr64(&mut d, RegId::Evcntr(0), u64::MAX);
        wr(&mut d, RegId::CntenSet0, 1);
        start(&mut d);
        d.idle(1);
        assert_eq!((d.dut.counter(0), d.dut.ovs()), (0, 1));
    }

    #[test]
    fn counter_write_while_counting() {
        let mut d = drv(&cfg(&["counters=1", "counter_bits=32"]));
        wr(&mut d, RegId::CntenSet0, 1);
        wr(&mut d, RegId::Cr, 1);
        d.idle(7);
        wr(&mut d, RegId::Evcntr(0), 100); // replaces the value; that edge's count is dropped
        assert_eq!(d.dut.counter(0), 100);
        d.idle(3);
        assert_eq!(d.dut.counter(0), 103);
        // The write's access edge would have overflowed 0xFFFF_FFFF; the write wins, no OVS.
        // Written at edge a; the next write's setup is cycle a+1, its access edge
        // a + 2 + COUNTER_HOLD_CYCLES, and the value before it is 0xFFFF_FFFF.
        wr(&mut d, RegId::Evcntr(0), 0xFFFF_FFFE - COUNTER_HOLD_CYCLES);
        wr(&mut d, RegId::Evcntr(0), 5);
        assert_eq!((d.dut.counter(0), d.dut.ovs()), (5, 0));
        // A written value at the top is not an overflow; counting past it is.
        wr(&mut d, RegId::Evcntr(0), 0xFFFF_FFFF);
        assert_eq!(d.dut.ovs(), 0);
        d.idle(1);
        assert_eq!((d.dut.counter(0), d.dut.ovs()), (0, 1));
    }

    #[test]
    fn counter_write_per_pstrb_on_a_64_bit_counter() {
        let mut d = drv(&cfg(&["counters=1"]));
        let a = addr(&d, RegId::Evcntr(0));
        wr64(&mut d, RegId::Evcntr(0), 0x1234_5678_9ABC_DEF0);
        d.apb_write_strb(a, 0x0000_AB00, 0b0010, S);
        assert_eq!(d.dut.counter(0), 0x1234_5678_9ABC_ABF0);
        d.apb_write_strb(a + 4, 0xCD00_0000, 0b1000, S);
        assert_eq!(d.dut.counter(0), 0xCD34_5678_9ABC_ABF0);
        d.apb_write_strb(a + 4, 0xFFFF_FFFF, 0, S);
        assert_eq!(d.dut.counter(0), 0xCD34_5678_9ABC_ABF0);
    }

    #[test]
    fn split_64_bit_write_to_a_running_counter_keeps_every_count() {
        // A counter counting cycles (EVTYPER = 0: +1 per edge); write64 is a low write at edge
        // t1 and a high write at t2 = t1 + gap (the high write's setup is cycle t1 + 1, then its
        // held wait states and its access cycle). The pair behaves as V written at t1, counted
        // at t1+1 .. t2: V + gap after t2, whatever carries happen between the halves.
        let gap = 2 + COUNTER_HOLD_CYCLES as u64;
        for bits in [36u32, 40, 44, 48, 64] {
            let c = cfg(&["counters=2", &format!("counter_bits={bits}")]);
            let m = c.counter_mask();
            let low_at = |low: u64| ((1u64 << 32) | low) & m;
            // Low words that carry into the high word between the halves, at t2 (not between:
            // the high write's edge counts normally) and long after.
            let values = [
                m >> 1,
                (m >> 1) - 1,
                low_at((1 << 32) - gap + 1),
                low_at((1 << 32) - gap),
                0xFFFF_FFFF - gap,
                m - gap - 3,
            ];
            for v in values {
                for fault in [None, Some(PlantedFault::DropPairCarry)] {
                    let mut d = drv(&c);
                    if let Some(f) = fault {
                        d.dut.plant_fault(f);
                    }
                    wr(&mut d, RegId::CntenSet0, 1);
                    wr(&mut d, RegId::Cr, 1);
                    wr64(&mut d, RegId::Evcntr(0), v);
                    let want = (v + gap) & m;
                    // Counted at edges t1+1 .. t2-1 before the high write takes its base.
                    let carried_between = (v & 0xFFFF_FFFF) + gap > 1 << 32;
                    let got = d.dut.counter(0);
                    if fault.is_none() || !carried_between {
                        assert_eq!(got, want, "{bits} bits, V = {v:#x}, {fault:?}");
                    } else {
                        assert_eq!(got, want.wrapping_sub(1 << 32) & m, "the planted fault");
                    }
                    assert_eq!(d.dut.ovs(), 0, "{bits} bits, V = {v:#x}");
                }
            }
        }
    }

    #[test]
    fn split_64_bit_read_uses_the_snapshot_only_right_after_the_low_word() {
        let mut d = drv(&cfg(&["counters=2"]));
        let a = addr(&d, RegId::Evcntr(0));
        let h = COUNTER_HOLD_CYCLES as u64;
        let start = || 0x0000_0000_FFFF_FFFEu64 - h;
        wr64(&mut d, RegId::Evcntr(0), start());
        wr64(&mut d, RegId::Evcntr(1), 0x7_0000_0000);
        wr(&mut d, RegId::CntenSet0, 1);
        wr(&mut d, RegId::Cr, 1);
        tick(&mut d);
        // CR = 1 at edge w-1, then an idle cycle w: cycle counting from edge w+1 (the second
        // after the write's). The low read (setup w+1, held h cycles) is
        // performed in its access cycle w+2+h and sees start + h + 1 = 0xFFFF_FFFF; the counter
        // carries into the high word at that edge. The high read (setup w+4+h, performed
        // w+5+2h) returns the snapshot; the pair ends at edge w+6+2h.
        assert_eq!(
            d.apb_read64(a, S),
            0x0000_0000_FFFF_FFFF,
            "a value the counter had"
        );
        assert_eq!(d.dut.counter(0), start() + 6 + 2 * h);
        assert_eq!(d.apb_read(a + 4, S), 1, "high word alone: live");

        // Another transfer between the low and the high reads ends the snapshot.
        let restart = |d: &mut Driver<Model>| {
            wr(d, RegId::Cr, 0);
            wr64(d, RegId::Evcntr(0), start());
            wr(d, RegId::Cr, 1);
            tick(d); // cycle counting from the next edge
        };
        restart(&mut d);
        assert_eq!(d.apb_read(a, S), 0xFFFF_FFFF);
        assert_eq!(rd(&mut d, RegId::Cr), 1);
        assert_eq!(d.apb_read(a + 4, S), 1);
        restart(&mut d);
        assert_eq!(d.apb_read(a, S), 0xFFFF_FFFF);
        wr(&mut d, RegId::IntenSet0, 0);
        assert_eq!(d.apb_read(a + 4, S), 1);
        // The snapshot belongs to one register.
        restart(&mut d);
        assert_eq!(d.apb_read(a, S), 0xFFFF_FFFF);
        let a1 = addr(&d, RegId::Evcntr(1));
        assert_eq!(d.apb_read(a1 + 4, S), 7);
        // A refused (Non-secure, NSRA = 0) low read takes no snapshot and ends the current one.
        wr(&mut d, RegId::Scr, 0);
        restart(&mut d);
        assert_eq!(d.apb_read(a, S), 0xFFFF_FFFF);
        assert_eq!(d.apb_read(a, NS), 0);
        assert_eq!(d.apb_read(a + 4, S), 1);
        assert_eq!(d.apb_read64(a, NS), 0);
    }

    #[test]
    fn nsra_zero_makes_non_secure_accesses_raz_wi() {
        let mut d = drv(&PmcgConfig::default());
        let (cfgr, cr, scr) = (
            addr(&d, RegId::Cfgr),
            addr(&d, RegId::Cr),
            addr(&d, RegId::Scr),
        );
        assert_eq!(d.apb_read(cfgr, NS), 0x0070_3F3F, "NSRA resets to 1");
        assert_eq!(d.apb_read(scr, NS), 0, "SCR is Secure-only");
        d.apb_write(scr, 0, NS);
        assert_eq!(
            d.apb_read(scr, S),
            0x8000_0006,
            "Non-secure SCR write ignored"
        );
        d.apb_write(scr, 0, S); // NSRA = 0 (READS_AS_ONE is RO)
        assert_eq!(d.apb_read(scr, S), 0x8000_0000);
        assert_eq!(d.apb_read(cfgr, NS), 0);
        let (rdata, err) = d.apb_read_full(cfgr, NS);
        assert_eq!((rdata, err), (0, false), "PSLVERR policy: never an error");
        d.apb_write(cr, 1, NS);
        assert_eq!(d.apb_read(cr, S), 0);
        let cnten = addr(&d, RegId::CntenSet0);
        d.apb_write(cnten, 0xF, NS);
        assert_eq!(d.dut.read_reg(RegId::CntenSet0), 0);
        d.apb_write(cr, 1, S);
        assert_eq!(d.apb_read(cr, S), 1, "Secure accesses always work");
        d.apb_write(scr, 0x2, S); // NSRA = 1
        assert_eq!(d.apb_read(cr, NS), 1);
        d.apb_write(cr, 0, NS);
        assert_eq!(d.apb_read(cr, S), 0);

        // Without Secure state: no security rule, SCR absent.
        let mut d = drv(&cfg(&["secure=off"]));
        assert_eq!(d.apb_read(scr, S), 0);
        assert_eq!(d.apb_read(scr, NS), 0);
        d.apb_write(cr, 1, NS);
        assert_eq!(d.apb_read(cr, S), 1);
        // 10.5.2.2: FILTER_SEC_SID is RES0 without Secure state; SID_SPAN 29, OVFCAP 31 remain.
        wr(&mut d, RegId::Evtyper(0), 0xFFFF_FFFF);
        assert_eq!(rd(&mut d, RegId::Evtyper(0)), 0xA000_FFFF);
    }

    #[test]
    fn pstrb_partial_writes() {
        let mut d = drv(&PmcgConfig::default());
        let cfg1 = addr(&d, RegId::IrqCfg1);
        d.apb_write(cfg1, 0x1122_3344, S);
        d.apb_write_strb(cfg1, 0xAABB_CCDD, 0b0101, S);
        assert_eq!(
            d.apb_read(cfg1, S),
            0x11BB_33DD,
            "RW: unstrobed bytes keep their value"
        );
        let (set, clr) = (addr(&d, RegId::CntenSet0), addr(&d, RegId::CntenClr0));
        d.apb_write_strb(set, 0xFFFF_FFFF, 0b0010, S);
        assert_eq!(
            d.apb_read(set, S),
            0x0000_FF00,
            "W1S: unstrobed bytes count as 0"
        );
        d.apb_write(set, 0xFFFF_FFFF, S);
        d.apb_write_strb(clr, 0xFFFF_FFFF, 0b0001, S);
        assert_eq!(
            d.apb_read(set, S),
            0xFFFF_FF00,
            "W1C: unstrobed bytes count as 0"
        );
        let cr = addr(&d, RegId::Cr);
        d.apb_write_strb(cr, 1, 0b1110, S);
        assert_eq!(d.apb_read(cr, S), 0);
        d.apb_write_strb(cr, 1, 0b0001, S);
        assert_eq!(d.apb_read(cr, S), 1);
    }

    #[test]
    fn unmapped_and_relocated_addresses() {
        let mut d = drv(&PmcgConfig::default());
        // Page 0 counter locations are RES0 with RELOC_CTRS (10.5.1); EVCNTR0 is in page 1.
        d.apb_write(0x0000, 0x1234, S);
        assert_eq!(d.dut.counter(0), 0);
        assert_eq!(d.apb_read(0x0008, S), 0);
        d.apb_write(0x1_0000, 0x1234, S);
        assert_eq!(d.dut.counter(0), 0x1234);
        assert_eq!(d.apb_read(0x1_0000, S), 0x1234);
        assert_eq!(
            d.apb_read(0x1_0008, S),
            0,
            "EVCNTR1 at page 1 + 8 (8-byte stride)"
        );
        assert_eq!(d.apb_read(0xE80, S), 0, "IMPLEMENTATION DEFINED space: RAZ");
        assert_eq!(d.apb_read(0x1_0E00, S), 0, "CFGR is not relocated");
        // The decoded window is 0x2_0000 (page 1 at 0x1_0000 + 4 KiB, rounded up): above it the
        // window repeats (docs/behaviour.md "Addresses").
        assert_eq!(d.apb_read(0x2_0000, S), 0, "an alias of 0x0 (RES0 here)");
        assert_eq!(
            d.apb_read_full(0x3_0000, S),
            (0x1234, false),
            "an alias of EVCNTR0"
        );
        assert_eq!(d.apb_read_full(0x8001_0000, S), (0x1234, false));
        assert_eq!(
            d.apb_read(0x2_1000, S),
            0,
            "an alias of 0x1000, between the pages: RAZ"
        );
        assert_eq!(d.apb_read(0xE03, S), 0x0070_3F3F, "PADDR[1:0] ignored");
        d.apb_write(0xE80, 0xFFFF_FFFF, S);
        assert_eq!(d.apb_read(0xE80, S), 0);

        let mut d = drv(&cfg(&["reloc_ctrs=off"]));
        d.apb_write(0x0008, 0x55, S);
        assert_eq!(d.dut.counter(1), 0x55);
        assert_eq!(d.apb_read(0x1_0008, S), 0);

        let mut d = drv(&cfg(&["page1_offset=0x2000"]));
        d.apb_write(0x2008, 0x66, S);
        assert_eq!(d.dut.counter(1), 0x66);
        d.apb_write(0x2CC0, 0x3, S); // OVSSET0 in page 1
        assert_eq!(d.dut.ovs(), 0x3);
    }

    #[test]
    fn a_32_bit_counter_register_is_one_word() {
        let mut d = drv(&cfg(&["counters=2", "counter_bits=32"]));
        let a = addr(&d, RegId::Evcntr(0));
        assert_eq!(d.dut.map().reg(RegId::Evcntr(0)).bits, 32);
        d.apb_write(a + 4, 7, S); // 4-byte stride: this is EVCNTR1
        assert_eq!((d.dut.counter(0), d.dut.counter(1)), (0, 7));
        d.apb_write(a, 0xFFFF_FFFF, S);
        assert_eq!(d.apb_read(a, S), 0xFFFF_FFFF);
    }

    #[test]
    fn overflow_beats_a_same_edge_ovsclr0_write() {
        let run = |start: u32| {
            let mut d = drv(&cfg(&["counters=1", "counter_bits=32"]));
            wr(&mut d, RegId::Evcntr(0), start);
            wr(&mut d, RegId::CntenSet0, 1);
            wr(&mut d, RegId::OvsSet0, 1);
            wr(&mut d, RegId::Cr, 1); // access edge w: counter = start
                                      // Setup edge w+1: CR.E was 0 in cycle w, no count; access edge w+2: +1.
            wr(&mut d, RegId::OvsClr0, 1);
            (d.dut.counter(0), d.dut.ovs())
        };
        assert_eq!(
            run(0xFFFF_FFFF),
            (0, 1),
            "overflow at the OVSCLR0 edge keeps OVS set"
        );
        assert_eq!(
            run(0xFFFF_FFF0),
            (0xFFFF_FFF1, 0),
            "no overflow: OVSCLR0 clears"
        );
    }

    #[test]
    fn irq_pulse_needs_inten_and_irqen() {
        for (inten, irqen) in [(false, false), (false, true), (true, false), (true, true)] {
            let mut d = drv(&cfg(&["counters=2", "counter_bits=32"]));
            wr(&mut d, RegId::Evcntr(0), 0xFFFF_FFFE);
            wr(&mut d, RegId::CntenSet0, 1);
            if inten {
                wr(&mut d, RegId::IntenSet0, 1);
            }
            if irqen {
                wr(&mut d, RegId::IrqCtrl, 1);
            }
            start(&mut d); // w: cycle counting from edge w+1
            let expect = inten && irqen;
            assert!(!tick(&mut d).irq); // cycle w+1, edge w+1: 0xFFFF_FFFF
            assert!(!tick(&mut d).irq); // cycle w+2, edge w+2: overflow
            assert!(!tick(&mut d).irq); // cycle w+3: the overflow is registered
            assert_eq!(
                tick(&mut d).irq,
                expect,
                "pulse in cycle w+4 ({inten}, {irqen})"
            );
            assert!(!tick(&mut d).irq, "exactly one cycle");
            assert_eq!(d.dut.ovs(), 1, "OVS is set whatever the enables");
            assert_eq!(d.irq_pulses, expect as u64);
            assert_eq!(d.dut.irq_pulses(), expect as u64);
        }
    }

    #[test]
    fn irq_pulse_per_overflow_edge_whatever_ovs_holds() {
        let mut d = drv(&cfg(&["counters=2", "counter_bits=32"]));
        wr(&mut d, RegId::Evcntr(0), 0xFFFF_FFFE);
        wr(&mut d, RegId::Evcntr(1), 0xFFFF_FFFE);
        wr(&mut d, RegId::CntenSet0, 0x3);
        wr(&mut d, RegId::IntenSet0, 0x3);
        wr(&mut d, RegId::IrqCtrl, 1);
        wr(&mut d, RegId::Cr, 1);
        d.idle(5);
        assert_eq!(
            (d.irq_pulses, d.dut.ovs()),
            (1, 0x3),
            "two overflows, one edge, one pulse"
        );
        wr(&mut d, RegId::Evcntr(0), 0xFFFF_FFFE); // OVS[0] still 1
        d.idle(5);
        assert_eq!(d.irq_pulses, 2);
        // A software OVSSET0 write raises no interrupt.
        wr(&mut d, RegId::OvsClr0, 0x3);
        wr(&mut d, RegId::OvsSet0, 0x3);
        d.idle(3);
        assert_eq!((d.irq_pulses, d.dut.ovs()), (2, 0x3));
        // IRQEN cleared: overflow sets OVS but no pulse.
        wr(&mut d, RegId::IrqCtrl, 0);
        wr(&mut d, RegId::OvsClr0, 0x3);
        wr(&mut d, RegId::Evcntr(1), 0xFFFF_FFFE);
        d.idle(5);
        assert_eq!((d.irq_pulses, d.dut.ovs()), (2, 0x2));
        assert_eq!(d.dut.irq_pulses(), 2);
    }

    #[test]
    fn irq_ctrlack_follows_and_guards_irq_cfg() {
        let mut d = drv(&PmcgConfig::default());
        wr(&mut d, RegId::IrqCfg1, 0xDEAD_BEEF);
        assert_eq!(rd(&mut d, RegId::IrqCfg1), 0xDEAD_BEEF);
        // 10.5.2.21 ADDR[55:2], stored up to pa_bits = 48: bits [47:2].
        wr64(&mut d, RegId::IrqCfg0, u64::MAX);
        assert_eq!(rd64(&mut d, RegId::IrqCfg0), 0x0000_FFFF_FFFF_FFFC);
        // 10.5.2.23: SH [5:4], MEMATTR [3:0].
        wr(&mut d, RegId::IrqCfg2, 0xFFFF_FFFF);
        assert_eq!(rd(&mut d, RegId::IrqCfg2), 0x3F);
        wr(&mut d, RegId::IrqCtrl, 1);
        assert_eq!(
            d.dut.read_reg(RegId::IrqCtrlAck),
            1,
            "ACK at the IRQ_CTRL write edge"
        );
        assert_eq!(rd(&mut d, RegId::IrqCtrlAck), 1);
        wr(&mut d, RegId::IrqCfg1, 0x1234);
        wr64(&mut d, RegId::IrqCfg0, 0);
        wr(&mut d, RegId::IrqCfg2, 0);
        assert_eq!(
            rd(&mut d, RegId::IrqCfg1),
            0xDEAD_BEEF,
            "Guarded while IRQEN = 1"
        );
        assert_eq!(rd64(&mut d, RegId::IrqCfg0), 0x0000_FFFF_FFFF_FFFC);
        assert_eq!(rd(&mut d, RegId::IrqCfg2), 0x3F);
        wr(&mut d, RegId::IrqCtrlAck, 0);
        assert_eq!(rd(&mut d, RegId::IrqCtrlAck), 1, "IRQ_CTRLACK is RO");
        wr(&mut d, RegId::IrqCtrl, 0);
        assert_eq!(rd(&mut d, RegId::IrqCtrlAck), 0);
        wr(&mut d, RegId::IrqCfg1, 0x1234);
        assert_eq!(rd(&mut d, RegId::IrqCfg1), 0x1234);
        assert_eq!(rd(&mut d, RegId::IrqStatus), 0);
    }

    #[test]
    fn register_fields_follow_the_map() {
        let mut d = drv(&PmcgConfig::default()); // sid_bits = 16, Secure, capture, per-counter
        wr(&mut d, RegId::Smr(3), 0xFFFF_FFFF);
        assert_eq!(
            rd(&mut d, RegId::Smr(3)),
            0xFFFF,
            "STREAMID above sid_bits RAZ/WI"
        );
        // EVENT [15:0], FILTER_SID_SPAN 29, FILTER_SEC_SID 30, OVFCAP 31.
        wr(&mut d, RegId::Evtyper(5), 0xFFFF_FFFF);
        assert_eq!(rd(&mut d, RegId::Evtyper(5)), 0xE000_FFFF);
        wr(&mut d, RegId::Cr, 0xFFFF_FFFF);
        assert_eq!(rd(&mut d, RegId::Cr), 1, "CR bits [31:1] RES0");
        wr(&mut d, RegId::Scr, 0xFFFF_FFFF);
        assert_eq!(rd(&mut d, RegId::Scr), 0x8000_0007);
        wr(&mut d, RegId::Cfgr, 0);
        assert_eq!(
            rd(&mut d, RegId::Cfgr),
            0x0070_3F3F,
            "writes to RO are ignored"
        );

        let mut d = drv(&cfg(&["sid_bits=32", "sid_filter=global", "capture=off"]));
        wr(&mut d, RegId::Smr(0), 0xFFFF_FFFF);
        assert_eq!(rd(&mut d, RegId::Smr(0)), 0xFFFF_FFFF);
        let smr1 = d.dut.map().array_base(RegId::Smr(0)) + 4;
        d.apb_write(smr1, 0xFFFF_FFFF, S);
        assert_eq!(
            d.apb_read(smr1, S),
            0,
            "SMR1 is RES0 with the global filter"
        );
        wr(&mut d, RegId::Evtyper(0), 0xFFFF_FFFF);
        wr(&mut d, RegId::Evtyper(1), 0xFFFF_FFFF);
        assert_eq!(rd(&mut d, RegId::Evtyper(0)), 0x6000_FFFF);
        assert_eq!(
            rd(&mut d, RegId::Evtyper(1)),
            0x0000_FFFF,
            "filter fields only in EVTYPER0"
        );
    }

    #[test]
    fn unimplemented_counter_registers_are_raz_wi() {
        let mut d = drv(&cfg(&["counters=4", "counter_bits=32"]));
        let evtyper4 = d.dut.map().array_base(RegId::Evtyper(0)) + 16;
        let evcntr4 = d.dut.map().array_base(RegId::Evcntr(0)) + 16;
        d.apb_write(evtyper4, 1, S);
        d.apb_write(evcntr4, 0x99, S);
        assert_eq!((d.apb_read(evtyper4, S), d.apb_read(evcntr4, S)), (0, 0));
        assert_eq!(d.dut.counter(4), 0);
        wr(&mut d, RegId::CntenSet0, 0xFF);
        assert_eq!(rd(&mut d, RegId::CntenSet0), 0xF);
    }

    #[test]
    fn synchronous_reset_restores_every_register() {
        let mut d = drv(&cfg(&["counters=2", "counter_bits=32"]));
        wr(&mut d, RegId::Evtyper(1), 1);
        wr(&mut d, RegId::CntenSet0, 3);
        wr(&mut d, RegId::Cr, 1);
        wr(&mut d, RegId::Scr, 0x1);
        wr(&mut d, RegId::IrqCtrl, 1);
        d.set_lanes(&[lane(true, 1)]);
        d.idle(3);
        let a = addr(&d, RegId::Cfgr);
        assert_ne!(d.apb_read(a, S), 0);
        // A write whose setup cycle has PRESETn low is not performed; the reset register resets
        // every register at the edge after the PRESETn-low cycle.
        let mut w = PinInputs::idle(1);
        (w.presetn, w.psel, w.pwrite) = (false, true, true);
        w.paddr = addr(&d, RegId::Cr);
        w.pwdata = 1;
        w.pstrb = 0xF;
        d.step_with(w.clone());
        assert_eq!(
            d.dut.read_reg(RegId::Cr),
            1,
            "not reset yet: PRESETn is registered"
        );
        (w.presetn, w.penable, w.pwdata) = (true, true, 0x1);
        d.step_with(w);
        let m = &d.dut;
        assert_eq!(
            (m.counter(0), m.counter(1), m.ovs(), m.prdata(), m.irq()),
            (0, 0, 0, 0, false)
        );
        assert_eq!(m.read_reg(RegId::Cr), 0);
        assert_eq!(m.read_reg(RegId::CntenSet0), 0);
        assert_eq!(m.read_reg(RegId::Evtyper(1)), 0);
        assert_eq!(m.read_reg(RegId::Scr), 0x8000_0006);
        assert_eq!(m.read_reg(RegId::IrqCtrlAck), 0);
        assert_eq!(m.stage, [0; STAGE_BITS], "match stage reset");
        assert_eq!(m.decode[1], Decode::Cycles);
        d.reset(2);
        assert_eq!(tick(&mut d).prdata, 0);
    }

    // ---- StreamID and security-state filtering (10.4, 10.6; behaviour.md) ----

    const NSEC: SecState = SecState::NonSecure;
    const SEC: SecState = SecState::Secure;
    const REALM: SecState = SecState::Realm;

    /// A valid lane event: event bits, StreamID, security state, NoStreamID flag.
    fn ev(events: u32, sid: u32, ss: SecState, nosid: bool) -> LaneIn {
        LaneIn {
            valid: true,
            events,
            sid,
            ss,
            nosid,
            ..LaneIn::default()
        }
    }

    /// A register field's bits, from the map.
    fn field(d: &Driver<Model>, id: RegId, name: &str) -> u32 {
        let m = d.dut.map().field_mask(id, name) as u32;
        assert_ne!(m, 0, "{id:?}.{name} exists in this configuration");
        m
    }

    /// CR.E = 1 and every counter (up to 32) enabled.
    fn enable(d: &mut Driver<Model>) {
        wr(d, RegId::CntenSet0, 0xFFFF_FFFF);
        wr(d, RegId::Cr, 1);
    }

    /// After one idle cycle (so that an EVTYPER/SMR write just before is decoded), presents
    /// `lanes` for one cycle (then idle lanes for two more, so that the match stage is matched
    /// and the match register counted) and returns each counter's increase over those three
    /// edges.
    fn hits(d: &mut Driver<Model>, lanes: &[LaneIn]) -> Vec<u64> {
        d.idle(1);
        let before: Vec<u64> = d.dut.counters.clone();
        d.set_lanes(lanes);
        d.idle(1);
        d.clear_lanes();
        d.idle(2);
        d.dut
            .counters
            .iter()
            .zip(before)
            .map(|(a, b)| a - b)
            .collect()
    }

    /// A filter without Realm or MPAM: (SPAN, SEC, STREAMID, ALL, SO).
    fn decode_sid(span: bool, sec: bool, x: u32, all: u32, so: bool) -> Filter {
        let f = FilterFields {
            span,
            sec,
            x,
            ..FilterFields::default()
        };
        let c = Controls {
            so,
            ..Controls::default()
        };
        Filter::decode(&f, &c, all)
    }

    #[test]
    fn filter_decode_of_the_10_4_encodings() {
        let w32 = u32::MAX;
        // 10.4 PartialSID examples: the low bits up to and including the lowest 0 are ignored.
        let f = decode_sid(true, false, 0x001B_F7F7, w32, false);
        assert_eq!(
            (f.care, f.value, (f.nosid_states != 0)),
            (0xFFFF_FFF0, 0x001B_F7F0, false)
        );
        let f = decode_sid(true, false, 0x001B_F7F6, w32, false);
        assert_eq!((f.care, f.value), (0xFFFF_FFFE, 0x001B_F7F6));
        let f = decode_sid(true, false, 0x001B_F5FF, w32, false);
        assert_eq!((f.care, f.value), (0xFFFF_FC00, 0x001B_F400));
        // ExactSID: every implemented bit.
        let f = decode_sid(false, false, 0x1234, 0xFFFF, false);
        assert_eq!(
            (f.care, f.value, (f.nosid_states != 0)),
            (0xFFFF, 0x1234, false)
        );
        // AllSIDOneSECSID (0x7FFF at W = 16) and AllSIDManySECSID (0xFFFF, and 2^32 - 1 at W = 32).
        let f = decode_sid(true, false, 0x7FFF, 0xFFFF, false);
        assert_eq!((f.care, f.value, (f.nosid_states != 0)), (0, 0, true));
        let f = decode_sid(true, false, 0xFFFF, 0xFFFF, false);
        assert_eq!((f.care, f.value, (f.nosid_states != 0)), (0, 0, true));
        let f = decode_sid(true, false, w32, w32, false);
        assert_eq!((f.care, f.value, (f.nosid_states != 0)), (0, 0, true));
        // ExactSID on ALL is not a match-all filter.
        let f = decode_sid(false, false, 0xFFFF, 0xFFFF, false);
        assert_eq!((f.care, (f.nosid_states != 0)), (0xFFFF, false));
    }

    #[test]
    fn partial_sid_examples_of_10_4() {
        let mut d = drv(&cfg(&["counters=3", "counter_bits=32", "sid_bits=32"]));
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        let examples = [0x001B_F7F7u32, 0x001B_F7F6, 0x001B_F5FF];
        for (n, &x) in examples.iter().enumerate() {
            wr(&mut d, RegId::Evtyper(n as u32), span | 1); // event 1 (lane bit 0)
            wr(&mut d, RegId::Smr(n as u32), x);
            assert_eq!(rd(&mut d, RegId::Smr(n as u32)), x, "32 implemented bits");
        }
        enable(&mut d);
        // The spec's patterns: ...1111:0111:1111:xxxx, ...1111:0111:1111:011x and
        // ...1111:01xx:xxxx:xxxx (upper bits 0000:0000:0001:1011 in all three).
        let spans = [
            0x001B_F7F0..=0x001B_F7FF,
            0x001B_F7F6..=0x001B_F7F7,
            0x001B_F400..=0x001B_F7FF,
        ];
        for sid in [
            0x001B_F7F0u32,
            0x001B_F7F4,
            0x001B_F7F5,
            0x001B_F7F6,
            0x001B_F7F7,
            0x001B_F7F8,
            0x001B_F7FF,
            0x001B_F7EF, // just below the first span
            0x001B_F800, // just above the first and third
            0x001B_F400,
            0x001B_F3FF, // just below the third
            0x001B_F5FF,
            0x001B_F6F6,
            0x001A_F7F7, // one upper bit differs
            0x003B_F7F7,
            0x801B_F7F7,
            0x001B_B7F7,
            0,
            0xFFFF_FFFF,
        ] {
            let want: Vec<u64> = spans.iter().map(|r| r.contains(&sid) as u64).collect();
            assert_eq!(
                hits(&mut d, &[ev(1, sid, NSEC, false)]),
                want,
                "sid {sid:#x}"
            );
        }
        // SEC = 0: Secure events do not match; PartialSID never counts NoStreamID (10.4.2).
        assert_eq!(hits(&mut d, &[ev(1, 0x001B_F7F7, SEC, false)]), [0, 0, 0]);
        assert_eq!(hits(&mut d, &[ev(1, 0x001B_F7F7, NSEC, true)]), [0, 0, 0]);
    }

    #[test]
    fn exact_sid_matches_the_implemented_bits_only() {
        // sid_bits = 16, Secure state, SO = 0.
        let mut d = drv(&cfg(&["counters=2", "counter_bits=32", "lanes=3"]));
        wr(&mut d, RegId::Evtyper(0), 1);
        wr(&mut d, RegId::Smr(0), 0x1234);
        wr(&mut d, RegId::Evtyper(1), 1); // SMR1 keeps its reset value 0: ExactSID 0
        enable(&mut d);
        let a = [
            ev(1, 0x1234, NSEC, false),
            ev(1, 0x1235, NSEC, false),
            ev(1, 0x0234, NSEC, false),
        ];
        assert_eq!(hits(&mut d, &a), [1, 0]);
        // The lane's W = 16 SID bits are compared: 0x5_1234 is StreamID 0x1234 here.
        let b = [
            ev(1, 0x5_1234, NSEC, false),
            ev(1, 0x1234, NSEC, false),
            ev(1, 0x1234, SEC, false),
        ];
        assert_eq!(hits(&mut d, &b), [2, 0]);
        let c = [
            ev(1, 0, NSEC, false),
            ev(1, 0x1_0000, NSEC, false),
            ev(0, 0x1234, NSEC, false), // no event
        ];
        assert_eq!(hits(&mut d, &c), [0, 2]);
        // NoStreamID, Realm and invalid lanes never match an ExactSID filter.
        let e = [
            ev(1, 0x1234, NSEC, true),
            ev(1, 0x1234, REALM, false),
            LaneIn {
                valid: false,
                ..ev(1, 0x1234, NSEC, false)
            },
        ];
        assert_eq!(hits(&mut d, &e), [0, 0]);
    }

    #[test]
    fn all_sid_many_and_one_secsid() {
        let mut d = drv(&cfg(&["counters=2", "counter_bits=32", "lanes=3"])); // W = 16
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        let sec = field(&d, RegId::Evtyper(0), "FILTER_SEC_SID");
        let so = field(&d, RegId::Scr, "SO");
        let nsra = field(&d, RegId::Scr, "NSRA");
        wr(&mut d, RegId::Evtyper(0), span | 1);
        wr(&mut d, RegId::Smr(0), 0xFFFF_FFFF); // AllSIDManySECSID
        assert_eq!(
            rd(&mut d, RegId::Smr(0)),
            0xFFFF,
            "10.4.1: bits above W read 0"
        );
        wr(&mut d, RegId::Evtyper(1), span | 1);
        wr(&mut d, RegId::Smr(1), 0x7FFF); // AllSIDOneSECSID, SEC = 0: Non-secure
        enable(&mut d);
        // SO = 0: every Non-secure StreamID, and Non-secure NoStreamID, in both modes.
        let ns = [
            ev(1, 0, NSEC, false),
            ev(1, 0xFFFF, NSEC, false),
            ev(1, 0x8001, NSEC, false),
        ];
        assert_eq!(hits(&mut d, &ns), [3, 3]);
        let others = [
            ev(1, 5, SEC, false),
            ev(1, 5, REALM, false),
            ev(1, 5, NSEC, true),
        ];
        assert_eq!(hits(&mut d, &others), [1, 1]);
        let nosid = [
            ev(1, 0, SEC, true),
            ev(1, 0, REALM, true),
            ev(1, 0, NSEC, true),
        ];
        assert_eq!(hits(&mut d, &nosid), [1, 1]);
        // SO = 1: ManySECSID covers both namespaces; OneSECSID with SEC = 1 only Secure.
        wr(&mut d, RegId::Scr, so | nsra);
        wr(&mut d, RegId::Evtyper(1), span | sec | 1);
        let all = [
            ev(1, 0x1234, NSEC, false),
            ev(1, 0x1234, SEC, false),
            ev(1, 0x1234, REALM, false),
        ];
        assert_eq!(hits(&mut d, &all), [2, 1]);
        let nosid = [
            ev(1, 0, NSEC, true),
            ev(1, 0, SEC, true),
            ev(1, 0, REALM, true),
        ];
        assert_eq!(hits(&mut d, &nosid), [2, 1]);
    }

    #[test]
    fn so_sec_and_security_state_truth_table() {
        let mut d = drv(&cfg(&["counters=3", "counter_bits=32"])); // W = 16, Secure state
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        let sec = field(&d, RegId::Evtyper(0), "FILTER_SEC_SID");
        let so = field(&d, RegId::Scr, "SO");
        let nsra = field(&d, RegId::Scr, "NSRA");
        // Counter 0 ExactSID 0x42, counter 1 AllSIDOneSECSID, counter 2 AllSIDManySECSID.
        let modes = [(0, 0x42), (span, 0x7FFF), (span, 0xFFFF)];
        for (n, &(_, x)) in modes.iter().enumerate() {
            wr(&mut d, RegId::Smr(n as u32), x);
        }
        enable(&mut d);
        // (SO, SEC) -> per mode [Exact, OneSEC, ManySEC], counted for [NS, S, Realm].
        let table = [
            ((false, false), [[1, 0, 0], [1, 0, 0], [1, 0, 0]]),
            ((false, true), [[1, 0, 0], [1, 0, 0], [1, 0, 0]]),
            ((true, false), [[1, 0, 0], [1, 0, 0], [1, 1, 0]]),
            ((true, true), [[0, 1, 0], [0, 1, 0], [1, 1, 0]]),
        ];
        for ((so_on, sec_on), want) in table {
            wr(&mut d, RegId::Scr, nsra | if so_on { so } else { 0 });
            for (n, &(sp, _)) in modes.iter().enumerate() {
                wr(
                    &mut d,
                    RegId::Evtyper(n as u32),
                    sp | if sec_on { sec } else { 0 } | 1,
                );
            }
            for (i, ss) in [NSEC, SEC, REALM].into_iter().enumerate() {
                let got = hits(&mut d, &[ev(1, 0x42, ss, false)]);
                let exp: Vec<u64> = want.iter().map(|m| m[i]).collect();
                assert_eq!(got, exp, "SO {so_on} SEC {sec_on} {ss:?}");
                // NoStreamID: as the match-all modes count that state; never ExactSID.
                let got = hits(&mut d, &[ev(1, 0x42, ss, true)]);
                let exp = vec![0, want[1][i], want[2][i]];
                assert_eq!(got, exp, "SO {so_on} SEC {sec_on} {ss:?} NoStreamID");
            }
        }
    }

    #[test]
    fn without_secure_state_only_non_secure_events_count() {
        let c = cfg(&["counters=3", "counter_bits=32", "secure=off"]);
        let mut d = drv(&c);
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        assert_eq!(d.dut.map().mask(field::EVTYPER_FILTER_SEC_SID), 0);
        // Try to set SEC and SO where a Secure configuration has them: RES0 / SCR absent.
        let secure = Model::new(&PmcgConfig::default());
        let sec = secure.map().mask(field::EVTYPER_FILTER_SEC_SID) as u32;
        let scr = secure.map().reg(RegId::Scr);
        let so = secure.map().mask(field::SCR_SO) as u32;
        d.apb_write(scr.addr, so, S);
        let modes = [(0, 0x42), (span, 0x7FFF), (span, 0xFFFF)];
        for (n, &(sp, x)) in modes.iter().enumerate() {
            wr(&mut d, RegId::Evtyper(n as u32), sp | sec | 1);
            wr(&mut d, RegId::Smr(n as u32), x);
        }
        enable(&mut d);
        assert_eq!(hits(&mut d, &[ev(1, 0x42, NSEC, false)]), [1, 1, 1]);
        assert_eq!(hits(&mut d, &[ev(1, 0x42, SEC, false)]), [0, 0, 0]);
        assert_eq!(hits(&mut d, &[ev(1, 0x42, REALM, false)]), [0, 0, 0]);
        assert_eq!(hits(&mut d, &[ev(1, 0x42, NSEC, true)]), [0, 1, 1]);
        assert_eq!(hits(&mut d, &[ev(1, 0x42, SEC, true)]), [0, 0, 0]);
    }

    #[test]
    fn nostreamid_counts_only_under_a_match_all_filter() {
        let mut d = drv(&cfg(&["counters=5", "counter_bits=32"])); // W = 16
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        // ExactSID 0; PartialSID 0x3FFF (ignores [14:0]: StreamIDs 0-0x7FFF, not all);
        // AllSIDOneSECSID; AllSIDManySECSID; ExactSID 0xFFFF (SPAN = 0: not a match-all).
        let filters = [
            (0, 0),
            (span, 0x3FFF),
            (span, 0x7FFF),
            (span, 0xFFFF),
            (0, 0xFFFF),
        ];
        for (n, &(sp, x)) in filters.iter().enumerate() {
            wr(&mut d, RegId::Evtyper(n as u32), sp | 1);
            wr(&mut d, RegId::Smr(n as u32), x);
        }
        enable(&mut d);
        assert_eq!(hits(&mut d, &[ev(1, 0, NSEC, true)]), [0, 0, 1, 1, 0]);
        assert_eq!(hits(&mut d, &[ev(1, 0xFFFF, NSEC, true)]), [0, 0, 1, 1, 0]);
        assert_eq!(hits(&mut d, &[ev(1, 0, NSEC, false)]), [1, 1, 1, 1, 0]);
        assert_eq!(hits(&mut d, &[ev(1, 0x7FFF, NSEC, false)]), [0, 1, 1, 1, 0]);
        assert_eq!(hits(&mut d, &[ev(1, 0x8000, NSEC, false)]), [0, 0, 1, 1, 0]);
        assert_eq!(hits(&mut d, &[ev(1, 0xFFFF, NSEC, false)]), [0, 0, 1, 1, 1]);
        // SO = 0: a Secure NoStreamID access is not counted even by the match-all filters.
        assert_eq!(hits(&mut d, &[ev(1, 0, SEC, true)]), [0, 0, 0, 0, 0]);
    }

    #[test]
    fn one_bit_stream_ids() {
        let mut d = drv(&cfg(&["counters=4", "counter_bits=32", "sid_bits=1"]));
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        // W = 1: ExactSID 0, ExactSID 1, AllSIDOneSECSID (X = 0), AllSIDManySECSID (X = 1).
        let filters = [(0, 0), (0, 1), (span, 0), (span, 0xFFFF_FFFF)];
        for (n, &(sp, x)) in filters.iter().enumerate() {
            wr(&mut d, RegId::Evtyper(n as u32), sp | 1);
            wr(&mut d, RegId::Smr(n as u32), x);
        }
        assert_eq!(rd(&mut d, RegId::Smr(3)), 1);
        enable(&mut d);
        assert_eq!(hits(&mut d, &[ev(1, 0, NSEC, false)]), [1, 0, 1, 1]);
        assert_eq!(hits(&mut d, &[ev(1, 1, NSEC, false)]), [0, 1, 1, 1]);
        assert_eq!(hits(&mut d, &[ev(1, 2, NSEC, false)]), [1, 0, 1, 1]);
        assert_eq!(hits(&mut d, &[ev(1, 3, NSEC, false)]), [0, 1, 1, 1]);
        assert_eq!(hits(&mut d, &[ev(1, 0, NSEC, true)]), [0, 0, 1, 1]);
    }

    #[test]
    fn cycles_and_global_impdef_events_ignore_the_filter() {
        let c = cfg(&[
            "counters=3",
            "counter_bits=32",
            "lanes=2",
            "impdef=0x80,0x81",
            "impdef_global=0x81",
        ]);
        assert!(!c.event_filterable(0x81) && c.event_filterable(0x80));
        let mut d = drv(&c);
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        let sec = field(&d, RegId::Evtyper(0), "FILTER_SEC_SID");
        // Lane bits: events 1-5 are bits 0-4, 0x80 bit 5, 0x81 bit 6.
        let bits = 1 << 5 | 1 << 6;
        // Every counter filters on ExactSID 0x55 (counter 2 with SPAN and SEC set too).
        wr(&mut d, RegId::Evtyper(0), 0x81);
        wr(&mut d, RegId::Evtyper(1), 0x80);
        wr(&mut d, RegId::Evtyper(2), span | sec); // EVENT = 0: cycles
        for n in 0..3 {
            wr(&mut d, RegId::Smr(n), 0x55);
        }
        enable(&mut d);
        // Counter 2 counts one per edge (three per `hits`) whatever the lanes.
        let odd = [ev(bits, 0x1234, REALM, true), ev(bits, 0x55, SEC, false)];
        assert_eq!(hits(&mut d, &odd), [2, 0, 3]);
        let fit = [
            ev(bits, 0x55, NSEC, false),
            LaneIn {
                valid: false,
                ..ev(bits, 0x55, NSEC, false)
            },
        ];
        assert_eq!(hits(&mut d, &fit), [1, 1, 3]);
        assert_eq!(
            hits(
                &mut d,
                &[ev(bits, 0x1234, NSEC, false), ev(0, 0, NSEC, false)]
            ),
            [1, 0, 3]
        );
    }

    #[test]
    fn global_filter_uses_evtyper0_and_smr0_for_every_counter() {
        let c = cfg(&["counters=3", "counter_bits=32", "sid_filter=global"]); // W = 16
        let mut d = drv(&c);
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        let sec = field(&d, RegId::Evtyper(0), "FILTER_SEC_SID");
        let so = field(&d, RegId::Scr, "SO");
        let nsra = field(&d, RegId::Scr, "NSRA");
        // PartialSID 0x120F: the lowest 0 is bit 4, so StreamIDs 0x1200-0x121F match.
        wr(&mut d, RegId::Evtyper(0), span | 1);
        wr(&mut d, RegId::Smr(0), 0x120F);
        wr(&mut d, RegId::Evtyper(1), span | 2); // no filter fields in EVTYPER1: SPAN is RES0
        wr(&mut d, RegId::Evtyper(2), 1);
        let smr1 = d.dut.map().array_base(RegId::Smr(0)) + 4;
        d.apb_write(smr1, 0xFFFF_FFFF, S); // SMR1 is RES0: no effect
        enable(&mut d);
        let both = 0b11; // events 1 and 2
        assert_eq!(hits(&mut d, &[ev(both, 0x1210, NSEC, false)]), [1, 1, 1]);
        // Only the lane's W = 16 SID bits are compared.
        assert_eq!(hits(&mut d, &[ev(both, 0x7_1210, NSEC, false)]), [1, 1, 1]);
        assert_eq!(hits(&mut d, &[ev(both, 0x1200, NSEC, false)]), [1, 1, 1]);
        assert_eq!(hits(&mut d, &[ev(both, 0x121F, NSEC, false)]), [1, 1, 1]);
        assert_eq!(hits(&mut d, &[ev(both, 0x1220, NSEC, false)]), [0, 0, 0]);
        assert_eq!(hits(&mut d, &[ev(both, 0x11FF, NSEC, false)]), [0, 0, 0]);
        // Counter 0 now counts cycles; its filter fields (SPAN = 0: ExactSID 0x120F) still
        // filter counters 1 and 2.
        wr(&mut d, RegId::Evtyper(0), 0);
        assert_eq!(hits(&mut d, &[ev(both, 0x120F, NSEC, false)]), [3, 1, 1]);
        assert_eq!(hits(&mut d, &[ev(both, 0x1210, NSEC, false)]), [3, 0, 0]);
        // EVTYPER0.SEC with SO = 1: the Secure namespace for every counter.
        wr(&mut d, RegId::Scr, so | nsra);
        wr(&mut d, RegId::Evtyper(0), sec);
        assert_eq!(hits(&mut d, &[ev(both, 0x120F, SEC, false)]), [3, 1, 1]);
        assert_eq!(hits(&mut d, &[ev(both, 0x120F, NSEC, false)]), [3, 0, 0]);
        // SMR0 rewritten: every counter follows.
        wr(&mut d, RegId::Smr(0), 0x0042);
        assert_eq!(hits(&mut d, &[ev(both, 0x0042, SEC, false)]), [3, 1, 1]);
        assert_eq!(hits(&mut d, &[ev(both, 0x120F, SEC, false)]), [3, 0, 0]);
    }

    #[test]
    fn filter_write_applies_to_events_from_the_cycle_after_its_access() {
        let mut d = drv(&cfg(&["counters=1", "counter_bits=32"])); // W = 16, Secure state
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        let sec = field(&d, RegId::Evtyper(0), "FILTER_SEC_SID");
        let so = field(&d, RegId::Scr, "SO");
        let nsra = field(&d, RegId::Scr, "NSRA");
        wr(&mut d, RegId::Evtyper(0), 1);
        wr(&mut d, RegId::Smr(0), 0x10);
        enable(&mut d);
        assert_eq!(d.dut.counter(0), 0);

        // Events presented in cycle e are matched in cycle e+1 under the filter of cycle e+1 and
        // counted at edge e+2. An SMR/EVTYPER write at edge t (access cycle t) is decoded at edge
        // t+1: the events of cycles up to t keep the old filter, those from t+1 on take the new.
        // SMR0 at t = s+1: cycles s and s+1 carry a matching event under the old filter.
        d.set_lanes(&[ev(1, 0x10, NSEC, false)]);
        wr(&mut d, RegId::Smr(0), 0x20);
        assert_eq!(d.dut.counter(0), 0, "cycle s is counted at edge s+2");
        d.idle(3);
        assert_eq!(
            d.dut.counter(0),
            2,
            "cycles s and s+1 under the old filter, s+2 under the new"
        );
        // The new filter passes StreamID 0x20 from the cycle the lanes change.
        d.set_lanes(&[ev(1, 0x20, NSEC, false)]);
        d.idle(3); // cycles u..u+2 pass; edge u+2 counts cycle u
        assert_eq!(d.dut.counter(0), 3);
        // Back to 0x10 at t' = u+4: cycles u+1, u+2 are counted at the write's edges u+3, u+4;
        // u+3 and u+4 are still matched under 0x20 (counted at u+5, u+6), u+5 on not.
        wr(&mut d, RegId::Smr(0), 0x10);
        assert_eq!(d.dut.counter(0), 5);
        d.idle(3);
        assert_eq!(
            d.dut.counter(0),
            7,
            "nothing from the cycle after the write's access cycle on"
        );
        d.clear_lanes();
        d.idle(2);
        assert_eq!(d.dut.counter(0), 7);

        // SCR.SO (a live control: from the write's access cycle on): SEC = 1 with SO = 0 counts
        // Non-secure events only (SEC_EFF = 0). The EVTYPER0 write is decoded by cycle s.
        wr(&mut d, RegId::Evtyper(0), sec | 1);
        d.set_lanes(&[ev(1, 0x10, SEC, false)]);
        wr(&mut d, RegId::Scr, so | nsra); // cycle s: SO = 0, not counted; s+1 on: SO = 1
        assert_eq!(d.dut.counter(0), 7);
        d.idle(3); // edges s+3, s+4 count cycles s+1, s+2
        assert_eq!(d.dut.counter(0), 9);
        d.clear_lanes();
        d.idle(2);
        assert_eq!(d.dut.counter(0), 11);

        // EVTYPER0.FILTER_SID_SPAN: ExactSID 0xFFFF becomes AllSIDManySECSID at t = s+1.
        wr(&mut d, RegId::Evtyper(0), 1);
        wr(&mut d, RegId::Smr(0), 0xFFFF);
        d.set_lanes(&[ev(1, 0x99, NSEC, false)]);
        wr(&mut d, RegId::Evtyper(0), span | 1); // cycles s, s+1: ExactSID 0xFFFF rejects
        assert_eq!(d.dut.counter(0), 11);
        d.idle(3); // edge s+4 counts cycle s+2
        assert_eq!(d.dut.counter(0), 12);
        // And back at t' = s+6: cycles s+3, s+4 are counted at the write's edges s+5, s+6; s+5
        // and s+6 are still matched under the match-all filter (counted at s+7, s+8); from s+7
        // on ExactSID 0xFFFF rejects.
        wr(&mut d, RegId::Evtyper(0), 1);
        assert_eq!(d.dut.counter(0), 14);
        d.idle(3);
        assert_eq!(d.dut.counter(0), 16);
    }

    #[test]
    fn reset_restores_the_exact_sid_0_non_secure_filter() {
        let mut d = drv(&cfg(&["counters=1", "counter_bits=32"]));
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        let so = field(&d, RegId::Scr, "SO");
        wr(&mut d, RegId::Evtyper(0), span | 1);
        wr(&mut d, RegId::Smr(0), 0xFFFF);
        wr(&mut d, RegId::Scr, so);
        enable(&mut d);
        assert_eq!(hits(&mut d, &[ev(1, 7, SEC, false)]), [1]);
        d.reset(1);
        wr(&mut d, RegId::Evtyper(0), 1); // EVENT only: SPAN = 0, SMR0 = 0, SO = 0
        enable(&mut d);
        assert_eq!(hits(&mut d, &[ev(1, 7, NSEC, false)]), [0]);
        assert_eq!(hits(&mut d, &[ev(1, 0, SEC, false)]), [0]);
        assert_eq!(hits(&mut d, &[ev(1, 0, NSEC, false)]), [1]);
    }

    // ---- Realm, Root, NSP, MPAM and non-attributable events (10.4, 10.4.2-4, 10.6, 10.7) ----

    const ROOT_SS: SecState = SecState::Root;
    const SA_SS: SecState = SecState::SystemAgent;
    const NSP_SS: SecState = SecState::NonSecureProtected;
    const ROOT: Access = Access::Root;
    const RLM: Access = Access::Realm;

    fn wr_as(d: &mut Driver<Model>, id: RegId, v: u32, a: Access) {
        let ad = addr(d, id);
        d.apb_write(ad, v, a);
    }

    fn rd_as(d: &mut Driver<Model>, id: RegId, a: Access) -> u32 {
        let ad = addr(d, id);
        d.apb_read(ad, a)
    }

    /// The security and Realm controls a test sets: SCR.{SO, NAO} and ROOTCR.{RTO, RLO, NAO, SAO,
    /// PMO}; SCR.NSRA stays 1.
    #[derive(Clone, Copy, Debug, Default)]
    struct Ctl {
        so: bool,
        scr_nao: bool,
        rlo: bool,
        rto: bool,
        sao: bool,
        pmo: bool,
        root_nao: bool,
    }

    /// Writes SCR (Secure access) and, with Realm, ROOTCR (Root access) from `c`.
    fn set_ctl(d: &mut Driver<Model>, c: Ctl) {
        let bit = |on: bool, id: RegId, name: &str, d: &Driver<Model>| {
            if on {
                field(d, id, name)
            } else {
                0
            }
        };
        let scr = field(d, RegId::Scr, "NSRA")
            | bit(c.so, RegId::Scr, "SO", d)
            | bit(c.scr_nao, RegId::Scr, "NAO", d);
        wr(d, RegId::Scr, scr);
        if d.dut.map().get(RegId::Rootcr).is_some() {
            let r = RegId::Rootcr;
            let v = bit(c.rlo, r, "RLO", d)
                | bit(c.rto, r, "RTO", d)
                | bit(c.sao, r, "SAO", d)
                | bit(c.pmo, r, "PMO", d)
                | bit(c.root_nao, r, "NAO", d);
            wr_as(d, r, v, ROOT);
        }
    }

    /// Every combination of `n` flags.
    fn combos(n: u32) -> impl Iterator<Item = Vec<bool>> {
        (0..1u32 << n).map(move |v| (0..n).map(|i| v >> i & 1 != 0).collect())
    }

    /// 10.4, the Realm table for ExactSID, PartialSID and AllSIDOneSECSID: Rel = FILTER_REALM_SID
    /// & RLO, Sec = FILTER_SEC_SID & SO; {0,0} Non-secure only, {0,1} Secure only, {1,0} Realm
    /// only, {1,1} reserved, behaves as {0,0}.
    fn spec_one_state(realm_sid: bool, sec_sid: bool, so: bool, rlo: bool) -> SecState {
        match (realm_sid & rlo, sec_sid & so) {
            (false, false) => NSEC,
            (false, true) => SEC,
            (true, false) => REALM,
            (true, true) => NSEC,
        }
    }

    /// 10.4, the Realm list for AllSIDManySECSID, transcribed: (states counted from accesses
    /// with a StreamID, states counted from NoStreamID accesses). FILTER_REALM_SID is treated as
    /// 0 when RLO = 0 (10.5.2.2). RTO and SAO only add NoStreamID accesses to the Root and SA PA
    /// spaces, under FILTER_REALM_SID = 1 (behaviour.md's reading; 10.4.2's note: no Root access
    /// counts without FILTER_REALM_SID).
    fn spec_many(
        realm_sid: bool,
        sec_sid: bool,
        so: bool,
        c: (bool, bool, bool), // RLO, RTO, SAO
    ) -> (Vec<SecState>, Vec<SecState>) {
        let (rlo, rto, sao) = c;
        let realm_sid = realm_sid && rlo;
        let mut s = vec![NSEC];
        if !realm_sid {
            if so {
                s.push(SEC);
            }
        } else if !sec_sid {
            if rlo {
                s.push(REALM);
            }
        } else {
            if so {
                s.push(SEC);
            }
            if rlo {
                s.push(REALM);
            }
        }
        let mut nosid = s.clone();
        if realm_sid {
            if rto {
                nosid.push(ROOT_SS);
            }
            if sao {
                nosid.push(SA_SS);
            }
        }
        (s, nosid)
    }

    /// The configuration of `base` and `extra`, whose keys replace the base's (`parse_kv`
    /// rejects a key given twice).
    fn cfg_over(base: &[&str], extra: &[&str]) -> PmcgConfig {
        let key = |item: &str| item.split('=').next().unwrap_or("").to_string();
        let mut items: Vec<&str> = base
            .iter()
            .copied()
            .filter(|b| extra.iter().all(|e| key(e) != key(b)))
            .collect();
        items.extend_from_slice(extra);
        cfg(&items)
    }

    fn realm_cfg(extra: &[&str]) -> PmcgConfig {
        cfg_over(&["counters=4", "counter_bits=32", "realm=on"], extra)
    }

    #[test]
    fn security_state_bits_follow_the_lane_codes() {
        let bits = [ST_NS, ST_SEC, ST_REALM, ST_ROOT, ST_SA, ST_NSP];
        for (ss, b) in SecState::ALL.into_iter().zip(bits) {
            assert_eq!(ss_bit(ss), b, "{ss:?}");
        }
    }

    #[test]
    fn rel_sec_table_in_exact_partial_and_one_secsid() {
        let mut d = drv(&realm_cfg(&["counters=3"])); // W = 16
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        let sec = field(&d, RegId::Evtyper(0), "FILTER_SEC_SID");
        let realm = field(&d, RegId::Evtyper(0), "FILTER_REALM_SID");
        // ExactSID 0x42; PartialSID 0x4F (bits [4:0] ignored: 0x40-0x5F); AllSIDOneSECSID.
        let modes = [(0, 0x42), (span, 0x4F), (span, 0x7FFF)];
        for (n, &(_, x)) in modes.iter().enumerate() {
            wr(&mut d, RegId::Smr(n as u32), x);
        }
        enable(&mut d);
        for f in combos(5) {
            let (realm_on, sec_on, so, rlo, others) = (f[0], f[1], f[2], f[3], f[4]);
            // RTO, SAO, PMO and the NAO bits do not change a one-state filter's state.
            let c = Ctl {
                so,
                rlo,
                rto: others,
                sao: others,
                scr_nao: others,
                ..Ctl::default()
            };
            set_ctl(&mut d, c);
            for (n, &(sp, _)) in modes.iter().enumerate() {
                let v = sp | if sec_on { sec } else { 0 } | if realm_on { realm } else { 0 };
                wr(&mut d, RegId::Evtyper(n as u32), v | 1);
            }
            let want = spec_one_state(realm_on, sec_on, so, rlo);
            for ss in SecState::ALL {
                let hit = (ss == want) as u64;
                let got = hits(&mut d, &[ev(1, 0x42, ss, false)]);
                assert_eq!(got, [hit, hit, hit], "{f:?} {ss:?}");
                // Outside ExactSID and PartialSID spans: only the match-all filter.
                let got = hits(&mut d, &[ev(1, 0x142, ss, false)]);
                assert_eq!(got, [0, 0, hit], "{f:?} {ss:?} sid 0x142");
                // NoStreamID: only AllSIDOneSECSID, in its one state (10.4.2).
                let got = hits(&mut d, &[ev(1, 0x42, ss, true)]);
                assert_eq!(got, [0, 0, hit], "{f:?} {ss:?} NoStreamID");
            }
        }
    }

    #[test]
    fn all_sid_many_secsid_with_every_realm_control() {
        for global in [false, true] {
            let mut d = drv(&realm_cfg(if global {
                &["counters=2", "sid_filter=global"]
            } else {
                &["counters=2"]
            }));
            let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
            let sec = field(&d, RegId::Evtyper(0), "FILTER_SEC_SID");
            let realm = field(&d, RegId::Evtyper(0), "FILTER_REALM_SID");
            wr(&mut d, RegId::Smr(0), 0xFFFF_FFFF);
            // Counter 1 selects event 1 too: with the global filter it has EVTYPER0's fields.
            wr(&mut d, RegId::Evtyper(1), 1);
            enable(&mut d);
            for f in combos(6) {
                let (realm_on, sec_on, so, rlo, rto, sao) = (f[0], f[1], f[2], f[3], f[4], f[5]);
                set_ctl(
                    &mut d,
                    Ctl {
                        so,
                        rlo,
                        rto,
                        sao,
                        ..Ctl::default()
                    },
                );
                let v = span | if sec_on { sec } else { 0 } | if realm_on { realm } else { 0 };
                wr(&mut d, RegId::Evtyper(0), v | 1);
                let (with_sid, nosid) = spec_many(realm_on, sec_on, so, (rlo, rto, sao));
                for ss in SecState::ALL {
                    // Counter 1: per-counter ExactSID 0 (reset) Non-secure; global: counter 0's.
                    let one = |hit: bool, ns_exact: bool| {
                        if global {
                            hit as u64
                        } else {
                            ns_exact as u64
                        }
                    };
                    let hit = with_sid.contains(&ss);
                    let got = hits(&mut d, &[ev(1, 0x1234, ss, false)]);
                    assert_eq!(got, [hit as u64, one(hit, false)], "{f:?} {ss:?}");
                    let got = hits(&mut d, &[ev(1, 0, ss, false)]);
                    let exp = [hit as u64, one(hit, ss == NSEC)];
                    assert_eq!(got, exp, "{f:?} {ss:?} sid 0");
                    let hit = nosid.contains(&ss);
                    let got = hits(&mut d, &[ev(1, 0x1234, ss, true)]);
                    assert_eq!(got, [hit as u64, one(hit, false)], "{f:?} {ss:?} N");
                }
            }
        }
    }

    #[test]
    fn nsp_accesses_need_pmo() {
        let mut d = drv(&realm_cfg(&[]));
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        let sec = field(&d, RegId::Evtyper(0), "FILTER_SEC_SID");
        let realm = field(&d, RegId::Evtyper(0), "FILTER_REALM_SID");
        // 0: ExactSID 0x42 Non-secure; 1: ExactSID 0x42 Secure (SO = 1); 2: AllSIDManySECSID;
        // 3: AllSIDOneSECSID Realm.
        let filters = [
            (1, 0x42),
            (sec | 1, 0x42),
            (span | 1, 0xFFFF),
            (span | realm | 1, 0x7FFF),
        ];
        for (n, &(e, x)) in filters.iter().enumerate() {
            wr(&mut d, RegId::Evtyper(n as u32), e);
            wr(&mut d, RegId::Smr(n as u32), x);
        }
        enable(&mut d);
        for pmo in [false, true] {
            let c = Ctl {
                so: true,
                rlo: true,
                pmo,
                ..Ctl::default()
            };
            set_ctl(&mut d, c);
            let p = pmo as u64;
            // 10.4: PM = 1 is counted like a Non-secure access, only when PMO = 1.
            assert_eq!(hits(&mut d, &[ev(1, 0x42, NSP_SS, false)]), [p, 0, p, 0]);
            assert_eq!(hits(&mut d, &[ev(1, 0x42, NSP_SS, true)]), [0, 0, p, 0]);
            // The Non-secure ones count either way.
            assert_eq!(hits(&mut d, &[ev(1, 0x42, NSEC, false)]), [1, 0, 1, 0]);
            assert_eq!(hits(&mut d, &[ev(1, 0x42, REALM, true)]), [0, 0, 0, 1]);
        }
        // Without Realm there is no PMO: NSP is never counted by a filterable event.
        let mut d = drv(&cfg(&["counters=2", "counter_bits=32"]));
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        wr(&mut d, RegId::Evtyper(0), 1);
        wr(&mut d, RegId::Evtyper(1), span | 1);
        wr(&mut d, RegId::Smr(1), 0xFFFF);
        enable(&mut d);
        assert_eq!(hits(&mut d, &[ev(1, 0, NSP_SS, false)]), [0, 0]);
        assert_eq!(hits(&mut d, &[ev(1, 0, NSP_SS, true)]), [0, 0]);
        assert_eq!(hits(&mut d, &[ev(1, 0, NSEC, true)]), [0, 1]);
    }

    #[test]
    fn root_and_sa_count_only_from_nostreamid_accesses() {
        let mut d = drv(&realm_cfg(&["lanes=2", "mpam_filter=on"]));
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        let sec = field(&d, RegId::Evtyper(0), "FILTER_SEC_SID");
        let realm = field(&d, RegId::Evtyper(0), "FILTER_REALM_SID");
        let fpmg = field(&d, RegId::Evtyper(0), "FILTER_PMG");
        let sp = field(&d, RegId::Evtyper(0), "FILTER_MPAM_SP");
        let all_on = span | sec | realm | 1;
        // 0: AllSIDManySECSID; 1: AllSIDOneSECSID; 2: MPAM (PMG 0, Non-secure space, SP = 01);
        // 3: ExactSID of the lanes' StreamID.
        wr(&mut d, RegId::Evtyper(0), all_on);
        wr(&mut d, RegId::Smr(0), 0xFFFF);
        wr(&mut d, RegId::Evtyper(1), all_on);
        wr(&mut d, RegId::Smr(1), 0x7FFF);
        wr(
            &mut d,
            RegId::Evtyper(2),
            realm | sec | fpmg | (sp & !(sp << 1)) | 1,
        );
        wr(&mut d, RegId::Smr(2), 0);
        wr(&mut d, RegId::Evtyper(3), all_on & !span);
        wr(&mut d, RegId::Smr(3), 0x42);
        enable(&mut d);
        let every = Ctl {
            so: true,
            rlo: true,
            rto: true,
            sao: true,
            pmo: true,
            ..Ctl::default()
        };
        set_ctl(&mut d, every);
        for ss in [ROOT_SS, SA_SS] {
            let sid = [ev(1, 0x42, ss, false), ev(1, 0, ss, false)];
            assert_eq!(hits(&mut d, &sid), [0, 0, 0, 0], "{ss:?} with a StreamID");
            let nosid = [ev(1, 0x42, ss, true), ev(0, 0, ss, true)];
            assert_eq!(hits(&mut d, &nosid), [1, 0, 1, 0], "{ss:?} NoStreamID");
        }
        // RTO and SAO separately; nothing without FILTER_REALM_SID.
        for (rto, sao) in [(true, false), (false, true)] {
            set_ctl(&mut d, Ctl { rto, sao, ..every });
            let l = [ev(1, 0, ROOT_SS, true), ev(1, 0, SA_SS, true)];
            let n = rto as u64 + sao as u64;
            assert_eq!(hits(&mut d, &l), [n, 0, n, 0]);
        }
        set_ctl(&mut d, every);
        wr(&mut d, RegId::Evtyper(0), all_on & !realm);
        let l = [ev(1, 0, ROOT_SS, true), ev(1, 0, SA_SS, true)];
        assert_eq!(hits(&mut d, &l), [0, 0, 2, 0]);
    }

    #[test]
    fn unfilterable_events_count_every_security_state() {
        let c = realm_cfg(&["lanes=2", "impdef=0x80", "impdef_global=0x80"]);
        let mut d = drv(&c);
        wr(&mut d, RegId::Evtyper(0), 0x80); // lane bit 5
        wr(&mut d, RegId::Evtyper(1), 1); // ExactSID 0 Non-secure
        enable(&mut d);
        for ss in SecState::ALL {
            let l = [ev(1 << 5 | 1, 0x99, ss, false), ev(1 << 5 | 1, 0, ss, true)];
            assert_eq!(hits(&mut d, &l)[..2], [2, 0], "{ss:?}");
        }
    }

    #[test]
    fn rootcr_access_per_access_state() {
        let mut d = drv(&realm_cfg(&[]));
        let rootcr = addr(&d, RegId::Rootcr);
        let nsra = field(&d, RegId::Scr, "NSRA");
        // 10.5.2.18: ROOTCR_IMPL [31] RO 1, NAO [3] resets to 1, the others to 0.
        assert_eq!(d.apb_read(rootcr, S), 0x8000_0008);
        // RO for Secure, Non-secure and Realm accesses.
        for a in [S, NS, RLM] {
            d.apb_write(rootcr, 0xFFFF_FFFF, a);
            assert_eq!(d.apb_read(rootcr, ROOT), 0x8000_0008, "{a:?} write");
        }
        // RW for Root: PMO [8], SAO [7], NAO [3], RLO [1], RTO [0]; the rest RES0 / RO.
        d.apb_write(rootcr, 0xFFFF_FFFF, ROOT);
        for a in [S, ROOT, NS, RLM] {
            assert_eq!(d.apb_read(rootcr, a), 0x8000_018B, "{a:?} read");
        }
        d.apb_write(rootcr, 0, ROOT);
        assert_eq!(d.apb_read(rootcr, S), 0x8000_0000, "ROOTCR_IMPL is RO");
        // NSRA = 0: Non-secure and Realm reads are RAZ; Secure and Root still read.
        wr(&mut d, RegId::Scr, 0);
        d.apb_write(rootcr, 0x3, ROOT);
        for (a, v) in [(S, 0x8000_0003), (ROOT, 0x8000_0003), (NS, 0), (RLM, 0)] {
            assert_eq!(d.apb_read(rootcr, a), v, "{a:?} read, NSRA = 0");
        }
        // Root may do everything Secure may: write SCR (NSRA back to 1), read it.
        wr_as(&mut d, RegId::Scr, nsra, ROOT);
        assert_eq!(rd_as(&mut d, RegId::Scr, ROOT), 0x8000_0002);
        assert_eq!(rd_as(&mut d, RegId::Cr, RLM), 0, "NSRA = 1: Realm reads CR");
        wr_as(&mut d, RegId::Cr, 1, RLM);
        assert_eq!(
            rd_as(&mut d, RegId::Cr, S),
            1,
            "Realm writes CR like Non-secure"
        );

        // PNSE is registered at the setup cycle, with PPROT: a Root setup followed by a
        // Non-secure-looking access cycle is a Root write.
        let mut bus = PinInputs::idle(1);
        (bus.psel, bus.pwrite, bus.paddr, bus.pwdata, bus.pstrb) = (true, true, rootcr, 0x80, 0xF);
        bus.pnse = true;
        d.step_with(bus.clone());
        (bus.penable, bus.pnse, bus.pprot) = (true, false, 0b010);
        d.step_with(bus);
        assert_eq!(d.dut.read_reg(RegId::Rootcr), 0x8000_0080);

        // Without Realm: no ROOTCR (RAZ/WI) and PNSE is ignored: a "Root" access is Secure, a
        // "Realm" access Non-secure.
        let mut d = drv(&cfg(&["counters=2", "counter_bits=32"]));
        d.apb_write(rootcr, 0xFFFF_FFFF, ROOT);
        assert_eq!(d.apb_read(rootcr, ROOT), 0);
        assert_eq!(d.apb_read(rootcr, S), 0);
        assert_eq!(rd_as(&mut d, RegId::Scr, ROOT), 0x8000_0006);
        assert_eq!(rd_as(&mut d, RegId::Scr, RLM), 0);
        wr_as(&mut d, RegId::Scr, 0, RLM);
        assert_eq!(rd_as(&mut d, RegId::Scr, S), 0x8000_0006);
        wr_as(&mut d, RegId::Scr, 0, ROOT);
        assert_eq!(rd_as(&mut d, RegId::Scr, S), 0x8000_0000);
        assert_eq!(rd_as(&mut d, RegId::Cr, RLM), 0);
        assert_eq!(rd_as(&mut d, RegId::Cfgr, ROOT), 0x0070_1F01);
    }

    #[test]
    fn scr_alias_is_the_same_register() {
        let mut d = drv(&realm_cfg(&[]));
        let (scr, alias) = (addr(&d, RegId::Scr), addr(&d, RegId::ScrAlias));
        assert_eq!((scr, alias), (0xDF8, 0xE40), "10.5.2.12 offsets");
        assert_eq!(d.apb_read(alias, S), 0x8000_0006);
        // 10.5.2.12: NAO [4] (reset 0) exists with ROOTCR_IMPL = 1.
        d.apb_write(alias, 0xFFFF_FFFF, S);
        assert_eq!(d.apb_read(scr, S), 0x8000_0017);
        d.apb_write(scr, 0x2, ROOT);
        assert_eq!(d.apb_read(alias, ROOT), 0x8000_0002);
        assert_eq!(d.dut.read_reg(RegId::ScrAlias), 0x8000_0002);
        // Not Secure and not Root: RAZ/WI at both addresses.
        for a in [NS, RLM] {
            for at in [scr, alias] {
                assert_eq!(d.apb_read(at, a), 0, "{a:?} read {at:#x}");
                d.apb_write(at, 0x13, a);
                assert_eq!(d.apb_read(scr, S), 0x8000_0002, "{a:?} write {at:#x}");
            }
        }
        // SO through the alias changes the filters like SO through SCR.
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        wr(&mut d, RegId::Evtyper(0), span | 1);
        wr(&mut d, RegId::Smr(0), 0xFFFF);
        enable(&mut d);
        assert_eq!(hits(&mut d, &[ev(1, 7, SEC, false)])[0], 0);
        d.apb_write(alias, 0x3, S);
        assert_eq!(hits(&mut d, &[ev(1, 7, SEC, false)])[0], 1);
        d.apb_write(scr, 0x2, S);
        assert_eq!(hits(&mut d, &[ev(1, 7, SEC, false)])[0], 0);
        // Without Realm: no alias, and SCR bit 4 is RES0.
        let mut d = drv(&cfg(&["counters=2", "counter_bits=32"]));
        d.apb_write(alias, 0xFFFF_FFFF, S);
        assert_eq!(d.apb_read(alias, S), 0);
        assert_eq!(d.apb_read(scr, S), 0x8000_0006);
        d.apb_write(scr, 0xFFFF_FFFF, S);
        assert_eq!(d.apb_read(scr, S), 0x8000_0007);
    }

    #[test]
    fn scr_and_rootcr_writes_filter_events_from_their_access_cycle() {
        let mut d = drv(&realm_cfg(&["counters=1"]));
        let realm = field(&d, RegId::Evtyper(0), "FILTER_REALM_SID");
        let rlo = field(&d, RegId::Rootcr, "RLO");
        let nao = field(&d, RegId::Rootcr, "NAO");
        wr(&mut d, RegId::Evtyper(0), realm | 1);
        wr(&mut d, RegId::Smr(0), 0x10);
        enable(&mut d);
        d.set_lanes(&[ev(1, 0x10, REALM, false)]);
        // Cycle s (setup): RLO = 0, not counted; from s+1 (access) on: RLO = 1.
        wr_as(&mut d, RegId::Rootcr, nao | rlo, ROOT);
        assert_eq!(d.dut.counter(0), 0);
        d.idle(3); // edges s+3, s+4 count cycles s+1, s+2
        assert_eq!(d.dut.counter(0), 2);
        // And back: cycles s+3, s+4 are counted at edges s', s'+1, and s' (still RLO = 1) at
        // s'+2; nothing from the access cycle s'+1 on.
        wr_as(&mut d, RegId::Rootcr, nao, ROOT);
        assert_eq!(d.dut.counter(0), 4);
        d.idle(3);
        assert_eq!(d.dut.counter(0), 5);
        // SCR.SO the same way (SEC = 1).
        let sec = field(&d, RegId::Evtyper(0), "FILTER_SEC_SID");
        let so = field(&d, RegId::Scr, "SO");
        let nsra = field(&d, RegId::Scr, "NSRA");
        wr(&mut d, RegId::Evtyper(0), sec | 1);
        d.set_lanes(&[ev(1, 0x10, SEC, false)]);
        wr(&mut d, RegId::ScrAlias, nsra | so);
        assert_eq!(d.dut.counter(0), 5);
        d.idle(3); // edges s+3, s+4 count cycles s+1, s+2 (cycle s: SO = 0)
        assert_eq!(d.dut.counter(0), 7);
    }

    #[test]
    fn non_attributable_events_gating() {
        let items = ["impdef=0x80,0x81", "impdef_nonattr=0x81", "lanes=3"];
        let odd = [
            ev(1 << 6, 0x1234, SEC, false),
            ev(1 << 6, 0, ROOT_SS, true),
            ev(1 << 6 | 1, 0x55, REALM, false),
        ];
        // Counter 0 selects the non-attributable event 0x81 (lane bit 6) under a filter that
        // matches none of `odd` (ExactSID 0x99 Non-secure); counter 1 is that filter on event 1.
        let setup = |c: &PmcgConfig| {
            let mut d = drv(c);
            assert!(c.event_nonattr(0x81) && !c.event_filterable(0x81));
            wr(&mut d, RegId::Evtyper(0), 0x81);
            wr(&mut d, RegId::Smr(0), 0x99);
            wr(&mut d, RegId::Evtyper(1), 1);
            wr(&mut d, RegId::Smr(1), 0x99);
            enable(&mut d);
            d
        };
        // No Secure state: always counted, whatever the lanes' states (10.4.4 names no rule).
        let mut items_off = items.to_vec();
        items_off.extend(["secure=off", "counters=2", "counter_bits=32"]);
        let mut d = setup(&cfg(&items_off));
        assert_eq!(hits(&mut d, &odd), [3, 0]);
        // Secure state, no Realm: only with SCR.SO = 1.
        let mut items_s = items.to_vec();
        items_s.extend(["counters=2", "counter_bits=32"]);
        let mut d = setup(&cfg(&items_s));
        for so in [false, true] {
            set_ctl(
                &mut d,
                Ctl {
                    so,
                    ..Ctl::default()
                },
            );
            assert_eq!(hits(&mut d, &odd), [3 * so as u64, 0], "SO {so}");
        }
        // Realm: ROOTCR.NAO = 1 and (SCR.SO = 1 or SCR.NAO = 1).
        let mut items_r = items.to_vec();
        items_r.push("counters=2");
        let mut d = setup(&realm_cfg(&items_r));
        assert_eq!(hits(&mut d, &odd), [0, 0], "reset: SO = NAO = 0");
        for f in combos(3) {
            let (root_nao, so, scr_nao) = (f[0], f[1], f[2]);
            let c = Ctl {
                so,
                scr_nao,
                root_nao,
                ..Ctl::default()
            };
            set_ctl(&mut d, c);
            let on = root_nao && (so || scr_nao);
            assert_eq!(hits(&mut d, &odd), [3 * on as u64, 0], "{f:?}");
        }
    }

    fn mev(events: u32, ss: SecState, partid: u16, pmg: u8, sp: MpamSpace) -> LaneIn {
        LaneIn {
            partid,
            pmg,
            mpam_sp: sp,
            ..ev(events, 0x1234, ss, false)
        }
    }

    fn mpam_cfg(extra: &[&str]) -> PmcgConfig {
        let base = [
            "counters=4",
            "counter_bits=32",
            "mpam_filter=on",
            "partid_max=0x20",
            "pmg_max=3",
            "s_partid_max=0x8",
            "s_pmg_max=1",
        ];
        cfg_over(&base, extra)
    }

    #[test]
    fn mpam_registers_and_fields() {
        let mut d = drv(&mpam_cfg(&["realm=on"]));
        // 10.5.2.27/28: PARTID_MAX [15:0], PMG_MAX [23:16]; CFGR.FILTER_PARTID_PMG [25].
        assert_eq!(rd_as(&mut d, RegId::Mpamidr, NS), 0x0003_0020);
        assert_eq!(d.apb_read(0xE74, RLM), 0x0003_0020);
        assert_eq!(d.apb_read(0xE78, S), 0x0001_0008);
        assert_eq!(d.apb_read(0xE78, ROOT), 0x0001_0008);
        assert_eq!(d.apb_read(0xE78, NS), 0, "S_MPAMIDR is Secure-or-Root only");
        assert_eq!(d.apb_read(0xE78, RLM), 0);
        d.apb_write(0xE74, 0, S);
        assert_eq!(d.apb_read(0xE74, S), 0x0003_0020, "RO");
        assert_eq!(
            rd(&mut d, RegId::Cfgr) >> 24 & 3,
            0b10,
            "FILTER_PARTID_PMG, not MPAM"
        );
        // SMR implements [23:0] (PMG, PARTID) with W = 16.
        wr(&mut d, RegId::Smr(1), 0xFFFF_FFFF);
        assert_eq!(rd(&mut d, RegId::Smr(1)), 0x00FF_FFFF);
        // EVTYPER: FILTER_PARTID [16], FILTER_PMG [17], FILTER_MPAM_SP [19:18] with Realm.
        wr(&mut d, RegId::Evtyper(1), 0xFFFF_FFFF);
        assert_eq!(rd(&mut d, RegId::Evtyper(1)), 0xF00F_FFFF);
        // Without Realm FILTER_MPAM_SP[1] (bit 19) is RES0; with W = 32 SMR keeps 32 bits.
        let mut d = drv(&mpam_cfg(&["sid_bits=32"]));
        wr(&mut d, RegId::Evtyper(1), 0xFFFF_FFFF);
        assert_eq!(rd(&mut d, RegId::Evtyper(1)), 0xE007_FFFF);
        wr(&mut d, RegId::Smr(1), 0xFFFF_FFFF);
        assert_eq!(rd(&mut d, RegId::Smr(1)), 0xFFFF_FFFF);
        // Without Secure state: no S_MPAMIDR.
        let mut d = drv(&mpam_cfg(&["secure=off"]));
        assert_eq!(d.apb_read(0xE78, S), 0);
        assert_eq!(d.apb_read(0xE74, NS), 0x0003_0020);
    }

    #[test]
    fn streamid_match_uses_the_low_sid_bits_of_an_mpam_smr() {
        let mut d = drv(&mpam_cfg(&["counters=2"])); // W = 16
        let span = field(&d, RegId::Evtyper(0), "FILTER_SID_SPAN");
        wr(&mut d, RegId::Evtyper(0), 1);
        wr(&mut d, RegId::Smr(0), 0x00AB_0042); // PMG 0xAB: not part of STREAMID
        wr(&mut d, RegId::Evtyper(1), span | 1);
        wr(&mut d, RegId::Smr(1), 0x0012_FFFF); // AllSIDManySECSID in the low 16 bits
        enable(&mut d);
        assert_eq!(hits(&mut d, &[ev(1, 0x42, NSEC, false)]), [1, 1]);
        assert_eq!(hits(&mut d, &[ev(1, 0x43, NSEC, true)]), [0, 1]);
    }

    #[test]
    fn mpam_match_limits_and_space_selection() {
        use MpamSpace::{NonSecure as MNS, Realm as MRL, Root as MRT, Secure as MS};
        let mut d = drv(&mpam_cfg(&["realm=on", "lanes=2"]));
        let e0 = RegId::Evtyper(0);
        let fpart = field(&d, e0, "FILTER_PARTID");
        let fpmg = field(&d, e0, "FILTER_PMG");
        let sp_mask = field(&d, e0, "FILTER_MPAM_SP");
        let sp_lsb = sp_mask.trailing_zeros();
        let sec = field(&d, e0, "FILTER_SEC_SID");
        let realm = field(&d, e0, "FILTER_REALM_SID");
        let span = field(&d, e0, "FILTER_SID_SPAN");
        let sp = |v: u32| v << sp_lsb;
        let smr = |partid: u32, pmg: u32| pmg << 16 | partid;
        enable(&mut d);
        // Counter 0 is the MPAM filter under test (event 1); the others count nothing here.
        let check = |d: &mut Driver<Model>, e: u32, s: u32, lane: LaneIn, want: u64| {
            wr(d, e0, e | 1);
            wr(d, RegId::Smr(0), s);
            let got = hits(d, &[lane, LaneIn::default()])[0];
            assert_eq!(got, want, "EVTYPER0 {e:#x} SMR0 {s:#x} {lane:?}");
        };
        // FILTER_PARTID: PARTID 5 in the Non-secure space (SP = 01); PMG ignored.
        let e = fpart | sp(1);
        check(&mut d, e, smr(5, 2), mev(1, NSEC, 5, 0, MNS), 1);
        check(&mut d, e, smr(5, 2), mev(1, NSEC, 5, 3, MNS), 1);
        check(&mut d, e, smr(5, 2), mev(1, NSEC, 6, 2, MNS), 0);
        check(&mut d, e, smr(5, 2), mev(1, NSEC, 5, 2, MS), 0);
        check(&mut d, e, smr(5, 2), mev(1, NSEC, 5, 2, MRL), 0);
        check(&mut d, e, smr(5, 2), mev(1, NSEC, 5, 2, MRT), 0);
        // The StreamID is not filtered (ExactSID 0x7 in SMR's low bits would reject 0x1234);
        // NoStreamID accesses pass too.
        check(&mut d, e, smr(7, 0), mev(1, NSEC, 7, 0, MNS), 1);
        let nosid = LaneIn {
            nosid: true,
            ..mev(1, NSEC, 7, 0, MNS)
        };
        check(&mut d, e, smr(7, 0), nosid, 1);
        // FILTER_PMG: PMG 2, any PARTID; both.
        check(&mut d, fpmg | sp(1), smr(5, 2), mev(1, NSEC, 9, 2, MNS), 1);
        check(&mut d, fpmg | sp(1), smr(5, 2), mev(1, NSEC, 5, 3, MNS), 0);
        let both = fpart | fpmg | sp(1);
        check(&mut d, both, smr(5, 2), mev(1, NSEC, 5, 2, MNS), 1);
        check(&mut d, both, smr(5, 2), mev(1, NSEC, 5, 1, MNS), 0);
        check(&mut d, both, smr(5, 2), mev(1, NSEC, 4, 2, MNS), 0);
        // Limits of the Non-secure space (MPAMIDR: PARTID_MAX 0x20, PMG_MAX 3).
        check(&mut d, both, smr(0x20, 3), mev(1, NSEC, 0x20, 3, MNS), 1);
        check(&mut d, both, smr(0x21, 3), mev(1, NSEC, 0x21, 3, MNS), 0);
        check(&mut d, both, smr(0x20, 4), mev(1, NSEC, 0x20, 4, MNS), 0);
        // A limit only applies to the value filtered on.
        check(
            &mut d,
            fpmg | sp(1),
            smr(0x21, 3),
            mev(1, NSEC, 0, 3, MNS),
            1,
        );
        check(
            &mut d,
            fpart | sp(1),
            smr(0x20, 4),
            mev(1, NSEC, 0x20, 0, MNS),
            1,
        );
        // SP = 00: Secure if SO = 1, else Non-secure; 10 is reserved and behaves as 00.
        for spv in [0, 2] {
            let e = fpart | fpmg | sp(spv);
            set_ctl(&mut d, Ctl::default());
            check(&mut d, e, smr(5, 1), mev(1, NSEC, 5, 1, MNS), 1);
            check(&mut d, e, smr(5, 1), mev(1, NSEC, 5, 1, MS), 0);
            set_ctl(
                &mut d,
                Ctl {
                    so: true,
                    ..Ctl::default()
                },
            );
            check(&mut d, e, smr(5, 1), mev(1, NSEC, 5, 1, MS), 1);
            check(&mut d, e, smr(5, 1), mev(1, NSEC, 5, 1, MNS), 0);
            // The Secure space's limits are S_MPAMIDR's (PARTID_MAX 8, PMG_MAX 1).
            check(&mut d, e, smr(8, 1), mev(1, NSEC, 8, 1, MS), 1);
            check(&mut d, e, smr(9, 1), mev(1, NSEC, 9, 1, MS), 0);
            check(&mut d, e, smr(8, 2), mev(1, NSEC, 8, 2, MS), 0);
        }
        // SP = 11: Realm if RLO = 1 (MPAMIDR limits), else Non-secure.
        let e = fpart | fpmg | sp(3);
        set_ctl(&mut d, Ctl::default());
        check(&mut d, e, smr(0x20, 3), mev(1, NSEC, 0x20, 3, MNS), 1);
        check(&mut d, e, smr(0x20, 3), mev(1, NSEC, 0x20, 3, MRL), 0);
        check(&mut d, e, smr(0x20, 3), mev(1, NSEC, 0x20, 3, MS), 0);
        set_ctl(
            &mut d,
            Ctl {
                rlo: true,
                ..Ctl::default()
            },
        );
        check(&mut d, e, smr(0x20, 3), mev(1, NSEC, 0x20, 3, MRL), 1);
        check(&mut d, e, smr(0x20, 3), mev(1, NSEC, 0x20, 3, MNS), 0);
        check(&mut d, e, smr(0x21, 3), mev(1, NSEC, 0x21, 3, MRL), 0);
        // The security state is the AllSIDManySECSID set of this counter (SPAN ignored).
        set_ctl(&mut d, Ctl::default());
        let e = fpart | sp(1);
        check(&mut d, e, smr(5, 0), mev(1, SEC, 5, 0, MNS), 0);
        check(&mut d, e | sec, smr(5, 0), mev(1, SEC, 5, 0, MNS), 0);
        set_ctl(
            &mut d,
            Ctl {
                so: true,
                ..Ctl::default()
            },
        );
        check(&mut d, e, smr(5, 0), mev(1, SEC, 5, 0, MNS), 1);
        check(&mut d, e | span, smr(5, 0), mev(1, REALM, 5, 0, MNS), 0);
        set_ctl(
            &mut d,
            Ctl {
                rlo: true,
                ..Ctl::default()
            },
        );
        check(&mut d, e | realm, smr(5, 0), mev(1, REALM, 5, 0, MNS), 1);
        check(&mut d, e | realm, smr(5, 0), mev(1, ROOT_SS, 5, 0, MNS), 0);
        check(&mut d, e | realm, smr(5, 0), mev(1, NSP_SS, 5, 0, MNS), 0);
        set_ctl(
            &mut d,
            Ctl {
                rlo: true,
                pmo: true,
                ..Ctl::default()
            },
        );
        check(&mut d, e | realm, smr(5, 0), mev(1, NSP_SS, 5, 0, MNS), 1);
        // Events 3 and 5 are filtered too (lane bits 2 and 4).
        set_ctl(&mut d, Ctl::default());
        wr(&mut d, RegId::Evtyper(1), 3);
        wr(&mut d, RegId::Evtyper(2), 5);
        for n in 1..3 {
            wr(&mut d, RegId::Smr(n), smr(5, 0));
        }
        wr(&mut d, RegId::Evtyper(1), fpart | sp(1) | 3);
        wr(&mut d, RegId::Evtyper(2), fpart | sp(1) | 5);
        let l = [mev(0b10100, NSEC, 5, 0, MNS), mev(0b10100, NSEC, 6, 0, MNS)];
        assert_eq!(hits(&mut d, &l)[1..3], [1, 1]);
    }

    #[test]
    fn mpam_filter_with_the_global_filter_and_unfilterable_events() {
        let c = mpam_cfg(&[
            "sid_filter=global",
            "impdef=0x80,0x81",
            "impdef_global=0x80",
            "impdef_nonattr=0x81",
        ]);
        let mut d = drv(&c);
        let e0 = RegId::Evtyper(0);
        let fpart = field(&d, e0, "FILTER_PARTID");
        let sp = field(&d, e0, "FILTER_MPAM_SP"); // 1 bit without Realm: 1 = Non-secure
        wr(&mut d, e0, fpart | sp | 1);
        wr(&mut d, RegId::Smr(0), 5);
        wr(&mut d, RegId::Evtyper(1), 2);
        wr(&mut d, RegId::Evtyper(2), 0x80); // lane bit 5
        wr(&mut d, RegId::Evtyper(3), 0x81); // lane bit 6
        set_ctl(
            &mut d,
            Ctl {
                so: true,
                ..Ctl::default()
            },
        ); // non-attributable permitted
        enable(&mut d);
        let bits = 0b110_0011;
        use MpamSpace::{NonSecure as MNS, Secure as MS};
        assert_eq!(hits(&mut d, &[mev(bits, NSEC, 5, 0, MNS)]), [1, 1, 1, 1]);
        assert_eq!(hits(&mut d, &[mev(bits, NSEC, 6, 0, MNS)]), [0, 0, 1, 1]);
        assert_eq!(hits(&mut d, &[mev(bits, NSEC, 5, 0, MS)]), [0, 0, 1, 1]);
        assert_eq!(hits(&mut d, &[mev(bits, ROOT_SS, 6, 0, MS)]), [0, 0, 1, 1]);
    }

    // ---- IRQ_CTRLACK, IRQ_STATUS, the MSI master, capture and export (behaviour.md) ----

    /// An MSI target within pa_bits = 48, bits [1:0] clear, and a payload.
    const MSI_ADDR: u64 = 0x0000_8765_4321_0ABC;
    const MSI_DATA: u32 = 0xCAFE_F00D;

    /// `c` with counter n counting cycles from `starts[n]` (CNTEN and INTEN set for them),
    /// IRQ_CFG0 = `addr`, IRQ_CFG1 = MSI_DATA, IRQ_CFG2 = SH 2 | MEMATTR 0xB, IRQ_CTRL.IRQEN = 1,
    /// CR.E still 0; `resp` answers the MSIs.
    fn msi_setup(c: &PmcgConfig, resp: MsiResponder, addr: u64, starts: &[u32]) -> Driver<Model> {
        let mut d = drv(c);
        d.msi = resp;
        for (n, &v) in starts.iter().enumerate() {
            wr(&mut d, RegId::Evcntr(n as u32), v);
        }
        let bits = (1u32 << starts.len()) - 1;
        wr(&mut d, RegId::CntenSet0, bits);
        wr(&mut d, RegId::IntenSet0, bits);
        if c.msi {
            wr64(&mut d, RegId::IrqCfg0, addr);
            wr(&mut d, RegId::IrqCfg1, MSI_DATA);
            wr(&mut d, RegId::IrqCfg2, 0x2B);
        }
        wr(&mut d, RegId::IrqCtrl, 1);
        d
    }

    /// Writes CR.E = 1 and idles one cycle; returns w, that idle cycle (cycle counting from
    /// edge w+1, the second after the write's access edge w-1: a counter started at
    /// 0xFFFF_FFFE - k overflows at edge w+2+k).
    fn start(d: &mut Driver<Model>) -> u64 {
        wr(d, RegId::Cr, 1);
        tick(d);
        d.cycle - 1
    }

    /// Two 32-bit counters; Secure state, MSI and capture as by default.
    fn msi_cfg() -> PmcgConfig {
        cfg(&["counters=2", "counter_bits=32"])
    }

    fn ack(d: &Driver<Model>) -> u64 {
        d.dut.read_reg(RegId::IrqCtrlAck)
    }

    fn abt(d: &Driver<Model>) -> u64 {
        d.dut.read_reg(RegId::IrqStatus)
    }

    /// Steps until the responder has completed `n` MSIs (at most `max` cycles).
    fn run_until_msis(d: &mut Driver<Model>, n: usize, max: u64) {
        for _ in 0..max {
            if d.msi.completed.len() >= n {
                return;
            }
            tick(d);
        }
        panic!("{n} MSIs not completed within {max} cycles");
    }

    #[test]
    fn msi_latency_payload_and_handshake() {
        // ADDR bits [1:0] are RES0: writing them changes nothing.
        let mut d = msi_setup(
            &msi_cfg(),
            MsiResponder::fixed(0, 0, 0, RESP_OKAY),
            MSI_ADDR | 3,
            &[0xFFFF_FFFE],
        );
        let w = start(&mut d);
        let o1 = tick(&mut d); // cycle w+1
        let o2 = tick(&mut d); // cycle w+2: counter 0 overflows at its edge
        let o2r = tick(&mut d); // cycle w+3: the overflow registered, acted on at its edge
        assert!(!o1.awvalid && !o2.awvalid && !o1.wvalid && !o2.wvalid && !o2.irq);
        assert!(!o2r.awvalid && !o2r.wvalid && !o2r.irq);
        assert_eq!((o1.awaddr, o1.wdata, o1.wstrb, o1.awprot), (0, 0, 0, 0));
        // Cycle w+4: the wired pulse and AWVALID/WVALID together (qualifying overflow at edge t
        // -> AWVALID in cycle t+2), the payload of 10.5.2.21-22 and 10.6 NS.
        let o3 = tick(&mut d);
        assert!(o3.irq && o3.awvalid && o3.wvalid && !o3.bready);
        assert_eq!(
            (o3.awaddr, o3.awprot, o3.wdata, o3.wstrb),
            (MSI_ADDR, 0b011, MSI_DATA, 0xF)
        );
        assert_eq!((o3.msi_memattr, o3.msi_sh), (0xB, 2), "IRQ_CFG2 sidebands");
        assert!(d.dut.msi_busy());
        // READY was high in cycle w+4: both accepted at edge w+4; BREADY in w+5, when the
        // responder's BVALID (b_delay 0) rises: the response is accepted at edge w+5.
        let o4 = tick(&mut d);
        assert!(!o4.awvalid && !o4.wvalid && o4.bready);
        assert!(!d.dut.msi_busy());
        let o5 = tick(&mut d);
        assert!(!o5.awvalid && !o5.wvalid && !o5.bready && !o5.irq);
        assert_eq!(
            (o5.awaddr, o5.awprot, o5.wdata, o5.wstrb),
            (0, 0, 0, 0),
            "a payload is 0 outside its VALID"
        );
        assert_eq!(d.msi.completed.len(), 1);
        let m = d.msi.completed[0];
        assert_eq!(
            (m.addr, m.prot, m.data, m.strb, m.resp),
            (MSI_ADDR, 0b011, MSI_DATA, 0xF, RESP_OKAY)
        );
        assert_eq!((m.first_valid, m.completed), (w + 4, w + 5));
        assert_eq!(ack(&d), 1);
        assert_eq!(abt(&d), 0);
        assert!(d.msi.violations.is_empty(), "{:?}", d.msi.violations);

        // With delays: AWREADY after 3 cycles of AWVALID, WREADY after 1, BVALID 2 cycles after
        // both. Per cycle from w+1: (AWVALID, WVALID, BREADY).
        let mut d = msi_setup(
            &msi_cfg(),
            MsiResponder::fixed(3, 1, 2, RESP_OKAY),
            MSI_ADDR,
            &[0xFFFF_FFFE],
        );
        let w = start(&mut d);
        let seen: Vec<(bool, bool, bool)> = (0..12)
            .map(|_| {
                let o = tick(&mut d);
                (o.awvalid, o.wvalid, o.bready)
            })
            .collect();
        let (f, t) = (false, true);
        let expect = [
            (f, f, f), // w+1
            (f, f, f), // w+2: overflow
            (f, f, f), // w+3: the overflow registered; issue at this edge
            (t, t, f), // w+4: not ready
            (t, t, f), // w+5: WREADY, W accepted
            (t, f, f), // w+6
            (t, f, f), // w+7: AWREADY, AW accepted
            (f, f, t), // w+8: BREADY, BVALID low
            (f, f, t), // w+9
            (f, f, t), // w+10: BVALID, accepted
            (f, f, f), // w+11
            (f, f, f), // w+12
        ];
        assert_eq!(seen, expect);
        assert_eq!(d.msi.completed[0].completed, w + 10);
        assert!(d.msi.violations.is_empty(), "{:?}", d.msi.violations);
    }

    #[test]
    fn aw_and_w_are_independent_and_bready_needs_both() {
        for aw_first in [false, true] {
            let mut d = msi_setup(
                &msi_cfg(),
                MsiResponder::default(),
                MSI_ADDR,
                &[0xFFFF_FFFE],
            );
            start(&mut d);
            // Drive the AXI inputs by hand from here (cycle w+1).
            let m = &mut d.dut;
            let idle = || PinInputs::idle(1);
            m.step(&idle()); // w+1
            m.step(&idle()); // w+2: overflow
            m.step(&idle()); // w+3: the overflow registered; issue at this edge
            let mut i = idle();
            // Cycle w+4: only one READY; BVALID (early, ignored without BREADY) set.
            (i.awready, i.wready, i.bvalid) = (aw_first, !aw_first, true);
            let o = m.step(&i);
            assert!(o.awvalid && o.wvalid && !o.bready);
            let mut i = idle();
            (i.awready, i.wready, i.bvalid) = (true, true, true);
            let o = m.step(&i); // w+5: the other one accepted; READY on the done one is ignored
            assert_eq!(
                (o.awvalid, o.wvalid, o.bready),
                (!aw_first, aw_first, false)
            );
            assert!(m.msi_busy());
            let o = m.step(&idle()); // w+6: BREADY, no BVALID
            assert_eq!((o.awvalid, o.wvalid, o.bready), (false, false, true));
            let o = m.step(&idle()); // w+7: still waiting
            assert!(o.bready && m.msi_busy());
            let mut i = idle();
            (i.bvalid, i.bresp) = (true, RESP_OKAY);
            assert!(m.step(&i).bready); // w+8: accepted at its edge
            assert!(!m.msi_busy());
            let o = m.step(&idle());
            assert_eq!((o.awvalid, o.wvalid, o.bready), (false, false, false));
            assert_eq!(m.read_reg(RegId::IrqStatus), 0);
        }
    }

    #[test]
    fn irq_ctrlack_falls_only_when_the_outstanding_msi_completes() {
        let mut d = msi_setup(
            &msi_cfg(),
            MsiResponder::fixed(0, 0, 20, RESP_OKAY),
            MSI_ADDR,
            &[0xFFFF_FFFE],
        );
        let w = start(&mut d);
        d.idle(4); // AWVALID in cycle w+4, AW and W accepted at edge w+4
                   // IRQEN 1 -> 0 while BUSY (access edge w+6): ACK stays 1.
        wr(&mut d, RegId::IrqCtrl, 0);
        assert_eq!((d.dut.read_reg(RegId::IrqCtrl), ack(&d)), (0, 1));
        assert_eq!(
            rd(&mut d, RegId::IrqCtrlAck),
            1,
            "IRQ_CTRLACK read while BUSY"
        );
        // IRQ_CFGx are still Guarded (ACK = 1).
        wr(&mut d, RegId::IrqCfg1, 0x1234);
        assert_eq!(d.dut.read_reg(RegId::IrqCfg1), MSI_DATA as u64);
        // BVALID rises 20 cycles after the handshakes: ACK falls at the accepting edge, no
        // earlier and no later.
        let mut steps = 0;
        while d.msi.completed.is_empty() {
            assert_eq!(ack(&d), 1, "cycle {}", d.cycle);
            assert!(tick(&mut d).bready);
            steps += 1;
            assert!(steps < 40);
        }
        let done = d.msi.completed[0].completed;
        assert_eq!(done, w + 25);
        assert_eq!(d.cycle, done + 1);
        assert_eq!(
            ack(&d),
            0,
            "ACK falls at the edge that accepts the response"
        );
        assert_eq!(rd(&mut d, RegId::IrqCtrlAck), 0);
        wr(&mut d, RegId::IrqCfg1, 0x1234);
        assert_eq!(rd(&mut d, RegId::IrqCfg1), 0x1234, "no longer Guarded");
        // 1 -> 0 with nothing outstanding completes one edge after the write's (an overflow that
        // qualified at the write's edge would make its MSI pending there); 0 -> 1 completes at
        // the write's edge.
        wr(&mut d, RegId::IrqCtrl, 1);
        assert_eq!(ack(&d), 1);
        wr(&mut d, RegId::IrqCtrl, 0);
        assert_eq!(ack(&d), 1, "ACK holds at the write's edge");
        tick(&mut d);
        assert_eq!(ack(&d), 0, "ACK falls at the next edge");
        assert_eq!(d.msi.completed.len(), 1);
        assert!(d.msi.violations.is_empty(), "{:?}", d.msi.violations);
    }

    #[test]
    fn irq_abt_set_by_an_error_response_cleared_by_ack_rising() {
        for resp in [RESP_OKAY, RESP_SLVERR, RESP_DECERR] {
            let mut d = msi_setup(
                &msi_cfg(),
                MsiResponder::fixed(0, 0, 0, resp),
                MSI_ADDR,
                &[0xFFFF_FFFE],
            );
            start(&mut d);
            d.idle(4); // w+1 .. w+4: AW and W accepted at edge w+4
            assert_eq!(abt(&d), 0);
            tick(&mut d); // w+5: the response is accepted at its edge
            assert_eq!(d.msi.completed.len(), 1);
            let err = (resp != RESP_OKAY) as u64;
            assert_eq!(abt(&d), err, "IRQ_ABT at the accepting edge ({resp:#b})");
            assert_eq!(rd(&mut d, RegId::IrqStatus), err as u32);
            // IRQEN 1 -> 0 does not clear it; 0 -> 1 does (10.5.2.24).
            wr(&mut d, RegId::IrqCtrl, 0);
            assert_eq!(abt(&d), err);
            wr(&mut d, RegId::IrqCtrl, 1);
            assert_eq!(abt(&d), 0);
            // IRQ_STATUS is RO.
            wr(&mut d, RegId::IrqStatus, 1);
            assert_eq!(abt(&d), 0);
        }

        // IRQEN 1 -> 0 -> 1 while an MSI is outstanding: ACK never goes 0 -> 1, so IRQ_ABT stays.
        let mut d = msi_setup(
            &msi_cfg(),
            MsiResponder::fixed(0, 0, 30, RESP_SLVERR),
            MSI_ADDR,
            &[0xFFFF_FFFE],
        );
        start(&mut d);
        run_until_msis(&mut d, 1, 100);
        assert_eq!(abt(&d), 1);
        wr(&mut d, RegId::Evcntr(0), 0xFFFF_FFFE);
        d.idle(4); // overflow, second MSI outstanding
        assert!(d.dut.msi_busy());
        wr(&mut d, RegId::IrqCtrl, 0);
        assert_eq!(ack(&d), 1);
        wr(&mut d, RegId::IrqCtrl, 1);
        assert_eq!((ack(&d), abt(&d)), (1, 1), "ACK stayed 1: no 0 -> 1 update");
        assert!(d.dut.msi_busy());
        run_until_msis(&mut d, 2, 100);
        assert_eq!((ack(&d), abt(&d)), (1, 1));
        wr(&mut d, RegId::IrqCtrl, 0);
        tick(&mut d); // ACK falls one edge after the write's
        assert_eq!((ack(&d), abt(&d)), (0, 1));
        wr(&mut d, RegId::IrqCtrl, 1);
        assert_eq!((ack(&d), abt(&d)), (1, 0));
        assert!(d.msi.violations.is_empty(), "{:?}", d.msi.violations);
    }

    #[test]
    fn no_msi_without_an_address_an_enable_or_the_msi_option() {
        // ADDR == 0 (bits [1:0] are not stored): the wired pulse only (10.5.2.21).
        let mut d = msi_setup(&msi_cfg(), MsiResponder::default(), 3, &[0xFFFF_FFFE]);
        assert_eq!(d.dut.read_reg(RegId::IrqCfg0), 0);
        start(&mut d);
        for _ in 0..20 {
            let o = tick(&mut d);
            assert!(!o.awvalid && !o.wvalid && !o.bready);
        }
        assert_eq!(d.irq_pulses, 1);
        assert!(d.msi.completed.is_empty() && !d.dut.msi_pending());

        // IRQEN = 0: neither the pulse nor an MSI.
        let mut d = msi_setup(
            &msi_cfg(),
            MsiResponder::default(),
            MSI_ADDR,
            &[0xFFFF_FFFE],
        );
        wr(&mut d, RegId::IrqCtrl, 0);
        start(&mut d);
        d.idle(20);
        assert_eq!((d.irq_pulses, d.msi.completed.len()), (0, 0));
        assert_eq!(d.dut.ovs(), 1);
        // INTEN = 0: likewise.
        let mut d = msi_setup(
            &msi_cfg(),
            MsiResponder::default(),
            MSI_ADDR,
            &[0xFFFF_FFFE],
        );
        wr(&mut d, RegId::IntenClr0, 1);
        start(&mut d);
        d.idle(20);
        assert_eq!((d.irq_pulses, d.msi.completed.len()), (0, 0));

        // Without MSI: IRQ_CFGx and IRQ_STATUS are RES0, every master output is 0, ACK follows
        // IRQEN at once, the wired pulse works.
        let c = cfg(&["counters=2", "counter_bits=32", "msi=off"]);
        let mut d = msi_setup(&c, MsiResponder::default(), MSI_ADDR, &[0xFFFF_FFFE]);
        for a in [offset::IRQ_CFG0, offset::IRQ_CFG1, offset::IRQ_CFG2] {
            d.apb_write(a, 0xFFFF_FFFF, S);
            assert_eq!(d.apb_read(a, S), 0);
        }
        assert_eq!(ack(&d), 1);
        start(&mut d);
        let quiet = PinOutputs {
            pready: true,
            ..PinOutputs::default()
        };
        let mut pulses = 0;
        for _ in 0..20 {
            let mut o = tick(&mut d);
            pulses += o.irq as u32;
            o.irq = false;
            o.ovf_export = 0;
            assert_eq!(o, quiet);
        }
        assert_eq!(pulses, 1);
        assert_eq!(d.apb_read(offset::IRQ_STATUS, S), 0);
        wr(&mut d, RegId::IrqCtrl, 0);
        assert_eq!(ack(&d), 0);
    }

    #[test]
    fn overflows_while_an_msi_is_outstanding_give_exactly_one_more() {
        // Counter 0 overflows at edge o = w+2; its MSI is issued at o+1, its AW/W are accepted
        // at o+2 and its response (BVALID b cycles after) at o+3+b. Counter 1 overflows at edge
        // o+k, acted on at o+k+1.
        let b = 5u64;
        for k in 0..=b + 5 {
            let mut d = msi_setup(
                &msi_cfg(),
                MsiResponder::fixed(0, 0, b as u32, RESP_OKAY),
                MSI_ADDR,
                &[0xFFFF_FFFE, 0xFFFF_FFFE - k as u32],
            );
            let o = start(&mut d) + 2;
            d.idle(60);
            let got = &d.msi.completed;
            assert_eq!(got[0].first_valid, o + 2);
            assert_eq!(got[0].completed, o + 3 + b);
            let second = match k {
                0 => None,                          // the same edge: one MSI
                _ if k <= b + 3 => Some(o + 5 + b), // BUSY in cycle o+k+1 or issued at o+4+b
                _ => Some(o + k + 2),               // nothing outstanding: AWVALID in cycle o+k+2
            };
            assert_eq!(got.get(1).map(|m| m.first_valid), second, "k = {k}");
            assert_eq!(got.len(), 1 + second.is_some() as usize, "k = {k}");
            assert_eq!(
                d.irq_pulses,
                1 + (k != 0) as u64,
                "one pulse per qualifying edge"
            );
            assert!(d.msi.violations.is_empty(), "{:?}", d.msi.violations);
        }

        // Several overflow edges while one MSI is outstanding: one further MSI.
        let mut d = msi_setup(
            &cfg(&["counters=3", "counter_bits=32"]),
            MsiResponder::fixed(0, 0, 10, RESP_OKAY),
            MSI_ADDR,
            &[0xFFFF_FFFE, 0xFFFF_FFFD, 0xFFFF_FFFB],
        );
        start(&mut d);
        d.idle(80);
        assert_eq!((d.irq_pulses, d.msi.completed.len()), (3, 2));

        // A pending MSI is not dropped when IRQEN goes 0 (10.5.2.7 / 10.5.2.19): it is issued
        // after the outstanding one, and ACK stays 1 until its response.
        let mut d = msi_setup(
            &msi_cfg(),
            MsiResponder::fixed(0, 0, 20, RESP_OKAY),
            MSI_ADDR,
            &[0xFFFF_FFFE, 0xFFFF_FFFB],
        );
        start(&mut d);
        d.idle(6);
        assert!(d.dut.msi_busy() && d.dut.msi_pending());
        wr(&mut d, RegId::IrqCtrl, 0);
        tick(&mut d);
        assert!(d.dut.msi_pending(), "kept with IRQEN = 0");
        assert_eq!(ack(&d), 1);
        // ACK reads 1 until the second MSI's response has been accepted, 0 right after.
        for _ in 0..80 {
            let done = d.msi.completed.len();
            tick(&mut d);
            if done < 2 {
                assert_eq!(ack(&d), (d.msi.completed.len() < 2) as u64, "{done} done");
            }
        }
        assert_eq!((d.msi.completed.len(), ack(&d)), (2, 0));
        assert_eq!(d.irq_pulses, 2);
    }

    #[test]
    fn awprot_ns_follows_scr_nsmsi_and_nsra() {
        // (secure, NSMSI, NSRA, AWPROT = {data 0, NS, privileged 1}).
        for (secure, nsmsi, nsra, prot) in [
            (true, true, true, 0b011),
            (true, true, false, 0b011),
            (true, false, true, 0b011),
            (true, false, false, 0b001),
            (false, false, false, 0b011), // no Secure state: Non-secure
        ] {
            let sec = if secure { "secure=on" } else { "secure=off" };
            let c = cfg(&["counters=2", "counter_bits=32", sec]);
            let mut d = msi_setup(&c, MsiResponder::default(), MSI_ADDR, &[0xFFFF_FFFE]);
            if secure {
                wr(&mut d, RegId::Scr, (nsmsi as u32) << 2 | (nsra as u32) << 1);
            }
            start(&mut d);
            run_until_msis(&mut d, 1, 20);
            assert_eq!(d.msi.completed[0].prot, prot, "{secure} {nsmsi} {nsra}");
        }

        // Taken at the issuing edge: an SCR write while AWVALID waits does not change AWPROT
        // (the responder checks AWPROT is stable); the next MSI uses the new value.
        let mut d = msi_setup(
            &msi_cfg(),
            MsiResponder::fixed(10, 0, 0, RESP_OKAY),
            MSI_ADDR,
            &[0xFFFF_FFFE],
        );
        start(&mut d);
        d.idle(3);
        assert_eq!(tick(&mut d).awprot, 0b011);
        wr(&mut d, RegId::Scr, 0);
        let o = tick(&mut d);
        assert!(o.awvalid && o.awprot == 0b011);
        run_until_msis(&mut d, 1, 30);
        assert_eq!(d.msi.completed[0].prot, 0b011);
        wr(&mut d, RegId::Evcntr(0), 0xFFFF_FFFE);
        run_until_msis(&mut d, 2, 40);
        assert_eq!(d.msi.completed[1].prot, 0b001);
        assert!(d.msi.violations.is_empty(), "{:?}", d.msi.violations);
    }

    #[test]
    fn reset_abandons_an_outstanding_msi() {
        let mut d = msi_setup(
            &msi_cfg(),
            MsiResponder::fixed(50, 50, 0, RESP_OKAY),
            MSI_ADDR,
            &[0xFFFF_FFFE],
        );
        d.capt_req = true;
        start(&mut d);
        d.idle(3);
        assert!(d.dut.msi_busy());
        let mut r = PinInputs::idle(1);
        r.presetn = false;
        assert!(d.step_with(r.clone()).awvalid); // PRESETn low in cycle r
        assert!(d.step_with(r).awvalid); // cycle r+1: the reset edge ends it
        d.capt_req = false;
        let mut o = tick(&mut d);
        assert_eq!(
            o,
            PinOutputs {
                pready: true,
                ..PinOutputs::default()
            },
            "every output at its reset value"
        );
        o = tick(&mut d);
        assert!(!o.awvalid && !o.capt_ack);
        let m = &d.dut;
        assert!(!m.msi_busy() && !m.msi_pending());
        assert_eq!((ack(&d), abt(&d), m.svr(0)), (0, 0, 0));
        assert!(d.msi.completed.is_empty() && d.msi.violations.is_empty());
    }

    #[test]
    fn capr_write_captures_every_counter_after_its_edge() {
        let mut d = drv(&cfg(&["counters=3", "counter_bits=32"]));
        wr(&mut d, RegId::Evcntr(1), 0x1234);
        wr(&mut d, RegId::Evcntr(2), 0xFFFF_FFF0);
        wr(&mut d, RegId::CntenSet0, 0b101); // counters 0 and 2 count cycles, 1 is stopped
        wr(&mut d, RegId::Cr, 1);
        d.idle(5);
        wr(&mut d, RegId::Capr, 1);
        // The values after the CAPR access edge (that edge's counting included).
        let now: Vec<u64> = (0..3).map(|n| d.dut.counter(n)).collect();
        assert_eq!(now[1], 0x1234);
        assert_eq!((0..3).map(|n| d.dut.svr(n)).collect::<Vec<_>>(), now);
        d.idle(4);
        assert_eq!(
            rd(&mut d, RegId::Svr(0)) as u64,
            now[0],
            "SVRn hold their values"
        );
        assert_eq!(rd(&mut d, RegId::Svr(2)) as u64, now[2]);
        assert!(d.dut.counter(0) > now[0]);
        // CAPR reads 0; SVRn are RO.
        assert_eq!(rd(&mut d, RegId::Capr), 0);
        wr(&mut d, RegId::Svr(1), 0x55);
        assert_eq!(rd(&mut d, RegId::Svr(1)), 0x1234);

        // No capture: CAPTURE = 0, byte 0 not strobed, a refused Non-secure write.
        let capr = addr(&d, RegId::Capr);
        let before = d.dut.svr(0);
        d.apb_write(capr, 0xFFFF_FFFE, S);
        d.apb_write_strb(capr, 0xFFFF_FFFF, 0b1110, S);
        wr(&mut d, RegId::Scr, 0x4); // NSRA = 0
        d.apb_write(capr, 1, NS);
        assert_eq!(d.dut.svr(0), before);
        // A permitted Non-secure write captures.
        wr(&mut d, RegId::Scr, 0x6);
        d.apb_write(capr, 1, NS);
        assert_eq!(d.dut.svr(0), d.dut.counter(0));
        assert_ne!(d.dut.svr(0), before);
    }

    #[test]
    fn overflow_with_ovfcap_captures_with_the_post_overflow_value() {
        let c = cfg(&["counters=3", "counter_bits=32"]);
        let ovfcap = 1u32 << 31;
        // Counter 0 (OVFCAP per `cap0`) overflows at edge w+2+h; counter 1 counts cycles from 100
        // (OVFCAP per `cap1`, no overflow); counter 2 is stopped at 7.
        let setup = |cap0: bool, cap1: bool| {
            let mut d = drv(&c);
            wr(&mut d, RegId::Evtyper(0), if cap0 { ovfcap } else { 0 });
            wr(&mut d, RegId::Evtyper(1), if cap1 { ovfcap } else { 0 });
            wr(&mut d, RegId::Evcntr(0), 0xFFFF_FFFE - COUNTER_HOLD_CYCLES);
            wr(&mut d, RegId::Evcntr(1), 100);
            wr(&mut d, RegId::Evcntr(2), 7);
            wr(&mut d, RegId::CntenSet0, 0b011);
            wr(&mut d, RegId::IntenSet0, 0b001);
            wr(&mut d, RegId::IrqCtrl, 1);
            d
        };
        let mut d = setup(true, false);
        assert_eq!(rd(&mut d, RegId::Evtyper(0)), ovfcap);
        start(&mut d);
        tick(&mut d); // w+1
        assert_eq!(d.dut.svr(1), 0, "no capture yet");
        // Cycle w+2: the setup of an SVR1 read, held h cycles (w+3 .. w+2+h). Counter 0
        // overflows at edge e = w+2+h; the read is performed in its access cycle e+1, PRDATA in
        // e+2.
        let h = COUNTER_HOLD_CYCLES as u64;
        let mut bus = PinInputs::idle(1);
        (bus.psel, bus.paddr) = (true, addr(&d, RegId::Svr(1)));
        d.step_with(bus.clone());
        bus.penable = true;
        for _ in 1..h {
            assert!(!d.step_with(bus.clone()).pready);
        }
        assert_eq!(d.dut.svr(1), 0, "no capture before edge e");
        d.step_with(bus.clone()); // cycle e
        let after = [d.dut.counter(0), d.dut.counter(1), d.dut.counter(2)];
        assert_eq!((after[0], after[1], after[2]), (0, 102 + h, 7));
        assert_eq!([d.dut.svr(0), d.dut.svr(1), d.dut.svr(2)], after);
        // 10.2.1: the capture is visible no later than the interrupt: the read performed in
        // cycle e+1, a cycle before the pulse, returns it (on PRDATA in e+2, with the pulse).
        let o = d.step_with(bus.clone());
        assert!(!o.irq);
        assert_eq!((o.pready, o.prdata), (false, 0), "e+1: the access cycle");
        let o = d.step_with(bus);
        assert_eq!((o.pready, o.prdata as u64), (true, 102 + h));
        assert!(o.irq, "the pulse in cycle e+2");
        assert!(!tick(&mut d).irq, "one pulse");
        d.idle(3);
        assert_eq!(d.dut.svr(1), 102 + h);

        // OVFCAP on a counter that does not overflow, or on none: no capture.
        for (cap0, cap1) in [(false, true), (false, false)] {
            let mut d = setup(cap0, cap1);
            start(&mut d);
            d.idle(6 + h);
            assert_eq!(d.dut.ovs(), 1);
            assert_eq!([d.dut.svr(0), d.dut.svr(1), d.dut.svr(2)], [0, 0, 0]);
        }
    }

    #[test]
    fn external_capture_four_phase_handshake() {
        let mut d = drv(&cfg(&["counters=1", "counter_bits=32"]));
        wr(&mut d, RegId::CntenSet0, 1);
        wr(&mut d, RegId::Cr, 1);
        d.idle(3);
        // CAPT_REQ rises in cycle r (sampled at edge r): capture at edge r+1, CAPT_ACK from r+2.
        d.capt_req = true;
        assert!(!tick(&mut d).capt_ack); // r
        assert_eq!(d.dut.svr(0), 0);
        assert!(!tick(&mut d).capt_ack); // r+1: capture at its edge
        let v = d.dut.counter(0);
        assert_eq!(d.dut.svr(0), v);
        for _ in 0..5 {
            assert!(tick(&mut d).capt_ack, "held while the request is");
        }
        assert_eq!(d.dut.svr(0), v, "one capture per request");
        // CAPT_REQ falls in cycle s: CAPT_ACK is 1 in s and s+1, 0 from s+2.
        d.capt_req = false;
        assert!(tick(&mut d).capt_ack); // s
        assert!(tick(&mut d).capt_ack); // s+1
        assert!(!tick(&mut d).capt_ack); // s+2
        assert!(!tick(&mut d).capt_ack);
        assert_eq!(d.dut.svr(0), v);
        // A one-cycle request (cycle r): capture at edge r+1, CAPT_ACK in cycle r+2 only.
        d.capt_req = true;
        tick(&mut d);
        d.capt_req = false;
        let acks: Vec<bool> = (0..4).map(|_| tick(&mut d).capt_ack).collect();
        assert_eq!(acks, [false, true, false, false]);
        // Edges r+2 .. r+6, s .. s+3, the request's and the capture's: 11 counted since v.
        assert_eq!(d.dut.svr(0), v + 11);
    }

    #[test]
    fn svr_64_bit_read_is_atomic() {
        let mut d = drv(&cfg(&["counters=2"])); // 64-bit counters and SVRs
        let svr0 = addr(&d, RegId::Svr(0));
        wr64(&mut d, RegId::Evcntr(0), 0x0_1234_5678);
        wr(&mut d, RegId::Capr, 1);
        assert_eq!(d.apb_read64(svr0, S), 0x0_1234_5678);
        // Stopped counter.
        wr64(&mut d, RegId::Evcntr(0), 0x1_0000_0005);
        // Low-word read performed in its access cycle a, after its held wait states (PRDATA in
        // a+1); an external capture at edge a+1 changes SVR0 before the high-word read (setup
        // a+2, performed after its own wait states): it returns the snapshot.
        let mut bus = PinInputs::idle(1);
        (bus.psel, bus.paddr) = (true, svr0);
        d.step_with(bus.clone());
        bus.penable = true;
        for _ in 0..COUNTER_HOLD_CYCLES {
            assert!(!d.step_with(bus.clone()).pready, "held");
        }
        d.capt_req = true; // sampled at edge a
        assert!(!d.step_with(bus.clone()).pready, "a: the wait state");
        d.capt_req = false;
        let o = d.step_with(bus.clone()); // a+1: the capture happens at its edge
        assert_eq!((o.pready, o.prdata), (true, 0x1234_5678));
        assert_eq!(d.dut.svr(0), 0x1_0000_0005);
        bus.paddr = svr0 + 4;
        bus.penable = false;
        d.step_with(bus.clone()); // a+2: the high read's setup
        bus.penable = true;
        for _ in 0..COUNTER_HOLD_CYCLES {
            assert!(!d.step_with(bus.clone()).pready, "held");
        }
        assert!(!d.step_with(bus.clone()).pready, "the access cycle");
        assert_eq!(
            d.step_with(bus).prdata,
            0,
            "the high word of the low read's cycle"
        );
        assert_eq!(d.apb_read(svr0 + 4, S), 1, "high word alone: live");
        assert_eq!(d.apb_read64(svr0, S), 0x1_0000_0005);
    }

    #[test]
    fn without_capture_svr_capr_and_ovfcap_are_res0() {
        let c = cfg(&["counters=2", "counter_bits=32", "capture=off"]);
        let mut d = drv(&c);
        assert!(d.dut.map().get(RegId::Svr(0)).is_none());
        wr(&mut d, RegId::Evtyper(0), 0x8000_0000);
        assert_eq!(rd(&mut d, RegId::Evtyper(0)), 0, "OVFCAP RES0");
        wr(&mut d, RegId::Evcntr(0), 0xFFFF_FFFE);
        wr(&mut d, RegId::CntenSet0, 1);
        wr(&mut d, RegId::Cr, 1);
        d.apb_write(offset::CAPR, 1, S);
        d.capt_req = true;
        for _ in 0..10 {
            assert!(!tick(&mut d).capt_ack);
        }
        let svr0 = d.dut.map().array_base(RegId::Svr(0));
        assert_eq!((d.apb_read(svr0, S), d.apb_read(offset::CAPR, S)), (0, 0));
        assert_eq!(d.dut.svr(0), 0);
    }

    #[test]
    fn overflow_export_pulses_per_counter() {
        // No INTEN, no IRQEN: export is every overflow.
        let mut d = drv(&cfg(&["counters=3", "counter_bits=32"]));
        wr(&mut d, RegId::Evcntr(0), 0xFFFF_FFFE);
        wr(&mut d, RegId::Evcntr(1), 0xFFFF_FFFE);
        wr(&mut d, RegId::Evcntr(2), 0xFFFF_FFFD);
        wr(&mut d, RegId::CntenSet0, 0b111);
        start(&mut d); // w: cycle counting from edge w+1
        let seen: Vec<u64> = (0..6).map(|_| tick(&mut d).ovf_export).collect();
        // Overflows at edges w+2 (counters 0, 1) and w+3 (counter 2): cycles w+3 and w+4.
        assert_eq!(seen, [0, 0, 0b011, 0b100, 0, 0]);
        assert_eq!(d.irq_pulses, 0);
        // Whatever OVS holds. Written at edge a (not counted there): overflow at edge a+2.
        wr(&mut d, RegId::Evcntr(1), 0xFFFF_FFFE);
        let seen: Vec<u64> = (0..4).map(|_| tick(&mut d).ovf_export).collect();
        assert_eq!(seen, [0, 0, 0b010, 0]);
        assert_eq!(d.dut.ovs(), 0b111);
    }

    #[test]
    fn random_traffic_keeps_the_axi_protocol() {
        // The lock-step stimulus (random registers, resets, capture requests) against a random
        // AXI slave: the model alone, for protocol violations and for coverage.
        let c = cfg(&["counters=4", "counter_bits=32", "sid_bits=8"]);
        let mut m = Model::new(&c);
        let stats = crate::stimulus::lockstep(&c, 7, 200_000, &mut [&mut m]).unwrap();
        assert!(
            stats.msi_violations.is_empty(),
            "{:?}",
            stats.msi_violations
        );
        assert!(
            stats.msi_writes > 0 && stats.capt_ack_cycles > 0,
            "{stats:?}"
        );
    }

    /// Measured rate of the model; run with
    /// `cargo test --release -p pmcg-sim model::tests::throughput -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn throughput() {
        for lanes in [1u32, 4] {
            let c = cfg(&[&format!("lanes={lanes}")]);
            let mut d = drv(&c);
            for n in 0..c.counters {
                wr(&mut d, RegId::Evtyper(n), 1);
            }
            wr64(&mut d, RegId::CntenSet0, u64::MAX);
            wr(&mut d, RegId::Cr, 1);
            let mut m = d.dut;
            let mut inp = PinInputs::idle(lanes as usize);
            inp.lanes.iter_mut().for_each(|l| *l = lane(true, 1));
            let steps = 2_000_000u64;
            let t = std::time::Instant::now();
            for _ in 0..steps {
                std::hint::black_box(m.step(std::hint::black_box(&inp)));
            }
            let secs = t.elapsed().as_secs_f64();
            // The first step counts the Driver's idle stage; every later one `lanes` per counter.
            assert_eq!(m.counter(0), (steps - 1) * lanes as u64);
            let events = (steps - 1) * lanes as u64 * c.counters as u64;
            println!(
                "model: {} counters x {lanes} lane(s): {:.1} Mcycles/s, {:.3e} events/s",
                c.counters,
                steps as f64 / secs / 1e6,
                events as f64 / secs
            );
        }
    }
}
