//! Block-level tests of the APB4 completer (`pmcg_hdl::apb::ApbCompleter`) against
//! docs/behaviour.md "APB4 completer" and "Counter and shadow accesses": PREADY per cycle, the
//! cycle the request is presented to the register file, the last held cycle of a write,
//! `xfer_nx` (the next cycle is held or an access cycle), PRESETn in a hold, and `req_wr_ok`
//! (a write SCR.NSRA allows: PPROT[1] and `nsra_open` at the setup edge). Each test runs
//! the same bus on the native block and on its emitted Verilog under Verilator
//! (`pmcg_synth::apb`), each checked against the contract.
//!
//! ```text
//!   bus per cycle (PSEL, PENABLE, PWRITE, PADDR, PRESETn) + filt_busy (+ PPROT[1], nsra_open)
//!       ──► dyn Completer: NativeCompleter | VerilatorCompleter
//!       ──► seen before the edge: PREADY, req_rd, req_wr, req_wr_ok, held_wr_last, xfer_nx, held
//!       ──► the contract's cycles (`want`), and xfer_nx against the next cycle, in every cycle
//! ```
//! `PMCG_BACKENDS` selects the backends and `PMCG_REQUIRE_TOOLS=1` requires Verilator
//! (tests/common).

mod common;

use pmcg_hdl::apb::ApbCompleter;
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::{RegId, RegisterMap, COUNTER_HOLD_CYCLES};
use pmcg_sim::verilator::VerilatedModel;
use pmcg_synth::apb::{completer_verilog, APB_TOP};
use rust_hdl::prelude::*;

/// The bus of one cycle: (PSEL, PENABLE, PWRITE, PADDR, PRESETn).
type Bus = (bool, bool, bool, u32, bool);

/// What one cycle shows before its edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    pready: bool,
    req_rd: bool,
    req_wr: bool,
    req_wr_ok: bool,
    held_wr_last: bool,
}

/// Besides [`Seen`]: the outputs checked in every cycle rather than against `want`.
struct Cycle {
    seen: Seen,
    xfer_nx: bool,
    held: bool,
}

trait Completer {
    fn name(&self) -> &'static str;
    /// Applies `bus` and `filt_busy` for one cycle: returns what the cycle shows, then clocks.
    fn cycle(&mut self, bus: Bus, filt_busy: bool) -> Cycle;
    /// The request's address register, after the last edge.
    fn req_addr(&self) -> u32;
    /// PPROT[1] (Non-secure) and `nsra_open` from the next cycle on (both 0 until set).
    fn set_security(&mut self, ns: bool, nsra_open: bool);
}

struct NativeCompleter(ApbCompleter);

impl NativeCompleter {
    fn new(map: &RegisterMap, filter_tables: bool) -> Self {
        let mut uut = ApbCompleter::new(map, filter_tables);
        uut.connect_all();
        uut.pstrb.next = 0xF.into();
        NativeCompleter(uut)
    }
}

impl Completer for NativeCompleter {
    fn name(&self) -> &'static str {
        "native"
    }

    fn cycle(&mut self, (psel, penable, pwrite, paddr, presetn): Bus, filt_busy: bool) -> Cycle {
        let u = &mut self.0;
        u.clock.next = Clock { clk: false };
        u.psel.next = psel;
        u.penable.next = penable;
        u.pwrite.next = pwrite;
        u.paddr.next = (paddr as u64).into();
        u.rst.next = !presetn;
        u.filt_busy.next = filt_busy;
        common::settle_block(&mut self.0, "the APB completer", 50);
        let u = &self.0;
        let c = Cycle {
            seen: Seen {
                pready: u.pready.val(),
                req_rd: u.req_rd.val(),
                req_wr: u.req_wr.val(),
                req_wr_ok: u.req_wr_ok.val(),
                held_wr_last: u.held_wr_last.val(),
            },
            xfer_nx: u.xfer_nx.val(),
            held: u.held.val(),
        };
        self.0.clock.next = Clock { clk: true };
        common::settle_block(&mut self.0, "the APB completer", 50);
        c
    }

    fn req_addr(&self) -> u32 {
        self.0.req_addr.val().to_u64() as u32
    }

    fn set_security(&mut self, ns: bool, nsra_open: bool) {
        self.0.pprot.next = ((ns as u64) << 1).into();
        self.0.nsra_open.next = nsra_open;
    }
}

struct VerilatorCompleter {
    m: VerilatedModel,
    /// clock, rst, psel, penable, pwrite, paddr, filt_busy, pprot, nsra_open
    ins: [usize; 9],
    /// pready, req_rd, req_wr, held_wr_last, xfer_nx, held, req_addr, req_wr_ok
    outs: [usize; 8],
}

impl VerilatorCompleter {
    fn new(cfg: &PmcgConfig, filter_tables: bool) -> Self {
        let v = completer_verilog(cfg, filter_tables, APB_TOP).unwrap();
        let mut m = VerilatedModel::build(&v, APB_TOP, &pmcg_sim::vdut::cache_dir())
            .unwrap_or_else(|e| panic!("Verilator build of the APB completer: {e}"));
        let port = |m: &VerilatedModel, n: &str| {
            m.port(n)
                .unwrap_or_else(|| panic!("the completer's Verilog has no port `{n}`"))
        };
        let ins = [
            "clock",
            "rst",
            "psel",
            "penable",
            "pwrite",
            "paddr",
            "filt_busy",
            "pprot",
            "nsra_open",
        ]
        .map(|n| port(&m, n));
        let outs = [
            "pready",
            "req_rd",
            "req_wr",
            "held_wr_last",
            "xfer_nx",
            "held",
            "req_addr",
            "req_wr_ok",
        ]
        .map(|n| port(&m, n));
        let pstrb = port(&m, "pstrb");
        m.set(pstrb, 0xF);
        VerilatorCompleter { m, ins, outs }
    }
}

impl Completer for VerilatorCompleter {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn cycle(&mut self, (psel, penable, pwrite, paddr, presetn): Bus, filt_busy: bool) -> Cycle {
        let [clock, rst, p_sel, p_enable, p_write, p_addr, busy, _, _] = self.ins;
        let [pready, req_rd, req_wr, held_wr_last, xfer_nx, held, _, req_wr_ok] = self.outs;
        let m = &mut self.m;
        m.set(clock, 0);
        m.set(p_sel, psel as u64);
        m.set(p_enable, penable as u64);
        m.set(p_write, pwrite as u64);
        m.set(p_addr, paddr as u64);
        m.set(rst, !presetn as u64);
        m.set(busy, filt_busy as u64);
        m.eval();
        let c = Cycle {
            seen: Seen {
                pready: m.get(pready) != 0,
                req_rd: m.get(req_rd) != 0,
                req_wr: m.get(req_wr) != 0,
                req_wr_ok: m.get(req_wr_ok) != 0,
                held_wr_last: m.get(held_wr_last) != 0,
            },
            xfer_nx: m.get(xfer_nx) != 0,
            held: m.get(held) != 0,
        };
        m.set(clock, 1);
        m.eval();
        c
    }

    fn req_addr(&self) -> u32 {
        self.m.get(self.outs[6]) as u32
    }

    fn set_security(&mut self, ns: bool, nsra_open: bool) {
        self.m.set(self.ins[7], (ns as u64) << 1);
        self.m.set(self.ins[8], nsra_open as u64);
    }
}

/// The completers of `cfg` that `PMCG_BACKENDS` selects, each after one reset cycle.
fn completers(cfg: &PmcgConfig, filter_tables: bool) -> Vec<Box<dyn Completer>> {
    let map = RegisterMap::new(cfg);
    let mut v: Vec<Box<dyn Completer>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            v.push(Box::new(NativeCompleter::new(&map, filter_tables)));
        } else {
            v.push(Box::new(VerilatorCompleter::new(cfg, filter_tables)));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no completer backend");
    for c in &mut v {
        run(c.as_mut(), &[(false, false, false, 0, false)], false);
    }
    v
}

/// Runs `bus` one cycle at a time with `filt_busy`; returns what each cycle showed. Checks in
/// every cycle that the last cycle's `xfer_nx` is this one's `held | req_rd | req_wr`.
fn run(dut: &mut dyn Completer, bus: &[Bus], filt_busy: bool) -> Vec<Seen> {
    let mut seen = Vec::new();
    let mut xfer_nx: Option<bool> = None;
    for (i, &b) in bus.iter().enumerate() {
        let c = dut.cycle(b, filt_busy);
        if let Some(nx) = xfer_nx {
            assert_eq!(
                nx,
                c.held | c.seen.req_rd | c.seen.req_wr,
                "{}: xfer_nx of cycle {} is held | req_rd | req_wr of cycle {i}",
                dut.name(),
                i - 1
            );
        }
        xfer_nx = Some(c.xfer_nx);
        seen.push(c.seen);
    }
    seen
}

/// A transfer to `addr` as the contract drives it: setup, `access` cycles with PENABLE.
fn transfer(write: bool, addr: u32, access: usize) -> Vec<Bus> {
    let mut b = vec![(true, false, write, addr, true)];
    b.extend(std::iter::repeat_n((true, true, write, addr, true), access));
    b
}

/// Expected cycles of a transfer: PREADY per cycle and the cycle (index) presented.
fn want(write: bool, held: usize) -> Vec<Seen> {
    let idle = Seen {
        pready: true,
        req_rd: false,
        req_wr: false,
        req_wr_ok: false,
        held_wr_last: false,
    };
    let mut w = vec![idle];
    for k in 0..held {
        w.push(Seen {
            pready: false,
            held_wr_last: write && k + 1 == held,
            ..idle
        });
    }
    w.push(Seen {
        pready: write,
        req_rd: !write,
        req_wr: write,
        // (Secure accesses: every write allowed.)
        req_wr_ok: write,
        ..idle
    });
    if !write {
        w.push(idle);
    }
    w
}

#[test]
fn counter_and_shadow_accesses_are_held_and_others_are_not() {
    // Four counters: most of each region maps no register.
    let cfg = PmcgConfig::parse_kv(["counters=4"]).expect("config");
    let map = RegisterMap::new(&cfg);
    let h = COUNTER_HOLD_CYCLES as usize;
    let evcntr = |n| map.reg(RegId::Evcntr(n)).addr;
    let svr = |n| map.reg(RegId::Svr(n)).addr;
    let held = [
        evcntr(0),
        evcntr(3) + 4,
        svr(0),
        svr(3) + 4,
        // Elements of the regions no register maps (past counter 3; each region ends at
        // +0x1FF): held all the same.
        evcntr(0) | 0x1FC,
        svr(0) | 0x100,
    ];
    let plain = [
        map.reg(RegId::Cr).addr,
        map.reg(RegId::Evtyper(0)).addr,
        map.reg(RegId::CntenSet0).addr,
        // Just past each region.
        evcntr(0) + 0x200,
        svr(0) + 0x200,
        svr(0) - 4,
    ];
    for mut dut in completers(&cfg, false) {
        for write in [false, true] {
            for (addrs, hold) in [(&held[..], h), (&plain[..], 0)] {
                for &a in addrs {
                    let access = hold + if write { 1 } else { 2 };
                    let got = run(dut.as_mut(), &transfer(write, a, access), false);
                    let what = format!(
                        "{}: {} of {a:#x}",
                        dut.name(),
                        if write { "write" } else { "read" }
                    );
                    assert_eq!(got, want(write, hold), "{what}");
                    assert_eq!(dut.req_addr(), a, "{what}: the request's address");
                }
            }
        }
    }
}

/// With filter tables: an EVTYPER or SMR write's access cycle has PREADY = 0, and so has
/// every cycle after it while the register file reports `filt_busy` (its rebuild); with
/// `filt_busy` never raised (a write the register file ignored) one wait state. Other
/// writes, and reads of EVTYPER, are as without tables; without tables nothing waits.
#[test]
fn with_filter_tables_an_evtyper_or_smr_write_waits_for_the_rebuild() {
    let cfg = PmcgConfig::parse_kv(["counters=4", "filter_tables=on"]).expect("config");
    let map = RegisterMap::new(&cfg);
    let evt = map.reg(RegId::Evtyper(1)).addr;
    let smr = map.reg(RegId::Smr(3)).addr;
    let cr = map.reg(RegId::Cr).addr;
    for tables in [true, false] {
        for mut dut in completers(&cfg, tables) {
            for (addr, busy_cycles) in [(evt, 5), (smr, 3), (evt, 0), (cr, 4)] {
                // Setup, the access cycle, then the register file's busy for `busy_cycles`
                // (from the cycle after the access edge, as its `fd_filt` and the rebuild), then
                // one cycle without.
                let mut seen = run(dut.as_mut(), &transfer(true, addr, 1), false);
                for _ in 0..busy_cycles {
                    seen.extend(run(dut.as_mut(), &[(true, true, true, addr, true)], true));
                }
                seen.extend(run(dut.as_mut(), &[(true, true, true, addr, true)], false));
                let waits = tables && addr != cr;
                let pready: Vec<bool> = seen.iter().map(|s| s.pready).collect();
                let mut want = vec![true, !waits];
                want.extend(std::iter::repeat_n(!waits, busy_cycles));
                want.push(true);
                let what = format!(
                    "{}: tables {tables}, write to {addr:#x}, busy {busy_cycles}",
                    dut.name()
                );
                assert_eq!(pready, want, "{what}");
                assert_eq!(
                    seen.iter().filter(|s| s.req_wr).count(),
                    1,
                    "{what}: performed once"
                );
            }
        }
    }
}

#[test]
fn presetn_low_in_a_held_cycle_drops_the_transfer() {
    let cfg = PmcgConfig::default();
    let map = RegisterMap::new(&cfg);
    let h = COUNTER_HOLD_CYCLES as usize;
    let a = map.reg(RegId::Evcntr(3)).addr;
    for mut dut in completers(&cfg, false) {
        for k in 1..=h {
            for write in [false, true] {
                let mut bus = transfer(write, a, h + 2);
                bus[k].4 = false;
                let got = run(dut.as_mut(), &bus, false);
                let what = format!(
                    "{}: PRESETn low in held cycle {k}, write {write}",
                    dut.name()
                );
                // Held up to and including the reset cycle, then PREADY = 1 and nothing
                // presented (the requester sees its transfer complete).
                for (c, s) in got.iter().enumerate() {
                    assert!(!s.req_rd && !s.req_wr, "{what}: presented in cycle {c}");
                    assert_eq!(s.pready, c == 0 || c > k, "{what}: PREADY in cycle {c}");
                    // The last held cycle of a write shows it (a register) unless the hold
                    // ended before.
                    assert_eq!(
                        s.held_wr_last,
                        write && c == h && k == h,
                        "{what}: cycle {c}"
                    );
                }
            }
        }
    }
}

/// 10.6, SCR.NSRA: `req_wr_ok` is `req_wr` of a Secure write, or of a Non-secure one while
/// `nsra_open`, as it was at the setup edge (the register file gives SCR after that edge, which
/// no other transfer can change before the access); reads and refused writes never show it.
/// Plain and held (EVCNTR) transfers.
#[test]
fn req_wr_ok_is_a_write_that_nsra_allows_at_its_setup_edge() {
    let cfg = PmcgConfig::parse_kv(["counters=4"]).expect("config");
    let map = RegisterMap::new(&cfg);
    let h = COUNTER_HOLD_CYCLES as usize;
    for mut dut in completers(&cfg, false) {
        for (addr, hold) in [
            (map.reg(RegId::Cr).addr, 0),
            (map.reg(RegId::Evcntr(2)).addr, h),
        ] {
            for write in [false, true] {
                for ns in [false, true] {
                    for open in [false, true] {
                        // `nsra_open` flips after the setup edge: the setup edge's value counts.
                        dut.set_security(ns, open);
                        let access = hold + if write { 1 } else { 2 };
                        let bus = transfer(write, addr, access);
                        let mut got = run(dut.as_mut(), &bus[..=hold], false);
                        dut.set_security(ns, !open);
                        got.extend(run(dut.as_mut(), &bus[hold + 1..], false));
                        let what = format!(
                            "{}: write {write} to {addr:#x}, NS {ns}, nsra_open {open}",
                            dut.name()
                        );
                        let ok = write && (!ns || open);
                        let cycles: Vec<(bool, bool)> =
                            got.iter().map(|s| (s.req_wr, s.req_wr_ok)).collect();
                        let mut want = vec![(false, false); got.len()];
                        want[hold + 1] = (write, ok);
                        assert_eq!(cycles, want, "{what}: (req_wr, req_wr_ok) per cycle");
                    }
                }
            }
        }
        dut.set_security(false, false);
    }
}
