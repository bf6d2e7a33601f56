package check

import (
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/check/internal/txngen"
	"github.com/sf-dst/sf/lib/history"
)

// The list-append transactions of these tests are made by txngen, which
// listappend's tests share; the short names keep the tables readable.
type txnSpec = txngen.Spec

var (
	ok            = txngen.OK
	info          = txngen.Info
	fail          = txngen.Fail
	txnHistory    = txngen.History
	genListAppend = txngen.ListAppend
)

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
