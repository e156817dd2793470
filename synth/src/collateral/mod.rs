//! SoC integration collateral, generated from the resolved register map of a configuration
//! ([`pmcg_hdl::regmap::RegisterMap`]) and the port list of the shipped top ([`crate::wrapper`]).
//!
//! ```text
//!   PmcgConfig ──► RegisterMap::new ──► collateral registers (fields laid out, no overlaps)
//!        │                                 ├─► rdl.rs      <top>.rdl        SystemRDL 2.0
//!        │                                 ├─► ipxact.rs   <top>.xml        IP-XACT 1685-2014
//!        │                                 ├─► svd.rs      <top>.svd        CMSIS-SVD (svd-rs)
//!        │                                 ├─► cheader.rs  <top>_regs.h     C99 / kernel style
//!        │                                 └─► reference.rs <top>_registers.md, <top>.regs.json
//!        └─► wrapper::ports ──► ipxact.rs (ports, bus interfaces), fusesoc.rs <top>.core,
//!                               firmware.rs <top>.dts, <top>_iort.asl
//! ```
//! Every generator is a pure function of (configuration, top name): the same inputs give
//! byte-identical files, which is what the checked-in `generated/` directory relies on.

pub mod cheader;
pub mod firmware;
pub mod fusesoc;
pub mod ipxact;
pub mod rdl;
pub mod reference;
pub mod svd;

use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::{Field, RegId, Register, RegisterMap};

/// Example physical base address of page 0 used by the devicetree and IORT descriptions (the
/// integrator replaces it; the IP decodes only offsets).
pub const EXAMPLE_BASE: u64 = 0x2B42_0000;
/// Example wired interrupt (GIC SPI number) of the devicetree and IORT descriptions.
pub const EXAMPLE_SPI: u32 = 120;

/// One field as the collateral describes it.
#[derive(Clone, Debug)]
pub struct CollField<'a> {
    pub field: &'a Field,
    pub description: String,
}

/// One register as the collateral describes it.
#[derive(Clone, Debug)]
pub struct CollReg<'a> {
    pub reg: &'a Register,
    /// Identifier-safe name without the `SMMU_PMCG_` prefix.
    pub name: String,
    /// Byte offset within its page.
    pub offset: u32,
    pub description: String,
    /// Fields that do not overlap, low to high.
    pub fields: Vec<CollField<'a>>,
}

/// The registers the collateral describes: every implemented register with at least one field
/// (PIDR5-7 have none: they are RES0, like any unmapped offset), in address order. Overlapping
/// views of one storage (SMRn's PARTID/PMG beside STREAMID with the MPAM filter) cannot be
/// expressed by SystemRDL, IP-XACT or SVD: the first field keeps the bits and the description
/// names the other views.
pub fn registers(map: &RegisterMap) -> Vec<CollReg<'_>> {
    let mut regs: Vec<&Register> = map.regs.iter().filter(|r| !r.fields.is_empty()).collect();
    regs.sort_by_key(|r| r.addr);
    regs.into_iter()
        .map(|r| {
            let mut fields: Vec<CollField> = Vec::new();
            let mut taken = 0u64;
            let mut views = Vec::new();
            for f in &r.fields {
                if f.mask() & taken != 0 {
                    views.push(format!("{} [{}:{}]", f.name, f.lsb + f.width - 1, f.lsb));
                    continue;
                }
                taken |= f.mask();
                fields.push(CollField {
                    field: f,
                    description: r.id.field_description(f.name).to_string(),
                });
            }
            fields.sort_by_key(|f| f.field.lsb);
            if !views.is_empty() {
                if let Some(first) = fields.first_mut() {
                    first.description += &format!("; the same bits are also {}", views.join(", "));
                }
            }
            let mut description = r.id.description().to_string();
            let restrictions: Vec<&str> = r.restrictions().iter().map(|x| x.label()).collect();
            if !restrictions.is_empty() {
                description += &format!(" ({})", restrictions.join(", "));
            }
            CollReg {
                reg: r,
                name: r.short_name(),
                offset: r.page_offset(map.page1_base),
                description,
                fields,
            }
        })
        .collect()
}

/// Whether `id` is the second register of a SET/CLR pair (an alias of the first's storage), and
/// the first register's id.
pub fn alias_of(id: RegId) -> Option<RegId> {
    match id {
        RegId::CntenClr0 => Some(RegId::CntenSet0),
        RegId::IntenClr0 => Some(RegId::IntenSet0),
        RegId::OvsSet0 => Some(RegId::OvsClr0),
        RegId::ScrAlias => Some(RegId::Scr),
        _ => None,
    }
}

/// `[msb:lsb]` text of a field.
pub fn bit_range(f: &Field) -> String {
    if f.width == 1 {
        format!("[{}]", f.lsb)
    } else {
        format!("[{}:{}]", f.lsb + f.width - 1, f.lsb)
    }
}

/// Every collateral file of `cfg` for top module `top`, as (file name, contents), in a fixed
/// order (the Verilog and its JSON summary are written by `gen` itself).
pub fn generate(cfg: &PmcgConfig, top: &str) -> Vec<(String, String)> {
    let map = RegisterMap::new(cfg);
    vec![
        (format!("{top}.rdl"), rdl::rdl(cfg, &map, top)),
        (format!("{top}.xml"), ipxact::ipxact(cfg, &map, top)),
        (format!("{top}.svd"), svd::svd(cfg, &map, top)),
        (format!("{top}_regs.h"), cheader::header(cfg, &map, top)),
        (
            format!("{top}_registers.md"),
            reference::markdown(cfg, &map, top),
        ),
        (format!("{top}.regs.json"), reference::json(cfg, &map, top)),
        (format!("{top}.core"), fusesoc::core(cfg, top)),
        (format!("{top}.dts"), firmware::dts(cfg, top)),
        (format!("{top}_iort.asl"), firmware::iort(cfg, top)),
    ]
}

/// The generator line every file starts with (in its own comment syntax).
pub fn banner(cfg: &PmcgConfig) -> String {
    format!(
        "SMMUv3 PMCG, generated by smmu-pmcg {} from the register map. Do not edit.\nconfig: {}",
        env!("CARGO_PKG_VERSION"),
        cfg.summary()
    )
}
