//! Block-level tests of the StreamID filter tables (`pmcg_hdl::filter_table::FilterTable`):
//! seeded random runs on the native RustHDL block and on its emitted Verilog (Verilator), each
//! checked cycle by cycle against `pmcg_sim::filter_table_sim::FilterTableModel` (the tables'
//! contract in plain Rust: every known counter's hit on every lane, `busy` and `flip`, the swap
//! 257 edges after a rebuild's start, starts while busy ignored, resets); the two planted
//! faults that the same runs must catch; and Yosys mapping the tables to block RAM.
//! `PMCG_FILTER_TABLE_CYCLES` sets the cycles per run (default 40,000); `PMCG_FILTER_TABLE_SEED`
//! one seed (printed); `PMCG_BACKENDS` the backends and `PMCG_REQUIRE_TOOLS=1` a required
//! Verilator (tests/common).

mod common;

use pmcg_hdl::filter_table::{FilterTableFault, TableShape};
use pmcg_sim::filter_table_sim::{
    run_filter_table, FilterTableDut, FtRunStats, NativeFilterTable, VerilatorFilterTable,
};

fn cycles() -> u64 {
    std::env::var("PMCG_FILTER_TABLE_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40_000)
}

fn seed(default: u64) -> u64 {
    let s = std::env::var("PMCG_FILTER_TABLE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    eprintln!("PMCG_FILTER_TABLE_SEED={s}");
    s
}

/// The backends `PMCG_BACKENDS` selects (the model is the judge of both, not a backend here).
fn tables(shape: TableShape, fault: Option<FilterTableFault>) -> Vec<Box<dyn FilterTableDut>> {
    let mut v: Vec<Box<dyn FilterTableDut>> = Vec::new();
    for b in common::cli_backends(&["native", "verilator"]) {
        if b == "native" {
            v.push(Box::new(NativeFilterTable::new(shape, fault)));
        } else {
            let cache = pmcg_sim::vdut::cache_dir();
            v.push(Box::new(
                VerilatorFilterTable::new(shape, fault, &cache).unwrap(),
            ));
        }
    }
    v
}

/// The run must have exercised what it checks (a run that exercises nothing fails).
fn assert_exercised(stats: &FtRunStats, cycles: u64) {
    let k = cycles / 10_000;
    assert!(stats.swaps > 30 * k, "too few swaps: {stats:?}");
    assert!(
        stats.starts_while_busy > k,
        "no start while busy: {stats:?}"
    );
    assert!(stats.resets > 0, "no reset: {stats:?}");
    assert!(
        stats.checked > 1_000 * k,
        "too few known compares: {stats:?}"
    );
    assert!(stats.hits > 100 * k, "too few hits: {stats:?}");
    assert!(
        stats.last_row_keys > 100 * k,
        "too few keys on a table's last row: {stats:?}"
    );
}

fn run_shape(counters: usize, lanes: usize, sid_bits: u32, default_seed: u64) {
    let shape = TableShape::new(counters, lanes, sid_bits).unwrap();
    let (seed, cycles) = (seed(default_seed), cycles());
    for mut dut in tables(shape, None) {
        let stats =
            run_filter_table(dut.as_mut(), shape, seed, cycles).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("{} {shape:?}: {stats:?}", dut.name());
        assert_exercised(&stats, cycles);
    }
}

#[test]
fn thirty_two_counters_one_lane_sixteen_bit_streamids_follow_the_contract() {
    run_shape(32, 1, 16, 1);
}

#[test]
fn sixty_four_counters_two_lanes_twelve_bit_streamids_follow_the_contract() {
    run_shape(64, 2, 12, 2);
}

#[test]
fn odd_shapes_follow_the_contract() {
    // Three counters with 32-bit StreamIDs (four bytes), and 17 counters with 5-bit ones.
    run_shape(3, 1, 32, 3);
    run_shape(17, 3, 5, 4);
}

#[test]
fn a_rebuild_without_its_catch_up_is_caught_on_every_backend() {
    let shape = TableShape::new(8, 1, 16).unwrap();
    for mut dut in tables(shape, Some(FilterTableFault::NoCatchUp)) {
        let err = run_filter_table(dut.as_mut(), shape, seed(5), cycles()).unwrap_err();
        eprintln!("caught: {err}");
        assert!(err.contains("hit["), "{err}");
    }
}

#[test]
fn a_rebuild_that_skips_the_last_row_is_caught_on_every_backend() {
    let shape = TableShape::new(8, 1, 16).unwrap();
    for mut dut in tables(shape, Some(FilterTableFault::SkipLastRow)) {
        let err = run_filter_table(dut.as_mut(), shape, seed(6), cycles()).unwrap_err();
        eprintln!("caught: {err}");
        assert!(err.contains("hit[") && err.contains("StreamID"), "{err}");
    }
}

#[test]
fn the_tables_synthesize_into_block_ram_with_no_latch() {
    if !common::have_tool("yosys") {
        return;
    }
    let shape = TableShape::new(32, 1, 16).unwrap();
    let work = std::env::temp_dir().join(format!("pmcg-filter-yosys-{}", std::process::id()));
    pmcg_synth::filter_table::synthesize_filter_table(shape, &work).unwrap();
    let log = std::fs::read_to_string(work.join("yosys.log")).unwrap();
    assert!(
        !log.contains("Latch inferred"),
        "a latch in the filter tables"
    );
    let stat = std::fs::read_to_string(work.join("stat.txt")).unwrap();
    // Two copies x two StreamID bytes of 256 x 32 bits, each two 256 x 16 block RAMs.
    let rams = common::block_rams(&stat);
    assert_eq!(
        rams,
        Some(shape.block_rams() as u64),
        "block RAMs in:\n{stat}"
    );
    assert_eq!(rams, Some(8));
    std::fs::remove_dir_all(&work).ok();
}
