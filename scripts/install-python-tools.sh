#!/usr/bin/env bash
# Makes (or refreshes) the Python venv of the tools the test suite runs: target/python-tools,
# with exactly the versions of scripts/requirements.txt. Safe to run again: does nothing when the
# installed requirements are those of the file. Prints the venv's bin directory on its last line.
#
#   scripts/install-python-tools.sh        # then: target/python-tools/bin/peakrdl --version
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/python-tools
req=scripts/requirements.txt
stamp="$venv/.requirements"
if [ -x "$venv/bin/python" ] && cmp -s "$req" "$stamp"; then
  echo "install-python-tools: $venv up to date"
else
  python3 -m venv "$venv" || { echo "install-python-tools: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
  cp "$req" "$stamp"
  echo "install-python-tools: installed $req into $venv"
fi
echo "$PWD/$venv/bin"
