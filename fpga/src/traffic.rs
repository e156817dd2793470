//! `TrafficLane`: drives one PMCG event lane without an SMMU, deterministically, so the host
//! computes the exact expected counts.
//!
//! ```text
//!   start ─► busy, cycles_left = BURST, phase = 0, x = SEED (LFSR: SEED, or 1 when SEED = 0)
//!   every busy cycle: fire = (phase & RATE_MASK) == 0  (RATE_MASK = 2^k - 1: 1 event in 2^k cycles)
//!                     phase += 1, cycles_left -= 1 (busy ends after BURST cycles) ; stop ends it now
//!   fire ─► lane: valid, EVENTS, sid = (SID_BASE & !SID_MASK) | (x & SID_MASK), ss, nosid
//!           then x steps: fixed (unchanged), counting (x + 1), LFSR (Galois, taps 0x80200003)
//! ```
//! Events in a burst of N cycles: ceil(N / 2^k); the j-th event (from 0) carries x_j, with
//! x_0 = SEED and x_{j+1} = step(x_j). The lane outputs are registered.

use rust_hdl::prelude::*;

/// StreamID patterns (MODE[1:0]).
pub const SID_FIXED: u32 = 0;
pub const SID_COUNTING: u32 = 1;
pub const SID_LFSR: u32 = 2;
/// The Galois LFSR's feedback (x^32 + x^22 + x^2 + x + 1, maximal length).
pub const LFSR_TAPS: u32 = 0x8020_0003;

/// The LFSR step the hardware does (for hosts computing expected StreamIDs).
pub fn lfsr_step(x: u32) -> u32 {
    (x >> 1) ^ if x & 1 != 0 { LFSR_TAPS } else { 0 }
}

#[derive(LogicBlock)]
pub struct TrafficLane {
    pub clock: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub stop: Signal<In, Bit>,
    /// Settings (registers of the board's register block).
    pub events: Signal<In, Bits<32>>,
    pub sid_base: Signal<In, Bits<32>>,
    pub sid_mask: Signal<In, Bits<32>>,
    /// [1:0] StreamID pattern, [6:4] security state, [7] NoStreamID.
    pub mode: Signal<In, Bits<32>>,
    pub rate_mask: Signal<In, Bits<16>>,
    pub burst: Signal<In, Bits<32>>,
    pub seed: Signal<In, Bits<32>>,
    pub busy: Signal<Out, Bit>,
    /// `busy` as a register word (bit 0).
    pub busy_word: Signal<Out, Bits<32>>,
    pub lane_valid: Signal<Out, Bit>,
    pub lane_events: Signal<Out, Bits<32>>,
    pub lane_sid: Signal<Out, Bits<32>>,
    pub lane_ss: Signal<Out, Bits<3>>,
    pub lane_nosid: Signal<Out, Bit>,
    lfsr_taps: Constant<Bits<32>>,
    busy_r: DFF<Bit>,
    cycles_left: DFF<Bits<32>>,
    phase: DFF<Bits<16>>,
    x: DFF<Bits<32>>,
    valid_q: DFF<Bit>,
    events_q: DFF<Bits<32>>,
    sid_q: DFF<Bits<32>>,
    ss_q: DFF<Bits<3>>,
    nosid_q: DFF<Bit>,
    /// `fire` of the next cycle, from the next busy and phase (RATE_MASK as of this cycle).
    fire_q: DFF<Bit>,
    fire: Signal<Local, Bit>,
    phase_p1: Signal<Local, Bits<16>>,
    /// x + 1 as two 16-bit halves (the high half's carry-in is "low half all ones"), so the
    /// carry chain is 16 bits long, not 32.
    x_lo_p1: Signal<Local, Bits<16>>,
    x_hi_p1: Signal<Local, Bits<16>>,
    x_inc: Signal<Local, Bits<32>>,
}

impl Default for TrafficLane {
    fn default() -> Self {
        TrafficLane {
            clock: Default::default(),
            rst: Default::default(),
            start: Default::default(),
            stop: Default::default(),
            events: Default::default(),
            sid_base: Default::default(),
            sid_mask: Default::default(),
            mode: Default::default(),
            rate_mask: Default::default(),
            burst: Default::default(),
            seed: Default::default(),
            busy: Default::default(),
            busy_word: Default::default(),
            lane_valid: Default::default(),
            lane_events: Default::default(),
            lane_sid: Default::default(),
            lane_ss: Default::default(),
            lane_nosid: Default::default(),
            lfsr_taps: Constant::new((LFSR_TAPS as u64).into()),
            busy_r: Default::default(),
            cycles_left: Default::default(),
            phase: Default::default(),
            x: Default::default(),
            valid_q: Default::default(),
            events_q: Default::default(),
            sid_q: Default::default(),
            ss_q: Default::default(),
            nosid_q: Default::default(),
            fire_q: Default::default(),
            fire: Default::default(),
            phase_p1: Default::default(),
            x_lo_p1: Default::default(),
            x_hi_p1: Default::default(),
            x_inc: Default::default(),
        }
    }
}

impl Logic for TrafficLane {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            busy_r,
            cycles_left,
            phase,
            x,
            valid_q,
            events_q,
            sid_q,
            ss_q,
            nosid_q,
            fire_q
        );
        // fire = busy & (phase & RATE_MASK) == 0, kept in a flip-flop set from the next busy
        // and phase (the RATE_MASK register changes an edge later than it would otherwise count).
        self.fire.next = self.fire_q.q.val();
        self.phase_p1.next = self.phase.q.val() + 1;
        self.x_lo_p1.next = self.x.q.val().get_bits::<16>(0) + 1;
        self.x_hi_p1.next = self.x.q.val().get_bits::<16>(16) + 1;
        self.x_inc.next = (bit_cast::<32, 16>(self.x.q.val().get_bits::<16>(16)) << 16)
            | bit_cast::<32, 16>(self.x_lo_p1.val());
        if self.x.q.val().get_bits::<16>(0) == 0xFFFF {
            self.x_inc.next = (bit_cast::<32, 16>(self.x_hi_p1.val()) << 16)
                | bit_cast::<32, 16>(self.x_lo_p1.val());
        }
        self.fire_q.d.next = false;
        self.valid_q.d.next = self.fire.val();
        self.events_q.d.next = self.events.val();
        self.sid_q.d.next =
            (self.sid_base.val() & (!self.sid_mask.val())) | (self.x.q.val() & self.sid_mask.val());
        self.ss_q.d.next = self.mode.val().get_bits::<3>(4);
        self.nosid_q.d.next = self.mode.val().get_bit(7);
        if self.busy_r.q.val() {
            self.phase.d.next = self.phase_p1.val();
            self.cycles_left.d.next = self.cycles_left.q.val() - 1;
            self.fire_q.d.next = (self.phase_p1.val() & self.rate_mask.val()) == 0;
            if self.cycles_left.q.val() == 1 {
                self.busy_r.d.next = false;
                self.fire_q.d.next = false;
            }
        }
        if self.fire.val() {
            if self.mode.val().get_bits::<2>(0) == 1 {
                self.x.d.next = self.x_inc.val();
            }
            if self.mode.val().get_bits::<2>(0) == 2 {
                self.x.d.next = self.x.q.val() >> 1;
                if self.x.q.val().get_bit(0) {
                    self.x.d.next = (self.x.q.val() >> 1) ^ self.lfsr_taps.val();
                }
            }
        }
        if self.start.val() {
            self.busy_r.d.next = self.burst.val() != 0;
            self.fire_q.d.next = self.burst.val() != 0;
            self.cycles_left.d.next = self.burst.val();
            self.phase.d.next = 0.into();
            self.x.d.next = self.seed.val();
            if (self.mode.val().get_bits::<2>(0) == 2) & (self.seed.val() == 0) {
                self.x.d.next = 1.into();
            }
        }
        if self.stop.val() | self.rst.val() {
            self.busy_r.d.next = false;
            self.fire_q.d.next = false;
        }
        if self.rst.val() {
            self.valid_q.d.next = false;
        }
        self.busy.next = self.busy_r.q.val();
        self.busy_word.next = bit_cast::<32, 1>(self.busy_r.q.val().into());
        self.lane_valid.next = self.valid_q.q.val();
        self.lane_events.next = self.events_q.q.val();
        self.lane_sid.next = self.sid_q.q.val();
        self.lane_ss.next = self.ss_q.q.val();
        self.lane_nosid.next = self.nosid_q.q.val();
    }
}
