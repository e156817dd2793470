//! `NativeDut`: the RustHDL design simulated natively, behind the pin-level [`Dut`] interface.
//!
//! ```text
//!   PinInputs ──► core.<port>.next ──► pclk=0, simulate() ──► outputs ──► pclk=1, simulate()
//! ```
//! It drives `simulate()` directly rather than rust-hdl's thread-per-testbench framework, which
//! hands off between threads on every edge (several times slower; field notes).
//!
//! The optional waveform goes through [`VcdFile`]: rust-hdl's VCD writer unwraps every write, so
//! a full disk or a file-size limit would panic inside it; `VcdFile` keeps the first error for the
//! caller ([`VcdStatus`]) and stops recording instead.

use crate::pins::{Dut, PinInputs, PinOutputs};
use pmcg_hdl::config::{lane_mpam_word, PmcgConfig};
use pmcg_hdl::top::PmcgCore;
use rust_hdl::prelude::*;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Settling iterations allowed per half cycle before the design is declared non-convergent.
const MAX_SETTLE: usize = 200;

/// Picoseconds per PCLK period in the waveform (10 ns: the 100 MHz FPGA target).
const VCD_PERIOD_PS: u64 = 10_000;

type VcdWriter = rust_hdl::core::vcd_probe::VCDProbe<VcdFile>;

/// The first error writing the waveform, shared between the [`NativeDut`] and its caller.
#[derive(Clone, Debug, Default)]
pub struct VcdStatus(Arc<Mutex<Option<std::io::Error>>>);

impl VcdStatus {
    /// The first write error, if any (taken: a second call returns `None`). The file is complete
    /// only once the `NativeDut` has been dropped (the last buffered bytes are written then).
    pub fn take_error(&self) -> Option<std::io::Error> {
        self.0.lock().map(|mut e| e.take()).unwrap_or(None)
    }

    fn failed(&self) -> bool {
        self.0.lock().map(|e| e.is_some()).unwrap_or(true)
    }

    fn keep(&self, error: std::io::Error) {
        if let Ok(mut slot) = self.0.lock() {
            slot.get_or_insert(error);
        }
    }
}

/// A buffered VCD file whose writes never fail: the first error goes to the [`VcdStatus`] and
/// every later byte is dropped (rust-hdl's VCD writer would panic on an error).
pub struct VcdFile {
    file: Option<std::io::BufWriter<std::fs::File>>,
    status: VcdStatus,
}

impl VcdFile {
    fn on<T>(&mut self, result: std::io::Result<T>, ok: T) -> std::io::Result<T> {
        match result {
            Ok(v) => Ok(v),
            Err(e) => {
                self.file = None;
                self.status.keep(e);
                Ok(ok)
            }
        }
    }
}

impl Write for VcdFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.file.as_mut().map(|f| f.write(buf)) {
            Some(r) => self.on(r, buf.len()),
            None => Ok(buf.len()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self.file.as_mut().map(|f| f.flush()) {
            Some(r) => self.on(r, ()),
            None => Ok(()),
        }
    }
}

impl Drop for VcdFile {
    fn drop(&mut self) {
        // BufWriter's own drop ignores a failed final write.
        let _ = self.flush();
    }
}

pub struct NativeDut {
    core: PmcgCore,
    /// What the shipped top exposes of the core (synth/src/wrapper.rs): MSI ports only with
    /// MSI, AWADDR's pa_bits, IRQ_CFG2's MEMATTR/SH positions, one export bit per counter.
    msi: bool,
    msi_mpam: bool,
    awaddr_mask: u64,
    memattr: (u32, u64),
    sh: (u32, u64),
    export_mask: u64,
    vcd: Option<VcdWriter>,
    vcd_status: VcdStatus,
    cycle: u64,
    iterations: u64,
}

impl NativeDut {
    pub fn new(cfg: &PmcgConfig) -> Result<Self, pmcg_hdl::config::ConfigError> {
        Self::with_fault(cfg, None)
    }

    /// The design with a fault planted in a block of its register file
    /// (tests/planted_faults.rs).
    pub fn with_fault(
        cfg: &PmcgConfig,
        fault: Option<pmcg_hdl::regfile::RtlFault>,
    ) -> Result<Self, pmcg_hdl::config::ConfigError> {
        let mut core = PmcgCore::with_fault(cfg, fault)?;
        core.connect_all();
        let map = pmcg_hdl::regmap::RegisterMap::new(cfg);
        let field = |name| {
            map.get(pmcg_hdl::regmap::RegId::IrqCfg2)
                .and_then(|r| r.field(name))
                .map(|f| (f.lsb, (1u64 << f.width) - 1))
                .unwrap_or((0, 0))
        };
        Ok(NativeDut {
            core,
            msi: cfg.msi,
            msi_mpam: cfg.msi_mpam,
            awaddr_mask: (1u64 << cfg.pa_bits) - 1,
            memattr: field("MEMATTR"),
            sh: field("SH"),
            export_mask: cfg.counter_bitmap(),
            vcd: None,
            vcd_status: VcdStatus::default(),
            cycle: 0,
            iterations: 0,
        })
    }

    /// Records every signal of the design, every half cycle, to a VCD file at `path`. A write
    /// error later on stops the recording and is kept in [`NativeDut::vcd_status`].
    pub fn with_vcd(mut self, path: &std::path::Path) -> std::io::Result<Self> {
        let file = VcdFile {
            file: Some(std::io::BufWriter::new(std::fs::File::create(path)?)),
            status: self.vcd_status.clone(),
        };
        let vcd = write_vcd_header(file, &self.core);
        self.vcd = Some(write_vcd_dump(vcd, &self.core));
        Ok(self)
    }

    /// Where a waveform write error shows (a handle that outlives the `NativeDut`).
    pub fn vcd_status(&self) -> VcdStatus {
        self.vcd_status.clone()
    }

    fn record(&mut self, half: u64) {
        if let Some(mut vcd) = self.vcd.take() {
            let time = self.cycle * VCD_PERIOD_PS + half * VCD_PERIOD_PS / 2;
            if let Err(e) = vcd.timestamp(time) {
                self.vcd_status.keep(e);
            }
            if self.vcd_status.failed() {
                return; // the waveform is lost: stop spending time on it
            }
            self.vcd = Some(write_vcd_change(vcd, &self.core));
        }
    }

    fn settle(&mut self) {
        // rust-hdl's simulate(), counting iterations for profiling.
        for i in 0..MAX_SETTLE {
            self.core.update_all();
            if !self.core.has_changed() {
                self.iterations += i as u64 + 1;
                return;
            }
        }
        panic!("the PMCG design did not settle in {MAX_SETTLE} iterations");
    }

    /// Commits the top-level inputs just assigned. The patched simulator
    /// (vendor/rust-hdl-core/PATCHES.md) lets a block read an input in the pass it is written, so
    /// the first settle pass sees them either way; committing them here only keeps their change
    /// flags out of that pass. An input left out here is still seen: this list is a speed-up,
    /// not a correctness condition.
    fn commit_inputs(&mut self) {
        let c = &mut self.core;
        c.presetn.update_all();
        c.psel.update_all();
        c.penable.update_all();
        c.pwrite.update_all();
        c.paddr.update_all();
        c.pwdata.update_all();
        c.pstrb.update_all();
        c.pprot.update_all();
        c.pnse.update_all();
        c.awready.update_all();
        c.wready.update_all();
        c.bvalid.update_all();
        c.bresp.update_all();
        c.capt_req.update_all();
        for l in 0..c.lane_valid.len() {
            c.lane_valid[l].update_all();
            c.lane_events[l].update_all();
            c.lane_sid[l].update_all();
            c.lane_ss[l].update_all();
            c.lane_nosid[l].update_all();
            c.lane_mpam[l].update_all();
        }
        c.pclk.update_all();
    }

    /// Settling iterations so far (both half cycles), for profiling.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }
}

impl Dut for NativeDut {
    fn step(&mut self, inp: &PinInputs) -> PinOutputs {
        let c = &mut self.core;
        c.presetn.next = inp.presetn;
        c.psel.next = inp.psel;
        c.penable.next = inp.penable;
        c.pwrite.next = inp.pwrite;
        c.paddr.next = (inp.paddr as u64).into();
        c.pwdata.next = (inp.pwdata as u64).into();
        c.pstrb.next = (inp.pstrb as u64).into();
        c.pprot.next = (inp.pprot as u64).into();
        c.pnse.next = inp.pnse;
        c.awready.next = inp.awready && self.msi;
        c.wready.next = inp.wready && self.msi;
        c.bvalid.next = inp.bvalid && self.msi;
        c.bresp.next = (if self.msi { inp.bresp as u64 & 3 } else { 0 }).into();
        c.capt_req.next = inp.capt_req;
        for (l, lane) in inp.lanes.iter().enumerate() {
            c.lane_valid[l].next = lane.valid;
            c.lane_events[l].next = (lane.events as u64).into();
            c.lane_sid[l].next = (lane.sid as u64).into();
            c.lane_ss[l].next = (lane.ss.code() as u64).into();
            c.lane_nosid[l].next = lane.nosid;
            c.lane_mpam[l].next =
                (lane_mpam_word(lane.partid, lane.pmg, lane.mpam_sp.code()) as u64).into();
        }
        c.pclk.next = Clock { clk: false };
        self.commit_inputs();
        self.settle();
        self.record(0);
        let c = &self.core;
        let mut out = PinOutputs {
            prdata: c.prdata.val().index() as u32,
            pready: c.pready.val(),
            pslverr: c.pslverr.val(),
            irq: c.irq.val(),
            capt_ack: c.capt_ack.val(),
            ovf_export: c.ovf_export.val().to_u64() & self.export_mask,
            ..Default::default()
        };
        if self.msi {
            let attr = c.msi_attr.val().index() as u64;
            out.awvalid = c.awvalid.val();
            out.awaddr = ((c.awaddr_hi.val().index() as u64) << 32
                | c.awaddr_lo.val().index() as u64)
                & self.awaddr_mask;
            out.awprot = c.awprot.val().index() as u8;
            out.wvalid = c.wvalid.val();
            out.wdata = c.wdata.val().index() as u32;
            out.wstrb = c.wstrb.val().index() as u8;
            out.bready = c.bready.val();
            out.msi_memattr = ((attr >> self.memattr.0) & self.memattr.1) as u8;
            out.msi_sh = ((attr >> self.sh.0) & self.sh.1) as u8;
            if self.msi_mpam {
                let mpam = c.msi_mpam.val().index() as u32;
                out.msi_partid = mpam as u16;
                out.msi_pmg = (mpam >> 16) as u8;
                out.msi_mpam_ns = mpam >> 24 & 1 != 0;
            }
        }
        self.core.pclk.next = Clock { clk: true };
        self.core.pclk.update_all();
        self.settle();
        self.record(1);
        self.cycle += 1;
        out
    }

    fn name(&self) -> &'static str {
        "native"
    }
}
