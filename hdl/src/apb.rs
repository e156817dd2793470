//! `ApbCompleter`: AMBA APB4 completer → generic register request. The register file never
//! sees APB; swapping the bus touches only this file.
//!
//! ```text
//!   PSEL PENABLE PWRITE PADDR PWDATA PSTRB PPROT        (live inputs)
//!     │
//!     ├─ setup (PSEL & !PENABLE) ──► setup registers: rd / wr, addr, wdata, strb, ns
//!     └─ setup_wr_now, setup_ns_now (live: the setup registers' D) ──► register file's
//!        match-register clear of a counter about to be written (with the live PADDR decode)
//!                                        │
//!              access cycle (the next) ◄─┘ req_rd / req_wr + request   (registers only)
//!   (PRDATA is the register file's read data, wired by the top block)
//!   PREADY = 0 in a read's first access cycle (one wait state: the register file's read mux
//!   is two stages), else 1; PSLVERR = 0 (every location is RAZ/WI, RO or RW)
//! ```
//! The request is registered at the setup edge, so nothing downstream of this block depends on a
//! live bus input other than the address decoder and the counters' match-register clear: APB4
//! keeps PADDR, PWRITE, PWDATA, PSTRB and PPROT stable from setup to access, and an access cycle
//! always follows a setup cycle. A write takes effect at the edge that ends its
//! access cycle (no wait state). A read is performed in its first access cycle (the register file
//! registers its first read-mux stage at that edge) and completes in the second, with PREADY = 1
//! and PRDATA valid (docs/behaviour.md "APB4 completer").
//! Keeping live inputs out of the register file also keeps the Verilator model's input-evaluation
//! pass small (README, design notes).

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
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
    pub req_addr: Signal<Out, Bits<32>>,
    pub req_wdata: Signal<Out, Bits<32>>,
    pub req_strb: Signal<Out, Bits<4>>,
    /// The access is Non-secure (PPROT[1]).
    pub req_ns: Signal<Out, Bit>,
    /// The access is Root ({PNSE, PPROT[1]} = 10).
    pub req_root: Signal<Out, Bit>,
    /// The setup cycle's write and its PPROT[1], live (the D inputs of the setup registers): a
    /// counter write skips the events of its access edge, so its match register is cleared at
    /// the setup edge (regfile.rs).
    pub setup_wr_now: Signal<Out, Bit>,
    pub setup_ns_now: Signal<Out, Bit>,
    setup_rd: DFF<Bit>,
    setup_wr: DFF<Bit>,
    addr_r: DFF<Bits<32>>,
    wdata_r: DFF<Bits<32>>,
    strb_r: DFF<Bits<4>>,
    ns_r: DFF<Bit>,
    root_r: DFF<Bit>,
}

impl Logic for ApbCompleter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, setup_rd, setup_wr, addr_r, wdata_r, strb_r, ns_r, root_r);
        // The setup cycle registers the transfer; the access cycle performs it.
        self.setup_rd.d.next =
            self.psel.val() & (!self.penable.val()) & (!self.pwrite.val()) & (!self.rst.val());
        self.setup_wr.d.next =
            self.psel.val() & (!self.penable.val()) & self.pwrite.val() & (!self.rst.val());
        self.setup_wr_now.next = self.setup_wr.d.val();
        self.setup_ns_now.next = self.pprot.val().get_bit(1);
        self.addr_r.d.next = self.paddr.val();
        self.wdata_r.d.next = self.pwdata.val();
        self.strb_r.d.next = self.pstrb.val();
        self.ns_r.d.next = self.pprot.val().get_bit(1);
        self.root_r.d.next = self.pnse.val() & (!self.pprot.val().get_bit(1));
        self.req_rd.next = self.setup_rd.q.val();
        self.req_wr.next = self.setup_wr.q.val();
        self.req_addr.next = self.addr_r.q.val();
        self.req_wdata.next = self.wdata_r.q.val();
        self.req_strb.next = self.strb_r.q.val();
        self.req_ns.next = self.ns_r.q.val();
        self.req_root.next = self.root_r.q.val();
        // One wait state for reads: PREADY is low in the access cycle that performs a read.
        self.pready.next = !self.setup_rd.q.val();
        self.pslverr.next = false;
    }
}
