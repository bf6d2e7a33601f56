package core

import (
	"context"
	"encoding/json"
	"strings"
)

// The Antithesis Go SDK, outside Antithesis, writes one JSON object per line
// to the file named by ANTITHESIS_SDK_LOCAL_OUTPUT. The engine points that
// variable at a file of its own on each node's disk and reads what the SDK
// writes there, so code written for Antithesis runs unchanged: its
// assertions count as properties, lifecycle.SetupComplete is
// sim.SetupComplete, lifecycle.SendEvent is sim.Event, and random reads
// crypto/rand, which is the node's seeded stream anyway.
const (
	AntithesisEnv  = "ANTITHESIS_SDK_LOCAL_OUTPUT"
	AntithesisPath = ".seedfall-antithesis.jsonl"
)

type antithesisAssert struct {
	AssertType  string          `json:"assert_type"`
	DisplayType string          `json:"display_type"`
	Message     string          `json:"message"`
	Hit         bool            `json:"hit"`
	MustHit     bool            `json:"must_hit"`
	Condition   bool            `json:"condition"`
	Details     json.RawMessage `json:"details"`
}

// antithesisOutput takes bytes the SDK wrote and handles each whole line.
func (in *Instance) AntithesisOutput(ctx context.Context, p []byte) {
	in.sdkBuf = append(in.sdkBuf, p...)
	for {
		i := indexByte(in.sdkBuf, '\n')
		if i < 0 {
			return
		}
		line := string(in.sdkBuf[:i])
		in.sdkBuf = in.sdkBuf[i+1:]
		in.antithesisLine(ctx, line)
	}
}

func (in *Instance) antithesisLine(ctx context.Context, line string) {
	var msg map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &msg) != nil || len(msg) != 1 {
		return // not a line the SDK writes; ignore it
	}
	for key, body := range msg {
		switch key {
		case "antithesis_assert":
			var a antithesisAssert
			if json.Unmarshal(body, &a) != nil || !a.Hit {
				return // a catalog entry, not an evaluation
			}
			var kind uint32
			switch {
			case a.AssertType == "always" && a.MustHit:
				kind = 1
			case a.AssertType == "always":
				kind = 2
			case a.AssertType == "sometimes":
				kind = 3
			case a.AssertType == "reachability" && a.MustHit:
				kind = 4
			case a.AssertType == "reachability":
				kind = 5
			default:
				return
			}
			details := ""
			if len(a.Details) > 0 && string(a.Details) != "null" && string(a.Details) != "{}" {
				details = string(a.Details)
			}
			in.Property(ctx, kind, a.Condition, a.Message, details, nil)
		case "antithesis_setup":
			in.Run.SetupComplete(in.Name + ", Antithesis SDK")
		case "antithesis_sdk", "antithesis_guidance":
			// The SDK's version line and its numeric guidance need no action.
		default:
			details := strings.TrimSpace(string(body))
			if details == "" || details == "null" || details == "{}" {
				in.Run.Tracef("event %s from %s", key, in.Name)
			} else {
				in.Run.Tracef("event %s from %s: %s", key, in.Name, details)
			}
		}
	}
}
