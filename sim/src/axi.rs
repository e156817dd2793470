//! `MsiResponder`: the AXI4-Lite write slave a testbench puts on the PMCG's MSI master. It
//! answers with configurable (or seeded random) delays and responses, records every completed
//! MSI, and checks the master's side of the protocol on every cycle.
//!
//! ```text
//!   Driver::step_with:  responder.drive(&mut inputs)   AWREADY WREADY BVALID BRESP for this cycle
//!                       dut.step(&inputs) -> outputs    AWVALID AWADDR AWPROT WVALID WDATA WSTRB BREADY
//!                       responder.observe(outputs)      handshakes at this cycle's edge, checks
//! ```
//! Delays count cycles: READY rises once its VALID has been seen high for `aw_delay` / `w_delay`
//! cycles (0: READY is already high when VALID rises), and BVALID rises `b_delay` cycles after
//! both AW and W are accepted. Checks (AMBA AXI: a VALID stays high with a stable payload until
//! its READY): AWVALID/WVALID never fall before their handshake, AWADDR/AWPROT/WDATA/WSTRB never
//! change while VALID waits, and no second MSI starts before the first one's response.

use crate::pins::{PinInputs, PinOutputs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// AXI BRESP values.
pub const RESP_OKAY: u8 = 0b00;
pub const RESP_SLVERR: u8 = 0b10;
pub const RESP_DECERR: u8 = 0b11;

/// One MSI write as the slave saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MsiWrite {
    pub addr: u64,
    pub prot: u8,
    pub data: u32,
    pub strb: u8,
    /// The response the slave gave.
    pub resp: u8,
    /// Cycle AWVALID was first seen, and cycle the response was accepted (its edge).
    pub first_valid: u64,
    pub completed: u64,
}

/// The inputs of this cycle the slave needs after the DUT has stepped.
#[derive(Clone, Copy, Debug, Default)]
struct Drove {
    awready: bool,
    wready: bool,
    presetn: bool,
}

/// Random delays: each transaction draws its AW, W and B delays from 0..=max.
struct RandomDelays {
    rng: ChaCha8Rng,
    max: u32,
    /// Per mille of responses that are SLVERR or DECERR.
    error_rate: u32,
    /// Slow completers: this percentage of transactions take their B delay from the range.
    slow_b: Option<(u32, u32, u32)>,
}

pub struct MsiResponder {
    pub aw_delay: u32,
    pub w_delay: u32,
    pub b_delay: u32,
    /// BRESP given to every write (unless random errors are on).
    pub resp: u8,
    random: Option<RandomDelays>,
    // State of the transaction in flight.
    aw_seen: u32,
    w_seen: u32,
    aw: Option<(u64, u8)>,
    w: Option<(u32, u8)>,
    first_valid: Option<u64>,
    b_wait: u32,
    bvalid: bool,
    bresp: u8,
    /// What this cycle's inputs drove: AWREADY, WREADY, and PRESETn (no copy of every input:
    /// this runs every cycle of every test).
    drove: Drove,
    /// PRESETn was low in the previous cycle: this cycle's edge is the design's reset edge
    /// (the PMCG registers PRESETn).
    reset_edge_next: bool,
    /// The previous cycle's outputs and the READYs driven then (for the stability checks).
    prev: Option<(PinOutputs, bool, bool)>,
    /// Every completed MSI, in order.
    pub completed: Vec<MsiWrite>,
    /// Protocol violations seen (empty when the master behaved).
    pub violations: Vec<String>,
}

impl Default for MsiResponder {
    /// Always ready, responds OKAY in the cycle after both AW and W are accepted.
    fn default() -> Self {
        MsiResponder {
            aw_delay: 0,
            w_delay: 0,
            b_delay: 0,
            resp: RESP_OKAY,
            random: None,
            aw_seen: 0,
            w_seen: 0,
            aw: None,
            w: None,
            first_valid: None,
            b_wait: 0,
            bvalid: false,
            bresp: RESP_OKAY,
            drove: Drove::default(),
            reset_edge_next: false,
            prev: None,
            completed: Vec::new(),
            violations: Vec::new(),
        }
    }
}

impl MsiResponder {
    /// Fixed delays and response.
    pub fn fixed(aw_delay: u32, w_delay: u32, b_delay: u32, resp: u8) -> Self {
        MsiResponder {
            aw_delay,
            w_delay,
            b_delay,
            resp,
            bresp: resp,
            ..Default::default()
        }
    }

    /// Seeded random delays 0..=`max` per transaction and `error_rate` per mille error responses.
    pub fn random(seed: u64, max: u32, error_rate: u32) -> Self {
        let mut r = MsiResponder {
            random: Some(RandomDelays {
                rng: ChaCha8Rng::seed_from_u64(seed),
                max,
                error_rate,
                slow_b: None,
            }),
            ..Default::default()
        };
        r.draw();
        r
    }

    /// Random mode with slow write responses: `percent` % of transactions (from the next one
    /// drawn on) wait `lo..=hi` cycles before BVALID (a completer that is slow to make the write
    /// visible), the others as [`MsiResponder::random`] draws them.
    pub fn with_slow_responses(mut self, lo: u32, hi: u32, percent: u32) -> Self {
        assert!(lo <= hi && percent <= 100);
        if let Some(r) = self.random.as_mut() {
            r.slow_b = Some((lo, hi, percent));
        }
        self.draw();
        self
    }

    /// New delays and response for the next transaction (random mode only).
    fn draw(&mut self) {
        if let Some(r) = self.random.as_mut() {
            // Mostly short, sometimes up to `max`: long stalls and back-to-back traffic both.
            let mut d = || {
                if r.rng.gen_bool(0.7) {
                    r.rng.gen_range(0..=r.max.min(3))
                } else {
                    r.rng.gen_range(0..=r.max)
                }
            };
            self.aw_delay = d();
            self.w_delay = d();
            self.b_delay = d();
            if let Some((lo, hi, percent)) = r.slow_b {
                if r.rng.gen_range(0..100) < percent {
                    self.b_delay = r.rng.gen_range(lo..=hi);
                }
            }
            self.resp = if r.rng.gen_range(0..1000) < r.error_rate {
                if r.rng.gen_bool(0.5) {
                    RESP_SLVERR
                } else {
                    RESP_DECERR
                }
            } else {
                RESP_OKAY
            };
        }
    }

    /// Sets this cycle's AWREADY, WREADY, BVALID and BRESP.
    pub fn drive(&mut self, inp: &mut PinInputs) {
        inp.awready = self.aw.is_none() && self.aw_seen >= self.aw_delay;
        inp.wready = self.w.is_none() && self.w_seen >= self.w_delay;
        inp.bvalid = self.bvalid;
        inp.bresp = if self.bvalid { self.bresp } else { 0 };
        self.drove = Drove {
            awready: inp.awready,
            wready: inp.wready,
            presetn: inp.presetn,
        };
    }

    /// Books this cycle's handshakes (at its closing edge) and checks the master.
    pub fn observe(&mut self, cycle: u64, out: &PinOutputs) {
        let inp = self.drove;
        if let Some((p_out, p_awready, p_wready)) = self.prev {
            if p_out.awvalid && !p_awready {
                if !out.awvalid {
                    self.violation(cycle, "AWVALID fell before AWREADY");
                } else if out.awaddr != p_out.awaddr || out.awprot != p_out.awprot {
                    self.violation(cycle, "AWADDR/AWPROT changed while AWVALID waited");
                }
            }
            if p_out.wvalid && !p_wready {
                if !out.wvalid {
                    self.violation(cycle, "WVALID fell before WREADY");
                } else if out.wdata != p_out.wdata || out.wstrb != p_out.wstrb {
                    self.violation(cycle, "WDATA/WSTRB changed while WVALID waited");
                }
            }
        }
        if (out.awvalid && self.aw.is_some()) || (out.wvalid && self.w.is_some()) {
            self.violation(
                cycle,
                "a second MSI started before the first one's response",
            );
        }
        if (out.awvalid || out.wvalid) && self.first_valid.is_none() {
            self.first_valid = Some(cycle);
        }
        // Handshakes at this cycle's edge.
        if out.awvalid && self.aw.is_none() {
            if inp.awready {
                self.aw = Some((out.awaddr, out.awprot));
            } else {
                self.aw_seen += 1;
            }
        }
        if out.wvalid && self.w.is_none() {
            if inp.wready {
                self.w = Some((out.wdata, out.wstrb));
            } else {
                self.w_seen += 1;
            }
        }
        if self.bvalid && out.bready {
            let (addr, prot) = self.aw.unwrap_or_default();
            let (data, strb) = self.w.unwrap_or_default();
            self.completed.push(MsiWrite {
                addr,
                prot,
                data,
                strb,
                resp: self.bresp,
                first_valid: self.first_valid.unwrap_or(cycle),
                completed: cycle,
            });
            self.clear();
            self.draw();
        } else if self.aw.is_some() && self.w.is_some() && !self.bvalid {
            // Both accepted: BVALID rises `b_delay` cycles after the later handshake's edge.
            if self.b_wait >= self.b_delay {
                self.bvalid = true;
                self.bresp = self.resp;
            } else {
                self.b_wait += 1;
            }
        }
        self.prev = Some((*out, inp.awready, inp.wready));
        if self.reset_edge_next {
            // The design resets at this edge (PRESETn is registered): the transaction in flight
            // is abandoned, and its interconnect resets with the PMCG.
            self.clear();
            self.prev = None;
        }
        self.reset_edge_next = !inp.presetn;
    }

    fn clear(&mut self) {
        self.aw = None;
        self.w = None;
        self.aw_seen = 0;
        self.w_seen = 0;
        self.first_valid = None;
        self.bvalid = false;
        self.b_wait = 0;
    }

    fn violation(&mut self, cycle: u64, what: &str) {
        if self.violations.len() < 16 {
            self.violations.push(format!("cycle {cycle}: {what}"));
        }
    }
}
