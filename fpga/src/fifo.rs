//! `BoardRam` and `BoardFifo`: the board's block RAM without Yosys's read-first emulation, and a
//! first-word-fall-through FIFO on it whose flags are flip-flops, so nothing in front of or
//! behind the block RAM is deeper than a LUT or two (100 MHz on the iCE40; docs/board.md).
//!
//! ```text
//!   BoardRam<W, A>: read_address ──► (edge) read_data := mem[read_address]
//!                   (at a write to that row: the inverted old row in simulation, undefined on the FPGA)
//!   BoardFifo<D, N, NP1>: write & !full ──► mem[wr] := data_in              (full: a flip-flop)
//!                         read & !empty ──► head := mem[rd + 1]             (empty: a flip-flop)
//!                         an entry is readable (empty falls) one edge after the edge that wrote it
//! ```
//! rust-hdl's `RAM` reads the old row at a same-edge write, which the iCE40 block RAM does not
//! promise, so Yosys emulates it with registers in front of the block RAM and a mux behind it
//! (hdl/src/bram.rs says the same for the PMCG). The FIFO never uses a read that collides with a
//! write: a row written at an edge is read again at the next edge before it is counted readable.
//! tests/board_fifo.rs runs the FIFO on the native simulation and on its Verilog
//! ([`board_fifo_verilog`]) under Verilator against a plain-Rust queue.

use pmcg_hdl::bram::Bram;
use rust_hdl::prelude::*;

/// The FIFO's Verilog module name when emitted alone.
pub const BOARD_FIFO_TOP: &str = "board_fifo";

/// The Verilog of a `BoardFifo<W, N, NP1>` emitted on its own, top module `top`, for its
/// block-level tests (tests/board_fifo.rs: the same seeded traffic on the native block and on
/// this Verilog under Verilator, against a plain-Rust queue), as pmcg-synth emits the PMCG's
/// blocks ([`pmcg_synth::block_verilog`]).
pub fn board_fifo_verilog<const W: usize, const N: usize, const NP1: usize>(
    top: &str,
) -> Result<String, String> {
    pmcg_synth::block_verilog(
        &mut BoardFifo::<W, N, NP1>::default(),
        top,
        "board FIFO (BoardFifo)",
        &format!("W = {W}, N = {N}"),
    )
}

/// The board's block RAM: the PMCG's `Bram` (hdl/src/bram.rs: no read-first emulation, a read
/// colliding with a write poisoned in simulation) with 2^A rows.
pub type BoardRam<const W: usize, const A: usize> = Bram<W, A>;

/// A FIFO of 2^N words of W bits (NP1 = N + 1) on a [`BoardRam`], first word fall through:
/// `data_out` is the head whenever `empty` is 0; `read` drops it. A write while `full` is
/// ignored, a read while `empty` too. `empty` and `full` are flip-flops. No reset (like
/// rust-hdl's `SynchronousFIFO`, which it replaces on the board).
#[derive(LogicBlock)]
pub struct BoardFifo<const W: usize, const N: usize, const NP1: usize> {
    pub clock: Signal<In, Clock>,
    pub write: Signal<In, Bit>,
    pub data_in: Signal<In, Bits<W>>,
    pub full: Signal<Out, Bit>,
    pub read: Signal<In, Bit>,
    pub data_out: Signal<Out, Bits<W>>,
    pub empty: Signal<Out, Bit>,
    ram: BoardRam<W, N>,
    /// 2^N - 1: the count at which a write without a read fills the FIFO.
    size_m1: Constant<Bits<NP1>>,
    wr_ptr: DFF<Bits<N>>,
    rd_ptr: DFF<Bits<N>>,
    /// Entries written (for `full`) and entries readable (written before the last edge).
    count: DFF<Bits<NP1>>,
    avail: DFF<Bits<NP1>>,
    wrote: DFF<Bit>,
    has_data: DFF<Bit>,
    full_r: DFF<Bit>,
    do_write: Signal<Local, Bit>,
    do_read: Signal<Local, Bit>,
    /// rd_ptr + 1 (N bits: it wraps).
    rd_p1: Signal<Local, Bits<N>>,
}

impl<const W: usize, const N: usize, const NP1: usize> Default for BoardFifo<W, N, NP1> {
    fn default() -> Self {
        assert_eq!(NP1, N + 1, "BoardFifo: NP1 = N + 1");
        BoardFifo {
            clock: Default::default(),
            write: Default::default(),
            data_in: Default::default(),
            full: Default::default(),
            read: Default::default(),
            data_out: Default::default(),
            empty: Default::default(),
            ram: Default::default(),
            size_m1: Constant::new(((1u64 << N) - 1).into()),
            wr_ptr: Default::default(),
            rd_ptr: Default::default(),
            count: Default::default(),
            avail: Default::default(),
            wrote: Default::default(),
            has_data: Default::default(),
            full_r: Default::default(),
            do_write: Default::default(),
            do_read: Default::default(),
            rd_p1: Default::default(),
        }
    }
}

impl<const W: usize, const N: usize, const NP1: usize> Logic for BoardFifo<W, N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_ptr, rd_ptr, count, avail, wrote, has_data, full_r);
        self.ram.clock.next = self.clock.val();
        // `has_data` is "not empty", so that the flip-flop's power-up 0 is an empty FIFO.
        self.do_write.next = self.write.val() & (!self.full_r.q.val());
        self.do_read.next = self.read.val() & self.has_data.q.val();
        self.ram.write_address.next = self.wr_ptr.q.val();
        self.ram.write_data.next = self.data_in.val();
        self.ram.write_enable.next = self.do_write.val();
        self.ram.read_address.next = self.rd_ptr.q.val();
        if self.do_write.val() {
            self.wr_ptr.d.next = self.wr_ptr.q.val() + 1;
        }
        self.rd_p1.next = self.rd_ptr.q.val() + 1;
        if self.do_read.val() {
            self.ram.read_address.next = self.rd_p1.val();
            self.rd_ptr.d.next = self.rd_p1.val();
        }
        self.wrote.d.next = self.do_write.val();
        // Entries written: +1 on a write, -1 on a read; `full` from the count before the edge.
        if self.do_write.val() & (!self.do_read.val()) {
            self.count.d.next = self.count.q.val() + 1;
            if self.count.q.val() == self.size_m1.val() {
                self.full_r.d.next = true;
            }
        }
        if self.do_read.val() & (!self.do_write.val()) {
            self.count.d.next = self.count.q.val() - 1;
            self.full_r.d.next = false;
        }
        // Entries readable: +1 an edge after a write, -1 on a read.
        if self.wrote.q.val() & (!self.do_read.val()) {
            self.avail.d.next = self.avail.q.val() + 1;
            self.has_data.d.next = true;
        }
        if self.do_read.val() & (!self.wrote.q.val()) {
            self.avail.d.next = self.avail.q.val() - 1;
            if self.avail.q.val() == 1 {
                self.has_data.d.next = false;
            }
        }
        self.data_out.next = self.ram.read_data.val();
        self.empty.next = !self.has_data.q.val();
        self.full.next = self.full_r.q.val();
    }
}
