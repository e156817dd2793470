//! FPGA prototype of the PMCG on the Alchitry Cu (Lattice iCE40-HX8K-CB132, 100 MHz oscillator,
//! FT2232H USB UART): board logic, pins and bitstream flow; no PMCG logic (that is `pmcg-hdl`).
//!
//! ```text
//!   100 MHz (P7, top.rs) ─► BoardCore (board.rs): UART ─► UartBridge ─► PMCG APB | board block
//!                                                    traffic lanes ─► PMCG ─► MSI sink, IRQ count, LEDs
//!   host (src/board.rs) ─ Transport (serial port | simulated UART over sim.rs) ─► bridge protocol
//! ```

pub mod board;
pub mod bridge;
pub mod fifo;
pub mod host;
pub mod map;
pub mod msi_sink;
pub mod sim;
pub mod top;
pub mod traffic;
pub mod uart;

/// The PMCG clock on the board, in Hz: the 100 MHz oscillator itself, no PLL (top.rs).
pub const CLOCK_HZ: u32 = 100_000_000;
