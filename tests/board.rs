//! The FPGA prototype (fpga/, `smmu-pmcg board ...`), on the simulated board: the whole board
//! core (UART, bridge, decoder, traffic generator, MSI sink, PMCG) driven through a bit-level
//! simulated UART, natively and as its emitted Verilog through Verilator; scripts through
//! `board run --sim`; the real `litex_server` + `litex_cli` through `board serve`; and the
//! bitstream build.
//!
//! ```text
//!   test ─► BridgeClient / raw bytes ─► SimUart ─► NativeBoard | VerilatorBoard
//!   test ─► smmu-pmcg board run --sim ...      test ─► board serve ◄─TCP─ litex_server ◄─ litex_cli
//! ```

mod common;

use pmcg_fpga::board::{build_hash, config_words, BoardParams};
use pmcg_fpga::host::{
    command_bytes, BridgeClient, SimUart, Transport, CMD_READ, CMD_READ_FIXED, CMD_WRITE,
    CMD_WRITE_FIXED,
};
use pmcg_fpga::map;
use pmcg_fpga::sim::{BoardSim, NativeBoard, VerilatorBoard};
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{RegId, RegisterMap};
use std::path::PathBuf;
use std::process::{Command, Output};

const CPB: u32 = 4;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_smmu-pmcg"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pmcg-board-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn small() -> PmcgConfig {
    // The configuration of tests/scripts/msi-*.pmcg and capture-*.pmcg: one Verilator build.
    PmcgConfig::parse_kv([
        "counters=4",
        "counter_bits=32",
        "sid_bits=8",
        "lanes=2",
        "pa_bits=40",
    ])
    .unwrap()
}

/// The simulated board of `cfg` on the native simulation and, when Verilator is there (always
/// with PMCG_REQUIRE_TOOLS=1), on the emitted Verilog; those of the two `PMCG_BACKENDS` selects.
fn boards(cfg: &PmcgConfig) -> Vec<SimUart> {
    let p = BoardParams::sim(CPB);
    let mut v: Vec<Box<dyn BoardSim>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            v.push(Box::new(NativeBoard::new(cfg, &p).unwrap()));
        } else {
            v.push(Box::new(
                VerilatorBoard::new(cfg, &p, &pmcg_sim::vdut::cache_dir()).unwrap(),
            ));
        }
    }
    v.into_iter().map(|b| SimUart::new(b, CPB)).collect()
}

fn word(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn bridge_commands_burst_fixed_and_identity() {
    let cfg = small();
    let map_ = RegisterMap::new(&cfg);
    let cfgr = map_.reg(RegId::Cfgr).reset() as u32;
    let evtyper_mask = map_
        .reg(RegId::Evtyper(0))
        .mask_of(pmcg_hdl::regmap::Access::RW) as u32;
    for uart in boards(&cfg) {
        let name = uart.backend();
        let mut b = BridgeClient::new(uart);
        // Identity and configuration words, as the host checks them.
        assert_eq!(b.read(map::ID.addr()).unwrap(), map::ID_VALUE, "{name}");
        let (w0, w1) = config_words(&cfg);
        let info = b.read_burst(map::CONFIG0.addr(), 6).unwrap();
        assert_eq!(
            info,
            vec![
                w0,
                w1,
                cfg.page1_offset,
                build_hash(&cfg),
                pmcg_fpga::CLOCK_HZ,
                CPB
            ],
            "{name}"
        );
        // Bridge address = architectural offset.
        assert_eq!(b.read(0xE00).unwrap(), cfgr, "{name}: CFGR");
        // 0x01 write incr, 0x02 read incr: three EVTYPERs in one burst each.
        let vals = [0x8000_0001u32, 0x0000_0003, 0xFFFF_FFFF];
        b.write_burst(0x400, &vals).unwrap();
        let back = b.read_burst(0x400, 3).unwrap();
        let want: Vec<u32> = vals.iter().map(|v| v & evtyper_mask).collect();
        assert_eq!(back, want, "{name}: EVTYPER0-2");
        // 0x03 write fixed: three words to one register, the last one stays; 0x04 read fixed.
        let seed = map::lane_addr(0, map::lane::SEED);
        b.transport
            .send(&command_bytes(
                CMD_WRITE_FIXED,
                seed,
                3,
                &[1, 2, 0xCAFE_F00D],
            ))
            .unwrap();
        b.transport
            .send(&command_bytes(CMD_READ_FIXED, seed, 2, &[]))
            .unwrap();
        assert_eq!(
            word(&b.transport.recv(8).unwrap()),
            vec![0xCAFE_F00D; 2],
            "{name}"
        );
        assert_eq!(
            b.read(map::lane_addr(0, map::lane::EVENTS)).unwrap(),
            0,
            "{name}: fixed writes stayed put"
        );
    }
}

#[test]
fn bridge_back_to_back_garbage_cut_commands_and_unmapped_reads() {
    let cfg = small();
    for mut uart in boards(&cfg) {
        let name = uart.backend();
        // Back to back: a write and three reads sent in one go, answers in order.
        let mut bytes = command_bytes(CMD_WRITE, map::MSI_AW_DELAY.addr(), 1, &[7]);
        bytes.extend(command_bytes(CMD_READ, map::MSI_AW_DELAY.addr(), 1, &[]));
        bytes.extend(command_bytes(CMD_READ, map::ID.addr(), 1, &[]));
        bytes.extend(command_bytes(CMD_READ, map::VERSION.addr(), 1, &[]));
        uart.send(&bytes).unwrap();
        assert_eq!(
            word(&uart.recv(12).unwrap()),
            vec![7, map::ID_VALUE, map::MAP_VERSION],
            "{name}: back to back"
        );
        // Garbage between commands: bytes that are no command, and a frame with a bad stop bit
        // carrying a command byte; then a read is understood.
        uart.send(&[0x00, 0xFF, 0x55, 0x80, 0x05]).unwrap();
        uart.send_frame(CMD_READ, false);
        uart.send(&command_bytes(CMD_READ, map::ID.addr(), 1, &[]))
            .unwrap();
        assert_eq!(
            word(&uart.recv(4).unwrap()),
            vec![map::ID_VALUE],
            "{name}: after garbage"
        );
        // A zero-length command takes its address and answers nothing.
        uart.send(&command_bytes(CMD_READ, map::ID.addr(), 0, &[]))
            .unwrap();
        uart.wait_clocks(200 * CPB as u64).unwrap();
        assert_eq!(uart.pending(), 0, "{name}: length 0 answers nothing");
        // Unmapped: the gap between the PMCG's window and the board block, above the board
        // block, and an offset the PMCG does not implement all read 0; writes there are ignored.
        let mut b = BridgeClient::new(uart);
        for addr in [0x000F_0000u32, 0x0010_1000, 0x8000_0000, 0xFFFF_FFFC, 0xD00] {
            b.write(addr, 0xFFFF_FFFF).unwrap();
            assert_eq!(b.read(addr).unwrap(), 0, "{name}: unmapped 0x{addr:x}");
        }
        assert_eq!(b.read(map::ID.addr()).unwrap(), map::ID_VALUE, "{name}");
        // A command cut short (command, length, two of four address bytes) wedges nothing:
        // the timeout (40 bit times) returns the bridge to idle and sets STATUS.TIMED_OUT.
        assert_eq!(
            b.read(map::STATUS.addr()).unwrap() & map::STATUS_TIMED_OUT,
            0,
            "{name}"
        );
        b.transport.send(&[CMD_READ, 1, 0x00, 0x04]).unwrap();
        b.transport.wait_clocks(60 * CPB as u64).unwrap();
        assert_eq!(
            b.transport.pending(),
            0,
            "{name}: a cut command answers nothing"
        );
        assert_eq!(
            b.read(map::ID.addr()).unwrap(),
            map::ID_VALUE,
            "{name}: after a cut command"
        );
        assert_ne!(
            b.read(map::STATUS.addr()).unwrap() & map::STATUS_TIMED_OUT,
            0,
            "{name}"
        );
        // A cut write burst: one of two data words; nothing but that word is written.
        let mut cut = command_bytes(CMD_WRITE, map::MSI_B_DELAY.addr(), 2, &[5]);
        cut.truncate(cut.len() - 1);
        b.transport.send(&cut).unwrap();
        b.transport.wait_clocks(60 * CPB as u64).unwrap();
        assert_eq!(
            b.read(map::MSI_B_DELAY.addr()).unwrap(),
            0,
            "{name}: a cut word is not written"
        );
    }
}

#[test]
fn reset_button_and_leds() {
    let cfg = small();
    for uart in boards(&cfg) {
        let name = uart.backend();
        let mut b = BridgeClient::new(uart);
        // LED 7 shows reset, LED 5 a received byte, LED 6 a command in progress.
        assert_eq!(b.transport.leds & 0x80, 0, "{name}: out of reset");
        b.write(map::MSI_RESP.addr(), 2).unwrap();
        b.write(map::CTRL.addr(), map::CTRL_CAPT_REQ).unwrap();
        b.transport.wait_clocks(1).unwrap(); // a write only queues its bytes: send them
        assert_ne!(b.transport.leds & 0x20, 0, "{name}: UART LED after a byte");
        b.transport.press_reset(8);
        assert_ne!(
            b.transport.leds & 0x80,
            0,
            "{name}: reset LED while the button is held"
        );
        b.transport.wait_clocks(8).unwrap();
        assert_eq!(
            b.transport.leds & 0x80,
            0,
            "{name}: reset LED after release"
        );
        // The button resets the board's registers to their documented values.
        assert_eq!(b.read(map::MSI_RESP.addr()).unwrap(), 0, "{name}");
        assert_eq!(b.read(map::CTRL.addr()).unwrap(), map::CTRL_NS, "{name}");
        // LED 1 lights for the interrupt an overflow raises.
        let m = RegisterMap::new(&cfg);
        b.write(m.reg(RegId::Evcntr(0)).addr, 0xFFFF_FFF0).unwrap();
        b.write(m.reg(RegId::IntenSet0).addr, 1).unwrap();
        b.write(m.reg(RegId::IrqCtrl).addr, 1).unwrap();
        b.write(m.reg(RegId::CntenSet0).addr, 1).unwrap(); // EVTYPER0 = 0: counts cycles
        b.write(m.reg(RegId::Cr).addr, 1).unwrap();
        assert_eq!(
            b.read(map::IRQ_COUNT.addr()).unwrap(),
            1,
            "{name}: one overflow"
        );
        assert_ne!(b.transport.leds & 0x02, 0, "{name}: IRQ LED stretched");
    }
}

#[test]
fn msi_sink_records_address_data_awprot_and_answers_slverr() {
    let cfg = small();
    let m = RegisterMap::new(&cfg);
    let scr = m.reg(RegId::Scr);
    let field_reset = |n: &str| scr.field(n).map(|f| f.reset).unwrap_or(0);
    // docs/behaviour.md: AWPROT = {0 (data), NS, 1 (privileged)}, NS = SCR.NSMSI | SCR.NSRA.
    let ns = (field_reset("NSMSI") | field_reset("NSRA")) as u32 & 1;
    let prot = 0b001 | ns << 1;
    let abt = m.mask(field::IRQ_STATUS_IRQ_ABT) as u32;
    for uart in boards(&cfg) {
        let name = uart.backend();
        let mut b = BridgeClient::new(uart);
        // Counter 0 counts cycles from max - 0x40: it overflows within one bridge access.
        let overflow = |b: &mut BridgeClient<SimUart>| {
            b.write(m.reg(RegId::Cr).addr, 0).unwrap();
            b.write(m.reg(RegId::Evcntr(0)).addr, 0xFFFF_FFC0).unwrap();
            b.write(m.reg(RegId::Cr).addr, 1).unwrap();
            b.transport.wait_clocks(200).unwrap();
        };
        b.write(m.reg(RegId::IrqCfg0).addr, 0x3456_7890).unwrap();
        b.write(m.reg(RegId::IrqCfg0).addr + 4, 0xAB).unwrap();
        b.write(m.reg(RegId::IrqCfg1).addr, 0xC0FF_EE01).unwrap();
        b.write(m.reg(RegId::IntenSet0).addr, 1).unwrap();
        b.write(m.reg(RegId::CntenSet0).addr, 1).unwrap();
        b.write(m.reg(RegId::IrqCtrl).addr, 1).unwrap();
        // Slow handshakes and SLVERR: the MSI completes, the PMCG sets IRQ_ABT.
        b.write(map::MSI_AW_DELAY.addr(), 9).unwrap();
        b.write(map::MSI_W_DELAY.addr(), 3).unwrap();
        b.write(map::MSI_B_DELAY.addr(), 17).unwrap();
        b.write(map::MSI_RESP.addr(), 2).unwrap();
        overflow(&mut b);
        assert_eq!(b.read(map::MSI_COUNT.addr()).unwrap(), 1, "{name}");
        assert_eq!(b.read(map::MSI_LEVEL.addr()).unwrap(), 1, "{name}");
        let head = b.read_burst(map::MSI_ADDR_LO.addr(), 3).unwrap();
        assert_eq!(
            head,
            vec![0x3456_7890, 0xAB | prot << 28, 0xC0FF_EE01],
            "{name}: address, AWPROT, data"
        );
        assert_ne!(
            b.read(m.reg(RegId::IrqStatus).addr).unwrap() & abt,
            0,
            "{name}: IRQ_ABT"
        );
        b.write(map::MSI_POP.addr(), 1).unwrap();
        assert_eq!(b.read(map::MSI_LEVEL.addr()).unwrap(), 0, "{name}: popped");
        // DECERR is an abort too; OKAY is not (IRQ_ABT clears when IRQ_CTRLACK goes 0 -> 1).
        for (resp, aborts) in [(3, true), (0, false)] {
            b.write(map::MSI_RESP.addr(), resp).unwrap();
            b.write(m.reg(RegId::IrqCtrl).addr, 0).unwrap();
            b.write(m.reg(RegId::IrqCtrl).addr, 1).unwrap();
            assert_eq!(
                b.read(m.reg(RegId::IrqStatus).addr).unwrap() & abt,
                0,
                "{name}"
            );
            overflow(&mut b);
            let st = b.read(m.reg(RegId::IrqStatus).addr).unwrap() & abt;
            assert_eq!(st != 0, aborts, "{name}: BRESP {resp}");
        }
        assert_eq!(b.read(map::MSI_COUNT.addr()).unwrap(), 3, "{name}");
        assert_eq!(b.read(map::MSI_LEVEL.addr()).unwrap(), 2, "{name}");
    }
}

/// The Galois LFSR of the traffic generator's documentation (fpga/src/traffic.rs), written out
/// independently of the hardware.
fn lfsr(x: u32) -> u32 {
    if x & 1 == 1 {
        (x >> 1) ^ 0x8020_0003
    } else {
        x >> 1
    }
}

#[test]
fn traffic_generator_gives_the_counts_the_host_computes() {
    let cfg = small();
    let m = RegisterMap::new(&cfg);
    let span = m.mask(field::EVTYPER_FILTER_SID_SPAN) as u32;
    let evcntr = |n| m.reg(RegId::Evcntr(n)).addr;
    for uart in boards(&cfg) {
        let name = uart.backend();
        let mut b = BridgeClient::new(uart);
        // Counter 0: event 1, every StreamID (SPAN with all-ones SMR); counter 1: event 1,
        // ExactSID 0x42; counter 2: event 2, every StreamID; counter 3: event 1 ExactSID 0x10.
        b.write(m.reg(RegId::Evtyper(0)).addr, 1 | span).unwrap();
        b.write(m.reg(RegId::Smr(0)).addr, 0xFF).unwrap();
        b.write(m.reg(RegId::Evtyper(1)).addr, 1).unwrap();
        b.write(m.reg(RegId::Smr(1)).addr, 0x42).unwrap();
        b.write(m.reg(RegId::Evtyper(2)).addr, 2 | span).unwrap();
        b.write(m.reg(RegId::Smr(2)).addr, 0xFF).unwrap();
        b.write(m.reg(RegId::Evtyper(3)).addr, 1).unwrap();
        b.write(m.reg(RegId::Smr(3)).addr, 0x10).unwrap();
        b.write(m.reg(RegId::CntenSet0).addr, 0xF).unwrap();
        b.write(m.reg(RegId::Cr).addr, 1).unwrap();
        let bit = |e| 1u32 << cfg.lane_bit_of(e).unwrap();
        let run = |b: &mut BridgeClient<SimUart>,
                   events: u32,
                   mode: u32,
                   rate: u32,
                   burst: u32,
                   seed: u32| {
            for (r, v) in [
                (map::lane::EVENTS, events),
                (map::lane::SID_BASE, 0),
                (map::lane::SID_MASK, 0xFF),
                (map::lane::MODE, mode),
                (map::lane::RATE_MASK, rate),
                (map::lane::BURST, burst),
                (map::lane::SEED, seed),
                (map::lane::CTRL, 1),
            ] {
                b.write(map::lane_addr(0, r), v).unwrap();
            }
            while b.read(map::STATUS.addr()).unwrap() & map::STATUS_TRAFFIC_BUSY != 0 {}
        };
        // LFSR StreamIDs, every cycle, 600 cycles, events 1 and 2.
        let seed = 0xACE1;
        run(&mut b, bit(1) | bit(2), 2, 0, 600, seed);
        let mut x = seed;
        let (mut n42, mut n10) = (0, 0);
        for _ in 0..600 {
            n42 += (x & 0xFF == 0x42) as u32;
            n10 += (x & 0xFF == 0x10) as u32;
            x = lfsr(x);
        }
        assert!(n42 > 0 && n10 > 0, "the seed must exercise both filters");
        let got: Vec<u32> = (0..4).map(|n| b.read(evcntr(n)).unwrap()).collect();
        assert_eq!(got, vec![600, n42, 600, n10], "{name}: LFSR burst");
        // Counting StreamIDs from 0x0F, one event in 4 cycles over 1001 cycles: 251 events with
        // StreamIDs 0x0F, 0x10, ...: 0x10 once, 0x42 once.
        run(&mut b, bit(1), 1, 3, 1001, 0x0F);
        let got: Vec<u32> = (0..4).map(|n| b.read(evcntr(n)).unwrap()).collect();
        assert_eq!(
            got,
            vec![600 + 251, n42 + 1, 600, n10 + 1],
            "{name}: counting burst"
        );
        // Fixed StreamID 0x42, Secure: the Non-secure filters of counters 1 and 3 do not count it.
        run(&mut b, bit(1), 1 << 4, 0, 10, 0x42);
        let got: Vec<u32> = (0..4).map(|n| b.read(evcntr(n)).unwrap()).collect();
        assert_eq!(got[1], n42 + 1, "{name}: Secure traffic, Non-secure filter");
        // A long burst is stopped by CTRL bit 1.
        for (r, v) in [
            (map::lane::MODE, 0),
            (map::lane::BURST, 1_000_000),
            (map::lane::CTRL, 1),
        ] {
            b.write(map::lane_addr(0, r), v).unwrap();
        }
        assert_eq!(
            b.read(map::lane_addr(0, map::lane::CTRL)).unwrap(),
            1,
            "{name}: busy"
        );
        b.write(map::lane_addr(0, map::lane::CTRL), 2).unwrap();
        assert_eq!(
            b.read(map::lane_addr(0, map::lane::CTRL)).unwrap(),
            0,
            "{name}: stopped"
        );
        let before = b.read(evcntr(0)).unwrap();
        assert_eq!(
            b.read(evcntr(0)).unwrap(),
            before,
            "{name}: no events after stop"
        );
    }
}

fn board_run(script: &str, backend: &str) -> Output {
    bin()
        .args(["board", "run", "--script", script, "--sim", backend])
        .output()
        .unwrap()
}

fn backend_names() -> Vec<&'static str> {
    common::cli_backends(&["native", "verilator"])
}

/// The scripts of tests/scripts that make sense on a board (no cycle-exact MSI backpressure,
/// no MPAM labels on the lanes), in small configurations.
const BOARD_SCRIPTS: [&str; 6] = [
    "msi-overflow",
    "msi-abort",
    "capture-capr",
    "capture-external",
    "filter-spec-examples",
    "filter-global",
];

#[test]
fn board_scripts_pass_on_the_simulated_board() {
    for backend in backend_names() {
        for s in BOARD_SCRIPTS {
            let path = format!("tests/scripts/{s}.pmcg");
            let o = board_run(&path, backend);
            let out = text(&o);
            assert_eq!(o.status.code(), Some(0), "{s} on {backend}:\n{out}");
            let last = out.lines().last().unwrap_or("");
            assert!(
                last.ends_with("passed, 0 failed") && !last.starts_with("0 passed"),
                "{s} on {backend}: {last}"
            );
        }
    }
}

#[test]
fn board_run_fails_notes_and_refuses_like_sim() {
    let dir = tmp("scripts");
    // A wrong expectation: exit 1 naming the line, on the board too.
    let bad = dir.join("bad.pmcg");
    std::fs::write(
        &bad,
        "config counters=4 counter_bits=32\nread 0xE00 expect 0x1234\n",
    )
    .unwrap();
    let o = board_run(bad.to_str().unwrap(), "native");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("FAIL line 2") && text(&o).ends_with("0 passed, 1 failed\n"),
        "{}",
        text(&o)
    );
    // A cycle count is not checked silently: a NOTE names the line, and it is not counted.
    let cyc = dir.join("cycles.pmcg");
    std::fs::write(
        &cyc,
        "config counters=4 counter_bits=32\nwrite 0xC00 1\nwrite 0xE04 1\nidle 10\nread 0x10000 expect 12\n",
    )
    .unwrap();
    let o = board_run(cyc.to_str().unwrap(), "native");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("NOTE line 5: not checked on the board")
            && text(&o).ends_with("0 passed, 0 failed\n"),
        "{}",
        text(&o)
    );
    // What the traffic generator cannot do is refused before anything runs (exit 2).
    let mpam = dir.join("mpam.pmcg");
    std::fs::write(
        &mpam,
        "config counters=4 counter_bits=32 mpam_filter=on\nevent ids=1 partid=3\n",
    )
    .unwrap();
    let o = board_run(mpam.to_str().unwrap(), "native");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("line 2:"), "{}", text(&o));
    // A serial port that is not there: exit 2 naming it.
    let o = bin()
        .args([
            "board",
            "run",
            "--script",
            "tests/scripts/msi-overflow.pmcg",
            "--port",
            "/dev/no-such-tty",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("/dev/no-such-tty"), "{}", text(&o));
    // A page 1 inside the board block is refused before any tool runs, naming the key.
    let o = bin()
        .args(["board", "build", "page1_offset=0x100000", "--out"])
        .arg(dir.join("build"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("page1_offset"), "{}", text(&o));
    // A malformed script: exit 2 naming the line, as `sim`.
    let o = board_run("tests/scripts/bad-syntax.pmcg", "native");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("line "), "{}", text(&o));
}

/// The Python tools' venv (scripts/install-python-tools.sh).
fn python_tool(name: &str) -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target/python-tools/bin")
        .join(name);
    if p.is_file() {
        return Some(p);
    }
    assert!(
        !common::tools_required(),
        "{name} is required (PMCG_REQUIRE_TOOLS=1): run scripts/install-python-tools.sh"
    );
    eprintln!("skipping: {name} not installed (scripts/install-python-tools.sh)");
    None
}

struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_port(port: u16) {
    for _ in 0..300 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("nothing listens on {port}");
}

#[test]
fn litex_cli_reads_cfgr_and_a_counter_through_litex_server() {
    let (Some(server), Some(cli)) = (python_tool("litex_server"), python_tool("litex_cli")) else {
        return;
    };
    let dir = tmp("litex");
    let csr = dir.join("csr.csv");
    let cfg = small();
    let cfgr = RegisterMap::new(&cfg).reg(RegId::Cfgr).reset();
    for backend in backend_names() {
        let uart_port = free_port();
        let mut serve = bin()
            .args([
                "board",
                "serve",
                "--sim",
                backend,
                "--listen",
                &format!("127.0.0.1:{uart_port}"),
                "--csr",
            ])
            .arg(&csr)
            .args([
                "counters=4",
                "counter_bits=32",
                "sid_bits=8",
                "lanes=2",
                "pa_bits=40",
            ])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // It prints "serving ..." once it listens (after building the Verilator model).
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(serve.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        assert!(line.starts_with("serving"), "{backend}: {line}");
        let _serve = Child(serve);
        let bind = free_port();
        let _server = Child(
            Command::new(&server)
                .args([
                    "--uart",
                    "--uart-port",
                    &format!("socket://127.0.0.1:{uart_port}"),
                    "--bind-port",
                    &bind.to_string(),
                ])
                .current_dir(&dir)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        );
        wait_port(bind);
        let litex = |args: &[&str]| {
            let o = Command::new(&cli)
                .args(["--port", &bind.to_string(), "--csr-csv"])
                .arg(&csr)
                .args(args)
                .current_dir(&dir)
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "litex_cli {args:?} on {backend}: {}",
                text(&o)
            );
            String::from_utf8_lossy(&o.stdout).into_owned()
        };
        // litex_cli prints `0xADDR : 0xVALUE`: one word each (csr.csv lengths are right).
        let out = litex(&["--read", "pmcg_cfgr"]);
        assert_eq!(
            out.trim(),
            format!("0x00000e00 : 0x{cfgr:08x}"),
            "{backend}: CFGR"
        );
        litex(&["--write", "pmcg_evcntr2", "0x5a5a1234"]);
        let out = litex(&["--read", "pmcg_evcntr2"]);
        let evcntr2 = RegisterMap::new(&cfg).reg(RegId::Evcntr(2)).addr;
        assert_eq!(
            out.trim(),
            format!("0x{evcntr2:08x} : 0x5a5a1234"),
            "{backend}: EVCNTR2"
        );
        let out = litex(&["--read", "board_id"]);
        assert!(
            out.contains(&format!("0x{:08x}", map::ID_VALUE)),
            "{backend}: board ID: {out}"
        );
    }
}

#[test]
fn bitstream_builds_and_meets_the_readme_clock() {
    if !(common::have_tool("yosys")
        && common::have_tool("nextpnr-ice40")
        && common::have_tool("icepack"))
    {
        return;
    }
    let out = tmp("bitstream");
    let o = bin()
        .args(["board", "build", "--seed", "1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    let bin_file = out.join("smmu_pmcg_cu.bin");
    // An HX8K bitstream is 135,100 bytes.
    let len = std::fs::metadata(&bin_file).map(|m| m.len()).unwrap_or(0);
    assert!(len > 100_000, "{}: {len} bytes\n{t}", bin_file.display());
    // The README's clock: 100 MHz, the oscillator itself (fpga::CLOCK_HZ), achieved.
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(readme.contains("100 MHz"), "README states the board clock");
    assert_eq!(pmcg_fpga::CLOCK_HZ, 100_000_000);
    let achieved: f64 = t
        .split("clock ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0.0);
    assert!(achieved >= 100.0, "{t}");
    assert!(std::fs::read_to_string(out.join("csr.csv"))
        .unwrap()
        .contains("constant,config_csr_data_width,32"));
}
