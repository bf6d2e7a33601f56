#!/usr/bin/env bash
# world-bench.sh SF_RUN [SEEDS] [WORLD...]: how fast each example world runs.
# For each world (by default one per example, below) it prints one line:
# seeds per second at -j 1 and -j 2 (whole sweeps of seeds 1-SEEDS, start
# included, as a user sees them), virtual time over real time and real time
# per scheduler step (from the seed records' at_ns, real_ns and steps), CPU
# time per seed, and how that CPU time splits between the guests' wasm, sf's
# own code (sf-run: engine, wazero, Go runtime) and the kernel, and what
# starting every node of the world once costs: the CPU per seed of sweeps
# that end at 1ms of virtual time, so that each node instantiates, runs Go's
# runtime start and its packages' init, and runs main until it first waits
# (over SF_BENCH_START_SEEDS seeds, default 200).
#
# The machine may be shared, so the CPU figures are the ones to compare from
# run to run: CPU per seed and the shares are those of seeds 2-SEEDS, the
# difference between the sweep and a sweep of seed 1 alone, so the start
# (loading the modules, the pinned regressions) is left out of them. Seed 1
# runs once beforehand to build and compile outside the measure. The shares
# need perf (perf record -e cpu-clock); without it they print as "-", and so
# does a CPU figure that came out not positive (with few seeds, the noise of
# the start can exceed what the seeds cost). Each sf-run gets at most
# SF_BENCH_TIMEOUT seconds (default 300); docs/perf.md has the method and
# the figures.
set -uo pipefail
sfrun=${1:?usage: world-bench.sh SF_RUN [SEEDS] [WORLD...]}
seeds=${2:-20}
shift $(( $# >= 2 ? 2 : 1 ))
worlds=("$@")
if [ ${#worlds[@]} -eq 0 ]; then
  worlds=(examples/kvlog/seedfall.fixed.json examples/httpkv/seedfall.fixed.json examples/bboltkv/seedfall.json
    examples/pebblekv/seedfall.json examples/badgerkv/seedfall.json examples/badgerkv/seedfall.4mib.json
    examples/natsjs/seedfall.json examples/raftkv/seedfall.json examples/ledger/seedfall.json
    examples/symswap/seedfall.fixed.json examples/buggify/seedfall.fixed.json examples/liveness/seedfall.fixed.json
    examples/antithesis/seedfall.fixed.json examples/race/seedfall.fixed.json examples/etcdraft/seedfall.json
    examples/memberlist/seedfall.json examples/rosedbwal/seedfall.json examples/tidwallwal/seedfall.json
    examples/shortread/seedfall.fixed.json)
fi
if [ "$seeds" -lt 2 ]; then
  echo "world-bench: SEEDS must be at least 2" >&2
  exit 2
fi
limit=${SF_BENCH_TIMEOUT:-300}
# A start costs a few milliseconds of CPU, so the difference of two sweeps of
# SEEDS seeds each would be lost in the noise of their own starts: the starts
# are measured over more seeds.
startn=${SF_BENCH_START_SEEDS:-200}
perfok=0
if command -v perf >/dev/null && perf record -q -e cpu-clock -o /dev/null -- true >/dev/null 2>&1; then
  perfok=1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run OUT ARGS...: runs sf-run with ARGS, under perf when it works, and
# writes "wall cpu" to OUT.time and the JSONL records to OUT.jsonl.
run() {
  local out=$1
  shift
  local cmd=(timeout "$limit" "$sfrun" "$@" -json)
  if [ "$perfok" = 1 ]; then
    cmd=(perf record -q -g -e cpu-clock -F 999 -o "$out.perf" -- "${cmd[@]}")
  fi
  local TIMEFORMAT='%R %U %S'
  { time "${cmd[@]}" >"$out.jsonl" 2>/dev/null; } 2>"$out.t"
  awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$out.t" >"$out.time"
}

# samples OUT: the cpu-clock samples of sf-run's own process, as "guest sf
# kernel", or "- - -" without perf. The guests' bulk memory instructions
# (memory.copy, memory.fill) run as calls from their code into Go's
# memmove and memclr inside sf-run; those samples count as the guest's.
samples() {
  if [ ! -s "$1.perf" ]; then
    echo "- - -"
    return
  fi
  perf script -i "$1.perf" --comm sf-run -F ip,sym,dso 2>/dev/null | awk '
    function flush() {
      if (n == 0) return
      if (leaf ~ /perf-[0-9]+\.map|\[JIT\]/) g++
      else if (leaf ~ /kernel/) k++
      else if (leafsym ~ /^runtime\.(memmove|memclrNoHeapPointers)$/ && caller ~ /perf-[0-9]+\.map|\[JIT\]/) g++
      else s++
      n = 0
    }
    /^[[:space:]]*$/ { flush(); next }
    { n++; if (n == 1) { leaf = $0; leafsym = $2 } else if (n == 2) caller = $0 }
    END { flush(); printf "%d %d %d\n", g, s, k }'
}

printf "%-42s %9s %9s %9s %9s %9s %9s %7s %7s %7s %9s\n" world "seeds/s1" "seeds/s2" "virt/real" "us/step" "cpu/seed" "virt/cpu" "guest" "sf" "kernel" "start/ms"
for w in "${worlds[@]}"; do
  timeout "$limit" "$sfrun" -c "$w" -seeds 1-1 -j 1 >/dev/null 2>&1 # build and compile
  run "$tmp/one" -c "$w" -seeds 1-1 -j 1
  run "$tmp/j1" -c "$w" -seeds "1-$seeds" -j 1
  perfsave=$perfok
  perfok=0
  run "$tmp/j2" -c "$w" -seeds "1-$seeds" -j 2
  run "$tmp/s1" -c "$w" -seeds 1-1 -j 1 -set duration=1ms -set faults.crash_per_sec=0
  run "$tmp/sn" -c "$w" -seeds "1-$startn" -j 1 -set duration=1ms -set faults.crash_per_sec=0
  perfok=$perfsave
  read -r _ sc1 <"$tmp/s1.time"
  read -r _ scn <"$tmp/sn.time"
  read -r _ c1 <"$tmp/one.time"
  read -r wall1 cn <"$tmp/j1.time"
  read -r wall2 _ <"$tmp/j2.time"
  read -r g1 s1 k1 <<<"$(samples "$tmp/one")"
  read -r gn sn kn <<<"$(samples "$tmp/j1")"
  awk -v w="$w" -v n="$seeds" -v wall1="$wall1" -v wall2="$wall2" -v c1="$c1" -v cn="$cn" \
    -v g1="$g1" -v s1="$s1" -v k1="$k1" -v gn="$gn" -v sn="$sn" -v kn="$kn" -v sc1="$sc1" -v scn="$scn" -v startn="$startn" '
    function num(k) { if (match($0, "\"" k "\":[0-9]+")) return substr($0, RSTART+length(k)+3, RLENGTH-length(k)-3)+0; return 0 }
    /"kind":"seed"/ {
      cnt++; at += num("at_ns"); real += num("real_ns"); steps += num("steps")
      if (num("seed") != 1) at2 += num("at_ns")
    }
    END {
      if (cnt < n) { printf "%-42s only %d of %d seeds ran (timeout or error)\n", w, cnt, n; exit }
      cpu = (cn - c1) / (n - 1)
      vc = (cpu > 0 && at2 > 0) ? sprintf("%.1f", at2 / 1e9 / (n - 1) / cpu) : "-"
      if (g1 == "-") { gs = "-"; ss = "-"; ks = "-" } else {
        g = gn - g1; s = sn - s1; k = kn - k1; t = g + s + k
        # Fewer than 300 samples (0.3 s of CPU) between the two sweeps say
        # nothing about the shares.
        if (t >= 300) { gs = sprintf("%.0f%%", 100*g/t); ss = sprintf("%.0f%%", 100*s/t); ks = sprintf("%.0f%%", 100*k/t) } else { gs = ss = ks = "-" }
      }
      # Both CPU figures are differences of two sweeps; one that is not
      # positive was lost in the noise of the start of the sweeps.
      st = 1000 * (scn - sc1) / (startn - 1)
      printf "%-42s %9.2f %9.2f %9s %9.0f %9s %9s %7s %7s %7s %9s\n", w, n/wall1, n/wall2, (at > 0 ? sprintf("%.1f", at/real) : "-"), real/1e3/steps, (cpu > 0 ? sprintf("%.3f", cpu) : "-"), vc, gs, ss, ks, (st > 0 ? sprintf("%.1f", st) : "-")
    }' "$tmp/j1.jsonl"
done
