#!/usr/bin/env bash
# Usage: scripts/python-venv.sh NAME REQUIREMENT. Prints the path of a Python with REQUIREMENT (a pinned pip
# requirement, e.g. `mcp==2.3.0`) installed: a venv made once under .cache/NAME with `python3 -m venv` and
# pip, reused afterwards (a file `installed` marks a finished install; a lock serializes concurrent callers).
# Needs python3 >= 3.10 with the venv module and, the first time, the PyPI registry.
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1
requirement=$2
dir=.cache/$name
mkdir -p .cache
exec 9>".cache/${name%-*}.lock"
flock 9
if [ ! -f "$dir/installed" ]; then
  rm -rf "$dir"
  python3 -m venv "$dir"
  "$dir/bin/pip" install --quiet --disable-pip-version-check "$requirement" >&2
  touch "$dir/installed"
fi
echo "$PWD/$dir/bin/python"
