//! The register map: the single source of truth for every offset, field position, access type
//! and reset value of SMMUv3 chapter 10.5 (plain Rust, no rust-hdl types).
//!
//! ```text
//!   REGISTERS: [RegDef]   one row per register or register array (spec 10.5.1/10.5.2): id, name,
//!     │                   placement (offset or per-counter stride), page-1 relocation, width,
//!     │                   presence condition, restriction (Guarded / Secure-only / Root-only),
//!     │                   spec section, description, fields [FieldDef]: name, lsb, width, access
//!     │                   (RW RO WO W1S W1C), reset, presence condition, description
//!     │ RegisterMap::new(&PmcgConfig): evaluates the conditions, widths and resets
//!     ▼
//!   RegisterMap { regs: Vec<Register> } ──► RTL decode constants, reference model, tests,
//!                                            collateral (synth/src/collateral), docs
//! ```
//!
//! Everything the RTL or the model needs to know about a register (its address, which bits exist,
//! which bits software may write, how, and what they reset to) is read from a [`Register`]. Bits
//! in no field, and offsets of no register, are RES0 (RAZ/WI).

use crate::config::{PmcgConfig, SidFilterType};

/// Software access type of a field (the vocabulary of 10.5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read/write.
    RW,
    /// Read-only; writes are ignored.
    RO,
    /// Write-only; reads as zero.
    WO,
    /// Reads the state; writing 1 sets a bit, writing 0 has no effect.
    W1S,
    /// Reads the state; writing 1 clears a bit, writing 0 has no effect.
    W1C,
}

impl Access {
    /// The access type's name in the register reference (`RW`, `RO`, `WO`, `W1S`, `W1C`).
    pub fn label(self) -> &'static str {
        match self {
            Access::RW => "RW",
            Access::RO => "RO",
            Access::WO => "WO",
            Access::W1S => "W1S",
            Access::W1C => "W1C",
        }
    }
}

/// How the security state of an access restricts a whole register: the rest of the closed access
/// vocabulary (RW, RO, W1S, W1C are per field in [`Access`]; bits in no field are RES0, RAZ/WI).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restriction {
    /// Writes are ignored while IRQ_CTRL.IRQEN or IRQ_CTRLACK.IRQEN is 1 (10.5.2.21-23).
    Guarded,
    /// Non-secure and Realm accesses are RAZ/WI (10.5.2.12, 10.5.2.28).
    SecureOnly,
    /// Only a Root access writes it; RO for the others (10.5.2.18).
    RootOnly,
}

impl Restriction {
    /// The restriction's name in the register reference and the generated files.
    pub fn label(self) -> &'static str {
        match self {
            Restriction::Guarded => "Guarded",
            Restriction::SecureOnly => "Secure-only",
            Restriction::RootOnly => "Root-only",
        }
    }
}

/// Which register a [`Register`] is; arrays carry the counter index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegId {
    Evcntr(u32),
    Evtyper(u32),
    Svr(u32),
    Smr(u32),
    CntenSet0,
    CntenClr0,
    IntenSet0,
    IntenClr0,
    OvsClr0,
    OvsSet0,
    Capr,
    Scr,
    /// The alias of SCR at 0xE40 (with Realm, 10.5.2.12): the same storage.
    ScrAlias,
    Rootcr,
    Cfgr,
    Cr,
    Iidr,
    Ceid0,
    Ceid1,
    IrqCtrl,
    IrqCtrlAck,
    IrqCfg0,
    IrqCfg1,
    IrqCfg2,
    IrqStatus,
    Aidr,
    Gmpam,
    Mpamidr,
    SMpamidr,
    PmDevArch,
    PmDevType,
    /// PIDR0-PIDR7.
    Pidr(u32),
    /// CIDR0-CIDR3.
    Cidr(u32),
}

impl RegId {
    /// Element number of an array register (0 for the others).
    pub fn index(self) -> u32 {
        match self {
            RegId::Evcntr(n) | RegId::Evtyper(n) | RegId::Svr(n) | RegId::Smr(n) => n,
            _ => 0,
        }
    }

    /// The entry of [`REGISTERS`] that defines this register.
    pub fn def(self) -> &'static RegDef {
        REGISTERS
            .iter()
            .find(|d| (d.id)(self.index()) == self)
            .expect("every RegId has a table entry")
    }

    /// The spec section that defines the register (SMMUv3 chapter 10).
    pub fn spec_section(self) -> &'static str {
        self.def().section
    }

    /// A one-line description of the register.
    pub fn description(self) -> &'static str {
        self.def().description
    }

    /// A one-line description of field `field` of this register ("" for an unknown name).
    pub fn field_description(self, field: &str) -> &'static str {
        self.def()
            .fields
            .iter()
            .find(|f| f.name == field)
            .map(|f| f.description)
            .unwrap_or("")
    }
}

/// One field of a register as this configuration implements it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
    pub access: Access,
    /// Reset value of the field (spec UNKNOWN resets are 0, so behaviour is deterministic).
    pub reset: u64,
}

impl Field {
    /// The field's bits within the register.
    pub fn mask(&self) -> u64 {
        let ones = if self.width == 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        };
        ones << self.lsb
    }
}

/// One register as implemented by a given configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Register {
    pub id: RegId,
    /// Architectural name, e.g. `SMMU_PMCG_EVCNTR3`.
    pub name: String,
    /// APB byte address (page 1 registers include the page 1 offset).
    pub addr: u32,
    /// 1 when the register lives in page 1.
    pub page: u32,
    /// 32 or 64: a 64-bit register occupies `addr` (low word) and `addr + 4` (high word).
    pub bits: u32,
    /// Non-secure (and Realm) accesses are RAZ/WI whatever NSRA says (SCR, its alias, S_MPAMIDR).
    pub secure_only: bool,
    /// Only a Root access may write it; it is RO for the others (ROOTCR, 10.5.2.18).
    pub root_write: bool,
    /// Writes are ignored while IRQ_CTRL.IRQEN or IRQ_CTRLACK.IRQEN is 1 (IRQ_CFG0/1/2).
    pub guarded: bool,
    /// Implemented fields, low to high. Bits in no field are RES0.
    pub fields: Vec<Field>,
}

impl Register {
    /// Bits that exist (read as their state); all others read 0.
    pub fn impl_mask(&self) -> u64 {
        self.fields.iter().fold(0, |m, f| m | f.mask())
    }
    /// Bits of this access type.
    pub fn mask_of(&self, access: Access) -> u64 {
        self.fields
            .iter()
            .filter(|f| f.access == access)
            .fold(0, |m, f| m | f.mask())
    }
    /// The register-wide access restrictions, in a fixed order.
    pub fn restrictions(&self) -> Vec<Restriction> {
        let mut v = Vec::new();
        if self.guarded {
            v.push(Restriction::Guarded);
        }
        if self.secure_only {
            v.push(Restriction::SecureOnly);
        }
        if self.root_write {
            v.push(Restriction::RootOnly);
        }
        v
    }
    /// The register's name without the `SMMU_PMCG_` prefix, as an identifier (`SCR_ALIAS` for
    /// the alias of SCR): the name generated files use.
    pub fn short_name(&self) -> String {
        match self.id {
            RegId::ScrAlias => "SCR_ALIAS".to_string(),
            _ => self
                .name
                .strip_prefix("SMMU_PMCG_")
                .unwrap_or(&self.name)
                .to_string(),
        }
    }
    /// The register's byte offset within its page.
    pub fn page_offset(&self, page1_base: u32) -> u32 {
        if self.page == 1 {
            self.addr - page1_base
        } else {
            self.addr
        }
    }
    /// Reset value of the whole register.
    pub fn reset(&self) -> u64 {
        self.fields.iter().fold(0, |v, f| v | (f.reset << f.lsb))
    }
    /// Bits that read as a value (everything but WO fields).
    pub fn read_mask(&self) -> u64 {
        self.impl_mask() & !self.mask_of(Access::WO)
    }
    /// The field called `name`, if this register implements it.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// Byte offsets of the architected registers within their page (10.5.1).
pub mod offset {
    pub const EVCNTR_BASE: u32 = 0x000;
    pub const EVTYPER_BASE: u32 = 0x400;
    pub const SVR_BASE: u32 = 0x600;
    pub const SMR_BASE: u32 = 0xA00;
    pub const CNTENSET0: u32 = 0xC00;
    pub const CNTENCLR0: u32 = 0xC20;
    pub const INTENSET0: u32 = 0xC40;
    pub const INTENCLR0: u32 = 0xC60;
    pub const OVSCLR0: u32 = 0xC80;
    pub const OVSSET0: u32 = 0xCC0;
    pub const CAPR: u32 = 0xD88;
    pub const SCR: u32 = 0xDF8;
    pub const SCR_ALIAS: u32 = 0xE40;
    pub const ROOTCR: u32 = 0xE48;
    pub const CFGR: u32 = 0xE00;
    pub const CR: u32 = 0xE04;
    pub const IIDR: u32 = 0xE08;
    pub const CEID0: u32 = 0xE20;
    pub const CEID1: u32 = 0xE28;
    pub const IRQ_CTRL: u32 = 0xE50;
    pub const IRQ_CTRLACK: u32 = 0xE54;
    pub const IRQ_CFG0: u32 = 0xE58;
    pub const IRQ_CFG1: u32 = 0xE60;
    pub const IRQ_CFG2: u32 = 0xE64;
    pub const IRQ_STATUS: u32 = 0xE68;
    pub const AIDR: u32 = 0xE70;
    pub const GMPAM: u32 = 0xE6C;
    pub const MPAMIDR: u32 = 0xE74;
    pub const S_MPAMIDR: u32 = 0xE78;
    pub const PMDEVARCH: u32 = 0xFBC;
    pub const PMDEVTYPE: u32 = 0xFCC;
    pub const PIDR4: u32 = 0xFD0;
    pub const PIDR0: u32 = 0xFE0;
    pub const CIDR0: u32 = 0xFF0;
    /// Size of one page.
    pub const PAGE_SIZE: u32 = 0x1000;
    /// Address extent of each array region (10.5.1: EVCNTR 0x000-0x1FF, EVTYPER 0x400-0x4FF,
    /// SVR 0x600-0x7FF, SMR 0xA00-0xAFF). Each base is aligned to its extent.
    pub const EVCNTR_EXTENT: u32 = 0x200;
    pub const EVTYPER_EXTENT: u32 = 0x100;
    pub const SVR_EXTENT: u32 = 0x200;
    pub const SMR_EXTENT: u32 = 0x100;
}

/// Wait states an access to the EVCNTR or SVR region takes before it is performed
/// ([`RegisterMap::held_access`]; docs/behaviour.md "Counter and shadow accesses"): the cycles
/// a counter bank with its upper bits in block RAM needs to prepare the counter's row (issue
/// 11), so that the access is performed at a fixed cycle whatever the carry traffic.
pub const COUNTER_HOLD_CYCLES: u32 = 8;

/// With filter tables (`PmcgConfig::filter_tables`): edges from an EVTYPERn or SMRn write (at
/// its access edge t) to the edge at which the counter's new event selection and filter apply
/// (t + 258; docs/behaviour.md "Filter tables"): the write is decoded at t + 1, where its
/// table column's rebuild starts, which writes 256 rows and swaps one edge later
/// (hdl/src/filter_table.rs). The write holds the bus until then.
pub const FILTER_TABLE_APPLY_EDGES: u64 = 258;

/// AIDR value: SMMUv3.3 PMCG (10.5.2.26).
pub const AIDR_VALUE: u64 = 0x03;
/// PMDEVARCH: ARCHITECT 0x23B (Arm), PRESENT, REVISION 0, ARCHID 0x2A56 (10.5.2.29).
pub const PMDEVARCH_VALUE: u64 = (0x23B << 21) | (1 << 20) | 0x2A56;
/// PMDEVTYPE: sub-type 5 (associated with an SMMU), class 6 (performance monitor) (10.5.2.29).
pub const PMDEVTYPE_VALUE: u64 = 0x56;
/// CIDR0-3 preambles and CoreSight class 0x9 (10.5.2.29).
pub const CIDR_VALUES: [u64; 4] = [0x0D, 0x90, 0x05, 0xB1];

/// When a register (array element `n`, 0 for single registers) or a field exists.
pub type Present = fn(&PmcgConfig, u32) -> bool;
/// A width or reset value, resolved for a configuration and element `n`.
pub type Value = fn(&PmcgConfig, u32) -> u64;

/// One field of the register table.
pub struct FieldDef {
    pub name: &'static str,
    pub lsb: u32,
    pub width: Value,
    pub access: Access,
    /// Reset value (spec UNKNOWN resets are 0, so behaviour is deterministic).
    pub reset: Value,
    pub present: Present,
    /// One line.
    pub description: &'static str,
}

/// Where a register of the table sits within its page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// One register at this offset.
    At(u32),
    /// One per counter n at `base + stride * n`: the counter stride (4 or 8) or one word.
    PerCounter { base: u32, word_stride: bool },
}

/// Width of a register of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    W32,
    W64,
    /// 64 bits with counters wider than 32 bits, else 32.
    Counter,
}

/// One register (or register array) of the table (10.5.1, 10.5.2).
pub struct RegDef {
    /// The id of element `n` (the argument is ignored by single registers).
    pub id: fn(u32) -> RegId,
    /// Architectural name; `{n}` is replaced by the element number.
    pub name: &'static str,
    pub placement: Placement,
    /// Moves to page 1 when CFGR.RELOC_CTRS = 1.
    pub relocated: bool,
    pub width: Width,
    pub present: Present,
    pub restriction: Option<Restriction>,
    /// The spec section that defines it.
    pub section: &'static str,
    /// One line.
    pub description: &'static str,
    pub fields: &'static [FieldDef],
}

const fn field(
    name: &'static str,
    lsb: u32,
    width: Value,
    access: Access,
    reset: Value,
    present: Present,
    description: &'static str,
) -> FieldDef {
    FieldDef {
        name,
        lsb,
        width,
        access,
        reset,
        present,
        description,
    }
}

/// A field present whenever its register is.
const fn always(
    name: &'static str,
    lsb: u32,
    width: Value,
    access: Access,
    reset: Value,
    description: &'static str,
) -> FieldDef {
    field(name, lsb, width, access, reset, |_, _| true, description)
}

#[allow(clippy::too_many_arguments)]
const fn reg(
    id: fn(u32) -> RegId,
    name: &'static str,
    placement: Placement,
    relocated: bool,
    width: Width,
    present: Present,
    restriction: Option<Restriction>,
    section: &'static str,
    description: &'static str,
    fields: &'static [FieldDef],
) -> RegDef {
    RegDef {
        id,
        name,
        placement,
        relocated,
        width,
        present,
        restriction,
        section,
        description,
        fields,
    }
}

/// 10.5.2.2/10.5.2.4: the filter fields and SMRn exist for every counter with per-counter
/// filters, and only for counter 0 with the global filter.
fn has_filter(c: &PmcgConfig, n: u32) -> bool {
    n == 0 || c.sid_filter == SidFilterType::PerCounter
}

/// Bits needed for `max`.
fn bits_for(max: u64) -> u64 {
    (64 - max.leading_zeros()) as u64
}

/// 10.5.2.25: GMPAM's PARTID/PMG are as wide as the larger of MPAMIDR's and S_MPAMIDR's limits.
fn gmpam_partid_max(c: &PmcgConfig) -> u64 {
    let ns = c.partid_max as u64;
    if c.secure {
        ns.max(c.s_partid_max as u64)
    } else {
        ns
    }
}

fn gmpam_pmg_max(c: &PmcgConfig) -> u64 {
    let ns = c.pmg_max as u64;
    if c.secure {
        ns.max(c.s_pmg_max as u64)
    } else {
        ns
    }
}

/// CEID0 (`high` false) or CEID1: bit e (or e - 64) per supported event (10.5.2.16/17).
fn ceid(c: &PmcgConfig, high: bool) -> u64 {
    let mut v = 0u64;
    for e in c.supported_events() {
        match (e, high) {
            (0..=63, false) => v |= 1 << e,
            (64..=127, true) => v |= 1 << (e - 64),
            _ => {} // CEID covers events 0-127 only.
        }
    }
    v
}

/// PIDR0-PIDR4 (10.5.2.29: the CoreSight peripheral ID; DES_0/1/2 carry the JEP106 code).
fn pidr(c: &PmcgConfig, k: u32) -> u64 {
    let id = &c.ident;
    let part = id.product_id as u64;
    let jep = id.jep106_id as u64;
    match k {
        0 => part & 0xFF,
        1 => ((jep & 0xF) << 4) | (part >> 8),
        2 => ((id.variant as u64) << 4) | (1 << 3) | (jep >> 4),
        3 => ((id.revision as u64) << 4) | id.cmod as u64,
        4 => id.jep106_continuation as u64,
        _ => 0,
    }
}

const ZERO: Value = |_, _| 0;
const ONE: Value = |_, _| 1;
const W1: Value = |_, _| 1;
const W4: Value = |_, _| 4;
const W6: Value = |_, _| 6;
const W8: Value = |_, _| 8;
const W12: Value = |_, _| 12;
const W16: Value = |_, _| 16;
const W32: Value = |_, _| 32;
const W64: Value = |_, _| 64;
const COUNTERS: Value = |c, _| c.counters as u64;

#[rustfmt::skip]
const SCR_FIELDS: &[FieldDef] = &[
    always("SO", 0, W1, Access::RW, ZERO, "Secure events observed"),
    always("NSRA", 1, W1, Access::RW, ONE, "Non-secure register access allowed"),
    field("NSMSI", 2, W1, Access::RW, ONE, |c, _| c.msi, "MSIs are Non-secure"),
    field("NAO", 4, W1, Access::RW, ZERO, |c, _| c.realm, "Non-attributable events observed (Secure)"),
    always("READS_AS_ONE", 31, W1, Access::RO, ONE, "Reads as one"),
];

/// A typed handle on one field of one register (of element 0 of an array register; [`FieldId::at`]
/// picks another element): what the RTL, the model, the tests and the tools name instead of a
/// string. The handles are the constants of [`field`], one per field of [`REGISTERS`]; a unit test
/// checks that each names a field its register's table entry has, and that every field has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldId {
    pub reg: RegId,
    pub name: &'static str,
}

impl FieldId {
    /// The same field of element `n` of an array register (itself for other registers).
    pub const fn at(self, n: u32) -> FieldId {
        let reg = match self.reg {
            RegId::Evcntr(_) => RegId::Evcntr(n),
            RegId::Evtyper(_) => RegId::Evtyper(n),
            RegId::Svr(_) => RegId::Svr(n),
            RegId::Smr(_) => RegId::Smr(n),
            other => other,
        };
        FieldId {
            reg,
            name: self.name,
        }
    }
}

/// Every field's handle, named `<REGISTER>_<FIELD>` after the architectural names (SMMUv3 10.5).
#[rustfmt::skip]
pub mod field {
    use super::{FieldId, RegId};
    pub const EVCNTR_COUNTER_VALUE: FieldId = FieldId { reg: RegId::Evcntr(0), name: "COUNTER_VALUE" };
    pub const EVTYPER_EVENT: FieldId = FieldId { reg: RegId::Evtyper(0), name: "EVENT" };
    pub const EVTYPER_FILTER_SID_SPAN: FieldId = FieldId { reg: RegId::Evtyper(0), name: "FILTER_SID_SPAN" };
    pub const EVTYPER_FILTER_SEC_SID: FieldId = FieldId { reg: RegId::Evtyper(0), name: "FILTER_SEC_SID" };
    pub const EVTYPER_FILTER_REALM_SID: FieldId = FieldId { reg: RegId::Evtyper(0), name: "FILTER_REALM_SID" };
    pub const EVTYPER_FILTER_PARTID: FieldId = FieldId { reg: RegId::Evtyper(0), name: "FILTER_PARTID" };
    pub const EVTYPER_FILTER_PMG: FieldId = FieldId { reg: RegId::Evtyper(0), name: "FILTER_PMG" };
    pub const EVTYPER_FILTER_MPAM_SP: FieldId = FieldId { reg: RegId::Evtyper(0), name: "FILTER_MPAM_SP" };
    pub const EVTYPER_OVFCAP: FieldId = FieldId { reg: RegId::Evtyper(0), name: "OVFCAP" };
    pub const SVR_SHADOW_COUNTER_VALUE: FieldId = FieldId { reg: RegId::Svr(0), name: "SHADOW_COUNTER_VALUE" };
    pub const SMR_STREAMID: FieldId = FieldId { reg: RegId::Smr(0), name: "STREAMID" };
    pub const SMR_PARTID: FieldId = FieldId { reg: RegId::Smr(0), name: "PARTID" };
    pub const SMR_PMG: FieldId = FieldId { reg: RegId::Smr(0), name: "PMG" };
    pub const CNTENSET0_CNTEN: FieldId = FieldId { reg: RegId::CntenSet0, name: "CNTEN" };
    pub const CNTENCLR0_CNTEN: FieldId = FieldId { reg: RegId::CntenClr0, name: "CNTEN" };
    pub const INTENSET0_INTEN: FieldId = FieldId { reg: RegId::IntenSet0, name: "INTEN" };
    pub const INTENCLR0_INTEN: FieldId = FieldId { reg: RegId::IntenClr0, name: "INTEN" };
    pub const OVSCLR0_OVS: FieldId = FieldId { reg: RegId::OvsClr0, name: "OVS" };
    pub const OVSSET0_OVS: FieldId = FieldId { reg: RegId::OvsSet0, name: "OVS" };
    pub const CAPR_CAPTURE: FieldId = FieldId { reg: RegId::Capr, name: "CAPTURE" };
    pub const SCR_SO: FieldId = FieldId { reg: RegId::Scr, name: "SO" };
    pub const SCR_NSRA: FieldId = FieldId { reg: RegId::Scr, name: "NSRA" };
    pub const SCR_NSMSI: FieldId = FieldId { reg: RegId::Scr, name: "NSMSI" };
    pub const SCR_NAO: FieldId = FieldId { reg: RegId::Scr, name: "NAO" };
    pub const SCR_READS_AS_ONE: FieldId = FieldId { reg: RegId::Scr, name: "READS_AS_ONE" };
    pub const ROOTCR_RTO: FieldId = FieldId { reg: RegId::Rootcr, name: "RTO" };
    pub const ROOTCR_RLO: FieldId = FieldId { reg: RegId::Rootcr, name: "RLO" };
    pub const ROOTCR_NAO: FieldId = FieldId { reg: RegId::Rootcr, name: "NAO" };
    pub const ROOTCR_SAO: FieldId = FieldId { reg: RegId::Rootcr, name: "SAO" };
    pub const ROOTCR_PMO: FieldId = FieldId { reg: RegId::Rootcr, name: "PMO" };
    pub const ROOTCR_ROOTCR_IMPL: FieldId = FieldId { reg: RegId::Rootcr, name: "ROOTCR_IMPL" };
    pub const GMPAM_PO_PARTID: FieldId = FieldId { reg: RegId::Gmpam, name: "PO_PARTID" };
    pub const GMPAM_PO_PMG: FieldId = FieldId { reg: RegId::Gmpam, name: "PO_PMG" };
    pub const GMPAM_UPDATE: FieldId = FieldId { reg: RegId::Gmpam, name: "UPDATE" };
    pub const MPAMIDR_PARTID_MAX: FieldId = FieldId { reg: RegId::Mpamidr, name: "PARTID_MAX" };
    pub const MPAMIDR_PMG_MAX: FieldId = FieldId { reg: RegId::Mpamidr, name: "PMG_MAX" };
    pub const S_MPAMIDR_PARTID_MAX: FieldId = FieldId { reg: RegId::SMpamidr, name: "PARTID_MAX" };
    pub const S_MPAMIDR_PMG_MAX: FieldId = FieldId { reg: RegId::SMpamidr, name: "PMG_MAX" };
    pub const CFGR_NCTR: FieldId = FieldId { reg: RegId::Cfgr, name: "NCTR" };
    pub const CFGR_SIZE: FieldId = FieldId { reg: RegId::Cfgr, name: "SIZE" };
    pub const CFGR_RELOC_CTRS: FieldId = FieldId { reg: RegId::Cfgr, name: "RELOC_CTRS" };
    pub const CFGR_MSI: FieldId = FieldId { reg: RegId::Cfgr, name: "MSI" };
    pub const CFGR_CAPTURE: FieldId = FieldId { reg: RegId::Cfgr, name: "CAPTURE" };
    pub const CFGR_SID_FILTER_TYPE: FieldId = FieldId { reg: RegId::Cfgr, name: "SID_FILTER_TYPE" };
    pub const CFGR_MPAM: FieldId = FieldId { reg: RegId::Cfgr, name: "MPAM" };
    pub const CFGR_FILTER_PARTID_PMG: FieldId = FieldId { reg: RegId::Cfgr, name: "FILTER_PARTID_PMG" };
    pub const CR_E: FieldId = FieldId { reg: RegId::Cr, name: "E" };
    pub const IIDR_IMPLEMENTER: FieldId = FieldId { reg: RegId::Iidr, name: "Implementer" };
    pub const IIDR_REVISION: FieldId = FieldId { reg: RegId::Iidr, name: "Revision" };
    pub const IIDR_VARIANT: FieldId = FieldId { reg: RegId::Iidr, name: "Variant" };
    pub const IIDR_PRODUCTID: FieldId = FieldId { reg: RegId::Iidr, name: "ProductID" };
    pub const CEID0_N: FieldId = FieldId { reg: RegId::Ceid0, name: "N" };
    pub const CEID1_N: FieldId = FieldId { reg: RegId::Ceid1, name: "N" };
    pub const IRQ_CTRL_IRQEN: FieldId = FieldId { reg: RegId::IrqCtrl, name: "IRQEN" };
    pub const IRQ_CTRLACK_IRQEN: FieldId = FieldId { reg: RegId::IrqCtrlAck, name: "IRQEN" };
    pub const IRQ_CFG0_ADDR: FieldId = FieldId { reg: RegId::IrqCfg0, name: "ADDR" };
    pub const IRQ_CFG1_DATA: FieldId = FieldId { reg: RegId::IrqCfg1, name: "DATA" };
    pub const IRQ_CFG2_MEMATTR: FieldId = FieldId { reg: RegId::IrqCfg2, name: "MEMATTR" };
    pub const IRQ_CFG2_SH: FieldId = FieldId { reg: RegId::IrqCfg2, name: "SH" };
    pub const IRQ_STATUS_IRQ_ABT: FieldId = FieldId { reg: RegId::IrqStatus, name: "IRQ_ABT" };
    pub const AIDR_ARCHMINORREV: FieldId = FieldId { reg: RegId::Aidr, name: "ArchMinorRev" };
    pub const AIDR_ARCHMAJORREV: FieldId = FieldId { reg: RegId::Aidr, name: "ArchMajorRev" };
    pub const PMDEVARCH_PMDEVARCH: FieldId = FieldId { reg: RegId::PmDevArch, name: "PMDEVARCH" };
    pub const PMDEVTYPE_PMDEVTYPE: FieldId = FieldId { reg: RegId::PmDevType, name: "PMDEVTYPE" };
    pub const PIDR0_VALUE: FieldId = FieldId { reg: RegId::Pidr(0), name: "VALUE" };
    pub const PIDR1_VALUE: FieldId = FieldId { reg: RegId::Pidr(1), name: "VALUE" };
    pub const PIDR2_VALUE: FieldId = FieldId { reg: RegId::Pidr(2), name: "VALUE" };
    pub const PIDR3_VALUE: FieldId = FieldId { reg: RegId::Pidr(3), name: "VALUE" };
    pub const PIDR4_VALUE: FieldId = FieldId { reg: RegId::Pidr(4), name: "VALUE" };
    pub const CIDR0_VALUE: FieldId = FieldId { reg: RegId::Cidr(0), name: "VALUE" };
    pub const CIDR1_VALUE: FieldId = FieldId { reg: RegId::Cidr(1), name: "VALUE" };
    pub const CIDR2_VALUE: FieldId = FieldId { reg: RegId::Cidr(2), name: "VALUE" };
    pub const CIDR3_VALUE: FieldId = FieldId { reg: RegId::Cidr(3), name: "VALUE" };
    /// Every handle (the completeness test walks it).
    pub const ALL: &[FieldId] = &[
        EVCNTR_COUNTER_VALUE,
        EVTYPER_EVENT,
        EVTYPER_FILTER_SID_SPAN,
        EVTYPER_FILTER_SEC_SID,
        EVTYPER_FILTER_REALM_SID,
        EVTYPER_FILTER_PARTID,
        EVTYPER_FILTER_PMG,
        EVTYPER_FILTER_MPAM_SP,
        EVTYPER_OVFCAP,
        SVR_SHADOW_COUNTER_VALUE,
        SMR_STREAMID,
        SMR_PARTID,
        SMR_PMG,
        CNTENSET0_CNTEN,
        CNTENCLR0_CNTEN,
        INTENSET0_INTEN,
        INTENCLR0_INTEN,
        OVSCLR0_OVS,
        OVSSET0_OVS,
        CAPR_CAPTURE,
        SCR_SO,
        SCR_NSRA,
        SCR_NSMSI,
        SCR_NAO,
        SCR_READS_AS_ONE,
        ROOTCR_RTO,
        ROOTCR_RLO,
        ROOTCR_NAO,
        ROOTCR_SAO,
        ROOTCR_PMO,
        ROOTCR_ROOTCR_IMPL,
        GMPAM_PO_PARTID,
        GMPAM_PO_PMG,
        GMPAM_UPDATE,
        MPAMIDR_PARTID_MAX,
        MPAMIDR_PMG_MAX,
        S_MPAMIDR_PARTID_MAX,
        S_MPAMIDR_PMG_MAX,
        CFGR_NCTR,
        CFGR_SIZE,
        CFGR_RELOC_CTRS,
        CFGR_MSI,
        CFGR_CAPTURE,
        CFGR_SID_FILTER_TYPE,
        CFGR_MPAM,
        CFGR_FILTER_PARTID_PMG,
        CR_E,
        IIDR_IMPLEMENTER,
        IIDR_REVISION,
        IIDR_VARIANT,
        IIDR_PRODUCTID,
        CEID0_N,
        CEID1_N,
        IRQ_CTRL_IRQEN,
        IRQ_CTRLACK_IRQEN,
        IRQ_CFG0_ADDR,
        IRQ_CFG1_DATA,
        IRQ_CFG2_MEMATTR,
        IRQ_CFG2_SH,
        IRQ_STATUS_IRQ_ABT,
        AIDR_ARCHMINORREV,
        AIDR_ARCHMAJORREV,
        PMDEVARCH_PMDEVARCH,
        PMDEVTYPE_PMDEVTYPE,
        PIDR0_VALUE,
        PIDR1_VALUE,
        PIDR2_VALUE,
        PIDR3_VALUE,
        PIDR4_VALUE,
        CIDR0_VALUE,
        CIDR1_VALUE,
        CIDR2_VALUE,
        CIDR3_VALUE,
    ];
}

/// The register table: every register of 10.5.1 the PMCG can implement, in the order the
/// resolved map lists them (arrays element by element).
#[rustfmt::skip]
pub static REGISTERS: &[RegDef] = &[
    reg(RegId::Evcntr, "SMMU_PMCG_EVCNTR{n}", Placement::PerCounter { base: offset::EVCNTR_BASE, word_stride: false }, true, Width::Counter, |_, _| true, None, "10.5.2.1", "Event counter: counts the event EVTYPERn selects", &[
        always("COUNTER_VALUE", 0, |c, _| c.counter_bits as u64, Access::RW, ZERO, "Counter value"),
    ]),
    reg(RegId::Evtyper, "SMMU_PMCG_EVTYPER{n}", Placement::PerCounter { base: offset::EVTYPER_BASE, word_stride: true }, false, Width::W32, |_, _| true, None, "10.5.2.2", "Event type and filter controls of counter n", &[
        always("EVENT", 0, W16, Access::RW, ZERO, "Event ID counted"),
        field("FILTER_SID_SPAN", 29, W1, Access::RW, ZERO, has_filter, "1: SMR is a StreamID span, 0: an exact StreamID"),
        field("FILTER_SEC_SID", 30, W1, Access::RW, ZERO, |c, n| has_filter(c, n) && c.secure, "Count Secure StreamIDs (with SCR.SO)"),
        field("FILTER_REALM_SID", 28, W1, Access::RW, ZERO, |c, n| has_filter(c, n) && c.realm, "Count Realm StreamIDs (with ROOTCR.RLO)"),
        field("FILTER_PARTID", 16, W1, Access::RW, ZERO, |c, n| has_filter(c, n) && c.mpam_filter, "Filter on MPAM PARTID"),
        field("FILTER_PMG", 17, W1, Access::RW, ZERO, |c, n| has_filter(c, n) && c.mpam_filter, "Filter on MPAM PMG"),
        // FILTER_MPAM_SP[1] (bit 19) exists only with ROOTCR_IMPL = 1.
        field("FILTER_MPAM_SP", 18, |c, _| if c.realm { 2 } else { 1 }, Access::RW, ZERO, |c, n| has_filter(c, n) && c.mpam_filter, "MPAM PARTID space the filter matches"),
        field("OVFCAP", 31, W1, Access::RW, ZERO, |c, _| c.capture, "An overflow of this counter captures every counter"),
    ]),
    reg(RegId::Svr, "SMMU_PMCG_SVR{n}", Placement::PerCounter { base: offset::SVR_BASE, word_stride: false }, true, Width::Counter, |c, _| c.capture, None, "10.5.2.3", "Shadow value of counter n, written by a capture", &[
        always("SHADOW_COUNTER_VALUE", 0, |c, _| c.counter_bits as u64, Access::RO, ZERO, "Counter value at the last capture"),
    ]),
    // STREAMID implements sid_bits bits, the rest RAZ/WI (10.4.1). With the MPAM filter the same
    // bits also hold PARTID [15:0] and PMG [23:16] (views of one storage, selected by EVTYPERn).
    reg(RegId::Smr, "SMMU_PMCG_SMR{n}", Placement::PerCounter { base: offset::SMR_BASE, word_stride: true }, false, Width::W32, has_filter, None, "10.5.2.4", "StreamID (or MPAM PARTID/PMG) filter match value of counter n", &[
        always("STREAMID", 0, |c, _| c.sid_bits as u64, Access::RW, ZERO, "StreamID match value or span"),
        field("PARTID", 0, W16, Access::RW, ZERO, |c, _| c.mpam_filter, "PARTID match value (MPAM filter view)"),
        field("PMG", 16, W8, Access::RW, ZERO, |c, _| c.mpam_filter, "PMG match value (MPAM filter view)"),
    ]),
    reg(|_| RegId::CntenSet0, "SMMU_PMCG_CNTENSET0", Placement::At(offset::CNTENSET0), false, Width::W64, |_, _| true, None, "10.5.2.5", "Counter enables: write 1 to enable", &[
        always("CNTEN", 0, COUNTERS, Access::W1S, ZERO, "Counter n enabled"),
    ]),
    reg(|_| RegId::CntenClr0, "SMMU_PMCG_CNTENCLR0", Placement::At(offset::CNTENCLR0), false, Width::W64, |_, _| true, None, "10.5.2.6", "Counter enables: write 1 to disable", &[
        always("CNTEN", 0, COUNTERS, Access::W1C, ZERO, "Counter n enabled"),
    ]),
    reg(|_| RegId::IntenSet0, "SMMU_PMCG_INTENSET0", Placement::At(offset::INTENSET0), false, Width::W64, |_, _| true, None, "10.5.2.7", "Overflow interrupt enables: write 1 to enable", &[
        always("INTEN", 0, COUNTERS, Access::W1S, ZERO, "Counter n overflow raises the interrupt"),
    ]),
    reg(|_| RegId::IntenClr0, "SMMU_PMCG_INTENCLR0", Placement::At(offset::INTENCLR0), false, Width::W64, |_, _| true, None, "10.5.2.8", "Overflow interrupt enables: write 1 to disable", &[
        always("INTEN", 0, COUNTERS, Access::W1C, ZERO, "Counter n overflow raises the interrupt"),
    ]),
    reg(|_| RegId::OvsClr0, "SMMU_PMCG_OVSCLR0", Placement::At(offset::OVSCLR0), true, Width::W64, |_, _| true, None, "10.5.2.9", "Overflow status: write 1 to clear", &[
        always("OVS", 0, COUNTERS, Access::W1C, ZERO, "Counter n overflowed"),
    ]),
    reg(|_| RegId::OvsSet0, "SMMU_PMCG_OVSSET0", Placement::At(offset::OVSSET0), true, Width::W64, |_, _| true, None, "10.5.2.10", "Overflow status: write 1 to set", &[
        always("OVS", 0, COUNTERS, Access::W1S, ZERO, "Counter n overflowed"),
    ]),
    reg(|_| RegId::Capr, "SMMU_PMCG_CAPR", Placement::At(offset::CAPR), true, Width::W32, |c, _| c.capture, None, "10.5.2.11", "Capture: write 1 to copy every counter to its SVR", &[
        always("CAPTURE", 0, W1, Access::WO, ZERO, "Write 1: capture"),
    ]),
    // 10.5.2.12: with Realm, SCR also answers at 0xE40 (the same storage).
    reg(|_| RegId::ScrAlias, "SMMU_PMCG_SCR (alias)", Placement::At(offset::SCR_ALIAS), false, Width::W32, |c, _| c.secure && c.realm, Some(Restriction::SecureOnly), "10.5.2.12", "Alias of SCR (with Realm): the same storage", SCR_FIELDS),
    reg(|_| RegId::Scr, "SMMU_PMCG_SCR", Placement::At(offset::SCR), false, Width::W32, |c, _| c.secure, Some(Restriction::SecureOnly), "10.5.2.12", "Secure control: Secure observation and Non-secure access", SCR_FIELDS),
    // SAO and PMO exist because Realm here implies GDI (docs/behaviour.md).
    reg(|_| RegId::Rootcr, "SMMU_PMCG_ROOTCR", Placement::At(offset::ROOTCR), false, Width::W32, |c, _| c.realm, Some(Restriction::RootOnly), "10.5.2.18", "Root control: Realm and Root observation", &[
        always("RTO", 0, W1, Access::RW, ZERO, "Root events observed"),
        always("RLO", 1, W1, Access::RW, ZERO, "Realm events observed"),
        always("NAO", 3, W1, Access::RW, ONE, "Non-attributable events observed (Root)"),
        always("SAO", 7, W1, Access::RW, ZERO, "Secure-state register access observed"),
        always("PMO", 8, W1, Access::RW, ZERO, "Performance monitoring observed"),
        always("ROOTCR_IMPL", 31, W1, Access::RO, ONE, "ROOTCR implemented"),
    ]),
    // Bits above the combined PARTID / PMG widths are RES0; Update reads 0 (an update completes
    // at its write's edge, docs/behaviour.md).
    reg(|_| RegId::Gmpam, "SMMU_PMCG_GMPAM", Placement::At(offset::GMPAM), false, Width::W32, |c, _| c.msi_mpam, None, "10.5.2.25", "MPAM PARTID and PMG of the MSIs", &[
        field("PO_PARTID", 0, |c, _| bits_for(gmpam_partid_max(c)), Access::RW, ZERO, |c, _| gmpam_partid_max(c) > 0, "MSI PARTID"),
        field("PO_PMG", 16, |c, _| bits_for(gmpam_pmg_max(c)), Access::RW, ZERO, |c, _| gmpam_pmg_max(c) > 0, "MSI PMG"),
        always("UPDATE", 31, W1, Access::RO, ZERO, "Update in progress (always 0 here)"),
    ]),
    reg(|_| RegId::Mpamidr, "SMMU_PMCG_MPAMIDR", Placement::At(offset::MPAMIDR), false, Width::W32, |c, _| c.mpam_filter || c.msi_mpam, None, "10.5.2.27", "Non-secure MPAM PARTID and PMG limits", &[
        always("PARTID_MAX", 0, W16, Access::RO, |c, _| c.partid_max as u64, "Largest PARTID"),
        always("PMG_MAX", 16, W8, Access::RO, |c, _| c.pmg_max as u64, "Largest PMG"),
    ]),
    reg(|_| RegId::SMpamidr, "SMMU_PMCG_S_MPAMIDR", Placement::At(offset::S_MPAMIDR), false, Width::W32, |c, _| (c.mpam_filter || c.msi_mpam) && c.secure, Some(Restriction::SecureOnly), "10.5.2.28", "Secure MPAM PARTID and PMG limits", &[
        always("PARTID_MAX", 0, W16, Access::RO, |c, _| c.s_partid_max as u64, "Largest PARTID"),
        always("PMG_MAX", 16, W8, Access::RO, |c, _| c.s_pmg_max as u64, "Largest PMG"),
    ]),
    reg(|_| RegId::Cfgr, "SMMU_PMCG_CFGR", Placement::At(offset::CFGR), false, Width::W32, |_, _| true, None, "10.5.2.13", "Configuration: counters, size and features implemented", &[
        always("NCTR", 0, W6, Access::RO, |c, _| (c.counters - 1) as u64, "Number of counters minus one"),
        always("SIZE", 8, W6, Access::RO, |c, _| (c.counter_bits - 1) as u64, "Counter size in bits minus one"),
        always("RELOC_CTRS", 20, W1, Access::RO, |c, _| c.reloc_ctrs as u64, "Counters are in page 1"),
        always("MSI", 21, W1, Access::RO, |c, _| c.msi as u64, "MSIs supported"),
        always("CAPTURE", 22, W1, Access::RO, |c, _| c.capture as u64, "Capture supported"),
        always("SID_FILTER_TYPE", 23, W1, Access::RO, |c, _| (c.sid_filter == SidFilterType::Global) as u64, "1: one global filter (EVTYPER0/SMR0)"),
        always("MPAM", 24, W1, Access::RO, |c, _| c.msi_mpam as u64, "MSIs carry MPAM labels"),
        always("FILTER_PARTID_PMG", 25, W1, Access::RO, |c, _| c.mpam_filter as u64, "MPAM PARTID/PMG filtering supported"),
    ]),
    reg(|_| RegId::Cr, "SMMU_PMCG_CR", Placement::At(offset::CR), false, Width::W32, |_, _| true, None, "10.5.2.14", "Global counter enable", &[
        always("E", 0, W1, Access::RW, ZERO, "Global counter enable"),
    ]),
    reg(|_| RegId::Iidr, "SMMU_PMCG_IIDR", Placement::At(offset::IIDR), false, Width::W32, |_, _| true, None, "10.5.2.15", "Implementation identification", &[
        always("Implementer", 0, W12, Access::RO, |c, _| ((c.ident.jep106_continuation as u64) << 8) | c.ident.jep106_id as u64, "JEP106 code of the implementer"),
        always("Revision", 12, W4, Access::RO, |c, _| c.ident.revision as u64, "Revision"),
        always("Variant", 16, W4, Access::RO, |c, _| c.ident.variant as u64, "Variant"),
        always("ProductID", 20, W12, Access::RO, |c, _| c.ident.product_id as u64, "Product"),
    ]),
    reg(|_| RegId::Ceid0, "SMMU_PMCG_CEID0", Placement::At(offset::CEID0), false, Width::W64, |_, _| true, None, "10.5.2.16", "Common events implemented, IDs 0-63", &[
        always("N", 0, W64, Access::RO, |c, _| ceid(c, false), "Bit n: event n implemented"),
    ]),
    reg(|_| RegId::Ceid1, "SMMU_PMCG_CEID1", Placement::At(offset::CEID1), false, Width::W64, |_, _| true, None, "10.5.2.17", "Common events implemented, IDs 64-127", &[
        always("N", 0, W64, Access::RO, |c, _| ceid(c, true), "Bit n: event 64 + n implemented"),
    ]),
    reg(|_| RegId::IrqCtrl, "SMMU_PMCG_IRQ_CTRL", Placement::At(offset::IRQ_CTRL), false, Width::W32, |_, _| true, None, "10.5.2.19", "Interrupt (wired and MSI) enable", &[
        always("IRQEN", 0, W1, Access::RW, ZERO, "Interrupts enabled"),
    ]),
    reg(|_| RegId::IrqCtrlAck, "SMMU_PMCG_IRQ_CTRLACK", Placement::At(offset::IRQ_CTRLACK), false, Width::W32, |_, _| true, None, "10.5.2.20", "Acknowledge of IRQ_CTRL: the enable in effect", &[
        always("IRQEN", 0, W1, Access::RO, ZERO, "IRQ_CTRL.IRQEN in effect"),
    ]),
    reg(|_| RegId::IrqCfg0, "SMMU_PMCG_IRQ_CFG0", Placement::At(offset::IRQ_CFG0), false, Width::W64, |c, _| c.msi, Some(Restriction::Guarded), "10.5.2.21", "MSI target address", &[
        always("ADDR", 2, |c, _| (c.pa_bits - 2) as u64, Access::RW, ZERO, "MSI address bits [pa_bits-1:2]"),
    ]),
    reg(|_| RegId::IrqCfg1, "SMMU_PMCG_IRQ_CFG1", Placement::At(offset::IRQ_CFG1), false, Width::W32, |c, _| c.msi, Some(Restriction::Guarded), "10.5.2.22", "MSI payload", &[
        always("DATA", 0, W32, Access::RW, ZERO, "MSI data"),
    ]),
    reg(|_| RegId::IrqCfg2, "SMMU_PMCG_IRQ_CFG2", Placement::At(offset::IRQ_CFG2), false, Width::W32, |c, _| c.msi, Some(Restriction::Guarded), "10.5.2.23", "MSI memory attributes and shareability", &[
        always("MEMATTR", 0, W4, Access::RW, ZERO, "MSI memory type"),
        always("SH", 4, |_, _| 2, Access::RW, ZERO, "MSI shareability"),
    ]),
    reg(|_| RegId::IrqStatus, "SMMU_PMCG_IRQ_STATUS", Placement::At(offset::IRQ_STATUS), false, Width::W32, |c, _| c.msi, None, "10.5.2.24", "MSI status: an MSI write was aborted", &[
        always("IRQ_ABT", 0, W1, Access::RO, ZERO, "The last MSI write was aborted"),
    ]),
    reg(|_| RegId::Aidr, "SMMU_PMCG_AIDR", Placement::At(offset::AIDR), false, Width::W32, |_, _| true, None, "10.5.2.26", "Architecture version (SMMUv3.3)", &[
        always("ArchMinorRev", 0, W4, Access::RO, |_, _| AIDR_VALUE & 0xF, "Minor revision"),
        always("ArchMajorRev", 4, W4, Access::RO, |_, _| AIDR_VALUE >> 4, "Major revision"),
    ]),
    reg(|_| RegId::PmDevArch, "SMMU_PMCG_PMDEVARCH", Placement::At(offset::PMDEVARCH), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight device architecture", &[
        always("PMDEVARCH", 0, W32, Access::RO, |_, _| PMDEVARCH_VALUE, "Architect, architecture and revision"),
    ]),
    reg(|_| RegId::PmDevType, "SMMU_PMCG_PMDEVTYPE", Placement::At(offset::PMDEVTYPE), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight device type", &[
        always("PMDEVTYPE", 0, W8, Access::RO, |_, _| PMDEVTYPE_VALUE, "Performance monitor associated with an SMMU"),
    ]),
    // PIDR0-3 at 0xFE0, PIDR4-7 at 0xFD0; PIDR5-7 are RES0 (no field).
    reg(|_| RegId::Pidr(0), "SMMU_PMCG_PIDR0", Placement::At(offset::PIDR0), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight peripheral identification", &[
        always("VALUE", 0, W8, Access::RO, |c, _| pidr(c, 0), "Identification byte"),
    ]),
    reg(|_| RegId::Pidr(1), "SMMU_PMCG_PIDR1", Placement::At(offset::PIDR0 + 4), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight peripheral identification", &[
        always("VALUE", 0, W8, Access::RO, |c, _| pidr(c, 1), "Identification byte"),
    ]),
    reg(|_| RegId::Pidr(2), "SMMU_PMCG_PIDR2", Placement::At(offset::PIDR0 + 8), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight peripheral identification", &[
        always("VALUE", 0, W8, Access::RO, |c, _| pidr(c, 2), "Identification byte"),
    ]),
    reg(|_| RegId::Pidr(3), "SMMU_PMCG_PIDR3", Placement::At(offset::PIDR0 + 12), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight peripheral identification", &[
        always("VALUE", 0, W8, Access::RO, |c, _| pidr(c, 3), "Identification byte"),
    ]),
    reg(|_| RegId::Pidr(4), "SMMU_PMCG_PIDR4", Placement::At(offset::PIDR4), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight peripheral identification", &[
        always("VALUE", 0, W8, Access::RO, |c, _| pidr(c, 4), "Identification byte"),
    ]),
    reg(|_| RegId::Pidr(5), "SMMU_PMCG_PIDR5", Placement::At(offset::PIDR4 + 4), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight peripheral identification (RES0)", &[]),
    reg(|_| RegId::Pidr(6), "SMMU_PMCG_PIDR6", Placement::At(offset::PIDR4 + 8), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight peripheral identification (RES0)", &[]),
    reg(|_| RegId::Pidr(7), "SMMU_PMCG_PIDR7", Placement::At(offset::PIDR4 + 12), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight peripheral identification (RES0)", &[]),
    reg(|_| RegId::Cidr(0), "SMMU_PMCG_CIDR0", Placement::At(offset::CIDR0), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight component identification", &[
        always("VALUE", 0, W8, Access::RO, |_, _| CIDR_VALUES[0], "Identification byte"),
    ]),
    reg(|_| RegId::Cidr(1), "SMMU_PMCG_CIDR1", Placement::At(offset::CIDR0 + 4), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight component identification", &[
        always("VALUE", 0, W8, Access::RO, |_, _| CIDR_VALUES[1], "Identification byte"),
    ]),
    reg(|_| RegId::Cidr(2), "SMMU_PMCG_CIDR2", Placement::At(offset::CIDR0 + 8), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight component identification", &[
        always("VALUE", 0, W8, Access::RO, |_, _| CIDR_VALUES[2], "Identification byte"),
    ]),
    reg(|_| RegId::Cidr(3), "SMMU_PMCG_CIDR3", Placement::At(offset::CIDR0 + 12), false, Width::W32, |_, _| true, None, "10.5.2.29", "CoreSight component identification", &[
        always("VALUE", 0, W8, Access::RO, |_, _| CIDR_VALUES[3], "Identification byte"),
    ]),
];

/// The resolved register map of one configuration.
#[derive(Clone, Debug)]
pub struct RegisterMap {
    pub regs: Vec<Register>,
    /// APB byte address of page 1 (meaningful when `reloc_ctrs`).
    pub page1_base: u32,
    /// Byte stride of EVCNTRn and SVRn: 4 for 32-bit counters, 8 otherwise.
    pub counter_stride: u32,
}

/// The word of a register an APB address selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    Low,
    High,
}

impl RegisterMap {
    /// Resolves [`REGISTERS`] for a validated configuration: presence conditions, page 1
    /// relocation, counter stride, field widths and reset values.
    pub fn new(cfg: &PmcgConfig) -> RegisterMap {
        let page1_base = cfg.page1_offset;
        let counter_stride = if cfg.wide_counters() { 8 } else { 4 };
        // 10.5.1: with RELOC_CTRS these registers move to page 1 and page 0 becomes RES0.
        let (reloc_page, reloc_base) = if cfg.reloc_ctrs {
            (1, page1_base)
        } else {
            (0, 0)
        };
        let mut regs = Vec::new();
        for def in REGISTERS {
            let elements = match def.placement {
                Placement::At(_) => 1,
                Placement::PerCounter { .. } => cfg.counters,
            };
            for n in 0..elements {
                if !(def.present)(cfg, n) {
                    continue;
                }
                let offset = match def.placement {
                    Placement::At(o) => o,
                    Placement::PerCounter { base, word_stride } => {
                        base + n * if word_stride { 4 } else { counter_stride }
                    }
                };
                let (page, base) = if def.relocated {
                    (reloc_page, reloc_base)
                } else {
                    (0, 0)
                };
                let bits = match def.width {
                    Width::W32 => 32,
                    Width::W64 => 64,
                    Width::Counter if cfg.wide_counters() => 64,
                    Width::Counter => 32,
                };
                let fields = def
                    .fields
                    .iter()
                    .filter(|f| (f.present)(cfg, n))
                    .map(|f| Field {
                        name: f.name,
                        lsb: f.lsb,
                        width: (f.width)(cfg, n) as u32,
                        access: f.access,
                        reset: (f.reset)(cfg, n),
                    })
                    .collect();
                regs.push(Register {
                    id: (def.id)(n),
                    name: def.name.replace("{n}", &n.to_string()),
                    addr: base + offset,
                    page,
                    bits,
                    secure_only: def.restriction == Some(Restriction::SecureOnly),
                    root_write: def.restriction == Some(Restriction::RootOnly),
                    guarded: def.restriction == Some(Restriction::Guarded),
                    fields,
                });
            }
        }
        RegisterMap {
            regs,
            page1_base,
            counter_stride,
        }
    }

    /// The register with this id, if the configuration implements it.
    pub fn get(&self, id: RegId) -> Option<&Register> {
        self.regs.iter().find(|r| r.id == id)
    }

    /// The register with this id; panics if the configuration does not implement it.
    pub fn reg(&self, id: RegId) -> &Register {
        self.get(id)
            .unwrap_or_else(|| panic!("{id:?} is not implemented by this configuration"))
    }

    /// The PADDR bits the block decodes: the smallest power-of-two window that holds page 0
    /// and page 1 (`page1_offset` + 4 KiB), less one. Bits above it are ignored (the window
    /// aliases through the address space), as an APB completer whose PSEL the interconnect
    /// decodes: the address compares stay narrow (issue 11: the setup cycle's decode of the
    /// live PADDR was among the slowest paths). docs/behaviour.md "Addresses".
    pub fn addr_mask(&self) -> u32 {
        ((self.page1_base as u64 + 0x1000).next_power_of_two() - 1) as u32
    }

    /// The register and word an APB byte address selects; `None` is RAZ/WI.
    /// Addresses are word aligned: the low two bits are ignored, and so are the bits above
    /// [`RegisterMap::addr_mask`].
    pub fn lookup(&self, addr: u32) -> Option<(&Register, Word)> {
        let a = addr & !3 & self.addr_mask();
        self.regs.iter().find_map(|r| {
            if r.addr == a {
                Some((r, Word::Low))
            } else if r.bits == 64 && r.addr + 4 == a {
                Some((r, Word::High))
            } else {
                None
            }
        })
    }

    /// Bit mask of `field` in register `id` (0 when this configuration implements either not).
    /// The RTL reads its field positions through this so that they are written only here.
    /// Panics when `field` is no field of `id` in [`REGISTERS`] under any configuration: a
    /// misspelt name is a bug, not an absent field.
    pub fn field_mask(&self, id: RegId, field: &str) -> u64 {
        assert!(
            id.def().fields.iter().any(|f| f.name == field),
            "{field} is not a field of {id:?} in the register table"
        );
        self.get(id)
            .and_then(|r| r.field(field))
            .map(|f| f.mask())
            .unwrap_or(0)
    }

    /// Mask of the field `f` names in this configuration (0 when the configuration does not
    /// implement it): the typed form of [`RegisterMap::field_mask`].
    pub fn mask(&self, f: FieldId) -> u64 {
        self.field_mask(f.reg, f.name)
    }

    /// The field `f` names, as this configuration implements it (`None` when absent).
    pub fn field(&self, f: FieldId) -> Option<&Field> {
        self.get(f.reg).and_then(|r| r.field(f.name))
    }

    /// Address extent of an array register's region (a power of two its base is aligned to).
    pub fn array_extent(&self, id: RegId) -> u32 {
        match id {
            RegId::Evcntr(_) => offset::EVCNTR_EXTENT,
            RegId::Svr(_) => offset::SVR_EXTENT,
            RegId::Evtyper(_) => offset::EVTYPER_EXTENT,
            RegId::Smr(_) => offset::SMR_EXTENT,
            _ => panic!("{id:?} is not an array register"),
        }
    }

    /// Address of the first element of an array register (EVCNTR0, EVTYPER0, SVR0, SMR0),
    /// computed even when the configuration does not implement it.
    pub fn array_base(&self, id: RegId) -> u32 {
        let (reloc, base) = match id {
            RegId::Evcntr(_) => (true, offset::EVCNTR_BASE),
            RegId::Svr(_) => (true, offset::SVR_BASE),
            RegId::Evtyper(_) => (false, offset::EVTYPER_BASE),
            RegId::Smr(_) => (false, offset::SMR_BASE),
            _ => panic!("{id:?} is not an array register"),
        };
        let page1 = self
            .get(RegId::Evcntr(0))
            .map(|r| r.page == 1)
            .unwrap_or(false);
        if reloc && page1 {
            self.page1_base + base
        } else {
            base
        }
    }

    /// Whether an APB address falls in the region of array register `id` (any element,
    /// implemented or not).
    pub fn in_region(&self, id: RegId, addr: u32) -> bool {
        addr & self.addr_mask() & !(self.array_extent(id) - 1) == self.array_base(id)
    }

    /// Whether an APB address falls in the EVCNTR or SVR region of the counters' page (any
    /// element, implemented or not): such an access waits [`COUNTER_HOLD_CYCLES`] cycles before
    /// it is performed.
    pub fn held_access(&self, addr: u32) -> bool {
        self.in_region(RegId::Evcntr(0), addr) || self.in_region(RegId::Svr(0), addr)
    }

    /// Whether an APB address falls in the EVTYPER or SMR region (any element): with filter
    /// tables (`PmcgConfig::filter_tables`) a write there holds the bus until the counter's
    /// filter table column is rebuilt (docs/behaviour.md "Filter tables").
    pub fn filter_access(&self, addr: u32) -> bool {
        self.in_region(RegId::Evtyper(0), addr) || self.in_region(RegId::Smr(0), addr)
    }

    /// The held cycles of an access to `addr`: [`COUNTER_HOLD_CYCLES`] in the EVCNTR and SVR
    /// regions, else 0.
    pub fn hold_cycles(&self, addr: u32) -> u32 {
        if self.held_access(addr) {
            COUNTER_HOLD_CYCLES
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_field_has_exactly_one_typed_handle() {
        use super::{field, RegId, REGISTERS};
        // Each handle names a field of its register's table entry ...
        for f in field::ALL {
            assert!(
                f.reg.def().fields.iter().any(|d| d.name == f.name),
                "{f:?} names no field of its register"
            );
        }
        // ... and every field of every register (aliases aside) has one.
        for def in REGISTERS.iter().filter(|d| (d.id)(0) != RegId::ScrAlias) {
            let id = (def.id)(0);
            for d in def.fields {
                let handles = field::ALL
                    .iter()
                    .filter(|f| f.name == d.name && f.reg.def().name == def.name)
                    .count();
                assert_eq!(handles, 1, "{id:?}.{} has {handles} handles", d.name);
            }
        }
        assert_eq!(field::EVTYPER_OVFCAP.at(5).reg, RegId::Evtyper(5));
        assert_eq!(field::CR_E.at(5).reg, RegId::Cr);
    }

    use super::*;

    #[test]
    fn default_map_addresses() {
        let m = RegisterMap::new(&PmcgConfig::default());
        assert_eq!(m.reg(RegId::Evcntr(1)).addr, 0x1_0008);
        assert_eq!(m.reg(RegId::Svr(2)).addr, 0x1_0610);
        assert_eq!(m.reg(RegId::OvsSet0).addr, 0x1_0CC0);
        assert_eq!(m.reg(RegId::Evtyper(3)).addr, 0x40C);
        assert_eq!(
            m.lookup(0x1_000C),
            Some((m.reg(RegId::Evcntr(1)), Word::High))
        );
        assert_eq!(
            m.lookup(0x0008),
            None,
            "page 0 counter location is RES0 when relocated"
        );
        assert_eq!(m.reg(RegId::Cfgr).reset(), 0x0070_3F3F);
    }

    #[test]
    fn arrays_fit_their_aligned_extents() {
        for cfg in [
            PmcgConfig::default(),
            PmcgConfig::parse_kv(["counter_bits=32", "reloc_ctrs=off"]).unwrap(),
        ] {
            let m = RegisterMap::new(&cfg);
            for id in [
                RegId::Evcntr(0),
                RegId::Evtyper(0),
                RegId::Svr(0),
                RegId::Smr(0),
            ] {
                let (base, extent) = (m.array_base(id), m.array_extent(id));
                assert!(extent.is_power_of_two() && base % extent == 0, "{id:?}");
                for r in m
                    .regs
                    .iter()
                    .filter(|r| std::mem::discriminant(&r.id) == std::mem::discriminant(&id))
                {
                    let end = r.addr + r.bits / 8;
                    assert!(
                        r.addr >= base && end <= base + extent,
                        "{} outside its extent",
                        r.name
                    );
                }
            }
        }
    }

    #[test]
    fn no_two_registers_overlap() {
        for cfg in [
            PmcgConfig::default(),
            PmcgConfig::parse_kv(["counters=7", "counter_bits=32", "reloc_ctrs=off"]).unwrap(),
        ] {
            let m = RegisterMap::new(&cfg);
            let mut words = std::collections::BTreeSet::new();
            for r in &m.regs {
                assert!(words.insert(r.addr), "{} overlaps", r.name);
                if r.bits == 64 {
                    assert!(words.insert(r.addr + 4), "{} high word overlaps", r.name);
                }
            }
        }
    }

    /// docs/behaviour.md "Counter and shadow accesses": every word of every EVCNTR and SVR
    /// register is held, and the words of their regions no register maps (past the last
    /// counter); no other register is, on page 1 or with the counters on page 0.
    #[test]
    fn counter_and_shadow_regions_and_nothing_else_are_held() {
        for cfg in [
            PmcgConfig::parse_kv(["counters=5"]).unwrap(),
            PmcgConfig::parse_kv(["counters=7", "counter_bits=32", "reloc_ctrs=off"]).unwrap(),
        ] {
            let m = RegisterMap::new(&cfg);
            for r in &m.regs {
                let counter = matches!(r.id, RegId::Evcntr(_) | RegId::Svr(_));
                for w in 0..r.bits / 32 {
                    let a = r.addr + 4 * w;
                    assert_eq!(m.held_access(a), counter, "{} word {w}", r.name);
                    let want = if counter { COUNTER_HOLD_CYCLES } else { 0 };
                    assert_eq!(m.hold_cycles(a), want, "{} word {w}", r.name);
                }
            }
            for id in [RegId::Evcntr(0), RegId::Svr(0)] {
                let (base, extent) = (m.array_base(id), m.array_extent(id));
                assert!(
                    m.held_access(base + extent - 4),
                    "{id:?}: last word of the region"
                );
                assert!(
                    !m.held_access(base + extent),
                    "{id:?}: the word after the region"
                );
            }
        }
    }

    #[test]
    fn every_register_and_field_is_described() {
        // Every feature on, so every register and field exists somewhere.
        let cfg = PmcgConfig::parse_kv(["realm=on", "mpam_filter=on", "msi_mpam=on", "counters=2"])
            .unwrap();
        let m = RegisterMap::new(&cfg);
        for r in &m.regs {
            assert!(!r.id.description().is_empty(), "{}", r.name);
            assert!(r.id.spec_section().starts_with("10.5.2."), "{}", r.name);
            for f in &r.fields {
                assert!(
                    !r.id.field_description(f.name).is_empty(),
                    "{}.{} has no description",
                    r.name,
                    f.name
                );
            }
        }
        assert_eq!(m.reg(RegId::ScrAlias).short_name(), "SCR_ALIAS");
        assert_eq!(
            m.reg(RegId::IrqCfg0).restrictions(),
            vec![Restriction::Guarded]
        );
        assert_eq!(
            m.reg(RegId::Rootcr).restrictions(),
            vec![Restriction::RootOnly]
        );
        assert_eq!(m.reg(RegId::Evcntr(1)).page_offset(m.page1_base), 8);
    }

    #[test]
    #[should_panic(expected = "not a field of Cr")]
    fn a_misspelt_field_name_is_caught() {
        RegisterMap::new(&PmcgConfig::default()).field_mask(RegId::Cr, "EN");
    }

    #[test]
    fn an_absent_field_has_an_empty_mask() {
        // FILTER_REALM_SID exists only with Realm.
        let m = RegisterMap::new(&PmcgConfig::default());
        assert_eq!(m.field_mask(RegId::Evtyper(0), "FILTER_REALM_SID"), 0);
        assert_eq!(m.field_mask(RegId::Evtyper(0), "FILTER_SEC_SID"), 1 << 30);
    }

    #[test]
    fn identification_values() {
        let mut cfg = PmcgConfig::default();
        cfg.set("jep106", "0x4:0x3B").unwrap();
        cfg.set("product", "0x4A1:2:3").unwrap();
        let m = RegisterMap::new(&cfg);
        // Arm's encoding as the spec gives it: IIDR[11:0] = 0x43B.
        assert_eq!(m.reg(RegId::Iidr).reset(), 0x4A12_343B);
        assert_eq!(m.reg(RegId::Pidr(0)).reset(), 0xA1);
        assert_eq!(m.reg(RegId::Pidr(1)).reset(), 0xB4);
        assert_eq!(m.reg(RegId::Pidr(2)).reset(), 0x2B);
        assert_eq!(m.reg(RegId::Pidr(4)).reset(), 0x04);
        assert_eq!(m.reg(RegId::PmDevArch).reset(), 0x4770_2A56);
    }
}
