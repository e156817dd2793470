//! Names a user gives to generated Verilog (`gen --top`): a plain identifier that no Verilog or
//! SystemVerilog tool reads as a keyword.
//!
//! ```text
//!   --top NAME ──► [A-Za-z_][A-Za-z0-9_]* ? ──► not in IEEE 1800-2017 Annex B ? ──► NAME.v, NAME.json
//! ```
//! `$` is legal after the first character in Verilog but not accepted: the name also names files
//! and shell-visible artefacts, and rust-hdl uses `$` to join submodule names.

/// The reserved keywords of IEEE 1800-2017 (SystemVerilog), Annex B, sorted; a superset of the
/// IEEE 1364-2005 (Verilog) keywords.
pub const RESERVED: [&str; 248] = [
    "accept_on",
    "alias",
    "always",
    "always_comb",
    "always_ff",
    "always_latch",
    "and",
    "assert",
    "assign",
    "assume",
    "automatic",
    "before",
    "begin",
    "bind",
    "bins",
    "binsof",
    "bit",
    "break",
    "buf",
    "bufif0",
    "bufif1",
    "byte",
    "case",
    "casex",
    "casez",
    "cell",
    "chandle",
    "checker",
    "class",
    "clocking",
    "cmos",
    "config",
    "const",
    "constraint",
    "context",
    "continue",
    "cover",
    "covergroup",
    "coverpoint",
    "cross",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "dist",
    "do",
    "edge",
    "else",
    "end",
    "endcase",
    "endchecker",
    "endclass",
    "endclocking",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endgroup",
    "endinterface",
    "endmodule",
    "endpackage",
    "endprimitive",
    "endprogram",
    "endproperty",
    "endsequence",
    "endspecify",
    "endtable",
    "endtask",
    "enum",
    "event",
    "eventually",
    "expect",
    "export",
    "extends",
    "extern",
    "final",
    "first_match",
    "for",
    "force",
    "foreach",
    "forever",
    "fork",
    "forkjoin",
    "function",
    "generate",
    "genvar",
    "global",
    "highz0",
    "highz1",
    "if",
    "iff",
    "ifnone",
    "ignore_bins",
    "illegal_bins",
    "implements",
    "implies",
    "import",
    "incdir",
    "include",
    "initial",
    "inout",
    "input",
    "inside",
    "instance",
    "int",
    "integer",
    "interconnect",
    "interface",
    "intersect",
    "join",
    "join_any",
    "join_none",
    "large",
    "let",
    "liblist",
    "library",
    "local",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "matches",
    "medium",
    "modport",
    "module",
    "nand",
    "negedge",
    "nettype",
    "new",
    "nexttime",
    "nmos",
    "nor",
    "noshowcancelled",
    "not",
    "notif0",
    "notif1",
    "null",
    "or",
    "output",
    "package",
    "packed",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "priority",
    "program",
    "property",
    "protected",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "pulsestyle_ondetect",
    "pulsestyle_onevent",
    "pure",
    "rand",
    "randc",
    "randcase",
    "randsequence",
    "rcmos",
    "real",
    "realtime",
    "ref",
    "reg",
    "reject_on",
    "release",
    "repeat",
    "restrict",
    "return",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "s_always",
    "s_eventually",
    "s_nexttime",
    "s_until",
    "s_until_with",
    "scalared",
    "sequence",
    "shortint",
    "shortreal",
    "showcancelled",
    "signed",
    "small",
    "soft",
    "solve",
    "specify",
    "specparam",
    "static",
    "string",
    "strong",
    "strong0",
    "strong1",
    "struct",
    "super",
    "supply0",
    "supply1",
    "sync_accept_on",
    "sync_reject_on",
    "table",
    "tagged",
    "task",
    "this",
    "throughout",
    "time",
    "timeprecision",
    "timeunit",
    "tran",
    "tranif0",
    "tranif1",
    "tri",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "trireg",
    "type",
    "typedef",
    "union",
    "unique",
    "unique0",
    "unsigned",
    "until",
    "until_with",
    "untyped",
    "use",
    "uwire",
    "var",
    "vectored",
    "virtual",
    "void",
    "wait",
    "wait_order",
    "wand",
    "weak",
    "weak0",
    "weak1",
    "while",
    "wildcard",
    "wire",
    "with",
    "within",
    "wor",
    "xnor",
    "xor",
];

/// Longest name accepted: it names `<NAME>.json`, and file names stop at 255 bytes.
pub const LONGEST: usize = 200;

/// Checks a top-module name; the error says which rule it breaks.
pub fn check_top(name: &str) -> Result<(), String> {
    // The name as shown: cut short, control characters escaped (never sent to the terminal).
    let head: String = name.chars().take(40).collect();
    let shown = match head.len() < name.len() {
        true => format!("{}...", head.escape_debug()),
        false => head.escape_debug().to_string(),
    };
    let mut chars = name.chars();
    let plain = chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric());
    if !plain {
        return Err(format!(
            "`{shown}` is not a plain Verilog identifier: a letter or `_`, then letters, digits \
             or `_` ([A-Za-z_][A-Za-z0-9_]*)"
        ));
    }
    if name.len() > LONGEST {
        return Err(format!(
            "`{shown}` is {} characters long; at most {LONGEST} (it names the output files)",
            name.len()
        ));
    }
    if RESERVED.binary_search(&name).is_ok() {
        return Err(format!(
            "`{name}` is a reserved Verilog/SystemVerilog keyword (IEEE 1800-2017 Annex B); \
             choose another name"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keyword_table_is_sorted_and_complete() {
        assert!(
            RESERVED.windows(2).all(|w| w[0] < w[1]),
            "sorted, no duplicates"
        );
        // Spot checks across the standard's generations (1364-1995, 2001, 2005; 1800-2005, 2009,
        // 2012).
        for k in [
            "module",
            "wire",
            "reg",
            "generate",
            "uwire",
            "logic",
            "always_ff",
            "interface",
            "checker",
            "accept_on",
            "implements",
            "interconnect",
            "nettype",
            "soft",
        ] {
            assert!(check_top(k).is_err(), "{k}");
        }
    }

    #[test]
    fn names_are_checked() {
        for ok in ["smmu_pmcg", "_x", "Module", "pmcg_b", "a1", "endmodule_"] {
            assert_eq!(check_top(ok), Ok(()), "{ok}");
        }
        for (bad, needle) in [
            ("", "plain Verilog identifier"),
            ("1top", "plain Verilog identifier"),
            ("a-b", "plain Verilog identifier"),
            ("a b", "plain Verilog identifier"),
            ("a$b", "plain Verilog identifier"),
            ("caf\u{e9}", "plain Verilog identifier"),
            ("x;y", "plain Verilog identifier"),
            ("\u{1b}[2J", "`\\u{1b}[2J` is not"),
            ("module", "reserved"),
            ("logic", "reserved"),
        ] {
            let e = check_top(bad).unwrap_err();
            assert!(e.contains(needle), "{bad:?}: {e}");
        }
        assert!(check_top(&"a".repeat(LONGEST)).is_ok());
        let e = check_top(&"a".repeat(LONGEST + 1)).unwrap_err();
        assert!(e.contains("at most") && e.len() < 200, "{e}");
    }
}
