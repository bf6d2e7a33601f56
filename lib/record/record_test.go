package record

import (
	"bytes"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func sample() []any {
	m := 0.0
	return []any{
		Start{Kind: KindStart, Tool: "sf-run", Version: "0.1.0", Schema: Schema, Config: "seedfall.json", Seeds: "1-2", Count: 2, Jobs: 2},
		Seed{Kind: KindSeed, Seed: 1, Config: "seedfall.json", Status: "pass", AtNs: 1_500_000_000, Steps: 10, HostCalls: 120,
			RealNs: 5_000_000, DeterminismHash: "00000000deadbeef", Repro: "sf-run -c seedfall.json -seed 1"},
		Seed{Kind: KindSeed, Seed: 2, Config: "seedfall.json", Status: "fail", Class: "assert", Message: "client#1: lost",
			Node: "client#1", AtNs: 3_121_302_000, Steps: 867, HostCalls: 9126, RealNs: 38_000_000, DeterminismHash: "4c9ab008f72df649",
			Faults: 1, Artifacts: &Artifacts{Trace: ".seedfall/seed-2.trace.log", Faults: ".seedfall/seed-2.faults.json"},
			Repro: "sf-run -c seedfall.json -seed 2", HistoryCheck: "ok"},
		Summary{Kind: KindSummary, Config: "seedfall.json", Seeds: 2, Passed: 1, Failed: 1, FailedSeeds: []uint64{2},
			Properties: []Property{{Kind: "always", Message: "no write is lost", SeedsReached: 2, SeedsTrue: 1, Margin: &m}},
			RealNs:     50_000_000, Status: "fail"},
	}
}

// TestGolden pins the encoding of every record kind: the format only ever
// grows by adding fields, and this file shows when it changes.
func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, r := range sample() {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	const golden = "testdata/golden.jsonl"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("records changed:\n%s\nwant:\n%s", buf.Bytes(), want)
	}
}

// TestReaderSkipsUnknown: readers ignore kinds and fields they do not know,
// and name the line of a record that is not JSON.
func TestReaderSkipsUnknown(t *testing.T) {
	in := `{"kind":"start","tool":"sf-run","schema":1,"future_field":true}
{"kind":"shrink","seed":4}

{"kind":"seed","seed":7,"status":"pass","new":{"x":1}}
{"kind":"summary","seeds":1,"status":"pass"}
`
	r := NewReader(strings.NewReader(in), "in.jsonl")
	var kinds []string
	for {
		a, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, a.Kind)
		if a.Kind == KindSeed && a.Seed.Seed != 7 {
			t.Errorf("seed record decoded as %+v", a.Seed)
		}
	}
	if strings.Join(kinds, ",") != "start,shrink,seed,summary" {
		t.Errorf("kinds %v", kinds)
	}
	_, err := NewReader(strings.NewReader("{\"kind\":\"seed\"}\nnot json\n"), "bad.jsonl").Next()
	if err != nil {
		t.Fatalf("first line: %v", err)
	}
	r = NewReader(strings.NewReader("{\"kind\":\"seed\"}\nnot json\n"), "bad.jsonl")
	r.Next()
	if _, err := r.Next(); err == nil || !strings.HasPrefix(err.Error(), "bad.jsonl:2: not a JSON record") {
		t.Errorf("error %v, want one naming bad.jsonl:2", err)
	}
}

// TestReaderLineLimit: a line over the limit is an error that names its line
// and the limit, whether or not it ends with a newline; a line at the limit
// is read.
func TestReaderLineLimit(t *testing.T) {
	const max = 32
	seed := `{"kind":"seed","seed":12345678}` // 31 bytes
	tests := []struct{ name, in, want string }{
		{"at the limit", seed + " \n", ""},
		{"over, then a newline", seed + "\n" + seed + "  \n", "in.jsonl:2: record is longer than the limit of 32 bytes"},
		{"over at the end", seed + "\n\n" + seed + "  ", "in.jsonl:3: record is longer than the limit of 32 bytes"},
		{"far over", seed + "\n" + strings.Repeat(" ", 1000) + "\n", "in.jsonl:2: record is longer than the limit of 32 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReader(strings.NewReader(tt.in), "in.jsonl", max)
			var err error
			for err == nil {
				_, err = r.Next()
			}
			if tt.want == "" {
				if err != io.EOF {
					t.Errorf("got %v, want io.EOF", err)
				}
				return
			}
			if err.Error() != tt.want {
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
	}
	// The default limit is LineBytesMax: a longer line is an error, not a
	// silent end of the stream.
	big := seed + "\n" + `{"kind":"seed","message":"` + strings.Repeat("x", LineBytesMax) + `"}` + "\n"
	r := NewReader(strings.NewReader(big), "big.jsonl")
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil || err.Error() != "big.jsonl:2: record is longer than the limit of 16777216 bytes" {
		t.Errorf("got %v", err)
	}
}
