#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine: installs missing tools, checks formatting and
# lints, then runs every test in release mode with the external tools required (so nothing that
# needs Verilator, iverilog or Yosys is skipped). Extra arguments go to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
PMCG_REQUIRE_TOOLS=1 cargo test --release --workspace "$@"
