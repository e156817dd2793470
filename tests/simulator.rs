//! The native simulator the project builds on: rust-hdl-core 0.46 as patched in
//! `vendor/rust-hdl-core` (PATCHES.md there). What the patches promise, checked against plain
//! Rust arithmetic and against the Verilog that rust-hdl writes, under Verilator:
//!
//! ```text
//!   Bits<N> shifts and conversions ──► compared with u64 arithmetic (N = 1..64, every amount)
//!   x ─► a ─► mid.r ─► mid.inner.r ─► c ─► y    a shift register across three levels of
//!        (parent)  (child)   (grandchild) (parent)   hierarchy, each stage a DFF: native and
//!                                                    Verilator against x delayed 4 cycles
//!   64x64 PMCG, seeded stimulus ──► settle passes per cycle (0.46 needed 11.2)
//! ```
//! `PMCG_SEED` sets the base seed (printed).

mod common;

use pmcg_hdl::config::PmcgConfig;
use pmcg_sim::native::NativeDut;
use pmcg_sim::pins::Dut;
use pmcg_sim::stimulus::Stimulus;
use pmcg_sim::verilator::VerilatedModel;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

fn shifts_match_u64<const N: usize>(rng: &mut ChaCha8Rng) {
    let mask = if N == 64 { u64::MAX } else { (1u64 << N) - 1 };
    for _ in 0..200 {
        let v = rng.gen::<u64>() & mask;
        let b: Bits<N> = v.into();
        for k in 0..=(N as u64 + 2) {
            let shr = if k >= N as u64 { 0 } else { v >> k };
            let shl = if k >= N as u64 { 0 } else { (v << k) & mask };
            assert_eq!((b >> k).to_u64(), shr, "Bits<{N}> {v:#x} >> {k}");
            assert_eq!((b << k).to_u64(), shl, "Bits<{N}> {v:#x} << {k}");
        }
        // A shift by a Bits amount goes through the same code.
        let k = rng.gen_range(0..N as u64);
        let kb: Bits<7> = k.into();
        assert_eq!((b >> kb).to_u64(), v >> k, "Bits<{N}> {v:#x} >> Bits {k}");
        // Arithmetic wraps at N bits.
        let w = rng.gen::<u64>() & mask;
        let c: Bits<N> = w.into();
        assert_eq!(
            (b + c).to_u64(),
            v.wrapping_add(w) & mask,
            "Bits<{N}> {v:#x} + {w:#x}"
        );
        assert_eq!(
            (b - c).to_u64(),
            v.wrapping_sub(w) & mask,
            "Bits<{N}> {v:#x} - {w:#x}"
        );
        assert_eq!(b < c, v < w, "Bits<{N}> {v:#x} < {w:#x}");
        assert_eq!(b.all(), v == mask, "Bits<{N}> {v:#x}.all()");
    }
}

#[test]
fn short_bits_shift_and_wrap_like_u64() {
    let seed = common::base_seed();
    println!("seed (PMCG_SEED) {seed}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5817);
    shifts_match_u64::<1>(&mut rng);
    shifts_match_u64::<5>(&mut rng);
    shifts_match_u64::<31>(&mut rng);
    shifts_match_u64::<32>(&mut rng);
    shifts_match_u64::<33>(&mut rng);
    shifts_match_u64::<40>(&mut rng);
    shifts_match_u64::<63>(&mut rng);
    shifts_match_u64::<64>(&mut rng);
}

#[test]
fn literal_conversions_keep_the_0_46_rules() {
    // Above 32 bits a literal too wide for N loses its upper bits (0.46's long form did), ...
    let b: Bits<40> = u64::MAX.into();
    assert_eq!(b.to_u64(), (1 << 40) - 1);
    let b: Bits<64> = u64::MAX.into();
    assert_eq!(b.to_u64(), u64::MAX);
    // ... up to 32 bits it is refused, as in 0.46.
    let refused = std::panic::catch_unwind(|| {
        let _b: Bits<16> = 0x1_0000u64.into();
    });
    assert!(refused.is_err(), "Bits<16> took 0x10000");
}

#[derive(LogicBlock, Default)]
struct ChainInner {
    clock: Signal<In, Clock>,
    d: Signal<In, Bits<64>>,
    q: Signal<Out, Bits<64>>,
    r: DFF<Bits<64>>,
}

impl Logic for ChainInner {
    #[hdl_gen]
    fn update(&mut self) {
        self.r.clock.next = self.clock.val();
        self.r.d.next = self.d.val();
        self.q.next = self.r.q.val();
    }
}

/// Declares its flip-flop after the child it feeds, so field order is covered both ways.
#[derive(LogicBlock, Default)]
struct ChainMid {
    clock: Signal<In, Clock>,
    d: Signal<In, Bits<64>>,
    q: Signal<Out, Bits<64>>,
    inner: ChainInner,
    r: DFF<Bits<64>>,
}

impl Logic for ChainMid {
    #[hdl_gen]
    fn update(&mut self) {
        self.r.clock.next = self.clock.val();
        self.inner.clock.next = self.clock.val();
        // A shift on the way, so the stage is not a plain copy.
        self.r.d.next = (self.d.val() << 5) ^ (self.d.val() >> 7);
        self.inner.d.next = self.r.q.val();
        self.q.next = self.inner.q.val();
    }
}

/// The last stage `c` is declared before the first `a`.
#[derive(LogicBlock, Default)]
struct Chain {
    clock: Signal<In, Clock>,
    x: Signal<In, Bits<64>>,
    y: Signal<Out, Bits<64>>,
    c: DFF<Bits<64>>,
    mid: ChainMid,
    a: DFF<Bits<64>>,
}

impl Logic for Chain {
    #[hdl_gen]
    fn update(&mut self) {
        self.a.clock.next = self.clock.val();
        self.mid.clock.next = self.clock.val();
        self.c.clock.next = self.clock.val();
        self.a.d.next = self.x.val();
        self.mid.d.next = self.a.q.val();
        self.c.d.next = self.mid.q.val();
        self.y.next = self.c.q.val();
    }
}

/// What the chain computes: `x` of four cycles before, through the middle stage's shifts.
fn chain_reference(xs: &[u64], t: usize) -> u64 {
    if t < 4 {
        0
    } else {
        let v = xs[t - 4];
        (v << 5) ^ (v >> 7)
    }
}

fn chain_native_run(xs: &[u64]) -> (Vec<u64>, u64) {
    let mut chain = Chain::default();
    chain.connect_all();
    let mut passes = 0u64;
    let mut settle = |c: &mut Chain| {
        for i in 0..50 {
            c.update_all();
            if !c.has_changed() {
                passes += i + 1;
                return;
            }
        }
        panic!("the chain did not settle in 50 passes");
    };
    let mut ys = Vec::new();
    for &x in xs {
        chain.x.next = x.into();
        chain.clock.next = Clock { clk: false };
        settle(&mut chain);
        ys.push(chain.y.val().to_u64());
        chain.clock.next = Clock { clk: true };
        settle(&mut chain);
    }
    (ys, passes)
}

fn chain_verilog() -> String {
    let mut chain = Chain::default();
    chain.connect_all();
    check_all(&chain).expect("rust-hdl check of the chain");
    let mut defines = ModuleDefines::default();
    chain.accept("sim_chain", &mut defines);
    defines.defines()
}

#[test]
fn flip_flops_across_three_levels_sample_the_state_before_the_edge() {
    let seed = common::base_seed();
    println!("seed (PMCG_SEED) {seed}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xc4a1);
    let xs: Vec<u64> = (0..300).map(|_| rng.gen()).collect();
    let (ys, passes) = chain_native_run(&xs);
    for (t, &y) in ys.iter().enumerate() {
        assert_eq!(y, chain_reference(&xs, t), "native, cycle {t}");
    }
    // An edge reaches every flip-flop in the pass that writes it, and a child reads an input in
    // the pass its parent writes it: 2 passes after the falling edge, 5 after the rising one
    // (the outputs climb the three levels one pass each). 0.46 needed 14.0.
    let per_cycle = passes as f64 / xs.len() as f64;
    println!("native chain: {per_cycle:.2} settle passes per cycle");
    assert!(per_cycle <= 7.5, "{per_cycle:.2} settle passes per cycle");

    if !common::have_tool("verilator") {
        return;
    }
    let mut m = VerilatedModel::build(&chain_verilog(), "sim_chain", &pmcg_sim::vdut::cache_dir())
        .unwrap_or_else(|e| panic!("Verilator build of the chain: {e}"));
    let (clock, x, y) = (
        m.port("clock").unwrap(),
        m.port("x").unwrap(),
        m.port("y").unwrap(),
    );
    for (t, &xv) in xs.iter().enumerate() {
        m.set(clock, 0);
        m.eval();
        assert_eq!(m.get(y), ys[t], "Verilator against native, cycle {t}");
        m.set(x, xv);
        m.set(clock, 1);
        m.eval();
    }
}

#[test]
fn the_default_pmcg_settles_in_under_7_passes_per_cycle() {
    // 0.46 needed 11.19 passes per cycle on this workload (benches/sim_speed.rs prints the
    // figure for its own); the patched simulator 5.76. The count is deterministic for a seed.
    let cfg = PmcgConfig::default();
    let mut dut = NativeDut::new(&cfg).unwrap();
    let mut stim = Stimulus::new(&cfg, 42);
    dut.step(&stim.reset_inputs());
    let cycles = 2_000u64;
    for _ in 0..cycles {
        let inp = stim.next_inputs();
        dut.step(&inp);
    }
    let per_cycle = dut.iterations() as f64 / (cycles + 1) as f64;
    println!("64x64: {per_cycle:.2} settle passes per cycle");
    assert!(per_cycle < 7.0, "{per_cycle:.2} settle passes per cycle");
}
