#!/usr/bin/env bash
# engine-share.sh SF_RUN [WORLD] [SEEDS]: how a sweep's CPU time splits
# between the guests' own wasm code (perf's [JIT] samples), sf-run's own code
# (the engine, wazero's glue, Go's runtime) and the kernel, from perf record's
# cpu-clock samples of the sf-run process alone (the go commands its start
# runs are left out). It prints one line of shares; docs/perf.md has the
# method. Without a working perf it says so and exits 0.
set -euo pipefail
sfrun=${1:?usage: engine-share.sh SF_RUN [WORLD] [SEEDS]}
world=${2:-examples/kvlog/seedfall.fixed.json}
seeds=${3:-1-60}
if ! command -v perf >/dev/null || ! perf record -q -e cpu-clock -o /dev/null -- true >/dev/null 2>&1; then
  echo "engine-share: perf record does not work here; skipped"
  exit 0
fi
data=$(mktemp)
trap 'rm -f "$data"' EXIT
"$sfrun" -c "$world" -seeds 1-1 -j 1 >/dev/null 2>&1 || true # builds and compiles outside the measure
perf record -q -e cpu-clock -F 999 -o "$data" -- "$sfrun" -c "$world" -seeds "$seeds" -j 1 >/dev/null 2>&1 || true
perf report -i "$data" --comm sf-run --sort dso --stdio 2>/dev/null | awk -v world="$world" -v seeds="$seeds" '
  /^ *[0-9.]+%/ {
    pct = $1; sub(/%/, "", pct); dso = $2
    if (dso == "[JIT]") guest += pct
    else if (dso ~ /kernel/) kernel += pct
    else if (dso == "sf-run") sf += pct
    else other += pct
  }
  END { printf "engine-share %s seeds %s: guest %.1f%%, sf-run %.1f%%, kernel %.1f%%, other %.1f%%\n", world, seeds, guest, sf, kernel, other }'
