//! The shipped top module: AMBA-named, flat ports of exactly the configuration's widths, around
//! the rust-hdl core (whose port names carry rust-hdl's `$` and fixed maximum widths).
//!
//! ```text
//!   smmu_pmcg (this wrapper, ANSI ports)             smmu_pmcg_core (rust-hdl)
//!   PCLK PRESETn PSEL PENABLE PWRITE PADDR ...  ───►  pclk presetn psel penable ...
//!   LANE<l>_VALID  LANE<l>_EVENTS[E-1:0]        ───►  lane_valid$l lane_events$l[31:0] (zero-extended)
//!   PNSE (Realm only; else tied 0)              ───►  pnse
//!   LANE<l>_SID[S-1:0] LANE<l>_SS[2:0]          ───►  lane_sid$l[31:0] lane_ss$l
//!   LANE<l>_NOSID                               ───►  lane_nosid$l
//!   LANE<l>_PARTID[15:0] LANE<l>_PMG[7:0]
//!   LANE<l>_MPAM_SP[1:0] (MPAM filter only)     ───►  lane_mpam$l = {6'b0, SP, PMG, PARTID}
//!   IRQ                                         ◄───  irq
//!   AWADDR[pa_bits-1:0] AWPROT AWVALID WDATA WSTRB
//!   WVALID BREADY MSI_MEMATTR MSI_SH (MSI only)  ◄───  awaddr_hi/lo, ..., msi_attr (IRQ_CFG2)
//!   AWREADY WREADY BVALID BRESP (MSI only)       ───►  awready wready bvalid bresp (else tied 0)
//!   CAPT_REQ / CAPT_ACK (capture only)           ───► / ◄─── capt_req / capt_ack
//!   OVF_EXPORT[counters-1:0]                     ◄───  ovf_export[63:0]
//! ```
//! Core outputs arrive on `core_<port>` wires; an output port is an expression over them (a
//! slice of a fixed-width core port, or two core words joined).
//! E = number of lane events of the configuration, S = `sid_bits`. The wrapper is pure wiring.

use pmcg_hdl::config::{PmcgConfig, LANE_EVENT_BITS};

/// Direction of a port of the shipped top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
}

/// One port of the shipped top module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub dir: Dir,
    pub width: u32,
    /// The core port it connects to.
    pub core: String,
    pub doc: String,
}

fn port(name: impl Into<String>, dir: Dir, width: u32, core: impl Into<String>, doc: &str) -> Port {
    Port {
        name: name.into(),
        dir,
        width,
        core: core.into(),
        doc: doc.to_string(),
    }
}

/// The ports of the shipped top for `cfg`, in declaration order.
pub fn ports(cfg: &PmcgConfig) -> Vec<Port> {
    use Dir::*;
    let mut p = vec![
        port("PCLK", In, 1, "pclk", "APB clock; the PMCG's only clock"),
        port(
            "PRESETn",
            In,
            1,
            "presetn",
            "active-low reset, synchronous to PCLK",
        ),
        port("PSEL", In, 1, "psel", "APB select"),
        port("PENABLE", In, 1, "penable", "APB enable (access phase)"),
        port("PWRITE", In, 1, "pwrite", "APB write"),
        port(
            "PADDR",
            In,
            32,
            "paddr",
            "APB byte address: page 0 at 0, page 1 at page1_offset",
        ),
        port("PWDATA", In, 32, "pwdata", "APB write data"),
        port("PSTRB", In, 4, "pstrb", "APB write byte strobes"),
        port(
            "PPROT",
            In,
            3,
            "pprot",
            "APB protection; PPROT[1]=1 is a Non-secure access",
        ),
    ];
    if cfg.realm {
        p.push(port(
            "PNSE",
            In,
            1,
            "pnse",
            "APB5 PNSE: {PNSE, PPROT[1]} 00 Secure, 01 Non-secure, 10 Root, 11 Realm",
        ));
    }
    p.extend([
        port(
            "PRDATA",
            Out,
            32,
            "core_prdata",
            "APB read data in a read's access cycle, else 0",
        ),
        port(
            "PREADY",
            Out,
            1,
            "core_pready",
            "APB ready: 0 in a read's wait state and in the held cycles of a counter or shadow access (docs/behaviour.md), else 1",
        ),
        port(
            "PSLVERR",
            Out,
            1,
            "core_pslverr",
            "APB error: always 0 (RAZ/WI policy)",
        ),
        port(
            "IRQ",
            Out,
            1,
            "core_irq",
            "wired interrupt: one-cycle pulse per qualifying overflow edge",
        ),
    ]);
    if cfg.msi {
        let map = pmcg_hdl::regmap::RegisterMap::new(cfg);
        let cfg2 = map.reg(pmcg_hdl::regmap::RegId::IrqCfg2);
        let slice = |name: &str| {
            let f = cfg2.field(name).expect("IRQ_CFG2 field");
            format!("core_msi_attr[{}:{}]", f.lsb + f.width - 1, f.lsb)
        };
        p.extend([
            port("AWVALID", Out, 1, "core_awvalid", "MSI write address valid"),
            port("AWREADY", In, 1, "awready", "MSI write address ready"),
            port(
                "AWADDR",
                Out,
                cfg.pa_bits,
                format!("core_awaddr[{}:0]", cfg.pa_bits - 1),
                "MSI address: IRQ_CFG0.ADDR, 0 outside AWVALID",
            ),
            port(
                "AWPROT",
                Out,
                3,
                "core_awprot",
                "{data, NS = SCR.NSMSI|NSRA (1 without Secure), privileged}",
            ),
            port("WVALID", Out, 1, "core_wvalid", "MSI write data valid"),
            port("WREADY", In, 1, "wready", "MSI write data ready"),
            port(
                "WDATA",
                Out,
                32,
                "core_wdata",
                "MSI payload: IRQ_CFG1, 0 outside WVALID",
            ),
            port("WSTRB", Out, 4, "core_wstrb", "0xF with WVALID"),
            port("BVALID", In, 1, "bvalid", "MSI write response valid"),
            port("BREADY", Out, 1, "core_bready", "MSI write response ready"),
            port(
                "BRESP",
                In,
                2,
                "bresp",
                "MSI write response: SLVERR/DECERR set IRQ_STATUS.IRQ_ABT",
            ),
            port(
                "MSI_MEMATTR",
                Out,
                4,
                slice("MEMATTR"),
                "IRQ_CFG2.MEMATTR (AXI4-Lite has no AxCACHE)",
            ),
            port(
                "MSI_SH",
                Out,
                2,
                slice("SH"),
                "IRQ_CFG2.SH (AXI4-Lite has no AxDOMAIN)",
            ),
        ]);
    }
    if cfg.msi_mpam {
        p.extend([
            port(
                "MSI_PARTID",
                Out,
                16,
                "core_msi_mpam[15:0]",
                "GMPAM.PO_PARTID of the MSI, 0 outside AWVALID",
            ),
            port(
                "MSI_PMG",
                Out,
                8,
                "core_msi_mpam[23:16]",
                "GMPAM.PO_PMG of the MSI, 0 outside AWVALID",
            ),
            port(
                "MSI_MPAM_NS",
                Out,
                1,
                "core_msi_mpam[24]",
                "PARTID space of the MSI: 1 Non-secure (its AWPROT[1])",
            ),
        ]);
    }
    if cfg.capture {
        p.push(port(
            "CAPT_REQ",
            In,
            1,
            "capt_req",
            "external capture request (4-phase with CAPT_ACK)",
        ));
        p.push(port(
            "CAPT_ACK",
            Out,
            1,
            "core_capt_ack",
            "external capture acknowledge",
        ));
    }
    p.push(port(
        "OVF_EXPORT",
        Out,
        cfg.counters,
        if cfg.counters == 1 {
            "core_ovf_export[0]".to_string()
        } else {
            format!("core_ovf_export[{}:0]", cfg.counters - 1)
        },
        "bit n: counter n overflowed at the previous edge (export)",
    ));
    let events = cfg.lane_event_ids().len() as u32;
    for l in 0..cfg.lanes {
        p.push(port(
            format!("LANE{l}_VALID"),
            In,
            1,
            format!("lane_valid${l}"),
            "lane carries events this cycle",
        ));
        p.push(port(
            format!("LANE{l}_EVENTS"),
            In,
            events,
            format!("lane_events${l}"),
            "bit k: event lane_event_ids()[k] occurred",
        ));
        p.push(port(
            format!("LANE{l}_SID"),
            In,
            cfg.sid_bits,
            format!("lane_sid${l}"),
            "StreamID of the traffic",
        ));
        p.push(port(
            format!("LANE{l}_SS"),
            In,
            3,
            format!("lane_ss${l}"),
            "security state: 0 NS, 1 S, 2 Realm, 3 Root, 4 SA, 5 NSP",
        ));
        p.push(port(
            format!("LANE{l}_NOSID"),
            In,
            1,
            format!("lane_nosid${l}"),
            "NoStreamID access (10.4.2): SID ignored, SS is its PA space's state",
        ));
        if cfg.mpam_filter {
            // Packed into lane_mpam$l by `core_connections`.
            p.push(port(
                format!("LANE{l}_PARTID"),
                In,
                16,
                "",
                "MPAM PARTID of the traffic",
            ));
            p.push(port(
                format!("LANE{l}_PMG"),
                In,
                8,
                "",
                "MPAM PMG of the traffic",
            ));
            p.push(port(
                format!("LANE{l}_MPAM_SP"),
                In,
                2,
                "",
                "MPAM PARTID space: 0 Secure, 1 Non-secure, 2 Root, 3 Realm",
            ));
        }
    }
    p
}

/// Core inputs that are not one wrapper port each: (core port, Verilog expression). PNSE is
/// tied off without Realm; each lane's MPAM labels are packed (`config::lane_mpam_word`), or 0
/// without the MPAM filter.
pub fn core_connections(cfg: &PmcgConfig) -> Vec<(String, String)> {
    let mut c = Vec::new();
    if !cfg.realm {
        c.push(("pnse".to_string(), "1'b0".to_string()));
    }
    if !cfg.msi {
        for input in ["awready", "wready", "bvalid"] {
            c.push((input.to_string(), "1'b0".to_string()));
        }
        c.push(("bresp".to_string(), "2'b0".to_string()));
    }
    if !cfg.capture {
        c.push(("capt_req".to_string(), "1'b0".to_string()));
    }
    for l in 0..cfg.lanes {
        let expr = if cfg.mpam_filter {
            format!("{{6'b0, LANE{l}_MPAM_SP, LANE{l}_PMG, LANE{l}_PARTID}}")
        } else {
            "32'b0".to_string()
        };
        c.push((format!("lane_mpam${l}"), expr));
    }
    c
}

/// Every output of the core and its width: each lands on a wire `core_<name>`.
pub const CORE_OUTPUTS: [(&str, u32); 16] = [
    ("prdata", 32),
    ("pready", 1),
    ("pslverr", 1),
    ("irq", 1),
    ("awvalid", 1),
    ("awaddr_lo", 32),
    ("awaddr_hi", 32),
    ("awprot", 3),
    ("wvalid", 1),
    ("wdata", 32),
    ("wstrb", 4),
    ("bready", 1),
    ("msi_attr", 32),
    ("msi_mpam", 32),
    ("capt_ack", 1),
    ("ovf_export", 64),
];

/// Width of each core port the wrapper drives (rust-hdl's fixed widths).
fn core_width(core: &str) -> u32 {
    if core.starts_with("lane_events$") || core.starts_with("lane_sid$") {
        LANE_EVENT_BITS
    } else if core.starts_with("lane_ss$") {
        3
    } else {
        0 // same as the wrapper port
    }
}

fn range(width: u32) -> String {
    if width == 1 {
        String::new()
    } else {
        format!("[{}:0] ", width - 1)
    }
}

/// The wrapper module `top` instantiating the rust-hdl core module `core`.
pub fn wrapper_verilog(cfg: &PmcgConfig, top: &str, core: &str) -> String {
    let ports = ports(cfg);
    let mut v = String::new();
    v.push_str(&format!(
        "// {top}: AMBA-named top of the SMMUv3 PMCG ({}).\n",
        cfg.summary()
    ));
    v.push_str(&format!("module {top}(\n"));
    for (i, p) in ports.iter().enumerate() {
        let dir = match p.dir {
            Dir::In => "input  wire",
            Dir::Out => "output wire",
        };
        let sep = if i + 1 < ports.len() { "," } else { "" };
        let code = format!("    {dir} {:<8}{}{sep}", range(p.width), p.name);
        v.push_str(&format!("{code:<44} // {}\n", p.doc));
    }
    v.push_str(");\n");
    // Core outputs on wires; the bits a configuration leaves unused are only these wires'.
    for (name, width) in CORE_OUTPUTS {
        v.push_str(&format!("    wire {}core_{name};\n", range(width)));
    }
    v.push_str("    wire [63:0] core_awaddr = {core_awaddr_hi, core_awaddr_lo};\n");
    for p in ports.iter().filter(|p| p.dir == Dir::Out) {
        v.push_str(&format!("    assign {} = {};\n", p.name, p.core));
    }
    v.push_str(&format!("    {core} core (\n"));
    let mut conns: Vec<String> = ports
        .iter()
        .filter(|p| p.dir == Dir::In && !p.core.is_empty())
        .map(|p| {
            let cw = core_width(&p.core);
            let expr = if cw > p.width {
                format!("{{{}'b0, {}}}", cw - p.width, p.name)
            } else {
                p.name.clone()
            };
            format!("        .{}({})", p.core, expr)
        })
        .collect();
    conns.extend(
        core_connections(cfg)
            .into_iter()
            .map(|(core, expr)| format!("        .{core}({expr})")),
    );
    conns.extend(
        CORE_OUTPUTS
            .iter()
            .map(|(name, _)| format!("        .{name}(core_{name})")),
    );
    v.push_str(&conns.join(",\n"));
    v.push_str("\n    );\nendmodule\n");
    v
}
