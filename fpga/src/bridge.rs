//! `UartBridge`: the LiteX UART bridge wire protocol ("UARTBone", `litex/tools/remote/comm_uart.py`)
//! as a bus master, so that `litex_server --uart` / `litex_cli` and `wishbone-tool` talk to the
//! board unchanged.
//!
//! ```text
//!   host ─► CMD (0x01 write incr, 0x02 read incr, 0x03 write fixed, 0x04 read fixed; else ignored)
//!        ─► LEN (words, 0 = none) ─► ADDR (4 bytes, big-endian WORD address = byte address / 4)
//!   write: ─► LEN × DATA (4 bytes, big-endian) ── each word ─► bus write at ADDR*4 (ADDR += 1 if incr)
//!   read:  ── each word: bus read at ADDR*4 ─► 4 bytes big-endian to the host (ADDR += 1 if incr)
//!
//!   bus: PRE × 2 (address held, the decoder registers it in two steps) ─► SETUP (sel) ─► ACCESS (sel, enable)
//!        until ready ─► CAPTURE (read) / DONE (write): an APB-shaped transfer, one at a time.
//!        `bus_ready` only ends ACCESS; the next word, address and state follow a cycle later
//!        (DONE, or RNEXT after a read word's fourth byte),
//!        and a read's data is registered at the ready edge (`rdata_q`) and loaded in CAPTURE,
//!        so neither the PMCG's PREADY nor the bus's read mux reaches the bridge's registers
//!   timeout: waiting for a host byte mid-command longer than `timeout` clocks ─► back to CMD
//!            (`to_hit` set an edge ahead from a compare with timeout - 1)
//! ```
//! A byte that is not a command while idle is dropped, so garbage between commands is harmless;
//! a command cut short is abandoned by the timeout (a host that resends after the timeout is
//! understood again).

use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum BridgeState {
    Cmd,
    Len,
    Addr,
    WData,
    WBus,
    RBus,
    RSend,
    /// After a read word's last byte: the next word or the end of the command.
    RNext,
}

#[derive(LogicBlock)]
pub struct UartBridge {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// Received bytes: the head of the receive FIFO (`rx_valid`: not empty); `rx_take` pops it.
    pub rx_valid: Signal<In, Bit>,
    pub rx_data: Signal<In, Bits<8>>,
    pub rx_take: Signal<Out, Bit>,
    /// Transmitter handshake.
    pub tx_ready: Signal<In, Bit>,
    pub tx_start: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<8>>,
    /// Bus: `sel` for a transfer, `enable` in its access cycles, which end when `ready` is 1.
    pub bus_sel: Signal<Out, Bit>,
    pub bus_enable: Signal<Out, Bit>,
    pub bus_write: Signal<Out, Bit>,
    /// Byte address (the protocol's word address times 4).
    pub bus_addr: Signal<Out, Bits<32>>,
    pub bus_wdata: Signal<Out, Bits<32>>,
    pub bus_rdata: Signal<In, Bits<32>>,
    pub bus_ready: Signal<In, Bit>,
    /// Not waiting for a command (for an LED).
    pub active: Signal<Out, Bit>,
    /// A command was abandoned by the timeout (one-cycle pulse).
    pub timed_out: Signal<Out, Bit>,
    /// The timeout in clocks, minus one.
    timeout_m1: Constant<Bits<24>>,
    state: DFF<BridgeState>,
    /// The command's low 3 bits: 1 write incr, 2 read incr, 3 write fixed, 4 read fixed.
    cmd: DFF<Bits<3>>,
    words_left: DFF<Bits<8>>,
    word_addr: DFF<Bits<32>>,
    data: DFF<Bits<32>>,
    byte_index: DFF<Bits<2>>,
    /// A bus transfer's cycle: 0 and 1 PRE, 2 SETUP, 3 ACCESS, 4 after the ready edge (a read's
    /// CAPTURE, a write's DONE); 0 outside one.
    phase: DFF<Bits<3>>,
    phase_step: Signal<Local, Bits<3>>,
    /// `bus_rdata` at the last edge.
    rdata_q: DFF<Bits<32>>,
    /// `tx_ready` at the last edge, and a byte started at the last edge: `tx_ready` falls at
    /// the edge that takes a byte, so its registered copy is stale for one cycle after a start.
    tx_ready_q: DFF<Bit>,
    tx_sent: DFF<Bit>,
    idle_timer: DFF<Bits<24>>,
    /// `idle_timer` equals the timeout (set from `idle_timer == timeout - 1` an edge ahead).
    to_hit: DFF<Bit>,
    timed_out_q: DFF<Bit>,
    is_write: Signal<Local, Bit>,
    incr: Signal<Local, Bit>,
    /// The timer counts this cycle (a command waits for a byte).
    waiting: Signal<Local, Bit>,
    /// The current word ends this cycle: step the count and the address.
    advance: Signal<Local, Bit>,
}

impl UartBridge {
    pub fn new(timeout_clocks: u32) -> Self {
        assert!((1..(1 << 24)).contains(&timeout_clocks));
        UartBridge {
            clock: Default::default(),
            rst: Default::default(),
            rx_valid: Default::default(),
            rx_data: Default::default(),
            rx_take: Default::default(),
            tx_ready: Default::default(),
            tx_start: Default::default(),
            tx_data: Default::default(),
            bus_sel: Default::default(),
            bus_enable: Default::default(),
            bus_write: Default::default(),
            bus_addr: Default::default(),
            bus_wdata: Default::default(),
            bus_rdata: Default::default(),
            bus_ready: Default::default(),
            active: Default::default(),
            timed_out: Default::default(),
            timeout_m1: Constant::new(((timeout_clocks - 1) as u64).into()),
            state: Default::default(),
            cmd: Default::default(),
            words_left: Default::default(),
            word_addr: Default::default(),
            data: Default::default(),
            byte_index: Default::default(),
            phase: Default::default(),
            phase_step: Default::default(),
            rdata_q: Default::default(),
            tx_ready_q: Default::default(),
            tx_sent: Default::default(),
            idle_timer: Default::default(),
            to_hit: Default::default(),
            timed_out_q: Default::default(),
            is_write: Default::default(),
            incr: Default::default(),
            waiting: Default::default(),
            advance: Default::default(),
        }
    }
}

impl Logic for UartBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            cmd,
            words_left,
            word_addr,
            data,
            byte_index,
            phase,
            rdata_q,
            tx_ready_q,
            tx_sent,
            idle_timer,
            to_hit,
            timed_out_q
        );
        // 1 and 3 write, 2 and 4 read; 1 and 2 increment the address.
        self.is_write.next = self.cmd.q.val().get_bit(0);
        self.incr.next = (self.cmd.q.val() == 1) | (self.cmd.q.val() == 2);
        self.tx_start.next = false;
        self.tx_ready_q.d.next = self.tx_ready.val();
        self.tx_sent.d.next = false;
        self.rx_take.next = false;
        self.tx_data.next = self.data.q.val().get_bits::<8>(24);
        // SETUP and ACCESS select; ACCESS enables (phase is 0 outside a transfer).
        self.bus_sel.next = (self.phase.q.val() == 2) | (self.phase.q.val() == 3);
        self.bus_enable.next = self.phase.q.val() == 3;
        // A transfer's next phase (both bus states): PRE, PRE, SETUP, then ACCESS until the ready
        // edge (4 is the cycle after it, which each state ends itself).
        self.phase_step.next = self.phase.q.val() + 1;
        if (self.phase.q.val() == 3) & (!self.bus_ready.val()) {
            self.phase_step.next = 3.into();
        }
        self.rdata_q.d.next = self.bus_rdata.val();
        self.bus_write.next = self.is_write.val();
        self.bus_addr.next = self.word_addr.q.val() << 2;
        self.bus_wdata.next = self.data.q.val();
        self.timed_out_q.d.next = false;
        // The timeout counts clocks without a byte while a command waits for one.
        self.idle_timer.d.next = 0.into();
        self.waiting.next = false;
        self.advance.next = false;
        match self.state.q.val() {
            BridgeState::Cmd => {
                if self.rx_valid.val() {
                    self.rx_take.next = true;
                    // Commands 1-4; any other byte is dropped.
                    if (self.rx_data.val() != 0) & (self.rx_data.val() < 5) {
                        self.cmd.d.next = self.rx_data.val().get_bits::<3>(0);
                        self.state.d.next = BridgeState::Len;
                    }
                }
            }
            BridgeState::Len => {
                self.waiting.next = !self.rx_valid.val();
                if self.rx_valid.val() {
                    self.rx_take.next = true;
                    self.words_left.d.next = self.rx_data.val();
                    self.byte_index.d.next = 0.into();
                    self.state.d.next = BridgeState::Addr;
                }
            }
            BridgeState::Addr => {
                self.waiting.next = !self.rx_valid.val();
                if self.rx_valid.val() {
                    self.rx_take.next = true;
                    self.word_addr.d.next =
                        (self.word_addr.q.val() << 8) | bit_cast::<32, 8>(self.rx_data.val());
                    self.byte_index.d.next = self.byte_index.q.val() + 1;
                    if self.byte_index.q.val() == 3 {
                        if self.words_left.q.val() == 0 {
                            self.state.d.next = BridgeState::Cmd;
                        } else if self.is_write.val() {
                            self.state.d.next = BridgeState::WData;
                        } else {
                            self.state.d.next = BridgeState::RBus;
                        }
                    }
                }
            }
            BridgeState::WData => {
                self.waiting.next = !self.rx_valid.val();
                if self.rx_valid.val() {
                    self.rx_take.next = true;
                    self.data.d.next =
                        (self.data.q.val() << 8) | bit_cast::<32, 8>(self.rx_data.val());
                    self.byte_index.d.next = self.byte_index.q.val() + 1;
                    if self.byte_index.q.val() == 3 {
                        self.state.d.next = BridgeState::WBus;
                    }
                }
            }
            BridgeState::WBus => {
                self.phase.d.next = self.phase_step.val();
                if self.phase.q.val() == 4 {
                    // DONE: the write ended at the last edge.
                    self.phase.d.next = 0.into();
                    self.state.d.next = BridgeState::WData;
                    self.advance.next = true;
                }
            }
            BridgeState::RBus => {
                self.phase.d.next = self.phase_step.val();
                if self.phase.q.val() == 4 {
                    // CAPTURE: the data of the ready edge.
                    self.phase.d.next = 0.into();
                    self.data.d.next = self.rdata_q.q.val();
                    self.byte_index.d.next = 0.into();
                    self.state.d.next = BridgeState::RSend;
                }
            }
            BridgeState::RSend => {
                // `tx_ready` falls at the edge that takes a byte, so one byte per frame; its
                // registered copy is trusted from the second edge after a start.
                if self.tx_ready_q.q.val() & (!self.tx_sent.q.val()) {
                    self.tx_start.next = true;
                    self.tx_sent.d.next = true;
                    self.data.d.next = self.data.q.val() << 8;
                    self.byte_index.d.next = self.byte_index.q.val() + 1;
                    if self.byte_index.q.val() == 3 {
                        self.state.d.next = BridgeState::RNext;
                    }
                }
            }
            BridgeState::RNext => {
                self.state.d.next = BridgeState::RBus;
                self.advance.next = true;
            }
            _ => {
                self.state.d.next = BridgeState::Cmd;
            }
        }
        // A word is done (a write's DONE, a read's RNext): the next word, or the next command
        // after the last.
        if self.advance.val() {
            self.words_left.d.next = self.words_left.q.val() - 1;
            if self.incr.val() {
                self.word_addr.d.next = self.word_addr.q.val() + 1;
            }
            if self.words_left.q.val() == 1 {
                self.state.d.next = BridgeState::Cmd;
            }
        }
        if self.waiting.val() {
            self.idle_timer.d.next = self.idle_timer.q.val() + 1;
        }
        self.to_hit.d.next =
            self.waiting.val() & (self.idle_timer.q.val() == self.timeout_m1.val());
        if self.to_hit.q.val() {
            self.state.d.next = BridgeState::Cmd;
            self.idle_timer.d.next = 0.into();
            self.to_hit.d.next = false;
            self.timed_out_q.d.next = true;
        }
        if self.rst.val() {
            self.state.d.next = BridgeState::Cmd;
            self.phase.d.next = 0.into();
            self.idle_timer.d.next = 0.into();
            self.to_hit.d.next = false;
        }
        self.active.next = self.state.q.val() != BridgeState::Cmd;
        self.timed_out.next = self.timed_out_q.q.val();
    }
}
