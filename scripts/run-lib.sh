# Shared by scripts/run-local.sh and scripts/run-standalone.sh (sourced).
# Children run in their own process groups (set -m), so a Ctrl-C at the terminal reaches only this
# script, which hands exactly one SIGINT to each child, proxy first: the proxy drains, and a second
# Ctrl-C is handed on as a second SIGINT, which the proxy takes as "exit at once".
set -m

# ready URL PID: true once URL answers 200 from the process PID (x-gw-pid), not another one on the port.
ready_from() {
  local pid
  pid=$(curl -fs -o /dev/null -D - "$1" 2>/dev/null | tr -d '\r' | awk 'tolower($1) == "x-gw-pid:" { print $2 }') || return 1
  [ "$pid" = "$2" ]
}

# wait_ready URL PID WHAT: polls for GW_RUN_READY_SECONDS (default 30) of wall-clock time, not a number of polls
# (each poll is slower on a loaded machine); fails early when PID has exited (its one-line error is above).
wait_ready() {
  local limit=${GW_RUN_READY_SECONDS:-30} start=$SECONDS
  while ((SECONDS - start < limit)); do
    ready_from "$1" "$2" && return 0
    kill -0 "$2" 2>/dev/null || { echo "$3 exited before it was ready; see the line above" >&2; return 1; }
    sleep 0.2
  done
  echo "$3 did not become ready in $limit s (GW_RUN_READY_SECONDS); see the logs above" >&2
  return 1
}

# Stopping. The trap only counts the signal and hands it to the child being stopped (the proxy first);
# the sequence itself runs in the main body (run_until_stopped), so a second Ctrl-C reaches the trap
# while the proxy drains and becomes the proxy's second SIGINT.
stopping=
current=
on_signal() {
  if [ -z "$stopping" ]; then stopping=1; current=$1; fi
  kill -INT "$current" 2>/dev/null || true
}

# run_until_stopped PID...: waits until a child exits or a signal came, then stops every child in order
# (one SIGINT each, waiting for each to exit before the next).
run_until_stopped() {
  while [ -z "$stopping" ]; do
    wait -n "$@" 2>/dev/null && true
    [ -n "$stopping" ] && break
    # A child exited on its own: stop the others.
    for p in "$@"; do kill -0 "$p" 2>/dev/null || { stopping=1; current=$p; }; done
  done
  for p in "$@"; do
    if [ "$p" != "$current" ]; then current=$p; kill -INT "$p" 2>/dev/null || continue; fi
    while kill -0 "$p" 2>/dev/null; do wait "$p" 2>/dev/null || true; done
  done
}

# A local run is one proxy on loopback: a key made for this run is all its MCP session ids need, so the
# proxy's "SESSION_KEY is not set" warning (meant for replicas in a cluster) would only be noise here.
# A SESSION_KEY already in the environment is kept.
if [ -z "${SESSION_KEY:-}" ]; then
  SESSION_KEY=$(node -e 'process.stdout.write(require("node:crypto").randomBytes(32).toString("base64"))')
  export SESSION_KEY
fi
