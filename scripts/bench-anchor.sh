#!/usr/bin/env bash
# `make bench-anchor`: Gw side by side with agentgateway (the Rust anchor) through the shared harness
# (ANCHOR_BENCH, default ../shared/anchor-bench). Not part of `make bench` or CI; docs/performance.md
# "Issue 42" says how to read it. The anchor binary: AGW_BIN, else $AGW_OUT/agentgateway (AGW_OUT default
# .cache/anchor), else it is built there from AGW_MIRROR (a bare git clone of agentgateway/agentgateway)
# by the harness's build-agw.sh (16-25 min of both cores). ANCHOR_WORKLOADS picks the workloads (default
# mcp mcp-jwt llm mcp-open); the harness's own knobs (ROUNDS, SECONDS_PER_SLICE, GW_WORKERS, ...) pass through.
set -euo pipefail
cd "$(dirname "$0")/.."

harness=${ANCHOR_BENCH:-}
if [ -z "$harness" ]; then
  for dir in ../shared/anchor-bench ../../shared/anchor-bench; do
    [ -f "$dir/bench.mjs" ] && { harness=$dir; break; }
  done
fi
if [ -z "$harness" ] || [ ! -f "$harness/bench.mjs" ]; then
  echo "make bench-anchor: the shared harness (bench.mjs, build-agw.sh) is not found; set ANCHOR_BENCH to its folder" >&2
  exit 2
fi

out=${AGW_OUT:-.cache/anchor}
bin=${AGW_BIN:-$out/agentgateway}
if [ ! -x "$bin" ]; then
  if [ -n "${AGW_BIN:-}" ]; then
    echo "make bench-anchor: AGW_BIN=$AGW_BIN is not an executable file" >&2
    exit 2
  fi
  if [ -z "${AGW_MIRROR:-}" ]; then
    echo "make bench-anchor: no anchor binary at $bin; set AGW_BIN to an agentgateway binary, or AGW_MIRROR to a bare git clone of agentgateway/agentgateway to build one into $out" >&2
    exit 2
  fi
  echo "make bench-anchor: building agentgateway into $out (release, no LTO, 16 codegen units; log $out/build.log)"
  AGW_OUT=$out "$harness/build-agw.sh"
fi

echo "make bench-anchor: anchor $("$bin" --version 2>/dev/null | head -n1 || echo "$bin"); load average $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
# shellcheck disable=SC2086 # the workload list is meant to split
AGW_BIN=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin") GW_ROOT=$PWD node "$harness/bench.mjs" ${ANCHOR_WORKLOADS:-mcp mcp-jwt llm mcp-open}
echo "make bench-anchor: load average after $(cut -d' ' -f1-3 /proc/loadavg)"
