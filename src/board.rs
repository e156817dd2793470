//! `smmu-pmcg board ...`: the FPGA prototype on the Alchitry Cu from the host: build the
//! bitstream, flash it, run scripts on the board (or on the simulated board), serve the
//! simulated board's UART over TCP for LiteX tools.
//!
//! ```text
//!   board build [KEY=VALUE..] [--out DIR]      pmcg_fpga::top::build ─► DIR/smmu_pmcg_cu.bin, csr.csv
//!   board program [--bin FILE]                 iceprog FILE
//!   board run --script F (--port DEV | --sim native|verilator)
//!       script ─► BoardRunner ─► BridgeClient ─► Transport ─┬ SerialTransport (serialport crate)
//!                                                           └ SimUart ─► NativeBoard | VerilatorBoard
//!   board serve --sim B [KEY=VALUE..] --listen 127.0.0.1:PORT   TCP bytes <─> SimUart
//! ```

use clap::{Subcommand, ValueEnum};
use pmcg_fpga::board::{build_hash, config_words, BoardParams};
use pmcg_fpga::host::{BridgeClient, SimUart, Transport};
use pmcg_fpga::map;
use pmcg_fpga::sim::{BoardSim, NativeBoard, VerilatorBoard};
use pmcg_hdl::config::{PmcgConfig, CYCLE_EVENT};
use pmcg_hdl::regmap::{RegId, RegisterMap, Word};
use pmcg_sim::pins::Access;
use pmcg_sim::script::{Command as ScriptCommand, Expectation, Script};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

/// UART clocks per bit of the simulated board (a few, so a command takes hundreds of cycles).
pub const SIM_CLOCKS_PER_BIT: u32 = 4;

#[derive(Subcommand)]
pub enum BoardCommand {
    /// Build the Alchitry Cu bitstream (Yosys synth_ice40 with dfflegalize -mince 8 -minsrst 8,
    /// nextpnr-ice40 --hx8k --package cb132 --pcf --freq 100, icepack) and a LiteX csr.csv.
    /// Exits 1 when timing is missed, 2 on a tool error or a design that does not fit.
    Build {
        /// PMCG configuration (defaults: the board configuration, README "Board").
        #[arg(value_name = "KEY=VALUE")]
        settings: Vec<String>,
        #[arg(long, default_value = "target/board")]
        out: PathBuf,
        /// nextpnr placement seed.
        #[arg(long)]
        seed: Option<u32>,
    },
    /// Flash a bitstream onto the board's SPI flash with iceprog (Debian fpga-icestorm).
    Program {
        #[arg(long, default_value = "target/board/smmu_pmcg_cu.bin")]
        bin: PathBuf,
    },
    /// Run a script (sim/src/script.rs format) on the board over its UART bridge.
    Run {
        #[arg(long)]
        script: PathBuf,
        /// Serial port of the board (e.g. /dev/ttyUSB1).
        #[arg(long, conflicts_with = "sim", required_unless_present = "sim")]
        port: Option<String>,
        /// Simulate the whole board in the script's configuration instead.
        #[arg(long, value_enum)]
        sim: Option<SimBackend>,
        #[arg(long, default_value_t = 115_200)]
        baud: u32,
        /// Print every bridge access.
        #[arg(long)]
        trace: bool,
    },
    /// Expose the simulated board's UART as a TCP byte stream (for `litex_server --uart
    /// --uart-port socket://HOST:PORT`).
    Serve {
        #[arg(long, value_enum)]
        sim: SimBackend,
        #[arg(value_name = "KEY=VALUE")]
        settings: Vec<String>,
        #[arg(long, default_value = "127.0.0.1:1234")]
        listen: String,
        /// Exit after this many connections have closed (default: serve forever).
        #[arg(long)]
        connections: Option<u32>,
        /// Also write the LiteX csr.csv of the served configuration here (for `litex_cli --csr-csv`).
        #[arg(long)]
        csr: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum SimBackend {
    Native,
    Verilator,
}

pub fn run(cmd: BoardCommand) -> CliResult {
    match cmd {
        BoardCommand::Build {
            settings,
            out,
            seed,
        } => build(&settings, &out, seed),
        BoardCommand::Program { bin } => program(&bin),
        BoardCommand::Run {
            script,
            port,
            sim,
            baud,
            trace,
        } => run_script(&script, port.as_deref(), sim, baud, trace),
        BoardCommand::Serve {
            sim,
            settings,
            listen,
            connections,
            csr,
        } => serve(sim, &settings, &listen, connections, csr.as_deref()),
    }
}

fn board_or_settings(settings: &[String]) -> Result<PmcgConfig, Box<dyn std::error::Error>> {
    if settings.is_empty() {
        Ok(pmcg_fpga::top::board_config())
    } else {
        Ok(PmcgConfig::parse_kv(settings.iter().map(String::as_str))?)
    }
}

fn build(settings: &[String], out: &Path, seed: Option<u32>) -> CliResult {
    let cfg = board_or_settings(settings)?;
    println!("building the Alchitry Cu bitstream: {}", cfg.summary());
    let show = |r: &pmcg_fpga::top::BuildReport| {
        println!(
            "logic cells {}/{} ({:.0}%), block RAMs {}, clock {:.1} MHz achieved at {:.1} MHz required",
            r.logic_cells,
            r.logic_cells_available,
            100.0 * r.logic_cells as f64 / r.logic_cells_available.max(1) as f64,
            r.block_rams,
            r.fmax_mhz,
            r.target_mhz
        )
    };
    match pmcg_fpga::top::build(&cfg, out, seed) {
        Ok(r) => {
            show(&r);
            println!(
                "wrote {} and {}",
                r.bitstream.display(),
                out.join("csr.csv").display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(pmcg_fpga::top::BuildError::Timing(r)) => {
            show(&r);
            eprintln!(
                "error: timing missed: {:.1} MHz < {:.1} MHz (no bitstream written; see {})",
                r.fmax_mhz,
                r.target_mhz,
                out.join("nextpnr.log").display()
            );
            Ok(ExitCode::from(1))
        }
        Err(e) => Err(e.into()),
    }
}

fn program(bin: &Path) -> CliResult {
    if !bin.is_file() {
        return Err(format!(
            "{}: no such bitstream (run `board build` first)",
            bin.display()
        )
        .into());
    }
    let status = std::process::Command::new("iceprog")
        .arg(bin)
        .status()
        .map_err(|e| format!("iceprog: {e} (install the Debian package `fpga-icestorm`)"))?;
    if !status.success() {
        return Err(format!("iceprog failed ({status}) programming {}", bin.display()).into());
    }
    println!("programmed {}", bin.display());
    Ok(ExitCode::SUCCESS)
}

/// Bridge timeout of the served board: a TCP client's bytes arrive in bursts with wall-clock gaps
/// (Nagle, scheduling) while the simulated clock runs, so the few-bit-times timeout of
/// `BoardParams::sim` would cut commands; 2^20 clocks is about 10 s of idle serving.
pub const SERVE_TIMEOUT_CLOCKS: u32 = 1 << 20;

/// A simulated board of `cfg` behind the simulated UART (`timeout_clocks`: the bridge timeout
/// instead of the simulation default).
pub fn sim_uart(
    cfg: &PmcgConfig,
    backend: SimBackend,
    timeout_clocks: Option<u32>,
) -> Result<SimUart, Box<dyn std::error::Error>> {
    let mut params = BoardParams::sim(SIM_CLOCKS_PER_BIT);
    if let Some(t) = timeout_clocks {
        params.timeout_clocks = t;
    }
    let board: Box<dyn BoardSim> = match backend {
        SimBackend::Native => Box::new(NativeBoard::new(cfg, &params)?),
        SimBackend::Verilator => Box::new(VerilatorBoard::new(
            cfg,
            &params,
            &pmcg_sim::vdut::cache_dir(),
        )?),
    };
    Ok(SimUart::new(board, SIM_CLOCKS_PER_BIT))
}

/// A real serial port.
pub struct SerialTransport {
    port: Box<dyn serialport::SerialPort>,
    name: String,
    baud: u32,
}

impl SerialTransport {
    pub fn open(name: &str, baud: u32) -> Result<Self, Box<dyn std::error::Error>> {
        let port = serialport::new(name, baud)
            .timeout(Duration::from_millis(500))
            .open()
            .map_err(|e| format!("cannot open serial port {name}: {e}"))?;
        Ok(SerialTransport {
            port,
            name: name.to_string(),
            baud,
        })
    }
}

impl Transport for SerialTransport {
    fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.port.write_all(bytes)?;
        self.port.flush()
    }

    fn recv(&mut self, n: usize) -> std::io::Result<Vec<u8>> {
        let mut buf = vec![0; n];
        self.port.read_exact(&mut buf)?;
        Ok(buf)
    }

    fn wait_clocks(&mut self, clocks: u64) -> std::io::Result<()> {
        let ns = clocks.saturating_mul(1_000_000_000) / pmcg_fpga::CLOCK_HZ as u64;
        std::thread::sleep(Duration::from_nanos(ns));
        Ok(())
    }

    fn flush_input(&mut self) -> std::io::Result<()> {
        self.port
            .clear(serialport::ClearBuffer::Input)
            .map_err(std::io::Error::other)
    }

    fn describe(&self) -> String {
        format!("board on {} at {} baud", self.name, self.baud)
    }
}

fn run_script(
    path: &Path,
    port: Option<&str>,
    sim: Option<SimBackend>,
    baud: u32,
    trace: bool,
) -> CliResult {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let script = pmcg_sim::script::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    check_supported(&script).map_err(|e| format!("{}: {e}", path.display()))?;
    let report = match (port, sim) {
        (Some(p), _) => {
            let t = SerialTransport::open(p, baud)?;
            BoardRunner::new(BridgeClient::new(t), &script.config, trace).run(&script, true)?
        }
        (None, Some(b)) => {
            let t = sim_uart(&script.config, b, None)?;
            BoardRunner::new(BridgeClient::new(t), &script.config, trace).run(&script, false)?
        }
        (None, None) => return Err("give --port DEV or --sim native|verilator".into()),
    };
    Ok(if report.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Commands the board cannot perform at all (refused before anything runs, exit 2).
fn check_supported(script: &Script) -> Result<(), String> {
    for (line, cmd) in &script.lines {
        if let ScriptCommand::Event {
            partid,
            pmg,
            mpam_sp,
            ..
        } = cmd
        {
            if *partid != 0 || *pmg != 0 || *mpam_sp != pmcg_sim::pins::MpamSpace::NonSecure {
                return Err(format!(
                    "line {line}: the board's traffic generator drives PARTID 0, PMG 0, Non-secure PARTID space only"
                ));
            }
        }
    }
    Ok(())
}

/// Outcome of a board run (the counts are printed as the run ends).
pub struct BoardReport {
    pub failed: u32,
}

/// Runs a script over the bridge.
pub struct BoardRunner<T: Transport> {
    bridge: BridgeClient<T>,
    cfg: PmcgConfig,
    map: RegisterMap,
    trace: bool,
    ctrl: u32,
    irq_base: u32,
    msi_base: u32,
    /// EVTYPERn.EVENT as last written (reset 0: the cycle event).
    events: Vec<u32>,
    /// CNTEN bits as last written.
    enabled: Vec<bool>,
    /// Counter n may hold clock cycles the script does not account for (it counted event 0
    /// while enabled since its last write or reset).
    cycle_tainted: Vec<bool>,
    passed: u32,
    failed: u32,
    unchecked: u32,
}

type RunResult<T> = Result<T, Box<dyn std::error::Error>>;

impl<T: Transport> BoardRunner<T> {
    pub fn new(bridge: BridgeClient<T>, cfg: &PmcgConfig, trace: bool) -> Self {
        BoardRunner {
            bridge,
            cfg: cfg.clone(),
            map: RegisterMap::new(cfg),
            trace,
            ctrl: map::CTRL_NS,
            irq_base: 0,
            msi_base: 0,
            events: vec![0; cfg.counters as usize],
            enabled: vec![false; cfg.counters as usize],
            cycle_tainted: vec![false; cfg.counters as usize],
            passed: 0,
            failed: 0,
            unchecked: 0,
        }
    }

    fn io<V>(&self, r: std::io::Result<V>) -> RunResult<V> {
        r.map_err(|e| format!("{}: {e}", self.bridge.transport.describe()).into())
    }

    fn read(&mut self, addr: u32) -> RunResult<u32> {
        let v = self.bridge.read(addr);
        let v = self.io(v)?;
        if self.trace {
            println!("bridge read 0x{addr:08x} -> 0x{v:08x}");
        }
        Ok(v)
    }

    fn write(&mut self, addr: u32, value: u32) -> RunResult<()> {
        if self.trace {
            println!("bridge write 0x{addr:08x} <- 0x{value:08x}");
        }
        let r = self.bridge.write(addr, value);
        self.io(r)
    }

    fn set_ctrl(&mut self, ctrl: u32) -> RunResult<()> {
        self.ctrl = ctrl & !map::CTRL_PMCG_RESET;
        self.write(map::CTRL.addr(), ctrl)
    }

    fn set_access(&mut self, access: Access) -> RunResult<()> {
        let (ns, pnse) = match access {
            Access::Secure => (false, false),
            Access::NonSecure => (true, false),
            Access::Root => (false, true),
            Access::Realm => (true, true),
        };
        let mut c = self.ctrl & !(map::CTRL_NS | map::CTRL_PNSE);
        if ns {
            c |= map::CTRL_NS;
        }
        if pnse {
            c |= map::CTRL_PNSE;
        }
        if c != self.ctrl {
            self.set_ctrl(c)?;
        }
        Ok(())
    }

    /// Checks the board's identity and configuration against the script's (`strict`: refuse a
    /// difference, for a real board; a simulated one is built in the script's configuration).
    fn check_identity(&mut self, strict: bool) -> RunResult<()> {
        let id = self.read(map::ID.addr())?;
        if id != map::ID_VALUE {
            return Err(format!(
                "{}: no PMCG board answers (ID register 0x{id:08x}, expected 0x{:08x})",
                self.bridge.transport.describe(),
                map::ID_VALUE
            )
            .into());
        }
        let (w0, w1) = config_words(&self.cfg);
        let got = (
            self.read(map::CONFIG0.addr())?,
            self.read(map::CONFIG1.addr())?,
            self.read(map::BUILD_HASH.addr())?,
        );
        let want = (w0, w1, build_hash(&self.cfg));
        let clock = self.read(map::CLOCK_HZ.addr())?;
        println!(
            "board: {} (CONFIG0 0x{:08x} CONFIG1 0x{:08x} build hash 0x{:08x}), clock {} Hz",
            self.bridge.transport.describe(),
            got.0,
            got.1,
            got.2,
            clock
        );
        if got == want {
            println!("board configuration: {}", self.cfg.summary());
        }
        if got != want {
            let msg = format!(
                "the board's configuration (CONFIG0 0x{:08x} CONFIG1 0x{:08x} build hash 0x{:08x}) differs from the script's `{}` (0x{w0:08x} 0x{w1:08x} 0x{:08x})",
                got.0, got.1, got.2, self.cfg.summary(), want.2
            );
            if strict {
                return Err(msg.into());
            }
            println!("FAIL {msg}");
            self.failed += 1;
        }
        Ok(())
    }

    /// The board's state at the start of a script: PMCG reset, lanes stopped, MSI sink default
    /// and drained, counts as baselines.
    fn start(&mut self) -> RunResult<()> {
        for l in 0..self.cfg.lanes {
            self.write(map::lane_addr(l, map::lane::CTRL), 2)?;
        }
        self.set_ctrl(map::CTRL_NS | map::CTRL_PMCG_RESET)?;
        for r in [
            map::MSI_AW_DELAY,
            map::MSI_W_DELAY,
            map::MSI_B_DELAY,
            map::MSI_RESP,
        ] {
            self.write(r.addr(), 0)?;
        }
        let level = self.read(map::MSI_LEVEL.addr())?;
        for _ in 0..level {
            self.write(map::MSI_POP.addr(), 1)?;
        }
        self.irq_base = self.read(map::IRQ_COUNT.addr())?;
        self.msi_base = self.read(map::MSI_COUNT.addr())?;
        Ok(())
    }

    fn check(&mut self, line: usize, ok: bool, what: String) {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
            println!("FAIL line {line}: {what}");
        }
    }

    /// Why a read's value is not what a cycle-exact run gives, if it is not.
    fn inexact(&self, addr: u32) -> Option<String> {
        let (reg, _) = self.map.lookup(addr)?;
        let n = match reg.id {
            RegId::Evcntr(n) | RegId::Svr(n) => n,
            _ => return None,
        };
        (self.cycle_tainted.get(n as usize) == Some(&true)).then(|| {
            format!(
                "{} counts clock cycles (event 0), and every bridge access adds cycles the script does not count",
                reg.name.trim_start_matches("SMMU_PMCG_")
            )
        })
    }

    fn read_checked(
        &mut self,
        line: usize,
        addr: u32,
        actual: u64,
        expect: Option<Expectation>,
        width: u32,
    ) {
        let Some(e) = expect else { return };
        let ok = actual & e.mask == e.value & e.mask;
        let digits = (width / 4) as usize;
        let what = format!(
            "read 0x{addr:05x}: expected 0x{:0digits$x} (mask 0x{:0digits$x}), got 0x{actual:0digits$x}",
            e.value, e.mask
        );
        if let Some(why) = self.inexact(addr) {
            self.unchecked += 1;
            println!(
                "NOTE line {line}: not checked on the board: {why} ({what}{})",
                if ok { ", equal anyway" } else { "" }
            );
            return;
        }
        self.check(line, ok, what);
    }

    /// Follows the writes that decide whether a counter counts clock cycles.
    fn track_write(&mut self, addr: u32, value: u32) {
        let Some((reg, word)) = self.map.lookup(addr) else {
            return;
        };
        let first = if word == Word::High { 32 } else { 0 };
        let counters = self.enabled.len();
        let bits: Vec<usize> = (0..32usize)
            .filter(|b| value >> b & 1 != 0)
            .map(|b| b + first)
            .filter(|&n| n < counters)
            .collect();
        match reg.id {
            RegId::Evtyper(n) => self.events[n as usize] = value & 0xFFFF,
            RegId::CntenSet0 => bits.iter().for_each(|&n| self.enabled[n] = true),
            RegId::CntenClr0 => bits.iter().for_each(|&n| self.enabled[n] = false),
            RegId::Evcntr(n) => self.cycle_tainted[n as usize] = false,
            _ => {}
        }
        for n in 0..self.enabled.len() {
            if self.enabled[n] && self.events[n] == CYCLE_EVENT as u32 {
                self.cycle_tainted[n] = true;
            }
        }
    }

    pub fn run(mut self, script: &Script, strict: bool) -> RunResult<BoardReport> {
        self.check_identity(strict)?;
        self.start()?;
        for (line, cmd) in &script.lines {
            let line = *line;
            match cmd {
                ScriptCommand::Write {
                    addr,
                    value,
                    access,
                } => {
                    self.set_access(*access)?;
                    self.write(*addr, *value)?;
                    self.track_write(*addr, *value);
                }
                ScriptCommand::Write64 {
                    addr,
                    value,
                    access,
                } => {
                    self.set_access(*access)?;
                    self.write(*addr, *value as u32)?;
                    self.write(addr + 4, (*value >> 32) as u32)?;
                    self.track_write(*addr, *value as u32);
                    self.track_write(addr + 4, (*value >> 32) as u32);
                }
                ScriptCommand::Read {
                    addr,
                    expect,
                    access,
                } => {
                    self.set_access(*access)?;
                    let v = self.read(*addr)?;
                    self.read_checked(line, *addr, v as u64, *expect, 32);
                }
                ScriptCommand::Read64 {
                    addr,
                    expect,
                    access,
                } => {
                    self.set_access(*access)?;
                    // One burst of two words: low then high, as a 64-bit load is split.
                    let words = self.bridge.read_burst(*addr, 2);
                    let words = self.io(words)?;
                    if self.trace {
                        println!(
                            "bridge read 0x{addr:08x} x2 -> 0x{:08x} 0x{:08x}",
                            words[0], words[1]
                        );
                    }
                    let v = words[0] as u64 | (words[1] as u64) << 32;
                    self.read_checked(line, *addr, v, *expect, 64);
                }
                ScriptCommand::Event {
                    lane,
                    sid,
                    nosid,
                    ss,
                    bits,
                    cycles,
                    ..
                } => {
                    let l = *lane;
                    let mode = ss.code() << 4 | (*nosid as u32) << 7;
                    if *cycles > u32::MAX as u64 {
                        return Err(format!("line {line}: the traffic generator's burst is at most 0xFFFFFFFF cycles").into());
                    }
                    for (reg, v) in [
                        (map::lane::EVENTS, *bits),
                        (map::lane::SID_BASE, *sid),
                        (map::lane::SID_MASK, 0),
                        (map::lane::MODE, mode),
                        (map::lane::RATE_MASK, 0),
                        (map::lane::BURST, *cycles as u32),
                        (map::lane::SEED, 0),
                        (map::lane::CTRL, 1),
                    ] {
                        self.write(map::lane_addr(l, reg), v)?;
                    }
                    // Wait for the burst to end before the next command, as the script does.
                    while self.read(map::STATUS.addr())? & map::STATUS_TRAFFIC_BUSY != 0 {}
                }
                ScriptCommand::Idle(n) => {
                    let r = self.bridge.transport.wait_clocks(*n);
                    self.io(r)?;
                }
                ScriptCommand::Reset => {
                    self.set_ctrl(self.ctrl | map::CTRL_PMCG_RESET)?;
                    self.events.iter_mut().for_each(|e| *e = 0);
                    self.enabled.iter_mut().for_each(|e| *e = false);
                    self.cycle_tainted.iter_mut().for_each(|e| *e = false);
                }
                ScriptCommand::ExpectIrq(n) => {
                    let now = self.read(map::IRQ_COUNT.addr())?;
                    let got = now.wrapping_sub(self.irq_base) as u64;
                    self.irq_base = now;
                    self.check(
                        line,
                        got == *n,
                        format!("expected {n} interrupt pulses, counted {got}"),
                    );
                }
                ScriptCommand::ExpectMsi { count, addr, data } => {
                    let now = self.read(map::MSI_COUNT.addr())?;
                    let got = now.wrapping_sub(self.msi_base) as u64;
                    self.msi_base = now;
                    let level = self.read(map::MSI_LEVEL.addr())?;
                    let mut bad = Vec::new();
                    for _ in 0..level {
                        let lo = self.read(map::MSI_ADDR_LO.addr())?;
                        let hi = self.read(map::MSI_ADDR_HI.addr())?;
                        let d = self.read(map::MSI_DATA.addr())?;
                        self.write(map::MSI_POP.addr(), 1)?;
                        let a = lo as u64 | ((hi & 0x00FF_FFFF) as u64) << 32;
                        if addr.is_some_and(|x| x != a) || data.is_some_and(|x| x != d) {
                            bad.push(format!("0x{a:x} <- 0x{d:08x}"));
                        }
                    }
                    let ok = got == *count && bad.is_empty() && level as u64 == got;
                    self.check(
                        line,
                        ok,
                        format!(
                            "expected {count} MSI writes (addr {addr:x?}, data {data:x?}), completed {got}, recorded {level}{}",
                            if bad.is_empty() { String::new() } else { format!(", differing: {}", bad.join(", ")) }
                        ),
                    );
                }
                ScriptCommand::MsiSlave { aw, w, b, resp } => {
                    let clamp = |v: u32| v.min(0xFFFF);
                    if *aw != 0 || *w != 0 || *b != 0 {
                        println!("NOTE line {line}: MSI sink delays are clock cycles, and one bridge access takes hundreds of them: expectations that rely on an MSI still being in flight may not hold on the board");
                    }
                    if *aw > 0xFFFF || *w > 0xFFFF || *b > 0xFFFF {
                        println!("NOTE line {line}: the board's MSI sink delays are at most 65535 cycles; clamped");
                    }
                    self.write(map::MSI_AW_DELAY.addr(), clamp(*aw))?;
                    self.write(map::MSI_W_DELAY.addr(), clamp(*w))?;
                    self.write(map::MSI_B_DELAY.addr(), clamp(*b))?;
                    self.write(map::MSI_RESP.addr(), *resp as u32)?;
                }
                ScriptCommand::CaptReq(level) => {
                    let c = if *level {
                        self.ctrl | map::CTRL_CAPT_REQ
                    } else {
                        self.ctrl & !map::CTRL_CAPT_REQ
                    };
                    self.set_ctrl(c)?;
                }
                ScriptCommand::CaptureRequest => {
                    self.set_ctrl(self.ctrl | map::CTRL_CAPT_REQ)?;
                    let rose = self.read(map::STATUS.addr())? & map::STATUS_CAPT_ACK != 0;
                    self.set_ctrl(self.ctrl & !map::CTRL_CAPT_REQ)?;
                    let fell = self.read(map::STATUS.addr())? & map::STATUS_CAPT_ACK == 0;
                    self.check(
                        line,
                        rose && fell,
                        format!("CAPT_ACK did not {}", if rose { "fall" } else { "rise" }),
                    );
                }
            }
        }
        if self.unchecked > 0 {
            println!(
                "{} expectation(s) not checked on the board (listed above as NOTE)",
                self.unchecked
            );
        }
        println!("{} passed, {} failed", self.passed, self.failed);
        Ok(BoardReport {
            failed: self.failed,
        })
    }
}

fn serve(
    sim: SimBackend,
    settings: &[String],
    listen: &str,
    connections: Option<u32>,
    csr: Option<&Path>,
) -> CliResult {
    let cfg = board_or_settings(settings)?;
    if let Some(p) = csr {
        std::fs::write(p, pmcg_fpga::top::csr_csv(&cfg))
            .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    let mut uart = sim_uart(&cfg, sim, Some(SERVE_TIMEOUT_CLOCKS))?;
    let listener = std::net::TcpListener::bind(listen)
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    println!(
        "serving the {} simulated board ({}) on {}",
        uart.backend(),
        cfg.summary(),
        listener.local_addr()?
    );
    std::io::stdout().flush()?;
    let mut served = 0;
    loop {
        let (mut sock, peer) = listener.accept()?;
        sock.set_nonblocking(true)?;
        sock.set_nodelay(true)?;
        eprintln!("connection from {peer}");
        let mut buf = [0u8; 4096];
        'conn: loop {
            // Bytes from the client go onto the simulated line; the board runs while it has
            // something to do, and its bytes go back.
            loop {
                match sock.read(&mut buf) {
                    Ok(0) => break 'conn,
                    Ok(n) => uart.send(&buf[..n])?,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => {
                        eprintln!("connection from {peer}: {e}");
                        break 'conn;
                    }
                }
            }
            // Full speed while bytes are in flight; about 100k clocks a second when idle, so
            // that the traffic generator and MSIs progress and the timeout stays ~10 s.
            let busy = uart.sending();
            for _ in 0..if busy { 2000 } else { 50 } {
                uart.cycle();
            }
            let out = uart.take_received();
            if !out.is_empty() {
                sock.set_nonblocking(false)?;
                if sock.write_all(&out).is_err() {
                    break 'conn;
                }
                sock.set_nonblocking(true)?;
            }
            if !busy && out.is_empty() {
                std::thread::sleep(Duration::from_micros(500));
            }
        }
        served += 1;
        if connections.is_some_and(|c| served >= c) {
            return Ok(ExitCode::SUCCESS);
        }
    }
}
