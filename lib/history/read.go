package history

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"unicode/utf8"

	"github.com/sf-dst/sf/lib/history/jsontext"
)

// Format is the format of a history file.
type Format string

// The history formats.
const (
	FormatAuto  Format = "auto"  // decide from the content, see DetectFormat
	FormatJSONL Format = "jsonl" // sf's JSON Lines, one event per line
	FormatEDN   Format = "edn"   // a Jepsen history.edn
)

// ParseFormat checks a format name: auto, jsonl or edn ("" means auto).
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "", FormatAuto:
		return FormatAuto, nil
	case FormatJSONL, FormatEDN:
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown history format %q: want auto, jsonl or edn", s)
}

// DetectFormat tells JSON Lines from EDN by the first form: a JSON object
// starts with {" while an EDN map starts with {: and a Jepsen history may also
// be one vector or list of maps, or start with a comment. Empty input is JSON
// Lines.
func DetectFormat(data []byte) Format {
	i := skipBlank(data, 0)
	if i >= len(data) {
		return FormatJSONL
	}
	switch data[i] {
	case '{':
		j := skipBlank(data, i+1)
		if j < len(data) && (data[j] == '"' || data[j] == '}') {
			return FormatJSONL
		}
		return FormatEDN
	case '[', '(', ';', '#':
		return FormatEDN
	}
	return FormatJSONL
}

func skipBlank(data []byte, i int) int {
	// A UTF-8 byte order mark is white space here.
	if i == 0 && bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		i = 3
	}
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r', ',':
			i++
		default:
			return i
		}
	}
	return i
}

// ReadOptions says how to read a history.
type ReadOptions struct {
	// File names the input in error messages ("h.jsonl:3: ..."). Defaults to
	// none ("line 3: ...").
	File string
	// Format is the input's format. Defaults to FormatAuto.
	Format Format
	// InputBytesMax bounds the input's size in bytes when reading it.
	// Defaults to InputBytesMax.
	InputBytesMax int64
	// LineBytesMax bounds the size of one line in bytes when reading the
	// input. Defaults to LineBytesMax.
	LineBytesMax int64
	// Interrupt, when set, stops Parse once it becomes true: Parse looks at
	// it every few thousand events and then returns ErrInterrupted.
	Interrupt *atomic.Bool
	// DeferValueCheck, for JSON Lines read by Parse (ParseEvents ignores
	// it and validates every value), skips validating the value of an
	// invocation or of an ok completion on a line written as AppendEvent
	// writes it: the value is taken to be everything up to the line's
	// ,"time":N,"id":N} tail, and its JSON is not checked. Those values
	// become the operations' Value and Output, which may then be any text,
	// valid JSON or not. A caller that sets this must make sure, with a
	// decoder or validator that rejects all invalid JSON, that every
	// operation's Value and every ok operation's Output is valid, and on
	// any error, its own or Parse's, read the history again without it:
	// only that reading's errors are the history's (a line with a broken
	// value can make Parse fail on a later line, or pair events
	// differently). The values of info and fail completions, which no
	// operation keeps, and lines that differ from AppendEvent's form, are
	// validated as always. check.ParseAndCheck is such a caller.
	DeferValueCheck bool
}

// ErrInterrupted is Parse's error when ReadOptions.Interrupt stopped it.
var ErrInterrupted = errors.New("interrupted: reading the history was stopped before it finished")

// interruptEvery is how many events Parse reads between two looks at
// ReadOptions.Interrupt: a few milliseconds of reading.
const interruptEvery = 4096

// ReadHistory reads a history in either format and pairs its events into
// operations, in the order they were invoked. Errors are *Error values that
// name the line and what is wrong with it.
func ReadHistory(r io.Reader) ([]HistoryOp, error) {
	return Read(r, ReadOptions{})
}

// Read is ReadHistory with options. It reads within the limits of opts (see
// ReadAll).
func Read(r io.Reader, opts ReadOptions) ([]HistoryOp, error) {
	data, err := ReadAll(r, opts)
	if err != nil {
		return nil, err
	}
	return Parse(data, opts)
}

// ReadFile reads the history file at path, within InputBytesMax and
// LineBytesMax; "-" reads standard input.
func ReadFile(path string, format Format) ([]HistoryOp, error) {
	if path == "-" {
		return Read(os.Stdin, ReadOptions{File: "<stdin>", Format: format})
	}
	opts := ReadOptions{File: path, Format: format}
	data, err := ReadFileBytes(path, opts)
	if err != nil {
		return nil, err
	}
	return Parse(data, opts)
}

// Parse is Read on a history already in memory. The operations' Value and
// Output alias data, which must not change afterwards.
func Parse(data []byte, opts ReadOptions) ([]HistoryOp, error) {
	format := opts.Format
	if format == "" || format == FormatAuto {
		format = DetectFormat(data)
	}
	p := pairer{file: opts.File}
	// Most lines are events, half of them invocations.
	p.ops = make([]HistoryOp, 0, bytes.Count(data, []byte{'\n'})/2+1)
	add := p.add
	if stop := opts.Interrupt; stop != nil {
		n := 0
		add = func(e *Event) error {
			if n++; n%interruptEvery == 0 && stop.Load() {
				return ErrInterrupted
			}
			return p.add(e)
		}
	}
	switch format {
	case FormatJSONL:
		if err := readJSONL(data, opts.File, opts.DeferValueCheck, add); err != nil {
			return nil, err
		}
	case FormatEDN:
		if err := readEDN(data, opts.File, newProcessPairer(&p, add).add); err != nil {
			return nil, err
		}
	default:
		return nil, &Error{File: opts.File, Msg: fmt.Sprintf("unknown history format %q", format)}
	}
	return p.ops, nil
}

// ParseEvents parses a history into its events without pairing them. For EDN
// the events carry the ids that pairing by process gives them.
func ParseEvents(data []byte, opts ReadOptions) ([]Event, error) {
	format := opts.Format
	if format == "" || format == FormatAuto {
		format = DetectFormat(data)
	}
	var events []Event
	collect := func(e *Event) error {
		events = append(events, *e)
		return nil
	}
	var err error
	switch format {
	case FormatJSONL:
		// Events keep every value as it is, and no caller here checks
		// them afterwards: DeferValueCheck is for Parse only.
		err = readJSONL(data, opts.File, false, collect)
	case FormatEDN:
		pp := &processPairer{open: map[int64]openInvoke{}, next: collect}
		pp.file = opts.File
		err = readEDN(data, opts.File, pp.add)
	default:
		err = &Error{File: opts.File, Msg: fmt.Sprintf("unknown history format %q", format)}
	}
	return events, err
}

// readJSONL calls emit with each event of a JSON Lines history; deferOK is
// ReadOptions.DeferValueCheck.
func readJSONL(data []byte, file string, deferOK bool, emit func(*Event) error) error {
	var (
		s      jsontext.Scanner
		ev     Event
		intern = map[string]string{}
		memo   = new(jsontext.ArrayMemo) // data does not change while we read it
		line   = 0
	)
	for len(data) > 0 {
		line++
		n := bytes.IndexByte(data, '\n')
		var text []byte
		if n < 0 {
			text, data = data, nil
		} else {
			text, data = data[:n], data[n+1:]
		}
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		if blank(text) {
			continue
		}
		// ev keeps the line before's event, whose names fastEvent reuses.
		if fastEvent(text, &ev, intern, memo, deferOK) {
			ev.Line = line
			if err := valueUTF8(&ev); err != nil {
				return &Error{File: file, Line: line, Msg: err.Error(), Err: err}
			}
			if err := emit(&ev); err != nil {
				return err
			}
			continue
		}
		ev = Event{Line: line}
		s.Reset(text)
		if err := parseEvent(&s, &ev, intern); err != nil {
			return &Error{File: file, Line: line, Msg: err.Error(), Err: err}
		}
		if err := valueUTF8(&ev); err != nil {
			return &Error{File: file, Line: line, Msg: err.Error(), Err: err}
		}
		if err := emit(&ev); err != nil {
			return err
		}
	}
	return nil
}

// blank reports whether a line holds only JSON white space. Nearly every
// line starts with '{', which settles it at once.
func blank(text []byte) bool {
	for _, c := range text {
		if c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return false
		}
	}
	return true
}

const (
	seenType = 1 << iota
	seenProcess
	seenF
	seenTime
	seenID
	seenAll = seenType | seenProcess | seenF | seenTime | seenID
)

func internBytes(m map[string]string, b []byte) string {
	if s, ok := m[string(b)]; ok {
		return s
	}
	s := validString(string(b))
	if len(m) < 1<<16 {
		m[s] = s
	}
	return s
}

// fieldError is a problem with one field of an event line.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string {
	return fmt.Sprintf("malformed event: %q: %v", e.field, e.err)
}

func (e *fieldError) Unwrap() error { return e.err }

func parseEvent(s *jsontext.Scanner, ev *Event, intern map[string]string) error {
	if err := s.Expect('{'); err != nil {
		return fmt.Errorf("malformed event: %w", err)
	}
	seen := 0
	if !s.Next('}') {
		for {
			name, err := s.String()
			if err != nil {
				return fmt.Errorf("malformed event: %w", err)
			}
			field := string(name) // the switch below does not allocate
			if err := s.Expect(':'); err != nil {
				return fmt.Errorf("malformed event: %w", err)
			}
			switch field {
			case "type":
				b, err := s.String()
				if err != nil {
					return &fieldError{"type", err}
				}
				switch string(b) {
				case "invoke":
					ev.Type = Invoke
				case "ok":
					ev.Type = OK
				case "info":
					ev.Type = Info
				case "fail":
					ev.Type = Fail
				default:
					return fmt.Errorf("event type %q is not one of invoke, ok, info, fail", b)
				}
				seen |= seenType
			case "process":
				if ev.Process, err = s.Int(); err != nil {
					return &fieldError{"process", err}
				}
				seen |= seenProcess
			case "f":
				b, err := s.String()
				if err != nil {
					return &fieldError{"f", err}
				}
				ev.F = internBytes(intern, b)
				seen |= seenF
			case "key":
				if s.Null() {
					ev.Key = ""
					break
				}
				b, err := s.String()
				if err != nil {
					return &fieldError{"key", err}
				}
				ev.Key = internBytes(intern, b)
			case "value":
				if ev.Value, err = s.Skip(); err != nil {
					return &fieldError{"value", err}
				}
			case "time":
				if ev.Time, err = s.Int(); err != nil {
					return &fieldError{"time", err}
				}
				seen |= seenTime
			case "id":
				if ev.ID, err = s.Int(); err != nil {
					return &fieldError{"id", err}
				}
				seen |= seenID
			case "index":
				if ev.Index, err = s.Int(); err != nil {
					return &fieldError{"index", err}
				}
			default:
				if _, err := s.Skip(); err != nil {
					return fmt.Errorf("malformed event: %w", err)
				}
			}
			if s.Next('}') {
				break
			}
			if !s.Next(',') {
				s.SkipSpace()
				return fmt.Errorf("malformed event: %w", &jsontext.SyntaxError{Offset: s.Pos, Msg: "expected ',' or '}' after a field"})
			}
		}
	}
	if !s.AtEnd() {
		return fmt.Errorf("malformed event: %w", &jsontext.SyntaxError{Offset: s.Pos, Msg: "text after the event's closing '}'"})
	}
	if seen != seenAll {
		for _, f := range []struct {
			bit  int
			name string
		}{{seenType, "type"}, {seenProcess, "process"}, {seenF, "f"}, {seenTime, "time"}, {seenID, "id"}} {
			if seen&f.bit == 0 {
				return fmt.Errorf("event has no %q field", f.name)
			}
		}
	}
	return nil
}

// valueUTF8 refuses an event whose value is not UTF-8. Names are mended
// (validString), but a value is compared with others byte for byte: two
// values that differ only in bytes that are no text would be told apart by
// one checker and merged by another (or by a JSON decoder that mends them).
func valueUTF8(ev *Event) error {
	if utf8.Valid(ev.Value) {
		return nil
	}
	at := 0
	for at < len(ev.Value) {
		r, size := utf8.DecodeRune(ev.Value[at:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		at += size
	}
	return &fieldError{"value", fmt.Errorf("byte %d is not UTF-8 (a history is UTF-8 text)", at)}
}

// validString replaces each byte of s that is not part of valid UTF-8 with
// U+FFFD, as the writer does, so names survive a round trip.
func validString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}
