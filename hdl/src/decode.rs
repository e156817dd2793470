//! `AddrDecode`: the APB address decoded in the setup cycle and registered, so that the access
//! cycle's write strobes and read mux start from flip-flops (one-hot selects) instead of address
//! compares (issue 11: the address compares were the critical path into the counter writes and
//! PRDATA). Like the APB setup registers it reads the live PADDR; nothing else does.
//!
//! ```text
//!   PADDR (live) ──► single-register compares ──► hit_* (registered)
//!                ├─► read-only constant table ──► ro_val (registered: the word, 0 if none)
//!                ├─► array regions (masked compare + element limit) ──► evc_in svr_in evt_in
//!                │                                                      smr_in hiword
//!                │        (evc | svr) & xfer_nx (the completer's) ──► ctr_xfer
//!                └─► 1 << element index ──► evc_sel[63:0], arr_sel[63:0] (one-hot)
//! ```
//! Every output is a register loaded at every edge from the PADDR of that cycle (`ctr_xfer` also
//! from the completer's `xfer_nx`, so that it is "an EVCNTR/SVR transfer is held or in its access
//! cycle" as one flip-flop for the upper-word banks): in a transfer's
//! access cycle it is the decode of the address its setup cycle presented (APB4 keeps PADDR
//! stable from setup to access). `evc_sel` selects element n of EVCNTR and SVR (they share strides
//! and offsets, 10.5.1), `arr_sel` element n of EVTYPER and SMR (likewise, checked here); both are
//! element selects only, to be combined with a region bit. Addresses, strides and constants come
//! from the register map (regs/src/regmap.rs).
//!
//! Block-level tests: tests/addr_decode.rs, on this block natively and on its Verilog
//! (`pmcg_synth::decode`) under Verilator.

use crate::bitpack::BitPack;
use crate::c32;
use crate::config::PmcgConfig;
use crate::regmap::{RegId, RegisterMap};
use rust_hdl::prelude::*;

/// Address constant of an absent register: never equal to a word address.
const ABSENT: u64 = 0xFFFF_FFFF;

/// The single registers decoded, in the order of the `hit_r` bits (the outputs of the same names;
/// `true` = the high word of a 64-bit register).
pub const SINGLE_REGS: [(RegId, bool); 25] = [
    (RegId::Cr, false),
    (RegId::Scr, false),
    (RegId::ScrAlias, false),
    (RegId::Rootcr, false),
    (RegId::SMpamidr, false),
    (RegId::IrqCtrl, false),
    (RegId::Gmpam, false),
    (RegId::IrqCtrlAck, false),
    (RegId::IrqStatus, false),
    (RegId::IrqCfg0, false),
    (RegId::IrqCfg0, true),
    (RegId::IrqCfg1, false),
    (RegId::IrqCfg2, false),
    (RegId::CntenSet0, false),
    (RegId::CntenSet0, true),
    (RegId::CntenClr0, false),
    (RegId::CntenClr0, true),
    (RegId::IntenSet0, false),
    (RegId::IntenSet0, true),
    (RegId::IntenClr0, false),
    (RegId::IntenClr0, true),
    (RegId::OvsSet0, false),
    (RegId::OvsSet0, true),
    (RegId::OvsClr0, false),
    (RegId::OvsClr0, true),
];

#[derive(LogicBlock)]
pub struct AddrDecode {
    pub clock: Signal<In, Clock>,
    /// The live APB address.
    pub paddr: Signal<In, Bits<32>>,
    /// The completer's `xfer_nx`: the next cycle is held or an access cycle.
    pub xfer_nx: Signal<In, Bit>,
    /// Hits of the single registers (`SINGLE_REGS`; `scr` is SCR or its alias) and CAPR.
    pub cr: Signal<Out, Bit>,
    pub scr: Signal<Out, Bit>,
    pub rootcr: Signal<Out, Bit>,
    pub s_mpamidr: Signal<Out, Bit>,
    pub irq_ctrl: Signal<Out, Bit>,
    pub gmpam: Signal<Out, Bit>,
    pub irq_ack: Signal<Out, Bit>,
    pub irq_status: Signal<Out, Bit>,
    pub cfg0: Signal<Out, Bit>,
    pub cfg0_hi: Signal<Out, Bit>,
    pub cfg1: Signal<Out, Bit>,
    pub cfg2: Signal<Out, Bit>,
    pub cntenset: Signal<Out, Bit>,
    pub cntenset_hi: Signal<Out, Bit>,
    pub cntenclr: Signal<Out, Bit>,
    pub cntenclr_hi: Signal<Out, Bit>,
    pub intenset: Signal<Out, Bit>,
    pub intenset_hi: Signal<Out, Bit>,
    pub intenclr: Signal<Out, Bit>,
    pub intenclr_hi: Signal<Out, Bit>,
    pub ovsset: Signal<Out, Bit>,
    pub ovsset_hi: Signal<Out, Bit>,
    pub ovsclr: Signal<Out, Bit>,
    pub ovsclr_hi: Signal<Out, Bit>,
    pub capr: Signal<Out, Bit>,
    /// The value of a read-only constant word at this address (0 when there is none).
    pub ro_val: Signal<Out, Bits<32>>,
    /// Array regions, within the implemented elements; `hiword`: the high word of a 64-bit
    /// EVCNTR or SVR element (address bit 2 with counters wider than 32 bits).
    pub evc_in: Signal<Out, Bit>,
    pub svr_in: Signal<Out, Bit>,
    /// The upper-word banks' `tgt_any`: an EVCNTR or SVR transfer is held or in its access
    /// cycle, as one register (`evc_in | svr_in` AND the completer's `xfer_nx` of the cycle
    /// before: no gate in front of the banks' choice of row).
    pub ctr_xfer: Signal<Out, Bit>,
    pub evt_in: Signal<Out, Bit>,
    pub smr_in: Signal<Out, Bit>,
    pub hiword: Signal<Out, Bit>,
    /// Element selects: bit n = the address is element n of EVCNTR/SVR, of EVTYPER/SMR.
    pub evc_sel: Signal<Out, Bits<64>>,
    pub arr_sel: Signal<Out, Bits<64>>,
    hit_r: DFF<Bits<32>>,
    hit_capr_r: DFF<Bit>,
    ro_r: DFF<Bits<32>>,
    evc_in_r: DFF<Bit>,
    svr_in_r: DFF<Bit>,
    ctr_xfer_r: DFF<Bit>,
    evt_in_r: DFF<Bit>,
    smr_in_r: DFF<Bit>,
    hiword_r: DFF<Bit>,
    evc_sel_r: DFF<Bits<64>>,
    arr_sel_r: DFF<Bits<64>>,
    hit_pack: BitPack,
    word: Signal<Local, Bits<32>>,
    evc_rel: Signal<Local, Bits<32>>,
    arr_rel: Signal<Local, Bits<32>>,
    /// The address is in the EVCNTR region, in the SVR region (within the implemented elements).
    evc_now: Signal<Local, Bit>,
    svr_now: Signal<Local, Bit>,
    ro_now: Signal<Local, Bits<32>>,
    hit_addr: Vec<Constant<Bits<32>>>,
    capr_addr: Constant<Bits<32>>,
    ro_addr: Vec<Constant<Bits<32>>>,
    ro_const: Vec<Constant<Bits<32>>>,
    wide: Constant<Bit>,
    word_mask: Constant<Bits<32>>,
    capture_impl: Constant<Bit>,
    evc_base: Constant<Bits<32>>,
    evc_region: Constant<Bits<32>>,
    svr_base: Constant<Bits<32>>,
    evc_rel_mask: Constant<Bits<32>>,
    evc_lim: Constant<Bits<32>>,
    evt_base: Constant<Bits<32>>,
    evt_region: Constant<Bits<32>>,
    smr_base: Constant<Bits<32>>,
    arr_rel_mask: Constant<Bits<32>>,
    evt_lim: Constant<Bits<32>>,
    smr_lim: Constant<Bits<32>>,
    /// log2 of the EVCNTR/SVR and EVTYPER/SMR strides (the element index is the offset shifted
    /// right by it), a 64-bit 1, and the implemented elements' mask.
    evc_sh: Constant<Bits<32>>,
    arr_sh: Constant<Bits<32>>,
    one: Constant<Bits<64>>,
    all: Constant<Bits<64>>,
}

/// Registers whose value is a configuration constant (read-only words).
pub fn constant_words(map: &RegisterMap) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for r in &map.regs {
        let constant = matches!(
            r.id,
            RegId::Cfgr
                | RegId::Iidr
                | RegId::Ceid0
                | RegId::Ceid1
                | RegId::Aidr
                | RegId::Mpamidr
                | RegId::PmDevArch
                | RegId::PmDevType
                | RegId::Pidr(_)
                | RegId::Cidr(_)
        );
        if constant {
            v.push((r.addr, (r.reset() & 0xFFFF_FFFF) as u32));
            if r.bits == 64 {
                v.push((r.addr + 4, (r.reset() >> 32) as u32));
            }
        }
    }
    v
}

impl AddrDecode {
    /// The decoder of a validated configuration's register map.
    pub fn new(cfg: &PmcgConfig) -> Self {
        let map = RegisterMap::new(cfg);
        let n = cfg.counters as usize;
        let addr_of = |id: RegId, hi: bool| {
            map.get(id)
                .map(|r| r.addr as u64 + if hi { 4 } else { 0 })
                .unwrap_or(ABSENT)
        };
        let evc_stride: u64 = if cfg.wide_counters() { 8 } else { 4 };
        let smr_count = map
            .regs
            .iter()
            .filter(|r| matches!(r.id, RegId::Smr(_)))
            .count() as u64;
        // EVCNTR/SVR and EVTYPER/SMR each share one element select: same extents, same strides.
        // (The register file's filter decode also reads the SMR selected by an EVTYPER address
        // and the EVTYPER selected by an SMR address.)
        assert_eq!(
            map.array_extent(RegId::Evcntr(0)),
            map.array_extent(RegId::Svr(0))
        );
        assert_eq!(
            map.array_extent(RegId::Evtyper(0)),
            map.array_extent(RegId::Smr(0))
        );
        let index_of = |addr: u32, id: RegId| (addr & (map.array_extent(id) - 1)) >> 2;
        for i in 0..smr_count as u32 {
            let (evt, smr) = (map.reg(RegId::Evtyper(i)).addr, map.reg(RegId::Smr(i)).addr);
            assert_eq!(index_of(evt, RegId::Smr(0)), i, "EVTYPER{i} selects SMR{i}");
            assert_eq!(
                index_of(smr, RegId::Evtyper(0)),
                i,
                "SMR{i} selects EVTYPER{i}"
            );
        }
        let ext = |id| map.array_extent(id) as u64;
        let region = |id| c32(!(ext(id) - 1) & 0xFFFF_FFFF);
        let (ro_addr, ro_const): (Vec<_>, Vec<_>) = constant_words(&map)
            .into_iter()
            .map(|(a, v)| (c32(a as u64), c32(v as u64)))
            .unzip();
        AddrDecode {
            clock: Default::default(),
            paddr: Default::default(),
            xfer_nx: Default::default(),
            cr: Default::default(),
            scr: Default::default(),
            rootcr: Default::default(),
            s_mpamidr: Default::default(),
            irq_ctrl: Default::default(),
            gmpam: Default::default(),
            irq_ack: Default::default(),
            irq_status: Default::default(),
            cfg0: Default::default(),
            cfg0_hi: Default::default(),
            cfg1: Default::default(),
            cfg2: Default::default(),
            cntenset: Default::default(),
            cntenset_hi: Default::default(),
            cntenclr: Default::default(),
            cntenclr_hi: Default::default(),
            intenset: Default::default(),
            intenset_hi: Default::default(),
            intenclr: Default::default(),
            intenclr_hi: Default::default(),
            ovsset: Default::default(),
            ovsset_hi: Default::default(),
            ovsclr: Default::default(),
            ovsclr_hi: Default::default(),
            capr: Default::default(),
            ro_val: Default::default(),
            evc_in: Default::default(),
            svr_in: Default::default(),
            ctr_xfer: Default::default(),
            evt_in: Default::default(),
            smr_in: Default::default(),
            hiword: Default::default(),
            evc_sel: Default::default(),
            arr_sel: Default::default(),
            hit_r: Default::default(),
            hit_capr_r: Default::default(),
            ro_r: Default::default(),
            evc_in_r: Default::default(),
            svr_in_r: Default::default(),
            ctr_xfer_r: Default::default(),
            evt_in_r: Default::default(),
            smr_in_r: Default::default(),
            hiword_r: Default::default(),
            evc_sel_r: Default::default(),
            arr_sel_r: Default::default(),
            hit_pack: BitPack::new(SINGLE_REGS.len()),
            word: Default::default(),
            evc_rel: Default::default(),
            arr_rel: Default::default(),
            evc_now: Default::default(),
            svr_now: Default::default(),
            ro_now: Default::default(),
            hit_addr: SINGLE_REGS
                .iter()
                .map(|&(id, hi)| c32(addr_of(id, hi)))
                .collect(),
            capr_addr: c32(addr_of(RegId::Capr, false)),
            ro_addr,
            ro_const,
            wide: Constant::new(cfg.wide_counters()),
            word_mask: c32((map.addr_mask() & !3) as u64),
            capture_impl: Constant::new(cfg.capture),
            evc_base: c32(map.array_base(RegId::Evcntr(0)) as u64),
            evc_region: region(RegId::Evcntr(0)),
            svr_base: c32(map.array_base(RegId::Svr(0)) as u64),
            evc_rel_mask: c32((ext(RegId::Evcntr(0)) - 1) & !(evc_stride - 1)),
            evc_lim: c32(cfg.counters as u64 * evc_stride),
            evt_base: c32(map.array_base(RegId::Evtyper(0)) as u64),
            evt_region: region(RegId::Evtyper(0)),
            smr_base: c32(map.array_base(RegId::Smr(0)) as u64),
            arr_rel_mask: c32(ext(RegId::Evtyper(0)) - 4),
            evt_lim: c32(cfg.counters as u64 * 4),
            smr_lim: c32(smr_count * 4),
            evc_sh: c32(evc_stride.trailing_zeros() as u64),
            arr_sh: c32(2),
            one: Constant::new(1u64.into()),
            all: Constant::new((u64::MAX >> (64 - n)).into()),
        }
    }
}

impl Logic for AddrDecode {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, hit_r, hit_capr_r, ro_r, evc_in_r, svr_in_r, ctr_xfer_r, evt_in_r,
            smr_in_r, hiword_r, evc_sel_r, arr_sel_r
        );
        // The low two bits of PADDR are ignored, and so are the bits above the decoded window
        // (docs/behaviour.md "Addresses").
        self.word.next = self.paddr.val() & self.word_mask.val();
        for k in 0..self.hit_addr.len() {
            self.hit_pack.bits[k].next = self.word.val() == self.hit_addr[k].val();
        }
        self.hit_r.d.next = bit_cast::<32, 64>(self.hit_pack.word.val());
        self.hit_capr_r.d.next = self.word.val() == self.capr_addr.val();
        self.ro_now.next = 0.into();
        for i in 0..self.ro_addr.len() {
            if self.word.val() == self.ro_addr[i].val() {
                self.ro_now.next = self.ro_const[i].val();
            }
        }
        self.ro_r.d.next = self.ro_now.val();
        // Array regions: each base is aligned to its extent, so the element offset is address
        // bits and the region test a masked compare.
        self.evc_rel.next = self.word.val() & self.evc_rel_mask.val();
        self.arr_rel.next = self.word.val() & self.arr_rel_mask.val();
        // Each of the two regions is one compare of the masked word and the element limit;
        // `ctr_xfer` is their OR, ANDed with the completer's "a transfer next cycle", registered
        // beside them.
        self.evc_now.next = ((self.word.val() & self.evc_region.val()) == self.evc_base.val())
            & (self.evc_rel.val() < self.evc_lim.val());
        self.svr_now.next = self.capture_impl.val()
            & ((self.word.val() & self.evc_region.val()) == self.svr_base.val())
            & (self.evc_rel.val() < self.evc_lim.val());
        self.evc_in_r.d.next = self.evc_now.val();
        self.svr_in_r.d.next = self.svr_now.val();
        self.ctr_xfer_r.d.next = (self.evc_now.val() | self.svr_now.val()) & self.xfer_nx.val();
        self.evt_in_r.d.next = ((self.word.val() & self.evt_region.val()) == self.evt_base.val())
            & (self.arr_rel.val() < self.evt_lim.val());
        self.smr_in_r.d.next = ((self.word.val() & self.evt_region.val()) == self.smr_base.val())
            & (self.arr_rel.val() < self.smr_lim.val());
        self.hiword_r.d.next = self.wide.val() & self.word.val().get_bit(2);
        // The element selects as a shift, not one compare per element: the same decoder after
        // synthesis, one operation in a simulator. A Verilog shift by 64 or more gives 0, as does
        // rust-hdl's (an offset beyond 64 elements selects none); `all` drops the elements
        // beyond the implemented counters.
        self.evc_sel_r.d.next =
            (self.one.val() << (self.evc_rel.val() >> self.evc_sh.val())) & self.all.val();
        self.arr_sel_r.d.next =
            (self.one.val() << (self.arr_rel.val() >> self.arr_sh.val())) & self.all.val();
        self.cr.next = self.hit_r.q.val().get_bit(0);
        self.rootcr.next = self.hit_r.q.val().get_bit(3);
        self.s_mpamidr.next = self.hit_r.q.val().get_bit(4);
        self.irq_ctrl.next = self.hit_r.q.val().get_bit(5);
        self.gmpam.next = self.hit_r.q.val().get_bit(6);
        self.irq_ack.next = self.hit_r.q.val().get_bit(7);
        self.irq_status.next = self.hit_r.q.val().get_bit(8);
        self.cfg0.next = self.hit_r.q.val().get_bit(9);
        self.cfg0_hi.next = self.hit_r.q.val().get_bit(10);
        self.cfg1.next = self.hit_r.q.val().get_bit(11);
        self.cfg2.next = self.hit_r.q.val().get_bit(12);
        self.cntenset.next = self.hit_r.q.val().get_bit(13);
        self.cntenset_hi.next = self.hit_r.q.val().get_bit(14);
        self.cntenclr.next = self.hit_r.q.val().get_bit(15);
        self.cntenclr_hi.next = self.hit_r.q.val().get_bit(16);
        self.intenset.next = self.hit_r.q.val().get_bit(17);
        self.intenset_hi.next = self.hit_r.q.val().get_bit(18);
        self.intenclr.next = self.hit_r.q.val().get_bit(19);
        self.intenclr_hi.next = self.hit_r.q.val().get_bit(20);
        self.ovsset.next = self.hit_r.q.val().get_bit(21);
        self.ovsset_hi.next = self.hit_r.q.val().get_bit(22);
        self.ovsclr.next = self.hit_r.q.val().get_bit(23);
        self.ovsclr_hi.next = self.hit_r.q.val().get_bit(24);
        self.scr.next = self.hit_r.q.val().get_bit(1) | self.hit_r.q.val().get_bit(2);
        self.capr.next = self.hit_capr_r.q.val();
        self.ro_val.next = self.ro_r.q.val();
        self.evc_in.next = self.evc_in_r.q.val();
        self.svr_in.next = self.svr_in_r.q.val();
        self.ctr_xfer.next = self.ctr_xfer_r.q.val();
        self.evt_in.next = self.evt_in_r.q.val();
        self.smr_in.next = self.smr_in_r.q.val();
        self.hiword.next = self.hiword_r.q.val();
        self.evc_sel.next = self.evc_sel_r.q.val();
        self.arr_sel.next = self.arr_sel_r.q.val();
    }
}
