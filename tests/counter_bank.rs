//! Block-level tests of the hybrid counter bank (`pmcg_hdl::counter_bank`): seeded random runs
//! on the native RustHDL block and on its emitted Verilog (Verilator), each checked cycle by
//! cycle against `pmcg_sim::bank_model` (every overflow at its edge, every read's value, every
//! op accepted within the bound); a planted fault that the same runs must catch; the shape check.
//! `PMCG_BANK_CYCLES` sets the cycles per run (default 100,000); `PMCG_BANK_SEED` one seed.

mod common;

use pmcg_hdl::counter_bank::{BankFault, BankShape};
use pmcg_sim::bank_sim::{run_bank, BankDut, NativeBank, VerilatorBank};

fn cycles() -> u64 {
    std::env::var("PMCG_BANK_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

fn seed(default: u64) -> u64 {
    std::env::var("PMCG_BANK_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The backends `PMCG_BACKENDS` selects (the model is the judge of both, not a backend here).
fn banks(shape: BankShape, fault: Option<BankFault>) -> Vec<Box<dyn BankDut>> {
    let mut v: Vec<Box<dyn BankDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            v.push(Box::new(NativeBank::new(shape, fault).unwrap()));
        } else {
            v.push(Box::new(
                VerilatorBank::new(shape, fault, &pmcg_sim::vdut::cache_dir()).unwrap(),
            ));
        }
    }
    v
}

fn shape(counters: usize, counter_bits: u32, max_inc: u32) -> BankShape {
    BankShape {
        counters,
        counter_bits,
        low_bits: BankShape::min_low_bits(counters, max_inc),
        max_inc,
    }
}

fn agrees_with_the_model(shape: BankShape, default_seed: u64) {
    let seed = seed(default_seed);
    for mut dut in banks(shape, None) {
        eprintln!("{shape:?} on {}: seed {seed}", dut.name());
        let stats = run_bank(dut.as_mut(), shape, seed, cycles()).unwrap();
        eprintln!("  {stats:?}");
        // The run must have exercised what it checks.
        assert!(stats.overflows > 0 && stats.reads > 100 && stats.writes > 100);
        assert!(stats.captures > 100);
    }
}

#[test]
fn the_64x64_bank_with_one_lane_agrees_with_the_model() {
    agrees_with_the_model(shape(64, 64, 1), 1);
}

#[test]
fn a_32x32_bank_with_four_lanes_agrees_with_the_model() {
    agrees_with_the_model(shape(32, 32, 4), 2);
}

#[test]
fn a_16x48_bank_with_increments_up_to_9_agrees_with_the_model() {
    agrees_with_the_model(shape(16, 48, 9), 3);
}

#[test]
fn a_3x64_bank_with_the_largest_increments_agrees_with_the_model() {
    agrees_with_the_model(shape(3, 64, 15), 4);
}

#[test]
fn a_5x33_bank_with_a_one_bit_high_part_agrees_with_the_model() {
    // The high part's "all ones but bit 0" predicate is then the whole part being 0.
    agrees_with_the_model(shape(5, 33, 3), 7);
}

#[test]
fn a_lost_carry_service_is_caught_on_every_backend() {
    let shape = shape(8, 40, 2);
    for mut dut in banks(shape, Some(BankFault::DropCarryService)) {
        let err = run_bank(dut.as_mut(), shape, seed(5), cycles()).unwrap_err();
        eprintln!("caught: {err}");
        assert!(err.contains("read") || err.contains("overflow"), "{err}");
    }
}

#[test]
fn a_late_copy_on_write_is_caught_on_every_backend() {
    let shape = shape(8, 64, 4);
    for mut dut in banks(shape, Some(BankFault::LateCopyOnWrite)) {
        let err = run_bank(dut.as_mut(), shape, seed(6), cycles()).unwrap_err();
        eprintln!("caught: {err}");
        assert!(err.contains("read"), "{err}");
    }
}

#[test]
fn a_partial_write_without_its_row_is_caught_on_every_backend() {
    // Its flag is then wrong, which shows only when that counter later overflows: a longer run.
    let shape = shape(32, 32, 4);
    for mut dut in banks(shape, Some(BankFault::IgnorePreRow)) {
        let err = run_bank(dut.as_mut(), shape, seed(2), cycles().max(200_000)).unwrap_err();
        eprintln!("caught: {err}");
        assert!(err.contains("overflow"), "{err}");
    }
}

#[test]
fn a_low_part_too_narrow_for_the_service_is_refused_naming_low_bits() {
    let s = BankShape {
        counters: 64,
        counter_bits: 64,
        low_bits: 8,
        max_inc: 1,
    };
    // 64 counters, one lane: 2^L > 1 * (6 * 64 + 5) = 389 needs L = 9.
    let err = s.check().unwrap_err();
    assert!(
        err.contains("low_bits = 8") && err.contains("9-16"),
        "{err}"
    );
    assert_eq!(BankShape::min_low_bits(64, 8), 12);
    assert!(BankShape { low_bits: 9, ..s }.check().is_ok());
    let wide = BankShape {
        counter_bits: 65,
        low_bits: 9,
        ..s
    };
    assert!(wide.check().unwrap_err().contains("counter_bits = 65"));
}

#[test]
fn the_bank_synthesizes_with_its_upper_parts_in_block_ram_and_no_latch() {
    if !common::have_tool("yosys") {
        return;
    }
    let shape = shape(16, 64, 2);
    let work = std::env::temp_dir().join(format!("pmcg-bank-yosys-{}", std::process::id()));
    pmcg_synth::bank::synthesize_bank(&shape, &work).unwrap();
    let log = std::fs::read_to_string(work.join("yosys.log")).unwrap();
    assert!(!log.contains("Latch inferred"), "a latch in the bank");
    let stat = std::fs::read_to_string(work.join("stat.txt")).unwrap();
    // Four 64 x 32-bit memories (bits [31:L] and [63:32] of the counters and of the shadows),
    // each two 256 x 16 block RAMs.
    let rams = common::block_rams(&stat);
    assert_eq!(rams, Some(8), "block RAMs in:\n{stat}");
    std::fs::remove_dir_all(&work).ok();
}
