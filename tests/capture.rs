//! Acceptance tests of the capture shadow bank on every backend (reference model, native RustHDL
//! simulation, emitted Verilog under Verilator): CAPR, EVTYPER.OVFCAP, the external 4-phase
//! capture request (CAPT_REQ/CAPT_ACK), SVRn reads (64-bit atomic, read-only), the
//! configuration without capture, and the ordering of a capture against the interrupt
//! (docs/behaviour.md "Capture", "Atomic 64-bit counter reads", "MSI write master" ordering;
//! spec 10.2.1, 10.5.2.3, 10.5.2.11).
//!
//! ```text
//!   counters stopped at known values, or counting cycles (+1/edge) or event 1 on both lanes
//!   (+2/edge) from an enabling edge e ──► value after edge t known exactly
//!        │ capture at edge t (CAPR write, OVFCAP overflow, CAPT_REQ)
//!        ▼
//!   SVRn == value of EVCNTRn after edge t, read by any later access
//! ```
//! Cycle arithmetic: see tests/common/pmcg.rs. A capture at edge t copies every counter's value
//! after edge t; CAPT_REQ driven from cycle r is registered at edge r, captures at edge r+1 and
//! CAPT_ACK is 1 from cycle r+2; CAPT_REQ low from cycle f drops CAPT_ACK at edge f+1 (last high
//! cycle f+1).
//!
//! Tests:
//! - `capr_write_captures_every_counter_after_its_edge`: values, next access, no-capture writes,
//!   Non-secure with NSRA 1 and 0.
//! - `ovfcap_captures_the_post_overflow_value_and_the_others`.
//! - `external_capture_request_four_phase_handshake`: exact CAPT_ACK cycles and captures.
//! - `svr_64_bit_read_low_then_high_is_atomic`: a capture between the two halves.
//! - `svr_is_read_only_and_resets_to_zero`.
//! - `without_capture_svr_capr_ovfcap_are_res0`.
//! - `capture_is_visible_to_a_read_in_the_interrupt_cycle`: ordering (10.2.1).
//! - `capture_scripts_pass_on_every_backend`: tests/scripts/capture-*.pmcg through the CLI.

mod common;

use common::pmcg::{all_lanes, idle_until, irq_config, record, span, Log, Pmcg, D, S};
use common::{
    for_each_backend, named_config, COUNT_DELAY, CYCLE_ENABLE_DELAY, IRQ_LATENCY, MSI_LATENCY,
};
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{offset, RegId, COUNTER_HOLD_CYCLES};
use pmcg_sim::axi::MsiResponder;
use pmcg_sim::pins::{Access, PinInputs};
use std::cell::RefCell;
use std::rc::Rc;

const NS: Access = Access::NonSecure;

/// The cycles with CAPT_ACK = 1 in `from..to`.
fn acks(log: &Rc<RefCell<Log>>, from: u64, to: u64) -> Vec<u64> {
    Log::within(&log.borrow().capt_ack, from, to)
}

/// No AXI protocol violation on the MSI master.
fn no_violations(p: &Pmcg, d: &D) {
    assert!(
        d.msi.violations.is_empty(),
        "config `{}`: AXI protocol violations: {:?}",
        p.name,
        d.msi.violations
    );
}

/// Asserts every SVR reads `expect`.
fn check_svrs(p: &Pmcg, d: &mut D, expect: &[u64], what: &str) {
    let got = p.svrs(d);
    assert_eq!(
        got,
        expect,
        "config `{}` ({what}): SVR0..SVR{}",
        p.name,
        expect.len() - 1
    );
}

/// A CAPR write at edge w copies every counter's value after edge w: counters 0, 1, 3 count
/// cycles from 0x100, 0xFFFF_FF00 and 0 (enabled at edge e), counter 2 is stopped at
/// 0x2222_2222. The very next access sees it; counter 1's overflow (OVFCAP = 0) captures nothing;
/// CAPR writes with bit 0 = 0 or byte 0 not strobed capture nothing, a write of all ones does,
/// CAPR reads 0; a Non-secure write captures with SCR.NSRA = 1 and is ignored with NSRA = 0
/// (Non-secure SVR reads are then 0).
#[test]
fn capr_write_captures_every_counter_after_its_edge() {
    let (name, cfg) = irq_config();
    let p = Pmcg::new(&name, &cfg);
    let v = [0x100u64, 0xFFFF_FF00, 0x2222_2222, 0];
    let capr = p.addr(RegId::Capr);
    for_each_backend(&cfg, |d| {
        let log = record(d);
        p.start(d);
        for (n, &x) in v.iter().enumerate() {
            p.set_counter(d, n as u32, x);
        }
        check_svrs(&p, d, &[0; 4], "reset value");
        // e: the edge before the first counted one (cycle counting follows the CNTENSET0
        // write from its second edge, CYCLE_ENABLE_DELAY).
        let e = p.write_bits(d, RegId::CntenSet0, 0b1011) + CYCLE_ENABLE_DELAY - 1;
        let at = |t: u64| -> Vec<u64> {
            (0..4)
                .map(|n| {
                    if n == 2 {
                        v[2]
                    } else {
                        (v[n] + t - e) & p.max()
                    }
                })
                .collect()
        };
        let w = p.write(d, RegId::Capr, 1);
        assert_eq!(
            p.svr(d, 0),
            at(w)[0],
            "config `{name}`: SVR0 read right after the CAPR write at edge {w}"
        );
        check_svrs(&p, d, &at(w), "CAPR");
        idle_until(d, e + 0x100 + 4);
        assert_eq!(
            p.ovs(d),
            0b10,
            "config `{name}`: counter 1 overflowed at e + 0x100"
        );
        check_svrs(&p, d, &at(w), "an overflow without OVFCAP captures nothing");
        p.write(d, RegId::Capr, 0xFFFF_FFFE);
        d.apb_write_strb(capr, 0xFFFF_FFFF, 0b1110, S);
        assert_eq!(
            p.read(d, RegId::Capr),
            0,
            "config `{name}`: CAPR reads as zero"
        );
        check_svrs(
            &p,
            d,
            &at(w),
            "CAPR writes without CAPTURE = 1 in a strobed byte 0",
        );
        let w2 = p.write(d, RegId::Capr, 0xFFFF_FFFF);
        check_svrs(&p, d, &at(w2), "CAPR = all ones (RES0 bits ignored)");
        d.apb_write(capr, 1, NS);
        let w3 = d.cycle - 1;
        let ns: Vec<u64> = (0..4)
            .map(|n| d.apb_read(p.addr(RegId::Svr(n)), NS) as u64)
            .collect();
        assert_eq!(
            ns,
            at(w3),
            "config `{name}`: Non-secure CAPR and SVR with NSRA = 1"
        );
        p.write(d, RegId::Scr, p.field(RegId::Scr, "NSMSI"));
        d.apb_write(capr, 1, NS);
        check_svrs(&p, d, &at(w3), "Non-secure CAPR with NSRA = 0 is ignored");
        assert_eq!(
            d.apb_read(p.addr(RegId::Svr(0)), NS),
            0,
            "config `{name}`: Non-secure SVR read with NSRA = 0 is RAZ"
        );
        assert!(
            log.borrow().capt_ack.is_empty(),
            "no CAPT_ACK without a request"
        );
        no_violations(&p, d);
    });
}

/// An overflow of a counter with OVFCAP = 1 captures every counter after the overflow edge o:
/// counter 0 counts event 1 on both lanes (+2 per edge from e + 2, [`COUNT_DELAY`]) from
/// max - 10 with OVFCAP, so it wraps to 1 at o = e + 7 and SVR0 = 1 (its post-overflow value); counter 1 counts cycles from
/// 0x1000 (from edge e + 2, [`CYCLE_ENABLE_DELAY`]), counter 2 is stopped at 0x2222, counter 3 counts event 1 from 0 without OVFCAP. No
/// interrupt is enabled (capture does not need one). Counter 3 overflowing alone captures
/// nothing; counters 0 and 3 overflowing at one edge capture once, both with post-overflow
/// values.
#[test]
fn ovfcap_captures_the_post_overflow_value_and_the_others() {
    let (name, cfg) = irq_config();
    let p = Pmcg::new(&name, &cfg);
    for_each_backend(&cfg, |d| {
        let log = record(d);
        d.set_lanes(&all_lanes(d, p.lane_bit(1)));
        p.set_event(d, 0, 1, true);
        p.set_event(d, 3, 1, false);
        assert_eq!(
            p.read(d, RegId::Evtyper(0)),
            p.evtyper(0, 1, true),
            "config `{name}`: EVTYPER0 keeps OVFCAP"
        );
        p.start(d);
        p.set_counter(d, 0, p.max() - 10);
        p.set_counter(d, 1, 0x1000);
        p.set_counter(d, 2, 0x2222);
        p.set_counter(d, 3, 0);
        let e = p.write_bits(d, RegId::CntenSet0, 0b1011);
        let o = e + COUNT_DELAY + 5;
        idle_until(d, o + 2);
        // Counter 1 counts cycles from edge e + CYCLE_ENABLE_DELAY.
        let first = vec![
            1,
            0x1000 + (o + 1 - CYCLE_ENABLE_DELAY - e),
            0x2222,
            2 * (o + 1 - COUNT_DELAY - e),
        ];
        check_svrs(&p, d, &first, "counter 0 (OVFCAP) overflowed");
        assert_eq!(p.ovs(d), 0b1);
        // Counter 3 alone (no OVFCAP): max - 6, overflows at e3 + COUNT_DELAY + 3.
        let e3 = p.arm(d, 0b1000, p.max() - 6);
        idle_until(d, e3 + COUNT_DELAY + 4);
        assert_eq!(p.ovs(d), 0b1001, "config `{name}`: counter 3 overflowed");
        check_svrs(&p, d, &first, "an overflow without OVFCAP captures nothing");
        // Counters 0 and 3 at one edge: max - 8 each, overflow at e4 + COUNT_DELAY + 4.
        let e4 = p.arm(d, 0b1001, p.max() - 8);
        let o4 = e4 + COUNT_DELAY + 4;
        idle_until(d, o4 + 2);
        check_svrs(
            &p,
            d,
            &[1, 0x1000 + (o4 + 1 - CYCLE_ENABLE_DELAY - e), 0x2222, 1],
            "counters 0 (OVFCAP) and 3 overflow at the same edge",
        );
        d.clear_lanes();
        assert!(
            log.borrow().irq.is_empty(),
            "config `{name}`: no interrupt enabled"
        );
        no_violations(&p, d);
    });
}

/// The external request (counter 0 counts cycles from 0x5000 after edge e, counter 1 stopped at
/// 0x1111): (1) CAPT_REQ high in cycles r..r+5: capture at r+1, CAPT_ACK in r+2..=r+7; (2) held
/// for 40 cycles: one capture only; (3) a one-cycle pulse in r: capture at r+1, CAPT_ACK in r+2
/// only; (4) CAPT_REQ low for one cycle f while CAPT_ACK is 1: CAPT_ACK low in f+2 only and a new
/// capture at f+2; (5) a requester waiting for each phase: CAPT_ACK seen in r+2, seen low in
/// r+5, three times in a row, each a capture.
/// An OVFCAP overflow of counter 0 (counting cycles) at edge o while an SVR0 read is held: the
/// read performed in cycle o + k returns the captured value, 0 (the value after edge o), for
/// k = 1 (the SVRs load at the end of that cycle: the read sees the counter), k = 2 (they
/// loaded at the last edge) and k = 3. The wrap leaves a carry pending into every upper part
/// (bits [31:16], and the bank above them with wider counters) of the addressed counter, which
/// the bank does not serve during the hold: the shadow takes it at the capture, and a read in
/// cycle o + 2 must see the shadow's pending carry of that edge, not of the one before.
#[test]
fn svr_read_in_the_cycles_after_an_ovfcap_overflow_sees_the_capture() {
    for (name, cfg) in [irq_config(), named_config("odd")] {
        let p = Pmcg::new(&name, &cfg);
        for_each_backend(&cfg, |d| {
            for k in 1..=3u64 {
                d.reset(1);
                p.set_event(d, 0, 0, true);
                p.start(d);
                let o = p.arm_overflow(d, 0b1, 12);
                // Set up in cycle s, held s + 1 ..= s + COUNTER_HOLD_CYCLES, performed next.
                idle_until(d, o + k - 1 - COUNTER_HOLD_CYCLES as u64);
                let got = p.read_reg(d, RegId::Svr(0));
                assert_eq!(
                    got,
                    0,
                    "config `{name}`: counter 0 (OVFCAP, counting cycles) wraps to 0 at edge {o}; \
                     SVR0 read performed in cycle {}: expected 0, got {got:#x}",
                    o + k
                );
                assert_eq!(p.ovs(d), 1, "config `{name}`: OVS after the overflow");
            }
        });
    }
}

#[test]
fn external_capture_request_four_phase_handshake() {
    let (name, cfg) = irq_config();
    let p = Pmcg::new(&name, &cfg);
    for_each_backend(&cfg, |d| {
        let log = record(d);
        p.start(d);
        p.set_counter(d, 1, 0x1111);
        // e: the edge before counter 0's first counted cycle (CYCLE_ENABLE_DELAY).
        let e = p.arm(d, 0b1, 0x5000) + CYCLE_ENABLE_DELAY - 1;
        let val0 = |t: u64| 0x5000 + (t - e);
        // (1)
        let r = d.cycle;
        d.capt_req = true;
        d.idle(6);
        d.capt_req = false;
        d.idle(6);
        assert_eq!(
            acks(&log, r, d.cycle),
            span(r + 2, r + 7),
            "config `{name}`: CAPT_ACK"
        );
        assert_eq!(
            p.svr(d, 0),
            val0(r + 1),
            "config `{name}`: captured at edge r+1"
        );
        assert_eq!(p.svr(d, 1), 0x1111);
        // (2)
        let r2 = d.cycle;
        d.capt_req = true;
        d.idle(40);
        assert_eq!(
            p.svr(d, 0),
            val0(r2 + 1),
            "config `{name}`: one capture while CAPT_REQ stays 1"
        );
        d.capt_req = false;
        let f2 = d.cycle;
        d.idle(4);
        assert_eq!(
            acks(&log, r2, d.cycle),
            span(r2 + 2, f2 + 1),
            "held request"
        );
        assert_eq!(p.svr(d, 0), val0(r2 + 1));
        // (3)
        let r3 = d.cycle;
        d.capt_req = true;
        d.idle(1);
        d.capt_req = false;
        d.idle(5);
        assert_eq!(
            acks(&log, r3, d.cycle),
            vec![r3 + 2],
            "config `{name}`: one-cycle pulse"
        );
        assert_eq!(p.svr(d, 0), val0(r3 + 1));
        // (4)
        let r4 = d.cycle;
        d.capt_req = true;
        d.idle(5);
        let f4 = d.cycle;
        d.capt_req = false;
        d.idle(1);
        d.capt_req = true;
        d.idle(5);
        let g4 = d.cycle;
        d.capt_req = false;
        d.idle(5);
        let want = [span(r4 + 2, f4 + 1), span(f4 + 3, g4 + 1)].concat();
        assert_eq!(
            acks(&log, r4, d.cycle),
            want,
            "config `{name}`: one low cycle"
        );
        assert_eq!(
            p.svr(d, 0),
            val0(f4 + 2),
            "config `{name}`: re-request captures"
        );
        // (5)
        for k in 0..3 {
            let r = d.cycle;
            d.capt_req = true;
            let mut seen = None;
            for _ in 0..8 {
                let c = d.cycle;
                if d.step_with(PinInputs::idle(d.lanes())).capt_ack {
                    seen = Some(c);
                    break;
                }
            }
            assert_eq!(
                seen,
                Some(r + 2),
                "config `{name}` handshake {k}: CAPT_ACK rises"
            );
            d.capt_req = false;
            let mut low = None;
            for _ in 0..8 {
                let c = d.cycle;
                if !d.step_with(PinInputs::idle(d.lanes())).capt_ack {
                    low = Some(c);
                    break;
                }
            }
            assert_eq!(
                low,
                Some(r + 5),
                "config `{name}` handshake {k}: CAPT_ACK falls"
            );
            assert_eq!(p.svr(d, 0), val0(r + 1), "config `{name}` handshake {k}");
        }
        assert!(log.borrow().irq.is_empty());
        no_violations(&p, d);
    });
}

/// 44-bit counters (64-bit SVRs, `3x44 global`): SVR0 holds A = 0x1_FFFF_FFF0 and counter 0
/// (stopped) B = 0x2_0000_0005. A low-word read set up in cycle s with CAPT_REQ rising in s
/// (capture at edge s+1, between the halves: the low read is performed in s+1 on the state
/// after edge s and latches A's high word at edge s+1) and the high-word read at s+3 return A
/// (the high word latched with the low word), and SVR0 is B afterwards; CAPT_REQ falls in s+6,
/// after the two reads (3 cycles each), so CAPT_ACK is 1 in s+2 ..= s+7. A lone high-word read, a high read
/// after an intervening transfer, and a high read of SVR0 after a low read of SVR1 return the
/// live high word. The full 44-bit value is captured (bits above RES0); SVR writes are ignored.
#[test]
fn svr_64_bit_read_low_then_high_is_atomic() {
    let (name, cfg) = named_config("3x44 global");
    assert!(cfg.capture && cfg.wide_counters());
    let p = Pmcg::new(&name, &cfg);
    let svr0 = p.addr(RegId::Svr(0));
    for_each_backend(&cfg, |d| {
        let log = record(d);
        let (a, b, c) = (0x1_FFFF_FFF0u64, 0x2_0000_0005u64, 0x3_1234_5678u64);
        p.set_counter(d, 0, a);
        p.write(d, RegId::Capr, 1);
        assert_eq!(p.svr(d, 0), a, "config `{name}`: CAPR");
        p.set_counter(d, 0, b);
        // Setup s: the low read is performed in s+h+1 and completes in s+h+2; CAPT_REQ rises
        // in the high read's setup cycle r = s+h+3, so the capture (edge r+1) falls in the
        // high read's held cycles, after the low read and before the high one.
        let h = COUNTER_HOLD_CYCLES as u64;
        let s = d.cycle;
        let lo = d.apb_read(svr0, S) as u64;
        d.capt_req = true;
        let hi = d.apb_read(svr0 + 4, S) as u64;
        assert_eq!(
            d.cycle,
            s + 6 + 2 * h,
            "two held reads with one wait state each"
        );
        d.capt_req = false;
        d.idle(4);
        // CAPT_ACK from r+2 until the cycle after the request falls (s+2h+6).
        assert_eq!(
            acks(&log, s, d.cycle),
            span(s + h + 5, s + 2 * h + 7),
            "CAPT_ACK"
        );
        assert_eq!(
            hi << 32 | lo,
            a,
            "config `{name}`: low-then-high read with a capture between the halves"
        );
        assert_eq!(
            p.svr(d, 0),
            b,
            "config `{name}`: the capture at edge {}",
            s + h + 4
        );
        p.read(d, RegId::Cr);
        assert_eq!(
            p.read_hi(d, RegId::Svr(0)),
            2,
            "config `{name}`: lone high-word read"
        );
        // An intervening transfer ends the snapshot.
        p.set_counter(d, 0, c);
        let lo = d.apb_read(svr0, S);
        d.capt_req = true; // the capture falls in the CR read
        p.read(d, RegId::Cr);
        let hi = d.apb_read(svr0 + 4, S);
        d.capt_req = false;
        d.idle(4);
        assert_eq!(
            (lo, hi),
            (b as u32, 3),
            "config `{name}`: low read, capture, other read, high read (live)"
        );
        // The snapshot belongs to the register read.
        p.set_counter(d, 1, 0x7_0000_0001);
        p.write(d, RegId::Capr, 1);
        let lo1 = d.apb_read(p.addr(RegId::Svr(1)), S);
        let hi0 = d.apb_read(svr0 + 4, S);
        assert_eq!(
            (lo1, hi0),
            (1, 3),
            "config `{name}`: low SVR1 then high SVR0"
        );
        // The full width, and read-only.
        p.set_counter(d, 2, p.max());
        p.write(d, RegId::Capr, 1);
        assert_eq!(
            p.svr(d, 2),
            p.max(),
            "config `{name}`: a 44-bit all-ones capture"
        );
        assert_eq!(p.read_hi(d, RegId::Svr(2)), 0xFFF, "bits [63:44] are RES0");
        let svr2 = p.addr(RegId::Svr(2));
        d.apb_write64(svr2, 0, S);
        d.apb_write64(svr0, 0xFFFF_FFFF_FFFF_FFFF, S);
        assert_eq!(
            (p.svr(d, 0), p.svr(d, 1), p.svr(d, 2)),
            (c, 0x7_0000_0001, p.max()),
            "config `{name}`: SVR writes are ignored"
        );
        no_violations(&p, d);
    });
}

/// SVRn ignore writes (Secure and Non-secure, full word and partial strobes); the SVR location
/// past the last counter is RES0; every SVR resets to 0.
#[test]
fn svr_is_read_only_and_resets_to_zero() {
    let (name, cfg) = irq_config();
    let p = Pmcg::new(&name, &cfg);
    let v = [0x0123_4567u64, 0x89AB_CDEF, 0xFFFF_FFFF, 1];
    let past = p.map.array_base(RegId::Svr(0)) + p.map.counter_stride * cfg.counters;
    assert!(p.map.lookup(past).is_none(), "{past:#x} is no register");
    for_each_backend(&cfg, |d| {
        for (n, &x) in v.iter().enumerate() {
            p.set_counter(d, n as u32, x);
        }
        p.write(d, RegId::Capr, 1);
        check_svrs(&p, d, &v, "CAPR of stopped counters");
        for n in 0..4 {
            let a = p.addr(RegId::Svr(n));
            d.apb_write(a, 0xFFFF_FFFF, S);
            d.apb_write(a, 0, NS);
            d.apb_write_strb(a, 0x5A5A_5A5A, 0b0101, S);
        }
        check_svrs(&p, d, &v, "after writes to every SVR");
        d.apb_write(past, 0xFFFF_FFFF, S);
        assert_eq!(d.apb_read(past, S), 0, "config `{name}`: {past:#x} is RES0");
        d.reset(1);
        check_svrs(&p, d, &[0; 4], "after reset");
        no_violations(&p, d);
    });
}

/// Without capture (`small`: CFGR.CAPTURE = 0) SVRn, CAPR and EVTYPER.OVFCAP are RES0: the SVR
/// locations read 0 after CAPR writes and an overflow with bit 31 of EVTYPER0 written, CAPR
/// reads 0, EVTYPER0 bit 31 reads 0, CAPT_ACK stays 0 under a held request, and counting and
/// overflow work as usual.
#[test]
fn without_capture_svr_capr_ovfcap_are_res0() {
    let (name, cfg) = named_config("small");
    assert!(!cfg.capture);
    let p = Pmcg::new(&name, &cfg);
    assert!(p.map.get(RegId::Svr(0)).is_none() && p.map.get(RegId::Capr).is_none());
    assert!(p.map.field(field::EVTYPER_OVFCAP).is_none());
    let page = if cfg.reloc_ctrs { p.map.page1_base } else { 0 };
    let capr = page + offset::CAPR;
    let svr = |n: u32| p.map.array_base(RegId::Svr(0)) + p.map.counter_stride * n;
    for_each_backend(&cfg, |d| {
        let log = record(d);
        let cfgr = p.read(d, RegId::Cfgr) as u64;
        assert_eq!(cfgr & p.map.mask(field::CFGR_CAPTURE), 0, "CFGR.CAPTURE");
        p.write(d, RegId::Evtyper(0), 0x8000_0000);
        assert_eq!(
            p.read(d, RegId::Evtyper(0)),
            0,
            "config `{name}`: OVFCAP is RES0"
        );
        p.start(d);
        for n in 1..4 {
            p.set_counter(d, n, 0x1000 * n as u64);
        }
        let o = p.arm_overflow(d, 0b1, 8);
        p.write_bits(d, RegId::CntenSet0, 0b1110);
        d.apb_write(capr, 1, S);
        idle_until(d, o + 2);
        assert_eq!(p.ovs(d), 1, "config `{name}`: counter 0 overflowed");
        assert!(p.counter(d, 1) > 0x1000, "counters count");
        assert_eq!(d.apb_read(capr, S), 0, "config `{name}`: CAPR is RES0");
        for n in 0..cfg.counters {
            d.apb_write(svr(n), 0xFFFF_FFFF, S);
            assert_eq!(d.apb_read(svr(n), S), 0, "config `{name}`: SVR{n} is RES0");
        }
        d.capt_req = true;
        d.idle(20);
        d.capt_req = false;
        d.idle(4);
        assert!(
            log.borrow().capt_ack.is_empty(),
            "config `{name}`: CAPT_ACK stays 0"
        );
        no_violations(&p, d);
    });
}

/// Ordering (10.2.1): counter 0 counts event 1 on both lanes with OVFCAP, INTEN and IRQEN set
/// and an MSI target; counter 1 counts cycles from 0x200 and counter 3 event 1 from 0x10, all
/// enabled at edge e; counter 0 wraps to 1 at o = e + 6 (lane events count from edge e + 2,
/// [`COUNT_DELAY`]; cycles from e + 2, [`CYCLE_ENABLE_DELAY`]). A read of SVR0, SVR1 or SVR3 set up in
/// cycle o (access cycle o+1, the cycle before the pulse and AWVALID) or o+1 (access cycle o+2,
/// the first cycle of the pulse and of AWVALID) returns the values captured at o. The pulse and
/// AWVALID are checked at o+2.
#[test]
fn capture_is_visible_to_a_read_in_the_interrupt_cycle() {
    let (name, cfg) = irq_config();
    let p = Pmcg::new(&name, &cfg);
    for_each_backend(&cfg, |d| {
        let log = record(d);
        d.msi = MsiResponder::default();
        d.set_lanes(&all_lanes(d, p.lane_bit(1)));
        p.set_event(d, 0, 1, true);
        p.set_event(d, 3, 1, false);
        p.start(d);
        p.write_bits(d, RegId::IntenSet0, 1);
        p.set_msi(d, 0x8_0000_0040, 0x0123_0000, 0);
        p.irqen(d, true);
        let mut n_msi = 0;
        for (reg, n) in [("SVR0", 0u32), ("SVR1", 1), ("SVR3", 3)] {
            for delay in [0, 1] {
                p.write_bits(d, RegId::CntenClr0, 0b1011);
                // The SVR read is held H cycles: it is set up H cycles before o + delay and
                // performed in cycle o + delay + 1 (o + 2: the irq cycle).
                let h = COUNTER_HOLD_CYCLES as u64;
                // (Counter 0 counts event 1 on both lanes: two per edge.)
                p.set_counter(d, 0, p.max() - 8 - 2 * h);
                p.set_counter(d, 1, 0x200);
                p.set_counter(d, 3, 0x10);
                let e = p.write_bits(d, RegId::CntenSet0, 0b1011);
                let o = e + COUNT_DELAY + 4 + h;
                idle_until(d, o + delay - h);
                let got = p.svr(d, n);
                let lane_edges = o + 1 - COUNT_DELAY - e;
                let cycle_edges = o + 1 - CYCLE_ENABLE_DELAY - e;
                let want = [1, 0x200 + cycle_edges, 0, 0x10 + 2 * lane_edges][n as usize];
                assert_eq!(
                    got,
                    want,
                    "config `{name}`: {reg} read performed in cycle {} (overflow at edge {o})",
                    o + delay + 1
                );
                idle_until(d, o + 4);
                assert_eq!(
                    log.borrow().irq.last().copied(),
                    Some(o + IRQ_LATENCY),
                    "config `{name}`: irq in cycle o+2"
                );
                n_msi += 1;
                assert_eq!(
                    d.msi.completed.len(),
                    n_msi,
                    "config `{name}`: one MSI each"
                );
                assert_eq!(
                    d.msi.completed[n_msi - 1].first_valid,
                    o + MSI_LATENCY,
                    "AWVALID in o+2"
                );
                p.write_bits(d, RegId::OvsClr0, 1);
            }
        }
        d.clear_lanes();
        no_violations(&p, d);
    });
}

const CAPTURE_SCRIPTS: [&str; 2] = ["capture-capr.pmcg", "capture-external.pmcg"];

/// tests/scripts/capture-*.pmcg through the CLI on every backend (each also in lock-step with
/// the reference model, every output every cycle).
#[test]
fn capture_scripts_pass_on_every_backend() {
    common::scripts_pass_on_every_backend(&CAPTURE_SCRIPTS);
}
