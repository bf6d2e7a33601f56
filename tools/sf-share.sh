#!/usr/bin/env bash
# sf-share.sh SF_RUN WORLD [SEEDS]: where a world's CPU goes, from perf
# record's call graphs of one sweep at -j 1 (seed 1 first runs alone, to
# build and compile outside the measure). Each cpu-clock sample of the sf-run
# process goes to the guests' wasm (their bulk memory instructions, which run
# in Go's memmove and memclr, included), the kernel, or a part of sf's own
# code named by the innermost frame of its stack that names one: the sweep's
# start (loading the modules), node starts (wazero's instantiation, or the
# reuse of an instance, and the guest memory either clears or restores), the disk, the
# network, compat_overlay's mappings,
# the determinism hash and the trace, poll_oneoff, the rest of the host
# calls, the scheduler, Go's collector in sf-run, and the rest. It prints one
# line per part with its share of the whole, then sf's share outside the
# start split by the code that ran (the innermost frame): wazero's path into
# and out of a host function, Go's scheduler (the coroutine switches that
# pass the baton, the channels to the scheduler's goroutine, the idle
# processor looking for work), Go's allocator and collector, and sf's own
# code. Without a working perf it says so and exits 0. docs/perf.md has the
# figures.
set -euo pipefail
sfrun=${1:?usage: sf-share.sh SF_RUN WORLD [SEEDS]}
world=${2:?usage: sf-share.sh SF_RUN WORLD [SEEDS]}
seeds=${3:-1-30}
if ! command -v perf >/dev/null || ! perf record -q -e cpu-clock -o /dev/null -- true >/dev/null 2>&1; then
  echo "sf-share: perf record does not work here; skipped"
  exit 0
fi
data=$(mktemp)
trap 'rm -f "$data"' EXIT
"$sfrun" -c "$world" -seeds 1-1 -j 1 >/dev/null 2>&1 || true
perf record -q -g -e cpu-clock -F 999 -o "$data" -- "$sfrun" -c "$world" -seeds "$seeds" -j 1 >/dev/null 2>&1 || true
perf script -i "$data" --comm sf-run -F ip,sym,dso 2>/dev/null | awk -v world="$world" -v seeds="$seeds" '
  function part(   i) {
    if (stack[1] ~ /perf-[0-9]+\.map|\[JIT\]/) return "guest wasm"
    if (stack[1] ~ /kernel/) return "kernel"
    if (stack[1] ~ / runtime\.(memmove|memclrNoHeapPointers) / && stack[2] ~ /perf-[0-9]+\.map|\[JIT\]/) return "guest wasm"
    for (i = 1; i <= n; i++) {
      if (stack[i] ~ /(sweep|runner)\.Prepare|CompileModule|getCompiledModule/) return "sf: start of the sweep (loading modules)"
      if (stack[i] ~ /restoreImage/) return "sf: node starts and ends (instantiate or reuse, clear memory)"
    }
    for (i = 1; i <= n; i++) {
      s = stack[i]
      if (s ~ /(sweep|runner)\.Prepare|CompileModule|wasm\/binary\.|\.Validate|validateFunction/) return "sf: start of the sweep (loading modules)"
      if (s ~ /InstantiateModule|MemoryAllocator|mmapMemory|Module\)\.Close|CloseWithExitCode|reusedInstance|InstancePool/) return "sf: node starts and ends (instantiate or reuse, clear memory)"
      if (s ~ /lib\/engine\/compat\.|core\.\(\*Instance\)\.DirtyPages|core\.watch/) return "sf: mapped files (compat_overlay)"
      if (s ~ /lib\/disk\.|wasi\.(readv|writev|pathOpen|syncFD|readdir)|core\.\(\*Instance\)\.Fsync|DiskFault/) return "sf: disk"
      if (s ~ /lib\/simnet\.|netoverlay\.|lib\/engine\/udp\./) return "sf: network"
      if (s ~ /core\.\(\*Instance\)\.account|core\.mixHash|core\.Hash(Bytes|String)|\.Tracef|lib\/trace\./) return "sf: determinism hash and trace"
      if (s ~ /wasi\.pollOneoff|core\.\(\*Instance\)\.(Park|ParkUntil)/) return "sf: poll_oneoff and parking"
      if (s ~ /dispatch|GoModuleFunc|callWithStack|wazevo\./) return "sf: other host calls and wazero glue"
      if (s ~ /core\.\(\*Run\)\.(loop|step|guardedLoop|fireDue|turns|beginStep|readyInstances|plainTurn|plainAdvance)/) return "sf: scheduler"
      if (s ~ /runtime\.(gcBgMarkWorker|gcDrain|bgsweep|bgscavenge|mallocgc|gcAssist)/) return "sf: Go allocation and collection"
    }
    return "sf: other"
  }
  function leaf(   s) {
    s = stack[1]; sub(/^[ \t]*[0-9a-f]+ /, "", s); sub(/ \(.*$/, "", s); sub(/\+0x.*/, "", s)
    if (s ~ /tetratelabs\/wazero/ || s ~ /^runtime\.(assertE2I|getitab|\(\*itabTableType\)\.find)$/) return "wazero call path"
    if (s ~ /^iter\.Pull/) return "Go scheduler"
    if (s ~ /^runtime\.(coroswitch.*|corostart|schedule|findRunnable|mcall|park_m|gopark|goready|ready|chansend1?|chanrecv1?|send|recv|runq[a-z]*|execute|casgstatus|stealWork|usleep|futex[a-z]*|lock2|unlock2|netpoll|checkTimers|\(\*timers\)\..*|wakep|startm|stopm|note[a-z]*|mPark|resetspinning|gogo|mstart.*|sysmon|osyield|procyield|gosched.*|goschedImpl|chanparkcommit|globrunqget|pidle[a-z]*|systemstack.*|save|gosave_systemstack_switch|morestack.*|newstack|copystack|preemptone|retake|handoffp|entersyscall.*|exitsyscall.*)$/) return "Go scheduler"
    if (s ~ /^runtime\.(mallocgc.*|gcBgMarkWorker|gcDrain.*|scanobject|greyobject|findObject|heapBits.*|\(\*mspan\).*|\(\*mcache\).*|\(\*mcentral\).*|\(\*mheap\).*|bgsweep|sweepone|\(\*sweepLocked\).*|gcAssist.*|scanblock|scanstack|scanframeworker|newobject|growslice|makeslice|nextFreeFast|wbBuf.*|bulkBarrier.*|gcWriteBarrier.*|typePointers.*|\(\*gcWork\).*|markroot.*|\(\*gcControllerState\).*|\(\*pageAlloc\).*|stackalloc|stackfree|\(\*unwinder\).*|pcvalue|findfunc|moveSliceNoCapNoScan)$/) return "Go allocator and collector"
    return "sf own code"
  }
  function count(   p) {
    p = part(); c[p]++; tot++
    if (p ~ /^sf: / && p !~ /start of the sweep/) { r[leaf()]++; sf++ }
  }
  /^[[:space:]]*$/ { if (n) count(); n = 0; next }
  { stack[++n] = $0 }
  END {
    if (n) count()
    printf "sf-share %s seeds %s: %d samples\n", world, seeds, tot
    for (k in c) printf "%6.1f%%  %s\n", 100 * c[k] / tot, k | "sort -rn"
    close("sort -rn")
    out = tot - c["sf: start of the sweep (loading modules)"]
    if (out > 0) printf "sf outside the start: %.1f%% of its CPU = wazero call path %.1f%%, Go scheduler %.1f%%, Go allocator and collector %.1f%%, sf own code %.1f%%\n", 100 * sf / out, 100 * r["wazero call path"] / out, 100 * r["Go scheduler"] / out, 100 * r["Go allocator and collector"] / out, 100 * r["sf own code"] / out
  }'
