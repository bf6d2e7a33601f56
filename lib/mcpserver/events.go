package mcpserver

// The failure view and sf_replay's events: a seed's record with the spec's
// names for its files, and a run's trace split into what happened and what
// the programs printed.

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/sf-dst/sf/lib/record"
)

// SeedView is a seed's record as sf-run -json writes it, with the spec's
// names for two of its artifacts: history_file and timeline_file, the same
// paths as artifacts.history and artifacts.timeline (RATIONALE.md says why
// both).
type SeedView struct {
	seedRecord
	HistoryFile  string `json:"history_file,omitempty" jsonschema:"the seed's recorded history, .seedfall/<world>/seed-N.history.jsonl, when the workload recorded one"`
	TimelineFile string `json:"timeline_file,omitempty" jsonschema:"the timeline of a linearizability violation, .seedfall/<world>/seed-N.history.html"`
}

// seedRecord is record.Seed under another name, so that embedding it in
// SeedView promotes its field Seed (the seed number) rather than naming the
// embedded record Seed.
type seedRecord = record.Seed

func seedView(s record.Seed) SeedView {
	v := SeedView{seedRecord: s}
	if a := s.Artifacts; a != nil {
		v.HistoryFile, v.TimelineFile = a.History, a.Timeline
	}
	return v
}

// Line is one line of a run's trace: any line in sf_trace_search; in
// sf_replay, a program's output, Text without the instance that is in Node.
type Line struct {
	Index int    `json:"index" jsonschema:"the line's place in the trace, from 1"`
	At    string `json:"at" jsonschema:"virtual time, as the trace shows it (3.112s)"`
	Node  string `json:"node,omitempty" jsonschema:"the first node instance the line names (server#2), if any; for output, the instance that printed it"`
	Text  string `json:"text" jsonschema:"the line after its time; for output, what the program printed"`
	// Truncated says Text was cut at LineBytesMax.
	Truncated bool `json:"truncated,omitempty"`
}

// Event is one thing that happened in a run, other than a program's output:
// a fault, a restart, an exit, a sim.Event, the failure.
type Event struct {
	Index int    `json:"index" jsonschema:"the trace line it is, from 1"`
	Name  string `json:"name" jsonschema:"what happened: a sim.Event's own name, or the engine's word: fault, restart, exited, died, resumes, slow_ended, healed, lifted, budget, fail, swarm, quiet, recovery, ..."`
	Node  string `json:"node,omitempty" jsonschema:"the node instance it happened to or came from (server#2), if any"`
	At    string `json:"at" jsonschema:"virtual time, as the trace shows it (3.112s)"`
	// Details is JSON: a sim.Event's own details (null without any), else
	// {"text": the line}, with "kind" for a fault.
	Details json.RawMessage `json:"details" jsonschema:"as JSON: a sim.Event's details as the program gave them; for the engine's events {\"text\": the line}, with \"kind\" for a fault"`
	Text    string          `json:"text" jsonschema:"the trace line after its time"`
	// Truncated says Text was cut at LineBytesMax.
	Truncated bool `json:"truncated,omitempty"`
}

var (
	// outputRe is a program's line: its instance, a colon, what it printed.
	// The engine's own "client#1: sim.Budget capped ..." is an event.
	outputRe = regexp.MustCompile(`^([A-Za-z0-9_-]+#[0-9]+): `)
	// simEventRe is a sim.Event: "event NAME from INSTANCE[: DETAILS]".
	simEventRe = regexp.MustCompile(`^event (.*?) from ([A-Za-z0-9_-]+#[0-9]+)(?:: (.*))?$`)
	// instanceVerbRe is the engine's word about an instance: "server#1
	// exited 0", "server#1 died with ...", "n1 resumes".
	instanceVerbRe = regexp.MustCompile(`^([A-Za-z0-9_-]+(?:#[0-9]+)?) (exited|died|resumes|is no longer slow)`)
)

// isOutput reports whether a trace line is a program's output.
func isOutput(l Line) bool {
	m := outputRe.FindStringSubmatch(l.Text)
	return m != nil && !strings.HasPrefix(l.Text[len(m[0]):], "sim.")
}

// outputOf is a program's line with its instance in Node and what it
// printed, alone, in Text.
func outputOf(l Line) Line {
	l.Node = outputRe.FindStringSubmatch(l.Text)[1]
	l.Text = l.Text[len(l.Node)+2:]
	return l
}

// eventOf reads an event from a trace line that is not output.
func eventOf(l Line) Event {
	ev := Event{Index: l.Index, At: l.At, Node: l.Node, Text: l.Text, Truncated: l.Truncated}
	text := func(extra map[string]string) json.RawMessage {
		m := map[string]string{"text": l.Text}
		for k, v := range extra {
			m[k] = v
		}
		b, _ := json.Marshal(m) // strings always encode
		return b
	}
	if m := simEventRe.FindStringSubmatch(l.Text); m != nil && !l.Truncated {
		ev.Name, ev.Node, ev.Details = m[1], m[2], json.RawMessage("null")
		if d := m[3]; d != "" {
			ev.Details = json.RawMessage(d)
			if !json.Valid(ev.Details) {
				b, _ := json.Marshal(d)
				ev.Details = b
			}
		}
		return ev
	}
	first, rest, _ := strings.Cut(l.Text, " ")
	switch {
	case first == "fault":
		kind, _, _ := strings.Cut(rest, " ")
		if kind == "clock" { // "fault clock jump n1 by 2s"
			kind = "clock_jump"
		}
		ev.Name, ev.Details = "fault", text(map[string]string{"kind": strings.TrimSuffix(kind, ":")})
	case first == "FAIL":
		ev.Name, ev.Details = "fail", text(nil)
	case instanceVerbRe.MatchString(l.Text):
		m := instanceVerbRe.FindStringSubmatch(l.Text)
		ev.Name = m[2]
		if ev.Name == "is no longer slow" {
			ev.Name = "slow_ended"
		}
		ev.Details = text(nil)
	case outputRe.MatchString(l.Text): // "client#1: sim.Budget capped at ..."
		ev.Name, ev.Details = "budget", text(nil)
	default:
		// "restart server#2", "partition healed", "clog ... lifted",
		// "swarm: ...", "quiet: ...", "recovery: ...", "hit the time
		// horizon": the engine's first word, or the last for a heal.
		ev.Name = strings.TrimSuffix(first, ":")
		if strings.HasSuffix(l.Text, " healed") || strings.HasSuffix(l.Text, " lifted") {
			ev.Name = l.Text[strings.LastIndexByte(l.Text, ' ')+1:]
		}
		ev.Details = text(nil)
	}
	return ev
}
