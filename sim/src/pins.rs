//! The pin-level interface every PMCG backend implements (reference model, native RustHDL
//! simulation, Verilator on the emitted Verilog), and the bus-functional driver on top of it.
//!
//! ```text
//!   Testbench / script runner
//!        │  Driver: apb_read / apb_write / events / idle / reset
//!        ▼
//!   PinInputs ──► Dut::step() ──► PinOutputs        (one call = one PCLK cycle)
//!                  ├ Model        (sim/src/model.rs, plain Rust from the spec)
//!                  ├ NativeDut    (sim/src/native.rs, RustHDL simulate())
//!                  └ VerilatorDut (sim/src/vdut.rs, emitted Verilog)
//! ```
//!
//! ## Cycle contract
//! `step(inp)` models one PCLK cycle: it returns the outputs as they are during the cycle (every
//! output is registered, so they do not depend on `inp`), then applies the rising edge that ends
//! the cycle, at which the design samples `inp`. Because all outputs are registered, two
//! backends agree exactly when their output sequences for the same input sequence are equal.

/// Security state of the traffic that raised an event on a lane (for a NoStreamID access, its
/// target PA space, 10.4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SecState {
    #[default]
    NonSecure,
    Secure,
    Realm,
    Root,
    /// System Agent PA space (Granular Data Isolation).
    SystemAgent,
    /// Non-secure with the Protected Mode attribute (PM = 1), the NSP PA space.
    NonSecureProtected,
}

impl SecState {
    /// Every state, in code order.
    pub const ALL: [SecState; 6] = [
        SecState::NonSecure,
        SecState::Secure,
        SecState::Realm,
        SecState::Root,
        SecState::SystemAgent,
        SecState::NonSecureProtected,
    ];

    /// Encoding on the `lane_ss` input: 0 Non-secure, 1 Secure, 2 Realm, 3 Root, 4 SA, 5 NSP.
    pub fn code(self) -> u32 {
        match self {
            SecState::NonSecure => 0,
            SecState::Secure => 1,
            SecState::Realm => 2,
            SecState::Root => 3,
            SecState::SystemAgent => 4,
            SecState::NonSecureProtected => 5,
        }
    }

    /// The script spelling: ns, s, realm, root, sa, nsp.
    pub fn name(self) -> &'static str {
        match self {
            SecState::NonSecure => "ns",
            SecState::Secure => "s",
            SecState::Realm => "realm",
            SecState::Root => "root",
            SecState::SystemAgent => "sa",
            SecState::NonSecureProtected => "nsp",
        }
    }
}

/// MPAM PARTID space of a lane's traffic, in the EVTYPER.FILTER_MPAM_SP encoding (10.4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MpamSpace {
    Secure,
    #[default]
    NonSecure,
    Root,
    Realm,
}

impl MpamSpace {
    /// Every space, in code order.
    pub const ALL: [MpamSpace; 4] = [
        MpamSpace::Secure,
        MpamSpace::NonSecure,
        MpamSpace::Root,
        MpamSpace::Realm,
    ];

    /// Encoding on the `lane_mpam_sp` input: 0 Secure, 1 Non-secure, 2 Root, 3 Realm.
    pub fn code(self) -> u32 {
        match self {
            MpamSpace::Secure => 0,
            MpamSpace::NonSecure => 1,
            MpamSpace::Root => 2,
            MpamSpace::Realm => 3,
        }
    }

    /// The script spelling: s, ns, root, realm.
    pub fn name(self) -> &'static str {
        match self {
            MpamSpace::Secure => "s",
            MpamSpace::NonSecure => "ns",
            MpamSpace::Root => "root",
            MpamSpace::Realm => "realm",
        }
    }
}

/// One event lane's inputs for one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneIn {
    /// The lane carries events this cycle.
    pub valid: bool,
    /// Bit k: event `cfg.lane_event_ids()[k]` occurred on this lane.
    pub events: u32,
    /// StreamID of the traffic.
    pub sid: u32,
    /// Security state of the traffic.
    pub ss: SecState,
    /// NoStreamID access (10.4.2): `sid` is meaningless, `ss` is the access's target PA space;
    /// counted only under a match-all filter that includes that state.
    pub nosid: bool,
    /// MPAM PARTID, PMG and PARTID space of the traffic (used with `mpam_filter = on` only).
    pub partid: u16,
    pub pmg: u8,
    pub mpam_sp: MpamSpace,
}

/// Every input of the PMCG for one cycle. APB signal names follow AMBA APB4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinInputs {
    /// Active-low reset, sampled synchronously at the rising edge of PCLK.
    pub presetn: bool,
    pub psel: bool,
    pub penable: bool,
    pub pwrite: bool,
    pub paddr: u32,
    pub pwdata: u32,
    pub pstrb: u8,
    /// PPROT[1] = 1 marks a Non-secure access.
    pub pprot: u8,
    /// APB5 PNSE: with PPROT[1] the access's state {PNSE, PPROT[1]}: 00 Secure, 01 Non-secure,
    /// 10 Root, 11 Realm (used with `realm = on` only).
    pub pnse: bool,
    /// One entry per configured lane (`cfg.lanes`).
    pub lanes: Vec<LaneIn>,
    /// MSI AXI4-Lite write master inputs (with `msi = on`; docs/behaviour.md "MSI write master").
    pub awready: bool,
    pub wready: bool,
    pub bvalid: bool,
    pub bresp: u8,
    /// External capture request (4-phase with `capt_ack`; with `capture = on`).
    pub capt_req: bool,
}

impl PinInputs {
    /// Idle bus, no events, reset released.
    pub fn idle(lanes: usize) -> Self {
        PinInputs {
            presetn: true,
            psel: false,
            penable: false,
            pwrite: false,
            paddr: 0,
            pwdata: 0,
            pstrb: 0,
            pprot: 0,
            pnse: false,
            lanes: vec![LaneIn::default(); lanes],
            awready: false,
            wready: false,
            bvalid: false,
            bresp: 0,
            capt_req: false,
        }
    }
}

/// Every output of the PMCG during one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PinOutputs {
    pub prdata: u32,
    pub pready: bool,
    pub pslverr: bool,
    /// Wired interrupt: a one-cycle pulse per qualifying overflow edge.
    pub irq: bool,
    /// MSI AXI4-Lite write master (0 without MSI).
    pub awvalid: bool,
    pub awaddr: u64,
    pub awprot: u8,
    pub wvalid: bool,
    pub wdata: u32,
    pub wstrb: u8,
    pub bready: bool,
    /// IRQ_CFG2.MEMATTR and SH for the MSI (sidebands; 0 without MSI).
    pub msi_memattr: u8,
    pub msi_sh: u8,
    /// With `msi_mpam`: the MSI's PARTID, PMG and PARTID space (1 Non-secure), like AWADDR
    /// (taken at the issue, 0 outside AWVALID).
    pub msi_partid: u16,
    pub msi_pmg: u8,
    pub msi_mpam_ns: bool,
    /// External capture acknowledge (0 without capture).
    pub capt_ack: bool,
    /// Per-counter overflow pulses (bit n: counter n overflowed at the previous edge).
    pub ovf_export: u64,
}

/// A simulated PMCG at pin level.
pub trait Dut {
    /// One PCLK cycle: the outputs during the cycle, then the rising edge samples `inp`.
    fn step(&mut self, inp: &PinInputs) -> PinOutputs;
    /// Short name for reports ("model", "native", "verilator").
    fn name(&self) -> &'static str;
}

/// A boxed backend is a backend (lets callers choose one at run time).
impl Dut for Box<dyn Dut> {
    fn step(&mut self, inp: &PinInputs) -> PinOutputs {
        self.as_mut().step(inp)
    }
    fn name(&self) -> &'static str {
        self.as_ref().name()
    }
}

/// Security attribute of an APB access: PPROT[1], and the APB5 PNSE for Root and Realm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Secure,
    NonSecure,
    Root,
    Realm,
}

impl Access {
    /// PPROT[1] = 1 for Non-secure and Realm.
    pub fn pprot(self) -> u8 {
        match self {
            Access::Secure | Access::Root => 0b000,
            Access::NonSecure | Access::Realm => 0b010,
        }
    }
    /// PNSE = 1 for Root and Realm.
    pub fn pnse(self) -> bool {
        matches!(self, Access::Root | Access::Realm)
    }
}

pub use crate::axi::MsiResponder;

/// The wait states the [`Driver`] allows before it declares PREADY stuck (the contract has 1 per
/// read and 0 per write, plus `COUNTER_HOLD_CYCLES` (8) for counter and shadow accesses, and
/// with filter tables 258 after an EVTYPER or SMR write's access cycle: docs/behaviour.md
/// "Filter tables").
pub const MAX_WAIT_STATES: u32 = pmcg_hdl::regmap::FILTER_TABLE_APPLY_EDGES as u32 + 1;

/// Called with (cycle, inputs, outputs) after every cycle.
pub type Observer = Box<dyn FnMut(u64, &PinInputs, &PinOutputs)>;

/// A bus-functional driver: APB transfers and event traffic on any [`Dut`], with a cycle count,
/// a count of interrupt pulses seen, and an optional observer of every cycle.
pub struct Driver<D: Dut> {
    pub dut: D,
    /// Lane inputs held for the next cycles (events are driven by [`Driver::set_lanes`]).
    lanes: Vec<LaneIn>,
    /// Cycles stepped so far.
    pub cycle: u64,
    /// Interrupt pulses seen so far.
    pub irq_pulses: u64,
    /// Called with (cycle, inputs, outputs) after every cycle when set (tracing, lock-step).
    pub observer: Option<Observer>,
    /// The AXI4-Lite slave that answers MSI writes (always ready, OKAY, by default).
    pub msi: MsiResponder,
    /// The level driven on the external capture request.
    pub capt_req: bool,
}

impl<D: Dut> Driver<D> {
    pub fn new(dut: D, lanes: usize) -> Self {
        Driver {
            dut,
            lanes: vec![LaneIn::default(); lanes],
            cycle: 0,
            irq_pulses: 0,
            observer: None,
            msi: MsiResponder::default(),
            capt_req: false,
        }
    }

    /// Number of event lanes this driver drives.
    pub fn lanes(&self) -> usize {
        self.lanes.len()
    }

    /// Steps one cycle with the given bus signals and the held lane inputs.
    pub fn step_with(&mut self, mut inp: PinInputs) -> PinOutputs {
        inp.lanes.clone_from(&self.lanes);
        inp.capt_req = self.capt_req;
        self.msi.drive(&mut inp);
        let out = self.dut.step(&inp);
        self.msi.observe(self.cycle, &out);
        if out.irq {
            self.irq_pulses += 1;
        }
        if let Some(obs) = self.observer.as_mut() {
            obs(self.cycle, &inp, &out);
        }
        self.cycle += 1;
        out
    }

    fn bus(&self) -> PinInputs {
        PinInputs::idle(self.lanes.len())
    }

    /// Sets the lane inputs used from the next cycle on (until changed).
    pub fn set_lanes(&mut self, lanes: &[LaneIn]) {
        assert_eq!(lanes.len(), self.lanes.len(), "lane count");
        self.lanes.copy_from_slice(lanes);
    }

    /// Clears every lane.
    pub fn clear_lanes(&mut self) {
        self.lanes.iter_mut().for_each(|l| *l = LaneIn::default());
    }

    /// `n` idle bus cycles (lanes as held).
    pub fn idle(&mut self, n: u64) {
        for _ in 0..n {
            let b = self.bus();
            self.step_with(b);
        }
    }

    /// Holds PRESETn low for `cycles` cycles (at least 1), then releases it.
    pub fn reset(&mut self, cycles: u64) {
        for _ in 0..cycles.max(1) {
            let mut b = self.bus();
            b.presetn = false;
            self.step_with(b);
        }
    }

    /// One APB4 write: setup then access (no wait state expected but a counter's held cycles;
    /// waits while PREADY is 0, at most [`MAX_WAIT_STATES`] cycles). Returns PSLVERR.
    pub fn apb_write_strb(&mut self, addr: u32, data: u32, strb: u8, access: Access) -> bool {
        let mut b = self.bus();
        b.psel = true;
        b.pwrite = true;
        b.paddr = addr;
        b.pwdata = data;
        b.pstrb = strb;
        b.pprot = access.pprot();
        b.pnse = access.pnse();
        self.step_with(b.clone());
        b.penable = true;
        for _ in 0..=MAX_WAIT_STATES {
            let out = self.step_with(b.clone());
            if out.pready {
                return out.pslverr;
            }
        }
        panic!(
            "{}: APB write to {addr:#x}: PREADY still 0 after {MAX_WAIT_STATES} wait states",
            self.dut.name()
        );
    }

    /// A full-word APB write.
    pub fn apb_write(&mut self, addr: u32, data: u32, access: Access) -> bool {
        self.apb_write_strb(addr, data, 0xF, access)
    }

    /// One APB4 read: setup, then access cycles until PREADY = 1 (one wait state expected, and
    /// a counter's held cycles, docs/behaviour.md "APB4 completer"; at most
    /// [`MAX_WAIT_STATES`]). Returns (PRDATA, PSLVERR) of the cycle with PREADY = 1.
    pub fn apb_read_full(&mut self, addr: u32, access: Access) -> (u32, bool) {
        let mut b = self.bus();
        b.psel = true;
        b.paddr = addr;
        b.pprot = access.pprot();
        b.pnse = access.pnse();
        self.step_with(b.clone());
        b.penable = true;
        for _ in 0..=MAX_WAIT_STATES {
            let out = self.step_with(b.clone());
            if out.pready {
                return (out.prdata, out.pslverr);
            }
        }
        panic!(
            "{}: APB read of {addr:#x}: PREADY still 0 after {MAX_WAIT_STATES} wait states",
            self.dut.name()
        );
    }

    /// One APB4 read: PRDATA.
    pub fn apb_read(&mut self, addr: u32, access: Access) -> u32 {
        self.apb_read_full(addr, access).0
    }

    /// A 64-bit register read as interconnects split it: low word, then high word.
    pub fn apb_read64(&mut self, addr: u32, access: Access) -> u64 {
        let lo = self.apb_read(addr, access) as u64;
        let hi = self.apb_read(addr + 4, access) as u64;
        (hi << 32) | lo
    }

    /// A 64-bit register write split low word then high word.
    pub fn apb_write64(&mut self, addr: u32, data: u64, access: Access) {
        self.apb_write(addr, data as u32, access);
        self.apb_write(addr + 4, (data >> 32) as u32, access);
    }
}
