//! The board's address map as seen through the UART bridge (byte addresses; the bridge's word
//! address times 4). The single source of the board registers' offsets: the HDL
//! ([`crate::board`]) decodes these word indices, the host ([`crate::host`]) and `csr.csv` use
//! these names.
//!
//! ```text
//!   0x0000_0000 ┬ PMCG page 0 (0x000-0xFFF): a register's bridge address is its architectural offset
//!               ├ PMCG page 1 at page1_offset (below BOARD_BASE); the PMCG's window is
//!               │ page1_offset + 4 KiB rounded up to a power of two (0x20000 by default)
//!   0x0010_0000 ┼ board block (1 KiB of 32-bit words, index = (addr - BOARD_BASE) / 4):
//!               │   0x00-0x07 ID / info      0x08-0x0C control, status, IRQ/MSI/cycle counts
//!               │   0x10-0x18 MSI sink       0x20 + 8 * lane: traffic generator lane
//!   elsewhere   ┴ unmapped: reads 0, writes ignored
//! ```

/// Byte address of the board block; the PMCG's window (`RegisterMap::addr_mask`) must lie below it.
pub const BOARD_BASE: u32 = 0x0010_0000;
/// Size of the board block in bytes.
pub const BOARD_SIZE: u32 = 0x1000;

/// One board register: word index in the board block, name, access, description.
#[derive(Clone, Copy, Debug)]
pub struct BoardReg {
    pub index: u32,
    pub name: &'static str,
    pub access: &'static str,
    pub doc: &'static str,
}

impl BoardReg {
    /// Its bridge byte address.
    pub const fn addr(&self) -> u32 {
        BOARD_BASE + 4 * self.index
    }
}

macro_rules! regs {
    ($($id:ident = $index:expr, $access:expr, $doc:expr;)*) => {
        $(pub const $id: BoardReg = BoardReg { index: $index, name: stringify!($id), access: $access, doc: $doc };)*
        /// Every fixed board register (lane registers: [`lane_regs`]).
        pub const FIXED_REGS: &[BoardReg] = &[$($id),*];
    };
}

regs! {
    ID = 0x00, "ro", "0x504D4347 (\"PMCG\")";
    VERSION = 0x01, "ro", "board map version";
    CONFIG0 = 0x02, "ro", "counters [7:0], counter_bits [15:8], lanes [19:16], sid_bits [29:24]";
    CONFIG1 = 0x03, "ro", "capture 0, msi 1, secure 2, realm 3, mpam_filter 4, msi_mpam 5, reloc_ctrs 6, global filter 7, ats 8, filter_tables 9; pa_bits [23:16]";
    PAGE1 = 0x04, "ro", "page1_offset";
    BUILD_HASH = 0x05, "ro", "first 32 bits of SHA-256 of the configuration summary and register map hash";
    CLOCK_HZ = 0x06, "ro", "the PMCG clock in Hz";
    CLOCKS_PER_BIT = 0x07, "ro", "UART clocks per bit";
    CTRL = 0x08, "rw", "bit 0: write 1 resets the PMCG for one cycle (reads 0); bit 1: CAPT_REQ level; bit 2: PPROT[1] of bridge accesses (1 Non-secure, reset 1); bit 3: PNSE";
    STATUS = 0x09, "ro", "bit 0 CAPT_ACK, bit 1 a traffic lane busy, bit 2 MSI FIFO overflowed (sticky), bit 3 a bridge command timed out (sticky)";
    IRQ_COUNT = 0x0A, "ro", "wired-interrupt pulses since power-up (wraps)";
    MSI_COUNT = 0x0B, "ro", "MSI writes completed since power-up (wraps)";
    CYCLES = 0x0C, "ro", "PMCG clock cycles since power-up (wraps)";
    MSI_LEVEL = 0x10, "ro", "MSI FIFO entries (0-16)";
    MSI_ADDR_LO = 0x11, "ro", "FIFO head: AWADDR [31:0]";
    MSI_ADDR_HI = 0x12, "ro", "FIFO head: AWADDR [55:32] in [23:0], AWPROT in [30:28]";
    MSI_DATA = 0x13, "ro", "FIFO head: WDATA";
    MSI_POP = 0x14, "wo", "any write drops the FIFO head";
    MSI_AW_DELAY = 0x15, "rw", "AWREADY after AWVALID was high this many cycles";
    MSI_W_DELAY = 0x16, "rw", "WREADY after WVALID was high this many cycles";
    MSI_B_DELAY = 0x17, "rw", "BVALID this many cycles after both handshakes";
    MSI_RESP = 0x18, "rw", "BRESP: 0 OKAY, 2 SLVERR, 3 DECERR";
}

/// Board map version (CONFIG words, register meanings).
pub const MAP_VERSION: u32 = 1;
/// Value of [`ID`].
pub const ID_VALUE: u32 = 0x504D_4347;

/// CTRL bits.
pub const CTRL_PMCG_RESET: u32 = 1 << 0;
pub const CTRL_CAPT_REQ: u32 = 1 << 1;
pub const CTRL_NS: u32 = 1 << 2;
pub const CTRL_PNSE: u32 = 1 << 3;
/// STATUS bits.
pub const STATUS_CAPT_ACK: u32 = 1 << 0;
pub const STATUS_TRAFFIC_BUSY: u32 = 1 << 1;
pub const STATUS_MSI_OVERFLOW: u32 = 1 << 2;
pub const STATUS_TIMED_OUT: u32 = 1 << 3;

/// First word index of the traffic generator's lanes, and words per lane.
pub const LANE_BASE: u32 = 0x20;
pub const LANE_STRIDE: u32 = 8;

/// Registers of traffic lane `lane`, by offset within the lane's 8 words.
pub mod lane {
    pub const EVENTS: u32 = 0;
    pub const SID_BASE: u32 = 1;
    pub const SID_MASK: u32 = 2;
    /// [1:0] pattern (0 fixed, 1 counting, 2 LFSR), [6:4] security state, [7] NoStreamID.
    pub const MODE: u32 = 3;
    /// 2^k - 1: one event every 2^k cycles of the burst (16 bits).
    pub const RATE_MASK: u32 = 4;
    pub const BURST: u32 = 5;
    pub const SEED: u32 = 6;
    /// Write: bit 0 start, bit 1 stop. Read: bit 0 busy.
    pub const CTRL: u32 = 7;
    pub const NAMES: [&str; 8] = [
        "EVENTS",
        "SID_BASE",
        "SID_MASK",
        "MODE",
        "RATE_MASK",
        "BURST",
        "SEED",
        "CTRL",
    ];
}

/// Bridge byte address of lane register `reg` (a [`lane`] offset) of lane `l`.
pub const fn lane_addr(l: u32, reg: u32) -> u32 {
    BOARD_BASE + 4 * (LANE_BASE + LANE_STRIDE * l + reg)
}

/// (name, bridge address) of every lane register of `lanes` lanes.
pub fn lane_regs(lanes: u32) -> Vec<(String, u32)> {
    (0..lanes)
        .flat_map(|l| {
            lane::NAMES
                .iter()
                .enumerate()
                .map(move |(i, n)| (format!("LANE{l}_{n}"), lane_addr(l, i as u32)))
        })
        .collect()
}
