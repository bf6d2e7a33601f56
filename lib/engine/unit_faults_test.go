package engine

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestFmtTime(t *testing.T) {
	tests := []struct {
		ns   int64
		want string
	}{
		{0, "0.000s"},
		{1, "0.000s"},
		{999_999, "0.000s"},
		{1_000_000, "0.001s"},
		{250_000_000, "0.250s"},
		{999_999_999, "0.999s"}, // truncated, never rounded up to the next second
		{1_000_000_000, "1.000s"},
		{1_204_000_000, "1.204s"},
		{61_000_000_000, "61.000s"},
		{3600_000_000_000 + 5_000_000, "3600.005s"},
	}
	for _, tt := range tests {
		if got := fmtTime(tt.ns); got != tt.want {
			t.Errorf("fmtTime(%d) = %q, want %q", tt.ns, got, tt.want)
		}
	}
}

var unitNodes = []string{"primary", "backup", "client"}

func TestParseSchedule(t *testing.T) {
	crash := func(at, until time.Duration, node string) Fault {
		return Fault{At: Dur(at), Kind: KindCrash, Node: node, Until: Dur(until)}
	}
	tests := []struct {
		name string
		data string
		want *Schedule
	}{
		{
			name: "object form",
			data: `{"seed": 17, "config": "world.json", "duration": "30s", "faults": [
				{"at": "1.204s", "kind": "crash", "node": "primary", "until": "1.5s"},
				{"at": "2s", "kind": "crash", "node": "backup", "until": "2s"}]}`,
			want: &Schedule{Seed: 17, Config: "world.json", Duration: Dur(30 * time.Second), Faults: []Fault{
				crash(1204*time.Millisecond, 1500*time.Millisecond, "primary"),
				crash(2*time.Second, 2*time.Second, "backup"),
			}},
		},
		{
			name: "bare list",
			data: "\n\t [{\"at\": \"0s\", \"kind\": \"crash\", \"node\": \"client\", \"until\": \"100ms\"}]",
			want: &Schedule{Faults: []Fault{crash(0, 100*time.Millisecond, "client")}},
		},
		{
			name: "buggify fault counted by hit, until not needed",
			data: `[{"at": "1s", "kind": "buggify", "node": "backup", "site": "slow fsync", "op": 3}]`,
			want: &Schedule{Faults: []Fault{{At: Dur(time.Second), Kind: KindBuggify, Node: "backup", Site: "slow fsync", Op: 3}}},
		},
		{name: "empty list", data: `[]`, want: &Schedule{Faults: []Fault{}}},
		{name: "object without faults", data: `{"seed": 3}`, want: &Schedule{Seed: 3}},
		{name: "unknown fields are ignored", data: `{"seed": 3, "note": "x", "faults": []}`, want: &Schedule{Seed: 3, Faults: []Fault{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSchedule("f.json", []byte(tt.data), unitNodes)
			if err != nil {
				t.Fatalf("ParseSchedule: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseSchedule =\n  %+v\nwant\n  %+v", got, tt.want)
			}
		})
	}
}

func TestParseScheduleErrors(t *testing.T) {
	fault := func(fields string) string { return `[` + fields + `]` }
	tests := []struct {
		name, data, want string
	}{
		{"unknown kind", fault(`{"at": "1s", "kind": "earthquake", "node": "primary", "until": "2s"}`),
			`f.json: faults[0].kind: unknown or unsupported fault kind "earthquake"`},
		{"missing kind", fault(`{"at": "1s", "node": "primary", "until": "2s"}`),
			`f.json: faults[0].kind: unknown or unsupported fault kind ""`},
		{"unknown node in the second fault", `{"faults": [{"at": "1s", "kind": "crash", "node": "primary", "until": "2s"},
			{"at": "1s", "kind": "crash", "node": "ghost", "until": "2s"}]}`,
			`f.json: faults[1].node: no node named "ghost" in the world`},
		{"missing node", fault(`{"at": "1s", "kind": "crash", "until": "2s"}`),
			`f.json: faults[0].node: no node named "" in the world`},
		{"negative at", fault(`{"at": "-1s", "kind": "crash", "node": "backup", "until": "2s"}`),
			`f.json: faults[0].at: negative time`},
		{"until before at", fault(`{"at": "3s", "kind": "crash", "node": "backup", "until": "2.999s"}`),
			`f.json: faults[0].until: before at`},
		{"missing until", fault(`{"at": "3s", "kind": "crash", "node": "backup"}`),
			`f.json: faults[0].until: before at`},
		{"kind is checked before node", fault(`{"at": "-1s", "kind": "bogus", "node": "ghost", "until": "2s"}`),
			`f.json: faults[0].kind: unknown or unsupported fault kind "bogus"`},
		{"buggify without op", fault(`{"at": "1s", "kind": "buggify", "node": "backup", "site": "s"}`),
			`f.json: faults[0].op: a buggify fault needs an op of at least 1`},
		{"buggify without site", fault(`{"at": "1s", "kind": "buggify", "node": "backup", "op": 1}`),
			`f.json: faults[0].site: a buggify fault names its site`},
		{"not a duration", fault(`{"at": "soon", "kind": "crash", "node": "backup", "until": "2s"}`),
			`f.json: invalid duration "soon"`},
		{"duration as a number", fault(`{"at": 5, "kind": "crash", "node": "backup", "until": "2s"}`),
			`f.json: expected a duration string like "1.5s"`},
		{"syntax error", `[{"at": "1s",]`, `f.json: invalid character ']' looking for beginning of object key string`},
		{"empty file", ``, `f.json: unexpected end of JSON input`},
		{"wrong top-level type", `"crash"`, `f.json: json: cannot unmarshal string into Go value of type engine.Schedule`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSchedule("f.json", []byte(tt.data), unitNodes)
			if err == nil {
				t.Fatalf("ParseSchedule accepted it: %+v", s)
			}
			if err.Error() != tt.want {
				t.Fatalf("error\n  %s\nwant\n  %s", err, tt.want)
			}
		})
	}
}

func TestScheduleRoundTrip(t *testing.T) {
	in := Schedule{Seed: 9, Config: "w.json", Duration: Dur(10 * time.Second), Faults: []Fault{
		{At: Dur(1204 * time.Millisecond), Kind: KindCrash, Node: "primary", Until: Dur(1500 * time.Millisecond)},
	}}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"seed":9,"config":"w.json","duration":"10s","faults":[{"at":"1.204s","kind":"crash","node":"primary","until":"1.5s"}]}`
	if string(data) != want {
		t.Fatalf("marshal =\n  %s\nwant\n  %s", data, want)
	}
	out, err := ParseSchedule("f.json", data, unitNodes)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*out, in) {
		t.Fatalf("round trip = %+v, want %+v", *out, in)
	}
}

func TestFaultDescribe(t *testing.T) {
	tests := []struct {
		f    Fault
		want string
	}{
		{Fault{At: Dur(time.Second), Kind: KindCrash, Node: "primary", Until: Dur(2500 * time.Millisecond)}, "crash primary, restart at 2.500s"},
		{Fault{Kind: KindCrash, Node: "b"}, "crash b, restart at 0.000s"},
		{Fault{Kind: KindCrash, Node: "b", Until: Dur(61_000_999_999)}, "crash b, restart at 61.000s"},
		{Fault{Kind: KindBuggify, Node: "backup", Site: "slow fsync", Op: 3}, `buggify "slow fsync" fires on backup at hit #3`},
		{Fault{Kind: "earthquake", Node: "backup"}, "earthquake backup"},
	}
	for _, tt := range tests {
		if got := tt.f.Describe(); got != tt.want {
			t.Errorf("Describe(%+v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}
