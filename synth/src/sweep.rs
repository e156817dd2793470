//! The summary of one swept configuration over several nextpnr seeds: the row `synth --sweep`
//! writes into docs/resources.md.
//!
//! ```text
//!   Yosys once ──► netlist ──nextpnr --seed 1──► Placed | Failed ─┐
//!                          ├─nextpnr --seed 2──► Placed | Failed ─┼─► SeedRuns ──row()──► | 16x32 | 5906 (77%) | 11.5 | ... |
//!                          └─nextpnr --seed 3──► Placed | Failed ─┘
//!   logic cells, block RAMs: the first seed's (nextpnr packs before it places, so seeds barely move them)
//!   MHz: minimum / median over the placed seeds; the target is met only when every seed meets it
//!   critical path: the slowest seed's
//! ```
//! A seed that fails placement stays in the row, with nextpnr's reason (never silently dropped).

use crate::flow::Placed;

/// One nextpnr run of the sweep.
#[derive(Clone, Debug, PartialEq)]
pub enum SeedRun {
    Placed(Placed),
    /// nextpnr failed: `what` names the tool and the reason; the utilisation it logged before
    /// placing, when it got that far.
    Failed {
        seed: u32,
        what: String,
        /// Logic cells used / available.
        logic_cells: Option<(u64, u64)>,
        block_rams: Option<u64>,
    },
}

impl SeedRun {
    pub fn seed(&self) -> u32 {
        match self {
            SeedRun::Placed(p) => p.seed,
            SeedRun::Failed { seed, .. } => *seed,
        }
    }

    /// Logic cells used and available, block RAMs used (when known).
    fn resources(&self) -> Option<(u64, u64, Option<u64>)> {
        match self {
            SeedRun::Placed(p) => {
                Some((p.logic_cells, p.logic_cells_available, Some(p.block_rams)))
            }
            SeedRun::Failed {
                logic_cells,
                block_rams,
                ..
            } => logic_cells.map(|(used, available)| (used, available, *block_rams)),
        }
    }
}

/// One configuration synthesised once and placed with each seed of the sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SeedRuns {
    pub counters: u32,
    pub counter_bits: u32,
    /// The PMCG's flip-flops (the harness's excluded), from Yosys.
    pub flip_flops: u64,
    pub target_mhz: f64,
    /// In the order of the seeds.
    pub runs: Vec<SeedRun>,
}

/// The smallest value (none of an empty list).
pub fn minimum(values: &[f64]) -> Option<f64> {
    values.iter().copied().reduce(f64::min)
}

/// The median: the middle value, or the mean of the two middle values of an even count.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// Logic cells per counter bit: `logic_cells / (counters x counter_bits)`.
pub fn lc_per_counter_bit(logic_cells: u64, counters: u32, counter_bits: u32) -> f64 {
    logic_cells as f64 / (u64::from(counters) * u64::from(counter_bits)).max(1) as f64
}

/// The table's header (two lines) for a sweep at `target_mhz` over `seeds`.
pub fn table_header(target_mhz: f64, seeds: &[u32]) -> String {
    let seeds = list(seeds);
    format!(
        "| configuration | logic cells (of 7680), seed {first} | LC per counter bit | flip-flops (PMCG) | block RAMs | MHz min / median (seeds {seeds}) | {target_mhz} MHz | critical path of the slowest seed (start -> end cell) |\n\
         |---|---|---|---|---|---|---|---|",
        first = seeds.split(", ").next().unwrap_or("")
    )
}

/// The row of a configuration whose synthesis failed (`what` names the tool and the reason).
pub fn failed_row(name: &str, what: &str) -> String {
    format!("| {name} | - | - | - | - | - | **{what}** | |")
}

/// `1, 2, 3`.
fn list(seeds: &[u32]) -> String {
    seeds
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl SeedRuns {
    fn placed(&self) -> impl Iterator<Item = &Placed> {
        self.runs.iter().filter_map(|r| match r {
            SeedRun::Placed(p) => Some(p),
            SeedRun::Failed { .. } => None,
        })
    }

    fn fmaxes(&self) -> Vec<f64> {
        self.placed().map(|p| p.fmax_mhz).collect()
    }

    /// The lowest achieved clock over the placed seeds.
    pub fn fmax_min(&self) -> Option<f64> {
        minimum(&self.fmaxes())
    }

    /// The median achieved clock over the placed seeds.
    pub fn fmax_median(&self) -> Option<f64> {
        median(&self.fmaxes())
    }

    /// How many seeds placed and reached the target clock.
    pub fn seeds_met(&self) -> usize {
        self.placed()
            .filter(|p| p.fmax_mhz >= self.target_mhz)
            .count()
    }

    /// Met only when every seed placed and reached the target (the minimum decides).
    pub fn timing_met(&self) -> bool {
        !self.runs.is_empty() && self.seeds_met() == self.runs.len()
    }

    /// The seed whose figures the logic-cell and block-RAM columns show (the first that has
    /// them: placed, or logged before a failed placement), with logic cells used and available
    /// and block RAMs.
    pub fn resources(&self) -> Option<(u32, u64, u64, Option<u64>)> {
        self.runs.iter().find_map(|r| {
            r.resources()
                .map(|(used, available, brams)| (r.seed(), used, available, brams))
        })
    }

    /// Logic cells per counter bit of [`SeedRuns::resources`]'s seed.
    pub fn lc_per_counter_bit(&self) -> Option<f64> {
        self.resources()
            .map(|(_, lc, _, _)| lc_per_counter_bit(lc, self.counters, self.counter_bits))
    }

    /// The placed seed with the lowest clock (the first of equals).
    pub fn slowest(&self) -> Option<&Placed> {
        self.placed()
            .fold(None, |slowest: Option<&Placed>, p| match slowest {
                Some(s) if s.fmax_mhz <= p.fmax_mhz => Some(s),
                _ => Some(p),
            })
    }

    /// The Markdown row of the table [`table_header`] heads.
    pub fn row(&self, name: &str) -> String {
        let first_seed = self.runs.first().map(SeedRun::seed);
        let (cells, per_bit, brams) = match self.resources() {
            Some((seed, used, available, brams)) => {
                let other_seed = if Some(seed) == first_seed {
                    String::new()
                } else {
                    format!(", seed {seed}")
                };
                (
                    format!(
                        "{used} ({:.0}%{other_seed})",
                        100.0 * used as f64 / available.max(1) as f64
                    ),
                    format!(
                        "{:.1}",
                        lc_per_counter_bit(used, self.counters, self.counter_bits)
                    ),
                    brams.map_or("-".into(), |b| b.to_string()),
                )
            }
            None => ("-".into(), "-".into(), "-".into()),
        };
        let n = self.runs.len();
        let placed = self.placed().count();
        let mhz = match (self.fmax_min(), self.fmax_median()) {
            (Some(min), Some(median)) if placed == n => format!("{min:.1} / {median:.1}"),
            (Some(min), Some(median)) => {
                format!("{min:.1} / {median:.1} ({placed} of {n} seeds placed)")
            }
            _ => "-".into(),
        };
        let mut target = if self.timing_met() {
            format!("met on {n}/{n} seeds")
        } else {
            format!("**missed** (met on {}/{n} seeds)", self.seeds_met())
        };
        // Failed seeds, grouped by reason in the order they first appear.
        let mut reasons: Vec<(&str, Vec<u32>)> = Vec::new();
        for r in &self.runs {
            if let SeedRun::Failed { seed, what, .. } = r {
                match reasons.iter_mut().find(|(w, _)| w == what) {
                    Some((_, seeds)) => seeds.push(*seed),
                    None => reasons.push((what, vec![*seed])),
                }
            }
        }
        for (what, seeds) in reasons {
            let s = if seeds.len() == 1 { "" } else { "s" };
            target.push_str(&format!("; seed{s} {}: {what}", list(&seeds)));
        }
        let path = self
            .slowest()
            .map(|p| {
                let ends = p.critical_path.split(" (").next().unwrap_or("");
                format!("seed {}: {ends}", p.seed)
            })
            .unwrap_or_default();
        format!(
            "| {name} | {cells} | {per_bit} | {} | {brams} | {mhz} | {target} | {path} |",
            self.flip_flops
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(seed: u32, fmax_mhz: f64, path: &str) -> SeedRun {
        SeedRun::Placed(Placed {
            seed,
            logic_cells: 5906,
            logic_cells_available: 7680,
            block_rams: 0,
            fmax_mhz,
            critical_path: path.into(),
        })
    }

    fn runs(counters: u32, counter_bits: u32, runs: Vec<SeedRun>) -> SeedRuns {
        SeedRuns {
            counters,
            counter_bits,
            flip_flops: 2555,
            target_mhz: 100.0,
            runs,
        }
    }

    #[test]
    fn minimum_and_median() {
        assert_eq!(minimum(&[41.6, 40.2, 43.1]), Some(40.2));
        assert_eq!(minimum(&[]), None);
        assert_eq!(median(&[41.6, 40.2, 43.1]), Some(41.6));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        // An even count: the mean of the two middle values.
        assert_eq!(median(&[4.0, 1.0]), Some(2.5));
        assert_eq!(median(&[9.0, 1.0, 5.0, 2.0]), Some(3.5));
        assert_eq!(median(&[7.5]), Some(7.5));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn lc_per_counter_bit_divides_by_every_counter_bit() {
        // 5906 / (16 x 32 = 512) = 11.53515625 exactly (512 is a power of two).
        assert_eq!(lc_per_counter_bit(5906, 16, 32), 11.53515625);
        // 2234 / 128 = 17.453125; 10854 / 1024 = 10.599609375.
        assert_eq!(lc_per_counter_bit(2234, 4, 32), 17.453125);
        assert_eq!(lc_per_counter_bit(10854, 32, 32), 10.599609375);
        // The aim of issue 11: 64x64 in 5,744 LC is 5744 / 4096 = 1.40234375.
        assert_eq!(lc_per_counter_bit(5744, 64, 64), 1.40234375);
    }

    #[test]
    fn every_seed_meeting_the_target_is_met() {
        let r = runs(
            16,
            32,
            vec![
                placed(1, 101.0, "a -> b (12 segments, via n)"),
                placed(2, 108.2, "c -> d (10 segments, via m)"),
                placed(3, 104.5, "e -> f (11 segments, via k)"),
            ],
        );
        assert!(r.timing_met());
        assert_eq!(r.slowest().map(|p| p.seed), Some(1));
        assert_eq!(
            r.row("16x32"),
            "| 16x32 | 5906 (77%) | 11.5 | 2555 | 0 | 101.0 / 104.5 | met on 3/3 seeds | seed 1: a -> b |"
        );
    }

    #[test]
    fn one_slow_seed_misses_the_target() {
        let r = runs(
            16,
            32,
            vec![
                placed(1, 101.0, "a -> b (12 segments, via n)"),
                placed(2, 99.9, "c -> d (10 segments, via m)"),
                placed(3, 104.5, "e -> f (11 segments, via k)"),
            ],
        );
        assert!(!r.timing_met());
        assert_eq!(
            r.row("16x32"),
            "| 16x32 | 5906 (77%) | 11.5 | 2555 | 0 | 99.9 / 101.0 | **missed** (met on 2/3 seeds) | seed 2: c -> d |"
        );
    }

    #[test]
    fn a_failed_seed_is_reported_not_dropped() {
        let r = runs(
            16,
            32,
            vec![
                placed(1, 41.6, "a -> b (43 segments, via x)"),
                SeedRun::Failed {
                    seed: 2,
                    what: "nextpnr-ice40: placement failed: no room".into(),
                    logic_cells: Some((5906, 7680)),
                    block_rams: Some(0),
                },
                placed(3, 40.2, "c -> d (40 segments, via y)"),
            ],
        );
        // min(41.6, 40.2) = 40.2; median of two = (41.6 + 40.2) / 2 = 40.9.
        assert_eq!(
            r.row("16x32"),
            "| 16x32 | 5906 (77%) | 11.5 | 2555 | 0 | 40.2 / 40.9 (2 of 3 seeds placed) \
             | **missed** (met on 0/3 seeds); seed 2: nextpnr-ice40: placement failed: no room \
             | seed 3: c -> d |"
        );
        // A fast pair of seeds does not hide the failed one.
        let mut fast = r.clone();
        for run in &mut fast.runs {
            if let SeedRun::Placed(p) = run {
                p.fmax_mhz = 120.0;
            }
        }
        assert!(!fast.timing_met());
        assert!(fast
            .row("x")
            .contains("**missed** (met on 2/3 seeds); seed 2: "));
    }

    #[test]
    fn a_design_that_never_fits_keeps_its_logged_size() {
        let fail = |seed| SeedRun::Failed {
            seed,
            what: "nextpnr-ice40: placement failed: too big".into(),
            logic_cells: Some((10854, 7680)),
            block_rams: Some(0),
        };
        let r = runs(32, 32, vec![fail(1), fail(2), fail(3)]);
        assert_eq!((r.fmax_min(), r.fmax_median()), (None, None));
        // 10854 / 7680 = 141.3%; 10854 / 1024 = 10.6.
        assert_eq!(
            r.row("32x32"),
            "| 32x32 | 10854 (141%) | 10.6 | 2555 | 0 | - \
             | **missed** (met on 0/3 seeds); seeds 1, 2, 3: nextpnr-ice40: placement failed: too big |  |"
        );
        // Seed 1 failed before it logged anything: the cells are seed 2's, and say so.
        let r = runs(
            32,
            32,
            vec![
                SeedRun::Failed {
                    seed: 1,
                    what: "nextpnr-ice40: crashed".into(),
                    logic_cells: None,
                    block_rams: None,
                },
                fail(2),
                fail(3),
            ],
        );
        assert!(r
            .row("32x32")
            .starts_with("| 32x32 | 10854 (141%, seed 2) | 10.6 |"));
        assert!(r.row("32x32").contains(
            "; seed 1: nextpnr-ice40: crashed; seeds 2, 3: nextpnr-ice40: placement failed: too big"
        ));
    }

    #[test]
    fn the_header_names_the_seeds_and_the_target() {
        let h = table_header(100.0, &[1, 2, 3]);
        let lines: Vec<&str> = h.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].contains("logic cells (of 7680), seed 1 |"));
        assert!(lines[0].contains("MHz min / median (seeds 1, 2, 3)"));
        assert!(lines[0].contains("| 100 MHz |"));
        // As many columns as a row has.
        let columns = |l: &str| l.matches('|').count();
        assert_eq!(columns(lines[0]), columns(lines[1]));
        let row = runs(4, 32, vec![placed(1, 50.0, "a -> b (1 segments, via n)")]).row("4x32");
        assert_eq!(columns(lines[0]), columns(&row));
        assert_eq!(
            columns(lines[0]),
            columns(&failed_row("4x32", "yosys: broke"))
        );
    }
}
