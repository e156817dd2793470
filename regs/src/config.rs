//! The one validated configuration of a PMCG instance (plain Rust, no rust-hdl types), and the
//! one table of its configuration keys.
//!
//! Every build-time choice the architecture leaves IMPLEMENTATION DEFINED lives here; the
//! register map ([`crate::regmap`]) turns it into CFGR, CEID0/1, IIDR, AIDR and the ID registers.
//! [`PmcgConfig::validate`] rejects a bad configuration with an error naming the key.
//!
//! ```text
//!   CONFIG_KEYS[i] = { key, kind (its values), default, register, description, get, put }
//!     ├─ default, kind.parse, put ──► PmcgConfig::default
//!     ├─ kind.parse (+check), put ──► PmcgConfig::set / parse_kv ◄── KEY=VALUE items: a script's
//!     │                                 `config` line, gen/synth/timing arguments and --config
//!     │                                 files (a key given twice is an error)
//!     ├─ kind.check, get ───────────► PmcgConfig::validate, then the rules between keys
//!     ├─ kind.render, get ──────────► PmcgConfig::summary (Verilog header, reports, stamps)
//!     ├─ get ───────────────────────► pmcg_synth::config_json (`gen`'s JSON "config" object)
//!     └─ every column ──────────────► markdown_key_table (README.md's generated key table)
//! ```
//! A key is added in one place, [`CONFIG_KEYS`]; `README.md`'s table between the
//! `config-keys` markers is checked against it by a test (`PMCG_BLESS=1` rewrites it).

use std::fmt;

/// Counter widths the architecture allows (10.5.2.13 CFGR.SIZE + 1): key `counter_bits`.
pub const ALLOWED_COUNTER_BITS: [u64; 6] = [32, 36, 40, 44, 48, 64];
/// Most lanes a configuration may have: each counter adds at most this much per cycle.
pub const MAX_LANES: u32 = 8;
/// Width of the per-lane event vector in the RTL core: one bit per StreamID-filterable event.
pub const LANE_EVENT_BITS: u32 = 32;
/// Architected StreamID-filterable events always present (10.3: events 1-5 are mandatory).
pub const MANDATORY_LANE_EVENTS: [u16; 5] = [1, 2, 3, 4, 5];
/// Architected events present only with ATS (10.3: events 6 and 7).
pub const ATS_LANE_EVENTS: [u16; 2] = [6, 7];
/// The core's `lane_mpam` input packs a lane's MPAM labels like SMRn packs the filter's:
/// PARTID [15:0], PMG [23:16], and the PARTID space [25:24] (0 Secure, 1 Non-secure, 2 Root,
/// 3 Realm: the FILTER_MPAM_SP encoding).
pub const LANE_MPAM_SP_LSB: u32 = 24;
/// The PARTID-space bits of `lane_mpam`.
pub const LANE_MPAM_SP_FIELD: u64 = 3 << LANE_MPAM_SP_LSB;

/// The `lane_mpam` word of a lane's PARTID, PMG and PARTID-space code.
pub fn lane_mpam_word(partid: u16, pmg: u8, space: u32) -> u32 {
    partid as u32 | (pmg as u32) << 16 | (space & 3) << LANE_MPAM_SP_LSB
}

/// First IMPLEMENTATION DEFINED event number (10.3).
pub const FIRST_IMPDEF_EVENT: u16 = 0x80;
/// Event 0 counts PMCG clock cycles; it is not a lane event (10.3, Armv8 PMU D14.4).
pub const CYCLE_EVENT: u16 = 0;

/// CFGR.SID_FILTER_TYPE (10.5.2.13).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SidFilterType {
    /// 0: each counter has its own SMRn and EVTYPERn filter fields.
    PerCounter,
    /// 1: SMR0 and EVTYPER0's filter fields apply to every counter.
    Global,
}

/// CoreSight/JEP106 identification of the implementation (10.5.2.15 IIDR, 10.5.2.29 ID_REGS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Identification {
    /// JEP106 continuation code (IIDR[11:8], PIDR4.DES_2), 0-15.
    pub jep106_continuation: u8,
    /// JEP106 identification code without parity (IIDR[6:0], PIDR1/2 DES_0/DES_1), 0-127.
    pub jep106_id: u8,
    /// Part number (IIDR.ProductID, PIDR0/1 PART_0/PART_1), 0-0xFFF.
    pub product_id: u16,
    /// Major revision (IIDR.Variant, PIDR2.REVISION), 0-15.
    pub variant: u8,
    /// Minor revision (IIDR.Revision, PIDR3.REVAND), 0-15.
    pub revision: u8,
    /// Customer modification (PIDR3.CMOD), 0-15.
    pub cmod: u8,
}

/// A PMCG configuration. Build one with [`PmcgConfig::default`] or [`PmcgConfig::parse_kv`],
/// then [`PmcgConfig::validate`] it; the RTL, model and register map accept only validated ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmcgConfig {
    /// Number of counters, 1-64 (CFGR.NCTR + 1).
    pub counters: u32,
    /// Counter width in bits: 32, 36, 40, 44, 48 or 64 (CFGR.SIZE + 1).
    pub counter_bits: u32,
    /// Implemented StreamID bits of SMRn.STREAMID, 1-32 (10.4.1).
    pub sid_bits: u32,
    /// Event lanes, 1-[`MAX_LANES`]: independent event sources sampled every cycle.
    pub lanes: u32,
    /// ATS events 6 and 7 are supported.
    pub ats: bool,
    /// IMPLEMENTATION DEFINED event numbers (>= 0x80), each a lane event, in lane-bit order.
    pub impdef_events: Vec<u16>,
    /// IMPLEMENTATION DEFINED events (a subset of `impdef_events`) that are not related to any
    /// StreamID: like event 0 they ignore every StreamID and security filter (10.4).
    pub impdef_global: Vec<u16>,
    /// IMPLEMENTATION DEFINED events (a subset of `impdef_events`, none of them global) that are
    /// non-attributable (10.4.4): they ignore the StreamID, security and MPAM filters, and count
    /// only when SCR.SO (and, with Realm, ROOTCR.NAO and SCR.NAO) permit.
    pub impdef_nonattr: Vec<u16>,
    /// CFGR.CAPTURE: SVRn and CAPR are implemented.
    pub capture: bool,
    /// CFGR.MSI: IRQ_CFG0/1/2 and IRQ_STATUS are implemented.
    pub msi: bool,
    /// Secure state is implemented (SCR present, PPROT[1] honoured) (10.6).
    pub secure: bool,
    /// Realm and Root state (10.7): ROOTCR with ROOTCR_IMPL = 1, EVTYPER.FILTER_REALM_SID, the SCR
    /// alias at 0xE40, SCR.NAO and the APB5 PNSE input. Needs `secure`.
    pub realm: bool,
    /// CFGR.FILTER_PARTID_PMG: MPAM PARTID/PMG event filtering (10.4.3) and MPAMIDR/S_MPAMIDR.
    pub mpam_filter: bool,
    /// CFGR.MPAM: MSIs carry the PARTID and PMG of GMPAM (10.5.2.25) on sideband outputs.
    /// Needs `msi`.
    pub msi_mpam: bool,
    /// MPAMIDR.PARTID_MAX and PMG_MAX: the Non-secure (and Realm) filter limits.
    pub partid_max: u16,
    pub pmg_max: u8,
    /// S_MPAMIDR.PARTID_MAX and PMG_MAX: the Secure filter limits.
    pub s_partid_max: u16,
    pub s_pmg_max: u8,
    /// CFGR.SID_FILTER_TYPE.
    pub sid_filter: SidFilterType,
    /// The per-counter StreamID filters are kept as block-RAM lookup tables
    /// (hdl/src/filter_table.rs) instead of flip-flop compares: an EVTYPERn or SMRn write then
    /// holds the bus while its counter's table column is rebuilt (docs/behaviour.md).
    pub filter_tables: bool,
    /// CFGR.RELOC_CTRS: page 1 is present and holds EVCNTRn, SVRn, OVSCLR0/OVSSET0 and CAPR.
    pub reloc_ctrs: bool,
    /// APB byte address of page 1 relative to page 0 (a multiple of 4 KiB). Default 64 KiB, so a
    /// hypervisor can map page 1 alone with a 64 KB stage 2 granule (10.5).
    pub page1_offset: u32,
    /// Physical address size for MSI targets in bits (IRQ_CFG0.ADDR bits above it are RES0).
    pub pa_bits: u32,
    /// IIDR and CoreSight identification.
    pub ident: Identification,
}

impl Default for PmcgConfig {
    /// Every key at its [`ConfigKey::default`] (the defaults live only in [`CONFIG_KEYS`]):
    /// 64 counters x 64 bits, 16 StreamID bits, one lane, capture, MSI, Secure state (no Realm),
    /// per-counter filters, no MPAM, page 1 relocated 64 KiB above page 0.
    fn default() -> Self {
        let mut cfg = PmcgConfig::unset();
        for k in &CONFIG_KEYS {
            // A default that does not parse is a bug of the table, which every test exercises.
            let value = k
                .kind
                .parse(k.key, k.default)
                .unwrap_or_else(|e| panic!("key table: default of {}: {e}", k.key));
            (k.put)(&mut cfg, value);
        }
        cfg
    }
}

impl PmcgConfig {
    /// Every field zero, empty or off: only the base [`Default`] fills from the key table.
    fn unset() -> Self {
        PmcgConfig {
            counters: 0,
            counter_bits: 0,
            sid_bits: 0,
            lanes: 0,
            ats: false,
            impdef_events: Vec::new(),
            impdef_global: Vec::new(),
            impdef_nonattr: Vec::new(),
            capture: false,
            msi: false,
            secure: false,
            realm: false,
            mpam_filter: false,
            msi_mpam: false,
            partid_max: 0,
            pmg_max: 0,
            s_partid_max: 0,
            s_pmg_max: 0,
            sid_filter: SidFilterType::PerCounter,
            filter_tables: false,
            reloc_ctrs: false,
            page1_offset: 0,
            pa_bits: 0,
            ident: Identification {
                jep106_continuation: 0,
                jep106_id: 0,
                product_id: 0,
                variant: 0,
                revision: 0,
                cmod: 0,
            },
        }
    }
}

/// A configuration error: the offending field and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The configuration key (as used in scripts and on the command line).
    pub field: String,
    /// What is wrong with its value.
    pub reason: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid configuration: {}: {}", self.field, self.reason)
    }
}

impl std::error::Error for ConfigError {}

fn err(field: &str, reason: impl Into<String>) -> ConfigError {
    ConfigError {
        field: field.to_string(),
        reason: reason.into(),
    }
}

/// Parses a decimal or 0x-hex number.
pub fn parse_number(text: &str) -> Option<u64> {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(&hex.replace('_', ""), 16).ok()
    } else {
        t.replace('_', "").parse().ok()
    }
}

/// Why `text` is not a number: too large for 64 bits when it is written like one, else not one.
fn not_a_number(text: &str) -> String {
    let t = text.trim().replace('_', "");
    let digits = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()),
        None => !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()),
    };
    if digits {
        format!("`{text}` is too large (more than 64 bits)")
    } else {
        format!("expected a number, got `{text}`")
    }
}

/// The values a key takes: drives its parser, its range check, its canonical text and the
/// "values" column of its documentation.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A number from `min` to `max` that is a multiple of `step`; written in hex when `hex`.
    Number {
        min: u64,
        max: u64,
        step: u64,
        hex: bool,
    },
    /// One of these numbers.
    OneOf(&'static [u64]),
    /// `on` or `off` (`true`/`false` and `1`/`0` are accepted too).
    OnOff,
    /// One of these words.
    Word(&'static [&'static str]),
    /// `none` or a comma list of distinct IMPLEMENTATION DEFINED event numbers (>= 0x80).
    Events,
    /// Numbers separated by `:`, each named and with its maximum; the parts after the first
    /// `required` ones may be left out (they are then 0).
    Parts {
        names: &'static [&'static str],
        max: &'static [u64],
        required: usize,
    },
}

/// One key's value, as [`Kind::parse`] reads it and [`ConfigKey::value`] returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyValue {
    Number(u64),
    Flag(bool),
    Word(&'static str),
    Events(Vec<u16>),
    Parts(Vec<u64>),
}

impl KeyValue {
    // The key table pairs each key's Kind with a getter/setter of the same shape; a mismatch is a
    // bug of the table (every key is set and read by `PmcgConfig::default` and the tests).
    fn number(&self) -> u64 {
        match self {
            KeyValue::Number(n) => *n,
            other => unreachable!("key table: expected a number, got {other:?}"),
        }
    }
    fn flag(&self) -> bool {
        match self {
            KeyValue::Flag(b) => *b,
            other => unreachable!("key table: expected on/off, got {other:?}"),
        }
    }
    fn word(&self) -> &'static str {
        match self {
            KeyValue::Word(w) => w,
            other => unreachable!("key table: expected a word, got {other:?}"),
        }
    }
    fn events(self) -> Vec<u16> {
        match self {
            KeyValue::Events(e) => e,
            other => unreachable!("key table: expected events, got {other:?}"),
        }
    }
    fn part(&self, i: usize) -> u64 {
        match self {
            KeyValue::Parts(p) => p[i],
            other => unreachable!("key table: expected parts, got {other:?}"),
        }
    }
}

fn number_text(n: u64, hex: bool) -> String {
    if hex {
        format!("{n:#x}")
    } else {
        n.to_string()
    }
}

impl Kind {
    /// Parses and checks `text`, the value of `key`; an error names the key.
    pub fn parse(&self, key: &str, text: &str) -> Result<KeyValue, ConfigError> {
        let number = |t: &str| parse_number(t).ok_or_else(|| err(key, not_a_number(t)));
        let value = match *self {
            Kind::Number { .. } | Kind::OneOf(_) => KeyValue::Number(number(text)?),
            Kind::OnOff => match text {
                "on" | "true" | "1" => KeyValue::Flag(true),
                "off" | "false" | "0" => KeyValue::Flag(false),
                _ => return Err(err(key, format!("expected on or off, got `{text}`"))),
            },
            Kind::Word(words) => match words.iter().find(|w| **w == text) {
                Some(w) => KeyValue::Word(w),
                None => {
                    return Err(err(
                        key,
                        format!("expected {}, got `{text}`", words.join(" or ")),
                    ))
                }
            },
            Kind::Events => {
                if text.is_empty() || text == "none" {
                    KeyValue::Events(Vec::new())
                } else {
                    let events = text
                        .split(',')
                        .map(|v| {
                            parse_number(v)
                                .and_then(|n| u16::try_from(n).ok())
                                .ok_or_else(|| {
                                    err(key, format!("`{v}` is not a 16-bit event number"))
                                })
                        })
                        .collect::<Result<_, _>>()?;
                    KeyValue::Events(events)
                }
            }
            Kind::Parts {
                names, required, ..
            } => {
                let given: Vec<&str> = text.split(':').collect();
                if given.len() < required || given.len() > names.len() {
                    return Err(err(key, format!("expected {}", self.values_doc())));
                }
                let mut parts = vec![0; names.len()];
                for (p, t) in parts.iter_mut().zip(&given) {
                    *p = number(t)?;
                }
                KeyValue::Parts(parts)
            }
        };
        self.check(key, &value)?;
        Ok(value)
    }

    /// Whether `value` is one this kind allows (the parser and [`PmcgConfig::validate`] both ask).
    pub fn check(&self, key: &str, value: &KeyValue) -> Result<(), ConfigError> {
        match (*self, value) {
            (
                Kind::Number {
                    min,
                    max,
                    step,
                    hex,
                },
                KeyValue::Number(n),
            ) => {
                if !(min..=max).contains(n) {
                    return Err(err(
                        key,
                        format!("{} is outside {}", number_text(*n, hex), self.values_doc()),
                    ));
                }
                if n % step != 0 {
                    return Err(err(
                        key,
                        format!("{} is not a multiple of {step:#x}", number_text(*n, hex)),
                    ));
                }
            }
            (Kind::OneOf(allowed), KeyValue::Number(n)) => {
                if !allowed.contains(n) {
                    return Err(err(key, format!("{n} is not one of {}", self.values_doc())));
                }
            }
            (Kind::Events, KeyValue::Events(events)) => {
                for (i, &e) in events.iter().enumerate() {
                    if e < FIRST_IMPDEF_EVENT {
                        return Err(err(
                            key,
                            format!("event {e:#x} is below 0x80, the first IMPLEMENTATION DEFINED number"),
                        ));
                    }
                    if events[..i].contains(&e) {
                        return Err(err(key, format!("event {e:#x} is listed twice")));
                    }
                }
            }
            (Kind::Parts { names, max, .. }, KeyValue::Parts(parts)) => {
                for ((name, max), p) in names.iter().zip(max).zip(parts) {
                    if p > max {
                        return Err(err(key, format!("{name} {p:#x} is above {max:#x}")));
                    }
                }
            }
            (Kind::OnOff, KeyValue::Flag(_)) | (Kind::Word(_), KeyValue::Word(_)) => {}
            (kind, value) => unreachable!("key table: {kind:?} holds {value:?}"),
        }
        Ok(())
    }

    /// The canonical text of `value`: what [`PmcgConfig::summary`] writes and `parse` reads back.
    pub fn render(&self, value: &KeyValue) -> String {
        match (*self, value) {
            (Kind::Number { hex, .. }, KeyValue::Number(n)) => number_text(*n, hex),
            (_, KeyValue::Number(n)) => n.to_string(),
            (_, KeyValue::Flag(b)) => if *b { "on" } else { "off" }.to_string(),
            (_, KeyValue::Word(w)) => w.to_string(),
            (_, KeyValue::Events(e)) if e.is_empty() => "none".to_string(),
            (_, KeyValue::Events(e)) => e
                .iter()
                .map(|e| format!("{e:#x}"))
                .collect::<Vec<_>>()
                .join(","),
            (_, KeyValue::Parts(p)) => p
                .iter()
                .map(|p| format!("{p:#x}"))
                .collect::<Vec<_>>()
                .join(":"),
        }
    }

    /// The allowed values in words (the "values" column of the key table).
    pub fn values_doc(&self) -> String {
        match *self {
            Kind::Number {
                min,
                max,
                step,
                hex,
            } => {
                let range = format!("{}-{}", number_text(min, hex), number_text(max, hex));
                if step > 1 {
                    format!("{range}, a multiple of {}", number_text(step, hex))
                } else {
                    range
                }
            }
            Kind::OneOf(allowed) => allowed
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            Kind::OnOff => "on, off".to_string(),
            Kind::Word(words) => words.join(", "),
            Kind::Events => "none, or a comma list of event numbers >= 0x80".to_string(),
            Kind::Parts {
                names,
                max,
                required,
            } => {
                let mut text = String::new();
                for (i, (name, max)) in names.iter().zip(max).enumerate() {
                    if i > 0 {
                        text.push_str(if i >= required { "[:" } else { ":" });
                    }
                    text.push_str(&format!("{}(0-{max:#x})", name.to_uppercase()));
                }
                text + &"]".repeat(names.len() - required)
            }
        }
    }
}

/// One configuration key: the only place its name, values, default and meaning are written.
pub struct ConfigKey {
    /// The name used in scripts' `config` lines, on the command line and in `gen`'s JSON.
    pub key: &'static str,
    /// The values it takes.
    pub kind: Kind,
    /// Its default, as text the key accepts ([`PmcgConfig::default`] is built from these).
    pub default: &'static str,
    /// The registers and fields it decides, with the spec's section ("-" when none).
    pub register: &'static str,
    /// What it chooses, in one line.
    pub description: &'static str,
    get: fn(&PmcgConfig) -> KeyValue,
    put: fn(&mut PmcgConfig, KeyValue),
}

impl ConfigKey {
    /// The key's value in `cfg`.
    pub fn value(&self, cfg: &PmcgConfig) -> KeyValue {
        (self.get)(cfg)
    }

    /// The key's value in `cfg` as canonical text.
    pub fn text(&self, cfg: &PmcgConfig) -> String {
        self.kind.render(&self.value(cfg))
    }
}

const fn number(min: u64, max: u64) -> Kind {
    Kind::Number {
        min,
        max,
        step: 1,
        hex: false,
    }
}

const fn hex_number(max: u64) -> Kind {
    Kind::Number {
        min: 0,
        max,
        step: 1,
        hex: true,
    }
}

/// Every configuration key, in documentation order. The parser ([`PmcgConfig::set`]),
/// [`PmcgConfig::validate`], [`PmcgConfig::default`], [`PmcgConfig::summary`], `gen`'s JSON and
/// README.md's key table all read this table.
pub static CONFIG_KEYS: [ConfigKey; 25] = [
    ConfigKey {
        key: "counters",
        kind: number(1, 64),
        default: "64",
        register: "CFGR.NCTR (10.5.2.13)",
        description: "number of counters",
        get: |c| KeyValue::Number(c.counters.into()),
        put: |c, v| c.counters = v.number() as u32,
    },
    ConfigKey {
        key: "counter_bits",
        kind: Kind::OneOf(&ALLOWED_COUNTER_BITS),
        default: "64",
        register: "CFGR.SIZE (10.5.2.13)",
        description: "counter width in bits",
        get: |c| KeyValue::Number(c.counter_bits.into()),
        put: |c, v| c.counter_bits = v.number() as u32,
    },
    ConfigKey {
        key: "sid_bits",
        kind: number(1, 32),
        default: "16",
        register: "SMRn.STREAMID (10.4.1)",
        description: "implemented StreamID bits",
        get: |c| KeyValue::Number(c.sid_bits.into()),
        put: |c, v| c.sid_bits = v.number() as u32,
    },
    ConfigKey {
        key: "lanes",
        kind: number(1, MAX_LANES as u64),
        default: "1",
        register: "-",
        description: "event lanes: independent event sources, each counted every cycle",
        get: |c| KeyValue::Number(c.lanes.into()),
        put: |c, v| c.lanes = v.number() as u32,
    },
    ConfigKey {
        key: "ats",
        kind: Kind::OnOff,
        default: "off",
        register: "CEID0 (10.3)",
        description: "the ATS events 6 and 7",
        get: |c| KeyValue::Flag(c.ats),
        put: |c, v| c.ats = v.flag(),
    },
    ConfigKey {
        key: "impdef",
        kind: Kind::Events,
        default: "none",
        register: "CEID0/1 (10.3)",
        description: "IMPLEMENTATION DEFINED lane events, in lane-bit order after the architected ones",
        get: |c| KeyValue::Events(c.impdef_events.clone()),
        put: |c, v| c.impdef_events = v.events(),
    },
    ConfigKey {
        key: "impdef_global",
        kind: Kind::Events,
        default: "none",
        register: "- (10.4)",
        description: "those of `impdef` not related to a StreamID: they ignore every filter",
        get: |c| KeyValue::Events(c.impdef_global.clone()),
        put: |c, v| c.impdef_global = v.events(),
    },
    ConfigKey {
        key: "impdef_nonattr",
        kind: Kind::Events,
        default: "none",
        register: "- (10.4.4)",
        description: "those of `impdef` that are non-attributable: no filter, gated by SCR.SO (and ROOTCR.NAO)",
        get: |c| KeyValue::Events(c.impdef_nonattr.clone()),
        put: |c, v| c.impdef_nonattr = v.events(),
    },
    ConfigKey {
        key: "capture",
        kind: Kind::OnOff,
        default: "on",
        register: "CFGR.CAPTURE, SVRn, CAPR (10.5.2.13)",
        description: "the capture shadow bank and the CAPT_REQ/CAPT_ACK request",
        get: |c| KeyValue::Flag(c.capture),
        put: |c, v| c.capture = v.flag(),
    },
    ConfigKey {
        key: "msi",
        kind: Kind::OnOff,
        default: "on",
        register: "CFGR.MSI, IRQ_CFG0-2, IRQ_STATUS (10.5.2.13)",
        description: "the MSI AXI4-Lite write master",
        get: |c| KeyValue::Flag(c.msi),
        put: |c, v| c.msi = v.flag(),
    },
    ConfigKey {
        key: "secure",
        kind: Kind::OnOff,
        default: "on",
        register: "SCR, S_MPAMIDR (10.6)",
        description: "Secure state (PPROT[1] honoured)",
        get: |c| KeyValue::Flag(c.secure),
        put: |c, v| c.secure = v.flag(),
    },
    ConfigKey {
        key: "realm",
        kind: Kind::OnOff,
        default: "off",
        register: "ROOTCR, SCR alias, EVTYPER.FILTER_REALM_SID (10.7)",
        description: "Realm and Root state, with GDI (SAO, PMO) and the APB5 PNSE input; needs `secure`",
        get: |c| KeyValue::Flag(c.realm),
        put: |c, v| c.realm = v.flag(),
    },
    ConfigKey {
        key: "mpam_filter",
        kind: Kind::OnOff,
        default: "off",
        register: "CFGR.FILTER_PARTID_PMG, MPAMIDR (10.4.3)",
        description: "MPAM PARTID/PMG event filtering",
        get: |c| KeyValue::Flag(c.mpam_filter),
        put: |c, v| c.mpam_filter = v.flag(),
    },
    ConfigKey {
        key: "msi_mpam",
        kind: Kind::OnOff,
        default: "off",
        register: "CFGR.MPAM, GMPAM, MPAMIDR (10.5.2.25)",
        description: "MSIs carry GMPAM's PARTID/PMG on sideband outputs; needs `msi`",
        get: |c| KeyValue::Flag(c.msi_mpam),
        put: |c, v| c.msi_mpam = v.flag(),
    },
    ConfigKey {
        key: "partid_max",
        kind: hex_number(0xFFFF),
        default: "0xFF",
        register: "MPAMIDR.PARTID_MAX (10.5.2.27)",
        description: "largest Non-secure (and Realm) PARTID",
        get: |c| KeyValue::Number(c.partid_max.into()),
        put: |c, v| c.partid_max = v.number() as u16,
    },
    ConfigKey {
        key: "pmg_max",
        kind: hex_number(0xFF),
        default: "0x7",
        register: "MPAMIDR.PMG_MAX (10.5.2.27)",
        description: "largest Non-secure (and Realm) PMG",
        get: |c| KeyValue::Number(c.pmg_max.into()),
        put: |c, v| c.pmg_max = v.number() as u8,
    },
    ConfigKey {
        key: "s_partid_max",
        kind: hex_number(0xFFFF),
        default: "0xF",
        register: "S_MPAMIDR.PARTID_MAX (10.5.2.28)",
        description: "largest Secure PARTID",
        get: |c| KeyValue::Number(c.s_partid_max.into()),
        put: |c, v| c.s_partid_max = v.number() as u16,
    },
    ConfigKey {
        key: "s_pmg_max",
        kind: hex_number(0xFF),
        default: "0x1",
        register: "S_MPAMIDR.PMG_MAX (10.5.2.28)",
        description: "largest Secure PMG",
        get: |c| KeyValue::Number(c.s_pmg_max.into()),
        put: |c, v| c.s_pmg_max = v.number() as u8,
    },
    ConfigKey {
        key: "sid_filter",
        kind: Kind::Word(&["per-counter", "global"]),
        default: "per-counter",
        register: "CFGR.SID_FILTER_TYPE (10.5.2.13)",
        description: "one StreamID filter per counter, or SMR0/EVTYPER0's for all",
        get: |c| {
            KeyValue::Word(match c.sid_filter {
                SidFilterType::PerCounter => "per-counter",
                SidFilterType::Global => "global",
            })
        },
        put: |c, v| {
            c.sid_filter = match v.word() {
                "global" => SidFilterType::Global,
                _ => SidFilterType::PerCounter,
            }
        },
    },
    ConfigKey {
        key: "filter_tables",
        kind: Kind::OnOff,
        default: "off",
        register: "EVTYPERn, SMRn write timing (10.4)",
        description: "per-counter StreamID filters as block-RAM tables: an EVTYPER or SMR write takes 259 wait states; needs `sid_filter=per-counter`, `mpam_filter=off`",
        get: |c| KeyValue::Flag(c.filter_tables),
        put: |c, v| c.filter_tables = v.flag(),
    },
    ConfigKey {
        key: "reloc_ctrs",
        kind: Kind::OnOff,
        default: "on",
        register: "CFGR.RELOC_CTRS (10.5)",
        description: "page 1 holds the counters, SVRs, OVSCLR0/OVSSET0 and CAPR",
        get: |c| KeyValue::Flag(c.reloc_ctrs),
        put: |c, v| c.reloc_ctrs = v.flag(),
    },
    ConfigKey {
        key: "page1_offset",
        kind: Kind::Number {
            min: 0x1000,
            max: 0xFFFF_F000,
            step: 0x1000,
            hex: true,
        },
        default: "0x10000",
        register: "- (10.5)",
        description: "APB address of page 1 (64 KiB: a hypervisor can map it alone with a 64 KB granule)",
        get: |c| KeyValue::Number(c.page1_offset.into()),
        put: |c, v| c.page1_offset = v.number() as u32,
    },
    ConfigKey {
        key: "pa_bits",
        kind: number(32, 56),
        default: "48",
        register: "IRQ_CFG0.ADDR (10.5.2.21)",
        description: "physical address size of MSI targets",
        get: |c| KeyValue::Number(c.pa_bits.into()),
        put: |c, v| c.pa_bits = v.number() as u32,
    },
    ConfigKey {
        key: "jep106",
        kind: Kind::Parts {
            names: &["cont", "id"],
            max: &[15, 127],
            required: 2,
        },
        default: "0:0",
        register: "IIDR.Implementer, PIDR1/2/4 (10.5.2.15, 10.5.2.29)",
        description: "the implementer's JEP106 code (0:0, the default, names none)",
        get: |c| {
            KeyValue::Parts(vec![
                c.ident.jep106_continuation.into(),
                c.ident.jep106_id.into(),
            ])
        },
        put: |c, v| {
            c.ident.jep106_continuation = v.part(0) as u8;
            c.ident.jep106_id = v.part(1) as u8;
        },
    },
    ConfigKey {
        key: "product",
        kind: Kind::Parts {
            names: &["part", "variant", "revision"],
            max: &[0xFFF, 15, 15],
            required: 1,
        },
        default: "0x0C6:0:0",
        register: "IIDR.ProductID/Variant/Revision, PIDR0-3 (10.5.2.15, 10.5.2.29)",
        description: "part number and revision",
        get: |c| {
            KeyValue::Parts(vec![
                c.ident.product_id.into(),
                c.ident.variant.into(),
                c.ident.revision.into(),
            ])
        },
        put: |c, v| {
            c.ident.product_id = v.part(0) as u16;
            c.ident.variant = v.part(1) as u8;
            c.ident.revision = v.part(2) as u8;
        },
    },
];

/// The key table as Markdown, the block README.md carries between its `config-keys` markers.
pub fn markdown_key_table() -> String {
    let mut md = String::from(
        "| key | values | default | register (spec) | meaning |\n|---|---|---|---|---|\n",
    );
    for k in &CONFIG_KEYS {
        md.push_str(&format!(
            "| `{}` | {} | `{}` | {} | {} |\n",
            k.key,
            k.kind.values_doc(),
            k.default,
            k.register,
            k.description
        ));
    }
    md
}

impl PmcgConfig {
    /// The table entry of `key`.
    pub fn key(key: &str) -> Option<&'static ConfigKey> {
        CONFIG_KEYS.iter().find(|k| k.key == key)
    }

    /// Sets one key from its text value (the script `config` line and CLI syntax), checked
    /// against the key's [`Kind`]; the rules between keys are [`PmcgConfig::validate`]'s.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let Some(k) = Self::key(key) else {
            let known: Vec<&str> = CONFIG_KEYS.iter().map(|k| k.key).collect();
            return Err(err(
                key,
                format!("unknown configuration key (known: {})", known.join(", ")),
            ));
        };
        (k.put)(self, k.kind.parse(key, value)?);
        Ok(())
    }

    /// Builds a validated configuration from `KEY=VALUE` items; missing keys take the defaults,
    /// and a key given twice is an error (as in a script's `config` line), wherever the items
    /// come from (a `--config` file, the command line, or both).
    pub fn parse_kv<'a>(items: impl IntoIterator<Item = &'a str>) -> Result<Self, ConfigError> {
        let cfg = Self::parse_unvalidated(items)?;
        cfg.validate()?;
        Ok(cfg)
    }

    fn parse_unvalidated<'a>(
        items: impl IntoIterator<Item = &'a str>,
    ) -> Result<Self, ConfigError> {
        let mut cfg = PmcgConfig::default();
        let mut seen: Vec<&str> = Vec::new();
        for item in items {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| err(item, "expected KEY=VALUE"))?;
            if seen.contains(&k) {
                return Err(err(k, "given twice"));
            }
            seen.push(k);
            cfg.set(k, v)?;
        }
        Ok(cfg)
    }

    /// Checks every key against its [`Kind`], then the rules between keys; the first problem
    /// found is returned, naming its key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for k in &CONFIG_KEYS {
            k.kind.check(k.key, &k.value(self))?;
        }
        self.check_impdef_subset("impdef_global", &self.impdef_global, ("", &[]))?;
        self.check_impdef_subset(
            "impdef_nonattr",
            &self.impdef_nonattr,
            ("impdef_global", &self.impdef_global),
        )?;
        if self.msi_mpam && !self.msi {
            return Err(err(
                "msi_mpam",
                "MPAM for MSIs needs the MSI master (msi=on)",
            ));
        }
        if self.realm && !self.secure {
            return Err(err(
                "realm",
                "Realm state needs Secure state (secure=on): ROOTCR and SCR go together (10.7)",
            ));
        }
        if self.filter_tables && self.sid_filter != SidFilterType::PerCounter {
            return Err(err(
                "filter_tables",
                "filter tables hold per-counter filters: they need sid_filter=per-counter",
            ));
        }
        if self.filter_tables && self.mpam_filter {
            return Err(err(
                "filter_tables",
                "filter tables look up StreamIDs, not MPAM labels: they need mpam_filter=off",
            ));
        }
        let lane_events = self.lane_event_ids().len() as u32;
        if lane_events > LANE_EVENT_BITS {
            return Err(err(
                "impdef",
                format!("{lane_events} lane events exceed the {LANE_EVENT_BITS} the event vector carries"),
            ));
        }
        // PIDR3.CMOD is no key (always 0 from the table), but a hand-built configuration may set it.
        if self.ident.cmod > 15 {
            return Err(err("product", "cmod is 0-15"));
        }
        Ok(())
    }

    /// `list` (the value of key `field`) names each of its events once, each one of `impdef`,
    /// and none of `excluded` (another such list: its key and value).
    fn check_impdef_subset(
        &self,
        field: &str,
        list: &[u16],
        (excluded_field, excluded): (&str, &[u16]),
    ) -> Result<(), ConfigError> {
        for (i, &e) in list.iter().enumerate() {
            if !self.impdef_events.contains(&e) {
                return Err(err(
                    field,
                    format!("event {e:#x} is not one of the impdef events"),
                ));
            }
            if excluded.contains(&e) {
                return Err(err(
                    field,
                    format!("event {e:#x} is also in {excluded_field}"),
                ));
            }
            if list[..i].contains(&e) {
                return Err(err(field, format!("event {e:#x} is listed twice")));
            }
        }
        Ok(())
    }

    /// Event numbers carried on each lane's event vector, in bit order: bit k of a lane's
    /// `events` input is event `lane_event_ids()[k]`.
    pub fn lane_event_ids(&self) -> Vec<u16> {
        let mut ids: Vec<u16> = MANDATORY_LANE_EVENTS.to_vec();
        if self.ats {
            ids.extend_from_slice(&ATS_LANE_EVENTS);
        }
        ids.extend_from_slice(&self.impdef_events);
        ids
    }

    /// Every event a counter can count (CEID), including event 0.
    pub fn supported_events(&self) -> Vec<u16> {
        let mut ids = vec![CYCLE_EVENT];
        ids.extend(self.lane_event_ids());
        ids
    }

    /// Bit of the lane event vector that carries `event`, if it is a supported lane event.
    pub fn lane_bit_of(&self, event: u16) -> Option<u32> {
        self.lane_event_ids()
            .iter()
            .position(|&e| e == event)
            .map(|p| p as u32)
    }

    /// Whether the StreamID, security and MPAM filters apply to `event` (10.4, 10.4.3): every
    /// event but event 0 and the IMPLEMENTATION DEFINED events declared global or non-attributable.
    pub fn event_filterable(&self, event: u16) -> bool {
        event != CYCLE_EVENT
            && !self.impdef_global.contains(&event)
            && !self.impdef_nonattr.contains(&event)
    }

    /// Whether `event` is a non-attributable event (10.4.4).
    pub fn event_nonattr(&self, event: u16) -> bool {
        self.impdef_nonattr.contains(&event)
    }

    /// Implemented bits of SMRn: STREAMID's `sid_bits`, and with the MPAM filter at least
    /// PARTID [15:0] and PMG [23:16] (10.5.2.4).
    pub fn smr_bits(&self) -> u32 {
        if self.mpam_filter {
            self.sid_bits.max(24)
        } else {
            self.sid_bits
        }
    }

    /// Counter registers are 64-bit (8-byte stride) when counters are wider than 32 bits.
    pub fn wide_counters(&self) -> bool {
        self.counter_bits > 32
    }

    /// Mask of the counter's implemented bits.
    pub fn counter_mask(&self) -> u64 {
        if self.counter_bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.counter_bits) - 1
        }
    }

    /// Mask of the implemented StreamID bits.
    pub fn sid_mask(&self) -> u32 {
        if self.sid_bits == 32 {
            u32::MAX
        } else {
            (1u32 << self.sid_bits) - 1
        }
    }

    /// Mask with one bit per implemented counter (CNTEN/INTEN/OVS bitmaps).
    pub fn counter_bitmap(&self) -> u64 {
        if self.counters == 64 {
            u64::MAX
        } else {
            (1u64 << self.counters) - 1
        }
    }

    /// One line that names the configuration: every key of [`CONFIG_KEYS`] as `key=value`
    /// (canonical text that [`PmcgConfig::parse_kv`] reads back), for reports and headers.
    pub fn summary(&self) -> String {
        CONFIG_KEYS
            .iter()
            .map(|k| format!("{}={}", k.key, k.text(self)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_number_too_large_for_64_bits_says_so() {
        let e = super::PmcgConfig::parse_kv(["counters=999999999999999999999999"]).unwrap_err();
        assert!(e.to_string().contains("too large"), "{e}");
        let e = super::PmcgConfig::parse_kv(["page1_offset=0x1_0000_0000_0000_0000"]).unwrap_err();
        assert!(e.to_string().contains("too large"), "{e}");
        let e = super::PmcgConfig::parse_kv(["counters=-1"]).unwrap_err();
        assert!(e.to_string().contains("expected a number"), "{e}");
    }

    use super::*;

    #[test]
    fn default_is_valid_and_as_documented() {
        let c = PmcgConfig::default();
        c.validate().unwrap();
        assert_eq!(
            (c.counters, c.counter_bits, c.sid_bits, c.lanes),
            (64, 64, 16, 1)
        );
        assert!(c.capture && c.msi && c.secure && c.reloc_ctrs);
        assert!(!c.ats && !c.realm && !c.mpam_filter && !c.msi_mpam);
        assert_eq!(c.sid_filter, SidFilterType::PerCounter);
        assert_eq!(
            (c.partid_max, c.pmg_max, c.s_partid_max, c.s_pmg_max),
            (0xFF, 0x7, 0xF, 0x1)
        );
        assert_eq!((c.page1_offset, c.pa_bits), (0x1_0000, 48));
        let id = c.ident;
        assert_eq!((id.jep106_continuation, id.jep106_id), (0, 0));
        assert_eq!((id.product_id, id.variant, id.revision), (0x0C6, 0, 0));
    }

    #[test]
    fn key_names_are_unique_and_defaults_parse() {
        for (i, k) in CONFIG_KEYS.iter().enumerate() {
            assert!(
                CONFIG_KEYS[..i].iter().all(|o| o.key != k.key),
                "{} twice",
                k.key
            );
            k.kind.parse(k.key, k.default).unwrap();
            assert!(!k.description.is_empty() && !k.register.is_empty());
        }
    }

    #[test]
    fn a_key_given_twice_is_rejected() {
        for items in [
            &["counters=4", "counters=4"][..],
            &["counters=4", "lanes=2", "counters=8"][..],
        ] {
            let e = PmcgConfig::parse_kv(items.iter().copied()).unwrap_err();
            assert_eq!(e.field, "counters", "{items:?}");
            assert!(e.reason.contains("twice"), "{e}");
        }
    }

    #[test]
    fn identification_keys_parse_to_their_fields() {
        let c = PmcgConfig::parse_kv(["jep106=0x4:0x3B", "product=0x4A1:2:3"]).unwrap();
        let id = c.ident;
        assert_eq!((id.jep106_continuation, id.jep106_id), (4, 0x3B));
        assert_eq!((id.product_id, id.variant, id.revision), (0x4A1, 2, 3));
        let c = PmcgConfig::parse_kv(["product=0x123"]).unwrap();
        assert_eq!(
            (c.ident.product_id, c.ident.variant, c.ident.revision),
            (0x123, 0, 0)
        );
        for bad in [
            "jep106=16:0",
            "jep106=0:128",
            "jep106=4",
            "jep106=1:2:3",
            "product=0x1000",
            "product=1:16",
            "product=1:2:3:4",
            "product=",
        ] {
            let e = PmcgConfig::parse_kv([bad]).unwrap_err();
            assert_eq!(e.field, bad.split('=').next().unwrap(), "{bad}: {e}");
        }
    }

    /// A value of `k` other than its default (for the round trip below).
    fn other_value(k: &ConfigKey) -> String {
        let default = k.kind.parse(k.key, k.default).unwrap();
        match k.kind {
            Kind::Number { min, max, hex, .. } => {
                let v = if default == KeyValue::Number(max) {
                    min
                } else {
                    max
                };
                number_text(v, hex)
            }
            Kind::OneOf(allowed) => allowed
                .iter()
                .find(|&&v| KeyValue::Number(v) != default)
                .unwrap()
                .to_string(),
            Kind::OnOff => if default == KeyValue::Flag(true) {
                "off"
            } else {
                "on"
            }
            .into(),
            Kind::Word(words) => words
                .iter()
                .find(|&&w| KeyValue::Word(w) != default)
                .unwrap()
                .to_string(),
            Kind::Events => "0x80,0x9f".into(),
            Kind::Parts { max, .. } => max.iter().map(u64::to_string).collect::<Vec<_>>().join(":"),
        }
    }

    #[test]
    fn every_key_sets_its_field_and_the_summary_reads_back() {
        let default = PmcgConfig::default();
        for k in &CONFIG_KEYS {
            let text = other_value(k);
            let item = format!("{}={text}", k.key);
            let cfg = PmcgConfig::parse_unvalidated([item.as_str()]).unwrap();
            assert_ne!(cfg, default, "{item} changed nothing");
            assert_eq!(k.value(&cfg), k.kind.parse(k.key, &text).unwrap(), "{item}");
            // Only this key differs from the default in the summary.
            let changed: Vec<_> = CONFIG_KEYS
                .iter()
                .filter(|o| o.text(&cfg) != o.text(&default))
                .map(|o| o.key)
                .collect();
            assert_eq!(changed, [k.key], "{item}");
            let summary = cfg.summary();
            let back = PmcgConfig::parse_unvalidated(summary.split(' ')).unwrap();
            assert_eq!(back, cfg, "{summary}");
        }
        assert_eq!(default.summary().split(' ').count(), CONFIG_KEYS.len());
    }

    /// README.md's key table is the block [`markdown_key_table`] generates; `PMCG_BLESS=1`
    /// rewrites it.
    #[test]
    fn readme_key_table_is_generated_from_the_key_table() {
        const BEGIN: &str =
            "<!-- BEGIN generated: config-keys (regs/src/config.rs CONFIG_KEYS) -->\n";
        const END: &str = "<!-- END generated: config-keys -->";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
        let readme = std::fs::read_to_string(path).unwrap();
        let (head, rest) = readme
            .split_once(BEGIN)
            .unwrap_or_else(|| panic!("README.md has no `{}` marker", BEGIN.trim()));
        let (block, tail) = rest
            .split_once(END)
            .unwrap_or_else(|| panic!("README.md has no `{END}` marker"));
        let generated = markdown_key_table();
        if block != generated {
            if std::env::var_os("PMCG_BLESS").is_some() {
                std::fs::write(path, format!("{head}{BEGIN}{generated}{END}{tail}")).unwrap();
            } else {
                panic!(
                    "README.md's configuration key table differs from CONFIG_KEYS in regs/src/config.rs; \
                     regenerate it with `PMCG_BLESS=1 cargo test -p pmcg-hdl --lib readme_key_table`\n\
                     --- README.md\n{block}\n--- generated\n{generated}"
                );
            }
        }
    }

    #[test]
    fn each_bad_field_is_named() {
        let cases: &[(&str, &str)] = &[
            ("counters=0", "counters"),
            ("counters=65", "counters"),
            ("counter_bits=33", "counter_bits"),
            ("sid_bits=0", "sid_bits"),
            ("sid_bits=33", "sid_bits"),
            ("lanes=0", "lanes"),
            ("lanes=9", "lanes"),
            ("impdef=0x7f", "impdef"),
            ("impdef=0x80,0x80", "impdef"),
            ("page1_offset=0x800", "page1_offset"),
            ("capture=maybe", "capture"),
            ("sid_filter=both", "sid_filter"),
            ("colour=red", "colour"),
            ("impdef_nonattr=0x81", "impdef_nonattr"),
            ("partid_max=0x10000", "partid_max"),
            ("pmg_max=0x100", "pmg_max"),
            ("mpam_filter=maybe", "mpam_filter"),
            ("secure=off realm=on", "realm"),
            ("msi=off msi_mpam=on", "msi_mpam"),
            ("filter_tables=on sid_filter=global", "filter_tables"),
            ("filter_tables=on mpam_filter=on", "filter_tables"),
            ("filter_tables=yes", "filter_tables"),
            ("counters", "counters"),
            ("counters=4 counters=4", "counters"),
            ("counter_bits=0x20_0000_0000_0000_0000", "counter_bits"),
            ("pa_bits=31", "pa_bits"),
            ("pa_bits=57", "pa_bits"),
            ("page1_offset=0", "page1_offset"),
            ("impdef=0x80 impdef_global=0x81", "impdef_global"),
            (
                "impdef=0x80 impdef_global=0x80 impdef_nonattr=0x80",
                "impdef_nonattr",
            ),
        ];
        for (item, field) in cases {
            let e = PmcgConfig::parse_kv(item.split(' ')).unwrap_err();
            assert_eq!(&e.field, field, "{item}: {e}");
            assert!(e.to_string().contains(field));
        }
    }

    #[test]
    fn too_many_impdef_events_rejected() {
        let list: Vec<String> = (0x80..0x80 + 28).map(|e: u32| format!("{e:#x}")).collect();
        let item = format!("impdef={}", list.join(","));
        assert_eq!(
            PmcgConfig::parse_kv([item.as_str()]).unwrap_err().field,
            "impdef"
        );
    }

    #[test]
    fn lane_event_order() {
        let c = PmcgConfig::parse_kv(["ats=on", "impdef=0x80,0x91"]).unwrap();
        assert_eq!(c.lane_event_ids(), vec![1, 2, 3, 4, 5, 6, 7, 0x80, 0x91]);
        assert_eq!(c.lane_bit_of(0x91), Some(8));
        assert_eq!(c.lane_bit_of(0), None);
        assert_eq!(c.supported_events()[0], 0);
    }
}
