//! `BoardCore`: everything on the Alchitry Cu but the clock: the PMCG, the UART bridge, the
//! address decoder and the board block (ID/info, control, IRQ/MSI counters, MSI sink, traffic
//! generator), reset and LEDs. One clock; the FPGA top ([`crate::top`]) adds the pins.
//!
//! ```text
//!  uart_rx ─► UartRx ─► FIFO ─► UartBridge ─► bus ─┬─ PMCG window ─────► APB ─► PmcgCore ─► irq ─► IRQ_COUNT, LED
//!  uart_tx ◄─ UartTx ◄──────┘              └─ board block: ID/info, CTRL/STATUS, counts,
//!                                              MSI sink regs, lane regs ─► TrafficLane × lanes ─► PMCG lanes
//!  PmcgCore MSI master (AXI4-Lite) ─► MsiSink ─► FIFO (read over the bridge)
//!  rst_n (button, active low) ─► 2-flop sync ─┐
//!  power-on counter ──────────────────────────┴─► board reset (also the PMCG's PRESETn, with CTRL bit 0)
//!  leds: 0 heartbeat, 1 IRQ, 2 MSI, 3 overflow (stretched), 4 traffic busy, 5 UART rx, 6 bridge busy, 7 reset
//! ```

use crate::bridge::UartBridge;
use crate::fifo::BoardFifo;
use crate::map;
use crate::msi_sink::MsiSink;
use crate::traffic::TrafficLane;
use crate::uart::{UartRx, UartTx};
use pmcg_hdl::config::{PmcgConfig, SidFilterType};
use pmcg_hdl::top::PmcgCore;
use rust_hdl::prelude::*;

/// The receive FIFO: 256 bytes.
pub type UartRxFifo = BoardFifo<8, 8, 9>;

/// Build-time parameters of the board logic.
#[derive(Clone, Debug)]
pub struct BoardParams {
    /// PMCG clock in Hz (reported in CLOCK_HZ).
    pub clock_hz: u32,
    /// UART clocks per bit (clock / baud).
    pub clocks_per_bit: u32,
    /// Bridge timeout in clocks (a command waiting this long for a byte is abandoned).
    pub timeout_clocks: u32,
    /// LED stretch in clocks.
    pub stretch_clocks: u32,
}

impl BoardParams {
    /// The board: `clock_hz`, 115200 baud, a 10 ms timeout, 0.1 s LED pulses.
    pub fn board(clock_hz: u32) -> Self {
        BoardParams {
            clock_hz,
            clocks_per_bit: (clock_hz + 57_600) / 115_200,
            timeout_clocks: clock_hz / 100,
            stretch_clocks: clock_hz / 10,
        }
    }

    /// Simulation: `clocks_per_bit` clocks per bit, a timeout of 40 bit times.
    pub fn sim(clocks_per_bit: u32) -> Self {
        BoardParams {
            clock_hz: crate::CLOCK_HZ,
            clocks_per_bit,
            timeout_clocks: 40 * clocks_per_bit,
            stretch_clocks: 4096,
        }
    }
}

/// The CONFIG0 and CONFIG1 words of `cfg` (see [`map::CONFIG0`]).
pub fn config_words(cfg: &PmcgConfig) -> (u32, u32) {
    let w0 = cfg.counters | cfg.counter_bits << 8 | cfg.lanes << 16 | cfg.sid_bits << 24;
    let flags = [
        cfg.capture,
        cfg.msi,
        cfg.secure,
        cfg.realm,
        cfg.mpam_filter,
        cfg.msi_mpam,
        cfg.reloc_ctrs,
        cfg.sid_filter == SidFilterType::Global,
        cfg.ats,
        cfg.filter_tables,
    ];
    let w1 = flags
        .iter()
        .enumerate()
        .fold(0, |w, (i, &f)| w | (f as u32) << i)
        | cfg.pa_bits << 16;
    (w0, w1)
}

/// BUILD_HASH: the first 32 bits of SHA-256 over the configuration summary and register map hash.
pub fn build_hash(cfg: &PmcgConfig) -> u32 {
    use sha2::{Digest, Sha256};
    let text = format!("{} {}", cfg.summary(), pmcg_synth::regmap_hash(cfg));
    let d = Sha256::digest(text.as_bytes());
    u32::from_be_bytes([d[0], d[1], d[2], d[3]])
}

#[derive(LogicBlock)]
pub struct BoardCore {
    pub clk: Signal<In, Clock>,
    /// The reset button, active low.
    pub rst_n: Signal<In, Bit>,
    pub uart_rx: Signal<In, Bit>,
    pub uart_tx: Signal<Out, Bit>,
    pub leds: Signal<Out, Bits<8>>,
    pmcg: PmcgCore,
    rx: UartRx,
    /// Bytes received while the bridge is busy (a host may send its next command while the
    /// answer to the previous one is still being sent).
    rx_fifo: UartRxFifo,
    /// The FIFO's head registered for the bridge: a byte (`rxb_data`) is there when
    /// `rxb_valid`; the FIFO refills it as the bridge takes it.
    rxb_valid: DFF<Bit>,
    rxb_data: DFF<Bits<8>>,
    rx_load: Signal<Local, Bit>,
    tx: UartTx,
    bridge: UartBridge,
    sink: MsiSink,
    lanes: Vec<TrafficLane>,
    /// Each lane's word index in the board block, divided by 8 (crate::map::LANE_BASE / 8 + lane).
    lane_slot: Vec<Constant<Bits<7>>>,
    // Reset: power-on counter and the button's synchroniser.
    por: DFF<Bits<4>>,
    btn1: DFF<Bit>,
    btn2: DFF<Bit>,
    rst: DFF<Bit>,
    pmcg_rst: DFF<Bit>,
    // Info words.
    info_config0: Constant<Bits<32>>,
    info_config1: Constant<Bits<32>>,
    info_page1: Constant<Bits<32>>,
    info_hash: Constant<Bits<32>>,
    info_clock: Constant<Bits<32>>,
    info_cpb: Constant<Bits<32>>,
    lane_mpam_ns: Constant<Bits<32>>,
    stretch: Constant<Bits<32>>,
    /// LED 0's bit of the cycle counter: bit floor(log2(clock)), so it blinks at 0.5-1 Hz.
    heartbeat: Constant<Bits<32>>,
    // Control and counters.
    capt_req: DFF<Bit>,
    apb_ns: DFF<Bit>,
    apb_pnse: DFF<Bit>,
    timed_out: DFF<Bit>,
    irq_count: DFF<Bits<32>>,
    cycles: DFF<Bits<32>>,
    msi_aw_delay: DFF<Bits<16>>,
    msi_w_delay: DFF<Bits<16>>,
    msi_b_delay: DFF<Bits<16>>,
    msi_resp: DFF<Bits<2>>,
    lane_events: Vec<DFF<Bits<32>>>,
    lane_sid_base: Vec<DFF<Bits<32>>>,
    lane_sid_mask: Vec<DFF<Bits<32>>>,
    lane_mode: Vec<DFF<Bits<32>>>,
    lane_rate: Vec<DFF<Bits<32>>>,
    lane_burst: Vec<DFF<Bits<32>>>,
    lane_seed: Vec<DFF<Bits<32>>>,
    // LEDs: stretch counters.
    led_irq: DFF<Bits<32>>,
    led_msi: DFF<Bits<32>>,
    led_ovf: DFF<Bits<32>>,
    led_rx: DFF<Bits<32>>,
    /// Any counter's overflow export (for LED 3), registered.
    ovf_any: DFF<Bit>,
    // Decode: registered from the bridge's address at every edge, in two steps (the one-hot
    // selects from the first step's registers); the bridge holds the address two cycles (PRE)
    // before it selects, so all are valid from a transfer's SETUP.
    is_pmcg: DFF<Bit>,
    /// The address bits above the PMCG's window (`RegisterMap::addr_mask`).
    pmcg_outside: Constant<Bits<32>>,
    is_board: DFF<Bit>,
    /// PADDR: the bridge's address registered (valid from SETUP, like the decode), so the
    /// PMCG's setup-cycle decode starts from a flip-flop of its own.
    paddr: DFF<Bits<32>>,
    /// The address's board word index (bits 11:2).
    index1: DFF<Bits<10>>,
    /// One-hot: bit k, the address is the board block's word k (0-31).
    sel: DFF<Bits<32>>,
    /// One-hot per lane: bit j, the address is lane l's word j.
    lane_sel: Vec<DFF<Bits<8>>>,
    /// The board block's read word, an OR of the selected words (valid from ACCESS).
    board_rdata: DFF<Bits<32>>,
    /// A lane's CTRL start and stop pulses, an edge after the write's access edge.
    lane_start: Vec<DFF<Bit>>,
    lane_stop: Vec<DFF<Bit>>,
    /// `index1` and `is_board` (the registered address's word index, in the board block).
    live_index: Signal<Local, Bits<10>>,
    live_board: Signal<Local, Bit>,
    sel_acc: Signal<Local, Bits<32>>,
    lane_acc: Signal<Local, Bits<8>>,
    rd_acc: Signal<Local, Bits<32>>,
    board_wr: Signal<Local, Bit>,
    any_busy: Signal<Local, Bit>,
}

impl BoardCore {
    pub fn new(
        cfg: &PmcgConfig,
        params: &BoardParams,
    ) -> Result<Self, pmcg_hdl::config::ConfigError> {
        let lanes = cfg.lanes as usize;
        let (w0, w1) = config_words(cfg);
        let c32 = |v: u32| Constant::new((v as u64).into());
        Ok(BoardCore {
            clk: Default::default(),
            rst_n: Default::default(),
            uart_rx: Default::default(),
            uart_tx: Default::default(),
            leds: Default::default(),
            pmcg: PmcgCore::new(cfg)?,
            rx: UartRx::new(params.clocks_per_bit),
            rx_fifo: Default::default(),
            rxb_valid: Default::default(),
            rxb_data: Default::default(),
            rx_load: Default::default(),
            tx: UartTx::new(params.clocks_per_bit),
            bridge: UartBridge::new(params.timeout_clocks),
            sink: Default::default(),
            lanes: (0..lanes).map(|_| Default::default()).collect(),
            lane_slot: (0..lanes as u32)
                .map(|l| Constant::new(((map::LANE_BASE / map::LANE_STRIDE + l) as u64).into()))
                .collect(),
            por: Default::default(),
            btn1: Default::default(),
            btn2: Default::default(),
            rst: Default::default(),
            pmcg_rst: Default::default(),
            info_config0: c32(w0),
            info_config1: c32(w1),
            info_page1: c32(cfg.page1_offset),
            info_hash: c32(build_hash(cfg)),
            info_clock: c32(params.clock_hz),
            info_cpb: c32(params.clocks_per_bit),
            lane_mpam_ns: c32(pmcg_hdl::config::lane_mpam_word(0, 0, 1)),
            stretch: c32(params.stretch_clocks),
            heartbeat: c32(1 << (31 - params.clock_hz.leading_zeros())),
            capt_req: Default::default(),
            apb_ns: Default::default(),
            apb_pnse: Default::default(),
            timed_out: Default::default(),
            irq_count: Default::default(),
            cycles: Default::default(),
            msi_aw_delay: Default::default(),
            msi_w_delay: Default::default(),
            msi_b_delay: Default::default(),
            msi_resp: Default::default(),
            lane_events: (0..lanes).map(|_| Default::default()).collect(),
            lane_sid_base: (0..lanes).map(|_| Default::default()).collect(),
            lane_sid_mask: (0..lanes).map(|_| Default::default()).collect(),
            lane_mode: (0..lanes).map(|_| Default::default()).collect(),
            lane_rate: (0..lanes).map(|_| Default::default()).collect(),
            lane_burst: (0..lanes).map(|_| Default::default()).collect(),
            lane_seed: (0..lanes).map(|_| Default::default()).collect(),
            led_irq: Default::default(),
            led_msi: Default::default(),
            led_ovf: Default::default(),
            led_rx: Default::default(),
            ovf_any: Default::default(),
            is_pmcg: Default::default(),
            pmcg_outside: c32(!pmcg_hdl::regmap::RegisterMap::new(cfg).addr_mask()),
            is_board: Default::default(),
            paddr: Default::default(),
            index1: Default::default(),
            sel: Default::default(),
            lane_sel: (0..lanes).map(|_| Default::default()).collect(),
            board_rdata: Default::default(),
            lane_start: (0..lanes).map(|_| Default::default()).collect(),
            lane_stop: (0..lanes).map(|_| Default::default()).collect(),
            live_index: Default::default(),
            live_board: Default::default(),
            sel_acc: Default::default(),
            lane_acc: Default::default(),
            rd_acc: Default::default(),
            board_wr: Default::default(),
            any_busy: Default::default(),
        })
    }
}

impl Logic for BoardCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            por,
            btn1,
            btn2,
            rst,
            pmcg_rst,
            rxb_valid,
            rxb_data,
            capt_req,
            apb_ns,
            apb_pnse,
            timed_out,
            irq_count,
            cycles,
            msi_aw_delay,
            msi_w_delay,
            msi_b_delay,
            msi_resp,
            led_irq,
            led_msi,
            led_ovf,
            led_rx,
            ovf_any,
            is_pmcg,
            is_board,
            paddr,
            index1,
            sel,
            board_rdata
        );
        clock!(self, clk, rx, rx_fifo, tx, bridge, sink);
        self.pmcg.pclk.next = self.clk.val();
        // Reset: 15 cycles after configuration, and while the button is held.
        self.btn1.d.next = !self.rst_n.val();
        self.btn2.d.next = self.btn1.q.val();
        if self.por.q.val() != 15 {
            self.por.d.next = self.por.q.val() + 1;
        }
        self.rst.d.next = (self.por.q.val() != 15) | self.btn2.q.val();
        self.rx.rst.next = self.rst.q.val();
        self.tx.rst.next = self.rst.q.val();
        self.bridge.rst.next = self.rst.q.val();
        self.sink.rst.next = self.rst.q.val() | self.pmcg_rst.q.val();
        self.pmcg.presetn.next = !(self.rst.q.val() | self.pmcg_rst.q.val());
        // UART and bridge.
        self.rx.rx.next = self.uart_rx.val();
        self.rx_fifo.write.next = self.rx.valid.val();
        self.rx_fifo.data_in.next = self.rx.data.val();
        self.bridge.rx_valid.next = self.rxb_valid.q.val();
        self.bridge.rx_data.next = self.rxb_data.q.val();
        self.rx_load.next =
            (!self.rx_fifo.empty.val()) & ((!self.rxb_valid.q.val()) | self.bridge.rx_take.val());
        self.rx_fifo.read.next = self.rx_load.val();
        if self.bridge.rx_take.val() {
            self.rxb_valid.d.next = false;
        }
        if self.rx_load.val() {
            self.rxb_valid.d.next = true;
            self.rxb_data.d.next = self.rx_fifo.data_out.val();
        }
        self.bridge.tx_ready.next = self.tx.ready.val();
        self.tx.start.next = self.bridge.tx_start.val();
        self.tx.data.next = self.bridge.tx_data.val();
        self.uart_tx.next = self.tx.tx.val();
        // Decode: the PMCG's window (it decodes only that and would alias through the rest,
        // docs/integration.md), the board block in the first 4 KiB at BOARD_BASE (0x100000).
        // Registered: the bridge holds an address two cycles before it selects (bridge.rs).
        self.is_pmcg.d.next = (self.bridge.bus_addr.val() & self.pmcg_outside.val()) == 0;
        self.is_board.d.next = self.bridge.bus_addr.val().get_bits::<20>(12) == 256;
        self.index1.d.next = self.bridge.bus_addr.val().get_bits::<10>(2);
        // The board block's words (crate::map), one-hot, from those registers (the bridge
        // holds an address two cycles before it selects).
        self.live_board.next = self.is_board.q.val();
        self.live_index.next = self.index1.q.val();
        self.sel_acc.next = 0.into();
        if self.live_board.val() {
            if self.live_index.val() == 0 {
                self.sel_acc.next = self.sel_acc.val() | 1;
            }
            if self.live_index.val() == 1 {
                self.sel_acc.next = self.sel_acc.val() | 2;
            }
            if self.live_index.val() == 2 {
                self.sel_acc.next = self.sel_acc.val() | 4;
            }
            if self.live_index.val() == 3 {
                self.sel_acc.next = self.sel_acc.val() | 8;
            }
            if self.live_index.val() == 4 {
                self.sel_acc.next = self.sel_acc.val() | 16;
            }
            if self.live_index.val() == 5 {
                self.sel_acc.next = self.sel_acc.val() | 32;
            }
            if self.live_index.val() == 6 {
                self.sel_acc.next = self.sel_acc.val() | 64;
            }
            if self.live_index.val() == 7 {
                self.sel_acc.next = self.sel_acc.val() | 128;
            }
            if self.live_index.val() == 8 {
                self.sel_acc.next = self.sel_acc.val() | 256;
            }
            if self.live_index.val() == 9 {
                self.sel_acc.next = self.sel_acc.val() | 512;
            }
            if self.live_index.val() == 10 {
                self.sel_acc.next = self.sel_acc.val() | 1024;
            }
            if self.live_index.val() == 11 {
                self.sel_acc.next = self.sel_acc.val() | 2048;
            }
            if self.live_index.val() == 12 {
                self.sel_acc.next = self.sel_acc.val() | 4096;
            }
            if self.live_index.val() == 16 {
                self.sel_acc.next = self.sel_acc.val() | 65536;
            }
            if self.live_index.val() == 17 {
                self.sel_acc.next = self.sel_acc.val() | 131072;
            }
            if self.live_index.val() == 18 {
                self.sel_acc.next = self.sel_acc.val() | 262144;
            }
            if self.live_index.val() == 19 {
                self.sel_acc.next = self.sel_acc.val() | 524288;
            }
            if self.live_index.val() == 20 {
                self.sel_acc.next = self.sel_acc.val() | 1048576;
            }
            if self.live_index.val() == 21 {
                self.sel_acc.next = self.sel_acc.val() | 2097152;
            }
            if self.live_index.val() == 22 {
                self.sel_acc.next = self.sel_acc.val() | 4194304;
            }
            if self.live_index.val() == 23 {
                self.sel_acc.next = self.sel_acc.val() | 8388608;
            }
            if self.live_index.val() == 24 {
                self.sel_acc.next = self.sel_acc.val() | 16777216;
            }
        }
        self.sel.d.next = self.sel_acc.val();
        self.pmcg.psel.next = self.bridge.bus_sel.val() & self.is_pmcg.q.val();
        self.pmcg.penable.next = self.bridge.bus_enable.val() & self.is_pmcg.q.val();
        self.pmcg.pwrite.next = self.bridge.bus_write.val();
        self.paddr.d.next = self.bridge.bus_addr.val();
        self.pmcg.paddr.next = self.paddr.q.val();
        self.pmcg.pwdata.next = self.bridge.bus_wdata.val();
        self.pmcg.pstrb.next = 15.into();
        self.pmcg.pprot.next = 0.into();
        if self.apb_ns.q.val() {
            self.pmcg.pprot.next = 2.into();
        }
        self.pmcg.pnse.next = self.apb_pnse.q.val();
        self.board_wr.next =
            self.bridge.bus_enable.val() & self.bridge.bus_write.val() & self.is_board.q.val();
        // PMCG side inputs.
        self.pmcg.capt_req.next = self.capt_req.q.val();
        self.sink.awvalid.next = self.pmcg.awvalid.val();
        self.sink.awaddr_lo.next = self.pmcg.awaddr_lo.val();
        self.sink.awaddr_hi.next = self.pmcg.awaddr_hi.val();
        self.sink.awprot.next = self.pmcg.awprot.val();
        self.sink.wvalid.next = self.pmcg.wvalid.val();
        self.sink.wdata.next = self.pmcg.wdata.val();
        self.sink.bready.next = self.pmcg.bready.val();
        self.pmcg.awready.next = self.sink.awready.val();
        self.pmcg.wready.next = self.sink.wready.val();
        self.pmcg.bvalid.next = self.sink.bvalid.val();
        self.pmcg.bresp.next = self.sink.bresp.val();
        self.sink.aw_delay.next = self.msi_aw_delay.q.val();
        self.sink.w_delay.next = self.msi_w_delay.q.val();
        self.sink.b_delay.next = self.msi_b_delay.q.val();
        self.sink.resp.next = self.msi_resp.q.val();
        self.sink.pop.next = self.board_wr.val() & self.sel.q.val().get_bit(20);
        // Traffic lanes.
        self.any_busy.next = false;
        for l in 0..self.lanes.len() {
            self.lanes[l].clock.next = self.clk.val();
            self.lane_events[l].clock.next = self.clk.val();
            self.lane_sid_base[l].clock.next = self.clk.val();
            self.lane_sid_mask[l].clock.next = self.clk.val();
            self.lane_mode[l].clock.next = self.clk.val();
            self.lane_rate[l].clock.next = self.clk.val();
            self.lane_burst[l].clock.next = self.clk.val();
            self.lane_seed[l].clock.next = self.clk.val();
            self.lane_sel[l].clock.next = self.clk.val();
            self.lane_start[l].clock.next = self.clk.val();
            self.lane_stop[l].clock.next = self.clk.val();
            self.lane_acc.next = 0.into();
            if self.live_board.val()
                & (self.live_index.val().get_bits::<7>(3) == self.lane_slot[l].val())
            {
                if self.live_index.val().get_bits::<3>(0) == 0 {
                    self.lane_acc.next = self.lane_acc.val() | 1;
                }
                if self.live_index.val().get_bits::<3>(0) == 1 {
                    self.lane_acc.next = self.lane_acc.val() | 2;
                }
                if self.live_index.val().get_bits::<3>(0) == 2 {
                    self.lane_acc.next = self.lane_acc.val() | 4;
                }
                if self.live_index.val().get_bits::<3>(0) == 3 {
                    self.lane_acc.next = self.lane_acc.val() | 8;
                }
                if self.live_index.val().get_bits::<3>(0) == 4 {
                    self.lane_acc.next = self.lane_acc.val() | 16;
                }
                if self.live_index.val().get_bits::<3>(0) == 5 {
                    self.lane_acc.next = self.lane_acc.val() | 32;
                }
                if self.live_index.val().get_bits::<3>(0) == 6 {
                    self.lane_acc.next = self.lane_acc.val() | 64;
                }
                if self.live_index.val().get_bits::<3>(0) == 7 {
                    self.lane_acc.next = self.lane_acc.val() | 128;
                }
            }
            self.lane_sel[l].d.next = self.lane_acc.val();
            self.lane_events[l].d.next = self.lane_events[l].q.val();
            self.lane_sid_base[l].d.next = self.lane_sid_base[l].q.val();
            self.lane_sid_mask[l].d.next = self.lane_sid_mask[l].q.val();
            self.lane_mode[l].d.next = self.lane_mode[l].q.val();
            self.lane_rate[l].d.next = self.lane_rate[l].q.val();
            self.lane_burst[l].d.next = self.lane_burst[l].q.val();
            self.lane_seed[l].d.next = self.lane_seed[l].q.val();
            self.lanes[l].rst.next = self.rst.q.val() | self.pmcg_rst.q.val();
            self.lane_start[l].d.next = false;
            self.lane_stop[l].d.next = false;
            self.lanes[l].start.next = self.lane_start[l].q.val();
            self.lanes[l].stop.next = self.lane_stop[l].q.val();
            if self.board_wr.val() {
                if self.lane_sel[l].q.val().get_bit(0) {
                    self.lane_events[l].d.next = self.bridge.bus_wdata.val();
                }
                if self.lane_sel[l].q.val().get_bit(1) {
                    self.lane_sid_base[l].d.next = self.bridge.bus_wdata.val();
                }
                if self.lane_sel[l].q.val().get_bit(2) {
                    self.lane_sid_mask[l].d.next = self.bridge.bus_wdata.val();
                }
                if self.lane_sel[l].q.val().get_bit(3) {
                    self.lane_mode[l].d.next = self.bridge.bus_wdata.val();
                }
                if self.lane_sel[l].q.val().get_bit(4) {
                    self.lane_rate[l].d.next = self.bridge.bus_wdata.val() & 0xFFFF;
                }
                if self.lane_sel[l].q.val().get_bit(5) {
                    self.lane_burst[l].d.next = self.bridge.bus_wdata.val();
                }
                if self.lane_sel[l].q.val().get_bit(6) {
                    self.lane_seed[l].d.next = self.bridge.bus_wdata.val();
                }
                if self.lane_sel[l].q.val().get_bit(7) {
                    self.lane_start[l].d.next = self.bridge.bus_wdata.val().get_bit(0);
                    self.lane_stop[l].d.next = self.bridge.bus_wdata.val().get_bit(1);
                }
            }
            self.lanes[l].events.next = self.lane_events[l].q.val();
            self.lanes[l].sid_base.next = self.lane_sid_base[l].q.val();
            self.lanes[l].sid_mask.next = self.lane_sid_mask[l].q.val();
            self.lanes[l].mode.next = self.lane_mode[l].q.val();
            self.lanes[l].rate_mask.next = self.lane_rate[l].q.val().get_bits::<16>(0);
            self.lanes[l].burst.next = self.lane_burst[l].q.val();
            self.lanes[l].seed.next = self.lane_seed[l].q.val();
            self.pmcg.lane_valid[l].next = self.lanes[l].lane_valid.val();
            self.pmcg.lane_events[l].next = self.lanes[l].lane_events.val();
            self.pmcg.lane_sid[l].next = self.lanes[l].lane_sid.val();
            self.pmcg.lane_ss[l].next = self.lanes[l].lane_ss.val();
            self.pmcg.lane_nosid[l].next = self.lanes[l].lane_nosid.val();
            self.pmcg.lane_mpam[l].next = self.lane_mpam_ns.val();
            if self.lanes[l].busy.val() {
                self.any_busy.next = true;
            }
        }
        // Board registers (word indices: crate::map).
        self.pmcg_rst.d.next = false;
        if self.board_wr.val() {
            if self.sel.q.val().get_bit(8) {
                self.pmcg_rst.d.next = self.bridge.bus_wdata.val().get_bit(0);
                self.capt_req.d.next = self.bridge.bus_wdata.val().get_bit(1);
                self.apb_ns.d.next = self.bridge.bus_wdata.val().get_bit(2);
                self.apb_pnse.d.next = self.bridge.bus_wdata.val().get_bit(3);
            }
            if self.sel.q.val().get_bit(21) {
                self.msi_aw_delay.d.next = self.bridge.bus_wdata.val().get_bits::<16>(0);
            }
            if self.sel.q.val().get_bit(22) {
                self.msi_w_delay.d.next = self.bridge.bus_wdata.val().get_bits::<16>(0);
            }
            if self.sel.q.val().get_bit(23) {
                self.msi_b_delay.d.next = self.bridge.bus_wdata.val().get_bits::<16>(0);
            }
            if self.sel.q.val().get_bit(24) {
                self.msi_resp.d.next = self.bridge.bus_wdata.val().get_bits::<2>(0);
            }
        }
        // The read word: an OR of the words whose select is set (one at most), so the mux is a
        // shallow AND-OR, not a chain of compares.
        self.rd_acc.next = 0.into();
        if self.sel.q.val().get_bit(0) {
            self.rd_acc.next = self.rd_acc.val() | 0x504D_4347;
        }
        if self.sel.q.val().get_bit(1) {
            self.rd_acc.next = self.rd_acc.val() | 1;
        }
        if self.sel.q.val().get_bit(2) {
            self.rd_acc.next = self.rd_acc.val() | self.info_config0.val();
        }
        if self.sel.q.val().get_bit(3) {
            self.rd_acc.next = self.rd_acc.val() | self.info_config1.val();
        }
        if self.sel.q.val().get_bit(4) {
            self.rd_acc.next = self.rd_acc.val() | self.info_page1.val();
        }
        if self.sel.q.val().get_bit(5) {
            self.rd_acc.next = self.rd_acc.val() | self.info_hash.val();
        }
        if self.sel.q.val().get_bit(6) {
            self.rd_acc.next = self.rd_acc.val() | self.info_clock.val();
        }
        if self.sel.q.val().get_bit(7) {
            self.rd_acc.next = self.rd_acc.val() | self.info_cpb.val();
        }
        if self.sel.q.val().get_bit(8) {
            self.rd_acc.next = self.rd_acc.val()
                | (bit_cast::<32, 1>(self.capt_req.q.val().into()) << 1)
                | (bit_cast::<32, 1>(self.apb_ns.q.val().into()) << 2)
                | (bit_cast::<32, 1>(self.apb_pnse.q.val().into()) << 3);
        }
        if self.sel.q.val().get_bit(9) {
            self.rd_acc.next = self.rd_acc.val()
                | bit_cast::<32, 1>(self.pmcg.capt_ack.val().into())
                | (bit_cast::<32, 1>(self.any_busy.val().into()) << 1)
                | (bit_cast::<32, 1>(self.sink.overflow.val().into()) << 2)
                | (bit_cast::<32, 1>(self.timed_out.q.val().into()) << 3);
        }
        if self.sel.q.val().get_bit(10) {
            self.rd_acc.next = self.rd_acc.val() | self.irq_count.q.val();
        }
        if self.sel.q.val().get_bit(11) {
            self.rd_acc.next = self.rd_acc.val() | self.sink.count.val();
        }
        if self.sel.q.val().get_bit(12) {
            self.rd_acc.next = self.rd_acc.val() | self.cycles.q.val();
        }
        if self.sel.q.val().get_bit(16) {
            self.rd_acc.next = self.rd_acc.val() | bit_cast::<32, 8>(self.sink.level.val());
        }
        if self.sel.q.val().get_bit(17) {
            self.rd_acc.next = self.rd_acc.val() | self.sink.head_addr_lo.val();
        }
        if self.sel.q.val().get_bit(18) {
            self.rd_acc.next = self.rd_acc.val() | self.sink.head_addr_hi_prot.val();
        }
        if self.sel.q.val().get_bit(19) {
            self.rd_acc.next = self.rd_acc.val() | self.sink.head_data.val();
        }
        if self.sel.q.val().get_bit(21) {
            self.rd_acc.next = self.rd_acc.val() | bit_cast::<32, 16>(self.msi_aw_delay.q.val());
        }
        if self.sel.q.val().get_bit(22) {
            self.rd_acc.next = self.rd_acc.val() | bit_cast::<32, 16>(self.msi_w_delay.q.val());
        }
        if self.sel.q.val().get_bit(23) {
            self.rd_acc.next = self.rd_acc.val() | bit_cast::<32, 16>(self.msi_b_delay.q.val());
        }
        if self.sel.q.val().get_bit(24) {
            self.rd_acc.next = self.rd_acc.val() | bit_cast::<32, 2>(self.msi_resp.q.val());
        }
        for l in 0..self.lanes.len() {
            if self.lane_sel[l].q.val().get_bit(0) {
                self.rd_acc.next = self.rd_acc.val() | self.lane_events[l].q.val();
            }
            if self.lane_sel[l].q.val().get_bit(1) {
                self.rd_acc.next = self.rd_acc.val() | self.lane_sid_base[l].q.val();
            }
            if self.lane_sel[l].q.val().get_bit(2) {
                self.rd_acc.next = self.rd_acc.val() | self.lane_sid_mask[l].q.val();
            }
            if self.lane_sel[l].q.val().get_bit(3) {
                self.rd_acc.next = self.rd_acc.val() | self.lane_mode[l].q.val();
            }
            if self.lane_sel[l].q.val().get_bit(4) {
                self.rd_acc.next = self.rd_acc.val() | self.lane_rate[l].q.val();
            }
            if self.lane_sel[l].q.val().get_bit(5) {
                self.rd_acc.next = self.rd_acc.val() | self.lane_burst[l].q.val();
            }
            if self.lane_sel[l].q.val().get_bit(6) {
                self.rd_acc.next = self.rd_acc.val() | self.lane_seed[l].q.val();
            }
            if self.lane_sel[l].q.val().get_bit(7) {
                self.rd_acc.next = self.rd_acc.val() | self.lanes[l].busy_word.val();
            }
        }
        self.board_rdata.d.next = self.rd_acc.val();
        // The bus's answer: the PMCG's APB or the board block (ready at once).
        self.bridge.bus_ready.next = true;
        // Unmapped addresses read 0.
        self.bridge.bus_rdata.next = 0.into();
        if self.is_board.q.val() {
            self.bridge.bus_rdata.next = self.board_rdata.q.val();
        }
        if self.is_pmcg.q.val() {
            self.bridge.bus_ready.next = self.pmcg.pready.val();
            self.bridge.bus_rdata.next = self.pmcg.prdata.val();
        }
        // Counters.
        self.cycles.d.next = self.cycles.q.val() + 1;
        if self.pmcg.irq.val() {
            self.irq_count.d.next = self.irq_count.q.val() + 1;
        }
        if self.bridge.timed_out.val() {
            self.timed_out.d.next = true;
        }
        // LED stretchers.
        if self.led_irq.q.val() != 0 {
            self.led_irq.d.next = self.led_irq.q.val() - 1;
        }
        if self.led_msi.q.val() != 0 {
            self.led_msi.d.next = self.led_msi.q.val() - 1;
        }
        if self.led_ovf.q.val() != 0 {
            self.led_ovf.d.next = self.led_ovf.q.val() - 1;
        }
        if self.led_rx.q.val() != 0 {
            self.led_rx.d.next = self.led_rx.q.val() - 1;
        }
        if self.pmcg.irq.val() {
            self.led_irq.d.next = self.stretch.val();
        }
        if self.sink.completed.val() {
            self.led_msi.d.next = self.stretch.val();
        }
        self.ovf_any.d.next = self.pmcg.ovf_export.val().any();
        if self.ovf_any.q.val() {
            self.led_ovf.d.next = self.stretch.val();
        }
        if self.rx.valid.val() {
            self.led_rx.d.next = self.stretch.val();
        }
        if self.rst.q.val() {
            self.capt_req.d.next = false;
            self.apb_ns.d.next = true;
            self.apb_pnse.d.next = false;
            self.msi_aw_delay.d.next = 0.into();
            self.msi_w_delay.d.next = 0.into();
            self.msi_b_delay.d.next = 0.into();
            self.msi_resp.d.next = 0.into();
            self.pmcg_rst.d.next = false;
        }
        self.leds.next =
            bit_cast::<8, 1>(((self.cycles.q.val() & self.heartbeat.val()) != 0).into())
                | (bit_cast::<8, 1>((self.led_irq.q.val() != 0).into()) << 1)
                | (bit_cast::<8, 1>((self.led_msi.q.val() != 0).into()) << 2)
                | (bit_cast::<8, 1>((self.led_ovf.q.val() != 0).into()) << 3)
                | (bit_cast::<8, 1>(self.any_busy.val().into()) << 4)
                | (bit_cast::<8, 1>((self.led_rx.q.val() != 0).into()) << 5)
                | (bit_cast::<8, 1>(self.bridge.active.val().into()) << 6)
                | (bit_cast::<8, 1>(self.rst.q.val().into()) << 7);
    }
}
