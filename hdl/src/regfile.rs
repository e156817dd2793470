//! `RegFile`: the PMCG register file and counter bank control, behind a generic register request
//! (it never sees APB) in the request's access cycle. Every input is a register (the APB setup
//! registers, the match stage, the capture-request and reset registers, the MSI master's state),
//! except the live PADDR, which only its child blocks see: the address decoder's setup-cycle
//! registers and the EVTYPER/SMR block RAMs' read address (so this kernel reads registers only,
//! and Verilator does not rerun it when an APB input changes).
//!
//! ```text
//!   PADDR (live) ──► AddrDecode (decode.rs): one-hot hits and element selects, registered
//!   held_wr_last, registered address and decode ──► MatchRegs (match_regs.rs): c_match[n]
//!   PADDR[7:2] (live) ──► EVTYPER and SMR block RAMs (readback copies: read at the setup edge,
//!        written at the access edge; FreshFlags (fresh_flags.rs): the reset value until
//!        written) ──► PSTRB merge, read mux
//!   req_rd/req_wr/req_wr_ok/req_wdata/req_strb/req_ns/req_root (registered at the setup
//!        │ edge; req_wr_ok from `nsra_open`, SCR.NSRA after that edge: 10.6)
//!        │ (masks, resets: Constants from the register map)
//!        ├──► CR, SCR (+ alias), ROOTCR, IRQ_CTRL, IRQ_CFG0/1/2, GMPAM ── storage registers
//!        ├──► CNTEN, INTEN, OVS (64-bit W1S/W1C views) ◄── ovf_pack ◄── ctr[n].ovf
//!        ├──► counter n: write strobes, merged write data (AND-OR over the element selects),
//!        │    FilterDecoder (filter_decode.rs): registered EVTYPER/SMR ──► CARE, mode bits,
//!        │    event selection, and SMRn, loaded into FilterMatch one edge later
//!        └──► read mux stage 1 (AND-OR) ──► rq_word, rq_misc, rq_add (registered, first access
//!             cycle); counters' and shadows' low words by region-gated selects registered in
//!             the hold (csel_r, ssel_r) ──► per group of 16 ──► rq_c0..3, rq_s0..3
//!               ──► stage 2: + pending carry, OR of the groups ──► rd_data (PRDATA in the
//!                   second access cycle)
//!   lane_* (registered lanes), SCR/ROOTCR, CR.E, CNTEN ──► FilterMatch (filter_match.rs):
//!        every counter's event selection, filter registers and accepted security states; the
//!        lanes' key compare ──► match count ──► match_nx[n] ──► c_match[n] (register)
//!   with filter tables (`filter_tables`): lane_sid_live ──► FilterTable (filter_table.rs) ──►
//!        hit[l] bit n replaces counter n's key compare; the registered decode starts the
//!        written counter's column rebuild, and its swap (`flip`, 257 edges later) loads the
//!        event selection and mode instead of the edge after the write; `filt_busy` holds the
//!        write on the bus meanwhile (apb.rs)
//!
//!   c_match[n] := a write to counter n in its last held cycle (MatchRegs) ? 0
//!                 : event 0 after this edge ? (CR.E & CNTEN[n] of this cycle ? 1 : 0)
//!                 : (CR.E & CNTEN[n] ? match count : 0)
//!   (so the write's edge adds 0, and PSTRB merges in counter n's D logic, no mux in front)
//!   counter n (10.5.2.1):  inc = c_match[n] (a register: the adder starts from flip-flops)
//!   ┌───────────────────┐lo_carry ┌──────────────────────────────────────────────────────┐
//!   │ lo[L-1:0] += inc  ├────────►│ hb: HiBank (hi_bank.rs), row 0 ("mid", bits [31:L]): │
//!   └───────────────────┘         │ mpend[n], rows and shadow rows in block RAM, served  │
//!                                 │ by a scan; mpf/mspf = the addressed counter's        │
//!                                 │ (prefetched during the hold); m_at_max[n]            │
//!                                 └──────────────────────────────────────────────────────┘
//!   carry = lo_carry & m_at_max[n] (the carry out of bit 31, exact at its edge) ──►
//!   hb's row 1, bits [63:32] (64-bit counters only; the same visits): pend[n], pf/spf,
//!   at_max[n]
//!   ovf = carry & (narrow | at_max[n])  ──► ovf_pack ──► export_r ──► OVS one edge later
//!   (reads and OVS writes see OVS | export_r: the overflow is in OVS from its own edge)
//!   EVCNTR write: its outcome staged during the hold from mpf and pf (for each pending carry
//!   = 0 and 1: the row, all ones / all ones less one, a pair's wrap); the access cycle selects
//!   by the pending carries; every EVCNTR write rewrites both rows (pending carries folded in)
//!   CaptureTrigger (capture_trigger.rs): capture (CAPR, CAPT_REQ) at edge t ──────────┐
//!   ovf & OVFCAP at edge t ──► OR per group ─────┴─► cap_grp_r (<= 16 groups) ──► OR ──►
//!        svr_load: SVRn := counter n's q at t+1
//!   (reads in cycle t+1 see the counter: the value after edge t, as the contract says)
//!   IrqIssue (irq_issue.rs): ovf & INTEN at edge t ──► ovf_int_r (per ctr), IRQEN ──► irqen_r
//!     ──► OR & irqen_r (qualifying, in cycle t+1) ──► irq pulse in t+2; with ADDR != 0 ──► MSI
//!   pending / issue at t+1 ──► MsiMaster (msi.rs) ──► busy, IRQ_CTRLACK, IRQ_ABT back
//! ```
//! A counter is an L-bit low word in flip-flops (L = `hi_bank::low_word_bits`: 8-13 bits, wider
//! with more counters and lanes, so that no low word wraps twice before its carry is served),
//! bits [31:L] in `hb`'s row 0 ("mid") in block RAM and, with
//! 64-bit counters, an upper word in its row 1, with the carries between them pending: no
//! path adds more than 32 bits in one cycle, and the native simulation never does 64-bit
//! arithmetic (rust-hdl stores wider `Bits` as bool arrays). Its value is ((hi + pend) << 32) |
//! (((mid + mpend) mod 2^(32-L)) << L) | lo, truncated to `counter_bits` (a wrap of mid + mpend is
//! already in `pend`: it was predicted at the low word's carry); the read mux's second stage
//! adds the pending carry of the word it reads. The counters live in this block's loop rather
//! than in a block each, which keeps rust-hdl's settle (one iteration per block boundary) and the
//! Verilator model short.
//! Timing contract: docs/behaviour.md. Spec: SMMUv3 10.2.1, 10.4, 10.5, 10.6, 10.7.

use crate::bitpack::BitPack;
use crate::bram::{Bram, BRAM_ADDR_BITS};
use crate::c32;
use crate::capture_trigger::CaptureTrigger;
use crate::config::PmcgConfig;
use crate::decode::AddrDecode;
use crate::filter_decode::{DecoderFault, FilterDecoder};
use crate::filter_match::{FilterMatch, MatchFault};
use crate::filter_table::{FilterTable, FilterTableFault, TableShape};
use crate::fresh_flags::FreshFlags;
use crate::hi_bank::{low_word_bits, HiBank, HiBankFault, HI_IDX_LSB, HI_RAM_IDX_BITS};
use crate::irq_issue::IrqIssue;
use crate::match_regs::MatchRegs;
use crate::regmap::field;
use crate::regmap::{Access, RegId, RegisterMap, COUNTER_HOLD_CYCLES};
use rust_hdl::prelude::*;

/// Address bits of EVTYPER's readback block RAM (64 words: the largest configuration).
pub const EVTYPER_RAM_IDX_BITS: usize = BRAM_ADDR_BITS;

/// A fault planted in a block of the register file, for the tests that must catch it
/// (tests/planted_faults.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtlFault {
    /// In the bank of the bits above the low words (hi_bank.rs; every row).
    HiBank(HiBankFault),
    /// In the StreamID filter tables (filter_table.rs; configurations with `filter_tables`).
    FilterTable(FilterTableFault),
    /// In the match block (filter_match.rs, `MatchFault::StaleAccept`): `acc_r` / `evk_*`
    /// loaded from their sources' current values, not their values after the edge: an SCR,
    /// ROOTCR, filter or event-selection change is missed until the next load.
    StaleAccept,
    /// In the filter decoder (filter_decode.rs).
    FilterDecoder(DecoderFault),
}

#[derive(LogicBlock)]
pub struct RegFile {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub req_rd: Signal<In, Bit>,
    pub req_wr: Signal<In, Bit>,
    /// `req_wr` of a write SCR.NSRA allows (the completer's register; `nsra_open` at its setup
    /// edge).
    pub req_wr_ok: Signal<In, Bit>,
    /// Non-secure accesses may write after this edge (10.6): no Secure state, or SCR.NSRA = 1.
    pub nsra_open: Signal<Out, Bit>,
    pub req_addr: Signal<In, Bits<32>>,
    pub req_wdata: Signal<In, Bits<32>>,
    pub req_strb: Signal<In, Bits<4>>,
    pub req_ns: Signal<In, Bit>,
    /// The access is Root (APB5 PNSE = 1, PPROT[1] = 0; only with Realm).
    pub req_root: Signal<In, Bit>,
    /// The live PADDR: only the address decoder's setup-cycle registers see it.
    pub paddr: Signal<In, Bits<32>>,
    /// This cycle is the last held cycle of a counter or shadow write (a register of the APB
    /// completer): its access cycle is the next.
    pub held_wr_last: Signal<In, Bit>,
    /// A counter or shadow transfer is held in this cycle (the APB completer's register).
    pub held: Signal<In, Bit>,
    /// The next cycle is held or an access cycle (the completer's `xfer_nx`, for the address
    /// decoder's `ctr_xfer`).
    pub xfer_nx: Signal<In, Bit>,
    /// The lane inputs of the previous cycle (registered by the top block: the match stage):
    /// the events are 0 when the lane was not valid; `lane_acc` is the security state as a
    /// one-hot of the `acc` codes, 0 for a Root or SA access with a StreamID (10.4.2).
    pub lane_events: Vec<Signal<In, Bits<32>>>,
    pub lane_sid: Vec<Signal<In, Bits<32>>>,
    pub lane_acc: Vec<Signal<In, Bits<8>>>,
    pub lane_nosid: Vec<Signal<In, Bit>>,
    /// {PARTID space [25:24], PMG [23:16], PARTID [15:0]} (`lane_mpam_word`; MPAM filter only).
    pub lane_mpam: Vec<Signal<In, Bits<32>>>,
    /// The lanes' StreamIDs of this cycle, live (filter tables only: their block RAMs look
    /// them up at the edge the top block registers them).
    pub lane_sid_live: Vec<Signal<In, Bits<32>>>,
    /// The external capture request, registered by the top block.
    pub capt_req: Signal<In, Bit>,
    /// From the MSI master (registers): an MSI is outstanding, IRQ_CTRLACK.IRQEN, IRQ_ABT.
    pub msi_busy: Signal<In, Bit>,
    pub irq_ack: Signal<In, Bit>,
    pub irq_abt: Signal<In, Bit>,
    /// Read data of the access cycle (0 when `req_rd` is 0).
    pub rd_data: Signal<Out, Bits<32>>,
    pub irq: Signal<Out, Bit>,
    /// To the MSI master: issue at this edge, the payload (IRQ_CFG0 words, IRQ_CFG1, AWPROT) and
    /// IRQ_CTRL.IRQEN after this edge.
    pub msi_issue: Signal<Out, Bit>,
    pub msi_addr_lo: Signal<Out, Bits<32>>,
    pub msi_addr_hi: Signal<Out, Bits<32>>,
    pub msi_data: Signal<Out, Bits<32>>,
    pub msi_prot: Signal<Out, Bits<3>>,
    /// With CFGR.MPAM: {NS at bit 24, PO_PMG [23:16], PO_PARTID [15:0]} of GMPAM.
    pub msi_mpam: Signal<Out, Bits<32>>,
    pub irqen_next: Signal<Out, Bit>,
    /// An MSI is owed after this edge: pending, or (IRQEN was 1 in this cycle) an overflow that
    /// qualified at this edge makes one pending at the next. IRQ_CTRLACK waits for it.
    pub msi_owed_next: Signal<Out, Bit>,
    /// IRQ_CFG2 (its MEMATTR and SH are the MSI sidebands).
    pub msi_attr: Signal<Out, Bits<32>>,
    pub capt_ack: Signal<Out, Bit>,
    /// Per-counter overflow pulses, one cycle after the overflow edge.
    pub ovf_export: Signal<Out, Bits<64>>,
    /// With filter tables: a filter rebuild is pending or under way (registers): the APB
    /// completer holds the EVTYPER/SMR write that started it until it swaps in.
    pub filt_busy: Signal<Out, Bit>,
    /// Counter n: bits [L-1:0] (the rest is in the banks; the bits above L are 0, and Yosys
    /// keeps no flip-flop for them), EVTYPERn, SMRn, and EVTYPERn's event decode (`event_sel`
    /// layout).
    c_lo: Vec<DFF<Bits<16>>>,
    /// The bits above the low words of every counter and shadow in block RAM (hi_bank.rs), in
    /// one bank whose visits serve both of a counter's rows: row 0 ("mid") holds bits [31:L]
    /// ((32-L)-bit rows), row 1 (64-bit counters only) bits [63:32]. Row 0's pending carries
    /// come from the L-bit low words, and its overflow prediction (`at_max`: bits [31:L] + pend
    /// all ones) makes the carry out of bit 31 exact at the edge it happens, which is row 1's
    /// carry (or the overflow of a 32-bit counter).
    hb: HiBank,
    mcarry_pack: BitPack,
    mpf_v: Signal<Local, Bits<32>>,
    mspf_v: Signal<Local, Bits<32>>,
    mpend_v: Signal<Local, Bits<64>>,
    m_at_max_v: Signal<Local, Bits<64>>,
    mbank_wr_val: Signal<Local, Bits<32>>,
    /// The carries out of the low words at this edge (to the bank), and the bank's outputs:
    /// the addressed counter's upper word and shadow upper word, the pending carries, and
    /// which counters overflow on a carry now.
    carry_pack: BitPack,
    pf_v: Signal<Local, Bits<32>>,
    spf_v: Signal<Local, Bits<32>>,
    pend_v: Signal<Local, Bits<64>>,
    at_max_v: Signal<Local, Bits<64>>,
    /// The addressed counter's upper word after an EVCNTR write at this edge.
    bank_wr_val: Signal<Local, Bits<32>>,
    /// A permitted EVCNTR write is in its last held cycle: registered, so the bank's write
    /// strobe (wide fan-out) is a flip-flop (the banks' `wr`).
    bank_wr_r: DFF<Bit>,
    /// Likewise, the held write is the high word of the open pair (a paired high write in its
    /// access cycle): the overflow of the counters selects its rebase's from a flip-flop.
    pair_wr_r: DFF<Bit>,
    /// Registered a cycle ahead of a counter write's last held cycle: the transfer, if a write,
    /// skips its counter's match (`arm_r`), or is the open pair's high word (`parm_r`).
    arm_r: DFF<Bit>,
    parm_r: DFF<Bit>,
    /// EVTYPERn's readback storage (block RAM; EVTYPER_RAM_IDX_BITS address bits): nothing on
    /// the event path reads it (the event decode and filter registers take a written value
    /// from the write itself), so its bits cost no flip-flops. Read with the live PADDR's index
    /// at the setup edge, so the value is there in the access cycle (no extra wait state);
    /// written at the access edge (a `Bram`, bram.rs: the read at a write's own edge is never
    /// used, so Yosys need not emulate read-first). `fresh`: the "not written since reset"
    /// flags of EVTYPERn and SMRn, looked up with the same live index into a register
    /// (fresh_flags.rs): block RAM has no reset, so such a read returns the register map's
    /// reset value.
    evt_ram: Bram<32>,
    fresh: FreshFlags,
    /// SMRn's readback copy, the same way (the match block keeps `c_smr`; the copy only spares
    /// the read mux and the PSTRB merge an AND-OR over every SMR, a critical path at 16x32).
    smr_ram: Bram<32>,
    sel_smr_wmask: Signal<Local, Bits<32>>,
    /// EVTYPERn.OVFCAP, bit n: in flip-flops (the overflow capture reads it every cycle), as one
    /// word, not a flip-flop per counter (the simulators copy and update one register).
    c_ovfcap: DFF<Bits<64>>,
    /// Bit n: EVTYPERn's OVFCAP is writable, its reset value.
    ovfcap_wmask: Constant<Bits<64>>,
    ovfcap_reset: Constant<Bits<64>>,
    /// OVFCAP after this edge, and the written OVFCAP value of each counter.
    ovfcap_nx: Signal<Local, Bits<64>>,
    ovfcap_wv: Signal<Local, Bits<64>>,
    /// The addressed EVTYPER's write mask: counter 0's, or that of every other counter (only
    /// counter 0 has filter fields with a global filter; checked in `new`), like SMR's.
    sel_evt_wmask: Signal<Local, Bits<32>>,
    evt_wmask_rest: Constant<Bits<32>>,
    smr_wmask_rest: Constant<Bits<32>>,
    /// The counters' match registers (match_regs.rs): the lanes matched in the previous cycle,
    /// added at this edge (no path runs from a lane through the filter compare into the adder
    /// in one cycle); a counter write set up in this cycle clears its counter's there.
    mreg: MatchRegs,
    /// Every counter's event selection and filter, and the match of the registered lanes
    /// against them (filter_match.rs): counter n's match for the next edge, into `mreg`.
    fmatch: FilterMatch,
    /// Writable bits of EVTYPER0 and SMR0 (the addressed register's when it is counter 0's:
    /// see `sel_evt_wmask`), and the counters' reset values (register map).
    evtyper0_wmask: Constant<Bits<32>>,
    smr0_wmask: Constant<Bits<32>>,
    lo_reset: Vec<Constant<Bits<16>>>,
    /// The low words' width L (`hi_bank::low_word_bits`): its mask, the mask of its bits [L-1:4]
    /// (all ones: a carry out of bits [3:0] carries out of the low word), L as a shift, and
    /// the mask of bits [L-1:0] of a 32-bit word.
    lo_mask: Constant<Bits<16>>,
    lo_top: Constant<Bits<16>>,
    lo_shift: Constant<Bits<32>>,
    lo_mask32: Constant<Bits<32>>,
    /// EVTYPER0's and SMR0's reset values (every EVTYPER's and SMR's: checked in `new`).
    evtyper0_reset: Constant<Bits<32>>,
    smr0_reset: Constant<Bits<32>>,
    /// Counter n's locals (reused in the loop).
    lo_now: Signal<Local, Bits<16>>,
    /// The low word's bits [3:0] (`carry4`'s inputs).
    lo4: Signal<Local, Bits<4>>,
    wr_lo: Signal<Local, Bit>,
    inc: Signal<Local, Bits<16>>,
    /// The carry out of the L-bit low word, and out of bit 31 (`lo_carry` & mid's `at_max`).
    lo_carry: Signal<Local, Bit>,
    /// The carries of lo[3:0] + inc into bits 2 and 3, and out of bit 3 (`carry4`): written
    /// as gates, which Yosys makes plain logic (two LUT levels placed freely), where a 5-bit
    /// add became a carry chain fixed in a column between the match register and the overflow
    /// logic (the 16x32 and 16x64 critical path). Not a 256-bit table indexed by {inc, lo}:
    /// building the index is a shift, which rust-hdl 0.46 simulated with BigUint allocations
    /// (per counter per settle pass; the vendored simulator shifts integers).
    c4_c2: Signal<Local, Bit>,
    c4_c3: Signal<Local, Bit>,
    carry4: Signal<Local, Bit>,
    carry: Signal<Local, Bit>,
    lo_next: Signal<Local, Bits<16>>,
    ovf: Signal<Local, Bit>,
    ovf_pack: BitPack,
    /// The request's address, decoded in its setup cycle (one-hot selects).
    dec: AddrDecode,
    /// The read mux: stage 1's word (combinational), its register, the pending carry still to
    /// add to a high part, and the read's completion (stage 2's cycle).
    rd_word: Signal<Local, Bits<32>>,
    rd_misc: Signal<Local, Bits<32>>,
    rq_misc: DFF<Bits<32>>,
    /// Stage 1's third part: bits [L-1:0] of the low words of EVCNTR (`rq_c*`) and SVR
    /// (`rq_s*`), the flip-flop muxes ORed over groups of 16 counters (`grp`) and registered
    /// per group: no region gate and no other source in their cone. Stage 2 ORs the groups in
    /// (bits below L, which no increment reaches, have the slack): the counter's for an EVCNTR
    /// read (`rq_usec`) or an SVR read that sees the counter (`rq_sl`), the shadow's for an
    /// SVR read that does not.
    rq_c0: DFF<Bits<16>>,
    rq_c1: DFF<Bits<16>>,
    rq_c2: DFF<Bits<16>>,
    rq_c3: DFF<Bits<16>>,
    rq_s0: DFF<Bits<16>>,
    rq_s1: DFF<Bits<16>>,
    rq_s2: DFF<Bits<16>>,
    rq_s3: DFF<Bits<16>>,
    rq_usec: DFF<Bit>,
    gc0: Signal<Local, Bits<16>>,
    gc1: Signal<Local, Bits<16>>,
    gc2: Signal<Local, Bits<16>>,
    gc3: Signal<Local, Bits<16>>,
    gs0: Signal<Local, Bits<16>>,
    gs1: Signal<Local, Bits<16>>,
    gs2: Signal<Local, Bits<16>>,
    gs3: Signal<Local, Bits<16>>,
    t_c: Signal<Local, Bits<16>>,
    t_s: Signal<Local, Bits<16>>,
    rd_lo_c: Signal<Local, Bits<16>>,
    rd_lo_s: Signal<Local, Bits<16>>,
    /// Counter n's group (n / 16).
    grp: Vec<Constant<Bits<2>>>,
    /// CR, CR.E and CNTEN after this edge; counter n's event selection after this edge.
    cr_nx: Signal<Local, Bits<32>>,
    cnten_nx: Signal<Local, Bits<64>>,
    cnten_set: Signal<Local, Bits<64>>,
    cnten_clr: Signal<Local, Bits<64>>,
    /// Element n's selects as masks (the AND-OR read mux of the low words and of their
    /// shadows').
    m_evc: Signal<Local, Bits<16>>,
    m_svr: Signal<Local, Bits<16>>,
    /// The read mux's element selects, gated by region and registered from the decode at the
    /// edges of a hold (0 at any other edge): every EVCNTR/SVR access is held, its address
    /// stable, so they are valid in its access cycle (loaded at the last held edge), and the
    /// region gates and the decode's fan-out leave the mux; in any other access they are 0.
    /// `csel_r`: a low word of EVCNTR or SVR (the counter's low word is read for both: an SVR
    /// read in the cycle after a capture sees it); `ssel_r`: a low word of SVR; `clo_r`: the
    /// access is EVCNTR's low word.
    csel_r: DFF<Bits<64>>,
    ssel_r: DFF<Bits<64>>,
    clo_r: DFF<Bit>,
    rq_word: DFF<Bits<32>>,
    rq_add: DFF<Bit>,
    /// A low word's bits [31:L] still take their pending carry (stage 2 adds 2^L).
    rq_addm: DFF<Bit>,
    /// An SVR read in the cycle after a capture sees the counter (`svr_load`): stage 1 registers
    /// the counter's word and pending-carry flags beside the shadow's, and `rq_sl` selects
    /// them in stage 2, so the OR over the capture requests stays out of the read mux.
    rq_ctr: DFF<Bits<32>>,
    rq_cadd: DFF<Bit>,
    rq_caddm: DFF<Bit>,
    rq_sl: DFF<Bit>,
    /// Bits [15:0] of `rq_word` / `rq_ctr` are all ones (a +1 carries into bit 16), from
    /// stage 1's sources: stage 2's increments are two 16-bit carry chains side by side, not
    /// one of 32 bits in front of PRDATA.
    rq_lo1: DFF<Bit>,
    rq_clo1: DFF<Bit>,
    /// Stage 2's increments: each half of `rq_word` and `rq_ctr` plus one.
    inc_lo: Signal<Local, Bits<32>>,
    inc_hi: Signal<Local, Bits<32>>,
    inc_clo: Signal<Local, Bits<32>>,
    inc_chi: Signal<Local, Bits<32>>,
    /// Stage 2's increments of bits [31:L] (mid's pending carry) of `rq_word` and `rq_ctr`.
    inc_m: Signal<Local, Bits<32>>,
    inc_cm: Signal<Local, Bits<32>>,
    rq_done: DFF<Bit>,
    // Configuration and register-map constants.
    secure_impl: Constant<Bit>,
    wide: Constant<Bit>,
    hi_max: Constant<Bits<32>>,
    bitmap_mask: Constant<Bits<64>>,
    cr_wmask: Constant<Bits<32>>,
    cr_reset: Constant<Bits<32>>,
    cr_e_mask: Constant<Bits<32>>,
    scr_wmask: Constant<Bits<32>>,
    scr_reset: Constant<Bits<32>>,
    scr_nsra_mask: Constant<Bits<32>>,
    rootcr_wmask: Constant<Bits<32>>,
    rootcr_reset: Constant<Bits<32>>,
    s_mpamidr_val: Constant<Bits<32>>,
    irq_ctrl_wmask: Constant<Bits<32>>,
    irq_ctrl_reset: Constant<Bits<32>>,
    cfg0_reset: Constant<Bits<32>>,
    cfg0_hi_reset: Constant<Bits<32>>,
    cfg1_reset: Constant<Bits<32>>,
    cfg2_reset: Constant<Bits<32>>,
    cnten_reset: Constant<Bits<64>>,
    inten_reset: Constant<Bits<64>>,
    ovs_reset: Constant<Bits<64>>,
    irqen_mask: Constant<Bits<32>>,
    cfg0_wmask: Constant<Bits<32>>,
    cfg0_hi_wmask: Constant<Bits<32>>,
    cfg1_wmask: Constant<Bits<32>>,
    cfg2_wmask: Constant<Bits<32>>,
    /// The EVCNTR element offset mask (without the high-word bit of 64-bit counters): the pair
    /// register's key.
    evc_rel_mask: Constant<Bits<32>>,
    // State.
    cr: DFF<Bits<32>>,
    scr: DFF<Bits<32>>,
    rootcr: DFF<Bits<32>>,
    irq_ctrl: DFF<Bits<32>>,
    cfg0: DFF<Bits<32>>,
    cfg0_hi: DFF<Bits<32>>,
    cfg1: DFF<Bits<32>>,
    cfg2: DFF<Bits<32>>,
    cnten: DFF<Bits<64>>,
    inten: DFF<Bits<64>>,
    ovs: DFF<Bits<64>>,
    /// OVS as software sees it: `ovs` with the last edge's overflows (`export_r`) ORed in. The
    /// overflows of an edge reach `ovs` one edge later, so every overflow's flip-flops sit near
    /// its counter (no OVS write logic behind the overflow); at every edge `ovs_eff` is what
    /// OVS would be with the overflows written at their own edge (10.2.1), and reads and OVS
    /// writes act on it.
    ovs_eff: Signal<Local, Bits<64>>,
    snap: DFF<Bits<32>>,
    /// The snapshot's pending carry, added by the read mux's second stage (no adder in front
    /// of the snapshot register).
    snap_add: DFF<Bit>,
    snap_addr: DFF<Bits<32>>,
    snap_valid: DFF<Bit>,
    /// The wired interrupt and the MSI's pending and issue (irq_issue.rs).
    iss: IrqIssue,
    /// IRQ_CFG0.ADDR != 0, the OR of the register registered (one edge behind it): the 64-bit
    /// OR is off the path from a qualifying overflow to the MSI master, and the write's gate
    /// (SCR, the access's security state, IRQEN) is not in front of it (the slowest path of
    /// 4x32, 32x32 with filter tables and 16x64 with filter tables on one seed each in the
    /// sweep of f28a2f0 ran through the register's D into the OR). The edge behind is never
    /// seen: IRQ_CFG0 is written only while IRQ_CTRL.IRQEN is 0 (Guarded, 10.5.2.21), so no
    /// overflow qualifies in the cycle after the write (`qual` reads IRQEN of the cycle before,
    /// `irqen_r`), and a pending MSI does not read it.
    msi_addr_nz: DFF<Bit>,
    /// Split 64-bit counter writes (docs/behaviour.md): the pair register (open, the counter's
    /// element offset, base B = its high part at the low write).
    pair_open: DFF<Bit>,
    pair_key: DFF<Bits<32>>,
    pair_base: DFF<Bits<32>>,
    /// The registered filter and event decode (filter_decode.rs; docs/behaviour.md "Event lanes
    /// and counting", Reconfiguration): an EVTYPERn/SMRn write at edge t registers the counter's
    /// EVTYPER and SMR after the write (`fdec`), its element offset and which loads are due;
    /// edge t+1 loads the decoded filter (CARE, mode; SMRn) and event selection, so the write's
    /// address decode, merge and the filter decode are not one path.
    fdec: FilterDecoder,
    /// The EVTYPER and SMR values the decoder loads at an EVTYPER/SMR write.
    evt_ld: Signal<Local, Bits<32>>,
    smr_ld: Signal<Local, Bits<32>>,
    /// Bit 6 of `sel_dec` (the selection a load takes), from registers.
    cyc_ld: Signal<Local, Bit>,
    /// An EVTYPER or SMR write performed at this edge: the decode's registers load.
    fd_load: Signal<Local, Bit>,
    /// A filter load is due (any EVTYPER/SMR write), an event-selection load (EVTYPER), and the
    /// write was EVTYPER0/SMR0 (the global filter's).
    fd_filt: DFF<Bit>,
    /// The written counter's element select (one-hot, `AddrDecode::arr_sel`).
    fd_sel: DFF<Bits<64>>,
    fd_evtw: DFF<Bit>,
    /// With filter tables: the decoder's selection registered (the swap that loads it comes 257
    /// edges after the decoder's load, whose registers hold meanwhile), so the counters' event
    /// selection loads from flip-flops, not from the decoder's compares; `sel_dec` is what they
    /// load.
    dsel_r: DFF<Bits<7>>,
    /// Likewise the filter decode's mode bits (`mode_ld`: what the counters' filters load).
    fmode_r: DFF<Bits<13>>,
    mode_ld: Signal<Local, Bits<13>>,
    sel_dec: Signal<Local, Bits<7>>,
    fd_wr0: DFF<Bit>,
    /// H (B merged with the written bytes per PSTRB).
    pair_h: Signal<Local, Bits<32>>,
    /// An EVCNTR write's outcome, computed during its hold from registers that the hold keeps
    /// still (the request, the pair registers, the prefetched upper word `pf`, which the bank
    /// leaves alone while the counter is addressed), for both values of the counter's pending
    /// carry in the access cycle (k = 0, 1: upper value pf + k): stage 1 `pf1_r` = pf + 1,
    /// `ph_r` = H, and `hb_r` = H - B a cycle after `ph_r` (from it: the request's byte merge
    /// and the 32-bit subtraction are not one path; right from the hold's third cycle, long
    /// before `pf` is ready); stage 2 the new upper word `cand{k}_r` (hi + k; the written
    /// bytes over it; or a pair's H + c = (H - B) + hi + k); stage 3 whether it is all ones, all
    /// ones less one, and (a pair) whether H + c wrapped. The access cycle only selects by the
    /// pending carry: no adder or compare sits between the pending carries and the bank or OVS.
    pair_pre: Signal<Local, Bit>,
    pf1_r: DFF<Bits<32>>,
    /// A pair's H + c = hb + (pf + k) as a carry select (16x64 seed 3 at 95 MHz ran through
    /// the 32-bit chain): the low halves' sum (`pl{k}`, bit 16 its carry) beside the upper
    /// halves' sums without and with that carry (`ph{k}0`, `ph{k}1`; the second from `hbx_r`
    /// = hb + 2^16, registered a cycle after `hb_r`), selected by the carry. The same two
    /// 16-bit chains as the upper banks' `d + 1` (hi_bank.rs, phase C).
    hbx_r: DFF<Bits<32>>,
    pl0: Signal<Local, Bits<32>>,
    pl1: Signal<Local, Bits<32>>,
    ph00: Signal<Local, Bits<32>>,
    ph01: Signal<Local, Bits<32>>,
    ph10: Signal<Local, Bits<32>>,
    ph11: Signal<Local, Bits<32>>,
    psum0: Signal<Local, Bits<32>>,
    psum1: Signal<Local, Bits<32>>,
    ph_r: DFF<Bits<32>>,
    hb_r: DFF<Bits<32>>,
    cand0_r: DFF<Bits<32>>,
    cand1_r: DFF<Bits<32>>,
    ones0_r: DFF<Bit>,
    ones1_r: DFF<Bit>,
    m10_r: DFF<Bit>,
    m11_r: DFF<Bit>,
    wrap0_r: DFF<Bit>,
    wrap1_r: DFF<Bit>,
    hi_max_m1: Constant<Bits<32>>,
    /// The same staging for bits [31:L] (`mid`): every EVCNTR write rewrites the addressed
    /// counter's mid row, with its pending carry folded in and, for a low-word write, the
    /// written bytes' bits above L over it.
    mpf1_r: DFF<Bits<32>>,
    mcand0_r: DFF<Bits<32>>,
    mcand1_r: DFF<Bits<32>>,
    mones0_r: DFF<Bit>,
    mones1_r: DFF<Bit>,
    mm10_r: DFF<Bit>,
    mm11_r: DFF<Bit>,
    mwr_ones: Signal<Local, Bit>,
    mwr_m1: Signal<Local, Bit>,
    mid_max: Constant<Bits<32>>,
    mid_max_m1: Constant<Bits<32>>,
    mid_bmask: Signal<Local, Bits<32>>,
    mid_wbits: Signal<Local, Bits<32>>,
    lo_bmask: Signal<Local, Bits<16>>,
    lo_wbits: Signal<Local, Bits<16>>,
    /// The addressed counter's pending carry selects: its outcome is all ones, all ones less
    /// one (a pair's wrap, `wrap{k}_r`, is selected in the counter's own logic).
    wr_ones: Signal<Local, Bit>,
    wr_m1: Signal<Local, Bit>,
    export_r: DFF<Bits<64>>,
    /// Shadow values (10.5.2.3), kept like the counters: bits [15:0], the upper bank's pending
    /// carry (the rows are the banks' shadow rows).
    s_lo: Vec<DFF<Bits<16>>>,
    /// Bit n: SVRn's upper pending carry (one word, like `c_ovfcap`).
    s_pend: DFF<Bits<64>>,
    /// Bit n: mid's pending carry at the capture (bits [31:L] of SVRn are mid's shadow row +
    /// it).
    s_mpend: DFF<Bits<64>>,
    gmpam: DFF<Bits<32>>,
    gmpam_wmask: Constant<Bits<32>>,
    ovfcap_mask: Constant<Bits<32>>,
    nsmsi_mask: Constant<Bits<32>>,
    abt_mask: Constant<Bits<32>>,
    ctrl_next: Signal<Local, Bits<32>>,
    irq_en: Signal<Local, Bit>,
    /// When the shadows load (capture_trigger.rs): CAPR.CAPTURE, OVFCAP, the external request.
    cap: CaptureTrigger,
    /// The SVRs load the counters' q at this edge: a capture happened at the last edge.
    svr_load: Signal<Local, Bit>,
    /// SVRn of the addressed counter as a read sees it (the counter itself while `svr_load`).
    svr_hi_now: Signal<Local, Bits<32>>,
    svr_hi_add: Signal<Local, Bit>,
    svr_in: Signal<Local, Bit>,
    sel_spend: Signal<Local, Bit>,
    sel_smpend: Signal<Local, Bit>,
    /// The addressed shadow's pending carries one edge ago (`selsp_r`, `selsmp_r`), and whether
    /// a capture rewrote every shadow's at that edge (`svrl_r`: then they are the counter's of
    /// that cycle, `selp_r` / `selmp_r`) or a reset cleared them (`svrl_rst_r`). An SVR is read
    /// in the access cycle of a held transfer, whose select did not change at the last edge:
    /// `sel_spend` and
    /// `sel_smpend` come from flip-flops, not from an AND-OR over the counters behind the
    /// decoder's select (the 16x64 critical path into `snap_add`).
    selsp_r: DFF<Bit>,
    selsmp_r: DFF<Bit>,
    svrl_r: DFF<Bit>,
    svrl_rst_r: DFF<Bit>,
    // Decode.
    word_addr: Signal<Local, Bits<32>>,
    /// The word is SCR or its alias.
    at_scr: Signal<Local, Bit>,
    blocked: Signal<Local, Bit>,
    wr_ok: Signal<Local, Bit>,
    bmask: Signal<Local, Bits<32>>,
    wbits: Signal<Local, Bits<32>>,
    w64_lo: Signal<Local, Bits<64>>,
    w64_hi: Signal<Local, Bits<64>>,
    evc_in: Signal<Local, Bit>,
    evc_rel: Signal<Local, Bits<32>>,
    evc_hiword: Signal<Local, Bit>,
    evt_in: Signal<Local, Bit>,
    smr_in: Signal<Local, Bit>,
    evt_merged: Signal<Local, Bits<32>>,
    smr_merged: Signal<Local, Bits<32>>,
    sel_pend: Signal<Local, Bit>,
    /// The addressed counter's pending carry into bits [31:L] (`selmp_r | selmc_r`).
    msel_pend: Signal<Local, Bit>,
    selmp_r: DFF<Bit>,
    selmc_r: DFF<Bit>,
    /// The addressed counter's pending carry one cycle ago, and its carry at the last edge:
    /// their OR is its pending carry now in a held access's access cycle (from the hold's fifth
    /// cycle the bank leaves the addressed counter alone, so nothing clears it), from two
    /// flip-flops instead of an AND-OR over every counter in front of the write's select.
    selp_r: DFF<Bit>,
    selc_r: DFF<Bit>,
    sel_evtyper: Signal<Local, Bits<32>>,
    sel_smr: Signal<Local, Bits<32>>,
    hi_eff: Signal<Local, Bits<32>>,
    cr_e: Signal<Local, Bit>,
    guarded: Signal<Local, Bit>,
    /// The access hits the snapshot: compared in every cycle and registered, so a held access
    /// (only EVCNTR/SVR high words hit it; their address and the snapshot are still during the
    /// hold) finds it in a flip-flop.
    snap_hit: DFF<Bit>,
    ovf_vec: Signal<Local, Bits<64>>,
    /// This edge writes EVTYPER0 or SMR0 (the global filter).
    filt_wr0: Signal<Local, Bit>,
    /// With filter tables (`filter_tables`): the tables (filter_table.rs; `absent` without),
    /// whose per-lane StreamID compare of every counter (`hit`) goes to the match block, the
    /// swap of a rebuilt column at the next edge, and the written counter's index (the
    /// rebuild's column).
    ftab: FilterTable,
    tab_flip: Signal<Local, Bit>,
    fd_idx: DFF<Bits<6>>,
    tables: Constant<Bit>,
    /// The edge that loads the decoded event selection (`sel_load`) and filter (`filt_go`):
    /// one edge after the write (`fd_*`), or with filter tables the rebuild's swap.
    sel_load: Signal<Local, Bit>,
    filt_go: Signal<Local, Bit>,
    count: Signal<Local, Bits<4>>,
}

impl RegFile {
    /// The register file of a validated configuration.
    pub fn new(cfg: &PmcgConfig) -> Self {
        Self::with_fault(cfg, None)
    }

    /// The same with a fault planted in one of its blocks (tests only: the differential must
    /// catch it; see tests/planted_faults.rs).
    pub fn with_fault(cfg: &PmcgConfig, fault: Option<RtlFault>) -> Self {
        let hi_fault = match fault {
            Some(RtlFault::HiBank(f)) => Some(f),
            _ => None,
        };
        let table_fault = match fault {
            Some(RtlFault::FilterTable(f)) => Some(f),
            _ => None,
        };
        let decoder_fault = match fault {
            Some(RtlFault::FilterDecoder(f)) => Some(f),
            _ => None,
        };
        // `arm_r` / `parm_r` are read in a counter write's last held cycle, a cycle after their
        // inputs settle in its second (see `update`).
        const _: () = assert!(COUNTER_HOLD_CYCLES >= 3);
        let map = RegisterMap::new(cfg);
        let n = cfg.counters as usize;
        let wmask = |id| map.get(id).map(|r| r.mask_of(Access::RW)).unwrap_or(0);
        let reset = |id| map.get(id).map(|r| r.reset()).unwrap_or(0);
        let lanes = cfg.lanes as usize;
        // Bits [L-1:0] of each counter in flip-flops, [31:L] in `mid` (whose rows start at 0:
        // fresh, hi_bank.rs), so the counters' reset value has no bit set there.
        let lo_bits = low_word_bits(cfg.counters as usize, lanes);
        let lo_mask = (1u64 << lo_bits) - 1;
        let mid_max = (1u64 << (32 - lo_bits)) - 1;
        assert!(
            (0..cfg.counters).all(|i| reset(RegId::Evcntr(i)) & 0xFFFF_FFFF & !lo_mask == 0),
            "EVCNTR resets to a value with bits above the low word"
        );
        let evc_stride: u64 = if cfg.wide_counters() { 8 } else { 4 };
        // The address bits naming an EVCNTR word relative to the array (both words of a pair).
        let evc_rel_mask = (map.array_extent(RegId::Evcntr(0)) as u64 - 1) & !(evc_stride - 1);
        // The element selects and their checks (EVTYPERn/SMRn and EVCNTRn/SVRn share address
        // bits) are the address decoder's (decode.rs). EVTYPER's block RAM takes its index from
        // PADDR[7:2].
        for i in 0..cfg.counters {
            // The readback path uses counter 0's reset values for all, and counter 0's write
            // masks or counter 1's for all others.
            for id in [RegId::Evtyper, RegId::Smr] {
                assert_eq!(
                    reset(id(i)),
                    reset(id(0)),
                    "{:?} resets like {:?}",
                    id(i),
                    id(0)
                );
                if i > 1 {
                    assert_eq!(wmask(id(i)), wmask(id(1)), "{:?}'s writable bits", id(i));
                }
            }
            for id in [RegId::Evtyper(i), RegId::Smr(i)] {
                if let Some(r) = map.get(id) {
                    assert_eq!(
                        (r.addr >> 2) & ((1 << EVTYPER_RAM_IDX_BITS) - 1),
                        i,
                        "{id:?}'s word address bits [7:2] must be its index"
                    );
                }
            }
        }
        // The banks (hi_bank.rs) take an EVCNTR/SVR element's index from PADDR[8:3] (64-bit
        // counters) or PADDR[7:2] and hold a fresh row (and a stale shadow) as 0.
        let idx_lsb = if cfg.wide_counters() { HI_IDX_LSB } else { 2 };
        for i in 0..cfg.counters {
            for id in [RegId::Evcntr(i), RegId::Svr(i)] {
                if let Some(r) = map.get(id) {
                    assert_eq!(
                        (r.addr >> idx_lsb) & ((1 << HI_RAM_IDX_BITS) - 1),
                        i,
                        "{id:?}'s address bits [{}:{idx_lsb}] must be its index",
                        idx_lsb + 5
                    );
                    assert_eq!(r.reset(), 0, "{id:?} must reset to 0 (block-RAM banks)");
                }
            }
        }
        // Bit n: EVTYPERn's OVFCAP bit is set in `word(n)` (its write mask, its reset value).
        let ovfcap_bits = |word: &dyn Fn(u32) -> u64| {
            (0..cfg.counters)
                .filter(|&i| word(i) & map.mask(field::EVTYPER_OVFCAP) != 0)
                .fold(0u64, |w, i| w | 1 << i)
        };
        RegFile {
            clock: Default::default(),
            rst: Default::default(),
            req_rd: Default::default(),
            req_wr: Default::default(),
            req_wr_ok: Default::default(),
            nsra_open: Default::default(),
            req_addr: Default::default(),
            req_wdata: Default::default(),
            req_strb: Default::default(),
            req_ns: Default::default(),
            req_root: Default::default(),
            lane_events: (0..lanes).map(|_| Default::default()).collect(),
            lane_sid: (0..lanes).map(|_| Default::default()).collect(),
            lane_acc: (0..lanes).map(|_| Default::default()).collect(),
            lane_nosid: (0..lanes).map(|_| Default::default()).collect(),
            lane_mpam: (0..lanes).map(|_| Default::default()).collect(),
            lane_sid_live: (0..lanes).map(|_| Default::default()).collect(),
            filt_busy: Default::default(),
            ftab: if cfg.filter_tables {
                let shape = TableShape::new(n, lanes, cfg.sid_bits)
                    .expect("a validated configuration has a table shape");
                FilterTable::new(shape, table_fault)
            } else {
                FilterTable::absent(lanes)
            },
            tab_flip: Default::default(),
            fd_idx: Default::default(),
            tables: Constant::new(cfg.filter_tables),
            sel_load: Default::default(),
            filt_go: Default::default(),
            count: Default::default(),
            filt_wr0: Default::default(),
            rd_data: Default::default(),
            paddr: Default::default(),
            held_wr_last: Default::default(),
            held: Default::default(),
            xfer_nx: Default::default(),
            fd_sel: Default::default(),
            dec: AddrDecode::new(cfg),
            rd_word: Default::default(),
            rd_misc: Default::default(),
            rq_misc: Default::default(),
            rq_c0: Default::default(),
            rq_c1: Default::default(),
            rq_c2: Default::default(),
            rq_c3: Default::default(),
            rq_s0: Default::default(),
            rq_s1: Default::default(),
            rq_s2: Default::default(),
            rq_s3: Default::default(),
            rq_usec: Default::default(),
            gc0: Default::default(),
            gc1: Default::default(),
            gc2: Default::default(),
            gc3: Default::default(),
            gs0: Default::default(),
            gs1: Default::default(),
            gs2: Default::default(),
            gs3: Default::default(),
            t_c: Default::default(),
            t_s: Default::default(),
            rd_lo_c: Default::default(),
            rd_lo_s: Default::default(),
            grp: (0..n)
                .map(|i| Constant::new(((i / 16) as u64).into()))
                .collect(),
            cr_nx: Default::default(),
            cnten_nx: Default::default(),
            cnten_set: Default::default(),
            cnten_clr: Default::default(),
            m_evc: Default::default(),
            rq_word: Default::default(),
            m_svr: Default::default(),
            csel_r: Default::default(),
            ssel_r: Default::default(),
            clo_r: Default::default(),
            rq_add: Default::default(),
            rq_addm: Default::default(),
            rq_ctr: Default::default(),
            rq_cadd: Default::default(),
            rq_lo1: Default::default(),
            rq_clo1: Default::default(),
            inc_lo: Default::default(),
            inc_hi: Default::default(),
            inc_clo: Default::default(),
            inc_chi: Default::default(),
            inc_m: Default::default(),
            inc_cm: Default::default(),
            rq_caddm: Default::default(),
            rq_sl: Default::default(),
            rq_done: Default::default(),
            irq: Default::default(),
            c_lo: (0..n).map(|_| Default::default()).collect(),
            hb: HiBank::new(
                n,
                &if cfg.wide_counters() {
                    vec![32 - lo_bits, cfg.counter_bits - 32]
                } else {
                    vec![32 - lo_bits]
                },
                idx_lsb,
                hi_fault,
            ),
            mcarry_pack: BitPack::new(n),
            mpf_v: Default::default(),
            mspf_v: Default::default(),
            mpend_v: Default::default(),
            m_at_max_v: Default::default(),
            mbank_wr_val: Default::default(),
            carry_pack: BitPack::new(n),
            pf_v: Default::default(),
            spf_v: Default::default(),
            pend_v: Default::default(),
            at_max_v: Default::default(),
            bank_wr_val: Default::default(),
            bank_wr_r: Default::default(),
            pair_wr_r: Default::default(),
            arm_r: Default::default(),
            parm_r: Default::default(),
            evt_ram: Default::default(),
            fresh: FreshFlags::new(n),
            smr_ram: Default::default(),
            sel_smr_wmask: Default::default(),
            c_ovfcap: Default::default(),
            ovfcap_wmask: Constant::new(ovfcap_bits(&|i| wmask(RegId::Evtyper(i))).into()),
            ovfcap_reset: Constant::new(ovfcap_bits(&|i| reset(RegId::Evtyper(i))).into()),
            ovfcap_nx: Default::default(),
            ovfcap_wv: Default::default(),
            sel_evt_wmask: Default::default(),
            evt_wmask_rest: c32(wmask(RegId::Evtyper(n.min(2) as u32 - 1))),
            smr_wmask_rest: c32(wmask(RegId::Smr(n.min(2) as u32 - 1))),
            mreg: MatchRegs::new(n),
            fmatch: FilterMatch::new(
                cfg,
                (fault == Some(RtlFault::StaleAccept)).then_some(MatchFault::StaleAccept),
            ),
            evtyper0_wmask: c32(wmask(RegId::Evtyper(0))),
            smr0_wmask: c32(wmask(RegId::Smr(0))),
            lo_reset: (0..cfg.counters)
                .map(|i| Constant::new((reset(RegId::Evcntr(i)) & lo_mask).into()))
                .collect(),
            lo_mask: Constant::new(lo_mask.into()),
            lo_top: Constant::new((lo_mask & 0xFFF0).into()),
            lo_shift: c32(lo_bits as u64),
            lo_mask32: c32(lo_mask),
            evtyper0_reset: c32(reset(RegId::Evtyper(0))),
            smr0_reset: c32(reset(RegId::Smr(0))),
            lo_now: Default::default(),
            lo4: Default::default(),
            wr_lo: Default::default(),
            inc: Default::default(),
            lo_carry: Default::default(),
            c4_c2: Default::default(),
            c4_c3: Default::default(),
            carry4: Default::default(),
            carry: Default::default(),
            lo_next: Default::default(),
            ovf: Default::default(),
            ovf_pack: BitPack::new(n),
            secure_impl: Constant::new(cfg.secure),
            wide: Constant::new(cfg.wide_counters()),
            hi_max: c32(cfg.counter_mask() >> 32),
            bitmap_mask: Constant::new(cfg.counter_bitmap().into()),
            cr_wmask: c32(wmask(RegId::Cr)),
            cr_reset: c32(reset(RegId::Cr)),
            cr_e_mask: c32(map.mask(field::CR_E)),
            scr_wmask: c32(wmask(RegId::Scr)),
            scr_reset: c32(reset(RegId::Scr)),
            scr_nsra_mask: c32(map.mask(field::SCR_NSRA)),
            rootcr_wmask: c32(wmask(RegId::Rootcr)),
            rootcr_reset: c32(reset(RegId::Rootcr)),
            s_mpamidr_val: c32(reset(RegId::SMpamidr)),
            irq_ctrl_wmask: c32(wmask(RegId::IrqCtrl)),
            irq_ctrl_reset: c32(reset(RegId::IrqCtrl)),
            cfg0_reset: c32(reset(RegId::IrqCfg0) & 0xFFFF_FFFF),
            cfg0_hi_reset: c32(reset(RegId::IrqCfg0) >> 32),
            cfg1_reset: c32(reset(RegId::IrqCfg1)),
            cfg2_reset: c32(reset(RegId::IrqCfg2)),
            cnten_reset: Constant::new(reset(RegId::CntenSet0).into()),
            inten_reset: Constant::new(reset(RegId::IntenSet0).into()),
            ovs_reset: Constant::new(reset(RegId::OvsSet0).into()),
            irqen_mask: c32(map.mask(field::IRQ_CTRL_IRQEN)),
            cfg0_wmask: c32(wmask(RegId::IrqCfg0) & 0xFFFF_FFFF),
            cfg0_hi_wmask: c32(wmask(RegId::IrqCfg0) >> 32),
            cfg1_wmask: c32(wmask(RegId::IrqCfg1)),
            cfg2_wmask: c32(wmask(RegId::IrqCfg2)),
            evc_rel_mask: c32(evc_rel_mask),
            fdec: FilterDecoder::new(cfg, decoder_fault),
            smr_ld: Default::default(),
            cr: Default::default(),
            scr: Default::default(),
            rootcr: Default::default(),
            irq_ctrl: Default::default(),
            cfg0: Default::default(),
            cfg0_hi: Default::default(),
            cfg1: Default::default(),
            cfg2: Default::default(),
            cnten: Default::default(),
            inten: Default::default(),
            ovs: Default::default(),
            ovs_eff: Default::default(),
            snap: Default::default(),
            snap_add: Default::default(),
            snap_addr: Default::default(),
            snap_valid: Default::default(),
            iss: IrqIssue::new(cfg.msi, None),
            msi_addr_nz: Default::default(),
            pair_open: Default::default(),
            evt_ld: Default::default(),
            cyc_ld: Default::default(),
            fd_load: Default::default(),
            fd_filt: Default::default(),
            fd_evtw: Default::default(),
            dsel_r: Default::default(),
            fmode_r: Default::default(),
            mode_ld: Default::default(),
            sel_dec: Default::default(),
            fd_wr0: Default::default(),
            pair_key: Default::default(),
            pair_base: Default::default(),
            pair_h: Default::default(),
            pair_pre: Default::default(),
            pf1_r: Default::default(),
            hbx_r: Default::default(),
            pl0: Default::default(),
            pl1: Default::default(),
            ph00: Default::default(),
            ph01: Default::default(),
            ph10: Default::default(),
            ph11: Default::default(),
            psum0: Default::default(),
            psum1: Default::default(),
            ph_r: Default::default(),
            hb_r: Default::default(),
            cand0_r: Default::default(),
            cand1_r: Default::default(),
            ones0_r: Default::default(),
            ones1_r: Default::default(),
            m10_r: Default::default(),
            m11_r: Default::default(),
            wrap0_r: Default::default(),
            wrap1_r: Default::default(),
            hi_max_m1: c32((cfg.counter_mask() >> 32).wrapping_sub(1) & 0xFFFF_FFFF),
            mpf1_r: Default::default(),
            mcand0_r: Default::default(),
            mcand1_r: Default::default(),
            mones0_r: Default::default(),
            mones1_r: Default::default(),
            mm10_r: Default::default(),
            mm11_r: Default::default(),
            mwr_ones: Default::default(),
            mwr_m1: Default::default(),
            mid_max: c32(mid_max),
            mid_max_m1: c32(mid_max - 1),
            mid_bmask: Default::default(),
            mid_wbits: Default::default(),
            lo_bmask: Default::default(),
            lo_wbits: Default::default(),
            wr_ones: Default::default(),
            wr_m1: Default::default(),
            msi_owed_next: Default::default(),
            export_r: Default::default(),
            s_lo: (0..n).map(|_| Default::default()).collect(),
            s_pend: Default::default(),
            s_mpend: Default::default(),
            gmpam: Default::default(),
            gmpam_wmask: c32(wmask(RegId::Gmpam)),
            msi_mpam: Default::default(),
            ovfcap_mask: c32(map.mask(field::EVTYPER_OVFCAP)),
            nsmsi_mask: c32(map.mask(field::SCR_NSMSI)),
            abt_mask: c32(map.mask(field::IRQ_STATUS_IRQ_ABT)),
            ctrl_next: Default::default(),
            irq_en: Default::default(),
            cap: CaptureTrigger::new(n, cfg.capture, None),
            svr_load: Default::default(),
            svr_hi_now: Default::default(),
            svr_hi_add: Default::default(),
            svr_in: Default::default(),
            sel_spend: Default::default(),
            sel_smpend: Default::default(),
            selsp_r: Default::default(),
            selsmp_r: Default::default(),
            svrl_r: Default::default(),
            svrl_rst_r: Default::default(),
            capt_req: Default::default(),
            msi_busy: Default::default(),
            irq_ack: Default::default(),
            irq_abt: Default::default(),
            msi_issue: Default::default(),
            msi_addr_lo: Default::default(),
            msi_addr_hi: Default::default(),
            msi_data: Default::default(),
            msi_prot: Default::default(),
            irqen_next: Default::default(),
            msi_attr: Default::default(),
            capt_ack: Default::default(),
            ovf_export: Default::default(),
            word_addr: Default::default(),
            at_scr: Default::default(),
            blocked: Default::default(),
            wr_ok: Default::default(),
            bmask: Default::default(),
            wbits: Default::default(),
            w64_lo: Default::default(),
            w64_hi: Default::default(),
            evc_in: Default::default(),
            evc_rel: Default::default(),
            evc_hiword: Default::default(),
            evt_in: Default::default(),
            smr_in: Default::default(),
            evt_merged: Default::default(),
            smr_merged: Default::default(),
            sel_pend: Default::default(),
            msel_pend: Default::default(),
            selmp_r: Default::default(),
            selmc_r: Default::default(),
            selp_r: Default::default(),
            selc_r: Default::default(),
            sel_evtyper: Default::default(),
            sel_smr: Default::default(),
            hi_eff: Default::default(),
            cr_e: Default::default(),
            guarded: Default::default(),
            snap_hit: Default::default(),
            ovf_vec: Default::default(),
        }
    }
}

impl Logic for RegFile {
    #[hdl_gen]
    // hdl_gen has no `&&`: an index compare that only a strobe's cycle should pay for is a nested
    // `if` (the native simulation evaluates both sides of `&`).
    #[allow(clippy::collapsible_if)]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            cr,
            scr,
            rootcr,
            irq_ctrl,
            cfg0,
            cfg0_hi,
            cfg1,
            cfg2,
            cnten,
            inten,
            ovs,
            snap,
            snap_add,
            snap_hit,
            snap_addr,
            snap_valid,
            msi_addr_nz,
            export_r,
            c_ovfcap,
            s_pend,
            s_mpend,
            gmpam,
            pair_open,
            pair_key,
            pair_base,
            fd_sel,
            fd_filt,
            fd_evtw,
            dsel_r,
            fmode_r,
            fd_wr0,
            fd_idx,
            rq_word,
            rq_misc,
            rq_add,
            rq_done,
            pf1_r,
            hbx_r,
            ph_r,
            hb_r,
            cand0_r,
            cand1_r,
            ones0_r,
            ones1_r,
            m10_r,
            m11_r,
            wrap0_r,
            wrap1_r,
            bank_wr_r,
            pair_wr_r,
            arm_r,
            parm_r,
            selp_r,
            selc_r,
            selmp_r,
            selmc_r,
            selsp_r,
            selsmp_r,
            svrl_r,
            svrl_rst_r,
            mpf1_r,
            mcand0_r,
            mcand1_r,
            mones0_r,
            mones1_r,
            mm10_r,
            mm11_r,
            rq_addm,
            rq_ctr,
            rq_cadd,
            rq_caddm,
            rq_sl,
            rq_lo1,
            rq_clo1,
            csel_r,
            ssel_r,
            clo_r,
            rq_c0,
            rq_c1,
            rq_c2,
            rq_c3,
            rq_s0,
            rq_s1,
            rq_s2,
            rq_s3,
            rq_usec
        );
        // The upper-word bank's outputs (registers of the bank; 0 with 32-bit counters).
        self.pf_v.next = 0.into();
        self.spf_v.next = 0.into();
        self.pend_v.next = 0.into();
        self.at_max_v.next = 0.into();
        self.mpf_v.next = self.hb.pf[0].val();
        self.mspf_v.next = self.hb.spf[0].val();
        self.mpend_v.next = self.hb.pend[0].val();
        self.m_at_max_v.next = self.hb.at_max[0].val();
        for r in 1..self.hb.pf.len() {
            self.pf_v.next = self.hb.pf[r].val();
            self.spf_v.next = self.hb.spf[r].val();
            self.pend_v.next = self.hb.pend[r].val();
            self.at_max_v.next = self.hb.at_max[r].val();
        }
        // ---- Request decode -------------------------------------------------------------
        self.dec.clock.next = self.clock.val();
        self.dec.paddr.next = self.paddr.val();
        self.dec.xfer_nx.next = self.xfer_nx.val();
        // EVTYPER readback storage: read at every edge with the live PADDR's element index
        // (bits [7:2], checked in `new`), so a transfer's access cycle has its word.
        self.evt_ram.clock.next = self.clock.val();
        self.evt_ram.read_address.next = self.paddr.val().get_bits::<6>(2);
        self.smr_ram.clock.next = self.clock.val();
        self.smr_ram.read_address.next = self.paddr.val().get_bits::<6>(2);
        self.fresh.clock.next = self.clock.val();
        self.fresh.rst.next = self.rst.val();
        self.fresh.rd_idx.next = self.paddr.val().get_bits::<6>(2);
        self.word_addr.next = self.req_addr.val() & 0xFFFF_FFFCu64;
        self.at_scr.next = self.dec.scr.val();
        // 10.6 / SCR.NSRA: with Secure state, NSRA = 0 makes every Non-secure access RAZ/WI.
        self.blocked.next = self.secure_impl.val()
            & self.req_ns.val()
            & (!(self.scr.q.val() & self.scr_nsra_mask.val()).any());
        // `req_wr & !blocked`, registered in the completer from SCR after its setup edge
        // (`nsra_open`, below): every write enable is one LUT from flip-flops.
        self.wr_ok.next = self.req_wr_ok.val();
        // PSTRB's byte lanes as a bit mask: one strobe per bit, no 16-way decode in front of
        // every merged write.
        self.bmask.next = 0.into();
        if self.req_strb.val().get_bit(0) {
            self.bmask.next = self.bmask.val() | 0x0000_00FFu64;
        }
        if self.req_strb.val().get_bit(1) {
            self.bmask.next = self.bmask.val() | 0x0000_FF00u64;
        }
        if self.req_strb.val().get_bit(2) {
            self.bmask.next = self.bmask.val() | 0x00FF_0000u64;
        }
        if self.req_strb.val().get_bit(3) {
            self.bmask.next = self.bmask.val() | 0xFF00_0000u64;
        }
        self.wbits.next = self.req_wdata.val() & self.bmask.val();
        self.lo_bmask.next = bit_cast::<16, 32>(self.bmask.val()) & self.lo_mask.val();
        self.lo_wbits.next = bit_cast::<16, 32>(self.wbits.val()) & self.lo_mask.val();
        self.w64_lo.next = bit_cast::<64, 32>(self.wbits.val()) & self.bitmap_mask.val();
        self.w64_hi.next = (bit_cast::<64, 32>(self.wbits.val()) << 32) & self.bitmap_mask.val();
        // Array regions and element selects come decoded from the setup cycle (`AddrDecode`).
        // The EVCNTR element offset is kept for the pair register's compare.
        self.evc_rel.next = self.word_addr.val() & self.evc_rel_mask.val();
        self.evc_hiword.next = self.dec.hiword.val();
        self.evc_in.next = self.dec.evc_in.val();
        self.svr_in.next = self.dec.svr_in.val();
        self.evt_in.next = self.dec.evt_in.val();
        self.smr_in.next = self.dec.smr_in.val();
        // The addressed counter's registers (for reads and for PSTRB merges). Not gated by the
        // access: a gate costs a logic level in front of every counter write (measured on
        // 16x32), and outside an access nothing uses them.
        self.gc0.next = 0.into();
        self.gc1.next = 0.into();
        self.gc2.next = 0.into();
        self.gc3.next = 0.into();
        self.gs0.next = 0.into();
        self.gs1.next = 0.into();
        self.gs2.next = 0.into();
        self.gs3.next = 0.into();
        self.selp_r.d.next = (self.pend_v.val() & self.dec.evc_sel.val()).any();
        self.selc_r.d.next = (self.carry_pack.word.val() & self.dec.evc_sel.val()).any();
        self.sel_pend.next = self.selp_r.q.val() | self.selc_r.q.val();
        self.selmp_r.d.next = (self.mpend_v.val() & self.dec.evc_sel.val()).any();
        self.selmc_r.d.next = (self.mcarry_pack.word.val() & self.dec.evc_sel.val()).any();
        self.msel_pend.next = self.selmp_r.q.val() | self.selmc_r.q.val();
        self.csel_r.d.next = 0.into();
        self.ssel_r.d.next = 0.into();
        if self.held.val()
            & (self.dec.evc_in.val() | self.dec.svr_in.val())
            & (!self.dec.hiword.val())
        {
            self.csel_r.d.next = self.dec.evc_sel.val();
        }
        if self.held.val() & self.dec.svr_in.val() & (!self.dec.hiword.val()) {
            self.ssel_r.d.next = self.dec.evc_sel.val();
        }
        self.clo_r.d.next = self.held.val() & self.dec.evc_in.val() & (!self.dec.hiword.val());
        for n in 0..self.c_lo.len() {
            // AND-OR over the one-hot element selects (an OR tree, not a priority chain):
            // EVCNTRn and SVRn share element n's select, and so do EVTYPERn and SMRn.
            self.m_evc.next = 0.into();
            if self.csel_r.q.val().get_bit(n) {
                self.m_evc.next = 0xFFFFu64.into();
            }
            self.m_svr.next = 0.into();
            if self.ssel_r.q.val().get_bit(n) {
                self.m_svr.next = 0xFFFFu64.into();
            }
            self.t_c.next = self.c_lo[n].q.val() & self.m_evc.val();
            self.t_s.next = self.s_lo[n].q.val() & self.m_svr.val();
            // (Four named groups, one branch each: a kernel cannot index locals by n / 16; the
            // group constants fold away in the Verilog.)
            if self.grp[n].val() == 0u64 {
                self.gc0.next = self.gc0.val() | self.t_c.val();
                self.gs0.next = self.gs0.val() | self.t_s.val();
            }
            if self.grp[n].val() == 1u64 {
                self.gc1.next = self.gc1.val() | self.t_c.val();
                self.gs1.next = self.gs1.val() | self.t_s.val();
            }
            if self.grp[n].val() == 2u64 {
                self.gc2.next = self.gc2.val() | self.t_c.val();
                self.gs2.next = self.gs2.val() | self.t_s.val();
            }
            if self.grp[n].val() == 3u64 {
                self.gc3.next = self.gc3.val() | self.t_c.val();
                self.gs3.next = self.gs3.val() | self.t_s.val();
            }
        }
        self.selsp_r.d.next = (self.s_pend.q.val() & self.dec.evc_sel.val()).any();
        self.selsmp_r.d.next = (self.s_mpend.q.val() & self.dec.evc_sel.val()).any();
        // The shadows' pending carries now: loaded at the last edge from the counters' (a
        // capture), cleared (a reset), or unchanged since (`s_pend` changes at no other edge).
        self.svrl_rst_r.d.next = self.rst.val();
        self.sel_spend.next = self.selsp_r.q.val();
        self.sel_smpend.next = self.selsmp_r.q.val();
        if self.svrl_r.q.val() {
            self.sel_spend.next = self.selp_r.q.val();
            self.sel_smpend.next = self.selmp_r.q.val();
        }
        if self.svrl_rst_r.q.val() {
            self.sel_spend.next = false;
            self.sel_smpend.next = false;
        }
        // The addressed EVTYPER: the block RAM's word (read at the setup edge), or its reset
        // value when it has not been written since reset.
        self.sel_evtyper.next = self.evt_ram.read_data.val();
        if self.fresh.evt_sel.val() {
            self.sel_evtyper.next = self.evtyper0_reset.val();
        }
        self.sel_smr.next = self.smr_ram.read_data.val();
        self.sel_evt_wmask.next = self.evt_wmask_rest.val();
        self.sel_smr_wmask.next = self.smr_wmask_rest.val();
        if self.dec.arr_sel.val().get_bit(0) {
            self.sel_evt_wmask.next = self.evtyper0_wmask.val();
            self.sel_smr_wmask.next = self.smr0_wmask.val();
        }
        if self.fresh.smr_sel.val() {
            self.sel_smr.next = self.smr0_reset.val();
        }
        // The addressed counter's upper value: pf + its pending carry (pf + 1 from stage 1).
        self.hi_eff.next = self.pf_v.val();
        if self.sel_pend.val() {
            self.hi_eff.next = self.pf1_r.q.val();
        }
        // The SVRs are written one edge after their capture (from the counters' registers, so no
        // adder and no overflow logic sits in front of 2 x 32 x counters enables); in between,
        // the counter's value is the captured one.
        self.svr_load.next = self.cap.svr_load.val();
        self.svrl_r.d.next = self.svr_load.val();
        self.svr_hi_now.next = self.spf_v.val();
        self.svr_hi_add.next = self.sel_spend.val();
        if self.svr_load.val() {
            self.svr_hi_now.next = self.pf_v.val();
            self.svr_hi_add.next = self.sel_pend.val();
        }
        // ---- Split 64-bit counter writes (10.5: 64-bit atomicity is IMPLEMENTATION DEFINED;
        // docs/behaviour.md "Split 64-bit counter writes"). A low-word write opens the pair with
        // B = the counter's high part; the next EVCNTR write closes it; a high-word write to the
        // paired counter rebases its high part to H + c (c = carries since the low write) and
        // lets it count at this edge, so {H, L} behaves as written whole at the low write.
        // The paired high write, decided in its last held cycle (the transfer's address, PPROT
        // and the pair are stable through its hold; only a reset at that edge drops the write,
        // and then `rst` clears every overflow at the next), so its access edge reads a register.
        // Decided a cycle ahead (`parm_r`, `arm_r` below): the pair compare is off the path into
        // the counters' D logic.
        self.pair_wr_r.d.next = self.held_wr_last.val() & self.parm_r.q.val();
        self.pair_h.next =
            ((self.pair_base.q.val() & (!self.bmask.val())) | self.wbits.val()) & self.hi_max.val();
        // The write's outcome, staged during the hold (see `pair_pre`): every input is a
        // register that does not change from the banks' prefetch (within HI_PREFETCH_CYCLES of the
        // hold's first cycle) to the access edge.
        self.pair_pre.next = self.evc_in.val()
            & self.evc_hiword.val()
            & self.pair_open.q.val()
            & (self.evc_rel.val() == self.pair_key.q.val());
        self.pf1_r.d.next = (self.pf_v.val() + 1u64) & self.hi_max.val();
        self.ph_r.d.next = self.pair_h.val();
        self.hb_r.d.next = (self.ph_r.q.val() - self.pair_base.q.val()) & self.hi_max.val();
        self.hbx_r.d.next = self.hb_r.q.val() + 0x1_0000u64;
        self.pl0.next = (self.hb_r.q.val() & 0xFFFFu64) + (self.pf_v.val() & 0xFFFFu64);
        self.pl1.next = (self.hb_r.q.val() & 0xFFFFu64) + (self.pf1_r.q.val() & 0xFFFFu64);
        self.ph00.next = ((self.hb_r.q.val() >> 16u64) + (self.pf_v.val() >> 16u64)) << 16u64;
        self.ph01.next = ((self.hbx_r.q.val() >> 16u64) + (self.pf_v.val() >> 16u64)) << 16u64;
        self.ph10.next = ((self.hb_r.q.val() >> 16u64) + (self.pf1_r.q.val() >> 16u64)) << 16u64;
        self.ph11.next = ((self.hbx_r.q.val() >> 16u64) + (self.pf1_r.q.val() >> 16u64)) << 16u64;
        self.psum0.next = self.ph00.val() | (self.pl0.val() & 0xFFFFu64);
        if self.pl0.val().get_bit(16) {
            self.psum0.next = self.ph01.val() | (self.pl0.val() & 0xFFFFu64);
        }
        self.psum1.next = self.ph10.val() | (self.pl1.val() & 0xFFFFu64);
        if self.pl1.val().get_bit(16) {
            self.psum1.next = self.ph11.val() | (self.pl1.val() & 0xFFFFu64);
        }
        self.cand0_r.d.next = self.pf_v.val();
        self.cand1_r.d.next = self.pf1_r.q.val();
        if self.evc_hiword.val() {
            self.cand0_r.d.next =
                ((self.pf_v.val() & (!self.bmask.val())) | self.wbits.val()) & self.hi_max.val();
            self.cand1_r.d.next =
                ((self.pf1_r.q.val() & (!self.bmask.val())) | self.wbits.val()) & self.hi_max.val();
            // The pair decision from its register (`parm_r`, exact from the hold's third cycle,
            // long before the prefetch that the candidates wait for): the 32-bit pair compare is
            // not in front of the candidates' muxes (16x64's 99.97 MHz path on sweep seed 1 at
            // 431b76a, pair_key -> cand0_r).
            if self.parm_r.q.val() {
                self.cand0_r.d.next = self.psum0.val() & self.hi_max.val();
                self.cand1_r.d.next = self.psum1.val() & self.hi_max.val();
            }
        }
        self.ones0_r.d.next = self.cand0_r.q.val() == self.hi_max.val();
        self.ones1_r.d.next = self.cand1_r.q.val() == self.hi_max.val();
        self.m10_r.d.next = self.cand0_r.q.val() == self.hi_max_m1.val();
        self.m11_r.d.next = self.cand1_r.q.val() == self.hi_max_m1.val();
        // c < 2^K, so H + c wrapped exactly when the result is below H.
        self.wrap0_r.d.next = self.cand0_r.q.val() < self.ph_r.q.val();
        self.wrap1_r.d.next = self.cand1_r.q.val() < self.ph_r.q.val();
        // Bits [31:L]: mid's row after the write, for both values of its pending carry.
        self.mid_bmask.next = self.bmask.val() >> self.lo_shift.val();
        self.mid_wbits.next = self.wbits.val() >> self.lo_shift.val();
        self.mpf1_r.d.next = (self.mpf_v.val() + 1u64) & self.mid_max.val();
        self.mcand0_r.d.next = self.mpf_v.val();
        self.mcand1_r.d.next = self.mpf1_r.q.val();
        if !self.evc_hiword.val() {
            self.mcand0_r.d.next =
                (self.mpf_v.val() & (!self.mid_bmask.val())) | self.mid_wbits.val();
            self.mcand1_r.d.next =
                (self.mpf1_r.q.val() & (!self.mid_bmask.val())) | self.mid_wbits.val();
        }
        self.mones0_r.d.next = self.mcand0_r.q.val() == self.mid_max.val();
        self.mones1_r.d.next = self.mcand1_r.q.val() == self.mid_max.val();
        self.mm10_r.d.next = self.mcand0_r.q.val() == self.mid_max_m1.val();
        self.mm11_r.d.next = self.mcand1_r.q.val() == self.mid_max_m1.val();
        self.mwr_ones.next = self.mones0_r.q.val();
        self.mwr_m1.next = self.mm10_r.q.val();
        self.mbank_wr_val.next = self.mcand0_r.q.val();
        if self.msel_pend.val() {
            self.mwr_ones.next = self.mones1_r.q.val();
            self.mwr_m1.next = self.mm11_r.q.val();
            self.mbank_wr_val.next = self.mcand1_r.q.val();
        }
        self.wr_ones.next = self.ones0_r.q.val();
        self.wr_m1.next = self.m10_r.q.val();
        if self.sel_pend.val() {
            self.wr_ones.next = self.ones1_r.q.val();
            self.wr_m1.next = self.m11_r.q.val();
        }
        if self.wr_ok.val() & self.evc_in.val() {
            self.pair_open.d.next = self.wide.val() & (!self.evc_hiword.val());
            self.pair_key.d.next = self.evc_rel.val();
            self.pair_base.d.next = self.hi_eff.val();
        }
        if self.rst.val() {
            self.pair_open.d.next = false;
        }
        // A counter write skips the events of its access edge (docs/behaviour.md): its match
        // register is cleared at the edge ending its last held cycle, from registers (the bus
        // is stable since setup), in MatchRegs, and the written bytes merge into the adder's
        // output (the old value) in the counter's own D logic, with no gate in front of its
        // adder. Nothing the decision reads changes at that edge (SCR and the pair registers
        // change only at access edges; a reset edge clears the match register anyway).
        // The decision is registered every cycle and read in the last held cycle: its inputs are
        // stable from the hold's second cycle (the decoder registers the registered address) to
        // its last, so `arm_r` and `parm_r` are exact from its third (COUNTER_HOLD_CYCLES >= 3,
        // asserted in `new`). A reset in the hold drops the transfer (the completer's `hold`).
        self.arm_r.d.next = (!self.blocked.val()) & self.evc_in.val() & (!self.pair_pre.val());
        self.parm_r.d.next = (!self.blocked.val()) & self.pair_pre.val();
        self.mreg.clock.next = self.clock.val();
        self.mreg.wr_next.next = self.held_wr_last.val();
        self.mreg.arm.next = self.arm_r.q.val();
        self.mreg.evc_sel.next = self.dec.evc_sel.val();
        // EVTYPER and SMR write data, merged per PSTRB with the addressed register, and the
        // event decode of the EVTYPER value: cycle event, a lane event bit, or unsupported.
        self.evt_merged.next = (self.sel_evtyper.val() & (!self.bmask.val())) | self.wbits.val();
        self.evt_ram.write_address.next = self.req_addr.val().get_bits::<6>(2);
        self.evt_ram.write_data.next = self.evt_merged.val() & self.sel_evt_wmask.val();
        self.evt_ram.write_enable.next = self.wr_ok.val() & self.evt_in.val();
        // The event decode of the registered EVTYPER value (FilterDecoder: loaded one edge after
        // the write).
        self.dsel_r.d.next = self.fdec.sel.val();
        self.sel_dec.next = self.fdec.sel.val();
        self.cyc_ld.next = self.fdec.cyc.val();
        if self.tables.val() {
            self.sel_dec.next = self.dsel_r.q.val();
            self.cyc_ld.next = self.dsel_r.q.val().get_bit(6);
        }
        self.smr_merged.next = (self.sel_smr.val() & (!self.bmask.val())) | self.wbits.val();
        self.smr_ram.write_address.next = self.req_addr.val().get_bits::<6>(2);
        self.smr_ram.write_data.next = self.smr_merged.val() & self.sel_smr_wmask.val();
        self.smr_ram.write_enable.next = self.wr_ok.val() & self.smr_in.val();
        self.fresh.wr_idx.next = self.req_addr.val().get_bits::<6>(2);
        self.fresh.wr_evt.next = self.wr_ok.val() & self.evt_in.val();
        self.fresh.wr_smr.next = self.wr_ok.val() & self.smr_in.val();
        // ---- Filter decode (10.4, filter_decode.rs): the (CARE, mode) of the counter written
        // at the previous edge, from its registered EVTYPER and SMR.
        self.fmode_r.d.next = self.fdec.mode.val();
        self.mode_ld.next = self.fdec.mode.val();
        if self.tables.val() {
            self.mode_ld.next = self.fmode_r.q.val();
        }
        // ---- Filter tables (filter_table.rs; `filter_tables` only): the decoded write of the
        // previous edge starts its counter's column rebuild (VALUE = SMR & CARE); the decoded
        // event selection and filter load at its swap, 257 edges later, so that events see the
        // old or the new configuration, never a mix (docs/behaviour.md "Filter tables").
        self.ftab.clock.next = self.clock.val();
        self.ftab.rst.next = self.rst.val();
        for l in 0..self.lane_sid_live.len() {
            self.ftab.sid[l].next = self.lane_sid_live[l].val();
            self.fmatch.tab_hit[l].next = self.ftab.hit[l].val();
        }
        self.ftab.start.next = self.fd_filt.q.val();
        self.ftab.col.next = self.fd_idx.q.val();
        self.ftab.care.next = self.fdec.care.val();
        self.ftab.val.next = self.fdec.smr_q.val() & self.fdec.care.val();
        self.tab_flip.next = self.ftab.flip.val();
        self.filt_busy.next = false;
        if self.tables.val() {
            self.filt_busy.next = self.fd_filt.q.val() | self.ftab.busy.val();
        }
        self.sel_load.next = self.fd_evtw.q.val();
        self.filt_go.next = self.fd_filt.q.val();
        if self.tables.val() {
            self.sel_load.next = self.tab_flip.val();
            self.filt_go.next = self.tab_flip.val();
        }
        self.filt_wr0.next = self.wr_ok.val()
            & ((self.evt_in.val() & self.dec.arr_sel.val().get_bit(0))
                | (self.smr_in.val() & self.dec.arr_sel.val().get_bit(0)));
        // Register the decode's inputs: the written counter's EVTYPER and SMR after this write
        // (an EVTYPER address and an SMR address select the same counter's other register: the
        // arrays share their index bits, checked in `new`).
        self.fd_load.next = self.wr_ok.val() & (self.evt_in.val() | self.smr_in.val());
        self.fd_filt.d.next = self.fd_load.val();
        self.fd_evtw.d.next = self.wr_ok.val() & self.evt_in.val();
        self.fd_wr0.d.next = self.filt_wr0.val();
        if self.fd_load.val() {
            self.fd_idx.d.next = self.req_addr.val().get_bits::<6>(2);
        }
        // The decoder's inputs: the written counter's EVTYPER and SMR after this write.
        self.evt_ld.next = self.sel_evtyper.val();
        if self.evt_in.val() {
            self.evt_ld.next = self.evt_merged.val();
        }
        self.smr_ld.next = self.sel_smr.val();
        if self.smr_in.val() {
            self.smr_ld.next = self.smr_merged.val();
        }
        self.fdec.clock.next = self.clock.val();
        self.fdec.load.next = self.fd_load.val();
        self.fdec.evt.next = self.evt_ld.val();
        self.fdec.smr.next = self.smr_ld.val();
        if self.fd_load.val() {
            self.fd_sel.d.next = self.dec.arr_sel.val();
        }
        if self.rst.val() {
            self.fd_filt.d.next = false;
            self.fd_evtw.d.next = false;
            self.fd_wr0.d.next = false;
        }
        // ---- Counter bank -------------------------------------------------------------------
        self.cr_e.next = (self.cr.q.val() & self.cr_e_mask.val()).any();
        // CR and CNTEN after this edge (their storage takes them).
        self.cr_nx.next = self.cr.q.val();
        if self.wr_ok.val() & self.dec.cr.val() {
            self.cr_nx.next = (self.cr.q.val() & (!(self.cr_wmask.val() & self.bmask.val())))
                | (self.wbits.val() & self.cr_wmask.val());
        }
        if self.rst.val() {
            self.cr_nx.next = self.cr_reset.val();
        }
        // The four views' decodes are one-hot (distinct addresses), so their set and clear
        // masks OR together: one AND-OR per bit, not a chain of four muxes in front of every
        // event-0 counter's match register.
        self.cnten_set.next = 0.into();
        self.cnten_clr.next = 0.into();
        if self.wr_ok.val() & self.dec.cntenset.val() {
            self.cnten_set.next = self.cnten_set.val() | self.w64_lo.val();
        }
        if self.wr_ok.val() & self.dec.cntenset_hi.val() {
            self.cnten_set.next = self.cnten_set.val() | self.w64_hi.val();
        }
        if self.wr_ok.val() & self.dec.cntenclr.val() {
            self.cnten_clr.next = self.cnten_clr.val() | self.w64_lo.val();
        }
        if self.wr_ok.val() & self.dec.cntenclr_hi.val() {
            self.cnten_clr.next = self.cnten_clr.val() | self.w64_hi.val();
        }
        self.cnten_nx.next = (self.cnten.q.val() | self.cnten_set.val()) & (!self.cnten_clr.val());
        if self.rst.val() {
            self.cnten_nx.next = self.cnten_reset.val();
        }
        self.cr.d.next = self.cr_nx.val();
        self.cnten.d.next = self.cnten_nx.val();
        // ---- Match (filter_match.rs): the registered lanes against every counter's event and
        // filter, into the match registers; the decoder's loads, SCR and ROOTCR after this edge
        // (`scr_nx`, `rootcr_nx`: set below, after the reset).
        self.fmatch.clock.next = self.clock.val();
        self.fmatch.rst.next = self.rst.val();
        for l in 0..self.lane_events.len() {
            self.fmatch.lane_events[l].next = self.lane_events[l].val();
            self.fmatch.lane_sid[l].next = self.lane_sid[l].val();
            self.fmatch.lane_acc[l].next = self.lane_acc[l].val();
            self.fmatch.lane_nosid[l].next = self.lane_nosid[l].val();
            self.fmatch.lane_mpam[l].next = self.lane_mpam[l].val();
        }
        self.fmatch.cr_e.next = self.cr_e.val();
        self.fmatch.cnten.next = self.cnten.q.val();
        self.fmatch.scr.next = self.scr.q.val();
        self.fmatch.rootcr.next = self.rootcr.q.val();
        self.fmatch.ctl_wr.next = self.wr_ok.val() & (self.at_scr.val() | self.dec.rootcr.val());
        self.fmatch.sel_load.next = self.sel_load.val();
        self.fmatch.filt_go.next = self.filt_go.val();
        self.fmatch.ld_sel.next = self.fd_sel.q.val();
        self.fmatch.ld_wr0.next = self.fd_wr0.q.val();
        self.fmatch.ld_evsel.next = self.sel_dec.val();
        self.fmatch.ld_cyc.next = self.cyc_ld.val();
        self.fmatch.ld_care.next = self.fdec.care.val();
        self.fmatch.ld_mode.next = self.mode_ld.val();
        self.fmatch.smr_load.next = self.fd_filt.q.val() & (!self.fd_evtw.q.val());
        self.fmatch.ld_smr.next = self.fdec.smr_q.val();
        for n in 0..self.c_lo.len() {
            self.c_lo[n].clock.next = self.clock.val();
            self.lo_now.next = self.c_lo[n].q.val();
            self.lo4.next = bit_cast::<4, 16>(self.lo_now.val());
            self.mreg.d[n].next = self.fmatch.match_nx[n].val();
            self.count.next = self.mreg.q[n].val();
            // Write strobes of counter n (only a write cycle compares the index).
            self.wr_lo.next = false;
            if self.wr_ok.val() {
                self.wr_lo.next = self.evc_in.val()
                    & (!self.evc_hiword.val())
                    & (self.dec.evc_sel.val().get_bit(n));
            }
            // ---- Counter n (10.5.2.1): bits [L-1:0] here, [31:L] in `mid`, [63:32] in the upper
            // bank, with registered (pending) carries between them, so no path adds more than 32
            // bits in a cycle. The counter adds its match register (enables applied when it was
            // loaded) or, counting cycles, 1 while enabled.
            self.inc.next = bit_cast::<16, 4>(self.count.val());
            // Carry out of the L-bit low word. `inc` is at most MAX_LANES (8) < 16, so lo + inc
            // carries exactly when lo[L-1:4] are all ones and lo[3:0] + inc > 15 (the carry out
            // of bit 3, as gates), beside the L-bit add, not a compare behind it. It
            // carries out of bit 31 exactly when mid's row + its pending carry is all ones (mid's
            // `at_max`).
            self.c4_c2.next = (self.lo4.val().get_bit(1) & self.count.val().get_bit(1))
                | ((self.lo4.val().get_bit(1) | self.count.val().get_bit(1))
                    & self.lo4.val().get_bit(0)
                    & self.count.val().get_bit(0));
            self.c4_c3.next = (self.lo4.val().get_bit(2) & self.count.val().get_bit(2))
                | ((self.lo4.val().get_bit(2) | self.count.val().get_bit(2)) & self.c4_c2.val());
            self.carry4.next = (self.lo4.val().get_bit(3) & self.count.val().get_bit(3))
                | ((self.lo4.val().get_bit(3) | self.count.val().get_bit(3)) & self.c4_c3.val());
            self.lo_carry.next = ((self.c_lo[n].q.val() & self.lo_top.val()) == self.lo_top.val())
                & self.carry4.val();
            self.carry.next = self.lo_carry.val() & self.m_at_max_v.val().get_bit(n);
            self.lo_next.next = (self.c_lo[n].q.val() + self.inc.val()) & self.lo_mask.val();
            self.mcarry_pack.bits[n].next = self.lo_carry.val();
            self.carry_pack.bits[n].next = self.carry.val() & self.wide.val();
            // 10.2.1: overflow is the carry out of the counter width; the counter wraps.
            self.ovf.next =
                self.carry.val() & ((!self.wide.val()) | self.at_max_v.val().get_bit(n));
            // A write replaces its word and the counter skips this edge's events; a write never
            // overflows.
            // The match register of a written counter was cleared at the edge before its access
            // cycle (the end of its last held cycle, in MatchRegs), so
            // `lo_next` is the old value, no carry is pending from this edge and nothing
            // overflows; the written bytes merge per PSTRB in counter n's own D logic (no element
            // mux or shared merge in front of it).
            if self.wr_lo.val() {
                // The written bits below L here; those above go to mid's row (`mbank_wr_val`).
                self.lo_next.next =
                    (self.lo_next.val() & (!self.lo_bmask.val())) | self.lo_wbits.val();
            }
            // The upper word is written in the bank (`bank_wr_val`); a paired write counts at
            // this edge, and its overflow is the rebase's (`pair_wr_r`). The candidates are
            // selected by the counter's own pending carry, which is `sel_pend` for the addressed
            // counter in its access cycle (the bank leaves it alone from the hold's fifth
            // cycle): not by `sel_pend`, whose fanout (every write candidate) made it the 16x64
            // path from `selc_r` into OVS's export at 94.5 MHz.
            if self.pair_wr_r.q.val() & self.dec.evc_sel.val().get_bit(n) {
                self.ovf.next = (self.carry.val() & self.ones0_r.q.val()) | self.wrap0_r.q.val();
                if self.pend_v.val().get_bit(n) {
                    self.ovf.next =
                        (self.carry.val() & self.ones1_r.q.val()) | self.wrap1_r.q.val();
                }
            }
            if self.rst.val() {
                self.lo_next.next = self.lo_reset[n].val();
                self.ovf.next = false;
            }
            self.c_lo[n].d.next = self.lo_next.val();
            self.ovf_pack.bits[n].next = self.ovf.val();
        }
        self.ovf_vec.next = self.ovf_pack.word.val();
        // ---- Capture (10.2.1, 10.5.2.11): CAPR.CAPTURE, OVFCAP, the external request. A capture
        // at this edge takes every counter's value after this edge: registered per group of
        // counters in CaptureTrigger (the OR over the groups comes after its register), the
        // SVRs load the counters' q at the next edge, and reads see the counters meanwhile. -----
        self.cap.clock.next = self.clock.val();
        self.cap.rst.next = self.rst.val();
        // 10.2.1: an overflow of a counter with EVTYPERn.OVFCAP = 1 triggers a capture.
        self.cap.ovfcap.next = self.ovf_vec.val() & self.c_ovfcap.q.val();
        // EVTYPERn.OVFCAP after this edge: an EVTYPER write sets its counter's bit to the written
        // OVFCAP (0 where OVFCAP is not writable); a reset to the register map's reset values.
        self.ovfcap_nx.next = self.c_ovfcap.q.val();
        // (Assigned on every path: no latch.)
        self.ovfcap_wv.next = 0.into();
        if self.wr_ok.val() & self.evt_in.val() {
            if (self.evt_merged.val() & self.ovfcap_mask.val()).any() {
                self.ovfcap_wv.next = self.ovfcap_wmask.val();
            }
            self.ovfcap_nx.next = (self.c_ovfcap.q.val() & (!self.dec.arr_sel.val()))
                | (self.dec.arr_sel.val() & self.ovfcap_wv.val());
        }
        if self.rst.val() {
            self.ovfcap_nx.next = self.ovfcap_reset.val();
        }
        self.c_ovfcap.d.next = self.ovfcap_nx.val();
        self.cap.capr.next = self.wr_ok.val() & self.dec.capr.val() & self.wbits.val().get_bit(0);
        self.cap.capt_req.next = self.capt_req.val();
        for n in 0..self.s_lo.len() {
            self.s_lo[n].clock.next = self.clock.val();
            self.s_lo[n].d.next = self.s_lo[n].q.val();
            if self.svr_load.val() {
                self.s_lo[n].d.next = self.c_lo[n].q.val();
            }
            if self.rst.val() {
                self.s_lo[n].d.next = 0.into();
            }
        }
        if self.svr_load.val() {
            self.s_pend.d.next = self.pend_v.val();
            self.s_mpend.d.next = self.mpend_v.val();
        }
        if self.rst.val() {
            self.s_pend.d.next = 0.into();
            self.s_mpend.d.next = 0.into();
        }
        self.export_r.d.next = self.ovf_vec.val();
        // ---- The upper-word bank (64-bit counters): carries of this edge, the addressed
        // element (an EVCNTR or SVR address: the transfer's hold prefetches its rows), an
        // EVCNTR write's new upper word (hi + pend, or the written bytes over it, or a pair's
        // H + c), the capture.
        self.bank_wr_r.d.next =
            self.held_wr_last.val() & self.dec.evc_in.val() & (!self.blocked.val());
        self.bank_wr_val.next = self.cand0_r.q.val();
        if self.sel_pend.val() {
            self.bank_wr_val.next = self.cand1_r.q.val();
        }
        self.hb.clock.next = self.clock.val();
        self.hb.rst.next = self.rst.val();
        self.hb.paddr.next = self.paddr.val();
        // The addressed element: an EVCNTR or SVR transfer held or in its access cycle (from
        // registers; the decoder's select needs no gate, the bank takes the bit beside it):
        // one register.
        self.hb.tgt_sel.next = self.dec.evc_sel.val();
        self.hb.tgt_any.next = self.dec.ctr_xfer.val();
        // The write is performed in the cycle after its last held cycle, which `bank_wr_r`
        // registers: a register, not an AND with `req_wr`, in front of the bank's write logic
        // (the two differ only when PRESETn is low at that edge: then `rst` is high at the
        // next, and the bank resets every flag the write would have set).
        self.hb.wr.next = self.bank_wr_r.q.val();
        self.hb.svr_load.next = self.svr_load.val();
        // Row 0 (bits [31:L]): the low words' carries; row 1 (bits [63:32]): the carries out of
        // bit 31.
        self.hb.carry[0].next = self.mcarry_pack.word.val();
        self.hb.wr_val[0].next = self.mbank_wr_val.val();
        self.hb.wr_ones[0].next = self.mwr_ones.val();
        self.hb.wr_m1[0].next = self.mwr_m1.val();
        for r in 1..self.hb.carry.len() {
            self.hb.carry[r].next = self.carry_pack.word.val();
            self.hb.wr_val[r].next = self.bank_wr_val.val();
            self.hb.wr_ones[r].next = self.wr_ones.val();
            self.hb.wr_m1[r].next = self.wr_m1.val();
        }
        // ---- Control registers (writable bits and resets from the register map) ----------------
        // SCR is Secure-only (10.5.2.12).
        if self.wr_ok.val() & (!self.req_ns.val()) & self.at_scr.val() {
            self.scr.d.next = (self.scr.q.val() & (!(self.scr_wmask.val() & self.bmask.val())))
                | (self.wbits.val() & self.scr_wmask.val());
        }
        // ROOTCR: only a Root access writes it (10.5.2.18); RO for the others.
        if self.wr_ok.val() & self.req_root.val() & self.dec.rootcr.val() {
            self.rootcr.d.next = (self.rootcr.q.val()
                & (!(self.rootcr_wmask.val() & self.bmask.val())))
                | (self.wbits.val() & self.rootcr_wmask.val());
        }
        // IRQ_CTRL; the MSI master derives IRQ_CTRLACK from its value after this edge.
        self.ctrl_next.next = self.irq_ctrl.q.val();
        if self.wr_ok.val() & self.dec.irq_ctrl.val() {
            self.ctrl_next.next = (self.irq_ctrl.q.val()
                & (!(self.irq_ctrl_wmask.val() & self.bmask.val())))
                | (self.wbits.val() & self.irq_ctrl_wmask.val());
        }
        if self.rst.val() {
            self.ctrl_next.next = self.irq_ctrl_reset.val();
        }
        self.irq_ctrl.d.next = self.ctrl_next.val();
        self.irqen_next.next = (self.ctrl_next.val() & self.irqen_mask.val()).any();
        // IRQ_CFG0/1/2 are Guarded by IRQ_CTRL.IRQEN and IRQ_CTRLACK.IRQEN (10.5.2.21-23).
        self.irq_en.next = (self.irq_ctrl.q.val() & self.irqen_mask.val()).any();
        self.guarded.next = self.irq_en.val() | self.irq_ack.val();
        if self.wr_ok.val() & (!self.guarded.val()) {
            if self.dec.cfg0.val() {
                self.cfg0.d.next = (self.cfg0.q.val()
                    & (!(self.cfg0_wmask.val() & self.bmask.val())))
                    | (self.wbits.val() & self.cfg0_wmask.val());
            }
            if self.dec.cfg0_hi.val() {
                self.cfg0_hi.d.next = (self.cfg0_hi.q.val()
                    & (!(self.cfg0_hi_wmask.val() & self.bmask.val())))
                    | (self.wbits.val() & self.cfg0_hi_wmask.val());
            }
            if self.dec.cfg1.val() {
                self.cfg1.d.next = (self.cfg1.q.val()
                    & (!(self.cfg1_wmask.val() & self.bmask.val())))
                    | (self.wbits.val() & self.cfg1_wmask.val());
            }
            if self.dec.cfg2.val() {
                self.cfg2.d.next = (self.cfg2.q.val()
                    & (!(self.cfg2_wmask.val() & self.bmask.val())))
                    | (self.wbits.val() & self.cfg2_wmask.val());
            }
        }
        // ---- Bitmaps: one storage each, W1S/W1C views; an overflow beats a same-edge clear ----
        if self.wr_ok.val() & self.dec.intenset.val() {
            self.inten.d.next = self.inten.q.val() | self.w64_lo.val();
        }
        if self.wr_ok.val() & self.dec.intenset_hi.val() {
            self.inten.d.next = self.inten.q.val() | self.w64_hi.val();
        }
        if self.wr_ok.val() & self.dec.intenclr.val() {
            self.inten.d.next = self.inten.q.val() & (!self.w64_lo.val());
        }
        if self.wr_ok.val() & self.dec.intenclr_hi.val() {
            self.inten.d.next = self.inten.q.val() & (!self.w64_hi.val());
        }
        self.ovs_eff.next = self.ovs.q.val() | self.export_r.q.val();
        self.ovs.d.next = self.ovs_eff.val();
        if self.wr_ok.val() & self.dec.ovsset.val() {
            self.ovs.d.next = self.ovs_eff.val() | self.w64_lo.val();
        }
        if self.wr_ok.val() & self.dec.ovsset_hi.val() {
            self.ovs.d.next = self.ovs_eff.val() | self.w64_hi.val();
        }
        // (A clear at an overflow's edge leaves it set: it is in `export_r` after that edge.)
        if self.wr_ok.val() & self.dec.ovsclr.val() {
            self.ovs.d.next = self.ovs_eff.val() & (!self.w64_lo.val());
        }
        if self.wr_ok.val() & self.dec.ovsclr_hi.val() {
            self.ovs.d.next = self.ovs_eff.val() & (!self.w64_hi.val());
        }
        // Wired interrupt (irq_issue.rs): a pulse per edge at which an INTEN counter overflows
        // with IRQEN set (a qualifying overflow edge), two cycles later: the overflows are
        // registered per counter first, so no OR over the counters follows the count in one cycle.
        self.iss.clock.next = self.clock.val();
        self.iss.rst.next = self.rst.val();
        self.iss.ovf.next = self.ovf_vec.val();
        self.iss.inten.next = self.inten.q.val();
        self.iss.irqen.next = self.irq_en.val();
        // ---- MSI (docs/behaviour.md "MSI write master"): IRQ_CFG0.ADDR = 0 means no MSI. The
        // payload is latched by the master.
        self.iss.addr_nz.next = self.msi_addr_nz.q.val();
        self.iss.busy.next = self.msi_busy.val();
        self.msi_issue.next = self.iss.issue.val();
        self.msi_owed_next.next = self.iss.owed_next.val();
        self.msi_addr_lo.next = self.cfg0.q.val();
        self.msi_addr_hi.next = self.cfg0_hi.q.val();
        self.msi_data.next = self.cfg1.q.val();
        // AWPROT = {data, NS, privileged}; NS = SCR.NSMSI | SCR.NSRA with Secure state (10.6).
        self.msi_prot.next = 3u64.into();
        if self.secure_impl.val()
            & (!(self.scr.q.val() & (self.nsmsi_mask.val() | self.scr_nsra_mask.val())).any())
        {
            self.msi_prot.next = 1u64.into();
        }
        self.msi_attr.next = self.cfg2.q.val();
        // GMPAM (10.5.2.25): a write takes effect for the MSIs issued after its edge, and
        // Update reads 0 (docs/behaviour.md). The MSI's PARTID space is its target's.
        if self.wr_ok.val() & self.dec.gmpam.val() {
            self.gmpam.d.next = (self.gmpam.q.val()
                & (!(self.gmpam_wmask.val() & self.bmask.val())))
                | (self.wbits.val() & self.gmpam_wmask.val());
        }
        self.msi_mpam.next = self.gmpam.q.val();
        if self.msi_prot.val().get_bit(1) {
            self.msi_mpam.next = self.gmpam.q.val() | 0x0100_0000u64;
        }
        self.capt_ack.next = self.cap.capt_ack.val();
        self.ovf_export.next = self.export_r.q.val();
        // ---- 64-bit read snapshot: the low-word read of a wide counter latches its high word ----
        self.snap_hit.d.next =
            self.snap_valid.q.val() & (self.word_addr.val() == self.snap_addr.q.val());
        if self.req_rd.val() | self.req_wr.val() {
            self.snap_valid.d.next = false;
        }
        if self.req_rd.val()
            & (!self.blocked.val())
            & self.wide.val()
            & self.evc_in.val()
            & (!self.evc_hiword.val())
        {
            self.snap.d.next = self.pf_v.val();
            self.snap_add.d.next = self.sel_pend.val();
            self.snap_addr.d.next = self.word_addr.val() + 4;
            self.snap_valid.d.next = true;
        }
        if self.req_rd.val()
            & (!self.blocked.val())
            & self.wide.val()
            & self.svr_in.val()
            & (!self.evc_hiword.val())
        {
            self.snap.d.next = self.svr_hi_now.val();
            self.snap_add.d.next = self.svr_hi_add.val();
            self.snap_addr.d.next = self.word_addr.val() + 4;
            self.snap_valid.d.next = true;
        }
        // ---- Read mux, two stages (docs/behaviour.md "APB4 completer": one wait state) -------
        // Stage 1, in the read's first access cycle: the selected word of this cycle's state,
        // registered at its edge in two parts, the single registers (`rq_misc`) and the arrays
        // (`rq_word`, with a high part's pending carry still to add: `rq_add`); stage 2 joins
        // them. The selects are one-hot (decoded in the setup cycle): each mux is an OR of terms.
        self.rd_misc.next = self.dec.ro_val.val();
        if self.dec.cr.val() {
            self.rd_misc.next = self.rd_misc.val() | self.cr.q.val();
        }
        if (!self.req_ns.val()) & self.at_scr.val() {
            self.rd_misc.next = self.rd_misc.val() | self.scr.q.val();
        }
        if self.dec.rootcr.val() {
            self.rd_misc.next = self.rd_misc.val() | self.rootcr.q.val();
        }
        if (!self.req_ns.val()) & self.dec.s_mpamidr.val() {
            self.rd_misc.next = self.rd_misc.val() | self.s_mpamidr_val.val();
        }
        if self.dec.irq_ctrl.val() {
            self.rd_misc.next = self.rd_misc.val() | self.irq_ctrl.q.val();
        }
        if self.dec.gmpam.val() {
            self.rd_misc.next = self.rd_misc.val() | self.gmpam.q.val();
        }
        if self.irq_ack.val() & self.dec.irq_ack.val() {
            self.rd_misc.next = self.rd_misc.val() | self.irqen_mask.val();
        }
        if self.irq_abt.val() & self.dec.irq_status.val() {
            self.rd_misc.next = self.rd_misc.val() | self.abt_mask.val();
        }
        if self.dec.cfg0.val() {
            self.rd_misc.next = self.rd_misc.val() | self.cfg0.q.val();
        }
        if self.dec.cfg0_hi.val() {
            self.rd_misc.next = self.rd_misc.val() | self.cfg0_hi.q.val();
        }
        if self.dec.cfg1.val() {
            self.rd_misc.next = self.rd_misc.val() | self.cfg1.q.val();
        }
        if self.dec.cfg2.val() {
            self.rd_misc.next = self.rd_misc.val() | self.cfg2.q.val();
        }
        if self.dec.cntenset.val() | self.dec.cntenclr.val() {
            self.rd_misc.next = self.rd_misc.val() | self.cnten.q.val().get_bits::<32>(0);
        }
        if self.dec.cntenset_hi.val() | self.dec.cntenclr_hi.val() {
            self.rd_misc.next = self.rd_misc.val() | self.cnten.q.val().get_bits::<32>(32);
        }
        if self.dec.intenset.val() | self.dec.intenclr.val() {
            self.rd_misc.next = self.rd_misc.val() | self.inten.q.val().get_bits::<32>(0);
        }
        if self.dec.intenset_hi.val() | self.dec.intenclr_hi.val() {
            self.rd_misc.next = self.rd_misc.val() | self.inten.q.val().get_bits::<32>(32);
        }
        if self.dec.ovsset.val() | self.dec.ovsclr.val() {
            self.rd_misc.next = self.rd_misc.val() | self.ovs_eff.val().get_bits::<32>(0);
        }
        if self.dec.ovsset_hi.val() | self.dec.ovsclr_hi.val() {
            self.rd_misc.next = self.rd_misc.val() | self.ovs_eff.val().get_bits::<32>(32);
        }
        self.rd_word.next = 0.into();
        self.rq_lo1.d.next = false;
        self.rq_clo1.d.next = (self.pf_v.val() & 0xFFFFu64) == 0xFFFFu64;
        self.rq_add.d.next = false;
        self.rq_addm.d.next = false;
        self.rq_ctr.d.next = 0.into();
        self.rq_cadd.d.next = false;
        self.rq_caddm.d.next = false;
        self.rq_sl.d.next = false;
        if self.evc_in.val() {
            if self.evc_hiword.val() {
                if self.snap_hit.q.val() {
                    self.rd_word.next = self.rd_word.val() | self.snap.q.val();
                    self.rq_add.d.next = self.snap_add.q.val();
                    self.rq_lo1.d.next = (self.snap.q.val() & 0xFFFFu64) == 0xFFFFu64;
                } else {
                    self.rd_word.next = self.rd_word.val() | self.pf_v.val();
                    self.rq_add.d.next = self.sel_pend.val();
                    self.rq_lo1.d.next = (self.pf_v.val() & 0xFFFFu64) == 0xFFFFu64;
                }
            } else {
                // (Bits [L-1:0]: `rq_c*`; likewise for an SVR and the counter it sees.)
                self.rd_word.next = self.rd_word.val() | (self.mpf_v.val() << self.lo_shift.val());
                self.rq_addm.d.next = self.msel_pend.val();
            }
        }
        if self.svr_in.val() {
            if self.evc_hiword.val() {
                if self.snap_hit.q.val() {
                    self.rd_word.next = self.rd_word.val() | self.snap.q.val();
                    self.rq_add.d.next = self.snap_add.q.val();
                    self.rq_lo1.d.next = (self.snap.q.val() & 0xFFFFu64) == 0xFFFFu64;
                } else {
                    // The SVR, or the counter in the cycle after a capture (`rq_sl`).
                    self.rd_word.next = self.rd_word.val() | self.spf_v.val();
                    self.rq_add.d.next = self.sel_spend.val();
                    self.rq_lo1.d.next = (self.spf_v.val() & 0xFFFFu64) == 0xFFFFu64;
                    self.rq_ctr.d.next = self.pf_v.val();
                    self.rq_cadd.d.next = self.sel_pend.val();
                    self.rq_sl.d.next = self.svr_load.val();
                }
            } else {
                self.rd_word.next = self.rd_word.val() | (self.mspf_v.val() << self.lo_shift.val());
                self.rq_addm.d.next = self.sel_smpend.val();
                self.rq_ctr.d.next = self.mpf_v.val() << self.lo_shift.val();
                self.rq_caddm.d.next = self.msel_pend.val();
                self.rq_sl.d.next = self.svr_load.val();
            }
        }
        // The low words' bits [L-1:0], per group (their selects are gated by region already).
        self.rq_c0.d.next = self.gc0.val();
        self.rq_c1.d.next = self.gc1.val();
        self.rq_c2.d.next = self.gc2.val();
        self.rq_c3.d.next = self.gc3.val();
        self.rq_s0.d.next = self.gs0.val();
        self.rq_s1.d.next = self.gs1.val();
        self.rq_s2.d.next = self.gs2.val();
        self.rq_s3.d.next = self.gs3.val();
        self.rq_usec.d.next = self.clo_r.q.val();
        if self.evt_in.val() {
            self.rd_word.next = self.rd_word.val() | self.sel_evtyper.val();
        }
        if self.smr_in.val() {
            self.rd_word.next = self.rd_word.val() | self.sel_smr.val();
        }
        self.rq_word.d.next = self.rd_word.val();
        self.rq_misc.d.next = self.rd_misc.val();
        if self.blocked.val() | (!self.req_rd.val()) {
            self.rq_word.d.next = 0.into();
            self.rq_misc.d.next = 0.into();
            self.rq_c0.d.next = 0.into();
            self.rq_c1.d.next = 0.into();
            self.rq_c2.d.next = 0.into();
            self.rq_c3.d.next = 0.into();
            self.rq_s0.d.next = 0.into();
            self.rq_s1.d.next = 0.into();
            self.rq_s2.d.next = 0.into();
            self.rq_s3.d.next = 0.into();
            self.rq_usec.d.next = false;
            self.rq_add.d.next = false;
            self.rq_addm.d.next = false;
            self.rq_sl.d.next = false;
        }
        self.rq_done.d.next = self.req_rd.val();
        // Stage 2, in the read's second access cycle (PREADY = 1): add the pending carry of a
        // high part (high parts are K bits wide: wrap at hi_max).
        // (Each 32-bit increment as two 16-bit ones: the upper half takes +1 for 2^16, or for
        // 1 when the lower half is all ones, `rq_lo1`.)
        self.inc_lo.next = (self.rq_word.q.val() + 1u64) & 0xFFFFu64;
        self.inc_hi.next = ((self.rq_word.q.val() >> 16u64) + 1u64) << 16u64;
        self.inc_clo.next = (self.rq_ctr.q.val() + 1u64) & 0xFFFFu64;
        self.inc_chi.next = ((self.rq_ctr.q.val() >> 16u64) + 1u64) << 16u64;
        self.inc_m.next =
            ((self.rq_word.q.val() >> self.lo_shift.val()) + 1u64) << self.lo_shift.val();
        self.inc_cm.next =
            ((self.rq_ctr.q.val() >> self.lo_shift.val()) + 1u64) << self.lo_shift.val();
        self.rd_data.next = self.rq_word.q.val() | self.rq_misc.q.val();
        if self.rq_add.q.val() {
            self.rd_data.next =
                ((self.rq_word.q.val() & 0xFFFF_0000u64) | self.inc_lo.val()) & self.hi_max.val();
            if self.rq_lo1.q.val() {
                self.rd_data.next = (self.inc_hi.val() | self.inc_lo.val()) & self.hi_max.val();
            }
        }
        if self.rq_addm.q.val() {
            self.rd_data.next = self.inc_m.val() | (self.rq_word.q.val() & self.lo_mask32.val());
        }
        if self.rq_sl.q.val() {
            self.rd_data.next = self.rq_ctr.q.val();
            if self.rq_cadd.q.val() {
                self.rd_data.next = ((self.rq_ctr.q.val() & 0xFFFF_0000u64) | self.inc_clo.val())
                    & self.hi_max.val();
                if self.rq_clo1.q.val() {
                    self.rd_data.next =
                        (self.inc_chi.val() | self.inc_clo.val()) & self.hi_max.val();
                }
            }
            if self.rq_caddm.q.val() {
                self.rd_data.next =
                    self.inc_cm.val() | (self.rq_ctr.q.val() & self.lo_mask32.val());
            }
        }
        // Bits [L-1:0] of a low word (the groups are 0 for a high word).
        self.rd_lo_c.next =
            self.rq_c0.q.val() | self.rq_c1.q.val() | self.rq_c2.q.val() | self.rq_c3.q.val();
        self.rd_lo_s.next =
            self.rq_s0.q.val() | self.rq_s1.q.val() | self.rq_s2.q.val() | self.rq_s3.q.val();
        if self.rq_usec.q.val() | self.rq_sl.q.val() {
            self.rd_data.next = self.rd_data.val() | bit_cast::<32, 16>(self.rd_lo_c.val());
        }
        if !self.rq_sl.q.val() {
            self.rd_data.next = self.rd_data.val() | bit_cast::<32, 16>(self.rd_lo_s.val());
        }
        if !self.rq_done.q.val() {
            self.rd_data.next = 0.into();
        }
        self.irq.next = self.iss.irq.val();
        // ---- Synchronous reset: every register to its register-map reset value -----------------
        if self.rst.val() {
            self.scr.d.next = self.scr_reset.val();
            self.rootcr.d.next = self.rootcr_reset.val();
            self.export_r.d.next = 0.into();
            self.gmpam.d.next = 0.into();
            self.cfg0.d.next = self.cfg0_reset.val();
            self.cfg0_hi.d.next = self.cfg0_hi_reset.val();
            self.cfg1.d.next = self.cfg1_reset.val();
            self.cfg2.d.next = self.cfg2_reset.val();
            self.inten.d.next = self.inten_reset.val();
            self.ovs.d.next = self.ovs_reset.val();
            self.snap.d.next = 0.into();
            self.snap_add.d.next = false;
            self.snap_addr.d.next = 0.into();
            self.snap_valid.d.next = false;
        }
        // IRQ_CFG0 is nonzero (one edge behind the register: see the field).
        self.msi_addr_nz.d.next = (self.cfg0.q.val() | self.cfg0_hi.q.val()).any();
        // The match block's accepted sets take SCR and ROOTCR after this edge (the reset above
        // included).
        self.fmatch.scr_nx.next = self.scr.d.val();
        self.fmatch.rootcr_nx.next = self.rootcr.d.val();
        // 10.6: Non-secure writes are allowed after this edge, for the completer's `req_wr_ok`
        // at a setup edge. SCR after the setup edge (its reset included: the register file's
        // reset is PRESETn a cycle late, and a transfer may set up in that cycle) is SCR in the
        // access cycle, as no other transfer completes between them.
        self.nsra_open.next =
            (!self.secure_impl.val()) | (self.scr.d.val() & self.scr_nsra_mask.val()).any();
    }
}
