//! The StreamID half of the filter oracle (spec 10.4; docs/behaviour.md "StreamID and
//! security-state filtering"), written from the spec, shared by tests/filtering.rs and
//! tests/realm_mpam.rs: the mode of a filter and the StreamID bits it compares.
//!
//! ```text
//!   (W, SPAN, X) ──► mode: ExactSID | PartialSID | AllSIDOneSECSID | AllSIDManySECSID
//!                └─► CARE: the StreamID bits that must equal X's
//! ```
#![allow(dead_code)]

/// ALL = 2^W - 1: the implemented StreamID bits.
pub fn all_ones(w: u32) -> u32 {
    if w >= 32 {
        u32::MAX
    } else {
        (1 << w) - 1
    }
}

/// The filter modes of spec 10.4, named as the spec names them.
#[allow(clippy::enum_variant_names)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    ExactSid,
    PartialSid,
    AllSidOneSecSid,
    AllSidManySecSid,
}

/// The mode of (SPAN, X) with W implemented SMR bits. X is truncated to W bits first: the bits
/// above read 0 and ignore writes (10.4.1).
pub fn mode(w: u32, span: bool, x: u32) -> Mode {
    let all = all_ones(w);
    let x = x & all;
    if !span {
        Mode::ExactSid
    } else if x == all {
        Mode::AllSidManySecSid
    } else if x == all >> 1 {
        Mode::AllSidOneSecSid
    } else {
        Mode::PartialSid
    }
}

/// CARE: the StreamID bits that must equal X's. ExactSID: all of them; AllSIDManySECSID: none;
/// PartialSID (and AllSIDOneSECSID, its widest case): all but the lowest 0 bit of X and the
/// bits below it.
pub fn care(w: u32, span: bool, x: u32) -> u32 {
    let all = all_ones(w);
    let x = x & all;
    if !span {
        all
    } else if x == all {
        0
    } else {
        // x < all <= u32::MAX, so x + 1 does not overflow.
        all & !(x ^ (x + 1))
    }
}
