//! `ApbCompleter`: AMBA APB4 completer → generic register request. The register file never
//! sees APB; swapping the bus touches only this file.
//!
//! ```text
//!   PSEL PENABLE PWRITE PADDR PWDATA PSTRB PPROT
//!     │
//!     ├─ setup  (PSEL & !PENABLE & !PWRITE) ──► req_rd ──► RegFile read mux ──► rd_data
//!     │                                                               │
//!     │         PRDATA register ◄── sampled at the setup edge ◄────────┘
//!     └─ access (PSEL & PENABLE & PWRITE)   ──► req_wr (+ addr, wdata, strb, ns)
//!   PREADY = 1 (no wait states), PSLVERR = 0 (every location is RAZ/WI, RO or RW)
//! ```
//! Reads are performed in the setup cycle (the address is stable then), so PRDATA is a register
//! and reads need no wait state either.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct ApbCompleter {
    pub clock: Signal<In, Clock>,
    /// Synchronous reset (active high).
    pub rst: Signal<In, Bit>,
    pub psel: Signal<In, Bit>,
    pub penable: Signal<In, Bit>,
    pub pwrite: Signal<In, Bit>,
    pub paddr: Signal<In, Bits<32>>,
    pub pwdata: Signal<In, Bits<32>>,
    pub pstrb: Signal<In, Bits<4>>,
    pub pprot: Signal<In, Bits<3>>,
    pub prdata: Signal<Out, Bits<32>>,
    pub pready: Signal<Out, Bit>,
    pub pslverr: Signal<Out, Bit>,
    /// Read request: sample `rd_data` for `req_addr` at this edge.
    pub req_rd: Signal<Out, Bit>,
    /// Write request: perform the write at this edge.
    pub req_wr: Signal<Out, Bit>,
    pub req_addr: Signal<Out, Bits<32>>,
    pub req_wdata: Signal<Out, Bits<32>>,
    pub req_strb: Signal<Out, Bits<4>>,
    /// The access is Non-secure (PPROT[1]).
    pub req_ns: Signal<Out, Bit>,
    /// Read data of `req_addr` from the register file.
    pub rd_data: Signal<In, Bits<32>>,
    prdata_r: DFF<Bits<32>>,
}

impl Logic for ApbCompleter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, prdata_r);
        self.req_rd.next =
            self.psel.val() & (!self.penable.val()) & (!self.pwrite.val()) & (!self.rst.val());
        self.req_wr.next =
            self.psel.val() & self.penable.val() & self.pwrite.val() & (!self.rst.val());
        self.req_addr.next = self.paddr.val();
        self.req_wdata.next = self.pwdata.val();
        self.req_strb.next = self.pstrb.val();
        self.req_ns.next = self.pprot.val().get_bit(1);
        if self.psel.val() & (!self.penable.val()) & (!self.pwrite.val()) {
            self.prdata_r.d.next = self.rd_data.val();
        }
        if self.rst.val() {
            self.prdata_r.d.next = 0.into();
        }
        self.prdata.next = self.prdata_r.q.val();
        self.pready.next = true;
        self.pslverr.next = false;
    }
}
