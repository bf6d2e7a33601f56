package core

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
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
	key, body, ok := sdkLine(line)
	if !ok {
		return // not a line the SDK writes; ignore it
	}
	switch key {
	case "antithesis_assert":
		a, ok := sdkAssert(body)
		if !ok || !a.Hit {
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
		in.Property(ctx, kind, a.Condition, a.Message, []byte(details), nil)
	case "antithesis_setup":
		in.Run.SetupComplete(in.Name + ", Antithesis SDK")
	case "antithesis_sdk", "antithesis_guidance":
		// The SDK's version line and its numeric guidance need no action.
	default:
		details := strings.TrimSpace(body)
		if details == "" || details == "null" || details == "{}" {
			in.Run.Tracef("event %s from %s", key, in.Name)
		} else {
			in.Run.Tracef("event %s from %s: %s", key, in.Name, details)
		}
	}
}

// Reading the SDK's lines. What a line means is defined by encoding/json's
// reading of it (a JSON object of one key; an assertion's fields matched as
// encoding/json matches them), but decoding every line twice with it was
// nearly 3% of the antithesis world's CPU. So a line the SDK itself would write (valid
// UTF-8, no escapes in keys or strings, fields of the right types) is read
// with gjson, and every other line with encoding/json as before: the two
// agree wherever the first decides (TestSDKLinesReadAsEncodingJSON).

// sdkLine returns the one key of the JSON object line and the key's value,
// or false when line is not an object of exactly one key.
func sdkLine(line string) (key, body string, ok bool) {
	if key, body, ok := sdkLinePlain(line); ok {
		return key, body, true
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &msg) != nil || len(msg) != 1 {
		return "", "", false
	}
	for k, b := range msg {
		key, body = k, string(b)
	}
	return key, body, true
}

// sdkLinePlain is sdkLine for a line of valid UTF-8 whose object has one
// plain key; it reports false for every other line.
func sdkLinePlain(line string) (key, body string, ok bool) {
	if !utf8.ValidString(line) || !json.Valid([]byte(line)) {
		return "", "", false
	}
	v := gjson.Parse(line)
	if !v.IsObject() {
		return "", "", false
	}
	n, plain := 0, true
	v.ForEach(func(k, val gjson.Result) bool {
		n++
		plain = n == 1 && plainKey(k.Raw)
		key, body = k.Str, val.Raw
		return plain
	})
	return key, body, n == 1 && plain
}

// sdkAssert decodes the value of an antithesis_assert line, which sdkLine
// took from a valid line, and reports false where encoding/json fails.
func sdkAssert(body string) (antithesisAssert, bool) {
	if a, ok := sdkAssertPlain(body); ok {
		return a, true
	}
	var a antithesisAssert
	if json.Unmarshal([]byte(body), &a) != nil {
		return antithesisAssert{}, false
	}
	return a, true
}

// antithesisFields are the JSON names of antithesisAssert's fields.
var antithesisFields = [...]string{"assert_type", "display_type", "message", "hit", "must_hit", "condition", "details"}

// sdkAssertPlain decodes body when it is an object whose keys are plain,
// whose fields have the types they are declared with and whose strings
// hold no escapes, and reports false for anything else: a key that
// encoding/json would match to a field only without regard to case, a
// null, a number for a flag.
func sdkAssertPlain(body string) (antithesisAssert, bool) {
	var a antithesisAssert
	if !utf8.ValidString(body) {
		return a, false
	}
	v := gjson.Parse(body)
	if !v.IsObject() {
		return a, false
	}
	plain := true
	v.ForEach(func(k, val gjson.Result) bool {
		if !plainKey(k.Raw) {
			plain = false
			return false
		}
		str := func(f *string) {
			if plain = val.Type == gjson.String && strings.IndexByte(val.Raw, '\\') < 0; plain {
				*f = val.Str
			}
		}
		flag := func(f *bool) {
			if plain = val.Type == gjson.True || val.Type == gjson.False; plain {
				*f = val.Type == gjson.True
			}
		}
		switch k.Str {
		case "assert_type":
			str(&a.AssertType)
		case "display_type":
			str(&a.DisplayType)
		case "message":
			str(&a.Message)
		case "hit":
			flag(&a.Hit)
		case "must_hit":
			flag(&a.MustHit)
		case "condition":
			flag(&a.Condition)
		case "details":
			a.Details = json.RawMessage(val.Raw)
		default:
			for _, f := range antithesisFields {
				if strings.EqualFold(k.Str, f) {
					plain = false
				}
			}
		}
		return plain
	})
	return a, plain
}

// plainKey reports whether the quoted key raw is plain ASCII without
// escapes: a key both decoders read alike.
func plainKey(raw string) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' || raw[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
