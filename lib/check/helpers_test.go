package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/history"
)

// txn builds one list-append transaction from a compact spec such as
// "r x 1 2 | a y 3 | r z": micro-ops separated by |, r KEY VALUES... for a
// read (no values: the empty list) and a KEY VALUE for an append. The status
// is one of ok, info, fail, pending; reads of transactions that are not ok are
// null, as in an invocation.
type txnSpec struct {
	process int64
	status  string
	mops    string
}

func mopsJSON(spec string, withReads bool) string {
	var parts []string
	for _, m := range strings.Split(spec, "|") {
		f := strings.Fields(m)
		switch f[0] {
		case "a":
			parts = append(parts, fmt.Sprintf(`["append",%q,%q]`, f[1], f[2]))
		case "r":
			if !withReads {
				parts = append(parts, fmt.Sprintf(`["r",%q,null]`, f[1]))
				continue
			}
			vals := make([]string, len(f)-2)
			for i, v := range f[2:] {
				vals[i] = fmt.Sprintf("%q", v)
			}
			parts = append(parts, fmt.Sprintf(`["r",%q,[%s]]`, f[1], strings.Join(vals, ",")))
		default:
			panic("bad micro-op " + m)
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// txnHistory builds operations with ids 0, 1, ... in order, each invoked at
// 10*i and returning at 10*i+5.
func txnHistory(specs ...txnSpec) []history.HistoryOp {
	ops := make([]history.HistoryOp, len(specs))
	for i, s := range specs {
		op := history.HistoryOp{ID: int64(i), Process: s.process, F: "txn", Call: int64(10 * i), Return: int64(10*i + 5)}
		op.Value = []byte(mopsJSON(s.mops, false))
		switch s.status {
		case "ok":
			op.Status = history.StatusOK
			op.Output = []byte(mopsJSON(s.mops, true))
		case "info":
			op.Status = history.StatusUnknown
		case "fail":
			op.Status = history.StatusFailed
		case "pending":
			op.Status = history.StatusPending
			op.Return = -1
		default:
			panic("bad status " + s.status)
		}
		ops[i] = op
	}
	return ops
}

func ok(p int64, mops string) txnSpec   { return txnSpec{p, "ok", mops} }
func info(p int64, mops string) txnSpec { return txnSpec{p, "info", mops} }
func fail(p int64, mops string) txnSpec { return txnSpec{p, "fail", mops} }

func kinds(r *Report) string {
	var k []string
	for _, a := range r.Anomalies {
		k = append(k, a.Kind)
	}
	return strings.Join(k, ",")
}

func mustCheck(t *testing.T, ops []history.HistoryOp, opts Options) *Report {
	t.Helper()
	r, err := Check(ops, opts)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return r
}
