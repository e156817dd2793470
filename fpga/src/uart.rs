//! 8N1 UART receiver and transmitter, parameterised by clocks per bit (115200 baud on the board,
//! a few clocks per bit in simulation).
//!
//! ```text
//!   rx pin ─► 2-flop synchroniser (inverted: 0 = idle) ─► start edge ─► sample mid-bit ×10
//!            ─► valid pulse + data (stop bit 1)  |  framing_error pulse (stop bit 0)
//!   start + data ─► {1, data, 0} shift register ─► tx pin, LSB first, one bit per period
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
    /// Clocks per bit minus one, and half of the clocks per bit minus one.
    period_m1: Constant<Bits<16>>,
    half_m1: Constant<Bits<16>>,
    /// The line, inverted, so that the flops' power-up 0 reads as an idle line.
    rx_n1: DFF<Bit>,
    rx_n2: DFF<Bit>,
    busy: DFF<Bit>,
    timer: DFF<Bits<16>>,
    bit_index: DFF<Bits<4>>,
    shift: DFF<Bits<8>>,
    valid_q: DFF<Bit>,
    error_q: DFF<Bit>,
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
            period_m1: Constant::new(((clocks_per_bit - 1) as u64).into()),
            half_m1: Constant::new(((clocks_per_bit / 2 - 1) as u64).into()),
            rx_n1: Default::default(),
            rx_n2: Default::default(),
            busy: Default::default(),
            timer: Default::default(),
            bit_index: Default::default(),
            shift: Default::default(),
            valid_q: Default::default(),
            error_q: Default::default(),
        }
    }
}

impl Logic for UartRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rx_n1, rx_n2, busy, timer, bit_index, shift, valid_q, error_q);
        self.rx_n1.d.next = !self.rx.val();
        self.rx_n2.d.next = self.rx_n1.q.val();
        self.valid_q.d.next = false;
        self.error_q.d.next = false;
        if !self.busy.q.val() {
            if self.rx_n2.q.val() {
                // Start bit: sample it again half a bit later, then every bit period.
                self.busy.d.next = true;
                self.timer.d.next = self.half_m1.val();
                self.bit_index.d.next = 0.into();
            }
        } else if self.timer.q.val() != 0 {
            self.timer.d.next = self.timer.q.val() - 1;
        } else {
            self.timer.d.next = self.period_m1.val();
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
/// rises again after the stop bit.
#[derive(LogicBlock)]
pub struct UartTx {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub data: Signal<In, Bits<8>>,
    pub ready: Signal<Out, Bit>,
    pub tx: Signal<Out, Bit>,
    period_m1: Constant<Bits<16>>,
    busy: DFF<Bit>,
    timer: DFF<Bits<16>>,
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
            period_m1: Constant::new(((clocks_per_bit - 1) as u64).into()),
            busy: Default::default(),
            timer: Default::default(),
            bit_index: Default::default(),
            frame: Default::default(),
        }
    }
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, timer, bit_index, frame);
        if !self.busy.q.val() {
            if self.start.val() {
                self.busy.d.next = true;
                self.timer.d.next = self.period_m1.val();
                self.bit_index.d.next = 0.into();
                self.frame.d.next = (bit_cast::<10, 8>(self.data.val()) << 1) | 512;
            }
        } else if self.timer.q.val() != 0 {
            self.timer.d.next = self.timer.q.val() - 1;
        } else {
            self.timer.d.next = self.period_m1.val();
            self.frame.d.next = self.frame.q.val() >> 1;
            self.bit_index.d.next = self.bit_index.q.val() + 1;
            if self.bit_index.q.val() == 9 {
                self.busy.d.next = false;
            }
        }
        if self.rst.val() {
            self.busy.d.next = false;
        }
        self.ready.next = !self.busy.q.val();
        self.tx.next = (!self.busy.q.val()) | self.frame.q.val().get_bit(0);
    }
}
