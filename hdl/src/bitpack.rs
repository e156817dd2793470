//! `BitPack`: gathers up to 64 single-bit signals into one 64-bit word.
//!
//! ```text
//!   bits$0 ──┐
//!   bits$1 ──┤ BitPack ──► word[63:0] = {0.., bits$(n-1), .., bits$1, bits$0}
//!   ...    ──┘
//! ```
//!
//! rust-hdl 0.46 kernels cannot build a vector bit by bit in a loop (no `let`, no reading `.next`,
//! and its `set_bit` statement does not compile), so this one primitive implements `Logic` by
//! hand: `update` packs in plain Rust and `hdl` emits the equivalent Verilog concatenation. It is
//! purely combinational and is covered by every co-simulation test of the design that uses it.

use rust_hdl::prelude::*;

/// Packs `bits[i]` into `word[i]`; bits above `bits.len()` are 0.
pub struct BitPack {
    pub bits: Vec<Signal<In, Bit>>,
    pub word: Signal<Out, Bits<64>>,
}

impl BitPack {
    /// A pack of `n` (1-64) bits.
    pub fn new(n: usize) -> Self {
        assert!((1..=64).contains(&n), "BitPack takes 1-64 bits, not {n}");
        BitPack {
            bits: (0..n).map(|_| Signal::default()).collect(),
            word: Signal::default(),
        }
    }
}

impl Logic for BitPack {
    fn update(&mut self) {
        // Build a u64 and convert once: replace_bit on a 64-bit `Bits` copies its bool array.
        let v = self
            .bits
            .iter()
            .enumerate()
            .fold(0u64, |v, (i, b)| v | ((b.val() as u64) << i));
        self.word.next = v.into();
    }
    fn connect(&mut self) {
        self.word.connect();
    }
    fn hdl(&self) -> Verilog {
        let terms: Vec<String> = (0..self.bits.len())
            .rev()
            .map(|i| format!("bits${i}"))
            .collect();
        let pad = 64 - self.bits.len();
        let body = if pad > 0 {
            format!("{{{pad}'b0, {}}}", terms.join(", "))
        } else {
            format!("{{{}}}", terms.join(", "))
        };
        Verilog::Custom(format!("always @(*) word = {body};"))
    }
}

impl Block for BitPack {
    fn connect_all(&mut self) {
        self.connect();
        for b in &mut self.bits {
            b.connect_all();
        }
        self.word.connect_all();
    }
    fn update_all(&mut self) {
        self.update();
        for b in &mut self.bits {
            b.update_all();
        }
        self.word.update_all();
    }
    fn has_changed(&self) -> bool {
        self.word.has_changed() || self.bits.iter().any(|b| b.has_changed())
    }
    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        probe.visit_start_scope(name, self);
        self.bits.accept("bits", probe);
        self.word.accept("word", probe);
        probe.visit_end_scope(name, self);
    }
}
