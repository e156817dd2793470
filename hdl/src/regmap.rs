//! The register map: the single source of truth for every offset, field position, access type
//! and reset value of SMMUv3 chapter 10.5 (plain Rust, no rust-hdl types).
//!
//! ```text
//!   REGISTERS (static table, spec 10.5.1/10.5.2)
//!        │ resolve(&PmcgConfig): presence conditions, page 1 relocation, counter stride,
//!        ▼                        config-derived RO values (CFGR, CEID, IIDR, ID regs)
//!   RegisterMap { regs: Vec<Register> } ──► RTL decode constants, reference model, tests, docs
//! ```
//!
//! Everything the RTL or the model needs to know about a register (its address, which bits exist,
//! which bits software may write, how, and what they reset to) is read from a [`Register`].

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
    /// The spec section that defines the register (SMMUv3 chapter 10).
    pub fn spec_section(self) -> &'static str {
        use RegId::*;
        match self {
            Evcntr(_) => "10.5.2.1",
            Evtyper(_) => "10.5.2.2",
            Svr(_) => "10.5.2.3",
            Smr(_) => "10.5.2.4",
            CntenSet0 => "10.5.2.5",
            CntenClr0 => "10.5.2.6",
            IntenSet0 => "10.5.2.7",
            IntenClr0 => "10.5.2.8",
            OvsClr0 => "10.5.2.9",
            OvsSet0 => "10.5.2.10",
            Capr => "10.5.2.11",
            Scr | ScrAlias => "10.5.2.12",
            Cfgr => "10.5.2.13",
            Cr => "10.5.2.14",
            Iidr => "10.5.2.15",
            Ceid0 => "10.5.2.16",
            Ceid1 => "10.5.2.17",
            Rootcr => "10.5.2.18",
            IrqCtrl => "10.5.2.19",
            IrqCtrlAck => "10.5.2.20",
            IrqCfg0 => "10.5.2.21",
            IrqCfg1 => "10.5.2.22",
            IrqCfg2 => "10.5.2.23",
            IrqStatus => "10.5.2.24",
            Gmpam => "10.5.2.25",
            Aidr => "10.5.2.26",
            Mpamidr => "10.5.2.27",
            SMpamidr => "10.5.2.28",
            PmDevArch | PmDevType | Pidr(_) | Cidr(_) => "10.5.2.29",
        }
    }

    /// A one-line description of the register.
    pub fn description(self) -> &'static str {
        use RegId::*;
        match self {
            Evcntr(_) => "Event counter: counts the event EVTYPERn selects",
            Evtyper(_) => "Event type and filter controls of counter n",
            Svr(_) => "Shadow value of counter n, written by a capture",
            Smr(_) => "StreamID (or MPAM PARTID/PMG) filter match value of counter n",
            CntenSet0 => "Counter enables: write 1 to enable",
            CntenClr0 => "Counter enables: write 1 to disable",
            IntenSet0 => "Overflow interrupt enables: write 1 to enable",
            IntenClr0 => "Overflow interrupt enables: write 1 to disable",
            OvsClr0 => "Overflow status: write 1 to clear",
            OvsSet0 => "Overflow status: write 1 to set",
            Capr => "Capture: write 1 to copy every counter to its SVR",
            Scr => "Secure control: Secure observation and Non-secure access",
            ScrAlias => "Alias of SCR (with Realm): the same storage",
            Rootcr => "Root control: Realm and Root observation",
            Cfgr => "Configuration: counters, size and features implemented",
            Cr => "Global counter enable",
            Iidr => "Implementation identification",
            Ceid0 => "Common events implemented, IDs 0-63",
            Ceid1 => "Common events implemented, IDs 64-127",
            IrqCtrl => "Interrupt (wired and MSI) enable",
            IrqCtrlAck => "Acknowledge of IRQ_CTRL: the enable in effect",
            IrqCfg0 => "MSI target address",
            IrqCfg1 => "MSI payload",
            IrqCfg2 => "MSI memory attributes and shareability",
            IrqStatus => "MSI status: an MSI write was aborted",
            Gmpam => "MPAM PARTID and PMG of the MSIs",
            Aidr => "Architecture version (SMMUv3.3)",
            Mpamidr => "Non-secure MPAM PARTID and PMG limits",
            SMpamidr => "Secure MPAM PARTID and PMG limits",
            PmDevArch => "CoreSight device architecture",
            PmDevType => "CoreSight device type",
            Pidr(_) => "CoreSight peripheral identification",
            Cidr(_) => "CoreSight component identification",
        }
    }

    /// A one-line description of field `field` of this register ("" for an unknown name).
    pub fn field_description(self, field: &str) -> &'static str {
        use RegId::*;
        match (self, field) {
            (Evcntr(_), _) => "Counter value",
            (Svr(_), _) => "Counter value at the last capture",
            (Evtyper(_), "EVENT") => "Event ID counted",
            (Evtyper(_), "FILTER_SID_SPAN") => "1: SMR is a StreamID span, 0: an exact StreamID",
            (Evtyper(_), "FILTER_SEC_SID") => "Count Secure StreamIDs (with SCR.SO)",
            (Evtyper(_), "FILTER_REALM_SID") => "Count Realm StreamIDs (with ROOTCR.RLO)",
            (Evtyper(_), "FILTER_PARTID") => "Filter on MPAM PARTID",
            (Evtyper(_), "FILTER_PMG") => "Filter on MPAM PMG",
            (Evtyper(_), "FILTER_MPAM_SP") => "MPAM PARTID space the filter matches",
            (Evtyper(_), "OVFCAP") => "An overflow of this counter captures every counter",
            (Smr(_), "STREAMID") => "StreamID match value or span",
            (Smr(_), "PARTID") => "PARTID match value (MPAM filter view)",
            (Smr(_), "PMG") => "PMG match value (MPAM filter view)",
            (CntenSet0 | CntenClr0, _) => "Counter n enabled",
            (IntenSet0 | IntenClr0, _) => "Counter n overflow raises the interrupt",
            (OvsClr0 | OvsSet0, _) => "Counter n overflowed",
            (Capr, _) => "Write 1: capture",
            (Scr | ScrAlias, "SO") => "Secure events observed",
            (Scr | ScrAlias, "NSRA") => "Non-secure register access allowed",
            (Scr | ScrAlias, "NSMSI") => "MSIs are Non-secure",
            (Scr | ScrAlias, "NAO") => "Non-attributable events observed (Secure)",
            (Scr | ScrAlias, "READS_AS_ONE") => "Reads as one",
            (Rootcr, "RTO") => "Root events observed",
            (Rootcr, "RLO") => "Realm events observed",
            (Rootcr, "NAO") => "Non-attributable events observed (Root)",
            (Rootcr, "SAO") => "Secure-state register access observed",
            (Rootcr, "PMO") => "Performance monitoring observed",
            (Rootcr, "ROOTCR_IMPL") => "ROOTCR implemented",
            (Cfgr, "NCTR") => "Number of counters minus one",
            (Cfgr, "SIZE") => "Counter size in bits minus one",
            (Cfgr, "RELOC_CTRS") => "Counters are in page 1",
            (Cfgr, "MSI") => "MSIs supported",
            (Cfgr, "CAPTURE") => "Capture supported",
            (Cfgr, "SID_FILTER_TYPE") => "1: one global filter (EVTYPER0/SMR0)",
            (Cfgr, "MPAM") => "MSIs carry MPAM labels",
            (Cfgr, "FILTER_PARTID_PMG") => "MPAM PARTID/PMG filtering supported",
            (Cr, _) => "Global counter enable",
            (Iidr, "Implementer") => "JEP106 code of the implementer",
            (Iidr, "Revision") => "Revision",
            (Iidr, "Variant") => "Variant",
            (Iidr, "ProductID") => "Product",
            (Ceid0 | Ceid1, _) => "Bit n: event n (or 64 + n) implemented",
            (IrqCtrl, _) => "Interrupts enabled",
            (IrqCtrlAck, _) => "IRQ_CTRL.IRQEN in effect",
            (IrqCfg0, _) => "MSI address bits [pa_bits-1:2]",
            (IrqCfg1, _) => "MSI data",
            (IrqCfg2, "MEMATTR") => "MSI memory type",
            (IrqCfg2, "SH") => "MSI shareability",
            (IrqStatus, _) => "The last MSI write was aborted",
            (Gmpam, "PO_PARTID") => "MSI PARTID",
            (Gmpam, "PO_PMG") => "MSI PMG",
            (Gmpam, "UPDATE") => "Update in progress (always 0 here)",
            (Aidr, "ArchMinorRev") => "Minor revision",
            (Aidr, "ArchMajorRev") => "Major revision",
            (Mpamidr | SMpamidr, "PARTID_MAX") => "Largest PARTID",
            (Mpamidr | SMpamidr, "PMG_MAX") => "Largest PMG",
            (PmDevArch, _) => "Architect, architecture and revision",
            (PmDevType, _) => "Performance monitor associated with an SMMU",
            (Pidr(_) | Cidr(_), _) => "Identification byte",
            _ => "",
        }
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

/// AIDR value: SMMUv3.3 PMCG (10.5.2.26).
pub const AIDR_VALUE: u64 = 0x03;
/// PMDEVARCH: ARCHITECT 0x23B (Arm), PRESENT, REVISION 0, ARCHID 0x2A56 (10.5.2.29).
pub const PMDEVARCH_VALUE: u64 = (0x23B << 21) | (1 << 20) | 0x2A56;
/// PMDEVTYPE: sub-type 5 (associated with an SMMU), class 6 (performance monitor) (10.5.2.29).
pub const PMDEVTYPE_VALUE: u64 = 0x56;
/// CIDR0-3 preambles and CoreSight class 0x9 (10.5.2.29).
pub const CIDR_VALUES: [u64; 4] = [0x0D, 0x90, 0x05, 0xB1];

fn f(name: &'static str, lsb: u32, width: u32, access: Access, reset: u64) -> Field {
    Field {
        name,
        lsb,
        width,
        access,
        reset,
    }
}

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
    /// Resolves the map for a validated configuration.
    pub fn new(cfg: &PmcgConfig) -> RegisterMap {
        use offset::*;
        use Access::*;
        let page1_base = cfg.page1_offset;
        let counter_stride = if cfg.wide_counters() { 8 } else { 4 };
        let counter_reg_bits = if cfg.wide_counters() { 64 } else { 32 };
        // 10.5.1: with RELOC_CTRS these registers move to page 1 and page 0 becomes RES0.
        let (reloc_page, reloc_base) = if cfg.reloc_ctrs {
            (1, page1_base)
        } else {
            (0, 0)
        };
        let bitmap = cfg.counters;
        let mut regs = Vec::new();
        let mut push = |id, name: String, addr, page, bits, fields: Vec<Field>| {
            regs.push(Register {
                id,
                name,
                addr,
                page,
                bits,
                secure_only: false,
                root_write: false,
                guarded: false,
                fields,
            })
        };
        for n in 0..cfg.counters {
            push(
                RegId::Evcntr(n),
                format!("SMMU_PMCG_EVCNTR{n}"),
                reloc_base + EVCNTR_BASE + counter_stride * n,
                reloc_page,
                counter_reg_bits,
                vec![f("COUNTER_VALUE", 0, cfg.counter_bits, RW, 0)],
            );
        }
        for n in 0..cfg.counters {
            // 10.5.2.2: the filter fields exist in every EVTYPERn with per-counter filters, and
            // only in EVTYPER0 with the global filter.
            let has_filter = n == 0 || cfg.sid_filter == SidFilterType::PerCounter;
            let mut fields = vec![f("EVENT", 0, 16, RW, 0)];
            if has_filter {
                fields.push(f("FILTER_SID_SPAN", 29, 1, RW, 0));
                if cfg.secure {
                    fields.push(f("FILTER_SEC_SID", 30, 1, RW, 0));
                }
                if cfg.realm {
                    fields.push(f("FILTER_REALM_SID", 28, 1, RW, 0));
                }
                if cfg.mpam_filter {
                    // 10.5.2.2: FILTER_MPAM_SP[1] (bit 19) exists only with ROOTCR_IMPL = 1.
                    fields.push(f("FILTER_PARTID", 16, 1, RW, 0));
                    fields.push(f("FILTER_PMG", 17, 1, RW, 0));
                    let sp_width = if cfg.realm { 2 } else { 1 };
                    fields.push(f("FILTER_MPAM_SP", 18, sp_width, RW, 0));
                }
            }
            if cfg.capture {
                fields.push(f("OVFCAP", 31, 1, RW, 0));
            }
            push(
                RegId::Evtyper(n),
                format!("SMMU_PMCG_EVTYPER{n}"),
                EVTYPER_BASE + 4 * n,
                0,
                32,
                fields,
            );
        }
        if cfg.capture {
            for n in 0..cfg.counters {
                push(
                    RegId::Svr(n),
                    format!("SMMU_PMCG_SVR{n}"),
                    reloc_base + SVR_BASE + counter_stride * n,
                    reloc_page,
                    counter_reg_bits,
                    vec![f("SHADOW_COUNTER_VALUE", 0, cfg.counter_bits, RO, 0)],
                );
            }
        }
        for n in 0..cfg.counters {
            // 10.5.2.4: SMRn exists for n == 0 or per-counter filters; STREAMID implements
            // sid_bits bits, the rest RAZ/WI (10.4.1).
            // With the MPAM filter the same bits also hold PARTID [15:0] and PMG [23:16]
            // (overlapping views of one storage, selected by EVTYPERn).
            if n == 0 || cfg.sid_filter == SidFilterType::PerCounter {
                let mut fields = vec![f("STREAMID", 0, cfg.sid_bits, RW, 0)];
                if cfg.mpam_filter {
                    fields.push(f("PARTID", 0, 16, RW, 0));
                    fields.push(f("PMG", 16, 8, RW, 0));
                }
                push(
                    RegId::Smr(n),
                    format!("SMMU_PMCG_SMR{n}"),
                    SMR_BASE + 4 * n,
                    0,
                    32,
                    fields,
                );
            }
        }
        let bitmaps = [
            (
                RegId::CntenSet0,
                "SMMU_PMCG_CNTENSET0",
                CNTENSET0,
                0,
                0,
                W1S,
                "CNTEN",
            ),
            (
                RegId::CntenClr0,
                "SMMU_PMCG_CNTENCLR0",
                CNTENCLR0,
                0,
                0,
                W1C,
                "CNTEN",
            ),
            (
                RegId::IntenSet0,
                "SMMU_PMCG_INTENSET0",
                INTENSET0,
                0,
                0,
                W1S,
                "INTEN",
            ),
            (
                RegId::IntenClr0,
                "SMMU_PMCG_INTENCLR0",
                INTENCLR0,
                0,
                0,
                W1C,
                "INTEN",
            ),
            (
                RegId::OvsClr0,
                "SMMU_PMCG_OVSCLR0",
                OVSCLR0,
                reloc_page,
                reloc_base,
                W1C,
                "OVS",
            ),
            (
                RegId::OvsSet0,
                "SMMU_PMCG_OVSSET0",
                OVSSET0,
                reloc_page,
                reloc_base,
                W1S,
                "OVS",
            ),
        ];
        for (id, name, off, page, base, access, field) in bitmaps {
            push(
                id,
                name.into(),
                base + off,
                page,
                64,
                vec![f(field, 0, bitmap, access, 0)],
            );
        }
        if cfg.capture {
            push(
                RegId::Capr,
                "SMMU_PMCG_CAPR".into(),
                reloc_base + CAPR,
                reloc_page,
                32,
                vec![f("CAPTURE", 0, 1, WO, 0)],
            );
        }
        if cfg.secure {
            let mut fields = vec![f("SO", 0, 1, RW, 0), f("NSRA", 1, 1, RW, 1)];
            if cfg.msi {
                fields.push(f("NSMSI", 2, 1, RW, 1));
            }
            if cfg.realm {
                fields.push(f("NAO", 4, 1, RW, 0));
            }
            fields.push(f("READS_AS_ONE", 31, 1, RO, 1));
            if cfg.realm {
                push(
                    RegId::ScrAlias,
                    "SMMU_PMCG_SCR (alias)".into(),
                    SCR_ALIAS,
                    0,
                    32,
                    fields.clone(),
                );
            }
            push(RegId::Scr, "SMMU_PMCG_SCR".into(), SCR, 0, 32, fields);
        }
        if cfg.realm {
            // 10.5.2.18; SAO and PMO exist because Realm here implies GDI (docs/behaviour.md).
            push(
                RegId::Rootcr,
                "SMMU_PMCG_ROOTCR".into(),
                ROOTCR,
                0,
                32,
                vec![
                    f("RTO", 0, 1, RW, 0),
                    f("RLO", 1, 1, RW, 0),
                    f("NAO", 3, 1, RW, 1),
                    f("SAO", 7, 1, RW, 0),
                    f("PMO", 8, 1, RW, 0),
                    f("ROOTCR_IMPL", 31, 1, RO, 1),
                ],
            );
        }
        if cfg.msi_mpam {
            // 10.5.2.25: bits above the combined PARTID / PMG widths of MPAMIDR and S_MPAMIDR are
            // RES0; Update reads 0 (an update completes at its write's edge, docs/behaviour.md).
            let width = |max: u64| 64 - max.leading_zeros();
            let mut partid_max = cfg.partid_max as u64;
            let mut pmg_max = cfg.pmg_max as u64;
            if cfg.secure {
                partid_max = partid_max.max(cfg.s_partid_max as u64);
                pmg_max = pmg_max.max(cfg.s_pmg_max as u64);
            }
            let mut fields = Vec::new();
            if partid_max > 0 {
                fields.push(f("PO_PARTID", 0, width(partid_max), RW, 0));
            }
            if pmg_max > 0 {
                fields.push(f("PO_PMG", 16, width(pmg_max), RW, 0));
            }
            fields.push(f("UPDATE", 31, 1, RO, 0));
            push(RegId::Gmpam, "SMMU_PMCG_GMPAM".into(), GMPAM, 0, 32, fields);
        }
        if cfg.mpam_filter || cfg.msi_mpam {
            // 10.5.2.27/28: the PARTID/PMG limits of the filter and of MSIs.
            push(
                RegId::Mpamidr,
                "SMMU_PMCG_MPAMIDR".into(),
                MPAMIDR,
                0,
                32,
                vec![
                    f("PARTID_MAX", 0, 16, RO, cfg.partid_max as u64),
                    f("PMG_MAX", 16, 8, RO, cfg.pmg_max as u64),
                ],
            );
            if cfg.secure {
                push(
                    RegId::SMpamidr,
                    "SMMU_PMCG_S_MPAMIDR".into(),
                    S_MPAMIDR,
                    0,
                    32,
                    vec![
                        f("PARTID_MAX", 0, 16, RO, cfg.s_partid_max as u64),
                        f("PMG_MAX", 16, 8, RO, cfg.s_pmg_max as u64),
                    ],
                );
            }
        }
        let cfgr = [
            f("NCTR", 0, 6, RO, (cfg.counters - 1) as u64),
            f("SIZE", 8, 6, RO, (cfg.counter_bits - 1) as u64),
            f("RELOC_CTRS", 20, 1, RO, cfg.reloc_ctrs as u64),
            f("MSI", 21, 1, RO, cfg.msi as u64),
            f("CAPTURE", 22, 1, RO, cfg.capture as u64),
            f(
                "SID_FILTER_TYPE",
                23,
                1,
                RO,
                (cfg.sid_filter == SidFilterType::Global) as u64,
            ),
            f("MPAM", 24, 1, RO, cfg.msi_mpam as u64),
            f("FILTER_PARTID_PMG", 25, 1, RO, cfg.mpam_filter as u64),
        ];
        push(
            RegId::Cfgr,
            "SMMU_PMCG_CFGR".into(),
            CFGR,
            0,
            32,
            cfgr.to_vec(),
        );
        push(
            RegId::Cr,
            "SMMU_PMCG_CR".into(),
            CR,
            0,
            32,
            vec![f("E", 0, 1, RW, 0)],
        );
        let id = &cfg.ident;
        let implementer = ((id.jep106_continuation as u64) << 8) | id.jep106_id as u64;
        push(
            RegId::Iidr,
            "SMMU_PMCG_IIDR".into(),
            IIDR,
            0,
            32,
            vec![
                f("Implementer", 0, 12, RO, implementer),
                f("Revision", 12, 4, RO, id.revision as u64),
                f("Variant", 16, 4, RO, id.variant as u64),
                f("ProductID", 20, 12, RO, id.product_id as u64),
            ],
        );
        let (mut ceid0, mut ceid1) = (0u64, 0u64);
        for e in cfg.supported_events() {
            match e {
                0..=63 => ceid0 |= 1 << e,
                64..=127 => ceid1 |= 1 << (e - 64),
                _ => {} // CEID covers events 0-127 only (10.5.2.16/17).
            }
        }
        push(
            RegId::Ceid0,
            "SMMU_PMCG_CEID0".into(),
            CEID0,
            0,
            64,
            vec![f("N", 0, 64, RO, ceid0)],
        );
        push(
            RegId::Ceid1,
            "SMMU_PMCG_CEID1".into(),
            CEID1,
            0,
            64,
            vec![f("N", 0, 64, RO, ceid1)],
        );
        push(
            RegId::IrqCtrl,
            "SMMU_PMCG_IRQ_CTRL".into(),
            IRQ_CTRL,
            0,
            32,
            vec![f("IRQEN", 0, 1, RW, 0)],
        );
        push(
            RegId::IrqCtrlAck,
            "SMMU_PMCG_IRQ_CTRLACK".into(),
            IRQ_CTRLACK,
            0,
            32,
            vec![f("IRQEN", 0, 1, RO, 0)],
        );
        if cfg.msi {
            push(
                RegId::IrqCfg0,
                "SMMU_PMCG_IRQ_CFG0".into(),
                IRQ_CFG0,
                0,
                64,
                vec![f("ADDR", 2, cfg.pa_bits - 2, RW, 0)],
            );
            push(
                RegId::IrqCfg1,
                "SMMU_PMCG_IRQ_CFG1".into(),
                IRQ_CFG1,
                0,
                32,
                vec![f("DATA", 0, 32, RW, 0)],
            );
            push(
                RegId::IrqCfg2,
                "SMMU_PMCG_IRQ_CFG2".into(),
                IRQ_CFG2,
                0,
                32,
                vec![f("MEMATTR", 0, 4, RW, 0), f("SH", 4, 2, RW, 0)],
            );
            push(
                RegId::IrqStatus,
                "SMMU_PMCG_IRQ_STATUS".into(),
                IRQ_STATUS,
                0,
                32,
                vec![f("IRQ_ABT", 0, 1, RO, 0)],
            );
        }
        push(
            RegId::Aidr,
            "SMMU_PMCG_AIDR".into(),
            AIDR,
            0,
            32,
            vec![
                f("ArchMinorRev", 0, 4, RO, AIDR_VALUE & 0xF),
                f("ArchMajorRev", 4, 4, RO, AIDR_VALUE >> 4),
            ],
        );
        push(
            RegId::PmDevArch,
            "SMMU_PMCG_PMDEVARCH".into(),
            PMDEVARCH,
            0,
            32,
            vec![f("PMDEVARCH", 0, 32, RO, PMDEVARCH_VALUE)],
        );
        push(
            RegId::PmDevType,
            "SMMU_PMCG_PMDEVTYPE".into(),
            PMDEVTYPE,
            0,
            32,
            vec![f("PMDEVTYPE", 0, 8, RO, PMDEVTYPE_VALUE)],
        );
        // 10.5.2.29: CoreSight peripheral ID; DES_0/1/2 carry the JEP106 code.
        let part = id.product_id as u64;
        let jep = id.jep106_id as u64;
        let pidr = [
            part & 0xFF,
            ((jep & 0xF) << 4) | (part >> 8),
            ((id.variant as u64) << 4) | (1 << 3) | (jep >> 4),
            ((id.revision as u64) << 4) | id.cmod as u64,
            id.jep106_continuation as u64,
            0,
            0,
            0,
        ];
        for (k, value) in pidr.into_iter().enumerate() {
            let k = k as u32;
            let addr = if k < 4 {
                PIDR0 + 4 * k
            } else {
                PIDR4 + 4 * (k - 4)
            };
            let fields = if k < 5 {
                vec![f("VALUE", 0, 8, RO, value)]
            } else {
                vec![]
            };
            push(
                RegId::Pidr(k),
                format!("SMMU_PMCG_PIDR{k}"),
                addr,
                0,
                32,
                fields,
            );
        }
        for (k, value) in CIDR_VALUES.into_iter().enumerate() {
            let k = k as u32;
            push(
                RegId::Cidr(k),
                format!("SMMU_PMCG_CIDR{k}"),
                CIDR0 + 4 * k,
                0,
                32,
                vec![f("VALUE", 0, 8, RO, value)],
            );
        }
        for r in regs.iter_mut() {
            r.secure_only = matches!(r.id, RegId::Scr | RegId::ScrAlias | RegId::SMpamidr);
            r.root_write = r.id == RegId::Rootcr;
            r.guarded = matches!(r.id, RegId::IrqCfg0 | RegId::IrqCfg1 | RegId::IrqCfg2);
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

    /// The register and word an APB byte address selects; `None` is RAZ/WI.
    /// Addresses are word aligned: the low two bits are ignored.
    pub fn lookup(&self, addr: u32) -> Option<(&Register, Word)> {
        let a = addr & !3;
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

    /// Bit mask of `field` in register `id` (0 when either is absent). The RTL reads its field
    /// positions through this so that they are written only here.
    pub fn field_mask(&self, id: RegId, field: &str) -> u64 {
        self.get(id)
            .and_then(|r| r.field(field))
            .map(|f| f.mask())
            .unwrap_or(0)
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
}

#[cfg(test)]
mod tests {
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
