//! `<top>.svd`: CMSIS-SVD for debuggers and register-access code generators, built with the
//! `svd-rs` data model and written by `svd-encoder` (so the XML follows the schema those crates
//! implement rather than hand-written tags).
//!
//! ```text
//!   device <TOP>
//!     peripheral <TOP>_PAGE0  baseAddress 0x0            registers at their page offsets
//!     peripheral <TOP>_PAGE1  baseAddress page1_offset   (only with reloc_ctrs)
//! ```
//! Base addresses are the PMCG's own decode (page 0 at 0): add the system base address of the
//! instance. Access: RW read-write, RO read-only, WO write-only, W1S read-write + oneToSet, W1C
//! read-write + oneToClear; Secure-only registers carry `<protection>s</protection>`.

use super::{banner, registers};
use pmcg_hdl::config::PmcgConfig;
use pmcg_hdl::regmap::{Access, RegisterMap, Restriction};
use svd_rs::{
    Access as SvdAccess, Device, Field, FieldInfo, ModifiedWriteValues, Peripheral, PeripheralInfo,
    Protection, Register, RegisterCluster, RegisterInfo, RegisterProperties, ValidateLevel,
};

fn build_err(e: impl std::fmt::Debug) -> String {
    format!("svd-rs rejected the register map: {e:?}")
}

/// The CMSIS-SVD text of `map`.
pub fn svd(cfg: &PmcgConfig, map: &RegisterMap, top: &str) -> String {
    svd_checked(cfg, map, top).unwrap_or_else(|e| panic!("{e}"))
}

fn svd_checked(cfg: &PmcgConfig, map: &RegisterMap, top: &str) -> Result<String, String> {
    let upper = top.to_ascii_uppercase();
    let regs = registers(map);
    let mut peripherals = Vec::new();
    for page in [0u32, 1] {
        let mut items = Vec::new();
        for r in regs.iter().filter(|r| r.reg.page == page) {
            let mut fields = Vec::new();
            for cf in &r.fields {
                let f = cf.field;
                let (access, mwv) = match f.access {
                    Access::RW => (SvdAccess::ReadWrite, None),
                    Access::RO => (SvdAccess::ReadOnly, None),
                    Access::WO => (SvdAccess::WriteOnly, None),
                    Access::W1S => (SvdAccess::ReadWrite, Some(ModifiedWriteValues::OneToSet)),
                    Access::W1C => (SvdAccess::ReadWrite, Some(ModifiedWriteValues::OneToClear)),
                };
                let info = FieldInfo::builder()
                    .name(f.name.to_string())
                    .description(Some(cf.description.clone()))
                    .bit_offset(f.lsb)
                    .bit_width(f.width)
                    .access(Some(access))
                    .modified_write_values(mwv)
                    .build(ValidateLevel::Strict)
                    .map_err(build_err)?;
                fields.push(Field::Single(info));
            }
            let reset_mask = if r.reg.bits == 64 {
                u64::MAX
            } else {
                u32::MAX as u64
            };
            let mut props = RegisterProperties::new()
                .size(Some(r.reg.bits))
                .reset_value(Some(r.reg.reset()))
                .reset_mask(Some(reset_mask));
            if r.reg.restrictions().contains(&Restriction::SecureOnly) {
                props = props.protection(Some(Protection::Secure));
            }
            let info = RegisterInfo::builder()
                .name(r.name.clone())
                .description(Some(format!(
                    "{} (spec {})",
                    r.description,
                    r.reg.id.spec_section()
                )))
                .address_offset(r.offset)
                .properties(props)
                .fields(Some(fields))
                .build(ValidateLevel::Strict)
                .map_err(build_err)?;
            items.push(RegisterCluster::Register(Register::Single(info)));
        }
        if items.is_empty() {
            continue;
        }
        let base = if page == 1 { map.page1_base } else { 0 };
        let info = PeripheralInfo::builder()
            .name(format!("{upper}_PAGE{page}"))
            .description(Some(format!("SMMUv3 PMCG register page {page}")))
            .base_address(base as u64)
            .registers(Some(items))
            .build(ValidateLevel::Strict)
            .map_err(build_err)?;
        peripherals.push(Peripheral::Single(info));
    }
    let device = Device::builder()
        .name(upper.clone())
        .version(env!("CARGO_PKG_VERSION").to_string())
        .description(banner(cfg).replace('\n', "; "))
        .address_unit_bits(8)
        .width(32)
        .default_register_properties(
            RegisterProperties::new()
                .size(Some(32))
                .access(Some(SvdAccess::ReadWrite)),
        )
        .peripherals(peripherals)
        .schema_version("1.3".to_string())
        .no_namespace_schema_location("CMSIS-SVD.xsd".to_string())
        .build(ValidateLevel::Strict)
        .map_err(build_err)?;
    svd_encoder::encode(&device).map_err(|e| format!("svd-encoder: {e:?}"))
}
