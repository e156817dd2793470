//! The one validated configuration of a PMCG instance (plain Rust, no rust-hdl types).
//!
//! Every build-time choice the architecture leaves IMPLEMENTATION DEFINED lives here; the
//! register map ([`crate::regmap`]) turns it into CFGR, CEID0/1, IIDR, AIDR and the ID registers.
//! [`PmcgConfig::validate`] rejects a bad configuration with an error naming the field.
//!
//! ```text
//!   key=value text (script `config` line, CLI) ──parse──► PmcgConfig ──validate──► regmap / RTL / model
//! ```

use std::fmt;

/// Counter widths the architecture allows (10.5.2.13 CFGR.SIZE + 1).
pub const ALLOWED_COUNTER_BITS: [u32; 6] = [32, 36, 40, 44, 48, 64];
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

impl Default for Identification {
    /// This project has no JEP106 code of its own: the default says "no implementer" (0) and
    /// part 0x0C6; an integrator sets its own JEP106 code (key `jep106`).
    fn default() -> Self {
        Identification {
            jep106_continuation: 0,
            jep106_id: 0,
            product_id: 0x0C6,
            variant: 0,
            revision: 0,
            cmod: 0,
        }
    }
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
    /// 64 counters x 64 bits, 16 StreamID bits, one lane, capture, MSI, Secure state (no Realm),
    /// per-counter filters, no MPAM filter, page 1 relocated 64 KiB above page 0.
    fn default() -> Self {
        PmcgConfig {
            counters: 64,
            counter_bits: 64,
            sid_bits: 16,
            lanes: 1,
            ats: false,
            impdef_events: Vec::new(),
            impdef_global: Vec::new(),
            impdef_nonattr: Vec::new(),
            capture: true,
            msi: true,
            secure: true,
            realm: false,
            mpam_filter: false,
            msi_mpam: false,
            partid_max: 0xFF,
            pmg_max: 0x7,
            s_partid_max: 0xF,
            s_pmg_max: 0x1,
            sid_filter: SidFilterType::PerCounter,
            reloc_ctrs: true,
            page1_offset: 0x1_0000,
            pa_bits: 48,
            ident: Identification::default(),
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

fn parse_on_off(field: &str, value: &str) -> Result<bool, ConfigError> {
    match value {
        "on" | "true" | "1" => Ok(true),
        "off" | "false" | "0" => Ok(false),
        _ => Err(err(field, format!("expected on or off, got `{value}`"))),
    }
}

fn parse_limit(field: &str, value: &str, max: u32) -> Result<u32, ConfigError> {
    let v = parse_u32(field, value)?;
    if v > max {
        return Err(err(field, format!("{v:#x} is above {max:#x}")));
    }
    Ok(v)
}

fn parse_u32(field: &str, value: &str) -> Result<u32, ConfigError> {
    parse_number(value)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| err(field, format!("expected a number, got `{value}`")))
}

impl PmcgConfig {
    /// The configuration keys [`PmcgConfig::set`] accepts.
    pub const KEYS: [&'static str; 24] = [
        "counters",
        "counter_bits",
        "sid_bits",
        "lanes",
        "capture",
        "msi",
        "secure",
        "realm",
        "mpam_filter",
        "msi_mpam",
        "partid_max",
        "pmg_max",
        "s_partid_max",
        "s_pmg_max",
        "sid_filter",
        "reloc_ctrs",
        "ats",
        "impdef",
        "impdef_global",
        "impdef_nonattr",
        "page1_offset",
        "pa_bits",
        "jep106",
        "product",
    ];

    /// Sets one key from its text value (the script `config` line and CLI syntax).
    /// `jep106` takes `CONT:ID` (e.g. `0x4:0x3B`); `product` takes `PART[:VARIANT[:REVISION]]`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        match key {
            "counters" => self.counters = parse_u32(key, value)?,
            "counter_bits" => self.counter_bits = parse_u32(key, value)?,
            "sid_bits" => self.sid_bits = parse_u32(key, value)?,
            "lanes" => self.lanes = parse_u32(key, value)?,
            "capture" => self.capture = parse_on_off(key, value)?,
            "msi" => self.msi = parse_on_off(key, value)?,
            "secure" => self.secure = parse_on_off(key, value)?,
            "realm" => self.realm = parse_on_off(key, value)?,
            "mpam_filter" => self.mpam_filter = parse_on_off(key, value)?,
            "msi_mpam" => self.msi_mpam = parse_on_off(key, value)?,
            "partid_max" => self.partid_max = parse_limit(key, value, 0xFFFF)? as u16,
            "pmg_max" => self.pmg_max = parse_limit(key, value, 0xFF)? as u8,
            "s_partid_max" => self.s_partid_max = parse_limit(key, value, 0xFFFF)? as u16,
            "s_pmg_max" => self.s_pmg_max = parse_limit(key, value, 0xFF)? as u8,
            "reloc_ctrs" => self.reloc_ctrs = parse_on_off(key, value)?,
            "ats" => self.ats = parse_on_off(key, value)?,
            "sid_filter" => {
                self.sid_filter = match value {
                    "per-counter" => SidFilterType::PerCounter,
                    "global" => SidFilterType::Global,
                    _ => {
                        return Err(err(
                            key,
                            format!("expected per-counter or global, got `{value}`"),
                        ))
                    }
                }
            }
            "impdef" => self.impdef_events = parse_event_list(key, value)?,
            "impdef_global" => self.impdef_global = parse_event_list(key, value)?,
            "impdef_nonattr" => self.impdef_nonattr = parse_event_list(key, value)?,
            "page1_offset" => self.page1_offset = parse_u32(key, value)?,
            "pa_bits" => self.pa_bits = parse_u32(key, value)?,
            "jep106" => {
                let (cont, id) = value
                    .split_once(':')
                    .ok_or_else(|| err(key, "expected CONTINUATION:ID, e.g. 0x4:0x3B"))?;
                let cont = parse_u32(key, cont)?;
                let id = parse_u32(key, id)?;
                if cont > 15 || id > 127 {
                    return Err(err(
                        key,
                        "continuation code is 0-15 and identity code 0-127",
                    ));
                }
                self.ident.jep106_continuation = cont as u8;
                self.ident.jep106_id = id as u8;
            }
            "product" => {
                let mut parts = value.split(':');
                let part = parse_u32(key, parts.next().unwrap_or(""))?;
                let variant = parts
                    .next()
                    .map(|v| parse_u32(key, v))
                    .transpose()?
                    .unwrap_or(0);
                let revision = parts
                    .next()
                    .map(|v| parse_u32(key, v))
                    .transpose()?
                    .unwrap_or(0);
                if part > 0xFFF || variant > 15 || revision > 15 || parts.next().is_some() {
                    return Err(err(
                        key,
                        "expected PART(0-0xFFF)[:VARIANT(0-15)[:REVISION(0-15)]]",
                    ));
                }
                self.ident.product_id = part as u16;
                self.ident.variant = variant as u8;
                self.ident.revision = revision as u8;
            }
            _ => {
                return Err(err(
                    key,
                    format!(
                        "unknown configuration key (known: {})",
                        Self::KEYS.join(", ")
                    ),
                ))
            }
        }
        Ok(())
    }

    /// Builds a validated configuration from `KEY=VALUE` items; missing keys take the defaults.
    pub fn parse_kv<'a>(items: impl IntoIterator<Item = &'a str>) -> Result<Self, ConfigError> {
        let mut cfg = PmcgConfig::default();
        for item in items {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| err(item, "expected KEY=VALUE"))?;
            cfg.set(k, v)?;
        }
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks every field; the first problem found is returned, naming its key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=64).contains(&self.counters) {
            return Err(err(
                "counters",
                format!("{} is outside 1-64 (CFGR.NCTR)", self.counters),
            ));
        }
        if !ALLOWED_COUNTER_BITS.contains(&self.counter_bits) {
            return Err(err(
                "counter_bits",
                format!(
                    "{} is not one of 32, 36, 40, 44, 48, 64 (CFGR.SIZE)",
                    self.counter_bits
                ),
            ));
        }
        if !(1..=32).contains(&self.sid_bits) {
            return Err(err(
                "sid_bits",
                format!("{} is outside 1-32", self.sid_bits),
            ));
        }
        if !(1..=MAX_LANES).contains(&self.lanes) {
            return Err(err(
                "lanes",
                format!("{} is outside 1-{MAX_LANES}", self.lanes),
            ));
        }
        for (i, &e) in self.impdef_events.iter().enumerate() {
            if e < FIRST_IMPDEF_EVENT {
                return Err(err(
                    "impdef",
                    format!("event {e:#x} is below 0x80, the first IMPLEMENTATION DEFINED number"),
                ));
            }
            if self.impdef_events[..i].contains(&e) {
                return Err(err("impdef", format!("event {e:#x} is listed twice")));
            }
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
        let lane_events = self.lane_event_ids().len() as u32;
        if lane_events > LANE_EVENT_BITS {
            return Err(err(
                "impdef",
                format!("{lane_events} lane events exceed the {LANE_EVENT_BITS} the event vector carries"),
            ));
        }
        if self.page1_offset == 0 || !self.page1_offset.is_multiple_of(0x1000) {
            return Err(err(
                "page1_offset",
                format!(
                    "{:#x} is not a non-zero multiple of 4 KiB",
                    self.page1_offset
                ),
            ));
        }
        if !(32..=56).contains(&self.pa_bits) {
            return Err(err("pa_bits", format!("{} is outside 32-56", self.pa_bits)));
        }
        let id = &self.ident;
        if id.product_id > 0xFFF || id.variant > 15 || id.revision > 15 || id.cmod > 15 {
            return Err(err(
                "product",
                "part is 0-0xFFF; variant, revision and cmod 0-15",
            ));
        }
        if id.jep106_continuation > 15 || id.jep106_id > 127 {
            return Err(err(
                "jep106",
                "continuation code is 0-15 and identity code 0-127",
            ));
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

    /// One line that names the configuration (for reports and cache keys).
    pub fn summary(&self) -> String {
        format!(
            "counters={} counter_bits={} sid_bits={} lanes={} capture={} msi={} secure={} realm={} mpam_filter={} msi_mpam={} partid_max={:#x} pmg_max={:#x} s_partid_max={:#x} s_pmg_max={:#x} sid_filter={} reloc_ctrs={} ats={} impdef={} impdef_global={} impdef_nonattr={} page1_offset={:#x} pa_bits={}",
            self.counters,
            self.counter_bits,
            self.sid_bits,
            self.lanes,
            on_off(self.capture),
            on_off(self.msi),
            on_off(self.secure),
            on_off(self.realm),
            on_off(self.mpam_filter),
            on_off(self.msi_mpam),
            self.partid_max,
            self.pmg_max,
            self.s_partid_max,
            self.s_pmg_max,
            match self.sid_filter {
                SidFilterType::PerCounter => "per-counter",
                SidFilterType::Global => "global",
            },
            on_off(self.reloc_ctrs),
            on_off(self.ats),
            event_list(&self.impdef_events),
            event_list(&self.impdef_global),
            event_list(&self.impdef_nonattr),
            self.page1_offset,
            self.pa_bits,
        )
    }
}

/// `none` or the events in hex, comma-separated (the syntax `impdef` accepts).
fn event_list(events: &[u16]) -> String {
    if events.is_empty() {
        "none".to_string()
    } else {
        events
            .iter()
            .map(|e| format!("{e:#x}"))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Parses `none`, empty, or comma-separated 16-bit event numbers.
fn parse_event_list(key: &str, value: &str) -> Result<Vec<u16>, ConfigError> {
    if value.is_empty() || value == "none" {
        return Ok(Vec::new());
    }
    value
        .split(',')
        .map(|v| {
            parse_number(v)
                .and_then(|n| u16::try_from(n).ok())
                .ok_or_else(|| err(key, format!("`{v}` is not a 16-bit event number")))
        })
        .collect()
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

#[cfg(test)]
mod tests {
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
        assert_eq!(c.sid_filter, SidFilterType::PerCounter);
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
            ("counters", "counters"),
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
