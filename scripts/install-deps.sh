#!/usr/bin/env bash
# Installs the Debian packages the test suite needs, if they are missing:
# verilator, iverilog, yosys, nextpnr-ice40, fpga-icestorm, and for the collateral checks gcc,
# dtc (device-tree-compiler), iasl (acpica-tools) and python3-venv (the pinned Python tools of
# scripts/install-python-tools.sh). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A package_of=(
  [verilator]=verilator
  [iverilog]=iverilog
  [yosys]=yosys
  [nextpnr-ice40]=nextpnr-ice40
  [icepack]=fpga-icestorm
  [gcc]=gcc
  [dtc]=device-tree-compiler
  [iasl]=acpica-tools
)
missing=()
for tool in "${!package_of[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("${package_of[$tool]}")
done
# `python3 -m venv` needs ensurepip's wheels, which Debian ships in python3-venv: try one, unless
# the tool venv (scripts/install-python-tools.sh) already exists.
if [ ! -x target/python-tools/bin/python ]; then
  probe=$(mktemp -d)
  python3 -m venv "$probe/venv" >/dev/null 2>&1 || missing+=(python3-venv)
  rm -rf "$probe"
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all tools present"
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
