#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine: installs missing tools, checks formatting and
# lints, then runs every test in release mode with the external tools required (so nothing that
# needs Verilator, iverilog, Yosys, nextpnr or the collateral tools is skipped). Extra arguments go to `cargo test`.
# Ends with one line of totals over every test binary: `tests: N passed, M failed`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/install-python-tools.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# --lib --bins --tests: every unit and integration test (no doc tests: there are none; and the
# benchmark is not run as a test).
PMCG_REQUIRE_TOOLS=1 cargo test --release --workspace --lib --bins --tests "$@" 2>&1 | tee "$log" || status=$?
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed;?$/) p += $i; if ($(i+1) ~ /^failed;?$/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
