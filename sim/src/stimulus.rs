//! Seeded random stimulus at pin level, and the lock-step runner that compares backends.
//!
//! ```text
//!   seed ──► Stimulus (APB4-legal transfers + lane traffic + rare resets) ──► PinInputs per cycle
//!                                                       │
//!            lockstep(): every Dut steps the same inputs; outputs compared every cycle
//! ```
//! Transfers aim at the registers of the configuration's register map (and at unmapped and
//! wrong-page addresses), with values chosen to reach the corners: counters written just below a
//! carry or an overflow, all-ones bitmaps, events that are supported, unsupported and cycles,
//! Secure and Non-secure accesses, NSRA toggles, partial strobes; split 64-bit writes whose high
//! half lands around the carry of a low half written just below it; Linux's perf disable/enable
//! (CR = 0, IRQ_CTRL 1 -> 0 -> 1) at random and just after predicted overflows. The MSI slave of
//! [`lockstep`] answers a third of the writes 10-40 cycles late (MSIs outstanding and pending).

use crate::axi::MsiResponder;
use crate::pins::{Dut, LaneIn, MpamSpace, PinInputs, PinOutputs, SecState};
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::field;
use pmcg_hdl::regmap::{offset, RegId, RegisterMap, COUNTER_HOLD_CYCLES};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A transfer the stimulus aims at a predicted carry (see `Stimulus::aim_chase`).
#[derive(Clone, Copy, Debug)]
enum Chase {
    /// Write `data` to `addr` (an OVSCLR0 word) at the wrap edge.
    Clear { addr: u32, data: u32 },
    /// Read the low word at `addr`, then the high word, straddling the carry.
    ReadPair { addr: u32 },
    /// The high half of a split 64-bit write whose low half was just written near a carry: the
    /// paired high write lands before, at or after the carry (docs/behaviour.md "Split 64-bit
    /// counter writes").
    HighWrite { addr: u32, data: u32, strb: u8 },
}

/// PARTIDs and PMGs lanes carry and SMRs filter on: around the default MPAMIDR limits
/// (PARTID_MAX 0xFF, PMG_MAX 7, S_MPAMIDR 0xF and 1), so some filters exceed them.
const PARTID_POOL: [u32; 6] = [0, 1, 0xF, 0x10, 0xFF, 0x100];
const PMG_POOL: [u32; 5] = [0, 1, 2, 7, 8];

/// A reproducible stream of pin inputs for one configuration.
pub struct Stimulus {
    rng: ChaCha8Rng,
    cfg: PmcgConfig,
    /// Word addresses worth hitting: every mapped word plus a few unmapped ones.
    targets: Vec<u32>,
    counter_addrs: Vec<u32>,
    evtyper_addrs: Vec<u32>,
    smr_addrs: Vec<u32>,
    /// SCR, its alias, ROOTCR, and the MSI and capture controls (addresses even when absent):
    /// IRQ_CFG0 is Guarded, so it needs IRQ_CTRL writes of 0 around it to take effect.
    control_addrs: Vec<u32>,
    /// Implemented SMR.STREAMID bits (lane StreamIDs are drawn within them).
    sid_all: u32,
    /// Words of CNTEN/INTEN/OVS SET/CLR: written often so that writes meet overflows.
    bitmap_addrs: Vec<u32>,
    lane_events: Vec<u16>,
    map: RegisterMap,
    /// The transfer in progress: the inputs of its setup cycle; its access cycles follow.
    pending: Option<PinInputs>,
    /// Access cycles of the pending transfer still to drive: a write's access lasts one cycle,
    /// a read's two (its wait state, PREADY = 0, then PREADY = 1; docs/behaviour.md "APB4
    /// completer"), after `COUNTER_HOLD_CYCLES` held cycles for a counter or shadow access. The
    /// stimulus is open-loop: it holds the access for the contract's length, and a backend whose
    /// PREADY differs fails the lock-step comparison.
    access_left: u32,
    /// With filter tables, the pending transfer is an EVTYPER/SMR write: it lasts until PREADY
    /// is 1 (its rebuild's length depends on whether the write was performed, docs/behaviour.md
    /// "Filter tables"), which the stimulus learns from [`Stimulus::observe`]; `in_access`: an
    /// access cycle of it has been driven, `last_pready`: PREADY of the last cycle.
    until_ready: bool,
    in_access: bool,
    last_pready: bool,
    lanes: Vec<LaneIn>,
    /// Probability of activity on a lane per cycle (percent).
    pub lane_activity: u32,
    /// Probability of starting a transfer on an idle cycle (percent).
    pub bus_activity: u32,
    /// Probability of a reset cycle (per 100,000 idle cycles; ten times that per read wait
    /// state).
    pub reset_rate: u32,
    /// Cycles generated so far.
    now: u64,
    /// A transfer aimed at the edge where a counter just written near the top would carry if it
    /// counts cycles: (setup cycle, what). Same-edge overflow-versus-clear and a split 64-bit read
    /// across a carry are otherwise too rare for random traffic to reach.
    chase: Option<(u64, Chase)>,
    /// The high-word read that follows a chased low-word read.
    follow_read: Option<u32>,
    /// The level on the external capture request.
    capt_req: bool,
    /// Linux's perf disable/enable in progress: (setup cycle, address, data) of the writes still
    /// to make (CR = 0, IRQ_CTRL = 0, ..., IRQ_CTRL = 1, CR = 1), so that IRQEN falls while MSIs
    /// are outstanding and pending; after a predicted overflow they are preceded by INTENSET0,
    /// CNTENSET0 and a near-top write of a second counter (a second overflow, an MSI pending).
    toggles: std::collections::VecDeque<(u64, u32, u32)>,
    /// Probability of starting a disable/enable sequence per cycle (per 100,000); drawn only in
    /// cycles free for a new transfer, which the held counter accesses made fewer (250 gave the
    /// default configuration just the differential's floor of toggles).
    pub toggle_rate: u32,
    /// Paired high writes aimed around a carry, and IRQ_CTRL = 0 writes of disable/enable
    /// sequences, made so far.
    pub high_chases: u64,
    pub irq_toggles: u64,
}

impl Stimulus {
    pub fn new(cfg: &PmcgConfig, seed: u64) -> Self {
        let map = RegisterMap::new(cfg);
        let mut targets = Vec::new();
        for r in &map.regs {
            targets.push(r.addr);
            if r.bits == 64 {
                targets.push(r.addr + 4);
            }
        }
        // Unmapped words, page 0 copies of relocated registers, and a third page.
        targets.extend([
            0x0FFC,
            0x0E80,
            0x0D00,
            0x0008,
            0x0600,
            0x2000,
            cfg.page1_offset + 0x0E00,
        ]);
        let counter_addrs = map
            .regs
            .iter()
            .filter(|r| matches!(r.id, RegId::Evcntr(_)))
            .map(|r| r.addr)
            .collect();
        let evtyper_addrs = map
            .regs
            .iter()
            .filter(|r| matches!(r.id, RegId::Evtyper(_)))
            .map(|r| r.addr)
            .collect();
        let smr_addrs = map
            .regs
            .iter()
            .filter(|r| matches!(r.id, RegId::Smr(_)))
            .map(|r| r.addr)
            .collect();
        let sid_all = map.mask(field::SMR_STREAMID) as u32;
        let bitmap_addrs = map
            .regs
            .iter()
            .filter(|r| {
                matches!(
                    r.id,
                    RegId::CntenSet0
                        | RegId::CntenClr0
                        | RegId::IntenSet0
                        | RegId::IntenClr0
                        | RegId::OvsSet0
                        | RegId::OvsClr0
                )
            })
            .flat_map(|r| [r.addr, r.addr + 4])
            .collect();
        Stimulus {
            rng: ChaCha8Rng::seed_from_u64(seed),
            lanes: vec![LaneIn::default(); cfg.lanes as usize],
            cfg: cfg.clone(),
            targets,
            counter_addrs,
            evtyper_addrs,
            smr_addrs,
            control_addrs: vec![
                offset::SCR,
                offset::SCR_ALIAS,
                offset::ROOTCR,
                offset::IRQ_CTRL,
                offset::IRQ_CTRL,
                offset::IRQ_CFG0,
                offset::IRQ_CFG0,
                offset::INTENSET0,
                map.get(RegId::Capr).map_or(offset::CAPR, |r| r.addr),
            ],
            sid_all,
            bitmap_addrs,
            lane_events: cfg.lane_event_ids(),
            map,
            pending: None,
            access_left: 0,
            until_ready: false,
            in_access: false,
            last_pready: true,
            lane_activity: 60,
            bus_activity: 50,
            reset_rate: 5,
            now: 0,
            chase: None,
            follow_read: None,
            capt_req: false,
            toggles: std::collections::VecDeque::new(),
            toggle_rate: 400,
            high_chases: 0,
            irq_toggles: 0,
        }
    }

    /// One address of `list`, chosen with `rng`.
    fn pick(rng: &mut ChaCha8Rng, list: &[u32]) -> u32 {
        list[rng.gen_range(0..list.len())]
    }

    fn pick_addr(&mut self) -> u32 {
        match self.rng.gen_range(0..10) {
            0..=2 => {
                let a = Self::pick(&mut self.rng, &self.counter_addrs);
                // Low or high word of a 64-bit counter.
                if self.cfg.wide_counters() && self.rng.gen_bool(0.5) {
                    a + 4
                } else {
                    a
                }
            }
            3 => match self.rng.gen_range(0..5) {
                0 | 1 => Self::pick(&mut self.rng, &self.evtyper_addrs),
                2 | 3 => Self::pick(&mut self.rng, &self.smr_addrs),
                // The security controls the filters depend on (absent ones are RAZ/WI).
                _ => Self::pick(&mut self.rng, &self.control_addrs),
            },
            4 => self.rng.gen::<u32>() & 0x1_FFFF,
            5 | 6 => Self::pick(&mut self.rng, &self.bitmap_addrs),
            _ => Self::pick(&mut self.rng, &self.targets),
        }
    }

    fn pick_wdata(&mut self, addr: u32) -> u32 {
        let map = &self.map;
        let is = |id| map.get(id).map(|r| r.addr == addr).unwrap_or(false);
        if self.evtyper_addrs.contains(&addr) {
            let event = match self.rng.gen_range(0..6) {
                0 => 0,
                1 => self.rng.gen::<u16>(),
                _ => self.lane_events[self.rng.gen_range(0..self.lane_events.len())],
            };
            return (self.rng.gen::<u32>() & 0xFFFF_0000) | event as u32;
        }
        if self.counter_addrs.contains(&addr)
            || self.counter_addrs.contains(&(addr.wrapping_sub(4)))
        {
            return match self.rng.gen_range(0..4) {
                0 => 0xFFFF_FFFF - self.rng.gen_range(0..40),
                1 => self.rng.gen(),
                2 => 0,
                _ => 0xFFFF_FFFF,
            };
        }
        if self.smr_addrs.contains(&addr) && self.cfg.mpam_filter && self.rng.gen_bool(0.4) {
            // {PMG, PARTID} (10.4.3) from the pools the lanes use.
            let partid = Self::pick_small(&mut self.rng, &PARTID_POOL) & 0xFFFF;
            let pmg = Self::pick_small(&mut self.rng, &PMG_POOL) & 0xFF;
            return pmg << 16 | partid;
        }
        if self.smr_addrs.contains(&addr) {
            // Filters that lane StreamIDs hit: exact pool values, partial masks around them, the
            // two match-all encodings (10.4), and anything.
            let v = self.pool_sid();
            let k = self.rng.gen_range(0..4);
            return match self.rng.gen_range(0..20) {
                0..=3 => 0xFFFF_FFFF,
                4..=6 => self.sid_all >> 1,
                7..=11 => v,
                12..=16 => (v | ((1 << k) - 1)) & !(1 << k),
                _ => self.rng.gen(),
            };
        }
        if is(RegId::Cr) {
            return u32::from(self.rng.gen_bool(0.75)); // mostly enabled
        }
        if is(RegId::IrqCtrl) {
            return u32::from(self.rng.gen_bool(0.6));
        }
        if is(RegId::Scr) || is(RegId::ScrAlias) {
            // NSRA and NSMSI set (so Non-secure traffic keeps access), SO and NAO at random.
            return if self.rng.gen_bool(0.8) {
                0x6 | self.rng.gen_range(0..2) | self.rng.gen_range(0..2) << 4
            } else {
                self.rng.gen()
            };
        }
        match self.rng.gen_range(0..3) {
            0 => 0xFFFF_FFFF,
            _ => self.rng.gen(),
        }
    }

    /// A value of `pool`, or now and then any value (PARTIDs and PMGs: lanes and SMRs meet).
    fn pick_small(rng: &mut ChaCha8Rng, pool: &[u32]) -> u32 {
        if rng.gen_bool(0.1) {
            rng.gen()
        } else {
            pool[rng.gen_range(0..pool.len())]
        }
    }

    /// A StreamID from a small pool, so that lane traffic and SMR filters meet. The pool has
    /// the all-ones StreamID and one with an all-ones high byte: bytes of 0xFF are the last row
    /// of a filter table (filter_table.rs), which uniform StreamIDs reach once in 256 per byte.
    fn pool_sid(&mut self) -> u32 {
        const POOL: [u32; 8] = [0x0, 0x1, 0x40, 0x41, 0x42, 0x43, 0xFFFF_FFFF, 0xFF41];
        POOL[self.rng.gen_range(0..POOL.len())] & self.sid_all
    }

    fn step_lanes(&mut self) {
        let events_mask = if self.lane_events.len() >= 32 {
            u32::MAX
        } else {
            (1u32 << self.lane_events.len()) - 1
        };
        for l in 0..self.lanes.len() {
            let active = self.rng.gen_range(0..100) < self.lane_activity;
            self.lanes[l] = LaneIn {
                valid: active,
                events: if self.rng.gen_bool(0.2) {
                    self.rng.gen()
                } else {
                    self.rng.gen::<u32>() & events_mask
                },
                sid: if self.rng.gen_bool(0.7) {
                    self.pool_sid()
                } else {
                    self.rng.gen::<u32>() & self.sid_all
                },
                nosid: self.rng.gen_bool(0.1),
                // Mostly the three StreamID states; Root, SA and NSP (10.4.2) now and then.
                ss: match self.rng.gen_range(0..20) {
                    0..=7 => SecState::NonSecure,
                    8..=11 => SecState::Secure,
                    12..=14 => SecState::Realm,
                    15 => SecState::Root,
                    16 => SecState::SystemAgent,
                    _ => SecState::NonSecureProtected,
                },
                partid: Self::pick_small(&mut self.rng, &PARTID_POOL) as u16,
                pmg: Self::pick_small(&mut self.rng, &PMG_POOL) as u8,
                mpam_sp: MpamSpace::ALL[self.rng.gen_range(0..4)],
            };
        }
    }

    /// The inputs of the next cycle.
    pub fn next_inputs(&mut self) -> PinInputs {
        self.now += 1;
        self.step_lanes();
        // The external capture request: a level that changes now and then (any pattern is
        // legal input; the 4-phase discipline is the requester's).
        if self.rng.gen_range(0..100) < 3 {
            self.capt_req = !self.capt_req;
        }
        let mut inp = PinInputs::idle(self.lanes.len());
        inp.lanes.clone_from(&self.lanes);
        inp.capt_req = self.capt_req;
        if self.until_ready && self.in_access && self.last_pready {
            // The filter write completed in the last cycle.
            self.until_ready = false;
            self.in_access = false;
            self.pending = None;
        }
        if let Some(mut setup) = self.pending.clone() {
            setup.penable = true;
            self.in_access = true;
            setup.lanes.clone_from(&self.lanes);
            setup.capt_req = self.capt_req;
            // A read's wait state: now and then PRESETn falls in it; the read still completes
            // in the next cycle (docs/behaviour.md "APB4 completer").
            let last_wait = if setup.pwrite { 1 } else { 2 };
            if !setup.pwrite
                && self.access_left == 2
                && self.rng.gen_range(0..100_000) < 10 * self.reset_rate
            {
                setup.presetn = false;
            }
            // A held cycle: now and then PRESETn falls in it; the hold ends and the transfer
            // completes in the next cycle without being performed.
            if self.access_left > last_wait && self.rng.gen_range(0..100_000) < 10 * self.reset_rate
            {
                setup.presetn = false;
                self.access_left = 2;
                // The wait ends with the reset: the transfer completes in the next cycle.
                self.until_ready = false;
            }
            self.access_left -= 1;
            if self.access_left == 0 {
                self.pending = None;
            }
            return setup;
        }
        if self.rng.gen_range(0..100_000) < self.reset_rate {
            inp.presetn = false;
            return inp;
        }
        if let Some(addr) = self.follow_read.take() {
            inp.psel = true;
            inp.paddr = addr;
            self.start(&inp);
            return inp;
        }
        if let Some((at, chase)) = self.chase {
            if self.now >= at {
                self.chase = None;
                inp.psel = true;
                match chase {
                    Chase::Clear { addr, data } => {
                        inp.pwrite = true;
                        inp.paddr = addr;
                        inp.pwdata = data;
                        inp.pstrb = 0xF;
                    }
                    Chase::ReadPair { addr } => {
                        inp.paddr = addr;
                        self.follow_read = Some(addr + 4);
                    }
                    Chase::HighWrite { addr, data, strb } => {
                        self.high_chases += 1;
                        inp.pwrite = true;
                        inp.paddr = addr;
                        inp.pwdata = data;
                        inp.pstrb = strb;
                    }
                }
                self.start(&inp);
                return inp;
            }
        }
        if self.toggles.is_empty() && self.rng.gen_range(0..100_000) < self.toggle_rate {
            self.plan_toggle(self.now);
        }
        if let Some(&(at, addr, data)) = self.toggles.front() {
            if self.now >= at {
                self.toggles.pop_front();
                let irq_ctrl = self.map.reg(RegId::IrqCtrl).addr;
                self.irq_toggles += (addr == irq_ctrl && data == 0) as u64;
                (inp.psel, inp.pwrite, inp.paddr, inp.pwdata, inp.pstrb) =
                    (true, true, addr, data, 0xF);
                self.start(&inp);
                return inp;
            }
        }
        if self.rng.gen_range(0..100) < self.bus_activity {
            let addr = self.pick_addr();
            inp.psel = true;
            inp.paddr = addr
                | if self.rng.gen_bool(0.05) {
                    self.rng.gen_range(1..4)
                } else {
                    0
                };
            inp.pprot = if self.rng.gen_bool(0.5) { 0b010 } else { 0b000 };
            // APB5 PNSE: Root and Realm accesses (ignored without Realm).
            inp.pnse = self.rng.gen_bool(0.3);
            inp.pwrite = self.rng.gen_bool(0.45);
            // With filter tables an EVTYPER/SMR write holds the bus for 259 cycles: one in five
            // stays a write, so that the bus still carries other traffic and the tables are
            // still rebuilt often (one in twenty left a planted table fault, the rebuild's last
            // row skipped, uncaught for 10^6 cycles: tests/planted_faults.rs).
            if inp.pwrite
                && self.cfg.filter_tables
                && self.map.filter_access(addr)
                && self.rng.gen_bool(0.8)
            {
                inp.pwrite = false;
            }
            if inp.pwrite {
                inp.pwdata = self.pick_wdata(addr);
                self.aim_chase(addr, inp.pwdata);
                inp.pstrb = if self.rng.gen_bool(0.85) {
                    0xF
                } else {
                    self.rng.gen_range(0..16)
                };
            }
            self.start(&inp);
        }
        inp
    }

    /// After a low-word counter write of 2^32-1-k (k small) in setup cycle s = now, a cycle
    /// counter carries out of its low word at edge s+2+k+h (h = COUNTER_HOLD_CYCLES: the write
    /// is held; so is a chasing counter access, whose setup therefore aims as if neither were).
    /// 32-bit counters: schedule an OVSCLR0 write of the counter's bit whose access edge is
    /// within two edges of that wrap, and often a perf disable/enable just after it (see
    /// `toggles`). Wider counters, half the time: schedule a low-then-high read whose low read
    /// samples before the carry and whose high read samples after it (a read samples the state
    /// of its access cycle: low setup at s+k or s+k+1 straddles; the aim spans s+k ..= s+k+2);
    /// the other half: the paired high-word write, around the carry (other transfers may come
    /// between).
    fn aim_chase(&mut self, addr: u32, data: u32) {
        let Some(n) = self.counter_addrs.iter().position(|&a| a == addr) else {
            return;
        };
        if self.chase.is_some() || data < 0xFFFF_FFC0 {
            return;
        }
        let k = (0xFFFF_FFFF - data) as u64;
        let hold = COUNTER_HOLD_CYCLES as u64;
        let (at, chase) = if self.cfg.wide_counters() && self.rng.gen_bool(0.5) {
            (
                self.now + k + self.rng.gen_range(0..3),
                Chase::ReadPair { addr },
            )
        } else if self.cfg.wide_counters() {
            // The high half of the split write: its access edge s+k+1+r is before (r = 0), at
            // (r = 1) or after the carry at s+k+2 of a cycle counter (lane counters carry later
            // or not at all); all-ones high words make H + c wrap.
            let data = match self.rng.gen_range(0..4) {
                0 => 0xFFFF_FFFF,
                1 => 0,
                _ => self.rng.gen(),
            };
            let strb = if self.rng.gen_bool(0.85) {
                0xF
            } else {
                self.rng.gen_range(0..16)
            };
            (
                self.now + k + self.rng.gen_range(0..7),
                Chase::HighWrite {
                    addr: addr + 4,
                    data,
                    strb,
                },
            )
        } else {
            let clr = self.map.reg(RegId::OvsClr0).addr + if n >= 32 { 4 } else { 0 };
            let data = 1 << (n % 32);
            // A perf disable/enable soon after the predicted overflow, while its MSI (if it
            // qualifies) may be outstanding and another one pending.
            // A second counter is written near its top too, so that a second overflow may
            // come while the first one's MSI is outstanding (and its MSI is pending).
            if self.toggles.is_empty() && self.rng.gen_bool(0.8) {
                let m = self.rng.gen_range(0..self.counter_addrs.len());
                let near = 0xFFFF_FFFF - self.rng.gen_range(0..8);
                // Both counters enabled with INTEN (bitmap writes are common traffic anyway).
                let bits = 1u32 << (n % 32) | 1u32 << (m % 32);
                if n / 32 == m / 32 {
                    let hi = if n >= 32 { 4 } else { 0 };
                    for id in [RegId::IntenSet0, RegId::CntenSet0] {
                        let a = self.map.reg(id).addr + hi;
                        self.toggles.push_back((self.now, a, bits));
                    }
                }
                self.toggles
                    .push_back((self.now, self.counter_addrs[m], near));
                let start = self.now + 2 + k + hold + self.rng.gen_range(0..30);
                self.plan_toggle(start);
            }
            (
                self.now + 1 + k + hold + self.rng.gen_range(0..5) - 2,
                Chase::Clear { addr: clr, data },
            )
        };
        self.chase = Some((at.max(self.now + 2), chase));
    }

    /// Plans Linux's `smmu_pmu_disable()` / `smmu_pmu_enable()`: (sometimes) CR = 0, then
    /// IRQ_CTRL = 0, and after 0-60 cycles IRQ_CTRL = 1 and CR.E = 1 (Secure writes, permitted
    /// whatever NSRA). Other traffic goes on between them.
    fn plan_toggle(&mut self, start: u64) {
        let e = self.map.mask(field::CR_E) as u32;
        let irqen = self.map.mask(field::IRQ_CTRL_IRQEN) as u32;
        let (cr, irq_ctrl) = (
            self.map.reg(RegId::Cr).addr,
            self.map.reg(RegId::IrqCtrl).addr,
        );
        let cr_too = self.rng.gen_bool(0.5);
        let mut at = start;
        if cr_too {
            self.toggles.push_back((at, cr, 0));
        }
        self.toggles.push_back((at, irq_ctrl, 0));
        at += self.rng.gen_range(0..=60);
        self.toggles.push_back((at, irq_ctrl, irqen));
        if cr_too {
            self.toggles.push_back((at, cr, e));
        }
    }

    /// Makes `setup` (the inputs of this setup cycle) the transfer in progress.
    fn start(&mut self, setup: &PinInputs) {
        // A transfer to the EVCNTR or SVR region is held first (docs/behaviour.md "Counter and
        // shadow accesses").
        self.access_left = self.map.hold_cycles(setup.paddr) + if setup.pwrite { 1 } else { 2 };
        self.until_ready =
            self.cfg.filter_tables && setup.pwrite && self.map.filter_access(setup.paddr);
        if self.until_ready {
            self.access_left = u32::MAX;
        }
        self.in_access = false;
        self.pending = Some(setup.clone());
    }

    /// PREADY of the cycle just stepped (the reference's): ends a filter write's wait.
    pub fn observe(&mut self, pready: bool) {
        self.last_pready = pready;
    }

    /// A reset cycle's inputs (to start every run from the reset state).
    pub fn reset_inputs(&self) -> PinInputs {
        let mut inp = PinInputs::idle(self.lanes.len());
        inp.presetn = false;
        inp
    }
}

/// The first cycle at which two backends' outputs differ.
#[derive(Debug)]
pub struct Mismatch {
    pub cycle: u64,
    pub inputs: PinInputs,
    pub expected: (String, PinOutputs),
    pub actual: (String, PinOutputs),
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cycle {}: {} {:x?} != {} {:x?} (inputs {:x?})",
            self.cycle, self.expected.0, self.expected.1, self.actual.0, self.actual.1, self.inputs
        )
    }
}

/// Counts of what a lock-step run exercised (to check a run was not vacuous).
#[derive(Debug, Default, Clone)]
pub struct LockstepStats {
    pub cycles: u64,
    pub reads: u64,
    pub nonzero_reads: u64,
    pub writes: u64,
    pub irq_pulses: u64,
    /// MSI writes completed by the random AXI slave, and those answered with an error.
    pub msi_writes: u64,
    pub msi_errors: u64,
    /// Cycles with CAPT_ACK high.
    pub capt_ack_cycles: u64,
    /// AXI protocol violations of the MSI master (must be empty).
    pub msi_violations: Vec<String>,
    /// Paired high writes aimed around a carry; IRQ_CTRL 1 -> 0 -> 1 sequences.
    pub high_chases: u64,
    pub irq_toggles: u64,
}

/// Steps every backend with the same `cycles` cycles of stimulus (after a reset cycle) and
/// compares all outputs every cycle against the first backend (the reference).
pub fn lockstep(
    cfg: &PmcgConfig,
    seed: u64,
    cycles: u64,
    duts: &mut [&mut dyn Dut],
) -> Result<LockstepStats, Box<Mismatch>> {
    let mut stim = Stimulus::new(cfg, seed);
    let mut stats = LockstepStats::default();
    // A random AXI slave on the MSI master: delays 0-40 cycles, 25% error responses. It answers
    // from the reference's outputs (all backends' outputs are equal, or the run stops).
    // A third of the write responses are slow (10-40 cycles): MSIs stay outstanding while
    // IRQ_CTRL toggles and further overflows make one pending.
    let mut msi = MsiResponder::random(seed ^ 0x4d53_4921, 40, 250).with_slow_responses(10, 40, 33);
    let reset = stim.reset_inputs();
    for cycle in 0..=cycles {
        let mut inp = if cycle == 0 {
            reset.clone()
        } else {
            stim.next_inputs()
        };
        msi.drive(&mut inp);
        let mut outs = Vec::with_capacity(duts.len());
        for d in duts.iter_mut() {
            outs.push(d.step(&inp));
        }
        for (i, o) in outs.iter().enumerate().skip(1) {
            if *o != outs[0] {
                return Err(Box::new(Mismatch {
                    cycle,
                    inputs: inp,
                    expected: (duts[0].name().into(), outs[0]),
                    actual: (duts[i].name().into(), *o),
                }));
            }
        }
        // A read completes in its second access cycle (PREADY = 1), where PRDATA is valid.
        if inp.psel && inp.penable && !inp.pwrite && outs[0].pready {
            stats.reads += 1;
            if outs[0].prdata != 0 {
                stats.nonzero_reads += 1;
            }
        }
        if inp.psel && inp.penable && inp.pwrite {
            stats.writes += 1;
        }
        if outs[0].irq {
            stats.irq_pulses += 1;
        }
        if outs[0].capt_ack {
            stats.capt_ack_cycles += 1;
        }
        msi.observe(cycle, &outs[0]);
        stim.observe(outs[0].pready);
        stats.cycles += 1;
    }
    stats.msi_writes = msi.completed.len() as u64;
    stats.msi_errors = msi.completed.iter().filter(|w| w.resp != 0).count() as u64;
    stats.msi_violations = msi.violations;
    stats.high_chases = stim.high_chases;
    stats.irq_toggles = stim.irq_toggles;
    Ok(stats)
}
