package check

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/sf-dst/sf/lib/history"
)

func TestGeneratedHistories(t *testing.T) {
	r := mustCheck(t, genListAppend(5000, false, 1), Options{Model: ListAppend})
	if r.Verdict != Ok {
		t.Fatalf("a generated serializable history fails: %s", dump(r))
	}
	r = mustCheck(t, genListAppend(5000, true, 1), Options{Model: ListAppend})
	want := "history of 5000 transactions is not serializable: G0, G1a, G1b, G1c, G-single, G2, internal, incompatible-order, duplicate-elements, garbage-read"
	if r.Summary != want {
		t.Fatalf("summary %q, want %q\n%s", r.Summary, want, dump(r))
	}
	// Round trip through a history file gives the same verdict.
	ops, err := history.Parse(historyFile(genListAppend(5000, true, 1)), history.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r2 := mustCheck(t, ops, Options{Model: ListAppend}); r2.Summary != r.Summary || dump(r2) != dump(r) {
		t.Errorf("re-read history gives\n%s\nwant\n%s", dump(r2), dump(r))
	}
	kv := genKV(2000, 4, 8, 1)
	if r := mustCheck(t, kv, Options{}); r.Verdict != Ok {
		t.Fatalf("a generated linearizable kv history fails: %s", dump(r))
	}
	cas := genRegister(2000, 4, 8, 1, true)
	if r := mustCheck(t, cas, Options{Model: "cas"}); r.Verdict != Ok {
		t.Fatalf("a generated linearizable cas history fails: %s", dump(r))
	}
}

// peakHeap runs f once and returns the most heap it had in use beyond what
// was in use before, sampled every millisecond, in bytes.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > base && ms.HeapInuse-base > peak.Load() {
				peak.Store(ms.HeapInuse - base)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return peak.Load()
}

// BenchmarkListAppend checks generated list-append histories, valid and with
// planted anomalies, and reports transactions per second and the peak heap
// of one run beyond its input (measured in a separate, untimed run). "check"
// starts from operations in memory; "file" also parses the history file,
// whose bytes the operations then share, with ParseAndCheck as sf-check does.
func BenchmarkListAppend(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		for _, planted := range []bool{false, true} {
			name := "valid"
			if planted {
				name = "anomalies"
			}
			var (
				once sync.Once
				ops  []history.HistoryOp
				file []byte
			)
			setup := func() {
				once.Do(func() {
					ops = genListAppend(n, planted, 1)
					file = historyFile(ops)
				})
			}
			b.Run(fmt.Sprintf("%s/%dk/check", name, n/1000), func(b *testing.B) {
				setup()
				check := func() {
					if _, err := Check(ops, Options{Model: ListAppend}); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				cpu := cpuTime()
				for b.Loop() {
					check()
				}
				reportCPU(b, cpu, n, "txns")
				b.StopTimer()
				b.ReportMetric(float64(peakHeap(check))/(1<<20), "peak-MB")
			})
			b.Run(fmt.Sprintf("%s/%dk/file", name, n/1000), func(b *testing.B) {
				setup()
				// sf-check holds the file's bytes and what it reads from
				// them, not a second copy of the operations: the generated
				// ones would be marked by every collection while it runs.
				ops = nil
				runtime.GC()
				b.SetBytes(int64(len(file)))
				// As sf-check reads and checks.
				run := func() {
					if _, err := ParseAndCheck(file, history.ReadOptions{}, Options{Model: ListAppend}); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				cpu := cpuTime()
				for b.Loop() {
					run()
				}
				reportCPU(b, cpu, n, "txns")
				b.StopTimer()
				b.ReportMetric(float64(peakHeap(run))/(1<<20), "peak-MB")
			})
			ops, file = nil, nil
		}
	}
}

// reportCPU reports the CPU time per iteration since cpu, and the rate of n
// units per iteration that it gives, next to the elapsed ones.
func reportCPU(b *testing.B, cpu time.Duration, n int, unit string) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), unit+"/s")
	used := (cpuTime() - cpu).Seconds()
	if used > 0 {
		b.ReportMetric(used*1e3/float64(b.N), "cpu-ms/op")
		b.ReportMetric(float64(n)*float64(b.N)/used, unit+"/cpu-s")
	}
}

// directIn is an operation's input decoded up front, the way a Porcupine
// user would write a model: strings and string slices, no interning.
type directIn struct {
	key, f, value, old string
	n                  int64
	unknown            bool
}

// directOut is an operation's decoded output.
type directOut struct {
	s    string
	n    int64
	list []string
}

// directModel returns the model named (one of linModels) written the way a
// Porcupine user would write it, with Go values as states and no hash, and
// the operations of ops with inputs and outputs decoded before it runs. It
// drops and extends the same operations as Check does.
func directModel(name string, ops []history.HistoryOp) (porcupine.Model, []porcupine.Operation) {
	str := func(b []byte) string {
		var s string
		if len(b) > 0 && string(b) != "null" {
			if err := json.Unmarshal(b, &s); err != nil {
				panic(fmt.Sprintf("%s: %v", b, err))
			}
		}
		return s
	}
	calls, rets, end := history.Order(ops)
	var pops []porcupine.Operation
	for i, op := range ops {
		pure := op.F == "get" || op.F == "read"
		if op.Status == history.StatusFailed || (pure && op.Status != history.StatusOK) {
			continue
		}
		in := directIn{key: op.Key, f: op.F, unknown: op.Status != history.StatusOK}
		var out directOut
		switch {
		case op.F == "cas":
			var pair [2]string
			if err := json.Unmarshal(op.Value, &pair); err != nil {
				panic(err)
			}
			in.old, in.value = pair[0], pair[1]
			out.s = string(op.Output)
		case name == "counter" && op.F == "add":
			if err := json.Unmarshal(op.Value, &in.n); err != nil {
				panic(err)
			}
		case name == "counter":
			if err := json.Unmarshal(op.Output, &out.n); err != nil && !in.unknown {
				panic(err)
			}
		case op.F == "read":
			if err := json.Unmarshal(op.Output, &out.list); err != nil {
				panic(err)
			}
			if name == "set" {
				slices.Sort(out.list)
			}
		default:
			in.value, out.s = str(op.Value), str(op.Output)
		}
		ret := rets[i]
		if in.unknown {
			ret = end
		}
		pops = append(pops, porcupine.Operation{ClientId: int(op.Process), Input: in, Call: calls[i], Output: out, Return: ret})
	}
	model := porcupine.Model{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[string][]porcupine.Operation{}
			var keys []string
			for _, op := range h {
				k := op.Input.(directIn).key
				if _, ok := byKey[k]; !ok {
					keys = append(keys, k)
				}
				byKey[k] = append(byKey[k], op)
			}
			out := make([][]porcupine.Operation, len(keys))
			for i, k := range keys {
				out[i] = byKey[k]
			}
			return out
		},
	}
	switch name {
	case "kv", "cas":
		model.Init = func() any { return "" }
		model.Step = func(state, input, output any) (bool, any) {
			in, out := input.(directIn), output.(directOut)
			switch in.f {
			case "put":
				return true, in.value
			case "cas":
				swapped := state.(string) == in.old
				if in.unknown || out.s == "true" {
					if swapped {
						return true, in.value
					}
					return in.unknown, state
				}
				return !swapped, state
			}
			return out.s == state.(string), state
		}
		model.Equal = func(a, b any) bool { return a == b }
	case "append", "queue", "set":
		model.Init = func() any { return []string(nil) }
		model.Step = func(state, input, output any) (bool, any) {
			s, in, out := state.([]string), input.(directIn), output.(directOut)
			switch in.f {
			case "append", "enqueue":
				return true, append(slices.Clip(s), in.value)
			case "add":
				i, found := slices.BinarySearch(s, in.value)
				if found {
					return true, s
				}
				return true, slices.Insert(slices.Clip(s), i, in.value)
			case "dequeue":
				if len(s) == 0 {
					return in.unknown || out.s == "", s
				}
				return in.unknown || out.s == s[0], s[1:]
			}
			return slices.Equal(s, out.list), s
		}
		model.Equal = func(a, b any) bool { return slices.Equal(a.([]string), b.([]string)) }
	case "counter":
		model.Init = func() any { return int64(0) }
		model.Step = func(state, input, output any) (bool, any) {
			n, in := state.(int64), input.(directIn)
			if in.f == "add" {
				return true, n + in.n
			}
			return output.(directOut).n == n, n
		}
		model.Equal = func(a, b any) bool { return a == b }
	default:
		panic("no direct model for " + name)
	}
	return model, pops
}

// genModel generates a linearizable history of n operations for one of the
// linearizability models, the way genRegister does for kv and cas: rounds in
// which every process starts an operation on one of keys keys, they take
// effect in a random order, and then all return.
func genModel(name string, n, keys, processes int, seed uint64) []history.HistoryOp {
	if name == "kv" || name == "cas" {
		return genRegister(n, keys, processes, seed, name == "cas")
	}
	rng := rand.New(rand.NewPCG(seed, 0xfeed))
	lists := map[string][]string{} // append, queue, set
	counts := map[string]int64{}   // counter
	quoteAll := func(l []string) []byte {
		b, _ := json.Marshal(l)
		return b
	}
	ops := make([]history.HistoryOp, 0, n)
	clock := int64(0)
	for len(ops) < n {
		start := clock
		round := make([]history.HistoryOp, processes)
		for _, p := range rng.Perm(processes) {
			k := "k" + strconv.Itoa(rng.IntN(keys))
			op := history.HistoryOp{Process: int64(p), Key: k, Call: start + int64(p), Return: start + 100 + int64(rng.IntN(50)),
				Status: history.StatusOK, Value: []byte("null"), Output: []byte("null")}
			v := strconv.Itoa(len(ops) + p)
			write := rng.IntN(2) == 0
			switch {
			case name == "counter" && write:
				d := int64(rng.IntN(7) - 2)
				op.F, op.Value = "add", []byte(strconv.FormatInt(d, 10))
				counts[k] += d
			case name == "counter":
				op.F, op.Output = "read", []byte(strconv.FormatInt(counts[k], 10))
			case write:
				op.F, op.Value = map[string]string{"append": "append", "queue": "enqueue", "set": "add"}[name], []byte(strconv.Quote(v))
				if name == "set" {
					i, _ := slices.BinarySearch(lists[k], v)
					lists[k] = slices.Insert(lists[k], i, v)
				} else {
					lists[k] = append(lists[k], v)
				}
			case name == "queue":
				op.F = "dequeue"
				if q := lists[k]; len(q) > 0 {
					op.Output, lists[k] = []byte(strconv.Quote(q[0])), q[1:]
				}
			default:
				op.F, op.Output = "read", quoteAll(append([]string{}, lists[k]...))
			}
			round[p] = op
		}
		for _, op := range round {
			op.ID = int64(len(ops))
			ops = append(ops, op)
		}
		clock += 200
	}
	return ops
}

// BenchmarkModels compares, for every linearizability model, Porcupine
// called directly on the same operations with Check, which also decodes and
// validates them, and reports the ratio of their times: the target is at
// most 1.2. Times are CPU times per run, averaged over several runs, which
// other processes on a loaded machine stretch less than elapsed time
// (Porcupine checks keys in parallel, in both).
func BenchmarkModels(b *testing.B) {
	for _, info := range modelInfos {
		name := info.Name
		if linModels[name] == nil {
			continue
		}
		n, keys := 20_000, 8
		if name == "append" || name == "queue" || name == "set" {
			keys = 64 // a state grows with its key's writes; keep it short
		}
		// Check gets operations as sf-check and the engine give them: read
		// from a history file, with the events' positions.
		ops, err := history.Parse(historyFile(genModel(name, n, keys, 12, 1)), history.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) { benchModel(b, name, ops) })
	}
}

func benchModel(b *testing.B, name string, ops []history.HistoryOp) {
	model, pops := directModel(name, ops)
	if !porcupine.CheckOperations(model, pops) {
		b.Fatal("the generated history is not linearizable")
	}
	if r, err := Check(ops, Options{Model: name}); err != nil || r.Verdict != Ok {
		b.Fatalf("Check on the generated history: %v %v", err, dump(r))
	}
	// Alternate the two, so that a change in the machine's load touches
	// both alike, and start each run from a collected heap, so that neither
	// pays for collecting the other's garbage.
	const rounds = 7
	var direct, check time.Duration
	for b.Loop() {
		for range rounds {
			runtime.GC()
			cpu := cpuTime()
			if porcupine.CheckOperationsTimeout(model, pops, 0) != porcupine.Ok {
				b.Fatal("not ok")
			}
			direct += cpuTime() - cpu
			runtime.GC()
			cpu = cpuTime()
			r, err := Check(ops, Options{Model: name})
			if err != nil || r.Verdict != Ok {
				b.Fatal(err, r)
			}
			check += cpuTime() - cpu
		}
	}
	direct /= time.Duration(b.N * rounds)
	check /= time.Duration(b.N * rounds)
	b.ReportMetric(direct.Seconds()*1e3, "porcupine-cpu-ms")
	b.ReportMetric(check.Seconds()*1e3, "check-cpu-ms")
	if direct > 0 {
		b.ReportMetric(check.Seconds()/direct.Seconds(), "ratio")
	}
	b.ReportMetric(float64(len(ops))/check.Seconds(), "check-ops/cpu-s")
}
