//! 8N1 UART receiver and transmitter, parameterised by clocks per bit (115200 baud on the board,
//! a few clocks per bit in simulation).
//!
//! ```text
//!   rx pin ─► 2-flop synchroniser (inverted: 0 = idle) ─► start edge ─► sample mid-bit ×10
//!            ─► valid pulse + data (stop bit 1)  |  framing_error pulse (stop bit 0)
//!   start + data ─► {1, data, 0} shift register ─► tx pin, LSB first, one bit per period
//!   bit timing: an up-counter from 0 and a flip-flop `hit` that is 1 when the counter is at the
//!   end of its interval (set one edge ahead, from a compare of the counter with the end - 1),
//!   so no compare or constant load sits on the counter's carry chain
//! ```

use rust_hdl::prelude::*;

/// UART receiver: one `valid` pulse per well-framed byte; a byte whose stop bit is 0 gives a
/// `framing_error` pulse instead and is dropped. A start bit shorter than half a bit is ignored.
#[derive(LogicBlock)]
pub struct UartRx {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub rx: Signal<In, Bit>,
    pub valid: Signal<Out, Bit>,
    pub data: Signal<Out, Bits<8>>,
    pub framing_error: Signal<Out, Bit>,
    /// The counter's last value before a sample, minus one: clocks per bit - 2 (a bit) and
    /// half of the clocks per bit - 2 (from the start edge to the start bit's middle).
    period_m2: Constant<Bits<16>>,
    half_m2: Constant<Bits<16>>,
    /// The line, inverted, so that the flops' power-up 0 reads as an idle line.
    rx_n1: DFF<Bit>,
    rx_n2: DFF<Bit>,
    busy: DFF<Bit>,
    /// Clocks since the last sample (or the start edge); `hit`: it is the last clock of the
    /// interval (half a bit for bit 0, a bit after it).
    timer: DFF<Bits<16>>,
    hit: DFF<Bit>,
    bit_index: DFF<Bits<4>>,
    shift: DFF<Bits<8>>,
    valid_q: DFF<Bit>,
    error_q: DFF<Bit>,
    near_half: Signal<Local, Bit>,
    near_period: Signal<Local, Bit>,
}

impl UartRx {
    pub fn new(clocks_per_bit: u32) -> Self {
        assert!(
            (4..=0xFFFF).contains(&clocks_per_bit),
            "clocks per bit 4..=65535"
        );
        UartRx {
            clock: Default::default(),
            rst: Default::default(),
            rx: Default::default(),
            valid: Default::default(),
            data: Default::default(),
            framing_error: Default::default(),
            period_m2: Constant::new(((clocks_per_bit - 2) as u64).into()),
            half_m2: Constant::new(((clocks_per_bit / 2 - 2) as u64).into()),
            rx_n1: Default::default(),
            rx_n2: Default::default(),
            busy: Default::default(),
            timer: Default::default(),
            hit: Default::default(),
            bit_index: Default::default(),
            shift: Default::default(),
            valid_q: Default::default(),
            error_q: Default::default(),
            near_half: Default::default(),
            near_period: Default::default(),
        }
    }
}

impl Logic for UartRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rx_n1, rx_n2, busy, timer, hit, bit_index, shift, valid_q, error_q);
        self.rx_n1.d.next = !self.rx.val();
        self.rx_n2.d.next = self.rx_n1.q.val();
        self.valid_q.d.next = false;
        self.error_q.d.next = false;
        // The interval's end is half a bit after the start edge for bit 0, a bit for the others.
        self.near_half.next = self.timer.q.val() == self.half_m2.val();
        self.near_period.next = self.timer.q.val() == self.period_m2.val();
        if !self.busy.q.val() {
            if self.rx_n2.q.val() {
                // Start bit: sample it again half a bit later, then every bit period.
                self.busy.d.next = true;
                self.timer.d.next = 0.into();
                self.hit.d.next = false;
                self.bit_index.d.next = 0.into();
            }
        } else if !self.hit.q.val() {
            self.timer.d.next = self.timer.q.val() + 1;
            self.hit.d.next = self.near_period.val();
            if self.bit_index.q.val() == 0 {
                self.hit.d.next = self.near_half.val();
            }
        } else {
            self.timer.d.next = 0.into();
            self.hit.d.next = false;
            self.bit_index.d.next = self.bit_index.q.val() + 1;
            if self.bit_index.q.val() == 0 {
                // A glitch, not a start bit: back to idle.
                if !self.rx_n2.q.val() {
                    self.busy.d.next = false;
                }
            } else if self.bit_index.q.val() == 9 {
                self.busy.d.next = false;
                if self.rx_n2.q.val() {
                    self.error_q.d.next = true;
                } else {
                    self.valid_q.d.next = true;
                }
            } else {
                // Data bits arrive LSB first: shift in from the top.
                self.shift.d.next = self.shift.q.val() >> 1;
                if !self.rx_n2.q.val() {
                    self.shift.d.next = (self.shift.q.val() >> 1) | 128;
                }
            }
        }
        if self.rst.val() {
            self.busy.d.next = false;
            self.valid_q.d.next = false;
            self.error_q.d.next = false;
        }
        self.valid.next = self.valid_q.q.val();
        self.framing_error.next = self.error_q.q.val();
        self.data.next = self.shift.q.val();
    }
}

/// UART transmitter: `start` (sampled while `ready`) sends `data`; `ready` falls at that edge and
/// rises again after the stop bit. The start and its byte are registered first (`start_q`,
/// `data_q`) and the frame begins an edge later, so nothing of the sender's logic reaches the
/// shift register.
#[derive(LogicBlock)]
pub struct UartTx {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub data: Signal<In, Bits<8>>,
    pub ready: Signal<Out, Bit>,
    pub tx: Signal<Out, Bit>,
    /// Clocks per bit - 2: the counter's value one clock before a bit's last.
    period_m2: Constant<Bits<16>>,
    busy: DFF<Bit>,
    /// Clocks into the current bit; `hit`: this is its last clock.
    timer: DFF<Bits<16>>,
    hit: DFF<Bit>,
    /// A start taken at the last edge and its byte.
    start_q: DFF<Bit>,
    data_q: DFF<Bits<8>>,
    bit_index: DFF<Bits<4>>,
    /// {stop, data, start}, shifted out LSB first.
    frame: DFF<Bits<10>>,
}

impl UartTx {
    pub fn new(clocks_per_bit: u32) -> Self {
        assert!(
            (4..=0xFFFF).contains(&clocks_per_bit),
            "clocks per bit 4..=65535"
        );
        UartTx {
            clock: Default::default(),
            rst: Default::default(),
            start: Default::default(),
            data: Default::default(),
            ready: Default::default(),
            tx: Default::default(),
            period_m2: Constant::new(((clocks_per_bit - 2) as u64).into()),
            busy: Default::default(),
            timer: Default::default(),
            hit: Default::default(),
            start_q: Default::default(),
            data_q: Default::default(),
            bit_index: Default::default(),
            frame: Default::default(),
        }
    }
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, timer, hit, start_q, data_q, bit_index, frame);
        self.start_q.d.next = false;
        if (!self.busy.q.val()) & (!self.start_q.q.val()) & self.start.val() {
            self.start_q.d.next = true;
            self.data_q.d.next = self.data.val();
        }
        if !self.busy.q.val() {
            if self.start_q.q.val() {
                self.busy.d.next = true;
                self.timer.d.next = 0.into();
                self.hit.d.next = false;
                self.bit_index.d.next = 0.into();
                self.frame.d.next = (bit_cast::<10, 8>(self.data_q.q.val()) << 1) | 512;
            }
        } else if !self.hit.q.val() {
            self.timer.d.next = self.timer.q.val() + 1;
            self.hit.d.next = self.timer.q.val() == self.period_m2.val();
        } else {
            self.timer.d.next = 0.into();
            self.hit.d.next = false;
            self.frame.d.next = self.frame.q.val() >> 1;
            self.bit_index.d.next = self.bit_index.q.val() + 1;
            if self.bit_index.q.val() == 9 {
                self.busy.d.next = false;
            }
        }
        if self.rst.val() {
            self.busy.d.next = false;
            self.start_q.d.next = false;
        }
        self.ready.next = (!self.busy.q.val()) & (!self.start_q.q.val());
        self.tx.next = (!self.busy.q.val()) | self.frame.q.val().get_bit(0);
    }
}
