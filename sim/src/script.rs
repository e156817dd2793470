//! The PMCG script runner: a register-level test script replayed on any [`Dut`] through the APB
//! [`Driver`], with expectations checked as it goes. This page is the reference of the script
//! format, which is part of the project's public interface.
//!
//! ```text
//!   script text ──parse()──► Script { config, lines: [(line no, Command)] }
//!   (.pmcg file)   │                     │
//!                  │ every line checked  │ run(script, driver, trace, out)
//!                  ▼ before anything     ▼
//!             ScriptError         Driver<D> ──apb_read/apb_write/idle/reset/set_lanes──► D: Dut
//!          ("line N: ...")           │  driver.msi: AXI4-Lite slave on the MSI master        │
//!                                    │  driver.capt_req: the external capture request        │
//!                                    ◄──── PRDATA, irq pulses, MSI writes, CAPT_ACK ◄────────┘
//!                                    ▼
//!              out: failures, trace, "N passed, M failed"  +  RunReport
//! ```
//!
//! # Format
//! One command per line. `#` starts a comment anywhere on a line; blank and comment-only lines are
//! ignored. Fields are separated by white space. Numbers are decimal (`42`) or hexadecimal with a
//! `0x` prefix (`0x2A`); `_` may separate digits (`0xFFFF_FFFF`); signs are not allowed.
//! Keywords are lower case. Line numbers count from 1 and include comment and blank lines.
//! The text is UTF-8 ([`decode_text`] names the line of a byte that is not); a byte-order mark at
//! the start is skipped and `\n`, `\r\n` and a lone `\r` each end a line ([`text_lines`]).
//!
//! | Command | Meaning |
//! |---|---|
//! | `config [KEY=VALUE ...]` | The configuration (must be the first command, exactly once). |
//! | `write ADDR VALUE [s\|ns\|root\|realm]` | One 32-bit APB write. |
//! | `read ADDR [expect VALUE [mask MASK]] [s\|ns\|root\|realm]` | One 32-bit APB read, optionally checked. |
//! | `write64 ADDR VALUE [s\|ns\|root\|realm]` | Two APB writes: low word at ADDR, then high word at ADDR+4. |
//! | `read64 ADDR [expect VALUE [mask MASK]] [s\|ns\|root\|realm]` | Two APB reads: low word at ADDR, then high word at ADDR+4. |
//! | `event [lane=N] [sid=V\|none] [ss=ns\|s\|realm\|root\|sa\|nsp] [partid=P] [pmg=G] [mpam_sp=s\|ns\|root\|realm] ids=E[,E...] [cycles=N]` | Events on one lane (`sid=none`: NoStreamID accesses, 10.4.2; MPAM inputs default 0, 0, ns). |
//! | `idle N` | N cycles with the bus and every lane idle. |
//! | `reset` | PRESETn low for one cycle, then released. |
//! | `expect irq N` | N wired-interrupt pulses since the previous `expect irq` (or the start). |
//! | `expect msi N [addr=A] [data=D]` | N MSI writes completed since the previous `expect msi` (or the start); `addr`/`data` check every one of them. |
//! | `msi_slave [aw=N] [w=N] [b=N] [resp=okay\|slverr\|decerr]` | The AXI4-Lite slave that answers MSI writes: AWREADY after AWVALID was high N cycles, WREADY likewise, BVALID N cycles after both, with BRESP `resp` (missing keys: 0, 0, 0, okay, the default slave). No cycle passes. |
//! | `capt_req 0\|1` | The level driven on the external capture request CAPT_REQ from the next cycle on. No cycle passes. |
//! | `capture_request` | A full 4-phase handshake on CAPT_REQ/CAPT_ACK (an expectation, see below). |
//!
//! ## `config`
//! Keys: those of the configuration key table,
//! [`CONFIG_KEYS`](pmcg_hdl::config::CONFIG_KEYS) in `regs/src/config.rs` (each key's values,
//! default, register and meaning; README.md's "Configuration keys" is generated from it), with the
//! values [`PmcgConfig::set`] accepts. Missing keys
//! take the defaults of [`PmcgConfig::default`]; `config` alone is the default configuration. A key
//! given twice, an unknown key, an item without `=` or a value that fails
//! [`PmcgConfig::validate`] is an error naming the line and the key. The caller builds the backend
//! and its [`Driver`] from [`Script::config`] (with `config.lanes` lanes). The CLI (`smmu-pmcg
//! sim`) holds PRESETn low for one cycle before the first command, not numbered, so a script
//! starts from the reset state; an explicit `reset` is still allowed.
//!
//! ## APB accesses
//! - ADDR is a byte address that must fit 32 bits (for the 64-bit forms ADDR+4 must too). The low two
//!   bits are passed to the DUT as written (the PMCG ignores them).
//! - VALUE and MASK fit 32 bits for `write`/`read` and 64 bits for `write64`/`read64`.
//! - `s` makes a Secure access (PPROT\[1\] = 0), `ns` (the default) a Non-secure one (PPROT\[1\] = 1),
//!   `root` and `realm` a Root or Realm one (APB5 PNSE = 1 with PPROT\[1\] = 0 or 1; the same
//!   keywords work on every access command).
//!   The security keyword is the last field of the line.
//! - `read ... expect VALUE` passes when the value read equals VALUE; with `mask MASK` it passes when
//!   `(actual & MASK) == (VALUE & MASK)`. `mask` is only allowed after `expect VALUE`.
//! - `read64`/`write64` are two ordinary transfers, low word first (as a 64-bit load or store is
//!   split by an interconnect), so a `read64` of a counter returns the PMCG's atomic snapshot.
//! - Every write is a full word (PSTRB = 0xF). PSLVERR is not an expectation; it shows in the trace.
//!
//! ## `event`
//! Drives one lane for `cycles` consecutive cycles (default 1) with valid = 1, the event vector made
//! of the bits [`PmcgConfig::lane_bit_of`] gives for `ids`, StreamID `sid` (default 0, any 32-bit
//! value) and security state `ss` (default `ns`) on lane `lane` (default 0, must be below `lanes`);
//! every other lane is idle and so is the APB bus. Afterwards every lane is idle again (valid = 0).
//! Keys may come in any order, each at most once; `ids` is required.
//! - Every ID must be a lane event of the configuration (1-5, 6-7 with `ats=on`, the `impdef` IDs);
//!   an ID listed twice is an error (one lane carries an event at most once per cycle).
//! - `ids=0` is an error: event 0 is the cycle event, which a counter with EVTYPER.EVENT = 0 counts
//!   every cycle by itself; it cannot be raised on a lane (use `idle N` to let cycles pass).
//! - `sid` must fit the configuration's `sid_bits` (a wider StreamID would be cut by the lane
//!   port, silently).
//! - `cycles=0` is an error (an `event` that drives nothing is almost certainly a mistake), and so
//!   is `idle 0`. Both counts are at most 0xFFFF_FFFF.
//! - Successive `event` lines run one after the other, each for its own cycles, never at the same
//!   time, even on different lanes.
//!
//! **Timing** (docs/behaviour.md): lane inputs presented in cycle e are counted at edge e+2 and
//! are visible to a read performed in cycle e+3 or later (its first access cycle). A `read`
//! issued right after an `event` line has its setup cycle at e_last+1 and its first access cycle
//! at e_last+2, so it sees every event of the line but the last cycle's; one `idle 1` between
//! them makes it see all. A write takes two cycles (setup, access with PREADY = 1) and takes
//! effect at the edge that ends its access cycle. A read takes three (setup; the first access
//! cycle, the wait state with PREADY = 0, in which it is performed: it returns the register state
//! of that cycle; the second access cycle with PREADY = 1 and the value on PRDATA).
//!
//! ## MSI writes and the capture request
//! The [`Driver`] carries an AXI4-Lite slave on the PMCG's MSI write master (`driver.msi`, an
//! [`MsiResponder`](crate::axi::MsiResponder)); it answers every MSI and checks the master's side of
//! the protocol (VALID held until READY with a stable payload, one write at a time).
//! - `msi_slave aw=A w=W b=B resp=R` sets its delays and response: AWREADY rises once AWVALID has
//!   been high for A cycles (0: AWREADY is already high when AWVALID rises), WREADY likewise
//!   after W cycles of WVALID, and BVALID rises B cycles after the later of the two handshakes,
//!   with BRESP R (`okay` 0b00, `slverr` 0b10, `decerr` 0b11). Keys may come in any order, each at
//!   most once; N is at most 0xFFFF_FFFF. The new setting applies from the next cycle on (set it
//!   while no MSI is in flight for exact timing). Every run starts with the driver's slave as it
//!   is (a fresh [`Driver`] has the default: always ready, OKAY in the cycle after both
//!   handshakes).
//! - `capt_req 1` / `capt_req 0` sets the level of CAPT_REQ from the next cycle on (it stays until
//!   changed; `reset` does not change it). Any pattern is legal input.
//! - `capture_request` performs one 4-phase handshake: CAPT_REQ = 1 until CAPT_ACK = 1 is seen
//!   (within 8 cycles), then CAPT_REQ = 0 until CAPT_ACK = 0 is seen (within 8 cycles). On a PMCG
//!   with capture (docs/behaviour.md) CAPT_REQ rising in cycle r captures at edge r+1, CAPT_ACK is
//!   1 from cycle r+2, and the command takes 6 cycles: r..r+2 with CAPT_REQ = 1, r+3..r+5 with
//!   CAPT_REQ = 0 (CAPT_ACK falls at edge r+4). It is an expectation: it passes when CAPT_ACK
//!   rose and fell, and fails (`CAPT_ACK did not rise ...`) otherwise, e.g. without capture, where
//!   CAPT_ACK stays 0; CAPT_REQ is 0 after it either way.
//!
//! ## Expectations and results
//! `read ... expect`, `read64 ... expect`, `expect irq`, `expect msi` and `capture_request` are
//! expectations. A failed one prints `FAIL line N: ...` with the expected and actual values
//! (register values in hex, counts in decimal) and the run goes on. The last line printed is exactly `N passed, M failed`;
//! the run fails when M > 0 ([`RunReport::ok`]).
//! - `expect irq N` compares the number of cycles in which the `irq` output was 1 since the
//!   previous `expect irq` (or the start of the run). An overflow at edge t pulses irq in cycle t+1,
//!   which is only seen once cycle t+1 has been run.
//! - `expect msi N [addr=A] [data=D]` takes the MSI writes the driver's slave completed (write
//!   response accepted) since the previous `expect msi` (or the start of the run) and passes when
//!   there are N of them and every one has AWADDR A and WDATA D (when given). An MSI whose
//!   response is accepted at edge t is complete once cycle t has been run. Without MSI
//!   (`msi=off`) the count is always 0.
//! - **AXI protocol**: a violation the slave saw since the previous check fails the next
//!   `expect msi` as a further failure (`MSI write master broke the AXI protocol: ...`); violations
//!   seen after the last `expect msi` fail the run at its end (`end of script: ...`). So every
//!   script checks the MSI master's handshakes whether or not it expects MSIs.
//!
//! ## Errors
//! The whole script is parsed before anything runs. The first malformed line stops parsing with a
//! [`ScriptError`], displayed as `line N: message`: unknown command, missing or extra fields, bad
//! numbers, out-of-range values, bad `KEY=VALUE` items, `config` missing, not first or repeated,
//! lane out of range, empty or unknown event IDs, zero counts. A script with no command at all is
//! reported at line 1. A number too large for its field says so (`does not fit 32 bits (too
//! large)`), even beyond 64 bits; a token of the input quoted in a message is cut short past 64
//! characters ([`cut_long_tokens`]).
//!
//! Settings files (`--config FILE` of the CLI) follow the same line rules ([`parse_settings`]).
//!
//! ## Trace
//! With `trace`, every command prints the cycle it starts in as it runs, e.g.
//! `cycle 12: read 0x00e00 -> 0x00703f3f (ns)`, `cycle 15: write 0x00e04 <- 0x00000001 (s)`,
//! `cycle 17: event lane=0 sid=0x0 ss=ns ids=0x1 bits=0x00000001 cycles=10`, `cycle 27: idle 1`,
//! `cycle 0: reset`, and irq pulses as `cycle 62: irq pulse` (or `cycles A-B: N irq pulses` when they
//! happen within an APB access).
//!
//! ```text
//! # CFGR of a 4-counter configuration, then three events counted by counter 0.
//! config counters=4 lanes=2
//! read 0xE00 expect 0x00703F03
//! write 0x400 1                    # EVTYPER0.EVENT = 1 (filter: reset, ExactSID 0, Non-secure)
//! write 0xC00 1                    # CNTENSET0: counter 0
//! write 0xE04 1                    # CR.E
//! event lane=1 sid=0 ids=1 cycles=3
//! event lane=1 sid=0x12 ss=s ids=1 cycles=2   # another stream: filtered out
//! idle 1
//! read64 0x10000 expect 3          # EVCNTR0 (page 1)
//! expect irq 0
//! ```

use crate::axi::{RESP_DECERR, RESP_OKAY, RESP_SLVERR};
use crate::pins::{Access, Driver, Dut, LaneIn, MpamSpace, PinInputs, SecState};
use pmcg_hdl::config::{parse_number, PmcgConfig, CYCLE_EVENT};
use std::fmt;
use std::io::Write;

/// A parsed script: the configuration from its `config` line and every later command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script {
    /// The validated configuration of the `config` line.
    pub config: PmcgConfig,
    /// Line number of the `config` line.
    pub config_line: usize,
    /// Every command after `config`, with its line number (from 1), in script order.
    pub lines: Vec<(usize, Command)>,
}

impl Script {
    /// The cycles the script takes to run (`capture_request` counted at its longest), for a
    /// progress display.
    pub fn cycles(&self) -> u64 {
        self.lines
            .iter()
            .map(|(_, c)| match c {
                // A read has one wait state (docs/behaviour.md "APB4 completer").
                Command::Write { .. } => 2,
                Command::Read { .. } => 3,
                Command::Write64 { .. } => 4,
                Command::Read64 { .. } => 6,
                Command::Event { cycles, .. } => *cycles,
                Command::Idle(n) => *n,
                Command::Reset => 1,
                Command::CaptureRequest => 2 * CAPT_ACK_TIMEOUT as u64,
                Command::ExpectIrq(_)
                | Command::ExpectMsi { .. }
                | Command::MsiSlave { .. }
                | Command::CaptReq(_) => 0,
            })
            .sum()
    }
}

/// An expected value: passes when `(actual & mask) == (value & mask)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expectation {
    pub value: u64,
    /// All ones over the access width when the line has no `mask`.
    pub mask: u64,
}

impl Expectation {
    fn matches(&self, actual: u64) -> bool {
        actual & self.mask == self.value & self.mask
    }
}

/// One command of a script (the `config` line is [`Script::config`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `write ADDR VALUE [s|ns]`.
    Write {
        addr: u32,
        value: u32,
        access: Access,
    },
    /// `read ADDR [expect VALUE [mask MASK]] [s|ns]`.
    Read {
        addr: u32,
        expect: Option<Expectation>,
        access: Access,
    },
    /// `write64 ADDR VALUE [s|ns]`: low word at ADDR, then high word at ADDR + 4.
    Write64 {
        addr: u32,
        value: u64,
        access: Access,
    },
    /// `read64 ADDR [expect VALUE [mask MASK]] [s|ns]`: low word at ADDR, then high at ADDR + 4.
    Read64 {
        addr: u32,
        expect: Option<Expectation>,
        access: Access,
    },
    /// `event [lane=N] [sid=V|none] [ss=ns|s|realm] ids=E[,E...] [cycles=N]`.
    Event {
        lane: u32,
        sid: u32,
        /// `sid=none`: NoStreamID accesses (10.4.2).
        nosid: bool,
        ss: SecState,
        /// MPAM inputs (10.4.3): PARTID, PMG, PARTID space.
        partid: u16,
        pmg: u8,
        mpam_sp: MpamSpace,
        /// The event numbers as written.
        ids: Vec<u16>,
        /// The lane event vector they map to (bit `lane_bit_of(id)` per ID).
        bits: u32,
        /// At least 1.
        cycles: u64,
    },
    /// `idle N` (N at least 1).
    Idle(u64),
    /// `reset`: PRESETn low for one cycle.
    Reset,
    /// `expect irq N`.
    ExpectIrq(u64),
    /// `expect msi N [addr=A] [data=D]`.
    ExpectMsi {
        count: u64,
        addr: Option<u64>,
        data: Option<u32>,
    },
    /// `msi_slave [aw=N] [w=N] [b=N] [resp=okay|slverr|decerr]`: the MSI slave's delays and BRESP.
    MsiSlave { aw: u32, w: u32, b: u32, resp: u8 },
    /// `capt_req 0|1`: the level on CAPT_REQ from the next cycle on.
    CaptReq(bool),
    /// `capture_request`: one 4-phase CAPT_REQ/CAPT_ACK handshake.
    CaptureRequest,
}

/// A malformed script: the line (from 1) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ScriptError {}

impl ScriptError {
    /// An error at `line`; over-long input tokens quoted in `message` are cut short.
    pub fn new(line: usize, message: String) -> Self {
        ScriptError {
            line,
            message: cut_long_tokens(&message),
        }
    }
}

/// Outcome of [`run`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunReport {
    /// Expectations that held.
    pub passed: u32,
    /// Expectations that did not hold.
    pub failed: u32,
    /// One message per failed expectation, `line N: ...`, in order.
    pub failures: Vec<String>,
    /// Cycles the script ran (the driver's cycle count at the end minus at the start).
    pub cycles: u64,
}

impl RunReport {
    /// The run succeeded: no expectation failed.
    pub fn ok(&self) -> bool {
        self.failed == 0
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/// Parses a whole script. Every line is checked before anything runs; the first malformed line is
/// returned as a [`ScriptError`].
pub fn parse(text: &str) -> Result<Script, ScriptError> {
    let mut config: Option<(usize, PmcgConfig)> = None;
    let mut lines = Vec::new();
    for (line, raw) in text_lines(text) {
        let code = raw.split('#').next().unwrap_or("");
        let words: Vec<&str> = code.split_whitespace().collect();
        let Some(&command) = words.first() else {
            continue;
        };
        let error = |message: String| ScriptError::new(line, message);
        match (&config, command) {
            (None, "config") => config = Some((line, parse_config(&words[1..]).map_err(error)?)),
            (Some((first, _)), "config") => {
                return Err(error(format!(
                    "`config` may appear only once, as the first command (it is at line {first})"
                )))
            }
            (None, _) => {
                return Err(error(format!(
                    "the first command must be `config`, got `{command}`"
                )))
            }
            (Some((_, cfg)), _) => lines.push((line, parse_command(&words, cfg).map_err(error)?)),
        }
    }
    let (config_line, config) = config.ok_or_else(|| ScriptError {
        line: 1,
        message: "the script has no commands; the first must be `config`".to_string(),
    })?;
    Ok(Script {
        config,
        config_line,
        lines,
    })
}

/// The numbered lines (from 1) of a script or settings file: a UTF-8 byte-order mark at the start
/// is skipped, and `\n`, `\r\n` and a lone `\r` each end a line (files from any editor read
/// alike).
pub fn text_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut line = 0;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        line += 1;
        let (this, next) = match rest.find(['\n', '\r']) {
            Some(i) if rest[i..].starts_with("\r\n") => (&rest[..i], &rest[i + 2..]),
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        rest = next;
        Some((line, this))
    })
}

/// The text of a script or settings file read as bytes: UTF-8 (a byte-order mark allowed), else
/// an error naming the line of the first byte that is not.
pub fn decode_text(bytes: Vec<u8>) -> Result<String, ScriptError> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        // Line terminators before the bad byte: `\n`, and `\r` not followed by `\n`.
        let ends = valid
            .iter()
            .enumerate()
            .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && valid.get(i + 1) != Some(&b'\n')))
            .count();
        ScriptError {
            line: ends + 1,
            message: format!(
                "not UTF-8 text (byte {:#x} at offset {})",
                e.as_bytes()[valid.len()],
                valid.len()
            ),
        }
    })
}

/// Longest run of characters a message quotes from the input as it is; longer runs are cut.
const LONGEST_ECHO: usize = 64;

/// `message` with every run of more than [`LONGEST_ECHO`] characters without white space or
/// backquotes cut short, and control and bidirectional-formatting characters escaped (`\u{1b}`):
/// messages quote the input's tokens, which may be of any length and must not drive the terminal.
pub fn cut_long_tokens(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4 * LONGEST_ECHO));
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        let n = run.chars().count();
        if n > LONGEST_ECHO {
            out.extend(run.chars().take(LONGEST_ECHO - 16));
            out.push_str(&format!("... ({n} characters)"));
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in message.chars() {
        let escaped = c.is_control() || is_bidi_control(c);
        if c == '`' || (c.is_whitespace() && !escaped) {
            flush(&mut run, &mut out);
            out.push(c);
        } else if escaped {
            run.extend(c.escape_unicode());
        } else {
            run.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Unicode characters that reorder the text around them on a terminal (U+202A-U+202E,
/// U+2066-U+2069), and the byte-order mark.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Parses a settings file (`--config FILE` of `gen`, `synth` and `timing`): `KEY=VALUE` items
/// separated by white space or lines, `#` comments, and any `config` word ignored (so a script's
/// `config` line can be pasted). Returns the items with their line numbers; an item without `=`
/// or a key given twice is an error naming the line. Keys and values are checked by
/// [`PmcgConfig::parse_kv`].
pub fn parse_settings(text: &str) -> Result<Vec<(usize, String)>, ScriptError> {
    let mut items: Vec<(usize, String)> = Vec::new();
    for (line, raw) in text_lines(text) {
        let code = raw.split('#').next().unwrap_or("");
        for item in code.split_whitespace().filter(|w| *w != "config") {
            let (key, _) = key_value(item, "config").map_err(|m| ScriptError::new(line, m))?;
            if let Some((first, _)) = items
                .iter()
                .find(|(_, i)| i.split_once('=').map(|(k, _)| k) == Some(key))
            {
                return Err(ScriptError::new(
                    line,
                    format!("config: key `{key}` is given twice (first at line {first})"),
                ));
            }
            items.push((line, item.to_string()));
        }
    }
    Ok(items)
}

/// A number of at most `bits` bits (decimal or 0x-hex).
fn number(text: &str, what: &str, bits: u32) -> Result<u64, String> {
    let too_large = || format!("{what}: {text} does not fit {bits} bits (too large)");
    let value = match parse_number(text) {
        Some(v) if text.starts_with(|c: char| c.is_ascii_digit()) => v,
        _ if is_numeral(text) => return Err(too_large()), // digits that overflow 64 bits
        _ => {
            return Err(format!(
                "{what}: `{text}` is not a number (decimal or 0x-hex)"
            ))
        }
    };
    if bits < 64 && value >> bits != 0 {
        return Err(too_large());
    }
    Ok(value)
}

/// `text` is written as a number (decimal, or 0x-hex, `_` between digits allowed) whatever its
/// size.
fn is_numeral(text: &str) -> bool {
    let (digits, radix) = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (text, 10),
    };
    digits.chars().any(|c| c.is_digit(radix))
        && digits.chars().all(|c| c == '_' || c.is_digit(radix))
}

fn key_value<'a>(item: &'a str, context: &str) -> Result<(&'a str, &'a str), String> {
    match item.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k, v)),
        _ => Err(format!("{context}: expected KEY=VALUE, got `{item}`")),
    }
}

fn parse_config(items: &[&str]) -> Result<PmcgConfig, String> {
    let mut cfg = PmcgConfig::default();
    let mut seen: Vec<&str> = Vec::new();
    for item in items {
        let (key, value) = key_value(item, "config")?;
        if seen.contains(&key) {
            return Err(format!("config: key `{key}` is given twice"));
        }
        seen.push(key);
        cfg.set(key, value).map_err(|e| e.to_string())?;
    }
    cfg.validate().map_err(|e| e.to_string())?;
    Ok(cfg)
}

const COMMANDS: &str = "config, write, read, write64, read64, event, idle, reset, expect, \
                        msi_slave, capt_req, capture_request";

fn parse_command(words: &[&str], cfg: &PmcgConfig) -> Result<Command, String> {
    let args = &words[1..];
    match words[0] {
        "write" => {
            let (addr, value, access) = parse_write(args, "write", 32)?;
            Ok(Command::Write {
                addr,
                value: value as u32,
                access,
            })
        }
        "write64" => {
            let (addr, value, access) = parse_write(args, "write64", 64)?;
            Ok(Command::Write64 {
                addr,
                value,
                access,
            })
        }
        "read" => {
            let (addr, expect, access) = parse_read(args, "read", 32)?;
            Ok(Command::Read {
                addr,
                expect,
                access,
            })
        }
        "read64" => {
            let (addr, expect, access) = parse_read(args, "read64", 64)?;
            Ok(Command::Read64 {
                addr,
                expect,
                access,
            })
        }
        "event" => parse_event(args, cfg),
        "idle" => match args {
            [n] => Ok(Command::Idle(count(n, "idle: N")?)),
            [] => Err("idle: missing the number of cycles (idle N)".into()),
            [_, extra, ..] => Err(format!("idle: unexpected argument `{extra}` (idle N)")),
        },
        "reset" => match args {
            [] => Ok(Command::Reset),
            [extra, ..] => Err(format!(
                "reset: unexpected argument `{extra}` (reset takes none)"
            )),
        },
        "expect" => parse_expect(args),
        "msi_slave" => parse_msi_slave(args),
        "capt_req" => match args {
            ["0"] => Ok(Command::CaptReq(false)),
            ["1"] => Ok(Command::CaptReq(true)),
            [] => Err("capt_req: missing the level (capt_req 0|1)".into()),
            [other] => Err(format!("capt_req: the level must be 0 or 1, got `{other}`")),
            [_, extra, ..] => Err(format!(
                "capt_req: unexpected argument `{extra}` (capt_req 0|1)"
            )),
        },
        "capture_request" => match args {
            [] => Ok(Command::CaptureRequest),
            [extra, ..] => Err(format!(
                "capture_request: unexpected argument `{extra}` (capture_request takes none)"
            )),
        },
        other => Err(format!("unknown command `{other}` (commands: {COMMANDS})")),
    }
}

/// A cycle count: 1 to 0xFFFF_FFFF.
fn count(text: &str, what: &str) -> Result<u64, String> {
    let n = number(text, what, 32)?;
    if n == 0 {
        return Err(format!("{what}: must be at least 1"));
    }
    Ok(n)
}

/// Splits a trailing `s` / `ns` off the fields after the command.
fn split_access<'a, 'b>(args: &'b [&'a str]) -> (&'b [&'a str], Access) {
    match args.split_last() {
        Some((&"s", rest)) => (rest, Access::Secure),
        Some((&"ns", rest)) => (rest, Access::NonSecure),
        Some((&"root", rest)) => (rest, Access::Root),
        Some((&"realm", rest)) => (rest, Access::Realm),
        _ => (args, Access::NonSecure),
    }
}

fn parse_addr(text: &str, name: &str, bits: u32) -> Result<u32, String> {
    let addr = number(text, &format!("{name}: ADDR"), 32)? as u32;
    if bits == 64 && addr.checked_add(4).is_none() {
        return Err(format!("{name}: ADDR {text} + 4 does not fit 32 bits"));
    }
    Ok(addr)
}

fn parse_write(args: &[&str], name: &str, bits: u32) -> Result<(u32, u64, Access), String> {
    let usage = format!("{name} ADDR VALUE [s|ns]");
    let (fields, access) = split_access(args);
    match fields {
        [addr, value] => Ok((
            parse_addr(addr, name, bits)?,
            number(value, &format!("{name}: VALUE"), bits)?,
            access,
        )),
        [] => Err(format!("{name}: missing ADDR and VALUE ({usage})")),
        [_] => Err(format!("{name}: missing VALUE ({usage})")),
        [_, _, extra, ..] => Err(format!("{name}: unexpected argument `{extra}` ({usage})")),
    }
}

fn parse_read(
    args: &[&str],
    name: &str,
    bits: u32,
) -> Result<(u32, Option<Expectation>, Access), String> {
    let usage = format!("{name} ADDR [expect VALUE [mask MASK]] [s|ns]");
    let (fields, access) = split_access(args);
    let Some((addr, rest)) = fields.split_first() else {
        return Err(format!("{name}: missing ADDR ({usage})"));
    };
    let addr = parse_addr(addr, name, bits)?;
    let full = if bits == 64 {
        u64::MAX
    } else {
        u32::MAX as u64
    };
    let value = |t: &str| number(t, &format!("{name}: expected VALUE"), bits);
    let expect = match rest {
        [] => None,
        ["expect", v] => Some(Expectation {
            value: value(v)?,
            mask: full,
        }),
        ["expect", v, "mask", m] => Some(Expectation {
            value: value(v)?,
            mask: number(m, &format!("{name}: MASK"), bits)?,
        }),
        ["expect"] => return Err(format!("{name}: `expect` needs a VALUE ({usage})")),
        ["expect", _, "mask"] => return Err(format!("{name}: `mask` needs a MASK ({usage})")),
        ["mask", ..] => {
            return Err(format!(
                "{name}: `mask` must follow `expect VALUE` ({usage})"
            ))
        }
        ["expect", _, "mask", _, extra, ..] | ["expect", _, extra, ..] | [extra, ..] => {
            return Err(format!("{name}: unexpected argument `{extra}` ({usage})"))
        }
    };
    Ok((addr, expect, access))
}

fn parse_event(args: &[&str], cfg: &PmcgConfig) -> Result<Command, String> {
    let (mut lane, mut sid, mut ss, mut ids, mut cycles) = (None, None, None, None, None);
    let (mut partid, mut pmg, mut mpam_sp) = (None, None, None);
    for item in args {
        let (key, value) = key_value(item, "event")?;
        let slot_taken = match key {
            "lane" => lane.replace(value).is_some(),
            "sid" => sid.replace(value).is_some(),
            "ss" => ss.replace(value).is_some(),
            "ids" => ids.replace(value).is_some(),
            "cycles" => cycles.replace(value).is_some(),
            "partid" => partid.replace(value).is_some(),
            "pmg" => pmg.replace(value).is_some(),
            "mpam_sp" => mpam_sp.replace(value).is_some(),
            _ => {
                return Err(format!(
                    "event: unknown key `{key}` (keys: lane, sid, ss, ids, cycles, partid, pmg, mpam_sp)"
                ))
            }
        };
        if slot_taken {
            return Err(format!("event: key `{key}` is given twice"));
        }
    }
    let lane = match lane {
        Some(t) => {
            let n = number(t, "event: lane", 32)?;
            if n >= cfg.lanes as u64 {
                return Err(format!(
                    "event: lane {t} does not exist (the configuration has {} lane{}, 0-{})",
                    cfg.lanes,
                    if cfg.lanes == 1 { "" } else { "s" },
                    cfg.lanes - 1
                ));
            }
            n as u32
        }
        None => 0,
    };
    let (sid, nosid) = match sid {
        Some("none") => (0, true),
        Some(t) => {
            // A StreamID wider than the configuration's would be cut by the lane port.
            let sid = number(t, "event: sid", 32)?;
            if sid >> cfg.sid_bits != 0 {
                return Err(format!(
                    "event: sid {t} does not fit sid_bits={} (the configuration's StreamID width)",
                    cfg.sid_bits
                ));
            }
            (sid as u32, false)
        }
        None => (0, false),
    };
    let ss = match ss {
        None => SecState::NonSecure,
        Some(t) => *SecState::ALL
            .iter()
            .find(|s| s.name() == t)
            .ok_or_else(|| format!("event: ss must be ns, s, realm, root, sa or nsp, got `{t}`"))?,
    };
    let mpam_sp = match mpam_sp {
        None => MpamSpace::NonSecure,
        Some(t) => *MpamSpace::ALL
            .iter()
            .find(|s| s.name() == t)
            .ok_or_else(|| format!("event: mpam_sp must be s, ns, root or realm, got `{t}`"))?,
    };
    let partid = match partid {
        Some(t) => number(t, "event: partid", 16)? as u16,
        None => 0,
    };
    let pmg = match pmg {
        Some(t) => number(t, "event: pmg", 8)? as u8,
        None => 0,
    };
    let cycles = match cycles {
        Some(t) => count(t, "event: cycles")?,
        None => 1,
    };
    let ids_text = ids.ok_or("event: missing ids=E[,E...] (the events to raise)")?;
    if ids_text.is_empty() {
        return Err("event: ids is empty (ids=E[,E...])".into());
    }
    let (mut list, mut bits) = (Vec::new(), 0u32);
    for t in ids_text.split(',') {
        if t.is_empty() {
            return Err(format!("event: empty event ID in ids={ids_text}"));
        }
        let id = number(t, "event: ids", 16)? as u16;
        if id == CYCLE_EVENT {
            return Err(
                "event: event 0 is the cycle event; a counter with EVTYPER.EVENT=0 counts every \
                 cycle by itself and it cannot be raised on a lane (use `idle N` to let cycles pass)"
                    .into(),
            );
        }
        let bit = cfg.lane_bit_of(id).ok_or_else(|| {
            let known: Vec<String> = cfg
                .lane_event_ids()
                .iter()
                .map(|e| format!("{e:#x}"))
                .collect();
            format!(
                "event: {t} is not a lane event of this configuration (lane events: {})",
                known.join(",")
            )
        })?;
        if list.contains(&id) {
            return Err(format!("event: event {t} is listed twice in ids"));
        }
        list.push(id);
        bits |= 1 << bit;
    }
    Ok(Command::Event {
        lane,
        sid,
        nosid,
        ss,
        partid,
        pmg,
        mpam_sp,
        ids: list,
        bits,
        cycles,
    })
}

fn parse_msi_slave(args: &[&str]) -> Result<Command, String> {
    let (mut aw, mut w, mut b, mut resp) = (None, None, None, None);
    for item in args {
        let (key, value) = key_value(item, "msi_slave")?;
        let taken = match key {
            "aw" => aw.replace(number(value, "msi_slave: aw", 32)? as u32),
            "w" => w.replace(number(value, "msi_slave: w", 32)? as u32),
            "b" => b.replace(number(value, "msi_slave: b", 32)? as u32),
            "resp" => resp.replace(match value {
                "okay" => RESP_OKAY as u32,
                "slverr" => RESP_SLVERR as u32,
                "decerr" => RESP_DECERR as u32,
                _ => {
                    return Err(format!(
                        "msi_slave: resp must be okay, slverr or decerr, got `{value}`"
                    ))
                }
            }),
            _ => {
                return Err(format!(
                    "msi_slave: unknown key `{key}` (keys: aw, w, b, resp)"
                ))
            }
        }
        .is_some();
        if taken {
            return Err(format!("msi_slave: key `{key}` is given twice"));
        }
    }
    Ok(Command::MsiSlave {
        aw: aw.unwrap_or(0),
        w: w.unwrap_or(0),
        b: b.unwrap_or(0),
        resp: resp.unwrap_or(RESP_OKAY as u32) as u8,
    })
}

fn parse_expect(args: &[&str]) -> Result<Command, String> {
    match args {
        ["irq", n] => Ok(Command::ExpectIrq(number(n, "expect irq: N", 64)?)),
        ["irq"] => Err("expect irq: missing the number of pulses (expect irq N)".into()),
        ["irq", _, extra, ..] => Err(format!(
            "expect irq: unexpected argument `{extra}` (expect irq N)"
        )),
        ["msi"] => {
            Err("expect msi: missing the number of writes (expect msi N [addr=A] [data=D])".into())
        }
        ["msi", n, items @ ..] => {
            let count = number(n, "expect msi: N", 64)?;
            let (mut addr, mut data) = (None, None);
            for item in items {
                let (key, value) = key_value(item, "expect msi")?;
                let taken = match key {
                    "addr" => addr
                        .replace(number(value, "expect msi: addr", 64)?)
                        .is_some(),
                    "data" => data
                        .replace(number(value, "expect msi: data", 32)? as u32)
                        .is_some(),
                    _ => {
                        return Err(format!(
                            "expect msi: unknown key `{key}` (keys: addr, data)"
                        ))
                    }
                };
                if taken {
                    return Err(format!("expect msi: key `{key}` is given twice"));
                }
            }
            Ok(Command::ExpectMsi { count, addr, data })
        }
        [] => Err("expect: missing what to expect (expect irq N | expect msi N ...)".into()),
        [other, ..] => Err(format!(
            "expect: unknown expectation `{other}` (expect irq N | expect msi N ...)"
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

fn access_name(access: Access) -> &'static str {
    match access {
        Access::Secure => "s",
        Access::NonSecure => "ns",
        Access::Root => "root",
        Access::Realm => "realm",
    }
}

fn hex(value: u64, bits: u32) -> String {
    format!("{:#0w$x}", value, w = (bits / 4) as usize + 2)
}

/// Expectation bookkeeping and output of a run.
struct Runner<'a, D: Dut> {
    driver: &'a mut Driver<D>,
    out: &'a mut dyn Write,
    trace: bool,
    /// Trace lines show the lane's MPAM inputs (configurations with the MPAM filter).
    mpam_trace: bool,
    report: RunReport,
    /// The slave's completed MSI writes up to here were taken by an `expect msi` (or came before
    /// the run).
    msi_base: usize,
    /// The slave's protocol violations up to here have been reported (or came before the run).
    violations_base: usize,
    /// Told the cycles run so far, now and then (a progress display).
    progress: &'a mut dyn FnMut(u64),
    start: u64,
}

/// Cycles between two calls of the progress callback within one long command.
const PROGRESS_EVERY: u64 = 1 << 16;

/// Cycles `capture_request` waits for each CAPT_ACK transition.
const CAPT_ACK_TIMEOUT: u32 = 8;

impl<D: Dut> Runner<'_, D> {
    fn pass(&mut self) {
        self.report.passed += 1;
    }

    fn fail(&mut self, message: String) -> std::io::Result<()> {
        writeln!(self.out, "FAIL {message}")?;
        self.report.failed += 1;
        self.report.failures.push(message);
        Ok(())
    }

    fn check(
        &mut self,
        line: usize,
        what: String,
        expect: &Expectation,
        actual: u64,
        bits: u32,
    ) -> std::io::Result<()> {
        if expect.matches(actual) {
            self.pass();
            return Ok(());
        }
        let full = if bits == 64 {
            u64::MAX
        } else {
            u32::MAX as u64
        };
        let mask = if expect.mask == full {
            String::new()
        } else {
            format!(" (mask {})", hex(expect.mask, bits))
        };
        self.fail(format!(
            "line {line}: {what}: expected {}{mask}, got {}",
            hex(expect.value, bits),
            hex(actual, bits)
        ))
    }

    /// Runs `f` on the driver and traces the irq pulses it saw.
    fn cycles<T>(&mut self, f: impl FnOnce(&mut Driver<D>) -> T) -> std::io::Result<T> {
        let (start, pulses) = (self.driver.cycle, self.driver.irq_pulses);
        let result = f(self.driver);
        let seen = self.driver.irq_pulses - pulses;
        if self.trace && seen > 0 {
            let end = self.driver.cycle - 1;
            if start == end {
                writeln!(self.out, "cycle {start}: irq pulse")?;
            } else {
                let s = if seen == 1 { "" } else { "s" };
                writeln!(self.out, "cycles {start}-{end}: {seen} irq pulse{s}")?;
            }
        }
        Ok(result)
    }

    fn read(&mut self, addr: u32, access: Access) -> std::io::Result<u32> {
        let cycle = self.driver.cycle;
        let (value, slverr) = self.cycles(|d| d.apb_read_full(addr, access))?;
        if self.trace {
            let err = if slverr { " PSLVERR" } else { "" };
            let a = access_name(access);
            writeln!(
                self.out,
                "cycle {cycle}: read {addr:#07x} -> {value:#010x} ({a}){err}"
            )?;
        }
        Ok(value)
    }

    fn write(&mut self, addr: u32, value: u32, access: Access) -> std::io::Result<()> {
        let cycle = self.driver.cycle;
        let slverr = self.cycles(|d| d.apb_write(addr, value, access))?;
        if self.trace {
            let err = if slverr { " PSLVERR" } else { "" };
            let a = access_name(access);
            writeln!(
                self.out,
                "cycle {cycle}: write {addr:#07x} <- {value:#010x} ({a}){err}"
            )?;
        }
        Ok(())
    }

    fn idle(&mut self, n: u64) -> std::io::Result<()> {
        // One cycle at a time so that the trace gives the exact cycle of each irq pulse.
        for i in 0..n {
            self.cycles(|d| d.idle(1))?;
            if i % PROGRESS_EVERY == PROGRESS_EVERY - 1 {
                (self.progress)(self.driver.cycle - self.start);
            }
        }
        Ok(())
    }

    /// Fails once for the MSI protocol violations seen since the last report, if any.
    fn check_violations(&mut self, context: String) -> std::io::Result<()> {
        let new: Vec<String> = self.driver.msi.violations[self.violations_base..].to_vec();
        self.violations_base = self.driver.msi.violations.len();
        if new.is_empty() {
            return Ok(());
        }
        self.fail(format!(
            "{context}: MSI write master broke the AXI protocol: {}",
            new.join("; ")
        ))
    }

    /// Steps cycles with CAPT_REQ = `level` until CAPT_ACK = `level` is seen (at most
    /// [`CAPT_ACK_TIMEOUT`] cycles); returns the cycle it was seen in.
    fn capt_phase(&mut self, level: bool) -> std::io::Result<Option<u64>> {
        self.driver.capt_req = level;
        for _ in 0..CAPT_ACK_TIMEOUT {
            let cycle = self.driver.cycle;
            let out = self.cycles(|d| {
                let bus = PinInputs::idle(d.lanes());
                d.step_with(bus)
            })?;
            if out.capt_ack == level {
                return Ok(Some(cycle));
            }
        }
        Ok(None)
    }

    fn command(
        &mut self,
        line: usize,
        cmd: &Command,
        lanes: usize,
        irq_base: &mut u64,
    ) -> std::io::Result<()> {
        match cmd {
            Command::Write {
                addr,
                value,
                access,
            } => self.write(*addr, *value, *access)?,
            Command::Write64 {
                addr,
                value,
                access,
            } => {
                self.write(*addr, *value as u32, *access)?;
                self.write(addr + 4, (*value >> 32) as u32, *access)?;
            }
            Command::Read {
                addr,
                expect,
                access,
            } => {
                let value = self.read(*addr, *access)?;
                if let Some(e) = expect {
                    self.check(line, format!("read {addr:#07x}"), e, value as u64, 32)?;
                }
            }
            Command::Read64 {
                addr,
                expect,
                access,
            } => {
                let lo = self.read(*addr, *access)? as u64;
                let hi = self.read(addr + 4, *access)? as u64;
                if let Some(e) = expect {
                    let what = format!("read64 {addr:#07x}");
                    self.check(line, what, e, (hi << 32) | lo, 64)?;
                }
            }
            Command::Event {
                lane,
                sid,
                nosid,
                ss,
                partid,
                pmg,
                mpam_sp,
                ids,
                bits,
                cycles,
            } => {
                if self.trace {
                    let ids: Vec<String> = ids.iter().map(|e| format!("{e:#x}")).collect();
                    let sid = if *nosid {
                        "none".to_string()
                    } else {
                        format!("{sid:#x}")
                    };
                    writeln!(
                        self.out,
                        "cycle {}: event lane={lane} sid={sid} ss={}{} ids={} bits={bits:#010x} cycles={cycles}",
                        self.driver.cycle,
                        ss.name(),
                        if self.mpam_trace {
                            format!(" partid={partid:#x} pmg={pmg:#x} mpam_sp={}", mpam_sp.name())
                        } else {
                            String::new()
                        },
                        ids.join(",")
                    )?;
                }
                let mut inputs = vec![LaneIn::default(); lanes];
                inputs[*lane as usize] = LaneIn {
                    valid: true,
                    events: *bits,
                    sid: *sid,
                    ss: *ss,
                    nosid: *nosid,
                    partid: *partid,
                    pmg: *pmg,
                    mpam_sp: *mpam_sp,
                };
                self.driver.set_lanes(&inputs);
                self.idle(*cycles)?;
                self.driver.clear_lanes();
            }
            Command::Idle(n) => {
                if self.trace {
                    writeln!(self.out, "cycle {}: idle {n}", self.driver.cycle)?;
                }
                self.idle(*n)?;
            }
            Command::Reset => {
                if self.trace {
                    writeln!(self.out, "cycle {}: reset", self.driver.cycle)?;
                }
                self.cycles(|d| d.reset(1))?;
            }
            Command::ExpectIrq(n) => {
                let seen = self.driver.irq_pulses - *irq_base;
                *irq_base = self.driver.irq_pulses;
                if seen == *n {
                    self.pass();
                } else {
                    self.fail(format!(
                        "line {line}: expect irq: expected {n} pulse(s), got {seen}"
                    ))?;
                }
            }
            Command::ExpectMsi { count, addr, data } => {
                let writes: Vec<(u64, u32)> = self.driver.msi.completed[self.msi_base..]
                    .iter()
                    .map(|w| (w.addr, w.data))
                    .collect();
                self.msi_base = self.driver.msi.completed.len();
                let wrong = writes
                    .iter()
                    .any(|&(a, d)| addr.is_some_and(|x| x != a) || data.is_some_and(|x| x != d));
                if writes.len() as u64 == *count && !wrong {
                    self.pass();
                } else {
                    let mut expected = format!("{count} write(s)");
                    if let Some(a) = addr {
                        expected += &format!(" addr={a:#x}");
                    }
                    if let Some(d) = data {
                        expected += &format!(" data={d:#010x}");
                    }
                    let got: Vec<String> = writes
                        .iter()
                        .map(|(a, d)| format!("(addr={a:#x} data={d:#010x})"))
                        .collect();
                    self.fail(format!(
                        "line {line}: expect msi: expected {expected}, got {} write(s) [{}]",
                        writes.len(),
                        got.join(", ")
                    ))?;
                }
                self.check_violations(format!("line {line}"))?;
            }
            Command::MsiSlave { aw, w, b, resp } => {
                if self.trace {
                    let r = match *resp {
                        RESP_SLVERR => "slverr",
                        RESP_DECERR => "decerr",
                        _ => "okay",
                    };
                    writeln!(
                        self.out,
                        "cycle {}: msi_slave aw={aw} w={w} b={b} resp={r}",
                        self.driver.cycle
                    )?;
                }
                let slave = &mut self.driver.msi;
                (slave.aw_delay, slave.w_delay, slave.b_delay, slave.resp) = (*aw, *w, *b, *resp);
            }
            Command::CaptReq(level) => {
                if self.trace {
                    writeln!(
                        self.out,
                        "cycle {}: capt_req {}",
                        self.driver.cycle, *level as u8
                    )?;
                }
                self.driver.capt_req = *level;
            }
            Command::CaptureRequest => {
                let start = self.driver.cycle;
                let rose = self.capt_phase(true)?;
                let fell = match rose {
                    Some(_) => self.capt_phase(false)?,
                    None => {
                        self.driver.capt_req = false;
                        None
                    }
                };
                if self.trace {
                    let what = match (rose, fell) {
                        (Some(r), Some(f)) => {
                            format!("CAPT_ACK rose in cycle {r} and fell in cycle {f}")
                        }
                        (Some(r), None) => format!("CAPT_ACK rose in cycle {r} and did not fall"),
                        _ => "CAPT_ACK did not rise".to_string(),
                    };
                    writeln!(self.out, "cycle {start}: capture_request: {what}")?;
                }
                match (rose, fell) {
                    (Some(_), Some(_)) => self.pass(),
                    (None, _) => self.fail(format!(
                        "line {line}: capture_request: CAPT_ACK did not rise within \
                         {CAPT_ACK_TIMEOUT} cycles of CAPT_REQ = 1 (from cycle {start})"
                    ))?,
                    (Some(r), None) => self.fail(format!(
                        "line {line}: capture_request: CAPT_ACK rose in cycle {r} but did not \
                         fall within {CAPT_ACK_TIMEOUT} cycles of CAPT_REQ = 0"
                    ))?,
                }
            }
        }
        Ok(())
    }
}

/// Runs a parsed script on `driver`, which must have been built for `script.config` (with
/// `script.config.lanes` lanes; [`Driver::set_lanes`] panics otherwise). Lanes are cleared first.
/// Failures (`FAIL line N: ...`), the trace when `trace` is set, and the final line
/// `N passed, M failed` are written to `out`. `expect msi` counts the writes completed by the
/// driver's MSI slave (`driver.msi`) during this run; its protocol violations during the run are
/// failures.
pub fn run<D: Dut>(
    script: &Script,
    driver: &mut Driver<D>,
    trace: bool,
    out: &mut dyn Write,
) -> std::io::Result<RunReport> {
    run_with_progress(script, driver, trace, out, &mut |_| {})
}

/// [`run`], telling `progress` the cycles run so far after every command and every
/// 65536 cycles of a long one (compare with [`Script::cycles`]).
pub fn run_with_progress<D: Dut>(
    script: &Script,
    driver: &mut Driver<D>,
    trace: bool,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(u64),
) -> std::io::Result<RunReport> {
    let start = driver.cycle;
    let mut irq_base = driver.irq_pulses;
    let lanes = script.config.lanes as usize;
    driver.clear_lanes();
    let (msi_base, violations_base) = (driver.msi.completed.len(), driver.msi.violations.len());
    let mut runner = Runner {
        driver,
        out,
        trace,
        mpam_trace: script.config.mpam_filter,
        report: RunReport::default(),
        msi_base,
        violations_base,
        progress,
        start,
    };
    for (line, cmd) in &script.lines {
        runner.command(*line, cmd, lanes, &mut irq_base)?;
        (runner.progress)(runner.driver.cycle - start);
    }
    runner.check_violations("end of script".to_string())?;
    let mut report = runner.report;
    report.cycles = runner.driver.cycle - start;
    writeln!(
        runner.out,
        "{} passed, {} failed",
        report.passed, report.failed
    )?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pins::{PinInputs, PinOutputs};
    use pmcg_hdl::regmap::{RegId, RegisterMap, Word, COUNTER_HOLD_CYCLES};
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::rc::Rc;

    // -----------------------------------------------------------------------------------------
    // A small pin-level mock of the PMCG following docs/behaviour.md for the registers the tests
    // touch (CFGR/CEID and other RO constants, EVTYPERn.EVENT, CNTEN, INTEN, OVS, CR.E,
    // IRQ_CTRL.IRQEN, EVCNTRn with the 64-bit read snapshot), the match stage, counting and
    // the irq pulse, IRQ_CTRLACK, the Guarded IRQ_CFG0/1/2, IRQ_STATUS.IRQ_ABT with the MSI
    // write master (issue, pending, AW/W/B handshakes) and capture (CAPR, EVTYPER.OVFCAP, the
    // CAPT_REQ/CAPT_ACK handshake, SVRn without the 64-bit snapshot). Security and PSTRB are
    // ignored and AWPROT is fixed. Unmapped addresses are a plain RW scratch file. It
    // logs every cycle's inputs and every APB transfer.
    // -----------------------------------------------------------------------------------------

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Transfer {
        cycle: u64,
        write: bool,
        addr: u32,
        data: u32,
        pprot: u8,
    }

    struct Mock {
        cfg: PmcgConfig,
        map: RegisterMap,
        scratch: HashMap<u32, u32>,
        evtyper: Vec<u16>,
        counter: Vec<u64>,
        cnten: u64,
        inten: u64,
        ovs: u64,
        cr_e: bool,
        /// The previous cycle's enables (CR.E and CNTEN): a cycle counter adds 1 at an edge when
        /// it was enabled in the cycle before (docs/behaviour.md "Reconfiguration").
        cycle_en: u64,
        irqen: bool,
        ack: bool,
        irq_cfg0: u64,
        irq_cfg1: u32,
        irq_cfg2: u32,
        irq_abt: bool,
        /// EVTYPERn.OVFCAP, SVRn, and a CAPR write of CAPTURE = 1 at this edge.
        ovfcap: Vec<bool>,
        svr: Vec<u64>,
        capr: bool,
        /// MSI master: an MSI issued and not yet answered, one waiting, AWVALID/WVALID, payload.
        busy: bool,
        pending: bool,
        awvalid: bool,
        wvalid: bool,
        msi: (u64, u32),
        /// Registered CAPT_REQ and CAPT_ACK.
        capt_q: bool,
        capt_ack: bool,
        /// (counter, high word) latched by the previous transfer when it was a low-word read.
        snapshot: Option<(u32, u32)>,
        stage: Vec<LaneIn>,
        /// The address of a read set up in the previous cycle (this is its first access cycle,
        /// the wait state, in which it is performed).
        setup_read: Option<u32>,
        /// Held cycles left of a counter or shadow transfer (docs/behaviour.md "Counter and
        /// shadow accesses"), and the address of a held read (set up when the hold ends).
        held: u32,
        held_read: Option<u32>,
        /// The value of the read performed in the previous cycle (this is its second access
        /// cycle: PREADY = 1, PRDATA = the value).
        rdata: Option<u32>,
        irq: bool,
        /// A qualifying overflow at the previous edge: this edge acts on it (irq in the next
        /// cycle, the MSI issued or pending), as docs/behaviour.md's 2-cycle latency gives.
        qualified: bool,
        cycle: u64,
        inputs: Vec<PinInputs>,
        transfers: Vec<Transfer>,
    }

    impl Mock {
        fn new(cfg: &PmcgConfig) -> Mock {
            let n = cfg.counters as usize;
            Mock {
                cfg: cfg.clone(),
                map: RegisterMap::new(cfg),
                scratch: HashMap::new(),
                evtyper: vec![0; n],
                counter: vec![0; n],
                cnten: 0,
                inten: 0,
                ovs: 0,
                cr_e: false,
                cycle_en: 0,
                irqen: false,
                ack: false,
                irq_cfg0: 0,
                irq_cfg1: 0,
                irq_cfg2: 0,
                irq_abt: false,
                ovfcap: vec![false; n],
                svr: vec![0; n],
                capr: false,
                busy: false,
                pending: false,
                awvalid: false,
                wvalid: false,
                msi: (0, 0),
                capt_q: false,
                capt_ack: false,
                snapshot: None,
                stage: vec![LaneIn::default(); cfg.lanes as usize],
                setup_read: None,
                held: 0,
                held_read: None,
                rdata: None,
                irq: false,
                qualified: false,
                cycle: 0,
                inputs: Vec::new(),
                transfers: Vec::new(),
            }
        }

        fn reset(&mut self) {
            let (inputs, transfers, cycle) = (
                std::mem::take(&mut self.inputs),
                std::mem::take(&mut self.transfers),
                self.cycle,
            );
            let scratch = std::mem::take(&mut self.scratch);
            // A read performed before the reset still completes (docs/behaviour.md).
            let rdata = self.rdata.take();
            *self = Mock::new(&self.cfg);
            (
                self.inputs,
                self.transfers,
                self.cycle,
                self.scratch,
                self.rdata,
            ) = (inputs, transfers, cycle, scratch, rdata);
        }

        fn word(value: u64, w: Word) -> u32 {
            match w {
                Word::Low => value as u32,
                Word::High => (value >> 32) as u32,
            }
        }

        fn read(&mut self, addr: u32) -> u32 {
            let snapshot = self.snapshot.take();
            let Some((reg, w)) = self.map.lookup(addr) else {
                return self.scratch.get(&(addr & !3)).copied().unwrap_or(0);
            };
            let value = match reg.id {
                RegId::Evtyper(n) => {
                    self.evtyper[n as usize] as u64 | (self.ovfcap[n as usize] as u64) << 31
                }
                RegId::Svr(n) => self.svr[n as usize],
                RegId::CntenSet0 | RegId::CntenClr0 => self.cnten,
                RegId::IntenSet0 | RegId::IntenClr0 => self.inten,
                RegId::OvsSet0 | RegId::OvsClr0 => self.ovs,
                RegId::Cr => self.cr_e as u64,
                RegId::IrqCtrl => self.irqen as u64,
                RegId::IrqCtrlAck => self.ack as u64,
                RegId::IrqCfg0 => self.irq_cfg0,
                RegId::IrqCfg1 => self.irq_cfg1 as u64,
                RegId::IrqCfg2 => self.irq_cfg2 as u64,
                RegId::IrqStatus => self.irq_abt as u64,
                RegId::Evcntr(n) => {
                    let v = self.counter[n as usize];
                    match (w, snapshot) {
                        (Word::Low, _) => self.snapshot = Some((n, (v >> 32) as u32)),
                        (Word::High, Some((s, hi))) if s == n => return hi,
                        _ => {}
                    }
                    v
                }
                _ => reg.reset() & reg.read_mask(),
            };
            Self::word(value, w)
        }

        /// Applies a write at this edge.
        fn write(&mut self, addr: u32, data: u32) {
            self.snapshot = None;
            let Some((reg, w)) = self.map.lookup(addr) else {
                self.scratch.insert(addr & !3, data);
                return;
            };
            let (id, shift) = (reg.id, if w == Word::Low { 0 } else { 32 });
            let bits = ((data as u64) << shift) & self.cfg.counter_bitmap();
            match id {
                RegId::Evtyper(n) => {
                    self.evtyper[n as usize] = data as u16;
                    self.ovfcap[n as usize] = self.cfg.capture && data >> 31 == 1;
                }
                RegId::Capr => self.capr = data & 1 == 1,
                RegId::CntenSet0 => self.cnten |= bits,
                RegId::CntenClr0 => self.cnten &= !bits,
                RegId::IntenSet0 => self.inten |= bits,
                RegId::IntenClr0 => self.inten &= !bits,
                RegId::OvsSet0 => self.ovs |= bits,
                RegId::OvsClr0 => self.ovs &= !bits,
                RegId::Cr => self.cr_e = data & 1 == 1,
                RegId::IrqCtrl => self.irqen = data & 1 == 1,
                // Guarded: ignored while IRQEN or its acknowledge is 1.
                RegId::IrqCfg0 | RegId::IrqCfg1 | RegId::IrqCfg2 if self.irqen || self.ack => {}
                RegId::IrqCfg2 => self.irq_cfg2 = data & reg.impl_mask() as u32,
                RegId::IrqCfg0 => {
                    let word = 0xFFFF_FFFFu64 << shift;
                    let v = (self.irq_cfg0 & !word) | ((data as u64) << shift);
                    self.irq_cfg0 = v & reg.impl_mask();
                }
                RegId::IrqCfg1 => self.irq_cfg1 = data,
                RegId::Evcntr(n) => {
                    let c = &mut self.counter[n as usize];
                    *c = ((*c & !(0xFFFF_FFFFu64 << shift)) | ((data as u64) << shift))
                        & self.cfg.counter_mask();
                }
                _ => {}
            }
        }
    }

    impl Dut for Mock {
        fn step(&mut self, inp: &PinInputs) -> PinOutputs {
            // A read returns the state of its first access cycle (the wait state, PREADY = 0) on
            // PRDATA in its second (docs/behaviour.md).
            let holding = self.held > 0;
            let (pready, prdata) = match self.rdata.take() {
                Some(v) => (true, v),
                None => (self.setup_read.is_none() && !holding, 0),
            };
            if let Some(addr) = self.setup_read.take() {
                self.rdata = Some(self.read(addr));
            }
            let out = PinOutputs {
                prdata,
                pready,
                pslverr: false,
                irq: self.irq,
                msi_memattr: (self.irq_cfg2 & 0xF) as u8,
                msi_sh: (self.irq_cfg2 >> 4 & 3) as u8,
                awvalid: self.awvalid,
                awaddr: self.msi.0,
                awprot: 0b011,
                wvalid: self.wvalid,
                wdata: self.msi.1,
                wstrb: 0xF,
                bready: self.busy && !self.awvalid && !self.wvalid,
                capt_ack: self.capt_ack,
                ..Default::default()
            };
            self.inputs.push(inp.clone());
            let cycle = self.cycle;
            self.cycle += 1;
            if !inp.presetn {
                self.reset();
                return out;
            }
            let transfer = |write| Transfer {
                cycle,
                write,
                addr: inp.paddr,
                data: inp.pwdata,
                pprot: inp.pprot,
            };
            if holding {
                self.held -= 1;
                if self.held == 0 {
                    self.setup_read = self.held_read.take();
                }
            }
            let held = self.map.held_access(inp.paddr);
            if inp.psel && !inp.penable && !inp.pwrite {
                self.transfers.push(transfer(false));
                if held {
                    self.held = COUNTER_HOLD_CYCLES;
                    self.held_read = Some(inp.paddr);
                } else {
                    self.setup_read = Some(inp.paddr);
                }
            }
            if inp.psel && !inp.penable && inp.pwrite && held {
                self.held = COUNTER_HOLD_CYCLES;
            }
            // A held transfer's cycles with PENABLE = 1 are not its access cycle.
            let write_access = inp.psel && inp.penable && inp.pwrite && !holding;
            let written = if write_access {
                self.transfers.push(transfer(true));
                // Counting below uses this cycle's configuration, so apply the write afterwards;
                // only find out which counter it hits now.
                match self.map.lookup(inp.paddr) {
                    Some((r, _)) => match r.id {
                        RegId::Evcntr(n) => Some(n),
                        _ => None,
                    },
                    None => None,
                }
            } else {
                None
            };
            // Counting at this edge from the registered lane inputs.
            let mut irq = false;
            let mut ovf_capture = false;
            let en_now = if self.cr_e { self.cnten } else { 0 };
            let cycle_en = std::mem::replace(&mut self.cycle_en, en_now);
            for n in 0..self.cfg.counters as usize {
                let enabled = if self.evtyper[n] == 0 {
                    cycle_en
                } else {
                    en_now
                };
                if enabled >> n & 1 == 0 || written == Some(n as u32) {
                    continue;
                }
                let inc = match self.evtyper[n] {
                    0 => 1,
                    ev => match self.cfg.lane_bit_of(ev) {
                        Some(k) => self
                            .stage
                            .iter()
                            // The reset filter only (ExactSID 0, Non-secure): the mock
                            // does not model SMR or the filter fields.
                            .filter(|l| {
                                l.valid
                                    && l.events >> k & 1 == 1
                                    && l.sid == 0
                                    && l.ss == SecState::NonSecure
                                    && !l.nosid
                            })
                            .count() as u64,
                        None => 0,
                    },
                };
                let sum = self.counter[n] as u128 + inc as u128;
                if sum > self.cfg.counter_mask() as u128 {
                    self.ovs |= 1 << n;
                    ovf_capture |= self.ovfcap[n];
                    irq |= self.inten >> n & 1 == 1 && self.irqen;
                }
                self.counter[n] = (sum as u64) & self.cfg.counter_mask();
            }
            // The MSI master at this edge (IRQEN and the MSI state of this cycle) acts on the
            // overflow that qualified at the previous edge.
            let acted = std::mem::replace(&mut self.qualified, irq);
            let cand = self.pending || (acted && self.irq_cfg0 != 0);
            let issue = cand && self.irqen && !self.busy;
            let b_done = out.bready && inp.bvalid;
            self.irq_abt |= b_done && inp.bresp >= 2;
            self.awvalid = issue || (self.awvalid && !inp.awready);
            self.wvalid = issue || (self.wvalid && !inp.wready);
            self.busy = issue || (self.busy && !b_done);
            self.pending = !issue && cand && self.irqen;
            if issue {
                self.msi = (self.irq_cfg0, self.irq_cfg1);
            }
            if write_access {
                self.write(inp.paddr, inp.pwdata);
            }
            // Capture: every counter's value after this edge.
            let external = self.capt_q && !self.capt_ack;
            if std::mem::take(&mut self.capr) || ovf_capture || external {
                self.svr.clone_from(&self.counter);
            }
            let ack = self.irqen || (self.ack && self.busy);
            if ack && !self.ack {
                self.irq_abt = false;
            }
            self.ack = ack;
            // The capture handshake.
            if self.capt_q && !self.capt_ack {
                self.capt_ack = true;
            } else if !self.capt_q {
                self.capt_ack = false;
            }
            self.capt_q = inp.capt_req && self.cfg.capture;
            self.irq = acted;
            self.stage.clone_from(&inp.lanes);
            out
        }

        fn name(&self) -> &'static str {
            "mock"
        }
    }

    /// Parses and runs `text` on a fresh mock; returns the report, the output and the driver.
    fn run_text(text: &str, trace: bool) -> (RunReport, String, Driver<Mock>) {
        let script = parse(text).unwrap_or_else(|e| panic!("{e}"));
        let mut driver = Driver::new(Mock::new(&script.config), script.config.lanes as usize);
        let mut out = Vec::new();
        let report = run(&script, &mut driver, trace, &mut out).unwrap();
        (report, String::from_utf8(out).unwrap(), driver)
    }

    fn last_line(out: &str) -> &str {
        out.lines().last().unwrap()
    }

    const NS: Access = Access::NonSecure;
    const S: Access = Access::Secure;

    fn exp(value: u64, mask: u64) -> Option<Expectation> {
        Some(Expectation { value, mask })
    }

    // -----------------------------------------------------------------------------------------
    // Parsing
    // -----------------------------------------------------------------------------------------

    #[test]
    fn parses_every_command_form() {
        let text = "\
# a comment line

   # an indented comment
config counters=8 lanes=2 ats=on impdef=0x80,0x91   # trailing comment
write 0xE04 1
write 0x400 0x80 s
write 1024 0xFFFF_FFFF ns
read 0xE00
read 0xE00 s
read 0xE00 expect 0x00703F07
read 0xE00 expect 7 mask 0xFF ns
read64 0x10000 expect 0x1_0000_0000 mask 0xFFFFFFFF00000000 s
read64 0xE20
write64 0x10008 0xFFFFFFFFFFFFFFFE
write64 0x10008 5 s
event ids=1
event lane=1 sid=0x12 ss=s ids=6,0x91,2 cycles=10
event cycles=3 ss=realm ids=0x80 lane=0
idle 5
idle 0x10
reset
expect irq 0
expect irq 3 # comment
expect msi 1
expect msi 2 addr=0x8000_0000 data=0xAB
expect msi 0 data=7
msi_slave
msi_slave aw=3 w=0x10 b=100 resp=slverr
msi_slave resp=decerr b=2
capt_req 1
capt_req 0
capture_request
";
        let s = parse(text).unwrap();
        assert_eq!(s.config_line, 4);
        assert_eq!(
            (s.config.counters, s.config.lanes, s.config.ats),
            (8, 2, true)
        );
        assert_eq!(s.config.impdef_events, vec![0x80, 0x91]);
        let w32 = u32::MAX as u64;
        let expected: Vec<(usize, Command)> = vec![
            (
                5,
                Command::Write {
                    addr: 0xE04,
                    value: 1,
                    access: NS,
                },
            ),
            (
                6,
                Command::Write {
                    addr: 0x400,
                    value: 0x80,
                    access: S,
                },
            ),
            (
                7,
                Command::Write {
                    addr: 0x400,
                    value: 0xFFFF_FFFF,
                    access: NS,
                },
            ),
            (
                8,
                Command::Read {
                    addr: 0xE00,
                    expect: None,
                    access: NS,
                },
            ),
            (
                9,
                Command::Read {
                    addr: 0xE00,
                    expect: None,
                    access: S,
                },
            ),
            (
                10,
                Command::Read {
                    addr: 0xE00,
                    expect: exp(0x0070_3F07, w32),
                    access: NS,
                },
            ),
            (
                11,
                Command::Read {
                    addr: 0xE00,
                    expect: exp(7, 0xFF),
                    access: NS,
                },
            ),
            (
                12,
                Command::Read64 {
                    addr: 0x10000,
                    expect: exp(0x1_0000_0000, 0xFFFF_FFFF_0000_0000),
                    access: S,
                },
            ),
            (
                13,
                Command::Read64 {
                    addr: 0xE20,
                    expect: None,
                    access: NS,
                },
            ),
            (
                14,
                Command::Write64 {
                    addr: 0x10008,
                    value: 0xFFFF_FFFF_FFFF_FFFE,
                    access: NS,
                },
            ),
            (
                15,
                Command::Write64 {
                    addr: 0x10008,
                    value: 5,
                    access: S,
                },
            ),
            (
                16,
                Command::Event {
                    lane: 0,
                    sid: 0,
                    nosid: false,
                    ss: SecState::NonSecure,
                    partid: 0,
                    pmg: 0,
                    mpam_sp: MpamSpace::NonSecure,
                    ids: vec![1],
                    bits: 1,
                    cycles: 1,
                },
            ),
            (
                17,
                Command::Event {
                    lane: 1,
                    sid: 0x12,
                    nosid: false,
                    ss: SecState::Secure,
                    partid: 0,
                    pmg: 0,
                    mpam_sp: MpamSpace::NonSecure,
                    ids: vec![6, 0x91, 2],
                    // Lane bits: 1-5 -> 0-4, 6-7 -> 5-6, 0x80 -> 7, 0x91 -> 8.
                    bits: (1 << 5) | (1 << 8) | (1 << 1),
                    cycles: 10,
                },
            ),
            (
                18,
                Command::Event {
                    lane: 0,
                    sid: 0,
                    nosid: false,
                    ss: SecState::Realm,
                    partid: 0,
                    pmg: 0,
                    mpam_sp: MpamSpace::NonSecure,
                    ids: vec![0x80],
                    bits: 1 << 7,
                    cycles: 3,
                },
            ),
            (19, Command::Idle(5)),
            (20, Command::Idle(16)),
            (21, Command::Reset),
            (22, Command::ExpectIrq(0)),
            (23, Command::ExpectIrq(3)),
            (
                24,
                Command::ExpectMsi {
                    count: 1,
                    addr: None,
                    data: None,
                },
            ),
            (
                25,
                Command::ExpectMsi {
                    count: 2,
                    addr: Some(0x8000_0000),
                    data: Some(0xAB),
                },
            ),
            (
                26,
                Command::ExpectMsi {
                    count: 0,
                    addr: None,
                    data: Some(7),
                },
            ),
            (
                27,
                Command::MsiSlave {
                    aw: 0,
                    w: 0,
                    b: 0,
                    resp: RESP_OKAY,
                },
            ),
            (
                28,
                Command::MsiSlave {
                    aw: 3,
                    w: 0x10,
                    b: 100,
                    resp: RESP_SLVERR,
                },
            ),
            (
                29,
                Command::MsiSlave {
                    aw: 0,
                    w: 0,
                    b: 2,
                    resp: RESP_DECERR,
                },
            ),
            (30, Command::CaptReq(true)),
            (31, Command::CaptReq(false)),
            (32, Command::CaptureRequest),
        ];
        assert_eq!(s.lines.len(), expected.len());
        for (got, want) in s.lines.iter().zip(&expected) {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn config_keys_and_defaults() {
        let s = parse("config\n").unwrap();
        assert_eq!(s.config, PmcgConfig::default());
        assert!(s.lines.is_empty());

        let s = parse(
            "config counters=4 counter_bits=32 sid_bits=8 lanes=3 capture=off msi=off secure=off \
             sid_filter=global reloc_ctrs=off ats=on impdef=0x80 page1_offset=0x20000 pa_bits=40 \
             jep106=0x4:0x3B product=0x4A1:2:3",
        )
        .unwrap();
        let c = &s.config;
        assert_eq!(
            (c.counters, c.counter_bits, c.sid_bits, c.lanes),
            (4, 32, 8, 3)
        );
        assert!(!c.capture && !c.msi && !c.secure && !c.reloc_ctrs && c.ats);
        assert_eq!(c.sid_filter, pmcg_hdl::config::SidFilterType::Global);
        assert_eq!(c.impdef_events, vec![0x80]);
        assert_eq!((c.page1_offset, c.pa_bits), (0x20000, 40));
        assert_eq!((c.ident.jep106_continuation, c.ident.jep106_id), (4, 0x3B));
        assert_eq!(
            (c.ident.product_id, c.ident.variant, c.ident.revision),
            (0x4A1, 2, 3)
        );
    }

    #[test]
    fn line_endings_and_byte_order_mark_are_accepted() {
        fn lines(t: &str) -> Vec<(usize, &str)> {
            text_lines(t).collect()
        }
        let want = vec![(1, "a"), (2, ""), (3, "b c"), (4, "d")];
        for text in [
            "a\n\nb c\nd\n",
            "a\r\n\r\nb c\r\nd\r\n",
            "a\r\rb c\rd",
            "\u{FEFF}a\n\r\nb c\rd\r\n",
        ] {
            assert_eq!(lines(text), want, "{text:?}");
        }
        assert!(lines("").is_empty());
        // A script in each style parses alike, and errors name the same line.
        let unix = "config counters=4\n# c\nwrite 0x400 1\nidle 3\n";
        let expected = parse(unix).unwrap();
        for text in [
            unix.replace('\n', "\r\n"),
            unix.replace('\n', "\r"),
            format!("\u{FEFF}{unix}"),
        ] {
            assert_eq!(parse(&text).unwrap(), expected, "{text:?}");
            let bad = text.replace("idle 3", "idle x");
            assert_eq!(parse(&bad).unwrap_err().line, 4, "{bad:?}");
        }
        // A byte-order mark anywhere else is not white space.
        assert!(parse("config\n\u{FEFF}idle 1\n").is_err());
    }

    #[test]
    fn text_that_is_not_utf8_names_its_line() {
        let e = decode_text(b"config\r\nidle 1\rid\xFFle 2\n".to_vec()).unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        assert!(
            e.message.contains("not UTF-8") && e.message.contains("0xff"),
            "{e}"
        );
        assert_eq!(decode_text(b"config\n".to_vec()).unwrap(), "config\n");
    }

    #[test]
    fn long_tokens_are_cut_short_in_messages() {
        let huge = "x".repeat(100_000);
        for text in [
            format!("config\n{huge}\n"),
            format!("config\nidle {huge}\n"),
            format!("config\nevent ids={huge}\n"),
            format!("config {huge}=1\n"),
            format!("config capture={huge}\n"),
            format!("config\nevent sid=0x{}\n", "f".repeat(5000)),
        ] {
            let e = parse(&text).unwrap_err();
            let shown = e.to_string();
            assert!(
                shown.len() < 600,
                "{} bytes: {}",
                shown.len(),
                &shown[..600]
            );
            assert!(shown.contains("characters)"), "{shown}");
        }
        // Short tokens are quoted whole.
        assert_eq!(
            cut_long_tokens("unknown command `frobnicate`"),
            "unknown command `frobnicate`"
        );
        // Control characters (a terminal escape sequence) and bidirectional overrides are shown
        // escaped, never sent to the terminal.
        let e = parse("config\nidle \u{1b}[2J\u{202E}x\0\n").unwrap_err();
        assert_eq!(
            e.message,
            "idle: N: `\\u{1b}[2J\\u{202e}x\\u{0}` is not a number (decimal or 0x-hex)"
        );
    }

    #[test]
    fn settings_files_reject_a_key_given_twice() {
        let items =
            parse_settings("\u{FEFF}config counters=4 # x\r\nlanes=2\rsid_bits=8\n").unwrap();
        let items: Vec<(usize, &str)> = items.iter().map(|(l, i)| (*l, i.as_str())).collect();
        assert_eq!(
            items,
            [(1, "counters=4"), (2, "lanes=2"), (3, "sid_bits=8")]
        );
        let e = parse_settings("counters=4\n\nlanes=2 counters=8\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(
            e.message
                .contains("`counters` is given twice (first at line 1)"),
            "{e}"
        );
        let e = parse_settings("counters=4\nlanes\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("expected KEY=VALUE"), "{e}");
    }

    #[test]
    fn event_sid_wider_than_sid_bits_is_an_error() {
        assert!(parse("config sid_bits=8\nevent sid=0xFF ids=1\n").is_ok());
        let e = parse("config sid_bits=8\nevent sid=0x100 ids=1\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("does not fit sid_bits=8"), "{e}");
        assert!(parse("config sid_bits=32\nevent sid=0xFFFFFFFF ids=1\n").is_ok());
    }

    #[test]
    fn malformed_lines_name_their_line() {
        // (script, line, text the message must contain)
        let cases: &[(&str, usize, &str)] = &[
            // config placement and content
            ("", 1, "no commands"),
            ("# only a comment\n\n", 1, "no commands"),
            ("read 0xE00\nconfig\n", 1, "first command must be `config`"),
            ("# c\n\nidle 1\n", 3, "first command must be `config`"),
            ("config\nidle 1\nconfig\n", 3, "only once"),
            ("config counters=0\n", 1, "counters"),
            ("config counters=65\n", 1, "counters"),
            ("config counter_bits=33\n", 1, "counter_bits"),
            ("config lanes=9\n", 1, "lanes"),
            ("config capture=maybe\n", 1, "capture"),
            ("config sid_filter=both\n", 1, "sid_filter"),
            ("config impdef=0x7f\n", 1, "impdef"),
            ("config colour=red\n", 1, "colour"),
            ("config counters\n", 1, "expected KEY=VALUE"),
            ("config =4\n", 1, "expected KEY=VALUE"),
            ("config counters=4 counters=8\n", 1, "given twice"),
            ("config counters=x\n", 1, "counters"),
            // unknown commands
            ("config\nfrobnicate 1\n", 2, "unknown command `frobnicate`"),
            ("config\nREAD 0xE00\n", 2, "unknown command `READ`"),
            // write / write64
            ("config\nwrite\n", 2, "missing ADDR and VALUE"),
            ("config\nwrite 0xE04\n", 2, "missing VALUE"),
            ("config\nwrite 0xE04 s\n", 2, "missing VALUE"),
            ("config\nwrite 0xE04 1 2\n", 2, "unexpected argument `2`"),
            (
                "config\nwrite 0xE04 1 ns s\n",
                2,
                "unexpected argument `ns`",
            ),
            (
                "config\nwrite 0xE04 1 secure\n",
                2,
                "unexpected argument `secure`",
            ),
            ("config\nwrite 0xE0G 1\n", 2, "not a number"),
            ("config\nwrite -4 1\n", 2, "not a number"),
            ("config\nwrite +4 1\n", 2, "not a number"),
            ("config\nwrite 0x 1\n", 2, "not a number"),
            (
                "config\nwrite 0x100000000 1\n",
                2,
                "ADDR: 0x100000000 does not fit 32 bits",
            ),
            (
                "config\nwrite 0xE04 0x100000000\n",
                2,
                "VALUE: 0x100000000 does not fit 32 bits",
            ),
            // Numbers too large for their field (even for 64 bits) say so.
            (
                "config\nwrite 0xE04 99999999999999999999999\n",
                2,
                "VALUE: 99999999999999999999999 does not fit 32 bits (too large)",
            ),
            (
                "config\nwrite64 0x10000 0x1_0000_0000_0000_0000\n",
                2,
                "VALUE: 0x1_0000_0000_0000_0000 does not fit 64 bits (too large)",
            ),
            (
                "config\nwrite64 0xFFFFFFFC 1\n",
                2,
                "+ 4 does not fit 32 bits",
            ),
            ("config\nwrite64 0x10000\n", 2, "missing VALUE"),
            // read / read64
            ("config\nread\n", 2, "missing ADDR"),
            ("config\nread ns\n", 2, "missing ADDR"),
            ("config\nread 0xE00 0x5\n", 2, "unexpected argument `0x5`"),
            ("config\nread 0xE00 expect\n", 2, "`expect` needs a VALUE"),
            ("config\nread 0xE00 expect s\n", 2, "`expect` needs a VALUE"),
            (
                "config\nread 0xE00 expect 1 mask\n",
                2,
                "`mask` needs a MASK",
            ),
            (
                "config\nread 0xE00 mask 1\n",
                2,
                "`mask` must follow `expect VALUE`",
            ),
            (
                "config\nread 0xE00 expect 1 mask 2 3\n",
                2,
                "unexpected argument `3`",
            ),
            (
                "config\nread 0xE00 expect 1 2\n",
                2,
                "unexpected argument `2`",
            ),
            (
                "config\nread 0xE00 expect 0x1_0000_0000\n",
                2,
                "does not fit 32 bits",
            ),
            (
                "config\nread 0xE00 expect 1 mask 0x1_0000_0000\n",
                2,
                "MASK",
            ),
            ("config\nread 0x1_0000_0000\n", 2, "does not fit 32 bits"),
            ("config\nread64 0xFFFFFFFD\n", 2, "+ 4 does not fit 32 bits"),
            (
                "config\nread64 0x0 expect 0x1_0000_0000_0000_0000\n",
                2,
                "does not fit 64 bits (too large)",
            ),
            // event
            ("config\nevent\n", 2, "missing ids"),
            ("config\nevent lane=0\n", 2, "missing ids"),
            ("config\nevent ids=\n", 2, "ids is empty"),
            ("config\nevent ids=1,,2\n", 2, "empty event ID"),
            ("config\nevent ids=1,\n", 2, "empty event ID"),
            ("config\nevent ids=0\n", 2, "cycle event"),
            ("config\nevent ids=1,0\n", 2, "cycle event"),
            ("config\nevent ids=6\n", 2, "not a lane event"),
            ("config\nevent ids=0x80\n", 2, "not a lane event"),
            ("config\nevent ids=0x10000\n", 2, "does not fit 16 bits"),
            ("config\nevent ids=1,1\n", 2, "listed twice"),
            ("config\nevent ids=x\n", 2, "not a number"),
            ("config\nevent lane=1 ids=1\n", 2, "lane 1 does not exist"),
            (
                "config lanes=2\nevent lane=2 ids=1\n",
                2,
                "lane 2 does not exist",
            ),
            ("config\nevent lane=0x1_0000_0000 ids=1\n", 2, "lane"),
            ("config\nevent ids=1 cycles=0\n", 2, "at least 1"),
            (
                "config\nevent ids=1 cycles=0x1_0000_0000\n",
                2,
                "does not fit 32 bits",
            ),
            (
                "config\nevent ids=1 ss=secure\n",
                2,
                "ss must be ns, s, realm, root, sa or nsp",
            ),
            ("config\nevent ids=1 sid=0x1_0000_0000\n", 2, "sid"),
            (
                "config\nevent ids=1 colour=red\n",
                2,
                "unknown key `colour`",
            ),
            ("config\nevent ids=1 ids=2\n", 2, "given twice"),
            ("config\nevent 1\n", 2, "expected KEY=VALUE"),
            ("config\nevent ids=1 s\n", 2, "expected KEY=VALUE"),
            // idle / reset
            ("config\nidle\n", 2, "missing the number of cycles"),
            ("config\nidle 0\n", 2, "at least 1"),
            ("config\nidle 1 2\n", 2, "unexpected argument `2`"),
            ("config\nidle many\n", 2, "not a number"),
            ("config\nreset 1\n", 2, "reset takes none"),
            // expect
            ("config\nexpect\n", 2, "missing what to expect"),
            ("config\nexpect irqs 1\n", 2, "unknown expectation `irqs`"),
            ("config\nexpect irq\n", 2, "missing the number of pulses"),
            ("config\nexpect irq 1 2\n", 2, "unexpected argument `2`"),
            ("config\nexpect irq x\n", 2, "not a number"),
            ("config\nexpect msi\n", 2, "missing the number of writes"),
            ("config\nexpect msi 1 addr\n", 2, "expected KEY=VALUE"),
            ("config\nexpect msi 1 port=3\n", 2, "unknown key `port`"),
            (
                "config\nexpect msi 1 data=0x1_0000_0000\n",
                2,
                "does not fit 32 bits",
            ),
            ("config\nexpect msi 1 addr=1 addr=2\n", 2, "given twice"),
            // msi_slave / capt_req / capture_request
            (
                "config\nmsi_slave resp=fail\n",
                2,
                "resp must be okay, slverr or decerr, got `fail`",
            ),
            ("config\nmsi_slave x=1\n", 2, "unknown key `x`"),
            (
                "config\nmsi_slave aw=1 aw=2\n",
                2,
                "key `aw` is given twice",
            ),
            ("config\nmsi_slave b=many\n", 2, "not a number"),
            (
                "config\nmsi_slave b=0x1_0000_0000\n",
                2,
                "does not fit 32 bits",
            ),
            ("config\nmsi_slave slverr\n", 2, "expected KEY=VALUE"),
            ("config\ncapt_req\n", 2, "missing the level"),
            ("config\ncapt_req 2\n", 2, "must be 0 or 1, got `2`"),
            ("config\ncapt_req 1 2\n", 2, "unexpected argument `2`"),
            ("config\ncapture_request now\n", 2, "takes none"),
            ("config\ncapture\n", 2, "unknown command `capture`"),
            // the error is on the right line even late in a script, after comments
            (
                "# header\nconfig\n\n# note\nidle 1\nread 0xE00 # ok\nread 0xE00 expect\n",
                7,
                "VALUE",
            ),
        ];
        for (text, line, needle) in cases {
            let e = parse(text).expect_err(text);
            assert_eq!(e.line, *line, "{text:?}: {e}");
            assert!(
                e.message.contains(needle),
                "{text:?}: `{e}` lacks `{needle}`"
            );
            assert_eq!(e.to_string(), format!("line {line}: {}", e.message));
        }
    }

    #[test]
    fn comments_and_blank_lines_do_not_count_as_commands() {
        let s = parse("#x\nconfig # c\n   \n\t\n#read 0xE00\nidle 2#inline\n").unwrap();
        assert_eq!(s.config_line, 2);
        assert_eq!(s.lines, vec![(6, Command::Idle(2))]);
        // CRLF line endings.
        let s = parse("config\r\nidle 3\r\n").unwrap();
        assert_eq!(s.lines, vec![(2, Command::Idle(3))]);
    }

    // -----------------------------------------------------------------------------------------
    // Running
    // -----------------------------------------------------------------------------------------

    #[test]
    fn expectations_pass_and_fail_with_summary() {
        let text = "\
config
write 0x2000 0x12345678
read 0x2000 expect 0x12345678      # pass
read 0x2000 expect 0x12345679      # fail (line 4)
read 0x2000 expect 0x99999978 mask 0xFF   # pass
read 0x2000 expect 0x00000000 mask 0xF0   # fail (line 6)
read 0xE00 expect 0x00703F3F       # CFGR of the default configuration: pass
read 0x2000                        # no expectation: not counted
";
        let (report, out, _) = run_text(text, false);
        assert_eq!((report.passed, report.failed), (3, 2));
        assert!(!report.ok());
        assert_eq!(last_line(&out), "3 passed, 2 failed");
        assert_eq!(report.failures.len(), 2);
        assert!(
            report.failures[0].starts_with("line 4: "),
            "{}",
            report.failures[0]
        );
        assert!(report.failures[0].contains("expected 0x12345679"));
        assert!(report.failures[0].contains("got 0x12345678"));
        assert!(report.failures[1].starts_with("line 6: "));
        assert!(report.failures[1].contains("(mask 0x000000f0)"));
        assert!(out.contains("FAIL line 4: read 0x02000: expected 0x12345679, got 0x12345678"));
        // 1 write of two cycles, 6 reads of three (setup, wait state, completion).
        assert_eq!(report.cycles, 2 + 6 * 3);

        let (report, out, _) = run_text("config\nread 0xE00 expect 0x00703F3F\n", false);
        assert!(report.ok());
        assert_eq!(out, "1 passed, 0 failed\n");
    }

    #[test]
    fn read64_and_write64_are_low_then_high() {
        let text = "\
config
write64 0x2000 0x1122334455667788
read64 0x2000 expect 0x1122334455667788
write64 0x2008 0xAABBCCDD00000001 s
read64 0x2008 expect 0xAABBCCDD00000000 mask 0xFFFFFFFF00000000 s
read64 0x2000 expect 0x1122334455667789   # fail
";
        let (report, out, driver) = run_text(text, false);
        assert_eq!((report.passed, report.failed), (2, 1));
        assert_eq!(last_line(&out), "2 passed, 1 failed");
        assert!(report.failures[0].contains("expected 0x1122334455667789, got 0x1122334455667788"));
        let t = |cycle, write, addr, data, pprot| Transfer {
            cycle,
            write,
            addr,
            data,
            pprot,
        };
        // The mock logs a write at its access cycle and a read at its setup cycle. A write takes
        // cycles s, s+1; a read s, s+1 (wait), s+2.
        let log = &driver.dut.transfers;
        assert_eq!(
            &log[..8],
            &[
                t(1, true, 0x2000, 0x5566_7788, 0b010),
                t(3, true, 0x2004, 0x1122_3344, 0b010),
                t(4, false, 0x2000, 0, 0b010),
                t(7, false, 0x2004, 0, 0b010),
                t(11, true, 0x2008, 0x0000_0001, 0b000),
                t(13, true, 0x200C, 0xAABB_CCDD, 0b000),
                t(14, false, 0x2008, 0, 0b000),
                t(17, false, 0x200C, 0, 0b000),
            ]
        );
    }

    #[test]
    fn event_drives_the_lane_bits_for_its_cycles() {
        let text = "\
config lanes=3 ats=on impdef=0x80
idle 2
event lane=1 sid=0x12 ss=s ids=6,0x80 cycles=3
event ids=1
event lane=2 ss=realm ids=5 cycles=2
idle 1
";
        let (report, out, driver) = run_text(text, false);
        assert_eq!(last_line(&out), "0 passed, 0 failed");
        assert_eq!(report.cycles, 2 + 3 + 1 + 2 + 1);
        let inputs = &driver.dut.inputs;
        assert_eq!(inputs.len(), 9);
        let idle = LaneIn::default();
        let a = LaneIn {
            valid: true,
            events: (1 << 5) | (1 << 7),
            sid: 0x12,
            ss: SecState::Secure,
            nosid: false,
            ..LaneIn::default()
        };
        let b = LaneIn {
            valid: true,
            events: 1,
            sid: 0,
            ss: SecState::NonSecure,
            nosid: false,
            ..LaneIn::default()
        };
        let c = LaneIn {
            valid: true,
            events: 1 << 4,
            sid: 0,
            ss: SecState::Realm,
            nosid: false,
            ..LaneIn::default()
        };
        let expected: Vec<Vec<LaneIn>> = vec![
            vec![idle, idle, idle],
            vec![idle, idle, idle],
            vec![idle, a, idle],
            vec![idle, a, idle],
            vec![idle, a, idle],
            vec![b, idle, idle],
            vec![idle, idle, c],
            vec![idle, idle, c],
            vec![idle, idle, idle],
        ];
        for (cycle, (inp, want)) in inputs.iter().zip(&expected).enumerate() {
            assert_eq!(&inp.lanes, want, "cycle {cycle}");
            assert!(
                !inp.psel && inp.presetn,
                "bus idle during events, cycle {cycle}"
            );
        }
    }

    #[test]
    fn events_are_counted_and_irq_pulses_are_expected() {
        // Counter 0 counts event 2, counter 1 counts cycles from near the top and overflows.
        let text = "\
config counters=2 counter_bits=32 lanes=2
write 0x400 2              # EVTYPER0 = event 2
write 0x404 0              # EVTYPER1 = cycles
write 0x10004 0xFFFFFFFE   # EVCNTR1 (32-bit counters: stride 4), held: cycles 4-13
write 0xC40 2              # INTENSET0: counter 1
write 0xE50 1              # IRQ_CTRL.IRQEN
write 0xC00 3              # CNTENSET0
write 0xE04 1              # cycles 20-21, CR.E: lane events from cycle 22, cycles from edge 23
event lane=1 ids=2,3 cycles=4   # cycles 22-25, counted at edges 23-26
idle 1
read 0x10000 expect 4      # setup cycle 27
expect irq 1               # edge 24 overflows counter 1, irq in cycle 26
expect irq 0
read 0x10CC0 expect 2      # OVSSET0
expect irq 1               # fails: no new pulse
";
        let (report, out, _) = run_text(text, true);
        assert_eq!((report.passed, report.failed), (4, 1), "{out}");
        assert!(report.failures[0].starts_with("line 15: expect irq: expected 1"));
        assert!(report.failures[0].ends_with("got 0"));
        assert!(out.contains("cycle 26: irq pulse"), "{out}");
        assert!(out
            .contains("cycle 22: event lane=1 sid=0x0 ss=ns ids=0x2,0x3 bits=0x00000006 cycles=4"));
        assert_eq!(last_line(&out), "4 passed, 1 failed");
    }

    #[test]
    fn read_right_after_event_sees_the_last_cycle() {
        // The two-cycle event latency of the module documentation: a read set up in the cycle
        // after the last event has its access cycle two cycles after it.
        let text = "\
config
write 0x400 1
write 0xC00 1
write 0xE04 1
event ids=1 cycles=5
read64 0x10000 expect 5
idle 1
read64 0x10000 expect 5
";
        let (report, out, _) = run_text(text, false);
        assert_eq!(last_line(&out), "2 passed, 0 failed", "{out}");
        assert!(report.ok());
    }

    /// Counter 0 of a 4 x 32-bit PMCG overflows with INTEN, IRQEN and an MSI address set.
    const MSI_SETUP: &str = "\
config counters=4 counter_bits=32
write 0xE58 0x8000        # IRQ_CFG0.ADDR
write 0xE60 7             # IRQ_CFG1.DATA
write 0xC40 1             # INTENSET0: counter 0
write 0xE50 1             # IRQ_CTRL.IRQEN
write 0x10000 0xFFFFFFFE  # EVCNTR0 = max - 1 (page 1)
write 0xE04 1             # CR.E
write 0xC00 1             # CNTENSET0 at edge e: max after e+1, overflow at e+2
";

    #[test]
    fn expect_msi_counts_the_slaves_completed_writes() {
        let text = format!(
            "{MSI_SETUP}idle 6\nexpect irq 1\nexpect msi 1 addr=0x8000 data=7\nexpect msi 0\n"
        );
        let (report, out, driver) = run_text(&text, false);
        assert_eq!(out, "3 passed, 0 failed\n");
        assert!(report.ok());
        let w = driver.msi.completed[0];
        assert_eq!(
            (w.addr, w.data, w.strb, w.resp),
            (0x8000, 7, 0xF, RESP_OKAY)
        );

        // Wrong count, address or data: one failure naming the line and what came.
        for (line, needle) in [
            (
                "expect msi 2",
                "expected 2 write(s), got 1 write(s) [(addr=0x8000 data=0x00000007)]",
            ),
            ("expect msi 0", "expected 0 write(s), got 1 write(s)"),
            (
                "expect msi 1 addr=0x8004",
                "expected 1 write(s) addr=0x8004, got 1 write(s)",
            ),
            (
                "expect msi 1 data=6",
                "expected 1 write(s) data=0x00000006, got 1 write(s)",
            ),
        ] {
            let text = format!("{MSI_SETUP}idle 6\n{line}\nexpect msi 0\n");
            let (report, out, _) = run_text(&text, false);
            assert_eq!(last_line(&out), "1 passed, 1 failed", "{line}: {out}");
            let at = MSI_SETUP.lines().count() + 2;
            assert!(
                report.failures[0].starts_with(&format!("line {at}: expect msi: {needle}")),
                "{line}: {:?}",
                report.failures
            );
        }

        // Writes completed before the run are not counted; the run counts from where it starts.
        let script = parse(&format!("{MSI_SETUP}idle 6\n")).unwrap();
        let mut driver = Driver::new(Mock::new(&script.config), 1);
        let mut out = Vec::new();
        run(&script, &mut driver, false, &mut out).unwrap();
        assert_eq!(driver.msi.completed.len(), 1);
        let again = parse("config counters=4 counter_bits=32\nexpect msi 0\n").unwrap();
        let report = run(&again, &mut driver, false, &mut out).unwrap();
        assert_eq!((report.passed, report.failed), (1, 0));
    }

    #[test]
    fn msi_slave_sets_the_delays_and_the_response() {
        let text = format!(
            "{MSI_SETUP}msi_slave b=5 resp=slverr\nidle 12\nexpect msi 1\n\
             read 0xE68 expect 1     # IRQ_STATUS.IRQ_ABT\n\
             write 0xE50 0\nread 0xE68 expect 1\nwrite 0xE50 1\nread 0xE68 expect 0\n"
        );
        let (report, out, driver) = run_text(&text, false);
        assert_eq!(out, "4 passed, 0 failed\n");
        assert!(report.ok());
        let m = &driver.msi;
        assert_eq!(
            (m.aw_delay, m.w_delay, m.b_delay, m.resp),
            (0, 0, 5, RESP_SLVERR)
        );
        let w = m.completed[0];
        assert_eq!(w.resp, RESP_SLVERR);
        // AW and W accepted at the edge of their first cycle f; BVALID 5 cycles later, in f+6.
        assert_eq!(w.completed - w.first_valid, 6);

        // The other keys, in any order; `msi_slave` alone restores the default slave.
        let (_, _, driver) = run_text("config\nmsi_slave resp=decerr w=2 aw=3 b=4\n", false);
        let m = &driver.msi;
        assert_eq!(
            (m.aw_delay, m.w_delay, m.b_delay, m.resp),
            (3, 2, 4, RESP_DECERR)
        );
        let (_, _, driver) = run_text("config\nmsi_slave aw=9 resp=slverr\nmsi_slave\n", false);
        let m = &driver.msi;
        assert_eq!(
            (m.aw_delay, m.w_delay, m.b_delay, m.resp),
            (0, 0, 0, RESP_OKAY)
        );
        assert_eq!(driver.cycle, 0, "msi_slave takes no cycle");
    }

    /// A master that raises AWVALID in cycle 3 only (and so drops it before AWREADY).
    struct Glitch(u64);

    impl Dut for Glitch {
        fn step(&mut self, _inp: &PinInputs) -> PinOutputs {
            self.0 += 1;
            PinOutputs {
                pready: true,
                awvalid: self.0 == 4,
                awaddr: 0x40,
                ..Default::default()
            }
        }
        fn name(&self) -> &'static str {
            "glitch"
        }
    }

    #[test]
    fn msi_protocol_violations_fail_the_run() {
        let run_glitch = |text: &str| {
            let script = parse(text).unwrap();
            let mut driver = Driver::new(Glitch(0), 1);
            let mut out = Vec::new();
            let report = run(&script, &mut driver, false, &mut out).unwrap();
            (report, String::from_utf8(out).unwrap())
        };
        // Reported by the next `expect msi` (which itself passes: no write completed)...
        let (report, out) = run_glitch("config\nmsi_slave aw=5\nidle 6\nexpect msi 0\nidle 1\n");
        assert_eq!((report.passed, report.failed), (1, 1), "{out}");
        assert_eq!(
            report.failures[0],
            "line 4: MSI write master broke the AXI protocol: cycle 4: AWVALID fell before AWREADY"
        );
        // ... or at the end of the script.
        let (report, out) = run_glitch("config\nmsi_slave aw=5\nidle 6\n");
        assert_eq!((report.passed, report.failed), (0, 1), "{out}");
        assert!(report.failures[0].starts_with("end of script: MSI write master broke"));
        assert_eq!(last_line(&out), "0 passed, 1 failed");
    }

    #[test]
    fn capture_request_is_a_four_phase_handshake() {
        let (report, out, driver) = run_text("config\nidle 2\ncapture_request\n", true);
        assert!(report.ok(), "{out}");
        assert_eq!(report.passed, 1);
        assert!(
            out.contains("cycle 2: capture_request: CAPT_ACK rose in cycle 4 and fell in cycle 7"),
            "{out}"
        );
        // CAPT_REQ = 1 in cycles 2-4 (until CAPT_ACK is seen), 0 in 5-7 (until it is seen low).
        let req: Vec<bool> = driver.dut.inputs.iter().map(|i| i.capt_req).collect();
        assert_eq!(req, [false, false, true, true, true, false, false, false]);
        assert_eq!(report.cycles, 8);

        // Without capture CAPT_ACK never rises: a failure, and CAPT_REQ is dropped.
        let (report, out, driver) =
            run_text("config capture=off\ncapture_request\nidle 1\n", false);
        assert_eq!(last_line(&out), "0 passed, 1 failed");
        assert_eq!(
            report.failures[0],
            "line 2: capture_request: CAPT_ACK did not rise within 8 cycles of CAPT_REQ = 1 \
             (from cycle 0)"
        );
        assert!(!driver.capt_req);
        let req: Vec<bool> = driver.dut.inputs.iter().map(|i| i.capt_req).collect();
        assert_eq!(req, [vec![true; 8], vec![false]].concat());
    }

    #[test]
    fn capt_req_sets_the_level_without_a_cycle() {
        let (report, out, driver) =
            run_text("config\ncapt_req 1\nidle 3\ncapt_req 0\nidle 2\n", true);
        assert!(report.ok());
        let req: Vec<bool> = driver.dut.inputs.iter().map(|i| i.capt_req).collect();
        assert_eq!(req, [true, true, true, false, false]);
        assert!(out.contains("cycle 0: capt_req 1\n"), "{out}");
        assert!(out.contains("cycle 3: capt_req 0\n"), "{out}");
        // The mock acknowledges from cycle 2 (request registered at edge 0, ACK set at edge 1)
        // to cycle 4 (request low from cycle 3, registered at edge 3, ACK cleared at edge 4).
        let script = parse("config\ncapt_req 1\nidle 3\ncapt_req 0\nidle 3\n").unwrap();
        let mut driver = Driver::new(Mock::new(&script.config), 1);
        let acks = Rc::new(RefCell::new(Vec::new()));
        let a = acks.clone();
        driver.observer = Some(Box::new(move |c, _i, o| {
            if o.capt_ack {
                a.borrow_mut().push(c)
            }
        }));
        run(&script, &mut driver, false, &mut Vec::new()).unwrap();
        assert_eq!(*acks.borrow(), [2, 3, 4]);
    }

    #[test]
    fn reset_pulls_presetn_low_for_one_cycle() {
        let text = "\
config
write 0x400 1
reset
read 0x400 expect 0      # EVTYPER0 back to its reset value
idle 1
";
        let (report, _, driver) = run_text(text, false);
        assert!(report.ok());
        let resets: Vec<bool> = driver.dut.inputs.iter().map(|i| i.presetn).collect();
        // write (2 cycles), reset (1), read (3: setup, wait state, completion), idle 1.
        assert_eq!(resets, vec![true, true, false, true, true, true, true]);
    }

    #[test]
    fn trace_prints_cycles_of_accesses_and_events() {
        let text = "\
config
idle 12
read 0xE00
write 0xE04 1 s
event ids=1 cycles=2
reset
";
        let (_, out, _) = run_text(text, true);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            vec![
                "cycle 0: idle 12",
                "cycle 12: read 0x00e00 -> 0x00703f3f (ns)",
                "cycle 15: write 0x00e04 <- 0x00000001 (s)",
                "cycle 17: event lane=0 sid=0x0 ss=ns ids=0x1 bits=0x00000001 cycles=2",
                "cycle 19: reset",
                "0 passed, 0 failed",
            ]
        );
        // Without trace only the summary is printed.
        let (_, out, _) = run_text(text, false);
        assert_eq!(out, "0 passed, 0 failed\n");
    }

    #[test]
    fn run_continues_from_a_used_driver() {
        // Cycles and irq pulses are counted from where the driver stands.
        let script = parse("config\nidle 3\nexpect irq 0\n").unwrap();
        let mut driver = Driver::new(Mock::new(&script.config), 1);
        driver.idle(5);
        driver.irq_pulses = 7;
        let mut out = Vec::new();
        let report = run(&script, &mut driver, false, &mut out).unwrap();
        assert_eq!((report.passed, report.cycles), (1, 3));
        assert_eq!(driver.cycle, 8);
    }

    #[test]
    fn module_doc_example_passes() {
        // The example at the end of the module documentation.
        let text = "\
config counters=4 lanes=2
read 0xE00 expect 0x00703F03
write 0x400 1
write 0xC00 1
write 0xE04 1
event lane=1 sid=0 ids=1 cycles=3
event lane=1 sid=0x12 ss=s ids=1 cycles=2
idle 1
read64 0x10000 expect 3
expect irq 0
";
        let (report, out, _) = run_text(text, false);
        assert_eq!(out, "3 passed, 0 failed\n");
        // Reads take 3 cycles (one wait state), writes 2, read64 two reads of a counter, each
        // held for COUNTER_HOLD_CYCLES more.
        let h = COUNTER_HOLD_CYCLES as u64;
        assert_eq!(report.cycles, 3 + 3 * 2 + 3 + 2 + 1 + 2 * (3 + h));
    }

    // -----------------------------------------------------------------------------------------
    // The project's example scripts
    // -----------------------------------------------------------------------------------------

    const SMOKE: &str = include_str!("../../tests/scripts/smoke.pmcg");
    /// The MSI and capture scripts, with the number of expectations each makes.
    const MSI_CAPTURE_SCRIPTS: [(&str, &str, u32); 5] = [
        (
            "msi-overflow.pmcg",
            include_str!("../../tests/scripts/msi-overflow.pmcg"),
            16,
        ),
        (
            "msi-abort.pmcg",
            include_str!("../../tests/scripts/msi-abort.pmcg"),
            15,
        ),
        (
            "msi-irqen-wait.pmcg",
            include_str!("../../tests/scripts/msi-irqen-wait.pmcg"),
            11,
        ),
        (
            "capture-capr.pmcg",
            include_str!("../../tests/scripts/capture-capr.pmcg"),
            16,
        ),
        (
            "capture-external.pmcg",
            include_str!("../../tests/scripts/capture-external.pmcg"),
            9,
        ),
    ];
    const BAD_SYNTAX: &str = include_str!("../../tests/scripts/bad-syntax.pmcg");

    #[test]
    fn smoke_script_passes_on_the_mock() {
        let script = parse(SMOKE).unwrap();
        assert_eq!(script.config, PmcgConfig::default());
        let (report, out, _) = run_text(SMOKE, false);
        assert!(report.ok(), "{out}");
        assert!(report.passed >= 10, "{out}");
        assert_eq!(
            last_line(&out),
            format!("{} passed, 0 failed", report.passed)
        );
    }

    /// The mock follows docs/behaviour.md for the MSI master, IRQ_CTRLACK, IRQ_STATUS and
    /// capture, so the scripts' cycle arithmetic is checked here without any backend.
    #[test]
    fn msi_and_capture_scripts_pass_on_the_mock() {
        for (name, text, expectations) in MSI_CAPTURE_SCRIPTS {
            let script = parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(
                script.lines.first().map(|l| &l.1),
                Some(&Command::Reset),
                "{name} starts with config, then reset"
            );
            let (report, out, driver) = run_text(text, false);
            assert!(report.ok(), "{name}:\n{out}");
            assert_eq!(report.passed, expectations, "{name}:\n{out}");
            assert!(driver.msi.violations.is_empty(), "{name}");
        }
    }

    #[test]
    fn bad_syntax_script_is_rejected_at_its_line() {
        let e = parse(BAD_SYNTAX).unwrap_err();
        let marked = BAD_SYNTAX
            .lines()
            .position(|l| l.contains("<- malformed"))
            .expect("bad-syntax.pmcg marks its malformed line")
            + 1;
        assert_eq!(e.line, marked, "{e}");
        assert!(e.message.contains("not a number"), "{e}");
    }
}
