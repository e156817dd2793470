//! `<top>_registers.md` (register reference: one table per register) and `<top>.regs.json` (the
//! resolved map as data: every register, including field-less ones and overlapping views).
//!
//! ```text
//!   ## SMMU_PMCG_CFGR (0xe00, page 0, 32 bits, reset 0x00703f3f)   spec 10.5.2.13
//!   | Bits | Field | Access | Reset | Description |
//! ```

use super::{banner, bit_range, registers};
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::RegisterMap;
use std::fmt::Write;

/// The Markdown register reference of `map`.
pub fn markdown(cfg: &PmcgConfig, map: &RegisterMap, top: &str) -> String {
    let mut o = format!("# `{top}` register reference\n\n");
    for line in banner(cfg).lines() {
        writeln!(o, "> {line}").unwrap();
    }
    writeln!(
        o,
        "\nAddresses are APB byte addresses: page 0 at 0x0, page 1 at {:#x}. A 64-bit register is \
         two 32-bit words, low word first. Bits in no field are RES0 (read 0, writes ignored), and \
         so is every offset not listed (PIDR5-7 included). Access: RW, RO, WO, W1S (write 1 to \
         set), W1C (write 1 to clear); register-wide restrictions: Guarded (writes ignored while \
         IRQ_CTRL.IRQEN or IRQ_CTRLACK.IRQEN is 1), Secure-only (RAZ/WI to Non-secure and Realm \
         accesses), Root-only (writable by Root accesses only).\n",
        map.page1_base
    )
    .unwrap();
    o += "| Address | Register | Bits | Access | Reset | Spec |\n|---|---|---|---|---|---|\n";
    let regs = registers(map);
    for r in &regs {
        let restr: Vec<&str> = r.reg.restrictions().iter().map(|x| x.label()).collect();
        writeln!(
            o,
            "| {:#07x} | [{}](#{}) | {} | {} | {:#x} | {} |",
            r.reg.addr,
            r.reg.name,
            r.name.to_ascii_lowercase(),
            r.reg.bits,
            if restr.is_empty() {
                "-".to_string()
            } else {
                restr.join(", ")
            },
            r.reg.reset(),
            r.reg.id.spec_section()
        )
        .unwrap();
    }
    for r in &regs {
        writeln!(o, "\n<a id=\"{}\"></a>", r.name.to_ascii_lowercase()).unwrap();
        writeln!(
            o,
            "## {}\n\n{}. Address {:#x} (page {}, offset {:#x}), {} bits, reset {:#x}; spec {}.\n",
            r.reg.name,
            r.description,
            r.reg.addr,
            r.reg.page,
            r.offset,
            r.reg.bits,
            r.reg.reset(),
            r.reg.id.spec_section()
        )
        .unwrap();
        o += "| Bits | Field | Access | Reset | Description |\n|---|---|---|---|---|\n";
        for f in &r.fields {
            writeln!(
                o,
                "| {} | {} | {} | {:#x} | {} |",
                bit_range(f.field),
                f.field.name,
                f.field.access.label(),
                f.field.reset,
                f.description
            )
            .unwrap();
        }
    }
    o
}

/// The resolved map of `cfg` as JSON.
pub fn json(cfg: &PmcgConfig, map: &RegisterMap, top: &str) -> String {
    let mut regs = map.regs.clone();
    regs.sort_by_key(|r| r.addr);
    let regs: Vec<serde_json::Value> = regs
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": r.name,
                "short_name": r.short_name(),
                "address": r.addr,
                "page": r.page,
                "page_offset": r.page_offset(map.page1_base),
                "bits": r.bits,
                "reset": r.reset(),
                "restrictions": r.restrictions().iter().map(|x| x.label()).collect::<Vec<_>>(),
                "description": r.id.description(),
                "spec_section": r.id.spec_section(),
                "fields": r.fields.iter().map(|f| serde_json::json!({
                    "name": f.name,
                    "lsb": f.lsb,
                    "width": f.width,
                    "access": f.access.label(),
                    "reset": f.reset,
                    "description": r.id.field_description(f.name),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let value = serde_json::json!({
        "top": top,
        "generator": format!("smmu-pmcg {}", env!("CARGO_PKG_VERSION")),
        "config": cfg.summary(),
        "page1_base": map.page1_base,
        "counter_stride": map.counter_stride,
        "registers": regs,
    });
    serde_json::to_string_pretty(&value).expect("JSON of plain values") + "\n"
}
