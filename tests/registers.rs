//! Register tests driven by the register map, on every backend (reference model, native RustHDL
//! simulation, emitted Verilog under Verilator) and every shared configuration.
//!
//! ```text
//!   RegisterMap::new(cfg) ──► RegWord (address, reset, read/RW/W1S/W1C masks of one 32-bit word)
//!        │                        │ expected values: the map + the rules of docs/behaviour.md
//!        ▼                        ▼
//!   for_each_backend(cfg) ──► Bench (every APB access checks PSLVERR = 0; failures are collected
//!                                    and reported with config, register, word and values)
//! ```
//! No offset is written here as a literal except deliberately unmapped addresses, which are chosen
//! by checking `map.lookup(addr).is_none()`; every expected value is derived from the map and the
//! spec rules (10.5, 10.6, behaviour.md), never from a backend's output.

mod common;

use common::{configs, for_each_backend, CYCLE_ENABLE_DELAY};
use pmcg_hdl::config::{PmcgConfig, CYCLE_EVENT};
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{
    offset, Access as FieldAccess, RegId, Register, RegisterMap, Word, COUNTER_HOLD_CYCLES,
};
use pmcg_sim::pins::{Access, Driver, Dut, PinInputs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Drv = Driver<Box<dyn Dut>>;

const S: Access = Access::Secure;
const NS: Access = Access::NonSecure;
const ONES: u32 = u32::MAX;
/// PSTRB with every byte lane enabled.
const ALL: u8 = 0xF;
/// Failures listed in a report (all are counted).
const MAX_REPORTED: usize = 30;
/// Seed of the random bit-bash patterns (ChaCha8: stable across releases).
const BITBASH_SEED: u64 = 0x5EED_0C0F_FEE0_2024;

// ---------------------------------------------------------------------------------------------
// Register words and the expected-value rules
// ---------------------------------------------------------------------------------------------

/// The byte lanes PSTRB selects, as a 32-bit mask.
fn strobe_bits(strb: u8) -> u32 {
    (0..4)
        .filter(|b| strb >> b & 1 == 1)
        .fold(0, |m, b| m | 0xFF << (8 * b))
}

/// One 32-bit word of a register as the map defines it.
#[derive(Clone, Debug)]
struct RegWord<'m> {
    reg: &'m Register,
    word: Word,
    addr: u32,
    /// Reset value as read (WO fields read 0).
    reset: u32,
    /// Bits that read as their state.
    read: u32,
    rw: u32,
    w1s: u32,
    w1c: u32,
}

impl<'m> RegWord<'m> {
    fn new(reg: &'m Register, word: Word) -> Self {
        let shift = match word {
            Word::Low => 0,
            Word::High => 32,
        };
        let slice = |v: u64| (v >> shift) as u32;
        RegWord {
            reg,
            word,
            addr: reg.addr + shift / 8,
            reset: slice(reg.reset() & reg.read_mask()),
            read: slice(reg.read_mask()),
            rw: slice(reg.mask_of(FieldAccess::RW)),
            w1s: slice(reg.mask_of(FieldAccess::W1S)),
            w1c: slice(reg.mask_of(FieldAccess::W1C)),
        }
    }

    fn id(&self) -> RegId {
        self.reg.id
    }

    /// `SMMU_PMCG_CR @ 0xe04`, `SMMU_PMCG_EVCNTR3 high word @ 0x1001c`.
    fn label(&self) -> String {
        let part = match (self.reg.bits, self.word) {
            (32, _) => "",
            (_, Word::Low) => " low word",
            (_, Word::High) => " high word",
        };
        format!("{}{} @ {:#x}", self.reg.name, part, self.addr)
    }

    /// behaviour.md (PSTRB, RW/W1S/W1C): what the word reads after `data` is written with `strb`
    /// to it while it read `old`. RW bits of unstrobed bytes keep their value; W1S/W1C bits of
    /// unstrobed bytes count as 0; RO, WO and RES0 bits are unaffected.
    fn after_write(&self, old: u32, data: u32, strb: u8) -> u32 {
        let bytes = strobe_bits(strb);
        let rw = self.rw & bytes;
        let set = self.w1s & bytes & data;
        let clr = self.w1c & bytes & data;
        (((old & !rw) | (data & rw) | set) & !clr) & self.read
    }

    /// The value read after writing `value` to the word from reset: `value & rw | reset & !rw`.
    fn rw_value(&self, value: u32) -> u32 {
        ((value & self.rw) | (self.reset & !self.rw)) & self.read
    }
}

/// The words of one register: low, then high for a 64-bit register.
fn reg_words(reg: &Register) -> Vec<RegWord<'_>> {
    let mut v = vec![RegWord::new(reg, Word::Low)];
    if reg.bits == 64 {
        v.push(RegWord::new(reg, Word::High));
    }
    v
}

/// Every mapped word, in map order.
fn map_words(map: &RegisterMap) -> Vec<RegWord<'_>> {
    map.regs.iter().flat_map(reg_words).collect()
}

/// The W1C view of the storage a W1S word sets (same field, same word).
fn w1c_partner<'m>(map: &'m RegisterMap, w: &RegWord<'_>) -> RegWord<'m> {
    let field = w.reg.fields.first().map(|f| f.name);
    map.regs
        .iter()
        .filter(|r| r.id != w.id() && r.mask_of(FieldAccess::W1C) != 0)
        .find(|r| r.fields.first().map(|f| f.name) == field)
        .map(|r| RegWord::new(r, w.word))
        .unwrap_or_else(|| panic!("{} has no W1C view in the map", w.reg.name))
}

// ---------------------------------------------------------------------------------------------
// The bench: checked APB accesses and failure collection
// ---------------------------------------------------------------------------------------------

struct Bench<'a> {
    cfg_name: &'a str,
    cfg: &'a PmcgConfig,
    map: &'a RegisterMap,
    d: &'a mut Drv,
    errors: Vec<String>,
    failures: usize,
}

impl<'a> Bench<'a> {
    fn fail(&mut self, msg: String) {
        self.failures += 1;
        if self.errors.len() < MAX_REPORTED {
            self.errors.push(msg);
        }
    }

    /// One APB read; PSLVERR must be 0 (behaviour.md, PSLVERR policy).
    fn read(&mut self, addr: u32, acc: Access) -> u32 {
        let (data, err) = self.d.apb_read_full(addr, acc);
        if err {
            self.fail(format!("PSLVERR = 1 on a {acc:?} read of {addr:#x}"));
        }
        data
    }

    /// One APB write; PSLVERR must be 0.
    fn write(&mut self, addr: u32, data: u32, strb: u8, acc: Access) {
        if self.d.apb_write_strb(addr, data, strb, acc) {
            self.fail(format!(
                "PSLVERR = 1 on a {acc:?} write of {data:#010x} (PSTRB {strb:#06b}) to {addr:#x}"
            ));
        }
    }

    /// Reads a word and compares it with `want`; `when` says what led to the expectation.
    fn check(&mut self, w: &RegWord<'_>, acc: Access, want: u32, when: &str) -> u32 {
        let got = self.read(w.addr, acc);
        if got != want {
            self.fail(format!(
                "{} ({acc:?} read {when}): read {got:#010x}, expected {want:#010x}",
                w.label()
            ));
        }
        got
    }

    /// Reads an unmapped address and expects 0.
    fn check_raz(&mut self, addr: u32, acc: Access, when: &str) {
        let got = self.read(addr, acc);
        if got != 0 {
            self.fail(format!(
                "unmapped {addr:#x} ({acc:?} read {when}): read {got:#010x}, expected 0"
            ));
        }
    }

    fn word(&self, id: RegId, word: Word) -> RegWord<'a> {
        RegWord::new(self.map.reg(id), word)
    }

    fn write_reg(&mut self, id: RegId, word: Word, data: u32) {
        let addr = self.word(id, word).addr;
        self.write(addr, data, ALL, S);
    }

    /// Every mapped word reads `want(word)` through `acc`.
    fn check_all(&mut self, acc: Access, when: &str, want: impl Fn(&RegWord<'_>) -> u32) {
        for w in map_words(self.map) {
            self.check(&w, acc, want(&w), when);
        }
    }

    /// Every mapped word reads its reset value (Secure reads).
    fn check_all_reset(&mut self, when: &str) {
        self.check_all(S, when, |w| w.reset);
    }

    /// Security rules apply and `acc` is Non-secure.
    fn non_secure(&self, acc: Access) -> bool {
        self.cfg.secure && acc == NS
    }

    fn finish(self) {
        if self.failures > 0 {
            panic!(
                "config `{}` ({}): {} failure(s){}:\n  {}",
                self.cfg_name,
                self.cfg.summary(),
                self.failures,
                if self.failures > self.errors.len() {
                    format!(", first {}", self.errors.len())
                } else {
                    String::new()
                },
                self.errors.join("\n  ")
            );
        }
    }
}

/// Runs `test` on every backend of every shared configuration that `applies`.
fn each_config(applies: impl Fn(&PmcgConfig) -> bool, test: impl Fn(&mut Bench<'_>)) {
    for (name, cfg) in configs() {
        if !applies(&cfg) {
            eprintln!("config `{name}`: not applicable, skipped");
            continue;
        }
        let map = RegisterMap::new(&cfg);
        for_each_backend(&cfg, |d| {
            let mut b = Bench {
                cfg_name: name,
                cfg: &cfg,
                map: &map,
                d,
                errors: Vec::new(),
                failures: 0,
            };
            test(&mut b);
            b.finish();
        });
    }
}

fn every_config(test: impl Fn(&mut Bench<'_>)) {
    each_config(|_| true, test)
}

// ---------------------------------------------------------------------------------------------
// Shared register passes
// ---------------------------------------------------------------------------------------------

/// W1S view `w` and its W1C partner: set all, writing 0 to either view has no effect, clear all.
fn bitmap_pair(b: &mut Bench<'_>, w: &RegWord<'_>, acc: Access) {
    let clr = w1c_partner(b.map, w);
    let label = clr.label();
    let set = w.after_write(w.reset, ONES, ALL);
    b.write(w.addr, ONES, ALL, acc);
    b.check(w, acc, set, "after writing all-ones to it");
    b.check(
        &clr,
        acc,
        set,
        &format!("after writing all-ones to {}", w.label()),
    );
    b.write(w.addr, 0, ALL, acc);
    b.check(w, acc, set, "after writing 0 to it (W1S: no effect)");
    b.write(clr.addr, 0, ALL, acc);
    b.check(&clr, acc, set, "after writing 0 to it (W1C: no effect)");
    let cleared = clr.after_write(set, ONES, ALL);
    b.write(clr.addr, ONES, ALL, acc);
    b.check(&clr, acc, cleared, "after writing all-ones to it");
    b.check(
        w,
        acc,
        cleared,
        &format!("after writing all-ones to {label}"),
    );
}

/// Test 2's pass over every word through `acc`: all-ones, zero, reset value back. Leaves every
/// register at its reset value.
fn read_write_pass(b: &mut Bench<'_>, acc: Access) {
    for w in map_words(b.map) {
        if b.non_secure(acc) && w.reg.secure_only {
            // 10.5.2.12: Non-secure accesses to SCR are RAZ/WI.
            b.check(&w, acc, 0, "of a Secure-only register");
            b.write(w.addr, ONES, ALL, acc);
            b.check(&w, S, w.reset, "after a Non-secure all-ones write");
            b.write(w.addr, 0, ALL, acc);
            b.check(&w, S, w.reset, "after a Non-secure zero write");
            continue;
        }
        if w.w1c != 0 {
            continue; // exercised through its W1S view
        }
        if w.w1s != 0 {
            bitmap_pair(b, &w, acc);
            continue;
        }
        let ones = w.after_write(w.reset, ONES, ALL);
        b.write(w.addr, ONES, ALL, acc);
        b.check(&w, acc, ones, "after writing all-ones");
        let zero = w.after_write(ones, 0, ALL);
        b.write(w.addr, 0, ALL, acc);
        b.check(&w, acc, zero, "after writing zero");
        if w.rw != 0 {
            b.write(w.addr, w.reset, ALL, acc);
            b.check(&w, acc, w.reset, "after writing its reset value back");
        }
    }
    b.check_all_reset("after the read/write pass (every register written back to reset)");
}

// ---------------------------------------------------------------------------------------------
// 1. Reset values
// ---------------------------------------------------------------------------------------------

#[test]
fn reset_values_of_every_word() {
    every_config(|b| {
        for (i, w) in map_words(b.map).into_iter().enumerate() {
            b.check(&w, S, w.reset, "after reset");
            // The low two bits of PADDR are ignored.
            let low_bits = (i as u32 % 3) + 1;
            let got = b.read(w.addr | low_bits, S);
            if got != w.reset {
                b.fail(format!(
                    "{} (read at {:#x}, low address bits {low_bits:#b}): read {got:#010x}, expected {:#010x}",
                    w.label(),
                    w.addr | low_bits,
                    w.reset
                ));
            }
        }
        // PRESETn restores every register: dirty all RW and W1S bits (IRQ_CTRL last, so that
        // IRQEN does not guard IRQ_CFGx), then reset.
        let mut words = map_words(b.map);
        words.sort_by_key(|w| w.id() == RegId::IrqCtrl);
        for w in &words {
            if w.rw != 0 {
                b.write(w.addr, !w.reset, ALL, S);
            } else if w.w1s != 0 {
                b.write(w.addr, ONES, ALL, S);
            }
        }
        for w in &words {
            let dirty = (w.rw_value(!w.reset) | w.w1s | w.w1c) & w.read;
            // (CR.E = 1 and CNTEN = 1 may count, so the counters are not compared here.)
            if dirty != w.reset && !matches!(w.id(), RegId::Evcntr(_)) {
                b.check(w, S, dirty, "after dirtying every register");
            }
        }
        b.d.reset(1);
        b.check_all_reset("after a second reset with every register dirty");
        if b.cfg.secure {
            // SCR.NSRA is back to 1: Non-secure accesses work again.
            b.check_all(NS, "after a second reset (NSRA = 1)", |w| {
                if w.reg.secure_only {
                    0
                } else {
                    w.reset
                }
            });
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 2. Read/write behaviour of every word
// ---------------------------------------------------------------------------------------------

#[test]
fn read_write_every_word() {
    for (name, cfg) in configs() {
        // The map itself follows the spec rules this test relies on.
        let map = RegisterMap::new(&cfg);
        for n in 0..cfg.counters {
            let c = map.reg(RegId::Evcntr(n));
            assert_eq!(c.bits, if cfg.counter_bits > 32 { 64 } else { 32 });
            assert_eq!(
                c.mask_of(FieldAccess::RW),
                cfg.counter_mask(),
                "{name}: {}",
                c.name
            );
            if let Some(s) = map.get(RegId::Svr(n)) {
                assert_eq!(
                    s.impl_mask(),
                    s.mask_of(FieldAccess::RO),
                    "{name}: {}",
                    s.name
                );
                assert_eq!(s.reset(), 0, "{name}: {}", s.name);
            }
        }
        for r in &map.regs {
            let guarded = matches!(r.id, RegId::IrqCfg0 | RegId::IrqCfg1 | RegId::IrqCfg2);
            assert_eq!(r.guarded, guarded, "{name}: {}", r.name);
            assert_eq!(r.secure_only, r.id == RegId::Scr, "{name}: {}", r.name);
        }
    }
    // CR.E = 0, CNTEN = 0 and IRQ_CTRL.IRQEN = 0 throughout: every register is written back to
    // its reset value before the next one is tested.
    every_config(|b| read_write_pass(b, S));
}

// ---------------------------------------------------------------------------------------------
// 3. Bit-bash of the RW registers
// ---------------------------------------------------------------------------------------------

#[test]
fn walking_ones_on_rw_registers() {
    every_config(|b| {
        for w in map_words(b.map).into_iter().filter(|w| w.rw != 0) {
            for bit in 0..32 {
                let v = 1u32 << bit;
                b.write(w.addr, v, ALL, S);
                b.check(&w, S, w.rw_value(v), &format!("after writing {v:#010x}"));
            }
            b.write(w.addr, w.reset, ALL, S);
        }
        b.check_all_reset("after the walking-ones pass");
    });
}

#[test]
fn random_patterns_on_all_rw_registers_at_once() {
    eprintln!("bit-bash seed: {BITBASH_SEED:#x}");
    every_config(|b| {
        let mut rng = ChaCha8Rng::seed_from_u64(BITBASH_SEED);
        let words = map_words(b.map);
        let ctrl = b.word(RegId::IrqCtrl, Word::Low);
        let ack = b.word(RegId::IrqCtrlAck, Word::Low);
        let irqen = b.map.mask(field::IRQ_CTRL_IRQEN) as u32;
        let ack_irqen = b.map.mask(field::IRQ_CTRLACK_IRQEN) as u32;
        for round in 0..2 {
            // IRQ_CTRL last: its IRQEN would guard IRQ_CFG0/1/2. CNTEN stays 0, so CR.E = 1
            // counts nothing.
            b.write(ctrl.addr, 0, ALL, S);
            let mut order: Vec<&RegWord<'_>> = words.iter().filter(|w| w.rw != 0).collect();
            order.sort_by_key(|w| w.id() == RegId::IrqCtrl);
            let patterns: Vec<u32> = order.iter().map(|_| rng.gen()).collect();
            for (w, &p) in order.iter().zip(&patterns) {
                b.write(w.addr, p, ALL, S);
            }
            for (w, &p) in order.iter().zip(&patterns) {
                b.check(
                    w,
                    S,
                    w.rw_value(p),
                    &format!("after round {round} wrote {p:#010x}"),
                );
            }
            // The other registers did not change (IRQ_CTRLACK follows IRQ_CTRL.IRQEN).
            let ctrl_p = patterns[order.len() - 1];
            for w in words.iter().filter(|w| w.rw == 0) {
                let want = if w.id() == ack.id() {
                    if ctrl_p & irqen != 0 {
                        ack_irqen
                    } else {
                        0
                    }
                } else {
                    w.reset
                };
                b.check(w, S, want, &format!("after round {round} of RW patterns"));
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 4. PSTRB
// ---------------------------------------------------------------------------------------------

#[test]
fn pstrb_selects_the_written_bytes() {
    every_config(|b| {
        let last = b.cfg.counters - 1;
        let mut ids = vec![
            RegId::Cr,
            RegId::Smr(0),
            RegId::Evtyper(0),
            RegId::Evtyper(last),
            RegId::Evcntr(0),
            RegId::Evcntr(last),
        ];
        if b.map.get(RegId::IrqCfg1).is_some() {
            ids.push(RegId::IrqCfg1);
        }
        for id in ids {
            for w in reg_words(b.map.reg(id)) {
                for data in [0, 0x5AC3_3CA5] {
                    for strb in 0..=15u8 {
                        b.write(w.addr, ONES, ALL, S);
                        let ones = w.after_write(w.reset, ONES, ALL);
                        b.write(w.addr, data, strb, S);
                        let want = w.after_write(ones, data, strb);
                        b.check(
                            &w,
                            S,
                            want,
                            &format!("after all-ones then {data:#010x} with PSTRB {strb:#06b}"),
                        );
                    }
                }
                b.write(w.addr, w.reset, ALL, S);
            }
        }
        // W1S/W1C bits of unstrobed bytes count as 0 (CR.E = 0: enabling counts nothing).
        let set = b.word(RegId::CntenSet0, Word::Low);
        let clr = w1c_partner(b.map, &set);
        for strb in 0..=15u8 {
            b.write(clr.addr, ONES, ALL, S);
            b.write(set.addr, ONES, strb, S);
            let want = set.after_write(0, ONES, strb);
            b.check(
                &set,
                S,
                want,
                &format!("after clearing all, then setting all with PSTRB {strb:#06b}"),
            );
            b.write(set.addr, ONES, ALL, S);
            b.write(clr.addr, ONES, strb, S);
            let want = clr.after_write(set.w1s & set.read, ONES, strb);
            b.check(
                &clr,
                S,
                want,
                &format!("after setting all, then clearing all with PSTRB {strb:#06b}"),
            );
        }
        b.write(clr.addr, ONES, ALL, S);
        b.check_all_reset("after the PSTRB tests (registers written back to reset)");
    });
}

// ---------------------------------------------------------------------------------------------
// 5. Unmapped offsets
// ---------------------------------------------------------------------------------------------

/// Every unmapped word address of page 0 and (with RELOC_CTRS) page 1, plus addresses outside
/// both pages: the would-be page 1 without RELOC_CTRS, and mapped addresses with one address bit
/// above the page offset flipped (a decoder that ignores high bits aliases them).
fn unmapped_addresses(cfg: &PmcgConfig, map: &RegisterMap) -> Vec<u32> {
    let page = offset::PAGE_SIZE;
    let mut v: Vec<u32> = (0..page).step_by(4).collect();
    if cfg.reloc_ctrs {
        v.extend((0..page).step_by(4).map(|a| map.page1_base + a));
    } else {
        v.extend(map.regs.iter().map(|r| map.page1_base + r.addr));
    }
    v.extend([page, map.page1_base - 4, map.page1_base + page, !3u32]);
    for r in &map.regs {
        if matches!(
            r.id,
            RegId::Cr
                | RegId::Cfgr
                | RegId::Scr
                | RegId::Evtyper(0)
                | RegId::Evcntr(0)
                | RegId::OvsSet0
        ) {
            v.extend((12..32).map(|bit| r.addr ^ (1 << bit)));
        }
    }
    v.sort_unstable();
    v.dedup();
    v.retain(|&a| map.lookup(a).is_none());
    v
}

#[test]
fn unmapped_offsets_are_raz_wi() {
    every_config(|b| {
        let addrs = unmapped_addresses(b.cfg, b.map);
        // Registers of unimplemented counters are in the sweep.
        let n = b.cfg.counters;
        if n < 64 {
            let absent = b.map.array_base(RegId::Evcntr(0)) + n * b.map.counter_stride;
            assert!(
                addrs.contains(&absent),
                "EVCNTR{n} location {absent:#x} is swept"
            );
        }
        for &a in &addrs {
            b.write(a, ONES, ALL, S);
            b.check_raz(a, S, "after writing all-ones to it");
        }
        b.check_all_reset(&format!(
            "after all-ones writes to {} unmapped addresses",
            addrs.len()
        ));
    });
}

/// docs/behaviour.md "Addresses": the block decodes the smallest power-of-two window that holds
/// both pages (`page1_offset` + 4 KiB, rounded up) and ignores the PADDR bits above it, so an
/// address with any of them set is an alias of its in-window register: written and read alike
/// (a counter's alias is held like the counter).
#[test]
fn addresses_above_the_window_alias_into_it() {
    every_config(|b| {
        let window = (b.cfg.page1_offset as u64 + 0x1000).next_power_of_two();
        assert_eq!(b.map.addr_mask() as u64 + 1, window, "the map's window");
        // Each bit above the window alone, then all of them (none when the window is 4 GiB).
        let lowest = window.trailing_zeros();
        let aliases: Vec<u32> = (lowest..32)
            .map(|bit| 1u32 << bit)
            .chain([!b.map.addr_mask()])
            .filter(|&high| high != 0)
            .collect();
        for id in [RegId::Cr, RegId::Evtyper(0), RegId::Evcntr(0)] {
            let w = b.word(id, Word::Low);
            for (k, &high) in aliases.iter().enumerate() {
                let alias = w.addr | high;
                // Alternate all-ones and a pattern so that every write changes the register.
                let data = if k % 2 == 0 { ONES } else { 0x5A5A_A5A5 };
                let old = b.read(w.addr, S) & w.read;
                b.write(alias, data, ALL, S);
                let want = w.after_write(old, data, ALL);
                b.check(
                    &w,
                    S,
                    want,
                    &format!("after writing {data:#x} to its alias {alias:#x}"),
                );
                let got = b.read(alias, S);
                if got != want {
                    b.fail(format!(
                        "{} read through its alias {alias:#x}: {got:#010x}, expected {want:#010x}",
                        w.label()
                    ));
                }
            }
        }
        // An unmapped word of the window is RAZ/WI through its aliases too.
        let hole = b.map.page1_base - 4;
        if b.map.lookup(hole).is_none() {
            b.write(hole | 0x8000_0000, ONES, ALL, S);
            b.check_raz(hole, S, "after an all-ones write to its alias");
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 6. Security (10.6)
// ---------------------------------------------------------------------------------------------

/// 10.6 at reset: a write set up in the first cycle after PRESETn rises is judged with SCR as
/// reset (NSRA = 1), although the register file resets a cycle after the completer (at the end of
/// that cycle) and NSRA was 0 before: the completer registers the write's permission at its setup
/// edge from SCR after that edge. Non-secure and Secure writes, each right after a reset.
#[test]
fn a_write_in_the_first_cycle_after_reset_sees_scr_as_reset() {
    each_config(
        |cfg| cfg.secure,
        |b| {
            let scr = b.word(RegId::Scr, Word::Low);
            let cr = b.word(RegId::Cr, Word::Low);
            let nsra = b.map.mask(field::SCR_NSRA) as u32;
            for acc in [NS, S] {
                b.write(scr.addr, scr.reset & !nsra, ALL, S);
                b.check(
                    &scr,
                    S,
                    scr.reset & !nsra,
                    "after a Secure write clearing NSRA",
                );
                b.d.reset(1);
                // Set up in the first cycle with PRESETn high.
                b.write(cr.addr, 1, ALL, acc);
                let want = cr.after_write(cr.reset, 1, ALL);
                b.check(
                    &cr,
                    S,
                    want,
                    &format!(
                        "after a {acc:?} write in the first cycle after a reset with NSRA = 0"
                    ),
                );
                b.check(&scr, S, scr.reset, "after the reset");
                b.write(cr.addr, cr.reset, ALL, S);
            }
        },
    );
}

#[test]
fn security_nsra_and_secure_only_scr() {
    every_config(|b| {
        if !b.cfg.secure {
            // No Secure state: PPROT[1] makes no difference and the SCR location is RAZ/WI.
            assert!(
                b.map.lookup(offset::SCR).is_none(),
                "SCR absent without Secure state"
            );
            read_write_pass(b, NS);
            for acc in [S, NS] {
                b.write(offset::SCR, ONES, ALL, acc);
                b.check_raz(offset::SCR, S, &format!("after a {acc:?} all-ones write"));
                b.check_raz(offset::SCR, NS, &format!("after a {acc:?} all-ones write"));
                // Clearing what would be NSRA does not block Non-secure accesses either.
                b.write(offset::SCR, 0, ALL, acc);
                b.check_all(NS, "after a zero write to the SCR location", |w| w.reset);
            }
            return;
        }
        // NSRA = 1 (reset): Non-secure accesses work on every register but SCR.
        let scr = b.word(RegId::Scr, Word::Low);
        let nsra = b.map.mask(field::SCR_NSRA) as u32;
        assert_ne!(scr.reset & nsra, 0, "NSRA resets to 1");
        read_write_pass(b, NS);

        // NSRA = 0: every Non-secure access is RAZ/WI.
        let blocked = scr.reset & !nsra;
        b.write(scr.addr, blocked, ALL, S);
        b.check(&scr, S, blocked, "after a Secure write clearing NSRA");
        let base = |w: &RegWord<'_>| {
            if w.id() == RegId::Scr {
                blocked
            } else {
                w.reset
            }
        };
        b.check_all(NS, "with NSRA = 0", |_| 0);
        for w in map_words(b.map) {
            b.write(w.addr, ONES, ALL, NS);
        }
        b.check_all(S, "after Non-secure all-ones writes with NSRA = 0", base);

        // Secure accesses still work: set every RW and bitmap bit (not CR.E, IRQ_CTRL or SCR).
        let kept = |w: &RegWord<'_>| matches!(w.id(), RegId::Cr | RegId::Scr | RegId::IrqCtrl);
        let set = |w: &RegWord<'_>| {
            if kept(w) {
                base(w)
            } else {
                (w.rw_value(ONES) | w.w1s | w.w1c) & w.read
            }
        };
        for w in map_words(b.map) {
            if !kept(&w) && (w.rw | w.w1s) != 0 {
                b.write(w.addr, ONES, ALL, S);
            }
        }
        b.check_all(S, "after Secure all-ones writes with NSRA = 0", set);
        // Non-secure writes that would clear everything are ignored.
        for w in map_words(b.map) {
            let data = if w.w1c != 0 || w.reg.secure_only {
                ONES
            } else {
                0
            };
            b.write(w.addr, data, ALL, NS);
        }
        b.check_all(S, "after Non-secure clearing writes with NSRA = 0", set);
        b.check_all(NS, "with NSRA = 0 and registers set", |_| 0);

        // Back to reset, NSRA = 1 last: Non-secure accesses work again.
        for w in map_words(b.map) {
            if w.w1c != 0 {
                b.write(w.addr, ONES, ALL, S);
            } else if !kept(&w) && w.rw != 0 {
                b.write(w.addr, w.reset, ALL, S);
            }
        }
        b.write(scr.addr, scr.reset, ALL, S);
        b.check_all_reset("after restoring every register and NSRA = 1");
        b.check_all(NS, "after NSRA = 1 again", |w| {
            if w.reg.secure_only {
                0
            } else {
                w.reset
            }
        });
    });
}

// ---------------------------------------------------------------------------------------------
// 7. Guarded IRQ_CFG0/1/2 and IRQ_CTRLACK
// ---------------------------------------------------------------------------------------------

#[test]
fn irq_cfg_guarded_by_irqen_and_ctrlack_follows() {
    every_config(|b| {
        let ctrl = b.word(RegId::IrqCtrl, Word::Low);
        let ack = b.word(RegId::IrqCtrlAck, Word::Low);
        let irqen = b.map.mask(field::IRQ_CTRL_IRQEN) as u32;
        let ack_irqen = b.map.mask(field::IRQ_CTRLACK_IRQEN) as u32;
        assert_ne!(irqen, 0);
        assert_ne!(ack_irqen, 0);
        assert_eq!(ack.rw, 0, "IRQ_CTRLACK is RO");
        let guarded: Vec<RegWord<'_>> = map_words(b.map)
            .into_iter()
            .filter(|w| w.reg.guarded)
            .collect();
        let (p, q) = (0xA5A5_5A5Au32, 0x3C3C_C3C3u32);

        // IRQEN = 0: IRQ_CFGx are RW; IRQ_CTRLACK ignores writes.
        for w in &guarded {
            b.write(w.addr, p, ALL, S);
            b.check(
                w,
                S,
                w.rw_value(p),
                &format!("after writing {p:#010x} with IRQEN = 0"),
            );
        }
        b.write(ack.addr, ONES, ALL, S);
        b.check(&ack, S, ack.reset, "after an all-ones write to it (RO)");
        b.check(
            &ctrl,
            S,
            ctrl.reset,
            "after an all-ones write to IRQ_CTRLACK",
        );

        // IRQEN = 1: IRQ_CTRLACK.IRQEN = 1 too, and IRQ_CFGx ignore writes.
        b.write(ctrl.addr, irqen, ALL, S);
        b.check(&ctrl, S, ctrl.rw_value(irqen), "after setting IRQEN");
        b.check(&ack, S, ack_irqen, "after setting IRQ_CTRL.IRQEN");
        b.write(ack.addr, 0, ALL, S);
        b.check(&ack, S, ack_irqen, "after a zero write to it (RO)");
        b.check(
            &ctrl,
            S,
            ctrl.rw_value(irqen),
            "after a zero write to IRQ_CTRLACK",
        );
        for w in &guarded {
            for (data, strb) in [(q, ALL), (0, ALL), (ONES, ALL), (0, 0b0101), (ONES, 0b1010)] {
                b.write(w.addr, data, strb, S);
                b.check(
                    w,
                    S,
                    w.rw_value(p),
                    &format!(
                        "after writing {data:#010x} (PSTRB {strb:#06b}) with IRQEN = 1 (Guarded: ignored)"
                    ),
                );
            }
        }

        // IRQEN = 0 again: writes work again.
        b.write(ctrl.addr, 0, ALL, S);
        b.check(&ctrl, S, ctrl.rw_value(0), "after clearing IRQEN");
        b.check(&ack, S, 0, "after clearing IRQ_CTRL.IRQEN");
        for w in &guarded {
            b.write(w.addr, q, ALL, S);
            b.check(
                w,
                S,
                w.rw_value(q),
                &format!("after writing {q:#010x} with IRQEN = 0 again"),
            );
            b.write(w.addr, w.reset, ALL, S);
        }
        b.check_all_reset("after the Guarded test (registers written back to reset)");
    });
}

// ---------------------------------------------------------------------------------------------
// 8. 64-bit read snapshot
// ---------------------------------------------------------------------------------------------

/// Low word a snapshot test starts from: 16 cycles below the carry into the high word.
const SNAP_LOW_START: u32 = 0xFFFF_FFF0;

/// A running cycle counter n started at a known value at a known cycle.
struct Running {
    n: u32,
    start: u64,
    /// First cycle whose register state includes a count (the first counting edge ends it).
    t0: u64,
    mask: u64,
}

impl Running {
    /// behaviour.md: a read sampled in setup cycle c sees the edges t0..c-1, one count each.
    fn value_at(&self, c: u64) -> u64 {
        self.start.wrapping_add(c - self.t0) & self.mask
    }
    /// The first cycle whose state holds the carry out of the low word.
    fn carry_cycle(&self) -> u64 {
        self.t0 + (1u64 << 32) - (self.start & 0xFFFF_FFFF)
    }
}

/// Stops counting (CR.E = 0), makes counter n count cycles (EVTYPERn.EVENT = 0, CNTEN[n] = 1),
/// writes it to `hi:SNAP_LOW_START` while stopped, then sets CR.E = 1.
fn start_cycle_counter(b: &mut Bench<'_>, n: u32, hi: u32) -> Running {
    let cr_e = b.map.mask(field::CR_E) as u32;
    b.write_reg(RegId::Cr, Word::Low, 0);
    let event = b.map.field(field::EVTYPER_EVENT.at(n)).expect("EVENT");
    b.write_reg(
        RegId::Evtyper(n),
        Word::Low,
        (CYCLE_EVENT as u32) << event.lsb,
    );
    let cnten = b.word(
        RegId::CntenSet0,
        if n < 32 { Word::Low } else { Word::High },
    );
    b.write(cnten.addr, 1 << (n % 32), ALL, S);
    b.write_reg(RegId::Evcntr(n), Word::Low, SNAP_LOW_START);
    b.write_reg(RegId::Evcntr(n), Word::High, hi);
    b.write_reg(RegId::Cr, Word::Low, cr_e);
    // The CR write took effect at the edge ending its access cycle (b.d.cycle - 1); cycle
    // counting at an edge uses CR.E of the cycle before it, so the first counting edge is
    // CYCLE_ENABLE_DELAY after the write's.
    Running {
        n,
        start: ((hi as u64) << 32) | SNAP_LOW_START as u64,
        t0: b.d.cycle - 1 + CYCLE_ENABLE_DELAY,
        mask: b.cfg.counter_mask(),
    }
}

/// Reads one word of counter `r`: (access cycle of the read, data).
fn read_counter_word(b: &mut Bench<'_>, r: &Running, word: Word, acc: Access) -> (u64, u32) {
    // The read returns the state of its access cycle, the cycle after its setup cycle and its
    // held cycles.
    let addr = b.word(RegId::Evcntr(r.n), word).addr;
    let c = b.d.cycle + 1 + hold_of(b, addr) as u64;
    (c, b.read(addr, acc))
}

/// Compares a counter word read with its expected value; `case` names the scenario.
fn expect_counter(
    b: &mut Bench<'_>,
    r: &Running,
    word: Word,
    acc: Access,
    case: &str,
    got: u32,
    want: u64,
) {
    if got as u64 != want {
        let label = b.word(RegId::Evcntr(r.n), word).label();
        b.fail(format!(
            "{label} ({acc:?} read, {case}): read {got:#010x}, expected {want:#010x}"
        ));
    }
}

/// Waits until the low word of `r` has carried into the high word, with a margin.
fn wait_for_carry(b: &mut Bench<'_>, r: &Running) {
    let margin = 4;
    let target = r.carry_cycle() + margin;
    if b.d.cycle < target {
        b.d.idle(target - b.d.cycle);
    }
}

#[test]
fn split_64_bit_read_snapshot() {
    each_config(
        |cfg| cfg.counter_bits > 32,
        |b| {
            use Word::{High, Low};
            let hi_of = |v: u64| v >> 32;
            let lo_of = |v: u64| v & 0xFFFF_FFFF;
            let last = b.cfg.counters - 1;
            assert!(last > 0, "scenario D needs two counters");
            // Another counter, stopped (CNTEN = 0) at a distinct high word.
            let other_hi = 7 & (b.cfg.counter_mask() >> 32) as u32;
            b.write_reg(RegId::Evcntr(last), High, other_hi);

            // A. Low then high with idle cycles (no transfer) between: the snapshot answers.
            let r = start_cycle_counter(b, 0, 5);
            let (c, lo) = read_counter_word(b, &r, Low, S);
            let case = "A: right after CR.E = 1";
            expect_counter(b, &r, Low, S, case, lo, lo_of(r.value_at(c)));
            let snap = hi_of(r.value_at(c));
            wait_for_carry(b, &r);
            let (c, hi) = read_counter_word(b, &r, High, S);
            if hi_of(r.value_at(c)) == snap {
                b.fail("A: test error: the carry had not happened before the high read".into());
            }
            let case = "A: right after its low word, carry in between (snapshot)";
            expect_counter(b, &r, High, S, case, hi, snap);
            let (c, hi) = read_counter_word(b, &r, High, S);
            let case = "A: again (live: the previous transfer was a high read)";
            expect_counter(b, &r, High, S, case, hi, hi_of(r.value_at(c)));
            let (c, lo) = read_counter_word(b, &r, Low, S);
            let case = "A: after the carry";
            expect_counter(b, &r, Low, S, case, lo, lo_of(r.value_at(c)));

            // B/C. Another transfer between the low and the high read ends the snapshot.
            for (case, via_write) in [
                ("B: a CFGR read between low and high (live)", false),
                ("C: an SMR0 write between low and high (live)", true),
            ] {
                let r = start_cycle_counter(b, 0, 5);
                read_counter_word(b, &r, Low, S);
                if via_write {
                    let smr = b.word(RegId::Smr(0), Low);
                    b.write(smr.addr, smr.reset, ALL, S);
                } else {
                    let cfgr = b.word(RegId::Cfgr, Low);
                    b.check(
                        &cfgr,
                        S,
                        cfgr.reset,
                        "between a low and a high counter read",
                    );
                }
                wait_for_carry(b, &r);
                let (c, hi) = read_counter_word(b, &r, High, S);
                expect_counter(b, &r, High, S, case, hi, hi_of(r.value_at(c)));
            }

            // D. The snapshot belongs to one register.
            let r = start_cycle_counter(b, 0, 5);
            read_counter_word(b, &r, Low, S);
            let other = b.word(RegId::Evcntr(last), High);
            b.check(
                &other,
                S,
                other_hi,
                "right after EVCNTR0's low word (its own live value)",
            );

            // E. Non-secure accesses (configurations with Secure state).
            if b.cfg.secure {
                // NSRA = 1: a Non-secure split read uses the snapshot too.
                let r = start_cycle_counter(b, 0, 5);
                let (c, _) = read_counter_word(b, &r, Low, NS);
                let snap = hi_of(r.value_at(c));
                wait_for_carry(b, &r);
                let (_, hi) = read_counter_word(b, &r, High, NS);
                let case = "E: Non-secure split read with NSRA = 1 (snapshot)";
                expect_counter(b, &r, High, NS, case, hi, snap);

                let scr = b.word(RegId::Scr, Low);
                let nsra = b.map.mask(field::SCR_NSRA) as u32;
                // NSRA = 0: a refused low read ends the current snapshot...
                let r = start_cycle_counter(b, 0, 5);
                b.write(scr.addr, scr.reset & !nsra, ALL, S);
                read_counter_word(b, &r, Low, S);
                wait_for_carry(b, &r);
                let (_, lo) = read_counter_word(b, &r, Low, NS);
                expect_counter(b, &r, Low, NS, "E: refused with NSRA = 0", lo, 0);
                let (c, hi) = read_counter_word(b, &r, High, S);
                let case = "E: after a refused Non-secure low read ended the snapshot (live)";
                expect_counter(b, &r, High, S, case, hi, hi_of(r.value_at(c)));
                // ...and takes none.
                let r = start_cycle_counter(b, 0, 5);
                read_counter_word(b, &r, Low, NS);
                wait_for_carry(b, &r);
                let (c, hi) = read_counter_word(b, &r, High, S);
                let case = "E: after a refused Non-secure low read (no snapshot: live)";
                expect_counter(b, &r, High, S, case, hi, hi_of(r.value_at(c)));
                b.write(scr.addr, scr.reset, ALL, S);
            }
            b.write_reg(RegId::Cr, Low, 0);
        },
    );
}

// ---------------------------------------------------------------------------------------------
// The read wait state (docs/behaviour.md "APB4 completer")
// ---------------------------------------------------------------------------------------------

/// PREADY and PRDATA of one cycle.
type Pins = (bool, u32);

/// One cycle of a Secure transfer on `addr` (a read, or a write of `write`) with PENABLE and
/// PRESETn as given; PSLVERR must be 0. Returns the cycle's (PREADY, PRDATA).
fn apb_cycle(
    b: &mut Bench<'_>,
    addr: u32,
    write: Option<u32>,
    penable: bool,
    presetn: bool,
) -> Pins {
    let mut inp = PinInputs::idle(b.cfg.lanes as usize);
    (inp.psel, inp.penable, inp.presetn, inp.paddr) = (true, penable, presetn, addr);
    (inp.pprot, inp.pnse) = (S.pprot(), S.pnse());
    if let Some(v) = write {
        (inp.pwrite, inp.pwdata, inp.pstrb) = (true, v, ALL);
    }
    let o = b.d.step_with(inp);
    if o.pslverr {
        b.fail(format!("PSLVERR = 1 in cycle {}", b.d.cycle - 1));
    }
    (o.pready, o.prdata)
}

/// One idle cycle (PSEL = 0; PRESETn as given): (PREADY, PRDATA).
fn idle_cycle(b: &mut Bench<'_>, presetn: bool) -> Pins {
    let mut inp = PinInputs::idle(b.cfg.lanes as usize);
    inp.presetn = presetn;
    let o = b.d.step_with(inp);
    (o.pready, o.prdata)
}

/// The held cycles of an access to `addr` (docs/behaviour.md "Counter and shadow accesses").
fn hold_of(b: &Bench<'_>, addr: u32) -> usize {
    b.map.hold_cycles(addr) as usize
}

/// A read driven by hand: setup, PENABLE = 1 through its held cycles (if any), then for exactly
/// two access cycles (the contract's length), with PRESETn low in the access cycles `reset_in`
/// lists (0: the first, 1: the second). Returns the pins of every cycle and the setup cycle.
fn hand_read(b: &mut Bench<'_>, addr: u32, reset_in: &[usize]) -> (Vec<Pins>, u64) {
    let s = b.d.cycle;
    let mut pins = vec![apb_cycle(b, addr, None, false, true)];
    for _ in 0..hold_of(b, addr) {
        pins.push(apb_cycle(b, addr, None, true, true));
    }
    for k in 0..2 {
        pins.push(apb_cycle(b, addr, None, true, !reset_in.contains(&k)));
    }
    (pins, s)
}

/// A write driven by hand: setup, its held cycles (if any) and one access cycle. Returns their
/// pins.
fn hand_write(b: &mut Bench<'_>, addr: u32, data: u32) -> Vec<Pins> {
    let mut pins = vec![apb_cycle(b, addr, Some(data), false, true)];
    for _ in 0..=hold_of(b, addr) {
        pins.push(apb_cycle(b, addr, Some(data), true, true));
    }
    pins
}

/// The contract's pins of a read of `value` with `hold` held cycles: setup, held cycles, the
/// access cycle (its wait state), the data cycle.
fn read_pins(hold: usize, value: u32) -> Vec<Pins> {
    let mut p = vec![(true, 0)];
    p.extend(std::iter::repeat_n((false, 0), hold + 1));
    p.push((true, value));
    p
}

/// The contract's pins of a write with `hold` held cycles.
fn write_pins(hold: usize) -> Vec<Pins> {
    let mut p = vec![(true, 0)];
    p.extend(std::iter::repeat_n((false, 0), hold));
    p.push((true, 0));
    p
}

fn expect_pins(b: &mut Bench<'_>, case: &str, got: &[Pins], want: &[Pins]) {
    if got != want {
        b.fail(format!(
            "{case}: (PREADY, PRDATA) per cycle {got:x?}, expected {want:x?}"
        ));
    }
}

/// docs/behaviour.md "APB4 completer": every read takes exactly one wait state, after the held
/// cycles of a counter or shadow access ("Counter and shadow accesses", h of them; 0 for other
/// registers). Setup s; s+1 .. s+h: held, PREADY = 0, PRDATA = 0; s+h+1: PREADY = 0, PRDATA =
/// 0, the read is performed (the state of cycle s+h+1); s+h+2: PREADY = 1 and PRDATA = that
/// value. PREADY is 1 and PRDATA 0 in every other cycle; a write's access has no wait state of
/// its own. A running cycle counter tells the cycle a value was taken in. Every expected value
/// comes from the contract and `Running::value_at`, never from a backend.
#[test]
fn every_read_takes_exactly_one_wait_state() {
    every_config(|b| {
        use Word::Low;
        let lo = |v: u64| (v & 0xFFFF_FFFF) as u32;
        let ctr = b.word(RegId::Evcntr(0), Low).addr;
        let cfgr = b.word(RegId::Cfgr, Low);
        let h = hold_of(b, ctr);
        assert_eq!(h, COUNTER_HOLD_CYCLES as usize, "EVCNTR0 is held");
        assert_eq!(hold_of(b, cfgr.addr), 0, "CFGR is not");
        let hu = h as u64;
        let r = start_cycle_counter(b, 0, 0);

        // A single read: the value of its access cycle s+h+1 (edges t0..s+h counted), not of
        // s+h+2 (one count more), and PRDATA only in s+h+2.
        idle_cycle(b, true);
        let (pins, s) = hand_read(b, ctr, &[]);
        let (v1, v2) = (r.value_at(s + hu + 1), r.value_at(s + hu + 2));
        assert_ne!(lo(v1), lo(v2), "test error: the counter must move");
        let after = idle_cycle(b, true);
        let mut want = read_pins(h, lo(v1));
        want.push((true, 0));
        expect_pins(b, "one read", &[&pins[..], &[after]].concat(), &want);

        // Back-to-back reads (each setup in the cycle after the previous completion): the counter
        // twice, CFGR, the counter; performed in s+h+1, s+2h+4, (CFGR), s+3h+10.
        let (mut got, s) = hand_read(b, ctr, &[]);
        got.extend(hand_read(b, ctr, &[]).0);
        got.extend(hand_read(b, cfgr.addr, &[]).0);
        got.extend(hand_read(b, ctr, &[]).0);
        let mut want = Vec::new();
        want.extend(read_pins(h, lo(r.value_at(s + hu + 1))));
        want.extend(read_pins(h, lo(r.value_at(s + 2 * hu + 4))));
        want.extend(read_pins(0, cfgr.reset));
        want.extend(read_pins(h, lo(r.value_at(s + 3 * hu + 10))));
        expect_pins(b, "back-to-back reads", &got, &want);

        // Reads inside a write-heavy sequence: every write completes in its one access cycle,
        // every read has its wait state. A written EVTYPER1 reads back at once; EVCNTR0 written
        // W at edge a skips edge a and counts from edge a+1, so a read set up in a+1 (performed
        // in a+h+2) returns W + h + 1; cycle counting follows a CR.E = 0 write at edge c one edge
        // later (CYCLE_ENABLE_DELAY): edges c and c+1 still count, and a read set up in c+1
        // (performed in c+h+2) and one set up later return the same count.
        let evtyper1 = b.word(RegId::Evtyper(1), Low);
        let event = b.map.field(field::EVTYPER_EVENT.at(1)).expect("EVENT");
        let ev1 = 2u32 << event.lsb;
        let w = 0x0000_1000u32;
        let mut got = hand_write(b, evtyper1.addr, ev1);
        got.extend(hand_read(b, evtyper1.addr, &[]).0);
        got.extend(hand_write(b, ctr, w));
        got.extend(hand_read(b, ctr, &[]).0);
        got.extend(hand_write(b, ctr, w));
        got.extend(hand_write(b, cfgr.addr, 0)); // RO: ignored
        let a2 = b.d.cycle - 3;
        got.extend(hand_read(b, ctr, &[]).0);
        got.extend(hand_write(b, b.word(RegId::Cr, Low).addr, 0));
        let c = b.d.cycle - 1;
        got.extend(hand_read(b, ctr, &[]).0);
        got.extend(hand_read(b, ctr, &[]).0);
        let mut want = Vec::new();
        want.extend(write_pins(0));
        want.extend(read_pins(0, ev1));
        want.extend(write_pins(h));
        // Written at edge a (the write's access cycle), read set up in a+1 and performed in
        // a+h+2: edge a skipped, edges a+1 ..= a+h+1 counted.
        want.extend(read_pins(h, w + 1 + h as u32));
        want.extend(write_pins(h));
        want.extend(write_pins(0));
        // Written at a2, then the CFGR write (edges a2+1, a2+2), then setup a2+3 and the read
        // performed in a2+h+4: edges a2+1 ..= a2+h+3 counted.
        want.extend(read_pins(h, w + 3 + h as u32));
        want.extend(write_pins(0));
        // CR.E = 0 at edge c: from the write at a2, edges a2+1 ..= c+1 counted.
        let stopped = w + (c + CYCLE_ENABLE_DELAY - 1 - a2) as u32;
        want.extend(read_pins(h, stopped));
        want.extend(read_pins(h, stopped));
        expect_pins(b, "reads among writes", &got, &want);

        // PRESETn low in the wait state s+h+1: the read still completes in s+h+2 with the value
        // of cycle s+h+1; edge s+h+2 resets, so the next read returns the reset value. And with
        // PRESETn low in both access cycles (reset edges s+h+2 and s+h+3).
        for reset_in in [&[0usize][..], &[0, 1]] {
            let r = start_cycle_counter(b, 0, 0);
            idle_cycle(b, true);
            let (pins, s) = hand_read(b, ctr, reset_in);
            let v = lo(r.value_at(s + hu + 1));
            let case = format!("PRESETn low in access cycles {reset_in:?}");
            expect_pins(b, &case, &pins, &read_pins(h, v));
            // The cycle after: reset state, idle bus (PRESETn high again).
            let after = idle_cycle(b, true);
            expect_pins(b, &case, &[after], &[(true, 0)]);
            let ctr_w = b.word(RegId::Evcntr(0), Low);
            b.check(&ctr_w, S, ctr_w.reset, &format!("after the reset ({case})"));
            let cr = b.word(RegId::Cr, Low);
            b.check(&cr, S, cr.reset, &format!("after the reset ({case})"));
        }

        // PRESETn low in held cycle k: the hold ends, PREADY = 1 (PRDATA 0) in the next cycle
        // and the transfer is never performed (a write's value is not there after the reset
        // edge; nothing is performed at the reset edge either).
        for k in [1, h / 2, h] {
            for write in [false, true] {
                start_cycle_counter(b, 0, 0);
                let data = write.then_some(0x5555_0000);
                let mut got = vec![apb_cycle(b, ctr, data, false, true)];
                for j in 1..=k {
                    got.push(apb_cycle(b, ctr, data, true, j != k));
                }
                got.push(apb_cycle(b, ctr, data, true, true)); // completes: PREADY = 1
                got.push(idle_cycle(b, true));
                let mut want = vec![(true, 0)];
                want.extend(std::iter::repeat_n((false, 0), k));
                want.extend([(true, 0), (true, 0)]);
                let case = format!("PRESETn low in held cycle {k} of a {} (write: {write})", h);
                expect_pins(b, &case, &got, &want);
                let ctr_w = b.word(RegId::Evcntr(0), Low);
                b.check(&ctr_w, S, ctr_w.reset, &format!("after the reset ({case})"));
            }
        }
        b.write_reg(RegId::Cr, Low, 0);
    });
}
