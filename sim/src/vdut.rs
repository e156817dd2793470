//! `VerilatorDut`: the emitted Verilog, compiled by Verilator at run time, behind the same
//! pin-level [`Dut`] interface as the native simulation and the reference model.
//!
//! ```text
//!   PmcgConfig ──emit_verilog──► smmu_pmcg.v (AMBA-named wrapper + rust-hdl core) ──VerilatedModel::build (cached)──► libvdut.so
//!   pclk=0 eval ──► outputs (registered) ──► PinInputs via port pointers + pclk=1 ──► eval
//! ```

use crate::pins::{Dut, PinInputs, PinOutputs};
use crate::verilator::{VerilatedModel, VerilatorError};
use pmcg_hdl::config::PmcgConfig;
use std::path::PathBuf;

/// Where compiled models are cached: `$PMCG_VERILATOR_CACHE`, else `target/verilator-cache`
/// in the workspace.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("PMCG_VERILATOR_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/verilator-cache")
        })
}

/// Why the Verilator backend could not be built.
#[derive(Debug)]
pub enum VdutError {
    Emit(pmcg_synth::EmitError),
    Verilator(VerilatorError),
    /// A port the backend drives is missing from the emitted Verilog.
    MissingPort(String),
}

impl std::fmt::Display for VdutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VdutError::Emit(e) => write!(f, "{e}"),
            VdutError::Verilator(e) => write!(f, "{e}"),
            VdutError::MissingPort(p) => write!(f, "emitted Verilog has no port `{p}`"),
        }
    }
}

impl std::error::Error for VdutError {}

struct LanePorts {
    valid: usize,
    events: usize,
    sid: usize,
    ss: usize,
    nosid: usize,
    /// Present with the MPAM filter only.
    mpam: Option<MpamPorts>,
}

struct MpamPorts {
    partid: usize,
    pmg: usize,
    space: usize,
}

/// The MSI master's ports (with MSI only).
struct MsiPorts {
    awready: usize,
    wready: usize,
    bvalid: usize,
    bresp: usize,
    awvalid: usize,
    awaddr: usize,
    awprot: usize,
    wvalid: usize,
    wdata: usize,
    wstrb: usize,
    bready: usize,
    memattr: usize,
    sh: usize,
    /// MSI_PARTID, MSI_PMG, MSI_MPAM_NS (with CFGR.MPAM only).
    mpam: Option<(usize, usize, usize)>,
}

pub struct VerilatorDut {
    msi: Option<MsiPorts>,
    /// CAPT_REQ and CAPT_ACK (with capture only).
    capture: Option<(usize, usize)>,
    ovf_export: usize,
    model: VerilatedModel,
    pclk: usize,
    presetn: usize,
    psel: usize,
    penable: usize,
    pwrite: usize,
    paddr: usize,
    pwdata: usize,
    pstrb: usize,
    pprot: usize,
    /// Present with Realm only.
    pnse: Option<usize>,
    prdata: usize,
    pready: usize,
    pslverr: usize,
    irq: usize,
    lanes: Vec<LanePorts>,
}

impl VerilatorDut {
    /// Emits the Verilog of `cfg`, builds (or reuses) its Verilator model and wires the ports.
    pub fn new(cfg: &PmcgConfig) -> Result<Self, VdutError> {
        let top = pmcg_synth::DEFAULT_TOP;
        let verilog = pmcg_synth::emit_verilog(cfg, top).map_err(VdutError::Emit)?;
        let model =
            VerilatedModel::build(&verilog, top, &cache_dir()).map_err(VdutError::Verilator)?;
        let port = |name: &str| {
            model
                .port(name)
                .ok_or_else(|| VdutError::MissingPort(name.into()))
        };
        let lanes = (0..cfg.lanes)
            .map(|l| {
                Ok(LanePorts {
                    valid: port(&format!("LANE{l}_VALID"))?,
                    events: port(&format!("LANE{l}_EVENTS"))?,
                    sid: port(&format!("LANE{l}_SID"))?,
                    ss: port(&format!("LANE{l}_SS"))?,
                    nosid: port(&format!("LANE{l}_NOSID"))?,
                    mpam: if cfg.mpam_filter {
                        Some(MpamPorts {
                            partid: port(&format!("LANE{l}_PARTID"))?,
                            pmg: port(&format!("LANE{l}_PMG"))?,
                            space: port(&format!("LANE{l}_MPAM_SP"))?,
                        })
                    } else {
                        None
                    },
                })
            })
            .collect::<Result<Vec<_>, VdutError>>()?;
        let msi = if cfg.msi {
            Some(MsiPorts {
                awready: port("AWREADY")?,
                wready: port("WREADY")?,
                bvalid: port("BVALID")?,
                bresp: port("BRESP")?,
                awvalid: port("AWVALID")?,
                awaddr: port("AWADDR")?,
                awprot: port("AWPROT")?,
                wvalid: port("WVALID")?,
                wdata: port("WDATA")?,
                wstrb: port("WSTRB")?,
                bready: port("BREADY")?,
                memattr: port("MSI_MEMATTR")?,
                sh: port("MSI_SH")?,
                mpam: if cfg.msi_mpam {
                    Some((port("MSI_PARTID")?, port("MSI_PMG")?, port("MSI_MPAM_NS")?))
                } else {
                    None
                },
            })
        } else {
            None
        };
        let capture = if cfg.capture {
            Some((port("CAPT_REQ")?, port("CAPT_ACK")?))
        } else {
            None
        };
        Ok(VerilatorDut {
            msi,
            capture,
            ovf_export: port("OVF_EXPORT")?,
            pclk: port("PCLK")?,
            presetn: port("PRESETn")?,
            psel: port("PSEL")?,
            penable: port("PENABLE")?,
            pwrite: port("PWRITE")?,
            paddr: port("PADDR")?,
            pwdata: port("PWDATA")?,
            pstrb: port("PSTRB")?,
            pprot: port("PPROT")?,
            pnse: if cfg.realm { Some(port("PNSE")?) } else { None },
            prdata: port("PRDATA")?,
            pready: port("PREADY")?,
            pslverr: port("PSLVERR")?,
            irq: port("IRQ")?,
            lanes,
            model,
        })
    }
}

impl Dut for VerilatorDut {
    fn step(&mut self, inp: &PinInputs) -> PinOutputs {
        let m = &mut self.model;
        // The low phase with the previous cycle's inputs: nothing but the clock changes, so this
        // evaluation is cheap; it lets Verilator see the next rising edge.
        m.set(self.pclk, 0);
        m.eval();
        // Every output depends on registers only (docs/behaviour.md), so the outputs during this
        // cycle are readable before its inputs are applied.
        let mut out = PinOutputs {
            prdata: m.get(self.prdata) as u32,
            pready: m.get(self.pready) != 0,
            pslverr: m.get(self.pslverr) != 0,
            irq: m.get(self.irq) != 0,
            ovf_export: m.get(self.ovf_export),
            ..Default::default()
        };
        if let Some(p) = &self.msi {
            out.awvalid = m.get(p.awvalid) != 0;
            out.awaddr = m.get(p.awaddr);
            out.awprot = m.get(p.awprot) as u8;
            out.wvalid = m.get(p.wvalid) != 0;
            out.wdata = m.get(p.wdata) as u32;
            out.wstrb = m.get(p.wstrb) as u8;
            out.bready = m.get(p.bready) != 0;
            out.msi_memattr = m.get(p.memattr) as u8;
            out.msi_sh = m.get(p.sh) as u8;
            if let Some((partid, pmg, ns)) = p.mpam {
                out.msi_partid = m.get(partid) as u16;
                out.msi_pmg = m.get(pmg) as u8;
                out.msi_mpam_ns = m.get(ns) != 0;
            }
            m.set(p.awready, inp.awready as u64);
            m.set(p.wready, inp.wready as u64);
            m.set(p.bvalid, inp.bvalid as u64);
            m.set(p.bresp, inp.bresp as u64);
        }
        if let Some((req, ack)) = self.capture {
            out.capt_ack = m.get(ack) != 0;
            m.set(req, inp.capt_req as u64);
        }
        m.set(self.presetn, inp.presetn as u64);
        m.set(self.psel, inp.psel as u64);
        m.set(self.penable, inp.penable as u64);
        m.set(self.pwrite, inp.pwrite as u64);
        m.set(self.paddr, inp.paddr as u64);
        m.set(self.pwdata, inp.pwdata as u64);
        m.set(self.pstrb, inp.pstrb as u64);
        m.set(self.pprot, inp.pprot as u64);
        if let Some(pnse) = self.pnse {
            m.set(pnse, inp.pnse as u64);
        }
        for (ports, lane) in self.lanes.iter().zip(&inp.lanes) {
            m.set(ports.valid, lane.valid as u64);
            m.set(ports.events, lane.events as u64);
            m.set(ports.sid, lane.sid as u64);
            m.set(ports.ss, lane.ss.code() as u64);
            m.set(ports.nosid, lane.nosid as u64);
            if let Some(mp) = &ports.mpam {
                m.set(mp.partid, lane.partid as u64);
                m.set(mp.pmg, lane.pmg as u64);
                m.set(mp.space, lane.mpam_sp.code() as u64);
            }
        }
        // The inputs and the rising edge in one evaluation: Verilator settles the logic that
        // depends on the inputs before the edge's flip-flops sample it.
        m.set(self.pclk, 1);
        m.eval();
        out
    }

    fn name(&self) -> &'static str {
        "verilator"
    }
}
