//! Host side of the board: one [`Transport`] trait for the byte stream to the board's UART, a
//! simulated UART that drives a [`BoardSim`] at the bit level, and the bridge protocol client.
//! The serial-port transport lives with the CLI (it needs the `serialport` crate).
//!
//! ```text
//!   BridgeClient ── read/write words ──► Transport::{send, recv}
//!                                          ├ SimUart: bytes ─► 8N1 frames, `clocks_per_bit` cycles a bit ─► BoardSim.uart_rx
//!                                          │          BoardSim.uart_tx ─► mid-bit sampling ─► bytes
//!                                          └ serial port (src/board.rs)
//! ```

use crate::sim::BoardSim;
use std::collections::VecDeque;
use std::io;

/// A byte stream to the board's UART.
pub trait Transport {
    /// Sends every byte (returns when they are queued or on the wire).
    fn send(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Receives exactly `n` bytes, or fails with `TimedOut` when the board stays silent.
    fn recv(&mut self, n: usize) -> io::Result<Vec<u8>>;
    /// Lets time pass with nothing sent: at least `clocks` board clocks (a simulation runs them;
    /// a real port sleeps).
    fn wait_clocks(&mut self, clocks: u64) -> io::Result<()>;
    /// Drops anything received and not yet read.
    fn flush_input(&mut self) -> io::Result<()>;
    /// What it is, for messages ("native simulation", "/dev/ttyUSB1").
    fn describe(&self) -> String;
}

/// Clocks the board holds itself in reset after configuration (board.rs `por`), plus margin.
pub const POWER_ON_CLOCKS: u32 = 24;

/// The host's side of a simulated UART line, bit by bit, on a simulated board.
pub struct SimUart {
    board: Box<dyn BoardSim>,
    clocks_per_bit: u32,
    /// Line levels still to drive, one per clock.
    tx_levels: VecDeque<bool>,
    received: VecDeque<u8>,
    /// Receiver: clocks into the current frame (None: waiting for a start bit), bits so far.
    rx_clock: Option<u32>,
    rx_shift: u16,
    /// Framing errors seen on the board's transmit line.
    pub framing_errors: u64,
    pub cycles: u64,
    pub leds: u8,
    rst_n: bool,
}

impl SimUart {
    /// Wraps `board` and runs it past its power-on reset (16 clocks) with the line idle.
    pub fn new(board: Box<dyn BoardSim>, clocks_per_bit: u32) -> Self {
        let mut uart = SimUart {
            board,
            clocks_per_bit,
            tx_levels: VecDeque::new(),
            received: VecDeque::new(),
            rx_clock: None,
            rx_shift: 0,
            framing_errors: 0,
            cycles: 0,
            leds: 0,
            rst_n: true,
        };
        for _ in 0..POWER_ON_CLOCKS {
            uart.cycle();
        }
        uart
    }

    pub fn backend(&self) -> &'static str {
        self.board.name()
    }

    /// Queues one 8N1 frame with the given stop-bit level (false: a framing error).
    pub fn send_frame(&mut self, byte: u8, stop: bool) {
        let cpb = self.clocks_per_bit as usize;
        let mut bits = vec![false];
        bits.extend((0..8).map(|i| byte >> i & 1 != 0));
        bits.push(stop);
        for b in bits {
            self.tx_levels.extend(std::iter::repeat_n(b, cpb));
        }
        // One idle bit between frames (a stop bit 0 would otherwise merge into the next start).
        self.tx_levels.extend(std::iter::repeat_n(true, cpb));
    }

    /// Holds the reset button for `cycles` clocks.
    pub fn press_reset(&mut self, cycles: u64) {
        self.rst_n = false;
        for _ in 0..cycles {
            self.cycle();
        }
        self.rst_n = true;
    }

    /// Bytes queued to send and not yet on the line.
    pub fn sending(&self) -> bool {
        !self.tx_levels.is_empty()
    }

    /// Bytes received and not yet read.
    pub fn pending(&self) -> usize {
        self.received.len()
    }

    /// Takes every byte received so far.
    pub fn take_received(&mut self) -> Vec<u8> {
        self.received.drain(..).collect()
    }

    /// One board clock.
    pub fn cycle(&mut self) {
        let level = self.tx_levels.pop_front().unwrap_or(true);
        let (tx, leds) = self.board.step(level, self.rst_n);
        self.leds = leds;
        self.cycles += 1;
        let cpb = self.clocks_per_bit;
        match self.rx_clock {
            None => {
                if !tx {
                    self.rx_clock = Some(0);
                    self.rx_shift = 0;
                }
            }
            Some(c) => {
                let c = c + 1;
                self.rx_clock = Some(c);
                // Sample bit k (0 = start) in its middle.
                if c % cpb == cpb / 2 {
                    let k = c / cpb;
                    if k == 0 && tx {
                        self.rx_clock = None; // a glitch
                    } else if (1..=8).contains(&k) {
                        self.rx_shift |= (tx as u16) << (k - 1);
                    } else if k == 9 {
                        if tx {
                            self.received.push_back(self.rx_shift as u8);
                        } else {
                            self.framing_errors += 1;
                        }
                        self.rx_clock = None;
                    }
                }
            }
        }
    }

    /// Runs until everything queued is sent.
    pub fn drain_tx(&mut self) {
        while !self.tx_levels.is_empty() {
            self.cycle();
        }
    }
}

impl Transport for SimUart {
    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        for &b in bytes {
            self.send_frame(b, true);
        }
        Ok(())
    }

    fn recv(&mut self, n: usize) -> io::Result<Vec<u8>> {
        // Silence limit: 64 frame times after the last thing sent or received.
        let limit = 64 * 10 * self.clocks_per_bit as u64;
        let mut quiet = 0;
        while self.received.len() < n {
            let before = self.received.len();
            let busy = self.sending() || self.rx_clock.is_some();
            self.cycle();
            quiet = if busy || self.received.len() != before {
                0
            } else {
                quiet + 1
            };
            if quiet > limit {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "the simulated board ({}) sent {} of {} bytes and then stayed silent",
                        self.board.name(),
                        self.received.len(),
                        n
                    ),
                ));
            }
        }
        Ok(self.received.drain(..n).collect())
    }

    fn wait_clocks(&mut self, clocks: u64) -> io::Result<()> {
        self.drain_tx();
        for _ in 0..clocks {
            self.cycle();
        }
        Ok(())
    }

    fn flush_input(&mut self) -> io::Result<()> {
        self.received.clear();
        Ok(())
    }

    fn describe(&self) -> String {
        format!("{} simulation of the board", self.board.name())
    }
}

/// Bridge commands (litex/tools/remote/comm_uart.py).
pub const CMD_WRITE: u8 = 0x01;
pub const CMD_READ: u8 = 0x02;
pub const CMD_WRITE_FIXED: u8 = 0x03;
pub const CMD_READ_FIXED: u8 = 0x04;

/// The bytes of one command: CMD, LEN, big-endian word address (byte address / 4), data words.
pub fn command_bytes(cmd: u8, byte_addr: u32, len: u8, data: &[u32]) -> Vec<u8> {
    let mut v = vec![cmd, len];
    v.extend((byte_addr / 4).to_be_bytes());
    for d in data {
        v.extend(d.to_be_bytes());
    }
    v
}

/// Reads and writes 32-bit words through the UART bridge.
pub struct BridgeClient<T: Transport> {
    pub transport: T,
}

impl<T: Transport> BridgeClient<T> {
    pub fn new(transport: T) -> Self {
        BridgeClient { transport }
    }

    pub fn write_burst(&mut self, byte_addr: u32, data: &[u32]) -> io::Result<()> {
        for (i, chunk) in data.chunks(255).enumerate() {
            let addr = byte_addr.wrapping_add(4 * 255 * i as u32);
            self.transport
                .send(&command_bytes(CMD_WRITE, addr, chunk.len() as u8, chunk))?;
        }
        Ok(())
    }

    pub fn write(&mut self, byte_addr: u32, value: u32) -> io::Result<()> {
        self.write_burst(byte_addr, &[value])
    }

    pub fn read_burst(&mut self, byte_addr: u32, len: u8) -> io::Result<Vec<u32>> {
        self.transport
            .send(&command_bytes(CMD_READ, byte_addr, len, &[]))?;
        let bytes = self.transport.recv(4 * len as usize)?;
        Ok(bytes
            .chunks(4)
            .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    pub fn read(&mut self, byte_addr: u32) -> io::Result<u32> {
        Ok(self.read_burst(byte_addr, 1)?[0])
    }
}
