package check

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
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
// whose bytes the operations then share.
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
				for b.Loop() {
					check()
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "txns/s")
				b.StopTimer()
				b.ReportMetric(float64(peakHeap(check))/(1<<20), "peak-MB")
			})
			b.Run(fmt.Sprintf("%s/%dk/file", name, n/1000), func(b *testing.B) {
				setup()
				b.SetBytes(int64(len(file)))
				run := func() {
					ops, err := history.Parse(file, history.ReadOptions{})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := Check(ops, Options{Model: ListAppend}); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				for b.Loop() {
					run()
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "txns/s")
				b.StopTimer()
				b.ReportMetric(float64(peakHeap(run))/(1<<20), "peak-MB")
			})
			ops, file = nil, nil
		}
	}
}

// directKV is a kv model written the way a Porcupine user would write it,
// on the same events: string states, inputs decoded up front.
type directIn struct {
	key, f, value, old string
	unknown            bool
}

func directKV(ops []history.HistoryOp) (porcupine.Model, []porcupine.Operation) {
	unquote := func(b []byte) string {
		if string(b) == "null" {
			return ""
		}
		return strings.Trim(string(b), `"`)
	}
	calls, rets, end := history.Order(ops)
	var pops []porcupine.Operation
	for i, op := range ops {
		if op.Status == history.StatusFailed || (op.F == "get" && op.Status != history.StatusOK) {
			continue
		}
		in := directIn{key: op.Key, f: op.F, value: unquote(op.Value), unknown: op.Status != history.StatusOK}
		if op.F == "cas" {
			var pair [2]string
			json.Unmarshal(op.Value, &pair)
			in.old, in.value = pair[0], pair[1]
		}
		ret := rets[i]
		if in.unknown {
			ret = end
		}
		pops = append(pops, porcupine.Operation{ClientId: int(op.Process), Input: in, Call: calls[i], Output: unquote(op.Output), Return: ret})
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
		Init: func() any { return "" },
		Step: func(state, input, output any) (bool, any) {
			in := input.(directIn)
			switch in.f {
			case "put":
				return true, in.value
			case "cas":
				swapped := state.(string) == in.old
				if in.unknown || output.(string) == "true" {
					if swapped {
						return true, in.value
					}
					return in.unknown, state
				}
				return !swapped, state
			}
			return output.(string) == state.(string), state
		},
		Equal: func(a, b any) bool { return a == b },
	}
	return model, pops
}

// BenchmarkKV compares Porcupine called directly on the same events with
// Check, which also decodes and validates them, on kv and cas histories.
func BenchmarkKV(b *testing.B) {
	for _, model := range []string{"kv", "cas"} {
		ops := genRegister(20_000, 8, 12, 1, model == "cas")
		b.Run(model, func(b *testing.B) { benchRegister(b, model, ops) })
	}
}

func benchRegister(b *testing.B, name string, ops []history.HistoryOp) {
	model, pops := directKV(ops)
	if !porcupine.CheckOperations(model, pops) {
		b.Fatal("the generated history is not linearizable")
	}
	b.Run("porcupine-direct", func(b *testing.B) {
		for b.Loop() {
			if porcupine.CheckOperationsTimeout(model, pops, 0) != porcupine.Ok {
				b.Fatal("not ok")
			}
		}
		b.ReportMetric(float64(len(ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			r, err := Check(ops, Options{Model: name})
			if err != nil || r.Verdict != Ok {
				b.Fatal(err, r)
			}
		}
		b.ReportMetric(float64(len(ops))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	})
}
