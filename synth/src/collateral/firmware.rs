//! How an operating system finds the PMCG: `<top>.dts`, a devicetree node for Linux's
//! `arm,smmu-v3-pmcg` binding, and `<top>_iort.asl`, an ACPI IORT with a PMCG node (node
//! revision 1, which carries the Page 1 base address), in iasl's data-table source format.
//!
//! ```text
//!   <top>.dts:       / { gic (placeholder) { its }; pmu@BASE { compatible, reg = page 0 [, page 1],
//!                                                              interrupts (edge rising), msi-parent } }
//!   <top>_iort.asl:  IORT header, ITS group node, SMMUv3 node (placeholder), PMCG node -> SMMUv3,
//!                    PMCG ID mapping -> ITS (with MSI)
//! ```
//! Base addresses, the interrupt number and the placeholder GIC/ITS/SMMU are examples
//! ([`super::EXAMPLE_BASE`], [`super::EXAMPLE_SPI`]): an integrator replaces them with the SoC's.

use super::{banner, EXAMPLE_BASE, EXAMPLE_SPI};
use pmcg_hdl::config::PmcgConfig;
use std::fmt::Write;

/// Example MSI DeviceID of the PMCG (the ITS input ID the integrator assigns).
pub const EXAMPLE_DEVICE_ID: u32 = 0x10000;
/// Example SMMUv3 base address the IORT's PMCG node refers to.
pub const EXAMPLE_SMMU_BASE: u64 = 0x2B40_0000;
const GIC_BASE: u64 = 0x2F00_0000;
const ITS_BASE: u64 = 0x2F02_0000;

fn cells(v: u64) -> String {
    format!("0x{:x} 0x{:x}", v >> 32, v & 0xFFFF_FFFF)
}

/// The devicetree source of `cfg` (a whole tree, so that `dtc` compiles it on its own).
pub fn dts(cfg: &PmcgConfig, _top: &str) -> String {
    let mut o = String::new();
    for line in banner(cfg).lines() {
        writeln!(o, "// {line}").unwrap();
    }
    o += "// The pmu node is what an SoC's devicetree needs; the interrupt controller is a placeholder.\n";
    o += "/dts-v1/;\n\n/ {\n\t#address-cells = <2>;\n\t#size-cells = <2>;\n\tinterrupt-parent = <&gic>;\n\n";
    writeln!(
        o,
        "\tgic: interrupt-controller@{GIC_BASE:x} {{\n\t\tcompatible = \"arm,gic-v3\";\n\t\t#interrupt-cells = <3>;\n\t\t#address-cells = <2>;\n\t\t#size-cells = <2>;\n\t\tranges;\n\t\tinterrupt-controller;\n\t\treg = <{} 0x0 0x10000>, <{} 0x0 0x200000>;\n\n\t\tits: msi-controller@{ITS_BASE:x} {{\n\t\t\tcompatible = \"arm,gic-v3-its\";\n\t\t\tmsi-controller;\n\t\t\t#msi-cells = <1>;\n\t\t\treg = <{} 0x0 0x20000>;\n\t\t}};\n\t}};\n",
        cells(GIC_BASE),
        cells(GIC_BASE + 0x10_0000),
        cells(ITS_BASE)
    )
    .unwrap();
    writeln!(
        o,
        "\tpmu@{EXAMPLE_BASE:x} {{\n\t\tcompatible = \"arm,smmu-v3-pmcg\";"
    )
    .unwrap();
    if cfg.reloc_ctrs {
        writeln!(
            o,
            "\t\t/* page 0, page 1 (CFGR.RELOC_CTRS = 1) */\n\t\treg = <{} 0x0 0x1000>,\n\t\t      <{} 0x0 0x1000>;",
            cells(EXAMPLE_BASE),
            cells(EXAMPLE_BASE + cfg.page1_offset as u64)
        )
        .unwrap();
    } else {
        writeln!(
            o,
            "\t\t/* page 0 only (CFGR.RELOC_CTRS = 0) */\n\t\treg = <{} 0x0 0x1000>;",
            cells(EXAMPLE_BASE)
        )
        .unwrap();
    }
    writeln!(
        o,
        "\t\t/* GIC_SPI {EXAMPLE_SPI}, IRQ_TYPE_EDGE_RISING: IRQ is a one-cycle pulse */\n\t\tinterrupts = <0 {EXAMPLE_SPI} 1>;"
    )
    .unwrap();
    if cfg.msi {
        writeln!(o, "\t\tmsi-parent = <&its 0x{EXAMPLE_DEVICE_ID:x}>;").unwrap();
    }
    o += "\t};\n};\n";
    o
}

/// The IORT data-table source of `cfg` (iasl computes the table length and checksum).
pub fn iort(cfg: &PmcgConfig, _top: &str) -> String {
    const HEADER: u32 = 0x34; // table header, node count/offset, reserved, padding
    const ITS_LEN: u32 = 0x18;
    const SMMU_LEN: u32 = 0x44; // SMMUv3 node revision 1, no ID mappings
    const PMCG_LEN: u32 = 0x28;
    const MAPPING_LEN: u32 = 0x14;
    let its_off = HEADER;
    let smmu_off = its_off + ITS_LEN;
    let mappings = cfg.msi as u32;
    let pmcg_len = PMCG_LEN + MAPPING_LEN * mappings;
    let page1 = if cfg.reloc_ctrs {
        EXAMPLE_BASE + cfg.page1_offset as u64
    } else {
        0
    };
    let mut o = String::from("/*\n");
    for line in banner(cfg).lines() {
        writeln!(o, " * {line}").unwrap();
    }
    o += " * IORT with the PMCG node an OS needs (compile: iasl FILE). The ITS group and the SMMUv3\n";
    o += " * node are placeholders for the SoC's own; base addresses and the GSIV are examples.\n */\n";
    let field = |o: &mut String, bytes: u32, name: &str, value: String| {
        writeln!(o, "[{bytes:04}] {name:>34} : {value}").unwrap();
    };
    field(&mut o, 4, "Signature", "\"IORT\"".into());
    field(&mut o, 4, "Table Length", "00000000".into());
    field(&mut o, 1, "Revision", "00".into());
    field(&mut o, 1, "Checksum", "00".into());
    field(&mut o, 6, "Oem ID", "\"SMMUPM\"".into());
    field(&mut o, 8, "Oem Table ID", "\"PMCG    \"".into());
    field(&mut o, 4, "Oem Revision", "00000001".into());
    field(&mut o, 4, "Asl Compiler ID", "\"INTL\"".into());
    field(&mut o, 4, "Asl Compiler Revision", "00000000".into());
    o += "\n";
    field(&mut o, 4, "Node Count", "00000003".into());
    field(&mut o, 4, "Node Offset", format!("{HEADER:08X}"));
    field(&mut o, 4, "Reserved", "00000000".into());
    field(&mut o, 4, "Optional Padding", "00 00 00 00".into());
    o += "\n/* ITS group (placeholder) */\n";
    field(&mut o, 1, "Type", "00".into());
    field(&mut o, 2, "Length", format!("{ITS_LEN:04X}"));
    field(&mut o, 1, "Revision", "00".into());
    field(&mut o, 4, "Reserved", "00000000".into());
    field(&mut o, 4, "Mapping Count", "00000000".into());
    field(&mut o, 4, "Mapping Offset", "00000000".into());
    o += "\n";
    field(&mut o, 4, "ItsCount", "00000001".into());
    field(&mut o, 4, "Identifiers", "00000000".into());
    o += "\n/* SMMUv3 (placeholder): the SMMU this PMCG monitors */\n";
    field(&mut o, 1, "Type", "04".into());
    field(&mut o, 2, "Length", format!("{SMMU_LEN:04X}"));
    field(&mut o, 1, "Revision", "01".into());
    field(&mut o, 4, "Reserved", "00000000".into());
    field(&mut o, 4, "Mapping Count", "00000000".into());
    field(&mut o, 4, "Mapping Offset", "00000000".into());
    o += "\n";
    field(
        &mut o,
        8,
        "Base Address",
        format!("{EXAMPLE_SMMU_BASE:016X}"),
    );
    field(&mut o, 4, "Flags (decoded below)", "00000000".into());
    for bit in ["COHACC Override", "HTTU Override", "Proximity Domain Valid"] {
        writeln!(o, "{:>45} : 0", bit).unwrap();
    }
    field(&mut o, 4, "Reserved", "00000000".into());
    field(&mut o, 8, "VATOS Address", "0000000000000000".into());
    field(&mut o, 4, "Model", "00000000".into());
    for name in [
        "Event GSIV",
        "PRI GSIV",
        "GERR GSIV",
        "Sync GSIV",
        "Proximity Domain",
        "Device ID Mapping Index",
    ] {
        field(&mut o, 4, name, "00000000".into());
    }
    o += "\n/* PMCG (node revision 1: Page 1 Base Address) */\n";
    field(&mut o, 1, "Type", "05".into());
    field(&mut o, 2, "Length", format!("{pmcg_len:04X}"));
    field(&mut o, 1, "Revision", "01".into());
    field(&mut o, 4, "Reserved", "00000000".into());
    field(&mut o, 4, "Mapping Count", format!("{mappings:08X}"));
    let map_off = if mappings > 0 { PMCG_LEN } else { 0 };
    field(&mut o, 4, "Mapping Offset", format!("{map_off:08X}"));
    o += "\n";
    field(
        &mut o,
        8,
        "Page 0 Base Address",
        format!("{EXAMPLE_BASE:016X}"),
    );
    // GSIV = SPI number + 32.
    field(
        &mut o,
        4,
        "Overflow Interrupt GSIV",
        format!("{:08X}", EXAMPLE_SPI + 32),
    );
    field(&mut o, 4, "Node Reference", format!("{smmu_off:08X}"));
    field(&mut o, 8, "Page 1 Base Address", format!("{page1:016X}"));
    if cfg.msi {
        o += "\n/* MSIs: DeviceID to the ITS group */\n";
        field(&mut o, 4, "Input base", "00000000".into());
        field(&mut o, 4, "ID Count", "00000000".into());
        field(&mut o, 4, "Output Base", format!("{EXAMPLE_DEVICE_ID:08X}"));
        field(&mut o, 4, "Output Reference", format!("{its_off:08X}"));
        field(&mut o, 4, "Flags (decoded below)", "00000001".into());
        writeln!(o, "{:>45} : 1", "Single Mapping").unwrap();
    }
    o
}
