//! `ApbCompleter`: AMBA APB4 completer → generic register request. The register file never
//! sees APB; swapping the bus touches only this file.
//!
//! ```text
//!   PSEL PENABLE PWRITE PADDR PWDATA PSTRB PPROT        (live inputs)
//!     │
//!     ├─ setup (PSEL & !PENABLE), not to EVCNTR/SVR ──► setup registers: rd / wr, addr, ...
//!     ├─ setup to the EVCNTR or SVR region ──► hold (COUNTER_HOLD_CYCLES wait states) ─┐
//!     │     its last cycle presents it to the setup registers (the bus is stable) ◄──────┘
//!     ├─ held_wr_last (a register: the last held cycle of a write) ──► register file's
//!     │  match-register clear of a counter about to be written (with the registered decode)
//!     └─ xfer_nx (the next cycle is held or an access cycle; from the live PSEL, PENABLE and
//!        PRESETn and `hold`) ──► the address decoder's `ctr_xfer` register
//!                                        │
//!              access cycle (the next) ◄─┘ req_rd / req_wr + request   (registers only)
//!   nsra_open (SCR.NSRA after this edge) ──► req_wr_ok: req_wr of an allowed write (a register)
//!   (PRDATA is the register file's read data, wired by the top block)
//!   PREADY = 0 while held and in a read's first access cycle (one wait state: the register
//!   file's read mux is two stages), and with filter tables in an EVTYPER/SMR write's access
//!   cycle and after it while the register file's `filt_busy` (its rebuild) lasts, else 1;
//!   PSLVERR = 0 (every location is RAZ/WI, RO or RW)
//! ```
//! The request is registered at the setup edge, so nothing downstream of this block depends on a
//! live bus input other than the address decoder (which also registers `xfer_nx`) and the
//! block-RAM read addresses: APB4
//! keeps PADDR, PWRITE, PWDATA, PSTRB and PPROT stable from setup to access, and an access cycle
//! always follows a setup cycle. A write takes effect at the edge that ends its
//! access cycle (no wait state). A read is performed in its first access cycle (the register file
//! registers its first read-mux stage at that edge) and completes in the second, with PREADY = 1
//! and PRDATA valid (docs/behaviour.md "APB4 completer").
//! An access to the EVCNTR or SVR region is held for [`COUNTER_HOLD_CYCLES`] wait states first
//! and then presented as if set up in the last of them (docs/behaviour.md "Counter and shadow
//! accesses"): a counter bank with its upper bits in block RAM prepares the counter in that time
//! (issue 11). A cycle with PRESETn low ends a hold without presenting it.
//! Keeping live inputs out of the register file also keeps the Verilator model's input-evaluation
//! pass small (README, design notes).
//!
//! Block-level tests: tests/apb_completer.rs, on this block natively and on its Verilog
//! (`pmcg_synth::apb`) under Verilator.

use crate::regmap::{RegId, RegisterMap, COUNTER_HOLD_CYCLES};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ApbCompleter {
    pub clock: Signal<In, Clock>,
    /// PRESETn is low in this cycle (live, active high): no setup is registered.
    pub rst: Signal<In, Bit>,
    pub psel: Signal<In, Bit>,
    pub penable: Signal<In, Bit>,
    pub pwrite: Signal<In, Bit>,
    pub paddr: Signal<In, Bits<32>>,
    pub pwdata: Signal<In, Bits<32>>,
    pub pstrb: Signal<In, Bits<4>>,
    pub pprot: Signal<In, Bits<3>>,
    /// APB5 PNSE (Realm configurations): with PPROT[1], 10 is Root and 11 Realm.
    pub pnse: Signal<In, Bit>,
    pub pready: Signal<Out, Bit>,
    pub pslverr: Signal<Out, Bit>,
    /// This is the access cycle of a read: `rd_data` is returned, read side effects at this edge.
    pub req_rd: Signal<Out, Bit>,
    /// This is the access cycle of a write: perform it at this edge.
    pub req_wr: Signal<Out, Bit>,
    /// `req_wr`, and the write is allowed (10.6, SCR.NSRA: not a Non-secure access while
    /// `nsra_open` is 0): a register, so a write enable is one LUT from flip-flops.
    pub req_wr_ok: Signal<Out, Bit>,
    /// Non-secure accesses may write after this edge (no Secure state, or SCR.NSRA = 1, as SCR
    /// will be after it): at a setup edge, SCR as the access cycle will see it.
    pub nsra_open: Signal<In, Bit>,
    pub req_addr: Signal<Out, Bits<32>>,
    pub req_wdata: Signal<Out, Bits<32>>,
    pub req_strb: Signal<Out, Bits<4>>,
    /// The access is Non-secure (PPROT[1]).
    pub req_ns: Signal<Out, Bit>,
    /// The access is Root ({PNSE, PPROT[1]} = 10).
    pub req_root: Signal<Out, Bit>,
    /// The last held cycle of a write (a register): a counter write skips the events of its
    /// access edge, so its match register is cleared at the edge ending this cycle
    /// (match_regs.rs).
    pub held_wr_last: Signal<Out, Bit>,
    /// A counter or shadow transfer is held in this cycle (a register): the register file's
    /// upper-word bank prefetches the addressed counter meanwhile.
    pub held: Signal<Out, Bit>,
    /// The next cycle is held or an access cycle (`held | req_rd | req_wr` after this edge; from
    /// the live PSEL, PENABLE and PRESETn): the address decoder registers it ANDed with its
    /// EVCNTR/SVR region flag, so the upper-word banks' `tgt_any` is one flip-flop (16x64 seed 1
    /// of the sweep at 103eedd reached the banks' scan enable through the AND of two registers,
    /// and at e0c383e through the OR of three).
    pub xfer_nx: Signal<Out, Bit>,
    /// With filter tables: the register file's filter rebuild is pending or under way (its
    /// registers): a performed EVTYPER or SMR write completes only once it has swapped in.
    pub filt_busy: Signal<In, Bit>,
    setup_rd: DFF<Bit>,
    setup_wr: DFF<Bit>,
    wr_ok_r: DFF<Bit>,
    addr_r: DFF<Bits<32>>,
    wdata_r: DFF<Bits<32>>,
    strb_r: DFF<Bits<4>>,
    ns_r: DFF<Bit>,
    root_r: DFF<Bit>,
    /// A transfer to the EVCNTR or SVR region is held; its wait states left (1: the last); it
    /// is a write.
    hold: DFF<Bit>,
    hold_left: DFF<Bits<4>>,
    hold_wr: DFF<Bit>,
    /// With filter tables: the next cycle is the access cycle of an EVTYPER or SMR write
    /// (`fw_acc`), and a filter write is waiting for its rebuild (`fw_wait`).
    fw_acc: DFF<Bit>,
    fw_wait: DFF<Bit>,
    filter_tables: Constant<Bit>,
    evt_base: Constant<Bits<32>>,
    smr_base: Constant<Bits<32>>,
    evt_region_mask: Constant<Bits<32>>,
    smr_region_mask: Constant<Bits<32>>,
    /// The EVCNTR and SVR regions: base addresses and the address bits that name the region.
    evc_base: Constant<Bits<32>>,
    svr_base: Constant<Bits<32>>,
    evc_region_mask: Constant<Bits<32>>,
    svr_region_mask: Constant<Bits<32>>,
    hold_cycles: Constant<Bits<4>>,
    /// The PADDR bits the block decodes (`RegisterMap::addr_mask`); the others are ignored.
    addr_mask: Constant<Bits<32>>,
    setup_now: Signal<Local, Bit>,
    held_now: Signal<Local, Bit>,
    present: Signal<Local, Bit>,
    /// `setup_wr` after this edge.
    setup_wr_nx: Signal<Local, Bit>,
}

impl ApbCompleter {
    /// The completer of a register map (its EVCNTR and SVR regions are held), with or without
    /// filter tables (`PmcgConfig::filter_tables`: EVTYPER and SMR writes wait for the rebuild).
    pub fn new(map: &RegisterMap, filter_tables: bool) -> Self {
        // (Only the decoded window's bits: docs/behaviour.md "Addresses".)
        let region = |id: RegId| {
            (
                Constant::new((map.array_base(id) as u64).into()),
                Constant::new((!(map.array_extent(id) as u64 - 1) & map.addr_mask() as u64).into()),
            )
        };
        let (evc_base, evc_region_mask) = region(RegId::Evcntr(0));
        let (svr_base, svr_region_mask) = region(RegId::Svr(0));
        let (evt_base, evt_region_mask) = region(RegId::Evtyper(0));
        let (smr_base, smr_region_mask) = region(RegId::Smr(0));
        assert!((1..16).contains(&COUNTER_HOLD_CYCLES));
        ApbCompleter {
            clock: Default::default(),
            rst: Default::default(),
            psel: Default::default(),
            penable: Default::default(),
            pwrite: Default::default(),
            paddr: Default::default(),
            pwdata: Default::default(),
            pstrb: Default::default(),
            pprot: Default::default(),
            pnse: Default::default(),
            pready: Default::default(),
            pslverr: Default::default(),
            req_rd: Default::default(),
            req_wr: Default::default(),
            req_wr_ok: Default::default(),
            nsra_open: Default::default(),
            req_addr: Default::default(),
            req_wdata: Default::default(),
            req_strb: Default::default(),
            req_ns: Default::default(),
            req_root: Default::default(),
            held_wr_last: Default::default(),
            held: Default::default(),
            xfer_nx: Default::default(),
            filt_busy: Default::default(),
            fw_acc: Default::default(),
            fw_wait: Default::default(),
            filter_tables: Constant::new(filter_tables),
            evt_base,
            smr_base,
            evt_region_mask,
            smr_region_mask,
            setup_rd: Default::default(),
            setup_wr: Default::default(),
            wr_ok_r: Default::default(),
            addr_r: Default::default(),
            wdata_r: Default::default(),
            strb_r: Default::default(),
            ns_r: Default::default(),
            root_r: Default::default(),
            hold: Default::default(),
            hold_left: Default::default(),
            hold_wr: Default::default(),
            evc_base,
            svr_base,
            evc_region_mask,
            svr_region_mask,
            hold_cycles: Constant::new((COUNTER_HOLD_CYCLES as u64).into()),
            addr_mask: Constant::new((map.addr_mask() as u64).into()),
            setup_now: Default::default(),
            held_now: Default::default(),
            present: Default::default(),
            setup_wr_nx: Default::default(),
        }
    }
}

impl Logic for ApbCompleter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, setup_rd, setup_wr, wr_ok_r, addr_r, wdata_r, strb_r, ns_r, root_r, hold,
            hold_left, hold_wr, fw_acc, fw_wait
        );
        // The setup cycle registers the transfer; the access cycle performs it. A transfer to
        // the EVCNTR or SVR region is held first, and presented in the last held cycle.
        self.setup_now.next = self.psel.val() & (!self.penable.val()) & (!self.rst.val());
        self.held_now.next = ((self.paddr.val() & self.evc_region_mask.val())
            == self.evc_base.val())
            | ((self.paddr.val() & self.svr_region_mask.val()) == self.svr_base.val());
        self.present.next =
            self.hold.q.val() & (self.hold_left.q.val() == 1u64) & (!self.rst.val());
        self.hold.d.next = self.hold.q.val() & (self.hold_left.q.val() != 1u64);
        self.hold_left.d.next = self.hold_left.q.val() - 1;
        self.hold_wr.d.next = self.hold_wr.q.val();
        if self.rst.val() {
            self.hold.d.next = false;
        }
        if self.setup_now.val() & self.held_now.val() {
            self.hold.d.next = true;
            self.hold_left.d.next = self.hold_cycles.val();
            self.hold_wr.d.next = self.pwrite.val();
        }
        self.setup_rd.d.next =
            (self.setup_now.val() & (!self.held_now.val()) & (!self.pwrite.val()))
                | (self.present.val() & (!self.hold_wr.q.val()));
        self.setup_wr_nx.next = (self.setup_now.val() & (!self.held_now.val()) & self.pwrite.val())
            | (self.present.val() & self.hold_wr.q.val());
        self.setup_wr.d.next = self.setup_wr_nx.val();
        self.wr_ok_r.d.next =
            self.setup_wr_nx.val() & ((!self.pprot.val().get_bit(1)) | self.nsra_open.val());
        self.held_wr_last.next =
            self.hold.q.val() & (self.hold_left.q.val() == 1u64) & self.hold_wr.q.val();
        self.addr_r.d.next = self.paddr.val() & self.addr_mask.val();
        self.wdata_r.d.next = self.pwdata.val();
        self.strb_r.d.next = self.pstrb.val();
        self.ns_r.d.next = self.pprot.val().get_bit(1);
        self.root_r.d.next = self.pnse.val() & (!self.pprot.val().get_bit(1));
        self.held.next = self.hold.q.val();
        // The next cycle is held (hold's D) or an access cycle (setup_rd's or setup_wr's D):
        // a hold that goes on, or is presented, unless reset; or a setup (`setup_now` is 0 in
        // a reset cycle).
        self.xfer_nx.next = (self.hold.q.val() & (!self.rst.val())) | self.setup_now.val();
        self.req_rd.next = self.setup_rd.q.val();
        self.req_wr.next = self.setup_wr.q.val();
        self.req_wr_ok.next = self.wr_ok_r.q.val();
        self.req_addr.next = self.addr_r.q.val();
        self.req_wdata.next = self.wdata_r.q.val();
        self.req_strb.next = self.strb_r.q.val();
        self.req_ns.next = self.ns_r.q.val();
        self.req_root.next = self.root_r.q.val();
        // With filter tables, an EVTYPER or SMR write (docs/behaviour.md "Filter tables"): PREADY
        // is low in its access cycle, and after it while the rebuild it started is pending or
        // under way (a write the register file ignored starts none: one wait state).
        self.fw_acc.d.next = self.filter_tables.val()
            & self.setup_now.val()
            & (!self.held_now.val())
            & self.pwrite.val()
            & (((self.paddr.val() & self.evt_region_mask.val()) == self.evt_base.val())
                | ((self.paddr.val() & self.smr_region_mask.val()) == self.smr_base.val()));
        self.fw_wait.d.next = self.fw_acc.q.val() | (self.fw_wait.q.val() & self.filt_busy.val());
        if self.rst.val() {
            self.fw_acc.d.next = false;
            self.fw_wait.d.next = false;
        }
        // One wait state for reads: PREADY is low in the access cycle that performs a read;
        // and in every held cycle.
        self.pready.next = !(self.setup_rd.q.val()
            | self.hold.q.val()
            | self.fw_acc.q.val()
            | (self.fw_wait.q.val() & self.filt_busy.val()));
        self.pslverr.next = false;
    }
}
