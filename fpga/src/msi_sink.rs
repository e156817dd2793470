//! `MsiSink`: an AXI4-Lite write completer for the PMCG's MSI master, with programmable
//! AWREADY/WREADY/BVALID delays and response, recording every completed write in a FIFO the
//! host reads over the bridge.
//!
//! ```text
//!   AWVALID high AW_DELAY cycles ─► AWREADY (0: already high) ─► address, AWPROT latched
//!   WVALID  high W_DELAY cycles  ─► WREADY                     ─► data latched
//!   both accepted, B_DELAY cycles ─► BVALID, BRESP = RESP ─► BREADY ─► push {addr lo, addr hi|prot, data}
//!   FIFO (16 entries, block RAM): head words readable, `pop` drops the head; full ─► overflow (sticky)
//! ```
//! For 100 MHz: each "waited DELAY cycles" is a flip-flop (`aw_eq`, `w_eq`, `b_eq`: the wait
//! counter equals the delay) set an edge ahead, so a changed delay takes effect an edge later; a
//! completed write (`completed`, an edge after the handshake) is what enters the FIFO and counts,
//! a pop is done an edge after `pop`, and the head words are registered behind the block RAM.
//! The host sees none of these edges.

use crate::fifo::BoardFifo;
use rust_hdl::prelude::*;

/// One word of the write FIFO: 16 entries.
pub type MsiWordFifo = BoardFifo<32, 4, 5>;

/// Bits of the FIFO's second word holding AWPROT (the address's bits 55:32 are below them).
pub const PROT_LSB: u32 = 28;

#[derive(LogicBlock, Default)]
pub struct MsiSink {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub awvalid: Signal<In, Bit>,
    pub awaddr_lo: Signal<In, Bits<32>>,
    pub awaddr_hi: Signal<In, Bits<32>>,
    pub awprot: Signal<In, Bits<3>>,
    pub wvalid: Signal<In, Bit>,
    pub wdata: Signal<In, Bits<32>>,
    pub bready: Signal<In, Bit>,
    pub awready: Signal<Out, Bit>,
    pub wready: Signal<Out, Bit>,
    pub bvalid: Signal<Out, Bit>,
    pub bresp: Signal<Out, Bits<2>>,
    /// Settings.
    pub aw_delay: Signal<In, Bits<16>>,
    pub w_delay: Signal<In, Bits<16>>,
    pub b_delay: Signal<In, Bits<16>>,
    pub resp: Signal<In, Bits<2>>,
    /// FIFO read side.
    pub pop: Signal<In, Bit>,
    pub head_addr_lo: Signal<Out, Bits<32>>,
    pub head_addr_hi_prot: Signal<Out, Bits<32>>,
    pub head_data: Signal<Out, Bits<32>>,
    pub level: Signal<Out, Bits<8>>,
    pub overflow: Signal<Out, Bit>,
    /// Completed writes (pulse) and their running count.
    pub completed: Signal<Out, Bit>,
    pub count: Signal<Out, Bits<32>>,
    aw_wait: DFF<Bits<16>>,
    w_wait: DFF<Bits<16>>,
    b_wait: DFF<Bits<16>>,
    aw_done: DFF<Bit>,
    w_done: DFF<Bit>,
    addr_lo: DFF<Bits<32>>,
    addr_hi_prot: DFF<Bits<32>>,
    data: DFF<Bits<32>>,
    /// The wait counters equal their delays (of the cycle before).
    aw_eq: DFF<Bit>,
    w_eq: DFF<Bit>,
    b_eq: DFF<Bit>,
    /// The delays minus one (of the cycle before): a counter that steps reaches its delay
    /// when it equals these before the step.
    aw_dm1: DFF<Bits<16>>,
    w_dm1: DFF<Bits<16>>,
    b_dm1: DFF<Bits<16>>,
    /// A pop of an entry the FIFO shows, done an edge after `pop`.
    pop_q: DFF<Bit>,
    level_r: DFF<Bits<8>>,
    /// level_r == 16.
    full_r: DFF<Bit>,
    overflow_r: DFF<Bit>,
    count_r: DFF<Bits<32>>,
    completed_q: DFF<Bit>,
    head_addr_lo_r: DFF<Bits<32>>,
    head_addr_hi_r: DFF<Bits<32>>,
    head_data_r: DFF<Bits<32>>,
    fifo_addr_lo: MsiWordFifo,
    fifo_addr_hi: MsiWordFifo,
    fifo_data: MsiWordFifo,
    awready_l: Signal<Local, Bit>,
    wready_l: Signal<Local, Bit>,
    bvalid_l: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    /// A completed write enters the FIFO.
    enq: Signal<Local, Bit>,
}

impl Logic for MsiSink {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            aw_wait,
            w_wait,
            b_wait,
            aw_done,
            w_done,
            addr_lo,
            addr_hi_prot,
            data,
            aw_eq,
            w_eq,
            b_eq,
            aw_dm1,
            w_dm1,
            b_dm1,
            pop_q,
            level_r,
            full_r,
            overflow_r,
            count_r,
            completed_q,
            head_addr_lo_r,
            head_addr_hi_r,
            head_data_r
        );
        clock!(self, clock, fifo_addr_lo, fifo_addr_hi, fifo_data);
        self.awready_l.next = (!self.aw_done.q.val()) & self.aw_eq.q.val();
        self.wready_l.next = (!self.w_done.q.val()) & self.w_eq.q.val();
        self.bvalid_l.next = self.aw_done.q.val() & self.w_done.q.val() & self.b_eq.q.val();
        self.aw_dm1.d.next = self.aw_delay.val() - 1;
        self.w_dm1.d.next = self.w_delay.val() - 1;
        self.b_dm1.d.next = self.b_delay.val() - 1;
        // Each `_eq` follows its counter's next value against the delay: held, stepped
        // (against the delay - 1 registered a cycle before) or cleared.
        self.aw_eq.d.next = self.aw_wait.q.val() == self.aw_delay.val();
        self.w_eq.d.next = self.w_wait.q.val() == self.w_delay.val();
        self.b_eq.d.next = self.b_wait.q.val() == self.b_delay.val();
        if self.awvalid.val() & (!self.aw_done.q.val()) & (!self.awready_l.val()) {
            self.aw_wait.d.next = self.aw_wait.q.val() + 1;
            self.aw_eq.d.next = self.aw_wait.q.val() == self.aw_dm1.q.val();
        }
        if self.wvalid.val() & (!self.w_done.q.val()) & (!self.wready_l.val()) {
            self.w_wait.d.next = self.w_wait.q.val() + 1;
            self.w_eq.d.next = self.w_wait.q.val() == self.w_dm1.q.val();
        }
        if self.awvalid.val() & self.awready_l.val() {
            self.aw_done.d.next = true;
            self.addr_lo.d.next = self.awaddr_lo.val();
            self.addr_hi_prot.d.next =
                (self.awaddr_hi.val() & 0x00FF_FFFF) | (bit_cast::<32, 3>(self.awprot.val()) << 28);
        }
        if self.wvalid.val() & self.wready_l.val() {
            self.w_done.d.next = true;
            self.data.d.next = self.wdata.val();
        }
        if self.aw_done.q.val() & self.w_done.q.val() & (!self.bvalid_l.val()) {
            self.b_wait.d.next = self.b_wait.q.val() + 1;
            self.b_eq.d.next = self.b_wait.q.val() == self.b_dm1.q.val();
        }
        self.push.next = self.bvalid_l.val() & self.bready.val();
        self.completed_q.d.next = self.push.val();
        if self.push.val() | self.rst.val() {
            self.aw_done.d.next = false;
            self.w_done.d.next = false;
            self.aw_wait.d.next = 0.into();
            self.w_wait.d.next = 0.into();
            self.b_wait.d.next = 0.into();
            self.aw_eq.d.next = self.aw_delay.val() == 0;
            self.w_eq.d.next = self.w_delay.val() == 0;
            self.b_eq.d.next = self.b_delay.val() == 0;
        }
        // The FIFO takes a completed write an edge after its handshake (`completed_q`): the
        // address and data registers still hold it then (a new AW or W handshake can land at
        // that edge at the earliest).
        if self.completed_q.q.val() {
            self.count_r.d.next = self.count_r.q.val() + 1;
        }
        self.enq.next = self.completed_q.q.val() & (!self.full_r.q.val());
        if self.completed_q.q.val() & self.full_r.q.val() {
            self.overflow_r.d.next = true;
        }
        // A pop needs an entry the FIFO shows (one edge after it entered; the level counts it
        // from that edge), so level and FIFO never disagree; it is done an edge later.
        self.pop_q.d.next = self.pop.val() & (!self.fifo_addr_lo.empty.val());
        self.fifo_addr_lo.data_in.next = self.addr_lo.q.val();
        self.fifo_addr_hi.data_in.next = self.addr_hi_prot.q.val();
        self.fifo_data.data_in.next = self.data.q.val();
        self.fifo_addr_lo.write.next = self.enq.val();
        self.fifo_addr_hi.write.next = self.enq.val();
        self.fifo_data.write.next = self.enq.val();
        self.fifo_addr_lo.read.next = self.pop_q.q.val();
        self.fifo_addr_hi.read.next = self.pop_q.q.val();
        self.fifo_data.read.next = self.pop_q.q.val();
        if self.enq.val() & (!self.pop_q.q.val()) {
            self.level_r.d.next = self.level_r.q.val() + 1;
            if self.level_r.q.val() == 15 {
                self.full_r.d.next = true;
            }
        }
        if self.pop_q.q.val() & (!self.enq.val()) {
            self.level_r.d.next = self.level_r.q.val() - 1;
            self.full_r.d.next = false;
        }
        self.head_addr_lo_r.d.next = self.fifo_addr_lo.data_out.val();
        self.head_addr_hi_r.d.next = self.fifo_addr_hi.data_out.val();
        self.head_data_r.d.next = self.fifo_data.data_out.val();
        self.awready.next = self.awready_l.val();
        self.wready.next = self.wready_l.val();
        self.bvalid.next = self.bvalid_l.val();
        self.bresp.next = 0.into();
        if self.bvalid_l.val() {
            self.bresp.next = self.resp.val();
        }
        self.head_addr_lo.next = self.head_addr_lo_r.q.val();
        self.head_addr_hi_prot.next = self.head_addr_hi_r.q.val();
        self.head_data.next = self.head_data_r.q.val();
        self.level.next = self.level_r.q.val();
        self.overflow.next = self.overflow_r.q.val();
        self.completed.next = self.completed_q.q.val();
        self.count.next = self.count_r.q.val();
    }
}
