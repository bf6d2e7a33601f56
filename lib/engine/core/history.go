package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sf-dst/sf/lib/check"
	"github.com/sf-dst/sf/lib/history"
)

// historyInvoke records the start of an operation for the history check.
func (r *Run) HistoryInvoke(in *Instance, process int64, f, key, value string) uint64 {
	if r.rec == nil {
		r.rec = history.NewRecorder()
	}
	id, err := r.rec.Invoke(process, f, key, rawValue(value), r.Now)
	if err != nil {
		r.fail(in, ClassFail, fmt.Sprintf("%s: %v", in.Name, err))
		return 0
	}
	if r.opNode == nil {
		r.opNode = map[int64]*Instance{}
	}
	r.opNode[id] = in
	return uint64(id)
}

func (r *Run) HistoryComplete(in *Instance, id uint64, kind uint32, output string) {
	if r.rec == nil {
		return
	}
	t := history.OK
	switch kind {
	case 2:
		t = history.Info
	case 3:
		t = history.Fail
	}
	// A second completion of one operation is the SDK's to prevent; the
	// recorder refuses it and the history stays well formed.
	if r.rec.Complete(int64(id), t, rawValue(output), r.Now) == nil {
		delete(r.opNode, int64(id))
	}
}

func rawValue(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

// checkHistory checks the recorded history once the workloads are done. A
// violation fails the run with the checker's class; a check that runs out of
// time neither passes nor fails the seed, and the trace says so.
func (r *Run) checkHistory() {
	if r.rec == nil || r.rec.Len() == 0 {
		return
	}
	r.ended = false // the run is over; this only lets fail record the verdict
	if open := r.rec.Open(); open > 0 {
		r.Tracef("history: %d operations never completed; their outcome is unknown", open)
	}
	timeout := time.Duration(r.Spec.HistoryTimeoutNs)
	if timeout == 0 {
		timeout = check.TimeoutDefault
	}
	// The run's interrupt stops the check too: a check may take up to
	// its timeout, and a sweep asked to stop must not wait for it.
	rep, err := check.Check(r.rec.Ops(), check.Options{Model: r.Spec.CheckerModel, Timeout: timeout, MaxSteps: max(r.limits.CheckStepsMax, 0),
		Interrupt: r.Opts.Interrupt})
	if errors.Is(err, check.ErrInterrupted) {
		r.res.Status = StatusInterrupted
		r.Tracef("interrupted while checking the history")
		r.ended = true
		return
	}
	if err != nil {
		// A recorded operation the model does not have, or a value of the
		// wrong type: the workload's mistake, reported like an assert.
		r.fail(nil, ClassAssert, err.Error())
		return
	}
	r.res.Check = rep
	switch rep.Verdict {
	case check.Illegal:
		for _, a := range rep.Anomalies {
			r.Tracef("%s", a.String())
		}
		r.fail(nil, rep.Class, rep.Summary)
	case check.Unknown:
		r.Tracef("%s", rep.Summary)
	}
	r.ended = true
}
