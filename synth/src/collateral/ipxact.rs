//! `<top>.xml`: an IEEE 1685-2014 (IP-XACT) component: the register map as one memory map with
//! an address block per page, the ports of the shipped top, the APB completer and the AXI4-Lite
//! MSI manager as bus interfaces referring to Arm's AMBA4 bus definitions, and the Verilog file.
//!
//! ```text
//!   component <top>
//!     busInterfaces: apb (slave of memoryMap "registers", amba.com:AMBA4:APB4:r0p0_0)
//!                    msi (master of addressSpace "msi", amba.com:AMBA4:AXI4Lite:r0p0_0)
//!     addressSpaces: msi (2^pa_bits bytes)
//!     memoryMaps:    registers { page0 @ 0, page1 @ page1_offset }
//!     model:         view rtl -> componentInstantiation verilog (module <top>), ports
//!     fileSets:      rtl = <top>.v
//! ```
//! Access: RW read-write, RO read-only, WO write-only, W1S read-write + modifiedWriteValue
//! oneToSet, W1C read-write + oneToClear. Numbers are SystemVerilog literals ('h...), as the
//! 2014 standard's expressions are.

use super::{banner, registers};
use crate::wrapper::{ports, Dir};
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::{Access, RegisterMap};
use std::fmt::Write;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// (logical port of the bus definition, physical port of the top).
type PortMap = Vec<(String, String)>;

/// The APB4 and AXI4-Lite logical ports and the physical ports they map to (those present).
fn port_maps(cfg: &PmcgConfig, names: &[&str]) -> (PortMap, PortMap) {
    let have = |p: &str| names.contains(&p);
    let apb: Vec<(String, String)> = [
        "PCLK", "PRESETn", "PADDR", "PSEL", "PENABLE", "PWRITE", "PWDATA", "PSTRB", "PPROT",
        "PRDATA", "PREADY", "PSLVERR",
    ]
    .iter()
    .filter(|p| have(p))
    .map(|p| (p.to_string(), p.to_string()))
    .collect();
    let mut axi = Vec::new();
    if cfg.msi {
        axi.push(("ACLK".to_string(), "PCLK".to_string()));
        axi.push(("ARESETn".to_string(), "PRESETn".to_string()));
        for p in [
            "AWADDR", "AWPROT", "AWVALID", "AWREADY", "WDATA", "WSTRB", "WVALID", "WREADY",
            "BRESP", "BVALID", "BREADY",
        ] {
            if have(p) {
                axi.push((p.to_string(), p.to_string()));
            }
        }
    }
    (apb, axi)
}

fn bus_interface(
    o: &mut String,
    name: &str,
    (lib, bus, abs): (&str, &str, &str),
    maps: &[(String, String)],
    role: &str,
) {
    writeln!(
        o,
        "    <ipxact:busInterface>\n      <ipxact:name>{name}</ipxact:name>"
    )
    .unwrap();
    writeln!(
        o,
        "      <ipxact:busType vendor=\"amba.com\" library=\"{lib}\" name=\"{bus}\" version=\"r0p0_0\"/>"
    )
    .unwrap();
    o.push_str("      <ipxact:abstractionTypes>\n        <ipxact:abstractionType>\n");
    writeln!(
        o,
        "          <ipxact:abstractionRef vendor=\"amba.com\" library=\"{lib}\" name=\"{abs}\" version=\"r0p0_0\"/>"
    )
    .unwrap();
    o.push_str("          <ipxact:portMaps>\n");
    for (logical, physical) in maps {
        writeln!(
            o,
            "            <ipxact:portMap>\n              <ipxact:logicalPort><ipxact:name>{logical}</ipxact:name></ipxact:logicalPort>\n              <ipxact:physicalPort><ipxact:name>{physical}</ipxact:name></ipxact:physicalPort>\n            </ipxact:portMap>"
        )
        .unwrap();
    }
    o.push_str("          </ipxact:portMaps>\n        </ipxact:abstractionType>\n      </ipxact:abstractionTypes>\n");
    o.push_str(role);
    o.push_str("    </ipxact:busInterface>\n");
}

/// The IP-XACT component of `cfg`.
pub fn ipxact(cfg: &PmcgConfig, map: &RegisterMap, top: &str) -> String {
    let mut o = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!--\n");
    for line in banner(cfg).lines() {
        writeln!(o, "  {}", esc(line).replace("--", "- -")).unwrap();
    }
    o += "-->\n";
    o += "<ipxact:component xmlns:ipxact=\"http://www.accellera.org/XMLSchema/IPXACT/1685-2014\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://www.accellera.org/XMLSchema/IPXACT/1685-2014 http://www.accellera.org/XMLSchema/IPXACT/1685-2014/index.xsd\">\n";
    writeln!(
        o,
        "  <ipxact:vendor>smmu-pmcg</ipxact:vendor>\n  <ipxact:library>pmcg</ipxact:library>\n  <ipxact:name>{top}</ipxact:name>\n  <ipxact:version>{}</ipxact:version>",
        env!("CARGO_PKG_VERSION")
    )
    .unwrap();
    let all_ports = ports(cfg);
    let names: Vec<&str> = all_ports.iter().map(|p| p.name.as_str()).collect();
    let (apb, axi) = port_maps(cfg, &names);
    o += "  <ipxact:busInterfaces>\n";
    bus_interface(
        &mut o,
        "apb",
        ("AMBA4", "APB4", "APB4_rtl"),
        &apb,
        "      <ipxact:slave>\n        <ipxact:memoryMapRef memoryMapRef=\"registers\"/>\n      </ipxact:slave>\n",
    );
    if cfg.msi {
        bus_interface(
            &mut o,
            "msi",
            ("AMBA4", "AXI4Lite", "AXI4Lite_rtl"),
            &axi,
            "      <ipxact:master>\n        <ipxact:addressSpaceRef addressSpaceRef=\"msi\"/>\n      </ipxact:master>\n",
        );
    }
    o += "  </ipxact:busInterfaces>\n";
    if cfg.msi {
        writeln!(
            o,
            "  <ipxact:addressSpaces>\n    <ipxact:addressSpace>\n      <ipxact:name>msi</ipxact:name>\n      <ipxact:description>MSI writes: IRQ_CFG0.ADDR, {} address bits</ipxact:description>\n      <ipxact:range>'h{:x}</ipxact:range>\n      <ipxact:width>32</ipxact:width>\n    </ipxact:addressSpace>\n  </ipxact:addressSpaces>",
            cfg.pa_bits,
            1u64 << cfg.pa_bits
        )
        .unwrap();
    }
    o += "  <ipxact:memoryMaps>\n    <ipxact:memoryMap>\n      <ipxact:name>registers</ipxact:name>\n";
    let regs = registers(map);
    for page in [0u32, 1] {
        let in_page: Vec<_> = regs.iter().filter(|r| r.reg.page == page).collect();
        if in_page.is_empty() {
            continue;
        }
        let base = if page == 1 { map.page1_base } else { 0 };
        writeln!(
            o,
            "      <ipxact:addressBlock>\n        <ipxact:name>page{page}</ipxact:name>\n        <ipxact:description>Register page {page}</ipxact:description>\n        <ipxact:baseAddress>'h{base:x}</ipxact:baseAddress>\n        <ipxact:range>'h1000</ipxact:range>\n        <ipxact:width>32</ipxact:width>\n        <ipxact:usage>register</ipxact:usage>"
        )
        .unwrap();
        for r in in_page {
            writeln!(
                o,
                "        <ipxact:register>\n          <ipxact:name>{}</ipxact:name>\n          <ipxact:description>{} (spec {})</ipxact:description>\n          <ipxact:addressOffset>'h{:x}</ipxact:addressOffset>\n          <ipxact:size>{}</ipxact:size>",
                r.name,
                esc(&r.description),
                r.reg.id.spec_section(),
                r.offset,
                r.reg.bits
            )
            .unwrap();
            for cf in &r.fields {
                let f = cf.field;
                let (access, mwv) = match f.access {
                    Access::RW => ("read-write", None),
                    Access::RO => ("read-only", None),
                    Access::WO => ("write-only", None),
                    Access::W1S => ("read-write", Some("oneToSet")),
                    Access::W1C => ("read-write", Some("oneToClear")),
                };
                writeln!(
                    o,
                    "          <ipxact:field>\n            <ipxact:name>{}</ipxact:name>\n            <ipxact:description>{}</ipxact:description>\n            <ipxact:bitOffset>{}</ipxact:bitOffset>\n            <ipxact:resets>\n              <ipxact:reset>\n                <ipxact:value>'h{:x}</ipxact:value>\n              </ipxact:reset>\n            </ipxact:resets>\n            <ipxact:bitWidth>{}</ipxact:bitWidth>\n            <ipxact:access>{access}</ipxact:access>",
                    f.name,
                    esc(&cf.description),
                    f.lsb,
                    f.reset,
                    f.width
                )
                .unwrap();
                if let Some(m) = mwv {
                    writeln!(
                        o,
                        "            <ipxact:modifiedWriteValue>{m}</ipxact:modifiedWriteValue>"
                    )
                    .unwrap();
                }
                o += "          </ipxact:field>\n";
            }
            o += "        </ipxact:register>\n";
        }
        o += "      </ipxact:addressBlock>\n";
    }
    o += "      <ipxact:addressUnitBits>8</ipxact:addressUnitBits>\n    </ipxact:memoryMap>\n  </ipxact:memoryMaps>\n";
    writeln!(
        o,
        "  <ipxact:model>\n    <ipxact:views>\n      <ipxact:view>\n        <ipxact:name>rtl</ipxact:name>\n        <ipxact:componentInstantiationRef>verilog</ipxact:componentInstantiationRef>\n      </ipxact:view>\n    </ipxact:views>\n    <ipxact:instantiations>\n      <ipxact:componentInstantiation>\n        <ipxact:name>verilog</ipxact:name>\n        <ipxact:language>verilog</ipxact:language>\n        <ipxact:moduleName>{top}</ipxact:moduleName>\n        <ipxact:fileSetRef>\n          <ipxact:localName>rtl</ipxact:localName>\n        </ipxact:fileSetRef>\n      </ipxact:componentInstantiation>\n    </ipxact:instantiations>\n    <ipxact:ports>"
    )
    .unwrap();
    for p in &all_ports {
        let dir = match p.dir {
            Dir::In => "in",
            Dir::Out => "out",
        };
        write!(
            o,
            "      <ipxact:port>\n        <ipxact:name>{}</ipxact:name>\n        <ipxact:description>{}</ipxact:description>\n        <ipxact:wire>\n          <ipxact:direction>{dir}</ipxact:direction>\n",
            p.name,
            esc(&p.doc)
        )
        .unwrap();
        if p.width > 1 {
            writeln!(
                o,
                "          <ipxact:vectors>\n            <ipxact:vector>\n              <ipxact:left>{}</ipxact:left>\n              <ipxact:right>0</ipxact:right>\n            </ipxact:vector>\n          </ipxact:vectors>",
                p.width - 1
            )
            .unwrap();
        }
        o += "        </ipxact:wire>\n      </ipxact:port>\n";
    }
    o += "    </ipxact:ports>\n  </ipxact:model>\n";
    writeln!(
        o,
        "  <ipxact:fileSets>\n    <ipxact:fileSet>\n      <ipxact:name>rtl</ipxact:name>\n      <ipxact:file>\n        <ipxact:name>{top}.v</ipxact:name>\n        <ipxact:fileType>verilogSource</ipxact:fileType>\n      </ipxact:file>\n    </ipxact:fileSet>\n  </ipxact:fileSets>"
    )
    .unwrap();
    writeln!(
        o,
        "  <ipxact:description>SMMUv3 Performance Monitor Counter Group ({})</ipxact:description>",
        esc(&cfg.summary())
    )
    .unwrap();
    o += "</ipxact:component>\n";
    o
}
