package faultsedit

import (
	"bytes"
	"strings"
	"testing"
)

func TestReplayLine(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		out  string
		want string
	}{
		{"plain", Options{RunTool: "sf-run", Config: "seedfall.json", Seed: 1}, "hypothesis.json",
			"sf-run -c seedfall.json -seed 1 -faults hypothesis.json"},
		{"profile and sets", Options{RunTool: "bin/sf-run", Config: "w.json", Seed: 7, Profile: "nightly",
			Set: []string{"faults.crash_per_sec=1", `duration="5s"`}}, "out.json",
			`bin/sf-run -c w.json -seed 7 -profile nightly -set faults.crash_per_sec=1 -set 'duration="5s"' -faults out.json`},
		{"spaces and quotes", Options{RunTool: "sf-run", Config: "my world.json", Seed: 2}, "it's.json",
			`sf-run -c 'my world.json' -seed 2 -faults 'it'\''s.json'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := replayLine(tt.o, tt.out); got != tt.want {
				t.Fatalf("replayLine =\n  %s\nwant\n  %s", got, tt.want)
			}
		})
	}
}

func TestParseEdits(t *testing.T) {
	e, err := parseEdits(Options{Remove: []string{"3", " 1"}, Shift: []string{"2=-50ms", "1= +2"},
		Add: []string{`{"at":"1s","kind":"pause","node":"server","until":"2s"}`}})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.remove) != 2 || e.remove[0] != 3 || e.remove[1] != 1 || e.shift[0].pos != 2 || e.shift[0].amount != "-50ms" ||
		e.shift[1].amount != "+2" || len(e.add) != 1 {
		t.Fatalf("parsed %+v", e)
	}
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"remove 0", Options{Remove: []string{"0"}}, `-remove 0: "0" is not a position: faults are numbered from 1 as listed`},
		{"shift without =", Options{Shift: []string{"2"}}, `-shift 2: expected N=AMOUNT`},
		{"shift without a position", Options{Shift: []string{"=1ms"}}, `-shift =1ms: "" is not a position`},
		{"add an unknown field", Options{Add: []string{`{"at":"1s","kind":"pause","node":"server","nod":"x"}`}},
			`-add {"at":"1s","kind":"pause","node":"server","nod":"x"}: nod: unknown field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseEdits(tt.o)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want %s", err, tt.want)
			}
		})
	}
}

// TestErrorsBeforeTheWorld shows that a bad edit is refused before the
// world is loaded: the world file here does not even exist.
func TestErrorsBeforeTheWorld(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := Main(Options{Config: "no-such-world.json", Seed: 1, Faults: "-", Remove: []string{"2"},
		Out: t.TempDir() + "/out.json", Stdin: strings.NewReader(`[{"at":"1s","kind":"crash","node":"server","until":"2s"}]`),
		Stdout: &stdout, Stderr: &stderr})
	if code != 2 || stderr.String() != "sf-faults: -remove 2: there is no fault 2 (the schedule has 1)\n" || stdout.Len() != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	stderr.Reset()
	code = Main(Options{Config: "no-such-world.json", Seed: 1, Faults: "-", Shift: []string{"1=+1ms"},
		Stdin: strings.NewReader(`[]`), Stdout: &stdout, Stderr: &stderr})
	if code != 2 || !strings.HasPrefix(stderr.String(), "sf-faults: -faults -: the schedule came from stdin") {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
}
