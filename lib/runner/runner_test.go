package runner

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/engine"
)

// slow makes job i take a time that falls and rises with i, so that with
// several workers the jobs end in an order other than the list's.
func slow(i int) { time.Sleep(time.Duration((i*7)%5) * time.Millisecond) }

// pass is a run that passes, as seed i.
func pass(i int) Outcome {
	slow(i)
	return Outcome{Result: &engine.Result{Seed: uint64(i), Status: engine.StatusPass}}
}

// each runs n jobs on pool and returns the indexes handed back, in the
// order they were.
func each(t *testing.T, pool Pool, n int, run func(int) Outcome) []int {
	t.Helper()
	var got []int
	err := pool.Each(n, run, func(o Outcome) error {
		got = append(got, o.Index)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestEachHandsBackInOrder: whatever the workers and the order the runs end
// in, every outcome comes back once, in the order of the list, with its
// index.
func TestEachHandsBackInOrder(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 3, 8, 50} {
		t.Run(fmt.Sprintf("j%d", workers), func(t *testing.T) {
			var running, most atomic.Int64
			got := each(t, Pool{Workers: workers}, 20, func(i int) Outcome {
				n := running.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				defer running.Add(-1)
				o := pass(i)
				if o.Result.Seed != uint64(i) {
					t.Errorf("job %d ran as %d", i, o.Result.Seed)
				}
				return o
			})
			if !slices.Equal(got, upTo(20)) {
				t.Fatalf("handed back %v", got)
			}
			if want := int64(min(max(workers, 1), 20)); most.Load() > want {
				t.Fatalf("%d jobs ran at once, more than %d workers", most.Load(), want)
			}
		})
	}
	if got := each(t, Pool{Workers: 4}, 0, pass); len(got) != 0 {
		t.Fatalf("no jobs handed back %v", got)
	}
}

// TestStopAtIsTheFirstInOrder: StopAt ends the list at the first job, in
// list order, that it holds for, even when a later one ends first: every
// job before it is handed back, none after it, for any number of workers;
// with one worker no job after it starts.
func TestStopAtIsTheFirstInOrder(t *testing.T) {
	stops := map[int]bool{6: true, 9: true, 15: true}
	for _, workers := range []int{1, 2, 4, 8} {
		t.Run(fmt.Sprintf("j%d", workers), func(t *testing.T) {
			var ran atomic.Int64
			pool := Pool{Workers: workers, StopAt: func(o Outcome) bool { return o.Result.Status == engine.StatusFail }}
			got := each(t, pool, 20, func(i int) Outcome {
				ran.Add(1)
				if i == 6 {
					time.Sleep(20 * time.Millisecond) // 9 ends before it with more workers
				}
				o := pass(i)
				if stops[i] {
					o.Result.Status = engine.StatusFail
				}
				return o
			})
			if !slices.Equal(got, upTo(7)) {
				t.Fatalf("handed back %v, want 0-6", got)
			}
			if workers == 1 && ran.Load() != 7 {
				t.Fatalf("one worker ran %d jobs, want the 7 up to the stop", ran.Load())
			}
		})
	}
}

// TestErrorEndsTheList: a run that fails to start is handed back and is
// the last, as a stop is; StopAt is not asked about it.
func TestErrorEndsTheList(t *testing.T) {
	for _, workers := range []int{1, 3} {
		var asked atomic.Int64
		pool := Pool{Workers: workers, StopAt: func(o Outcome) bool {
			if o.Err != nil || o.Result == nil {
				t.Errorf("StopAt asked about job %d, which has no run", o.Index)
			}
			asked.Add(1)
			return false
		}}
		var last Outcome
		err := pool.Each(10, func(i int) Outcome {
			if i == 4 {
				return Outcome{Err: errors.New("no module")}
			}
			return pass(i)
		}, func(o Outcome) error {
			last = o
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if last.Index != 4 || last.Err == nil || last.Err.Error() != "no module" {
			t.Fatalf("j%d: the last outcome is job %d (%v), want job 4 and its error", workers, last.Index, last.Err)
		}
		if workers == 1 && asked.Load() != 4 {
			t.Fatalf("StopAt asked %d times, want 4", asked.Load())
		}
	}
}

// TestDeliverErrorStops: an error from deliver starts no more jobs and is
// what Each returns, after the running jobs end.
func TestDeliverErrorStops(t *testing.T) {
	var ran, running atomic.Int64
	stop := errors.New("disk full")
	err := Pool{Workers: 1}.Each(10, func(i int) Outcome {
		ran.Add(1)
		running.Add(1)
		defer running.Add(-1)
		return pass(i)
	}, func(o Outcome) error {
		if o.Index == 2 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Fatalf("Each returned %v, want deliver's error", err)
	}
	if running.Load() != 0 {
		t.Fatal("Each returned while a job ran")
	}
	// The worker may have started job 3 before deliver saw job 2.
	if n := ran.Load(); n > 4 {
		t.Fatalf("%d jobs ran after deliver failed at the third", n)
	}
}

// TestInterrupt: once the interrupt is set, no job starts; every job is
// still handed back, those that did not run marked Interrupted, as are runs
// the engine ended because of it (StatusInterrupted), and StopAt is not
// asked about them.
func TestInterrupt(t *testing.T) {
	for _, workers := range []int{1, 4} {
		flag := new(atomic.Bool)
		var ran [12]atomic.Bool
		pool := Pool{Workers: workers, Interrupt: flag, StopAt: func(o Outcome) bool {
			if o.Result.Status == engine.StatusInterrupted {
				t.Errorf("StopAt asked about interrupted job %d", o.Index)
			}
			return false
		}}
		var outs []Outcome
		err := pool.Each(len(ran), func(i int) Outcome {
			ran[i].Store(true)
			o := pass(i)
			if i == 3 {
				flag.Store(true)
				o.Result.Status = engine.StatusInterrupted
			}
			return o
		}, func(o Outcome) error {
			outs = append(outs, o)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) != len(ran) {
			t.Fatalf("j%d: %d outcomes handed back, want %d", workers, len(outs), len(ran))
		}
		started := 0
		for i, o := range outs {
			if ran[i].Load() {
				started++
			}
			switch {
			case o.Index != i:
				t.Fatalf("j%d: outcome %d is job %d's", workers, i, o.Index)
			case !ran[i].Load() && (!o.Interrupted || o.Result != nil):
				t.Fatalf("j%d: job %d did not run but is handed back as %+v", workers, i, o)
			case i == 3 && !o.Interrupted:
				t.Fatalf("j%d: the run the engine interrupted is not marked so", workers)
			case i < 3 && o.Interrupted:
				t.Fatalf("j%d: job %d before the interrupt is marked interrupted", workers, i)
			}
		}
		if workers == 1 && started != 4 {
			t.Fatalf("one worker ran %d jobs, though the interrupt came at the fourth", started)
		}
	}
}

// TestLimitProcs lowers GOMAXPROCS to the workers and puts it back.
func TestLimitProcs(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	if before < 2 {
		t.Skip("GOMAXPROCS is 1 already")
	}
	restore := LimitProcs(1)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS %d with one worker, want 1", got)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Fatalf("GOMAXPROCS %d after restore, want %d", got, before)
	}
	LimitProcs(before + 1)()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Fatalf("more workers than Ps changed GOMAXPROCS to %d", got)
	}
}

// TestWindowBoundsWorkAhead: workers never run more than the window ahead
// of the outcome handed back, so a list of millions of seeds holds a few
// outcomes per worker, not one per seed.
func TestWindowBoundsWorkAhead(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		const n = 20000
		var started atomic.Int64
		delivered := 0
		ahead := int64(0)
		slow := func(i int) Outcome {
			started.Add(1)
			if i%97 == 0 {
				time.Sleep(time.Millisecond) // a slow job lets the others run ahead
			}
			return Outcome{}
		}
		err := Pool{Workers: workers}.Each(n, slow, func(o Outcome) error {
			if o.Index != delivered {
				t.Fatalf("j%d: outcome of job %d handed back as the %dth", workers, o.Index, delivered)
			}
			delivered++
			ahead = max(ahead, started.Load()-int64(delivered))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if delivered != n {
			t.Fatalf("j%d: %d outcomes handed back, want %d", workers, delivered, n)
		}
		if limit := int64(workers * windowPerWorker); ahead > limit {
			t.Fatalf("j%d: workers ran %d jobs ahead of the outcome handed back, more than the window of %d", workers, ahead, limit)
		}
	}
}
