//! `<top>_regs.h`: a C header for firmware and drivers (C99, no includes, so it also fits the
//! Linux kernel): per register `<P>_<REG>_OFFSET` (APB byte address), `_PAGE`, `_RESET`; per field
//! `_SHIFT`, `_WIDTH`, `_MASK`; array helpers `<P>_EVCNTR(n)`; configuration constants.
//!
//! ```text
//!   #define SMMU_PMCG_CFGR_OFFSET        0xe00u
//!   #define SMMU_PMCG_CFGR_NCTR_SHIFT    0u
//!   #define SMMU_PMCG_CFGR_NCTR_MASK     0x3fu
//!   #define SMMU_PMCG_EVCNTR(n)          (0x10000u + (n) * 8u)
//! ```
//! Masks of 64-bit registers carry `ull`; every constant is unsigned.

use super::{banner, registers};
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::{RegId, RegisterMap};
use std::fmt::Write;

fn lit(value: u64, wide: bool) -> String {
    if wide {
        format!("0x{value:x}ull")
    } else {
        format!("0x{value:x}u")
    }
}

/// The C header of `map`, macros prefixed with the top name in upper case.
pub fn header(cfg: &PmcgConfig, map: &RegisterMap, top: &str) -> String {
    let p = top.to_ascii_uppercase();
    let guard = format!("{p}_REGS_H");
    let mut o = String::from("/*\n");
    for line in banner(cfg).lines() {
        writeln!(o, " * {line}").unwrap();
    }
    o += " *\n * Offsets are APB byte addresses (page 1 registers include the page 1 offset).\n";
    o += " * A 64-bit register is two 32-bit words, low word at _OFFSET.\n */\n";
    writeln!(o, "#ifndef {guard}\n#define {guard}\n").unwrap();
    let consts = [
        ("COUNTERS", cfg.counters as u64),
        ("COUNTER_BITS", cfg.counter_bits as u64),
        ("SID_BITS", cfg.sid_bits as u64),
        ("LANES", cfg.lanes as u64),
        ("CAPTURE", cfg.capture as u64),
        ("MSI", cfg.msi as u64),
        ("SECURE", cfg.secure as u64),
        ("REALM", cfg.realm as u64),
        ("MPAM_FILTER", cfg.mpam_filter as u64),
        ("MSI_MPAM", cfg.msi_mpam as u64),
        ("RELOC_CTRS", cfg.reloc_ctrs as u64),
        ("PA_BITS", cfg.pa_bits as u64),
        ("PAGE1_OFFSET", map.page1_base as u64),
        ("COUNTER_STRIDE", map.counter_stride as u64),
    ];
    o += "/* Configuration */\n";
    for (name, value) in consts {
        writeln!(o, "#define {p}_CFG_{name} {}", lit(value, false)).unwrap();
    }
    o += "\n/* Register arrays: element n of 0 .. COUNTERS-1 */\n";
    for (name, id, stride) in [
        ("EVCNTR", RegId::Evcntr(0), map.counter_stride),
        ("EVTYPER", RegId::Evtyper(0), 4),
        ("SVR", RegId::Svr(0), map.counter_stride),
        ("SMR", RegId::Smr(0), 4),
    ] {
        if map.get(id).is_some() {
            writeln!(
                o,
                "#define {p}_{name}(n) ({} + (n) * {})",
                lit(map.array_base(id) as u64, false),
                lit(stride as u64, false)
            )
            .unwrap();
        }
    }
    for r in registers(map) {
        let wide = r.reg.bits == 64;
        let n = format!("{p}_{}", r.name);
        writeln!(
            o,
            "\n/* {} ({}): {} */",
            r.reg.name,
            r.reg.id.spec_section(),
            r.description
        )
        .unwrap();
        writeln!(o, "#define {n}_OFFSET {}", lit(r.reg.addr as u64, false)).unwrap();
        writeln!(o, "#define {n}_PAGE {}", lit(r.reg.page as u64, false)).unwrap();
        writeln!(o, "#define {n}_RESET {}", lit(r.reg.reset(), wide)).unwrap();
        for f in &r.fields {
            let fname = format!("{n}_{}", f.field.name.to_ascii_uppercase());
            writeln!(
                o,
                "#define {fname}_SHIFT {}",
                lit(f.field.lsb as u64, false)
            )
            .unwrap();
            writeln!(
                o,
                "#define {fname}_WIDTH {}",
                lit(f.field.width as u64, false)
            )
            .unwrap();
            writeln!(o, "#define {fname}_MASK {}", lit(f.field.mask(), wide)).unwrap();
        }
    }
    writeln!(o, "\n#endif /* {guard} */").unwrap();
    o
}
