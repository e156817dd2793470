//! `BankModel`: the reference model of the hybrid counter bank (`pmcg_hdl::counter_bank`),
//! written from its contract (the block's module docs), in plain Rust: one W-bit value per
//! counter, no low/upper split, no pipeline, no arbiter.
//!
//! ```text
//!   edge(inc[], op performed in this cycle) ──► values[n] ──► (overflow mask of the edge,
//!                                                             a read's value)
//! ```
//! The block decides when an op is performed (its `op_accept`); the model takes that cycle from
//! the block and checks the rest: the value a read returns, what a write leaves, every
//! overflow at its edge. The bound on the accept cycle is checked by the tests.

/// An op on the bank: a read of both words of the counter or (`svr`) of its shadow, or a write
/// of the counter's low or high word per byte strobe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BankOp {
    pub write: bool,
    pub svr: bool,
    pub hi: bool,
    pub idx: usize,
    pub wdata: u32,
    pub strb: u8,
}

impl BankOp {
    /// A read of counter `idx`'s value or (`svr`) its shadow.
    pub fn read(idx: usize, svr: bool) -> Self {
        BankOp {
            write: false,
            svr,
            hi: false,
            idx,
            wdata: 0,
            strb: 0,
        }
    }

    /// A write of counter `idx`'s low or (`hi`) high word, the bytes `strb` selects.
    pub fn write(idx: usize, hi: bool, wdata: u32, strb: u8) -> Self {
        BankOp {
            write: true,
            svr: false,
            hi,
            idx,
            wdata,
            strb,
        }
    }
}

#[derive(Clone, Debug)]
pub struct BankModel {
    mask: u64,
    values: Vec<u64>,
    /// The shadow values (10.5.2.3 SVRn): every counter's value after the last capture edge.
    shadows: Vec<u64>,
}

impl BankModel {
    /// `counters` counters of `counter_bits` (32-64) bits, all 0 (the reset state).
    pub fn new(counters: usize, counter_bits: u32) -> Self {
        let mask = if counter_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << counter_bits) - 1
        };
        BankModel {
            mask,
            values: vec![0; counters],
            shadows: vec![0; counters],
        }
    }

    pub fn value(&self, n: usize) -> u64 {
        self.values[n]
    }

    pub fn shadow(&self, n: usize) -> u64 {
        self.shadows[n]
    }

    /// A reset edge: every counter and shadow 0, nothing counted.
    pub fn reset(&mut self) {
        self.values.iter_mut().for_each(|v| *v = 0);
        self.shadows.iter_mut().for_each(|v| *v = 0);
    }

    /// The edge ending a cycle in which `op` (if any) was performed and counter n's increment
    /// was `inc[n]`, with a capture at this edge or not. Returns the counters that overflow at
    /// this edge (bit n) and, for a read, the value it returns (the counter's or the shadow's
    /// value in that cycle, before the edge). A capture copies every counter's value after the
    /// edge (the edge's events and write included) into its shadow, all at one instant.
    pub fn edge(&mut self, inc: &[u8], op: Option<&BankOp>, capture: bool) -> (u64, Option<u64>) {
        let mut read = None;
        let mut skip = None;
        if let Some(op) = op {
            let v = self.values[op.idx];
            if op.write {
                // 10.5.2.1: the written bytes replace the word; the edge's events are not added.
                let bytes = (0..4)
                    .filter(|k| op.strb >> k & 1 == 1)
                    .fold(0u64, |m, k| m | 0xFF << (8 * k));
                let shift = if op.hi { 32 } else { 0 };
                let m = bytes << shift;
                self.values[op.idx] = ((v & !m) | ((op.wdata as u64) << shift & m)) & self.mask;
                skip = Some(op.idx);
            } else if op.svr {
                read = Some(self.shadows[op.idx]);
            } else {
                read = Some(v);
            }
        }
        let mut ovf = 0u64;
        for (n, v) in self.values.iter_mut().enumerate() {
            if skip == Some(n) {
                continue;
            }
            let sum = *v as u128 + inc[n] as u128;
            if sum > self.mask as u128 {
                ovf |= 1 << n;
            }
            *v = (sum as u64) & self.mask;
        }
        if capture {
            self.shadows.clone_from(&self.values);
        }
        (ovf, read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_32_bit_counter_overflows_at_the_edge_it_wraps_and_keeps_the_rest() {
        let mut m = BankModel::new(2, 32);
        let op = BankOp::write(1, false, 0xFFFF_FFFE, 0xF);
        // The write's edge adds nothing to counter 1; counter 0 counts.
        assert_eq!(m.edge(&[1, 5], Some(&op), false), (0, None));
        assert_eq!((m.value(0), m.value(1)), (1, 0xFFFF_FFFE));
        assert_eq!(m.edge(&[0, 3], None, false), (0b10, None));
        assert_eq!(m.value(1), 1);
    }

    #[test]
    fn a_read_returns_the_value_before_its_edge_and_strobes_select_bytes() {
        let mut m = BankModel::new(1, 48);
        let hi = BankOp::write(0, true, 0xABCD_1234, 0b0010);
        m.edge(&[0], Some(&hi), false);
        // Byte 1 of the high word: bits [47:40]; bits above 47 do not exist.
        assert_eq!(m.value(0), 0x1200_0000_0000);
        let rd = BankOp::read(0, false);
        assert_eq!(m.edge(&[7], Some(&rd), false), (0, Some(0x1200_0000_0000)));
        assert_eq!(m.value(0), 0x1200_0000_0007);
        let top = BankOp::write(0, true, 0xFFFF, 0xF);
        m.edge(&[0], Some(&top), false);
        let low = BankOp::write(0, false, 0xFFFF_FFFF, 0xF);
        m.edge(&[0], Some(&low), false);
        assert_eq!(m.edge(&[2], None, false), (1, None));
        assert_eq!(m.value(0), 1);
    }

    #[test]
    fn a_capture_takes_every_counter_after_its_edge_and_a_shadow_read_sees_it_from_the_next_cycle()
    {
        let mut m = BankModel::new(2, 32);
        m.edge(&[3, 4], None, false);
        let svr = BankOp::read(1, true);
        // A shadow read at the capture's edge returns the shadow before it.
        assert_eq!(m.edge(&[1, 1], Some(&svr), true), (0, Some(0)));
        assert_eq!((m.shadow(0), m.shadow(1)), (4, 5));
        assert_eq!(m.edge(&[1, 1], Some(&svr), false), (0, Some(5)));
        assert_eq!(m.value(1), 6);
        m.reset();
        assert_eq!((m.value(1), m.shadow(1)), (0, 0));
    }
}
