//! Block-level tests of the address decoder (`pmcg_hdl::decode::AddrDecode`): every word of the
//! register map (and every word it leaves unmapped) decodes to exactly the outputs the map says,
//! one edge after it is presented, on the native block and on its emitted Verilog under
//! Verilator (`pmcg_synth::decode`).
//!
//! ```text
//!   PADDR, xfer_nx ──► dyn Decoder: NativeDecoder | VerilatorDecoder ──► (edge) ──► Decoded
//!   RegisterMap (regs/src/regmap.rs) ──► expected(word) ─────────────────────────────► assert_eq
//! ```
//! `PMCG_BACKENDS` selects the backends and `PMCG_REQUIRE_TOOLS=1` requires Verilator
//! (tests/common).

mod common;

use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::decode::{constant_words, AddrDecode, SINGLE_REGS};
use pmcg_hdl::regmap::{RegId, RegisterMap};
use pmcg_sim::verilator::VerilatedModel;
use pmcg_synth::decode::{decoder_verilog, DECODE_TOP};
use rust_hdl::prelude::*;

/// The decoder's outputs after one edge with `paddr` presented.
#[derive(Debug, Default, PartialEq, Eq)]
struct Decoded {
    singles: Vec<bool>,
    capr: bool,
    ro_val: u32,
    regions: [bool; 4],
    /// The EVCNTR or SVR region and `xfer_nx` (`ctr_xfer`).
    ctr_xfer: bool,
    hiword: bool,
    evc_sel: u64,
    arr_sel: u64,
}

/// The single-register outputs, in the order of `Decoded::singles` (SINGLE_REGS with SCR and
/// its alias as one).
const SINGLES: [&str; 24] = [
    "cr",
    "scr",
    "rootcr",
    "s_mpamidr",
    "irq_ctrl",
    "gmpam",
    "irq_ack",
    "irq_status",
    "cfg0",
    "cfg0_hi",
    "cfg1",
    "cfg2",
    "cntenset",
    "cntenset_hi",
    "cntenclr",
    "cntenclr_hi",
    "intenset",
    "intenset_hi",
    "intenclr",
    "intenclr_hi",
    "ovsset",
    "ovsset_hi",
    "ovsclr",
    "ovsclr_hi",
];

/// The other outputs, in `Decoded`'s order.
const OTHERS: [&str; 10] = [
    "capr", "ro_val", "evc_in", "svr_in", "evt_in", "smr_in", "ctr_xfer", "hiword", "evc_sel",
    "arr_sel",
];

trait Decoder {
    fn name(&self) -> &'static str;
    /// Presents `paddr` and `xfer_nx` for one cycle; the outputs after its edge.
    fn decode(&mut self, paddr: u32, xfer_nx: bool) -> Decoded;
}

struct NativeDecoder(AddrDecode);

impl NativeDecoder {
    fn new(cfg: &PmcgConfig) -> Self {
        let mut uut = AddrDecode::new(cfg);
        uut.connect_all();
        NativeDecoder(uut)
    }
}

impl Decoder for NativeDecoder {
    fn name(&self) -> &'static str {
        "native"
    }

    fn decode(&mut self, paddr: u32, xfer_nx: bool) -> Decoded {
        self.0.paddr.next = (paddr as u64).into();
        self.0.xfer_nx.next = xfer_nx;
        self.0.clock.next = Clock { clk: false };
        common::settle_block(&mut self.0, "the decoder", 50);
        self.0.clock.next = Clock { clk: true };
        common::settle_block(&mut self.0, "the decoder", 50);
        let u = &self.0;
        Decoded {
            singles: vec![
                u.cr.val(),
                u.scr.val(),
                u.rootcr.val(),
                u.s_mpamidr.val(),
                u.irq_ctrl.val(),
                u.gmpam.val(),
                u.irq_ack.val(),
                u.irq_status.val(),
                u.cfg0.val(),
                u.cfg0_hi.val(),
                u.cfg1.val(),
                u.cfg2.val(),
                u.cntenset.val(),
                u.cntenset_hi.val(),
                u.cntenclr.val(),
                u.cntenclr_hi.val(),
                u.intenset.val(),
                u.intenset_hi.val(),
                u.intenclr.val(),
                u.intenclr_hi.val(),
                u.ovsset.val(),
                u.ovsset_hi.val(),
                u.ovsclr.val(),
                u.ovsclr_hi.val(),
            ],
            capr: u.capr.val(),
            ro_val: u.ro_val.val().to_u64() as u32,
            regions: [
                u.evc_in.val(),
                u.svr_in.val(),
                u.evt_in.val(),
                u.smr_in.val(),
            ],
            ctr_xfer: u.ctr_xfer.val(),
            hiword: u.hiword.val(),
            evc_sel: u.evc_sel.val().to_u64(),
            arr_sel: u.arr_sel.val().to_u64(),
        }
    }
}

struct VerilatorDecoder {
    m: VerilatedModel,
    /// clock, paddr, xfer_nx
    ins: [usize; 3],
    singles: [usize; 24],
    others: [usize; 10],
}

impl VerilatorDecoder {
    fn new(cfg: &PmcgConfig) -> Self {
        let v = decoder_verilog(cfg, DECODE_TOP).unwrap();
        let m = VerilatedModel::build(&v, DECODE_TOP, &pmcg_sim::vdut::cache_dir())
            .unwrap_or_else(|e| panic!("Verilator build of the decoder: {e}"));
        let port = |n: &str| {
            m.port(n)
                .unwrap_or_else(|| panic!("the decoder's Verilog has no port `{n}`"))
        };
        let ins = ["clock", "paddr", "xfer_nx"].map(port);
        let singles = SINGLES.map(port);
        let others = OTHERS.map(port);
        VerilatorDecoder {
            m,
            ins,
            singles,
            others,
        }
    }
}

impl Decoder for VerilatorDecoder {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn decode(&mut self, paddr: u32, xfer_nx: bool) -> Decoded {
        let [clock, p_addr, x_nx] = self.ins;
        let m = &mut self.m;
        m.set(clock, 0);
        m.set(p_addr, paddr as u64);
        m.set(x_nx, xfer_nx as u64);
        m.eval();
        m.set(clock, 1);
        m.eval();
        let o = self.others.map(|p| m.get(p));
        Decoded {
            singles: self.singles.iter().map(|&p| m.get(p) != 0).collect(),
            capr: o[0] != 0,
            ro_val: o[1] as u32,
            regions: [o[2] != 0, o[3] != 0, o[4] != 0, o[5] != 0],
            ctr_xfer: o[6] != 0,
            hiword: o[7] != 0,
            evc_sel: o[8],
            arr_sel: o[9],
        }
    }
}

/// The decoders of `cfg` that `PMCG_BACKENDS` selects.
fn decoders(cfg: &PmcgConfig) -> Vec<Box<dyn Decoder>> {
    let mut v: Vec<Box<dyn Decoder>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            v.push(Box::new(NativeDecoder::new(cfg)));
        } else {
            v.push(Box::new(VerilatorDecoder::new(cfg)));
        }
    }
    assert!(!v.is_empty(), "PMCG_BACKENDS selects no decoder backend");
    v
}

/// What the register map says word `addr` of register `r` decodes to.
fn expected(cfg: &PmcgConfig, map: &RegisterMap, id: RegId, hi: bool, xfer_nx: bool) -> Decoded {
    let mut o = Decoded {
        singles: vec![false; SINGLE_REGS.len() - 1],
        ..Default::default()
    };
    let single = SINGLE_REGS
        .iter()
        .position(|&(r, h)| r == id && h == hi)
        .map(|k| if k >= 2 { k - 1 } else { k });
    if let Some(k) = single {
        o.singles[k] = true;
    }
    let word = map.reg(id).addr + if hi { 4 } else { 0 };
    if let Some(&(_, v)) = constant_words(map).iter().find(|(a, _)| *a == word) {
        o.ro_val = v;
    }
    o.hiword = hi && cfg.wide_counters();
    match id {
        RegId::Capr => o.capr = true,
        RegId::Evcntr(n) => (o.regions[0], o.ctr_xfer, o.evc_sel) = (true, xfer_nx, 1 << n),
        RegId::Svr(n) => (o.regions[1], o.ctr_xfer, o.evc_sel) = (true, xfer_nx, 1 << n),
        RegId::Evtyper(n) => (o.regions[2], o.arr_sel) = (true, 1 << n),
        RegId::Smr(n) => (o.regions[3], o.arr_sel) = (true, 1 << n),
        _ => {}
    }
    o
}

fn check(cfg: &PmcgConfig, dut: &mut dyn Decoder) {
    let map = RegisterMap::new(cfg);
    let who = dut.name();
    let mut mapped = std::collections::BTreeSet::new();
    for r in &map.regs {
        for hi in [false, true]
            .into_iter()
            .take(if r.bits == 64 { 2 } else { 1 })
        {
            let word = r.addr + if hi { 4 } else { 0 };
            mapped.insert(word);
            // The two low address bits are ignored; `ctr_xfer` is the region AND `xfer_nx`.
            for (a, xfer_nx) in [(word, true), (word | 3, false), (word | 1, true)] {
                let mut want = expected(cfg, &map, r.id, hi, xfer_nx);
                want.hiword &= want.regions[0] | want.regions[1];
                let got = dut.decode(a, xfer_nx);
                // Element selects are address bits: only meaningful inside their region.
                let got = Decoded {
                    evc_sel: if want.regions[0] | want.regions[1] {
                        got.evc_sel
                    } else {
                        0
                    },
                    arr_sel: if want.regions[2] | want.regions[3] {
                        got.arr_sel
                    } else {
                        0
                    },
                    hiword: got.hiword && (want.regions[0] | want.regions[1]),
                    ..got
                };
                assert_eq!(got, want, "{who}: {} word {a:#x}", r.name);
            }
        }
    }
    // Unmapped words (gaps, past the implemented elements, the other page) decode to nothing.
    let none = Decoded {
        singles: vec![false; SINGLE_REGS.len() - 1],
        ..Default::default()
    };
    // Every word of the decoded window (the arrays' elements past the implemented counters
    // are in page 1 with relocated counters).
    let mut unmapped = 0;
    for word in (0..=map.addr_mask())
        .step_by(4)
        .filter(|w| !mapped.contains(w))
    {
        let got = dut.decode(word, true);
        let got = Decoded {
            evc_sel: 0,
            arr_sel: 0,
            hiword: false,
            ..got
        };
        assert_eq!(got, none, "{who}: unmapped word {word:#x}");
        unmapped += 1;
    }
    assert!(unmapped > 1000, "too few unmapped words tried");
}

#[test]
fn every_mapped_word_decodes_as_the_register_map_says() {
    for kv in [
        &["counters=4", "counter_bits=32"][..],
        &["counters=5", "counter_bits=48", "capture=off", "secure=off"],
        &[
            "counters=7",
            "counter_bits=64",
            "realm=on",
            "mpam_filter=on",
        ],
        &[],
    ] {
        let cfg = PmcgConfig::parse_kv(kv.iter().copied()).unwrap();
        for mut dut in decoders(&cfg) {
            check(&cfg, dut.as_mut());
        }
    }
}

#[test]
fn a_wrong_decode_is_noticed() {
    // The check is a validator: a decoder built for another configuration fails it.
    let cfg = PmcgConfig::parse_kv(["counters=4", "counter_bits=32"]).unwrap();
    let other = PmcgConfig::parse_kv(["counters=4", "counter_bits=64"]).unwrap();
    let map = RegisterMap::new(&cfg);
    let r = map.reg(RegId::Evcntr(1));
    for mut dut in decoders(&other) {
        let got = dut.decode(r.addr, true);
        assert_ne!(
            got,
            expected(&cfg, &map, RegId::Evcntr(1), false, true),
            "{}",
            dut.name()
        );
    }
}
