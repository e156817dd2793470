//! Drive Verilog emitted at run time through Verilator, from Rust tests.
//!
//! rust-hdl writes the design as Verilog text while the test runs, so the
//! simulator cannot be linked in by `build.rs`.  Instead [`VerilatedModel::build`]
//! turns the text into a per-design shared library and loads it with
//! `libloading` (`dlopen`):
//!
//! 1. The port list (name, direction, width) of the top module is parsed from
//!    the Verilog text (rust-hdl declares ports non-ANSI; ANSI headers are
//!    accepted too).  Ports must be 1..=64 bits wide.
//! 2. `verilator --cc --prefix Vdut --top-module <top> -Wno-fatal ...` turns the
//!    Verilog into C++.  The `Vdut` prefix keeps the C++ class name independent
//!    of rust-hdl's module names, which contain `$`.
//! 3. A small generated C++ harness exports `extern "C"` functions: create,
//!    eval, final, free, and one function returning a pointer to each port's
//!    storage inside the model.  Verilator renames ports in C++ (see
//!    [`mangle_name`]); the harness uses the names that the generated `Vdut.h`
//!    really declares, and every port's direction and width is checked against
//!    that header.
//! 4. The generated C++, the harness and Verilator's run-time (`verilated.cpp`,
//!    `verilated_threads.cpp`, compiled once per Verilator version and cached)
//!    are linked with `g++ -fPIC -fvisibility=hidden -fno-gnu-unique -shared`
//!    into `libvdut.so`.  Hidden visibility gives every loaded model its own
//!    private copy of the Verilator run-time.
//! 5. Rust reads and writes ports through the raw pointers, so `eval` is the
//!    only FFI call per half clock cycle.
//!
//! ```text
//!   Rust test (this module)          libvdut.so (one per design, dlopen'ed)
//!  +-----------------------+        +-------------------------------------+
//!  | m.set(clock, 1) ------+--ptr-->| Vdut::clock  CData  (port storage)  |
//!  | m.set(paddr, 0x40) ---+--ptr-->| Vdut::paddr  IData                  |
//!  | m.eval() -------------+--FFI-->| vffi_eval() -> Vdut::eval()         |
//!  | m.get(prdata) <-------+--ptr---| Vdut::prdata IData                  |
//!  +-----------------------+        +-------------------------------------+
//! ```
//!
//! # Cache
//! Libraries live in `cache_dir/<top>-<hash>/libvdut.so`; the hash (SHA-256)
//! covers the Verilog text, the top module name, the Verilator version
//! string, the C++ compiler's name and all flags.  A cache hit only parses the port
//! list and `dlopen`s the file.  A miss builds in a private temporary
//! directory and renames it into place (atomic), under a per-key file lock
//! (`std::fs::File::lock`, Rust >= 1.89, released by the OS if the process
//! dies), so parallel test processes build each model once and never load a
//! half-written file.  Nothing in the cache is ever overwritten or deleted by
//! this module (a build killed midway may leave a `.tmp-*` folder); delete
//! `cache_dir` by hand (when no test runs) to reclaim space.  The workspace
//! uses `target/verilator-cache`.
//!
//! # Threads
//! A Verilator model must be created, evaluated and freed on one thread, so
//! [`VerilatedModel`] is neither `Send` nor `Sync`.  Different models (even of
//! the same design) may live on different threads at the same time: each has
//! its own `VerilatedContext`.
//!
//! # Limits
//! * Ports wider than 64 bits, `inout` ports and escaped identifiers are
//!   rejected with [`VerilatorError::Parse`].
//! * Verilator 5.006 cannot use a module whose name contains `$` as
//!   `--top-module` when that module is also instantiated elsewhere in the
//!   file; keep the top module's name plain.
//! * Delays are ignored (`--no-timing`); a `$stop` or fatal error inside the
//!   design makes Verilator abort the process; `$finish` only sets
//!   [`VerilatedModel::finished`].
//! * Needs `verilator` on `PATH` and `g++` (or `$CXX`).

// The including crate may use only part of this API, or use it only from
// tests; the unit tests below use all of it, so dead code still shows there.
#![cfg_attr(not(test), allow(dead_code))]

use std::collections::HashMap;
use std::ffi::{c_char, c_void};
use std::fmt;
use std::fs;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

/// One port of the top module, in the order of the module header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortInfo {
    /// Verilog name, e.g. `lane_sid$0`.
    pub name: String,
    /// Width in bits, 1..=64.
    pub width: u32,
    /// `true` for `input`, `false` for `output`.
    pub is_input: bool,
}

/// Everything that can go wrong while building or loading a model.
#[derive(Debug)]
pub enum VerilatorError {
    /// `verilator` (or the C++ compiler) is not installed.
    NotInstalled(String),
    /// Verilator or the C++ compiler failed; includes their messages.
    Build(String),
    /// The port list of the top module could not be understood.
    Parse(String),
    /// The shared library could not be loaded or is not what was expected.
    Load(String),
    /// A file system error.
    Io(std::io::Error),
}

impl fmt::Display for VerilatorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerilatorError::NotInstalled(m) => write!(f, "{m}"),
            VerilatorError::Build(m) => write!(f, "Verilator model build failed: {m}"),
            VerilatorError::Parse(m) => write!(f, "cannot parse Verilog ports: {m}"),
            VerilatorError::Load(m) => write!(f, "cannot load Verilator model: {m}"),
            VerilatorError::Io(e) => write!(f, "I/O error: {e}"),
        }
    }
}

impl std::error::Error for VerilatorError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            VerilatorError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for VerilatorError {
    fn from(e: std::io::Error) -> Self {
        VerilatorError::Io(e)
    }
}

// ---------------------------------------------------------------------------
// Build configuration (all of it is part of the cache key).

/// Bump when the file layout or the build steps change (the flags and the
/// harness template are hashed into the cache key anyway).
const SCHEMA: &str = "vffi-2";
/// Verilator `--prefix`: the C++ class of every model (also in the harness).
const MODEL_PREFIX: &str = "Vdut";
const LIB_NAME: &str = "libvdut.so";
const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "--prefix",
    MODEL_PREFIX,
    "--no-timing",
    // Speed: Verilator's full optimisation; X values resolved the fast way (every register of the
    // design is reset before use, and lock-step tests compare from a reset cycle on).
    "-O3",
    "--x-assign",
    "fast",
    "--x-initial",
    "fast",
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
];
/// Mirrors `verilated.mk` of Verilator 5.006 (plus `-fPIC`/visibility flags).
const CXX_FLAGS: &[&str] = &[
    "-fPIC",
    "-fvisibility=hidden",
    "-fvisibility-inlines-hidden",
    "-fno-gnu-unique",
    "-faligned-new",
    "-fcf-protection=none",
    "-Wno-bool-operation",
    "-Wno-sign-compare",
    "-Wno-uninitialized",
    "-Wno-unused-but-set-variable",
    "-Wno-unused-parameter",
    "-Wno-unused-variable",
    "-Wno-shadow",
    "-DVM_COVERAGE=0",
    "-DVM_SC=0",
    "-DVM_TRACE=0",
    "-DVM_TRACE_FST=0",
    "-DVM_TRACE_VCD=0",
];
/// Optimisation of the per-cycle code (and the run-time), compiled for the host's CPU: the
/// model is built where it runs (the cache is per target directory), and `-march=native` made
/// the default 64x64 6-8% faster than `-O2` alone (`cargo bench --bench sim_speed`). The cache
/// keys include [`host_cpu`], so a cache copied to another machine is rebuilt, never run there.
const OPT_FAST: &[&str] = &["-O2", "-march=native"];
/// Optimisation of construction-time code (Verilator's `*__Slow.cpp`).
const OPT_SLOW: &[&str] = &["-O1"];
const LINK_FLAGS: &[&str] = &[
    "-shared",
    "-Wl,-z,defs",
    "-Wl,--version-script=vffi.map",
    "-pthread",
    "-latomic",
];
/// Export only the harness's functions from the library.
const VERSION_SCRIPT: &str = "{ global: vffi_*; local: *; };\n";
const ABI_VERSION: u32 = 1;

const NOT_INSTALLED: &str =
    "verilator not found: install the Debian package `verilator` (apt-get install verilator)";

// ---------------------------------------------------------------------------
// Port list parser.

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    Ident(&'a str),
    Num(&'a str),
    Punct(char),
}

struct Token<'a> {
    tok: Tok<'a>,
    line: usize,
}

fn tokenize(src: &str) -> Vec<Token<'_>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let ident_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    while i < b.len() {
        let c = b[i];
        let start = i;
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            _ if c.is_ascii_whitespace() => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    line += usize::from(b[i] == b'\n');
                    i += 1;
                }
                i += 2;
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'`' => {
                // Compiler directive name: skipped.
                i += 1;
                while i < b.len() && ident_char(b[i]) {
                    i += 1;
                }
            }
            b'\\' => {
                // Escaped identifier, up to white space.
                while i < b.len() && !b[i].is_ascii_whitespace() {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(&src[start..i]),
                    line,
                });
            }
            _ if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => {
                while i < b.len() && ident_char(b[i]) {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(&src[start..i]),
                    line,
                });
            }
            _ if c.is_ascii_digit() || c == b'\'' => {
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                    i += 1;
                }
                if b.get(i) == Some(&b'\'') {
                    // Based literal such as 8'hFF or 'sb0.
                    i += 1;
                    while i < b.len()
                        && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'?')
                    {
                        i += 1;
                    }
                }
                out.push(Token {
                    tok: Tok::Num(&src[start..i]),
                    line,
                });
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('?');
                i += ch.len_utf8();
                out.push(Token {
                    tok: Tok::Punct(ch),
                    line,
                });
            }
        }
    }
    out
}

fn perr<T>(msg: String) -> Result<T, VerilatorError> {
    Err(VerilatorError::Parse(msg))
}

/// Index just past the bracket that closes the one at `open`.
fn skip_balanced(toks: &[Token<'_>], open: usize) -> Result<usize, VerilatorError> {
    let mut depth = 0i32;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t.tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth -= 1;
                if depth == 0 {
                    return Ok(k + 1);
                }
            }
            _ => {}
        }
    }
    perr(format!("unbalanced brackets from line {}", toks[open].line))
}

/// The identifier that `toks` starts with, and the tokens after it.
fn leading_ident<'t, 'a>(toks: &'t [Token<'a>]) -> Option<(&'a str, &'t [Token<'a>])> {
    match toks.split_first() {
        Some((
            Token {
                tok: Tok::Ident(name),
                ..
            },
            rest,
        )) => Some((name, rest)),
        _ => None,
    }
}

/// Split `toks` at top-level commas.
fn split_commas<'t, 'a>(toks: &'t [Token<'a>]) -> Vec<&'t [Token<'a>]> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (k, t) in toks.iter().enumerate() {
        match t.tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                parts.push(&toks[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&toks[start..]);
    parts
}

fn parse_int(t: &Token<'_>) -> Result<i64, VerilatorError> {
    match t.tok {
        Tok::Num(s) if s.bytes().all(|c| c.is_ascii_digit() || c == b'_') => s
            .replace('_', "")
            .parse()
            .map_err(|_| VerilatorError::Parse(format!("line {}: bad number `{s}`", t.line))),
        ref other => perr(format!(
            "line {}: port ranges must be plain decimal numbers, found {other:?}",
            t.line
        )),
    }
}

/// Parse `[type words] [range] name` (the part after `input`/`output`).
/// Returns the width and the remaining tokens (the names).
fn parse_decl_type<'t, 'a>(
    toks: &'t [Token<'a>],
) -> Result<(u32, &'t [Token<'a>]), VerilatorError> {
    let mut k = 0;
    let mut width = 1u32;
    while let Some(Tok::Ident(w)) = toks.get(k).map(|t| &t.tok) {
        match *w {
            "wire" | "reg" | "logic" | "var" | "signed" | "unsigned" | "tri" | "bit" => k += 1,
            "integer" | "int" => {
                width = 32;
                k += 1;
            }
            _ => break,
        }
    }
    if let Some(Tok::Punct('[')) = toks.get(k).map(|t| &t.tok) {
        let line = toks[k].line;
        let ok = matches!(
            (
                toks.get(k + 2).map(|t| &t.tok),
                toks.get(k + 4).map(|t| &t.tok)
            ),
            (Some(Tok::Punct(':')), Some(Tok::Punct(']')))
        );
        if !ok {
            return perr(format!(
                "line {line}: port ranges must be `[msb:lsb]` with plain decimal numbers"
            ));
        }
        let msb = parse_int(&toks[k + 1])?;
        let lsb = parse_int(&toks[k + 3])?;
        width = u32::try_from((msb - lsb).unsigned_abs() + 1)
            .map_err(|_| VerilatorError::Parse(format!("line {line}: range too wide")))?;
        k += 5;
    }
    Ok((width, &toks[k..]))
}

/// Parse the port list (header order) of module `top` in `verilog`.
///
/// Understands what rust-hdl emits (non-ANSI header plus `input wire [N:0] a;`
/// / `output reg [N:0] b;` declarations, names containing `$`) and ANSI
/// headers.  Rejects `inout`, ports wider than 64 bits, non-numeric ranges,
/// unpacked arrays and escaped identifiers.
pub fn parse_ports(verilog: &str, top: &str) -> Result<Vec<PortInfo>, VerilatorError> {
    let toks = tokenize(verilog);
    let start = toks
        .windows(2)
        .position(|w| {
            matches!(w[0].tok, Tok::Ident("module" | "macromodule")) && w[1].tok == Tok::Ident(top)
        })
        .ok_or_else(|| VerilatorError::Parse(format!("module `{top}` not found")))?;
    let mut k = start + 2;
    if toks.get(k).map(|t| &t.tok) == Some(&Tok::Punct('#')) {
        k = skip_balanced(&toks, k + 1)?;
    }
    // (name, is_input?, width?) in header order.
    let mut header: Vec<(String, Option<(bool, u32)>)> = Vec::new();
    match toks.get(k).map(|t| &t.tok) {
        Some(Tok::Punct('(')) => {
            let end = skip_balanced(&toks, k)?;
            let inner = &toks[k + 1..end - 1];
            if !inner.is_empty() {
                let ansi = matches!(inner[0].tok, Tok::Ident("input" | "output" | "inout"));
                let mut dir: Option<bool> = None;
                let mut width = 1;
                for item in split_commas(inner) {
                    let line = item.first().map_or(toks[k].line, |t| t.line);
                    let rest = match item.first().map(|t| &t.tok) {
                        Some(Tok::Ident(d @ ("input" | "output" | "inout"))) if ansi => {
                            if *d == "inout" {
                                return perr(format!("line {line}: inout ports are not supported"));
                            }
                            dir = Some(*d == "input");
                            let (w, rest) = parse_decl_type(&item[1..])?;
                            width = w;
                            rest
                        }
                        _ => item,
                    };
                    match leading_ident(rest) {
                        Some((name, [])) => {
                            header.push((name.to_string(), dir.map(|d| (d, width))));
                        }
                        _ => {
                            return perr(format!(
                                "line {line}: unsupported entry in the port list of `{top}`"
                            ));
                        }
                    }
                }
            }
            k = end;
        }
        Some(Tok::Punct(';')) => {}
        _ => return perr(format!("malformed header of module `{top}`")),
    }

    // Body: declarations of non-ANSI ports, outside functions and tasks.
    let mut decls: HashMap<&str, (bool, u32)> = HashMap::new();
    let mut nest = 0i32;
    while k < toks.len() {
        match toks[k].tok {
            Tok::Ident("endmodule") => break,
            Tok::Ident("function" | "task") => nest += 1,
            Tok::Ident("endfunction" | "endtask") => nest -= 1,
            Tok::Ident("inout") if nest == 0 => {
                return perr(format!(
                    "line {}: inout ports are not supported",
                    toks[k].line
                ));
            }
            Tok::Ident(d @ ("input" | "output")) if nest == 0 => {
                let end = toks[k..]
                    .iter()
                    .position(|t| t.tok == Tok::Punct(';'))
                    .map_or(toks.len(), |p| k + p);
                let (width, names) = parse_decl_type(&toks[k + 1..end])?;
                for part in split_commas(names) {
                    match leading_ident(part) {
                        // `name` or `name = value`.
                        Some((name, rest))
                            if rest.first().is_none_or(|t| t.tok == Tok::Punct('=')) =>
                        {
                            decls.insert(name, (d == "input", width));
                        }
                        _ => {
                            return perr(format!(
                                "line {}: unsupported port declaration",
                                toks[k].line
                            ));
                        }
                    }
                }
                k = end;
            }
            _ => {}
        }
        k += 1;
    }

    let mut ports = Vec::with_capacity(header.len());
    for (name, ansi) in header {
        if name.starts_with('\\') {
            return perr(format!("escaped identifier `{name}` is not supported"));
        }
        let (is_input, width) = match ansi.or_else(|| decls.get(name.as_str()).copied()) {
            Some(d) => d,
            None => {
                return perr(format!(
                    "port `{name}` of `{top}` has no input/output declaration"
                ));
            }
        };
        if !(1..=64).contains(&width) {
            return perr(format!(
                "port `{name}` is {width} bits wide; only 1..=64 bits are supported"
            ));
        }
        if ports.iter().any(|p: &PortInfo| p.name == name) {
            return perr(format!("port `{name}` listed twice"));
        }
        ports.push(PortInfo {
            name,
            width,
            is_input,
        });
    }
    Ok(ports)
}

/// The C++ member name Verilator 5.006 gives a port (`AstNode::encodeName`):
/// ASCII letters, digits and single `_` are kept; every other byte becomes
/// `__0` plus two lower-case hex digits (so `$` becomes `__024` and
/// `lane_sid$0` becomes `lane_sid__0240`); the second `_` of `__` becomes
/// `__05F` (`a__b` -> `a___05Fb`).  Verilator further renames names that are
/// C++ keywords (`__SYM__` prefix) and shortens encoded names of 128 or more
/// characters (32 characters + `__Vhsh` + hash); the build resolves those
/// against the generated header.
pub fn mangle_name(name: &str) -> String {
    let b = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // Digits cannot lead an identifier.
        let keep = c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit());
        if keep {
            out.push(char::from(c));
        } else if c == b'_' {
            out.push('_');
            if b.get(i + 1) == Some(&b'_') {
                out.push_str("__05F");
                i += 1;
            }
        } else {
            out.push_str(&format!("__0{c:02x}"));
        }
        i += 1;
    }
    out
}

/// A port as declared in the generated `Vdut.h`: `VL_IN8(&name,msb,lsb);`.
#[derive(Debug)]
struct HeaderPort {
    cname: String,
    is_input: Option<bool>,
    width: u32,
}

fn parse_model_header(text: &str) -> Vec<HeaderPort> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("VL_") else {
            continue;
        };
        let (is_input, rest) = if let Some(r) = rest.strip_prefix("INOUT") {
            (None, r)
        } else if let Some(r) = rest.strip_prefix("IN") {
            (Some(true), r)
        } else if let Some(r) = rest.strip_prefix("OUT") {
            (Some(false), r)
        } else {
            continue;
        };
        let Some((_, args)) = rest.split_once("(&") else {
            continue;
        };
        let args = args.split(')').next().unwrap_or("");
        let mut it = args.split(',').map(str::trim);
        let (Some(cname), Some(msb), Some(lsb)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        let (Ok(msb), Ok(lsb)) = (msb.parse::<i64>(), lsb.parse::<i64>()) else {
            continue;
        };
        out.push(HeaderPort {
            cname: cname.to_string(),
            is_input,
            width: u32::try_from((msb - lsb).unsigned_abs() + 1).unwrap_or(u32::MAX),
        });
    }
    out
}

/// Map every Verilog port to the C++ member that `Vdut.h` declares for it.
fn resolve_cpp_names(ports: &[PortInfo], header: &[HeaderPort]) -> Result<Vec<String>, String> {
    let mut claimed = vec![false; header.len()];
    let mut names = Vec::with_capacity(ports.len());
    for p in ports {
        let enc = mangle_name(&p.name);
        let exact = [enc.clone(), format!("__SYM__{enc}")];
        let mut found = header
            .iter()
            .enumerate()
            .position(|(i, h)| !claimed[i] && exact.contains(&h.cname));
        if found.is_none() {
            // Shortened name: `<prefix of encoded name>__Vhsh<hash>`.
            let hashed: Vec<usize> = (0..header.len())
                .filter(|&i| {
                    !claimed[i]
                        && header[i]
                            .cname
                            .split_once("__Vhsh")
                            .is_some_and(|(pre, _)| !pre.is_empty() && enc.starts_with(pre))
                })
                .collect();
            if hashed.len() == 1 {
                found = Some(hashed[0]);
            }
        }
        let Some(i) = found else {
            return Err(format!(
                "port `{}` (C++ `{enc}`) not found in Vdut.h, which declares: {:?}",
                p.name,
                header.iter().map(|h| &h.cname).collect::<Vec<_>>()
            ));
        };
        let h = &header[i];
        if h.is_input != Some(p.is_input) || h.width != p.width {
            return Err(format!(
                "port `{}`: parsed as {} {} bits, Verilator says {:?} {} bits",
                p.name,
                if p.is_input { "input" } else { "output" },
                p.width,
                h.is_input,
                h.width
            ));
        }
        claimed[i] = true;
        names.push(h.cname.clone());
    }
    if let Some(i) = claimed.iter().position(|c| !c) {
        return Err(format!(
            "Vdut.h declares port `{}` that the Verilog parser did not find",
            header[i].cname
        ));
    }
    Ok(names)
}

// ---------------------------------------------------------------------------
// Tools.

#[derive(Debug, Clone)]
struct Tools {
    version: String,
    root: PathBuf,
    cxx: String,
    /// `$CXX --version`.
    cxx_version: String,
}

/// Run `cmd`; return the command line and its output, or a `Build` error
/// with the same.
fn run_capture(cmd: &mut Command, what: &str) -> Result<String, VerilatorError> {
    let out = cmd.output()?;
    let mut text = format!("$ {cmd:?}\n");
    text.push_str(&String::from_utf8_lossy(&out.stdout));
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    if out.status.success() {
        Ok(text)
    } else {
        Err(VerilatorError::Build(format!(
            "{what} failed ({}):\n{}",
            out.status,
            tail(&text, 32 * 1024)
        )))
    }
}

fn tail(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// `verilator --version`, or `NotInstalled`.
fn probe_version(verilator: &std::ffi::OsStr) -> Result<String, VerilatorError> {
    let out = match Command::new(verilator).arg("--version").output() {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(VerilatorError::NotInstalled(NOT_INSTALLED.to_string()));
        }
        Err(e) => return Err(e.into()),
    };
    if !out.status.success() {
        return Err(VerilatorError::NotInstalled(format!(
            "{NOT_INSTALLED}; `verilator --version` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Verilator's version string, probed once per process (the cache key needs
/// it; a cache hit needs nothing else).
fn verilator_version() -> Result<String, VerilatorError> {
    static VERSION: std::sync::OnceLock<Result<String, String>> = std::sync::OnceLock::new();
    let cached = VERSION.get_or_init(|| {
        probe_version(std::ffi::OsStr::new("verilator")).map_err(|e| match e {
            VerilatorError::NotInstalled(m) => m,
            other => format!("{NOT_INSTALLED}; running it failed: {other}"),
        })
    });
    cached.clone().map_err(VerilatorError::NotInstalled)
}

/// The C++ compiler named by `$CXX` (default `g++`); part of the cache key.
fn cxx_name() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "g++".to_string())
}

/// Everything needed for a build, probed when a build is needed.
fn build_tools(version: String) -> Result<Tools, VerilatorError> {
    let out = Command::new("verilator")
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()?;
    let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !root.join("include/verilated.cpp").is_file() {
        return Err(VerilatorError::NotInstalled(format!(
            "{NOT_INSTALLED}; Verilator's run-time sources are missing under {}",
            root.display()
        )));
    }
    let cxx = cxx_name();
    let cxx_version = match Command::new(&cxx).arg("--version").output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        _ => {
            return Err(VerilatorError::NotInstalled(format!(
                "C++ compiler `{cxx}` not found: install the Debian package `g++` \
                 (apt-get install g++) or set CXX"
            )));
        }
    };
    Ok(Tools {
        version,
        root,
        cxx,
        cxx_version,
    })
}

fn hex_digest(parts: &[&[u8]]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        // Length-prefix each part so that the concatenation is unambiguous.
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn flags_text() -> String {
    format!(
        "{SCHEMA}|{}|{}|{}|{}|{}|{VERSION_SCRIPT}|{HARNESS_TEMPLATE}|{}",
        VERILATOR_FLAGS.join(" "),
        CXX_FLAGS.join(" "),
        OPT_FAST.join(" "),
        OPT_SLOW.join(" "),
        LINK_FLAGS.join(" "),
        host_cpu()
    )
}

/// The host's CPU as the cache keys see it (`OPT_FAST` compiles for it): the architecture and,
/// on Linux, /proc/cpuinfo's first `model name` and `flags` (or `Features`) lines.
fn host_cpu() -> &'static str {
    static CPU: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CPU.get_or_init(|| {
        let info = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let first = |key: &str| {
            info.lines()
                .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
                .unwrap_or("")
                .to_string()
        };
        format!(
            "{}|{}|{}{}",
            std::env::consts::ARCH,
            first("model name"),
            first("flags"),
            first("Features")
        )
    })
}

fn unique_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Holds an exclusive `flock` on a file until dropped (or the process dies).
struct LockGuard(fs::File);

impl LockGuard {
    fn acquire(path: &Path) -> Result<Self, VerilatorError> {
        let f = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        f.lock()?;
        Ok(LockGuard(f))
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// Removes a temporary directory on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn cxx_command(tools: &Tools, opt: &[&str]) -> Command {
    let mut cmd = Command::new(&tools.cxx);
    cmd.args(opt)
        .args(CXX_FLAGS)
        .arg(format!("-I{}", tools.root.join("include").display()))
        .arg(format!("-I{}", tools.root.join("include/vltstd").display()));
    cmd
}

/// Compile (once per Verilator installation and flags) the run-time objects
/// `names` (e.g. `verilated`, `verilated_threads`) and return their paths.
fn runtime_objects(
    tools: &Tools,
    cache_dir: &Path,
    names: &[String],
) -> Result<Vec<PathBuf>, VerilatorError> {
    let key = hex_digest(&[
        SCHEMA.as_bytes(),
        tools.version.as_bytes(),
        tools.root.as_os_str().as_encoded_bytes(),
        tools.cxx.as_bytes(),
        tools.cxx_version.as_bytes(),
        CXX_FLAGS.join(" ").as_bytes(),
        OPT_FAST.join(" ").as_bytes(),
        host_cpu().as_bytes(),
    ]);
    let dir = cache_dir.join(format!("runtime-{key}"));
    fs::create_dir_all(&dir)?;
    let mut objs = Vec::new();
    let mut lock = None;
    for name in names {
        if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
            return Err(VerilatorError::Build(format!(
                "unexpected run-time file name `{name}`"
            )));
        }
        let obj = dir.join(format!("{name}.o"));
        if !obj.is_file() {
            if lock.is_none() {
                lock = Some(LockGuard::acquire(&dir.join(".lock"))?);
            }
            if !obj.is_file() {
                let src = tools.root.join("include").join(format!("{name}.cpp"));
                let tmp = dir.join(format!(".{name}.{}.o", unique_suffix()));
                let res = run_capture(
                    cxx_command(tools, OPT_FAST)
                        .arg("-c")
                        .arg(&src)
                        .arg("-o")
                        .arg(&tmp),
                    &format!("compiling Verilator run-time {}", src.display()),
                );
                if let Err(e) = res {
                    let _ = fs::remove_file(&tmp);
                    return Err(e);
                }
                fs::rename(&tmp, &obj)?;
            }
        }
        objs.push(obj);
    }
    Ok(objs)
}

/// Values of `VAR += \` lists in Verilator's `Vdut_classes.mk`.
fn make_list(mk: &str, var: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_list = false;
    for line in mk.lines() {
        let t = line.trim();
        if in_list {
            let item = t.trim_end_matches('\\').trim();
            if !item.is_empty() {
                out.push(item.to_string());
            }
            in_list = t.ends_with('\\');
        } else if let Some(rest) = t.strip_prefix(var) {
            let rest = rest.trim_start();
            if let Some(v) = rest.strip_prefix("+=").or_else(|| rest.strip_prefix('=')) {
                let v = v.trim().trim_end_matches('\\').trim();
                out.extend(v.split_whitespace().map(str::to_string));
                in_list = t.ends_with('\\');
            }
        }
    }
    out
}

fn c_string_literal(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(char::from(b));
            }
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// The C++ harness; `@...@` placeholders are filled in by [`harness_source`].
const HARNESS_TEMPLATE: &str = r#"// Generated by verilator.rs (@SCHEMA@); do not edit.
#include <cstdint>
#include "verilated.h"
#include "Vdut.h"

#define VFFI_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
struct Handle {
    VerilatedContext* ctx;
    Vdut* model;
};
const char* const kNames[] = {@NAMES@ nullptr};
const uint32_t kCount = @COUNT@;
}  // namespace

VFFI_EXPORT uint32_t vffi_abi_version() { return @ABI@; }
VFFI_EXPORT uint32_t vffi_port_count() { return kCount; }
VFFI_EXPORT const char* vffi_port_name(uint32_t i) { return i < kCount ? kNames[i] : nullptr; }

VFFI_EXPORT void* vffi_new() {
    try {
        Handle* h = new Handle{nullptr, nullptr};
        h->ctx = new VerilatedContext;
        h->model = new Vdut(h->ctx, "TOP");
        return h;
    } catch (...) {
        return nullptr;
    }
}
VFFI_EXPORT void vffi_eval(void* p) { static_cast<Handle*>(p)->model->eval(); }
VFFI_EXPORT void vffi_final(void* p) { static_cast<Handle*>(p)->model->final(); }
VFFI_EXPORT int vffi_got_finish(void* p) {
    return static_cast<Handle*>(p)->ctx->gotFinish() ? 1 : 0;
}
VFFI_EXPORT void vffi_free(void* p) {
    Handle* h = static_cast<Handle*>(p);
    delete h->model;
    delete h->ctx;
    delete h;
}

VFFI_EXPORT void* vffi_port_ptr(void* p, uint32_t i) {
    Vdut* m = static_cast<Handle*>(p)->model;
    switch (i) {
@PTR_CASES@    default: return nullptr;
    }
}
VFFI_EXPORT uint32_t vffi_port_bytes(uint32_t i) {
    switch (i) {
@SIZE_CASES@    default: return 0;
    }
}
"#;

fn harness_source(ports: &[PortInfo], cnames: &[String]) -> String {
    let names: String = ports
        .iter()
        .map(|p| format!("{}, ", c_string_literal(&p.name)))
        .collect();
    let mut ptr_cases = String::new();
    let mut size_cases = String::new();
    for (i, c) in cnames.iter().enumerate() {
        ptr_cases.push_str(&format!("    case {i}: return &m->{c};\n"));
        size_cases.push_str(&format!("    case {i}: return sizeof(Vdut::{c});\n"));
    }
    HARNESS_TEMPLATE
        .replace("@SCHEMA@", SCHEMA)
        .replace("@NAMES@", &names)
        .replace("@COUNT@", &ports.len().to_string())
        .replace("@ABI@", &ABI_VERSION.to_string())
        .replace("@PTR_CASES@", &ptr_cases)
        .replace("@SIZE_CASES@", &size_cases)
}

/// Run Verilator and the C++ compiler in `tmp`; leave `tmp/out/libvdut.so`.
fn build_into(
    tools: &Tools,
    cache_dir: &Path,
    tmp: &Path,
    verilog: &str,
    top: &str,
    ports: &[PortInfo],
) -> Result<PathBuf, VerilatorError> {
    let out = tmp.join("out");
    let obj = tmp.join("obj");
    fs::create_dir_all(&out)?;
    let vfile = out.join("dut.v");
    fs::write(&vfile, verilog)?;
    let mut log = String::new();
    log.push_str(&run_capture(
        Command::new("verilator")
            .args(VERILATOR_FLAGS)
            .arg("--top-module")
            .arg(top)
            .arg("--Mdir")
            .arg(&obj)
            .arg(&vfile),
        "verilator",
    )?);

    let header = fs::read_to_string(obj.join(format!("{MODEL_PREFIX}.h")))?;
    let cnames = resolve_cpp_names(ports, &parse_model_header(&header))
        .map_err(|m| VerilatorError::Build(format!("{m}\n(verilator output:\n{log})")))?;
    let harness = harness_source(ports, &cnames);
    fs::write(obj.join("vffi_harness.cpp"), &harness)?;
    fs::write(out.join("vffi_harness.cpp"), &harness)?;

    let mk = fs::read_to_string(obj.join(format!("{MODEL_PREFIX}_classes.mk")))?;
    if make_list(&mk, "VM_TIMING").iter().any(|v| v != "0") {
        return Err(VerilatorError::Build(
            "the model needs timing support, which is not enabled".into(),
        ));
    }
    let mut fast: Vec<String> = make_list(&mk, "VM_CLASSES_FAST");
    fast.extend(make_list(&mk, "VM_SUPPORT_FAST"));
    fast.push("vffi_harness".to_string());
    let mut slow: Vec<String> = make_list(&mk, "VM_CLASSES_SLOW");
    slow.extend(make_list(&mk, "VM_SUPPORT_SLOW"));
    let mut globals = make_list(&mk, "VM_GLOBAL_FAST");
    globals.extend(make_list(&mk, "VM_GLOBAL_SLOW"));
    let runtime = runtime_objects(tools, cache_dir, &globals)?;

    for (files, opt) in [(&fast, OPT_FAST), (&slow, OPT_SLOW)] {
        if files.is_empty() {
            continue;
        }
        let mut cmd = cxx_command(tools, opt);
        cmd.current_dir(&obj).arg("-I.").arg("-c");
        cmd.args(files.iter().map(|f| format!("{f}.cpp")));
        log.push_str(&run_capture(&mut cmd, "compiling the Verilated model")?);
    }
    let lib = out.join(LIB_NAME);
    fs::write(obj.join("vffi.map"), VERSION_SCRIPT)?;
    let mut link = Command::new(&tools.cxx);
    link.current_dir(&obj)
        .arg("-o")
        .arg(&lib)
        .args(fast.iter().chain(&slow).map(|f| format!("{f}.o")))
        .args(&runtime)
        .args(LINK_FLAGS);
    log.push_str(&run_capture(&mut link, "linking the Verilated model")?);
    fs::write(out.join("build.log"), log)?;
    Ok(out)
}

/// Result of [`ensure_library`].
struct Built {
    lib: PathBuf,
    cache_hit: bool,
}

fn ensure_library(
    verilog: &str,
    top: &str,
    ports: &[PortInfo],
    cache_dir: &Path,
) -> Result<Built, VerilatorError> {
    let version = verilator_version()?;
    let cxx = cxx_name();
    let key = hex_digest(&[
        SCHEMA.as_bytes(),
        verilog.as_bytes(),
        top.as_bytes(),
        version.as_bytes(),
        cxx.as_bytes(),
        flags_text().as_bytes(),
    ]);
    let readable: String = top
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(32)
        .collect();
    let final_dir = cache_dir.join(format!("{readable}-{key}"));
    let lib = final_dir.join(LIB_NAME);
    // The directory only ever appears by an atomic rename of a finished build.
    if lib.is_file() {
        return Ok(Built {
            lib,
            cache_hit: true,
        });
    }
    let locks = cache_dir.join(".locks");
    fs::create_dir_all(&locks)?;
    let _lock = LockGuard::acquire(&locks.join(format!("{readable}-{key}")))?;
    if lib.is_file() {
        return Ok(Built {
            lib,
            cache_hit: true,
        });
    }
    let tools = build_tools(version)?;
    let tmp = TempDir(cache_dir.join(format!(".tmp-{key}-{}", unique_suffix())));
    let out = build_into(&tools, cache_dir, &tmp.0, verilog, top, ports)?;
    match fs::rename(&out, &final_dir) {
        Ok(()) => {}
        // Someone else (without the lock, e.g. on a file system without
        // flock) finished first: use theirs, never replace it.
        Err(_) if lib.is_file() => {}
        Err(e) => return Err(e.into()),
    }
    Ok(Built {
        lib,
        cache_hit: false,
    })
}

// ---------------------------------------------------------------------------
// The loaded model.

#[derive(Clone, Copy)]
enum PortPtr {
    U8(*mut u8),
    U16(*mut u16),
    U32(*mut u32),
    U64(*mut u64),
}

type EvalFn = unsafe extern "C" fn(*mut c_void);

/// A Verilated design loaded from its shared library.
///
/// Not `Send`/`Sync`: create, use and drop it on one thread.
pub struct VerilatedModel {
    handle: *mut c_void,
    eval_fn: EvalFn,
    final_fn: EvalFn,
    free_fn: EvalFn,
    finish_fn: unsafe extern "C" fn(*mut c_void) -> i32,
    ports: Vec<PortInfo>,
    ptrs: Vec<(PortPtr, u64)>,
    lib_path: PathBuf,
    cache_hit: bool,
    // Dropped after `Drop::drop` has freed the model.
    _lib: libloading::Library,
    _not_send: PhantomData<*mut ()>,
}

fn symbol<T: Copy>(lib: &libloading::Library, name: &str) -> Result<T, VerilatorError> {
    let mut cname = name.as_bytes().to_vec();
    cname.push(0);
    // SAFETY: every symbol is looked up with the signature that the harness
    // generated by this module defines for it.
    unsafe { lib.get::<T>(&cname) }
        .map(|s| *s)
        .map_err(|e| VerilatorError::Load(format!("symbol `{name}`: {e}")))
}

impl VerilatedModel {
    /// Build (or fetch from `cache_dir`) and load the model of module `top`
    /// in `verilog`.  A cold build takes seconds; a cache hit milliseconds.
    ///
    /// The new model has been evaluated once with all inputs 0 (which runs
    /// its `initial` blocks), so a first `set(clock, 1); eval()` is seen as a
    /// rising edge.
    pub fn build(verilog: &str, top: &str, cache_dir: &Path) -> Result<Self, VerilatorError> {
        let ports = parse_ports(verilog, top)?;
        let cache_dir = std::path::absolute(cache_dir)?;
        let built = ensure_library(verilog, top, &ports, &cache_dir)?;
        Self::load(&built.lib, ports, built.cache_hit)
    }

    fn load(path: &Path, ports: Vec<PortInfo>, cache_hit: bool) -> Result<Self, VerilatorError> {
        // SAFETY: loading runs the library's static constructors, which are
        // those of Verilator's run-time and of the generated model.
        let lib = unsafe { libloading::Library::new(path) }
            .map_err(|e| VerilatorError::Load(format!("{}: {e}", path.display())))?;
        let abi: unsafe extern "C" fn() -> u32 = symbol(&lib, "vffi_abi_version")?;
        let count: unsafe extern "C" fn() -> u32 = symbol(&lib, "vffi_port_count")?;
        let name_fn: unsafe extern "C" fn(u32) -> *const c_char = symbol(&lib, "vffi_port_name")?;
        let bytes_fn: unsafe extern "C" fn(u32) -> u32 = symbol(&lib, "vffi_port_bytes")?;
        let new_fn: unsafe extern "C" fn() -> *mut c_void = symbol(&lib, "vffi_new")?;
        let ptr_fn: unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void =
            symbol(&lib, "vffi_port_ptr")?;
        // SAFETY (all calls below): functions of the harness, called with the
        // arguments they expect; port indices are < the port count.
        if unsafe { abi() } != ABI_VERSION || unsafe { count() } as usize != ports.len() {
            return Err(VerilatorError::Load(format!(
                "{} does not match this module's harness",
                path.display()
            )));
        }
        for (i, p) in ports.iter().enumerate() {
            let cname = unsafe { name_fn(i as u32) };
            let same = !cname.is_null()
                && unsafe { std::ffi::CStr::from_ptr(cname) }.to_bytes() == p.name.as_bytes();
            if !same {
                return Err(VerilatorError::Load(format!(
                    "{}: port {i} is not `{}`",
                    path.display(),
                    p.name
                )));
            }
        }
        let mut model = VerilatedModel {
            handle: std::ptr::null_mut(),
            eval_fn: symbol(&lib, "vffi_eval")?,
            final_fn: symbol(&lib, "vffi_final")?,
            free_fn: symbol(&lib, "vffi_free")?,
            finish_fn: symbol(&lib, "vffi_got_finish")?,
            ports: Vec::new(),
            ptrs: Vec::with_capacity(ports.len()),
            lib_path: path.to_path_buf(),
            cache_hit,
            _lib: lib,
            _not_send: PhantomData,
        };
        model.handle = unsafe { new_fn() };
        if model.handle.is_null() {
            return Err(VerilatorError::Load("creating the model failed".into()));
        }
        for (i, p) in ports.iter().enumerate() {
            let raw = unsafe { ptr_fn(model.handle, i as u32) };
            let size = unsafe { bytes_fn(i as u32) };
            let ptr = match (size, p.width) {
                _ if raw.is_null() => None,
                (1, 1..=8) => Some(PortPtr::U8(raw.cast())),
                (2, 9..=16) => Some(PortPtr::U16(raw.cast())),
                (4, 17..=32) => Some(PortPtr::U32(raw.cast())),
                (8, 33..=64) => Some(PortPtr::U64(raw.cast())),
                _ => None,
            };
            let Some(ptr) = ptr else {
                // `model` is dropped here, which frees the handle.
                return Err(VerilatorError::Load(format!(
                    "port `{}`: {} bits stored in {size} bytes",
                    p.name, p.width
                )));
            };
            let mask = u64::MAX >> (64 - p.width);
            model.ptrs.push((ptr, mask));
        }
        model.ports = ports;
        // Settle with all inputs 0 (runs `initial` blocks), so that a first
        // `set(clock, 1); eval()` is a rising edge: Verilator 5 takes the
        // values seen by the very first eval() as the previous values.
        model.eval();
        Ok(model)
    }

    /// The ports of the top module, in header order.
    pub fn ports(&self) -> &[PortInfo] {
        &self.ports
    }

    /// Index into [`ports`](Self::ports) of the port called `name`
    /// (the Verilog name, e.g. `lane_sid$0`).
    pub fn port(&self, name: &str) -> Option<usize> {
        self.ports.iter().position(|p| p.name == name)
    }

    /// Write input `port`, masked to its width.  Takes effect at the next
    /// [`eval`](Self::eval).
    ///
    /// # Panics
    /// If `port` is out of range or is an output.
    pub fn set(&mut self, port: usize, value: u64) {
        assert!(
            self.ports[port].is_input,
            "port `{}` is an output; only inputs can be set",
            self.ports[port].name
        );
        let (ptr, mask) = self.ptrs[port];
        let v = value & mask;
        // SAFETY: the pointers address live port storage of the model that
        // `self` owns, with the storage type Verilator declares (checked at
        // load); the model is only touched from this thread.
        unsafe {
            match ptr {
                PortPtr::U8(p) => *p = v as u8,
                PortPtr::U16(p) => *p = v as u16,
                PortPtr::U32(p) => *p = v as u32,
                PortPtr::U64(p) => *p = v,
            }
        }
    }

    /// Read `port` (input or output).
    ///
    /// # Panics
    /// If `port` is out of range.
    pub fn get(&self, port: usize) -> u64 {
        let (ptr, mask) = self.ptrs[port];
        // SAFETY: see `set`.
        let v = unsafe {
            match ptr {
                PortPtr::U8(p) => u64::from(*p),
                PortPtr::U16(p) => u64::from(*p),
                PortPtr::U32(p) => u64::from(*p),
                PortPtr::U64(p) => *p,
            }
        };
        v & mask
    }

    /// Evaluate the model (Verilator's `eval()`): settle combinational logic
    /// and run the processes triggered by input changes since the last call.
    pub fn eval(&mut self) {
        // SAFETY: `handle` is the live model created by this library.
        unsafe { (self.eval_fn)(self.handle) }
    }

    /// Whether the design has executed `$finish`.
    pub fn finished(&self) -> bool {
        // SAFETY: as in `eval`.
        unsafe { (self.finish_fn)(self.handle) != 0 }
    }

    /// Whether [`build`](Self::build) found the library in the cache.
    pub fn was_cached(&self) -> bool {
        self.cache_hit
    }

    /// Path of the loaded shared library.
    pub fn library_path(&self) -> &Path {
        &self.lib_path
    }
}

impl Drop for VerilatedModel {
    fn drop(&mut self) {
        if !self.handle.is_null() {
            // SAFETY: `handle` is live and is freed exactly once, before the
            // library (a field) is unloaded.
            unsafe {
                (self.final_fn)(self.handle);
                (self.free_fn)(self.handle);
            }
            self.handle = std::ptr::null_mut();
        }
    }
}

impl fmt::Debug for VerilatedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerilatedModel")
            .field("library", &self.lib_path)
            .field("ports", &self.ports)
            .field("cache_hit", &self.cache_hit)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// An 8-bit counter in `top$sub`, a loadable 40-bit counter, a 1-bit
    /// output, a 12-bit step added to a 32-bit accumulator and a 64-bit
    /// pass-through (so every storage type: CData, SData, IData, QData);
    /// non-ANSI ports, `$` in port names, rust-hdl's formatting.
    const COUNTER_V: &str = r#"
// Test design in rust-hdl's style.
module top$sub(clock,en,q);
    input wire  clock;
    input wire  en;
    output reg  [7:0] q;
    initial q = 8'd0;
    always @(posedge clock) begin
        if (en) q <= q + 8'd1;
    end
endmodule // top$sub

module counters(clock,enable,load,load_val,step,lane_sid$0,pass$out,big,cnt8,odd,acc);
    // Module arguments
    input wire  clock;
    input   wire   enable ;
    input wire  load;
    input wire  [39:0] load_val;
    input wire  [11:0] step;
    input wire  [63:0] lane_sid$0;
    output wire [63:0] pass$out;
    output reg  [39:0] big;
    output wire  [7:0] cnt8;
    output reg  odd;
    output reg  [31:0] acc;
    initial big = 40'd0;
    initial odd = 1'b0;
    initial acc = 32'd0;
    assign pass$out = lane_sid$0;
    always @(posedge clock) begin
        if (load) begin
            big <= load_val;
        end else if (enable) begin
            big <= big + 40'd1;
        end
        odd <= cnt8[0];
        acc <= acc + {20'd0, step};
    end
    top$sub ctrs$0(.clock(clock), .en(enable), .q(cnt8));
endmodule // counters
"#;

    /// `target/verilator-cache`, found from the test binary's location.
    fn cache_dir() -> PathBuf {
        let exe = std::env::current_exe().expect("current_exe");
        exe.ancestors()
            .find(|p| p.file_name().is_some_and(|n| n == "target"))
            .map_or_else(std::env::temp_dir, Path::to_path_buf)
            .join("verilator-cache")
    }

    fn build(v: &str, top: &str) -> VerilatedModel {
        match VerilatedModel::build(v, top, &cache_dir()) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        }
    }

    fn idx(m: &VerilatedModel, name: &str) -> usize {
        m.port(name)
            .unwrap_or_else(|| panic!("no port {name} in {:?}", m.ports()))
    }

    #[test]
    fn parses_rust_hdl_style_ports() {
        let ports = parse_ports(COUNTER_V, "counters").unwrap();
        let p = |name: &str, width, is_input| PortInfo {
            name: name.into(),
            width,
            is_input,
        };
        assert_eq!(
            ports,
            vec![
                p("clock", 1, true),
                p("enable", 1, true),
                p("load", 1, true),
                p("load_val", 40, true),
                p("step", 12, true),
                p("lane_sid$0", 64, true),
                p("pass$out", 64, false),
                p("big", 40, false),
                p("cnt8", 8, false),
                p("odd", 1, false),
                p("acc", 32, false),
            ]
        );
        let sub = parse_ports(COUNTER_V, "top$sub").unwrap();
        assert_eq!(sub.len(), 3);
        assert_eq!(sub[2], p("q", 8, false));
    }

    #[test]
    fn parses_other_styles_and_rejects_unsupported() {
        let v = "module  m ( a ,b,\n c, d ) ;\n input [ 3 : 0 ] a, b ;\n/* output q; */\n\
                 output reg signed [16:1] c;\n output logic [0:31] d;\n\
                 function [7:0] f; input [7:0] x; f = x; endfunction\nendmodule\n";
        let ports = parse_ports(v, "m").unwrap();
        let got: Vec<_> = ports
            .iter()
            .map(|p| (p.name.as_str(), p.width, p.is_input))
            .collect();
        assert_eq!(
            got,
            [
                ("a", 4, true),
                ("b", 4, true),
                ("c", 16, false),
                ("d", 32, false)
            ]
        );

        let ansi = "module m #(parameter W = 8) (input wire clk, input [7:0] a, b, output reg [32:0] q);\nendmodule";
        let got: Vec<_> = parse_ports(ansi, "m")
            .unwrap()
            .into_iter()
            .map(|p| (p.name, p.width, p.is_input))
            .collect();
        assert_eq!(
            got,
            [
                ("clk".to_string(), 1, true),
                ("a".to_string(), 8, true),
                ("b".to_string(), 8, true),
                ("q".to_string(), 33, false)
            ]
        );

        let err = |v: &str| match parse_ports(v, "m") {
            Err(VerilatorError::Parse(m)) => m,
            other => panic!("expected a Parse error, got {other:?}"),
        };
        assert!(err("module m(a); input [64:0] a; endmodule").contains("65 bits"));
        assert!(err("module m(a); input [W-1:0] a; endmodule").contains("decimal"));
        assert!(err("module m(a); inout a; endmodule").contains("inout"));
        assert!(err("module m(a, b); input a; endmodule").contains("`b`"));
        assert!(err("module x(a); input a; endmodule").contains("not found"));
    }

    #[test]
    fn mangles_like_verilator() {
        assert_eq!(mangle_name("lane_sid$0"), "lane_sid__0240");
        assert_eq!(mangle_name("a$b$"), "a__024b__024");
        assert_eq!(mangle_name("a__b"), "a___05Fb");
        assert_eq!(mangle_name("_q"), "_q");
        assert_eq!(mangle_name("clock"), "clock");
    }

    #[test]
    fn resolves_keyword_and_shortened_names() {
        let header = "    VL_IN8(&__SYM__delete,0,0);\n    VL_IN16(&x__024y,9,0);\n    \
                      VL_OUT64(&bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb__VhshcK4cUwf1JQ1cabc,39,0);\n    \
                      VL_OUT(&q,31,0);\n";
        let hp = parse_model_header(header);
        assert_eq!(hp.len(), 4);
        let long = "b".repeat(130);
        let ports = vec![
            PortInfo {
                name: "delete".into(),
                width: 1,
                is_input: true,
            },
            PortInfo {
                name: "x$y".into(),
                width: 10,
                is_input: true,
            },
            PortInfo {
                name: "q".into(),
                width: 32,
                is_input: false,
            },
            PortInfo {
                name: long,
                width: 40,
                is_input: false,
            },
        ];
        let names = resolve_cpp_names(&ports, &hp).unwrap();
        assert_eq!(names[0], "__SYM__delete");
        assert_eq!(names[1], "x__024y");
        assert_eq!(names[2], "q");
        assert!(names[3].contains("__Vhsh"));
        let mut wrong = ports.clone();
        wrong[2].width = 31;
        let err = resolve_cpp_names(&wrong, &hp).unwrap_err();
        assert!(err.contains("31 bits"), "{err}");
    }

    #[test]
    fn missing_verilator_is_reported() {
        match probe_version(std::ffi::OsStr::new("verilator-surely-not-installed-here")) {
            Err(VerilatorError::NotInstalled(m)) => {
                assert!(m.contains("verilator not found"));
                assert!(m.contains("apt-get install verilator"));
            }
            other => panic!("expected NotInstalled, got {other:?}"),
        }
    }

    fn run_counters(m: &mut VerilatedModel, cycles: u64) {
        let i = |name: &str| idx(m, name);
        let (clock, enable, load, load_val) = (i("clock"), i("enable"), i("load"), i("load_val"));
        let (step, sid, pass) = (i("step"), i("lane_sid$0"), i("pass$out"));
        let (big, cnt8, odd, acc) = (i("big"), i("cnt8"), i("odd"), i("acc"));
        const M40: u64 = (1 << 40) - 1;
        let (mut r_big, mut r_cnt8, mut r_acc) = (0u64, 0u8, 0u32);
        m.set(clock, 0);
        m.set(enable, 0);
        m.eval();
        assert_eq!(m.get(big), 0);
        let mut x = 0x1234_5678_9abc_def0u64;
        for cycle in 0..cycles {
            x = x.rotate_left(7) ^ cycle.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let en = u64::from(cycle % 7 != 3);
            // Load the 40-bit counter just below its wrap point at cycle 100.
            let ld = cycle == 100;
            let st = x >> 52; // 12 bits
            m.set(enable, en | 0xfe); // masked to 1 bit
            m.set(load, u64::from(ld));
            m.set(load_val, M40 - 5 + (0xff << 40)); // masked to 40 bits
            m.set(step, st | (0xf << 12)); // masked to 12 bits
            m.set(sid, x);
            m.set(clock, 1);
            m.eval();
            // Reference model of the posedge.
            let r_odd = u64::from(r_cnt8 & 1);
            if ld {
                r_big = M40 - 5;
            } else if en == 1 {
                r_big = (r_big + 1) & M40;
            }
            if en == 1 {
                r_cnt8 = r_cnt8.wrapping_add(1);
            }
            r_acc = r_acc.wrapping_add(st as u32);
            assert_eq!(m.get(pass), x, "pass-through at cycle {cycle}");
            assert_eq!(m.get(big), r_big, "big at cycle {cycle}");
            assert_eq!(m.get(cnt8), u64::from(r_cnt8), "cnt8 at cycle {cycle}");
            assert_eq!(m.get(odd), r_odd, "odd at cycle {cycle}");
            assert_eq!(m.get(acc), u64::from(r_acc), "acc at cycle {cycle}");
            assert_eq!(m.get(enable), en);
            assert_eq!(m.get(step), st);
            m.set(clock, 0);
            m.eval();
            assert_eq!(m.get(big), r_big, "no change on negedge");
        }
        if cycles > 300 {
            assert!(r_big < 1000, "the 40-bit counter wrapped");
            assert!(r_acc > 1 << 20, "the accumulator grew");
        }
        assert!(!m.finished());
    }

    #[test]
    fn counter_matches_rust_reference() {
        let mut m = build(COUNTER_V, "counters");
        assert_eq!(m.ports().len(), 11);
        run_counters(&mut m, 1000);
    }

    #[test]
    #[should_panic(expected = "is an output")]
    fn setting_an_output_panics() {
        let mut m = build(COUNTER_V, "counters");
        let big = idx(&m, "big");
        m.set(big, 1);
    }

    #[test]
    fn models_on_several_threads() {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                std::thread::spawn(|| {
                    let mut m = build(COUNTER_V, "counters");
                    run_counters(&mut m, 300);
                    // Two models of one design in one thread are independent.
                    let mut m2 = build(COUNTER_V, "counters");
                    let (c, e) = (idx(&m2, "clock"), idx(&m2, "enable"));
                    m2.set(e, 1);
                    for _ in 0..5 {
                        m2.set(c, 1);
                        m2.eval();
                        m2.set(c, 0);
                        m2.eval();
                    }
                    assert_eq!(m2.get(idx(&m2, "big")), 5);
                    assert_ne!(m.get(idx(&m, "big")), 5);
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }

    #[test]
    fn second_build_is_a_cache_hit() {
        // A unique comment forces a cold build of this text.
        let v = format!("// nonce {}\n{COUNTER_V}", unique_suffix());
        let t0 = Instant::now();
        let m1 = build(&v, "counters");
        let cold = t0.elapsed();
        assert!(!m1.was_cached());
        let lib = m1.library_path().to_path_buf();
        let mtime = fs::metadata(&lib).unwrap().modified().unwrap();

        let t1 = Instant::now();
        let mut m2 = build(&v, "counters");
        let hit = t1.elapsed();
        assert!(m2.was_cached());
        assert_eq!(m2.library_path(), lib);
        assert_eq!(fs::metadata(&lib).unwrap().modified().unwrap(), mtime);
        assert!(hit < Duration::from_millis(500), "cache hit took {hit:?}");
        eprintln!("cold build {cold:?}, cache hit {hit:?}");
        run_counters(&mut m2, 50);
        drop((m1, m2));
        // This entry is unique to this test run and no longer loaded.
        let dir = lib.parent().unwrap();
        let lock = cache_dir().join(".locks").join(dir.file_name().unwrap());
        fs::remove_dir_all(dir).unwrap();
        fs::remove_file(lock).unwrap();
    }

    #[test]
    fn verilator_errors_are_reported() {
        let bad = "module bad(a, y);\n    input wire a;\n    output wire y;\n    \
                   assign y = a +;\nendmodule\n";
        match VerilatedModel::build(bad, "bad", &cache_dir()) {
            Err(e @ VerilatorError::Build(_)) => {
                let m = e.to_string();
                eprintln!("{m}");
                assert!(m.contains("%Error"), "{m}");
                assert!(m.contains("syntax error"), "{m}");
            }
            other => panic!("expected a Build error, got {other:?}"),
        }
    }

    /// `cargo test --release -- --ignored --nocapture cycles_per_second`
    #[test]
    #[ignore]
    fn cycles_per_second() {
        let mut m = build(COUNTER_V, "counters");
        let (clock, enable, big) = (idx(&m, "clock"), idx(&m, "enable"), idx(&m, "big"));
        m.set(enable, 1);
        let cycles = 20_000_000u64;
        let t = Instant::now();
        for _ in 0..cycles {
            m.set(clock, 1);
            m.eval();
            m.set(clock, 0);
            m.eval();
        }
        let dt = t.elapsed();
        assert_eq!(m.get(big), cycles & ((1 << 40) - 1));
        println!(
            "{cycles} cycles in {dt:?}: {:.1} M cycles/s",
            cycles as f64 / dt.as_secs_f64() / 1e6
        );
    }
}
