package schedule

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sf-dst/sf/lib/faults"
)

var world = World{File: "w.json", Nodes: []string{"server", "client"}, DurationNs: int64(10 * time.Second)}

func TestParse(t *testing.T) {
	crash := func(at, until time.Duration, node string) Fault {
		return Fault{At: Dur(at), Kind: faults.KindCrash, Node: node, Until: Dur(until)}
	}
	tests := []struct {
		name, data string
		want       *Schedule
	}{
		{"object form", `{"seed": 17, "config": "world.json", "duration": "3s", "budget": 63, "shrunk_from": 14, "shrink_runs": 23,
			"branches": [{"at": "1s", "key": 9, "stream": "sched"}],
			"faults": [{"at": "1.204s", "kind": "crash", "node": "server", "until": "1.5s"}]}`,
			&Schedule{Seed: 17, Config: "world.json", Duration: Dur(3 * time.Second), Budget: 63, ShrunkFrom: 14, ShrinkRuns: 23,
				Branches: []Branch{{At: Dur(time.Second), Key: 9, Stream: "sched"}},
				Faults:   []Fault{crash(1204*time.Millisecond, 1500*time.Millisecond, "server")}}},
		{"bare list with a BOM", "\xef\xbb\xbf\n [{\"at\": \"0s\", \"kind\": \"crash\", \"node\": \"client\", \"until\": \"100ms\"}]",
			&Schedule{Faults: []Fault{crash(0, 100*time.Millisecond, "client")}}},
		{"partition side", `[{"at": "1s", "kind": "partition", "side": ["server"], "until": "2s"}]`,
			&Schedule{Faults: []Fault{{At: Dur(time.Second), Kind: faults.KindPartition, Side: []string{"server"}, Until: Dur(2 * time.Second)}}}},
		{"empty list", `[]`, &Schedule{Faults: []Fault{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("f.json", []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Parse =\n  %+v\nwant\n  %+v", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"unknown top-level field", `{"seed": 3, "note": "x", "faults": []}`, `f.json: note: unknown field`},
		{"unknown fault field", `{"faults": [{"at": "1s", "kind": "crash", "node": "server", "until": "2s"}, {"at": "1s", "kind": "crash", "nod": "server"}]}`,
			`f.json: faults[1].nod: unknown field`},
		{"missing faults", `{"seed": 3}`, `f.json: faults: missing (an empty schedule is "faults": [])`},
		{"faults not a list", `{"faults": 3}`, `f.json: faults: expected a list of faults`},
		{"bad duration", `[{"at": "soon", "kind": "crash", "node": "server"}]`, `f.json: faults[0].at: invalid duration "soon"`},
		{"number as duration", `[{"at": "1s", "kind": "crash", "node": "server", "until": 5}]`, `f.json: faults[0].until: expected a duration string like "1.5s"`},
		{"wrong type", `[{"at": "1s", "kind": "crash", "node": "server", "op": "x"}]`, `f.json: faults[0].op: expected int64, got string`},
		{"fault not an object", `[3]`, `f.json: faults[0]: expected an object, got number`},
		{"syntax error", "[{\"at\": \"1s\",\n]", `f.json: line 2, column 1: invalid character ']' looking for beginning of object key string`},
		{"empty", "  \n", `f.json: empty: a schedule is a JSON object with a faults list, or a list of faults`},
		{"wrong top-level type", `"crash"`, `f.json: expected a JSON object or a list of faults, got string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("f.json", []byte(tt.data))
			if err == nil {
				t.Fatalf("accepted: %+v", s)
			}
			if err.Error() != tt.want {
				t.Fatalf("error\n  %s\nwant\n  %s", err, tt.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	tests := []struct{ name, fault, want string }{
		{"ok crash", `{"at": "1s", "kind": "crash", "node": "server", "until": "2s"}`, ``},
		{"unknown kind", `{"at": "1s", "kind": "earthquake", "node": "server"}`, `faults[0].kind: "earthquake" is not a fault kind (`},
		{"unknown node", `{"at": "1s", "kind": "crash", "node": "sever", "until": "2s"}`, `faults[0].node: "sever" is not a node of this world (server, client)`},
		{"missing node", `{"at": "1s", "kind": "crash", "until": "2s"}`, `faults[0].node: missing: a crash fault names its node`},
		{"negative at", `{"at": "-1s", "kind": "net_reset", "node": "server", "until": "0s"}`, `faults[0].at: negative`},
		{"at past the end", `{"at": "11s", "kind": "crash", "node": "server", "until": "12s"}`, `faults[0].at: 11s is after the end of the run (10s)`},
		{"positional at past the end is fine", `{"at": "11s", "kind": "write_eio", "node": "server", "op": 3}`, ``},
		{"until before at", `{"at": "3s", "kind": "pause", "node": "server", "until": "2s"}`, `faults[0].until: 2s is before at (3s)`},
		{"side and groups", `{"at": "1s", "kind": "partition", "side": ["server"], "groups": [["server"], ["client"]], "until": "2s"}`, `faults[0]: a partition has side or groups, not both`},
		{"partition without nodes", `{"at": "1s", "kind": "partition", "until": "2s"}`, `faults[0]: a partition needs side (one group against the rest) or groups`},
		{"side names a stranger", `{"at": "1s", "kind": "partition", "side": ["x"], "until": "2s"}`, `faults[0].side: "x" is not a node of this world (server, client)`},
		{"groups name a stranger", `{"at": "1s", "kind": "partition", "groups": [["server"], ["y"]], "until": "2s"}`, `faults[0].groups[1]: "y" is not a node of this world (server, client)`},
		{"one group", `{"at": "1s", "kind": "partition", "groups": [["server", "client"]], "until": "2s"}`, `faults[0].groups: a partition needs at least two groups`},
		{"empty group", `{"at": "1s", "kind": "partition", "groups": [["server"], []], "until": "2s"}`, `faults[0].groups[1]: empty`},
		{"clog mode", `{"at": "1s", "kind": "clog", "from": "server", "to": "client", "mode": "hold", "until": "2s"}`, `faults[0].mode: "hold" is not one of stop, slow, jam`},
		{"clog dir", `{"at": "1s", "kind": "clog", "node": "server", "dir": "up", "mode": "stop", "until": "2s"}`, `faults[0].dir: "up" is not one of in, out, both`},
		{"clog link to itself", `{"at": "1s", "kind": "clog", "from": "server", "to": "server", "mode": "stop", "until": "2s"}`, `faults[0]: a clog of one link needs two different nodes in from and to`},
		{"clog to a stranger", `{"at": "1s", "kind": "clog", "from": "server", "to": "z", "mode": "stop", "until": "2s"}`, `faults[0].to: "z" is not a node of this world (server, client)`},
		{"slow factor", `{"at": "1s", "kind": "slow", "node": "server", "factor": 0.5, "until": "2s"}`, `faults[0].factor: 0.5 is below 1`},
		{"op missing", `{"at": "1s", "kind": "read_eio", "node": "server"}`, `faults[0].op: a read_eio fault fires at a numbered disk read, from 1`},
		{"buggify site", `{"at": "1s", "kind": "buggify", "node": "server", "op": 2}`, `faults[0].site: missing: a buggify fault names its site`},
		{"preempt without pct", `{"at": "1s", "kind": "preempt", "node": "server", "op": 2}`, `faults[0].kind: a preempt fault needs preempt.strategy pct in the world`},
	}
	checkFaults(t, world, tests)
	s := &Schedule{Duration: Dur(2 * time.Second), Faults: []Fault{{At: Dur(3 * time.Second), Kind: faults.KindNetReset, Node: "server"}}}
	if err := s.Check(world); err == nil || err.Error() != "faults[0].at: 3s is after the end of the run (2s)" {
		t.Fatalf("the schedule's own duration is the end: %v", err)
	}
	s = &Schedule{Branches: []Branch{{At: Dur(2 * time.Second)}, {At: Dur(time.Second)}}}
	if err := s.Check(world); err == nil || !strings.HasPrefix(err.Error(), "branches[1].at: 1s is before") {
		t.Fatalf("decreasing branches: %v", err)
	}
	s = &Schedule{Duration: Dur(11 * time.Second)}
	if err := s.Check(world); err == nil || err.Error() != "duration: 11s is longer than the world's duration (10s)" {
		t.Fatalf("a duration past the world's: %v", err)
	}
	lw := world
	lw.Liveness = true
	if err := s.Check(lw); err != nil {
		t.Fatalf("with a recovery phase a schedule may run past the world's duration: %v", err)
	}
	s = &Schedule{Branches: []Branch{{At: Dur(2 * time.Second), Stream: "clock"}}}
	if err := s.Check(world); err == nil || !strings.HasPrefix(err.Error(), `branches[0].stream: "clock" is not one of sched`) {
		t.Fatalf("unknown stream: %v", err)
	}
}

func TestRoundTrip(t *testing.T) {
	in := &Schedule{Seed: 9, Config: "w.json", Duration: Dur(10 * time.Second), Budget: 5, Faults: []Fault{
		{At: Dur(1204 * time.Millisecond), Kind: faults.KindCrash, Node: "server", Until: Dur(1500 * time.Millisecond)},
	}}
	out, err := Parse("f.json", in.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip = %+v, want %+v", out, in)
	}
}

func TestDescribeAndLines(t *testing.T) {
	tests := []struct {
		f    Fault
		want string
	}{
		{Fault{Kind: faults.KindCrash, Node: "server", Until: Dur(791_388_123)}, "crash server, restart at 791.388ms"},
		{Fault{Kind: faults.KindCrashIO, Node: "server", Op: 56, Until: Dur(1_942_589_003)}, "crash server during disk op #56, restart at 1.942589s"},
		{Fault{Kind: faults.KindBuggify, Node: "counter", Site: "reply lost", Op: 35}, `buggify "reply lost" fires on counter at hit #35`},
		{Fault{Kind: faults.KindPartition, Side: []string{"a", "b"}, Until: Dur(2 * time.Second)}, "partition [a b] from the rest until 2s"},
		{Fault{Kind: faults.KindPartition, Groups: [][]string{{"a"}, {"b"}}, Until: Dur(2 * time.Second)}, "partition [a] | [b] until 2s"},
	}
	for _, tt := range tests {
		if got := tt.f.Describe(); got != tt.want {
			t.Errorf("Describe = %q, want %q", got, tt.want)
		}
	}
	lines := Lines([]Fault{{At: Dur(427_268_400), Kind: faults.KindCrash, Node: "server", Until: Dur(791_388_000)}, {At: Dur(1_705_200_000), Kind: faults.KindNetReset, Node: "server"}})
	want := []string{"  1     427.268ms  crash server, restart at 791.388ms", "  2       1.7052s  reset the connections of server"}
	if !reflect.DeepEqual(lines, want) {
		t.Fatalf("Lines =\n%q\nwant\n%q", lines, want)
	}
}

// checkFaults reads each case's fault as a one-fault schedule and checks it
// against w: a case with want is refused with an error that starts with
// it, one without stands.
func checkFaults(t *testing.T, w World, tests []struct{ name, fault, want string }) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("f.json", []byte("["+tt.fault+"]"))
			if err != nil {
				t.Fatal(err)
			}
			err = s.Check(w)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("accepted")
			case tt.want != "" && !strings.HasPrefix(err.Error(), tt.want):
				t.Fatalf("error\n  %s\nwant\n  %s", err, tt.want)
			}
		})
	}
}
