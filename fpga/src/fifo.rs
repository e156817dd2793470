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

use pmcg_hdl::bram::Bram;
use rust_hdl::prelude::*;

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    fn settle<B: Block>(uut: &mut B) {
        for _ in 0..100 {
            uut.update_all();
            if !uut.has_changed() {
                return;
            }
        }
        panic!("did not settle");
    }

    /// One cycle: inputs applied, outputs (empty, full, data_out) sampled, then the edge.
    fn cycle(uut: &mut BoardFifo<8, 3, 4>, write: Option<u8>, read: bool) -> (bool, bool, u8) {
        uut.clock.next = Clock::from(false);
        uut.write.next = write.is_some();
        uut.data_in.next = (write.unwrap_or(0) as u64).into();
        uut.read.next = read;
        settle(uut);
        let out = (
            uut.empty.val(),
            uut.full.val(),
            uut.data_out.val().index() as u8,
        );
        uut.clock.next = Clock::from(true);
        settle(uut);
        out
    }

    /// Against a queue model over random traffic: the head whenever not empty, a write
    /// readable one edge after its own, full at 8, writes while full and reads while empty
    /// ignored.
    #[test]
    fn the_fifo_is_a_queue_with_a_one_edge_write_latency() {
        let mut uut = BoardFifo::<8, 3, 4>::default();
        uut.connect_all();
        let mut q: VecDeque<u8> = VecDeque::new();
        let mut pending: Option<u8> = None; // written at the last edge, not yet readable
        let mut x: u32 = 12345;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let (mut fulls, mut reads) = (0, 0);
        for i in 0..20_000 {
            let r = rnd();
            // Phases of mostly writes and mostly reads, so that it fills and drains.
            let bias = (i / 200) % 2 == 0;
            let w = if (r & 3 != 0) == bias {
                Some((r >> 8) as u8)
            } else {
                None
            };
            let rd = (r >> 4) & 3 != 0 && !bias || (r >> 4) & 7 == 0;
            let (empty, full, head) = cycle(&mut uut, w, rd);
            let total = q.len() + pending.is_some() as usize;
            assert_eq!(empty, q.is_empty(), "cycle {i}: empty");
            assert_eq!(full, total == 8, "cycle {i}: full");
            if !empty {
                assert_eq!(head, q[0], "cycle {i}: head");
            }
            if let Some(p) = pending.take() {
                q.push_back(p);
            }
            if rd && !empty {
                q.pop_front();
                reads += 1;
            }
            if let Some(v) = w {
                if !full {
                    pending = Some(v);
                } else {
                    fulls += 1;
                }
            }
        }
        assert!(fulls > 100 && reads > 3000, "{fulls} {reads}");
    }
}
