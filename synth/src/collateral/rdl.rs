//! `<top>.rdl`: the register map as SystemRDL 2.0 (compiled by systemrdl-compiler / PeakRDL).
//!
//! ```text
//!   property secure_only/root_only/guarded/spec_section   user-defined properties
//!   addrmap <top> {
//!     reg CFGR_t { regwidth = 32; field { sw = r; hw = w; } NCTR[5:0] = 6'h3f; ... };
//!     CFGR_t CFGR @ 0xe00;                          one named type per register
//!     alias CNTENSET0 CNTENCLR0_t CNTENCLR0 @ 0xc20;   SET/CLR pairs share storage
//!   };
//! ```
//! Addresses are absolute (page 1 registers include the page 1 offset); 64-bit registers are
//! `regwidth = 64; accesswidth = 32` (the APB port is 32 bits wide). Access types map to
//! `sw`/`onwrite`: RW `sw=rw`, RO `sw=r`, WO `sw=w`, W1S `sw=rw onwrite=woset`, W1C `sw=rw
//! onwrite=woclr`; Secure-only, Root-only and Guarded are boolean user-defined properties.

use super::{alias_of, banner, registers};
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::{Access, RegisterMap, Restriction};
use std::fmt::Write;

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The SystemRDL text of `map`.
pub fn rdl(cfg: &PmcgConfig, map: &RegisterMap, top: &str) -> String {
    let mut o = String::new();
    for line in banner(cfg).lines() {
        writeln!(o, "// {line}").unwrap();
    }
    o += "\n// Register-wide restrictions of the SMMUv3 PMCG (SMMUv3 chapter 10.5).\n";
    o += "property secure_only { type = boolean; component = reg; };\n";
    o += "property root_only { type = boolean; component = reg; };\n";
    o += "property guarded { type = boolean; component = reg; };\n";
    o += "property spec_section { type = string; component = reg; };\n\n";
    writeln!(o, "addrmap {top} {{").unwrap();
    writeln!(o, "    name = \"SMMUv3 PMCG\";").unwrap();
    writeln!(
        o,
        "    desc = \"SMMUv3 Performance Monitor Counter Group: page 0 at 0x0, page 1 at {:#x}\";",
        map.page1_base
    )
    .unwrap();
    let regs = registers(map);
    for r in &regs {
        o += "\n";
        writeln!(o, "    reg {}_t {{", r.name).unwrap();
        writeln!(o, "        name = \"{}\";", quote(&r.reg.name)).unwrap();
        writeln!(o, "        desc = \"{}\";", quote(&r.description)).unwrap();
        if r.reg.bits == 64 {
            o += "        regwidth = 64;\n        accesswidth = 32;\n";
        }
        writeln!(o, "        spec_section = \"{}\";", r.reg.id.spec_section()).unwrap();
        for x in r.reg.restrictions() {
            let p = match x {
                Restriction::Guarded => "guarded",
                Restriction::SecureOnly => "secure_only",
                Restriction::RootOnly => "root_only",
            };
            writeln!(o, "        {p} = true;").unwrap();
        }
        for cf in &r.fields {
            let f = cf.field;
            let access = match f.access {
                Access::RW => "sw = rw; hw = rw;",
                Access::RO => "sw = r; hw = w;",
                Access::WO => "sw = w; hw = r;",
                Access::W1S => "sw = rw; hw = rw; onwrite = woset;",
                Access::W1C => "sw = rw; hw = rw; onwrite = woclr;",
            };
            writeln!(
                o,
                "        field {{ desc = \"{}\"; {access} }} {}[{}:{}] = {}'h{:x};",
                quote(&cf.description),
                f.name,
                f.lsb + f.width - 1,
                f.lsb,
                f.width,
                f.reset
            )
            .unwrap();
        }
        o += "    };\n";
        match alias_of(r.reg.id).and_then(|p| regs.iter().find(|q| q.reg.id == p)) {
            Some(primary) => writeln!(
                o,
                "    alias {} {}_t {} @ {:#x};",
                primary.name, r.name, r.name, r.reg.addr
            ),
            None => writeln!(o, "    {}_t {} @ {:#x};", r.name, r.name, r.reg.addr),
        }
        .unwrap();
    }
    o += "};\n";
    o
}
