package mcpserver

// sf_trace_search, and reading traces and record streams.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/commands"
	"github.com/sf-dst/sf/lib/compressed"
	"github.com/sf-dst/sf/lib/config"
	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/sweep"
	"github.com/sf-dst/sf/lib/textfmt"
)

const (
	exitPass    = exitcode.Pass
	exitProblem = exitcode.Problem
)

// TraceSearchOut is sf_trace_search's result.
type TraceSearchOut struct {
	Source         string `json:"source" jsonschema:"the trace file read (.seedfall/<world>/seed-N.trace.log), or replay when the seed was replayed"`
	Lines          int    `json:"lines" jsonschema:"trace lines searched"`
	Matches        []Line `json:"matches"`
	MatchesTotal   int    `json:"matches_total" jsonschema:"lines that matched, returned or not"`
	MatchesOmitted int    `json:"matches_omitted" jsonschema:"matches past max_matches or the result's size bound, left out"`
}

func (s *Server) traceSearch(ctx context.Context, _ *mcp.CallToolRequest, in json.RawMessage) (*mcp.CallToolResult, TraceSearchOut, error) {
	var out TraceSearchOut
	r, err := commands.RunFromMCP("sf_trace_search", in, s.paths)
	if err != nil {
		return nil, out, err
	}
	re, maxMatches := r.Pattern, r.MaxMatches
	var nodeRe *regexp.Regexp
	if r.Node != "" {
		// A node's name matches each of its instances (server, server#2);
		// an instance only itself. Names hold letters, digits, - _ and .
		suffix := `(#[0-9]+)?`
		if strings.Contains(r.Node, "#") {
			suffix = ""
		}
		nodeRe = regexp.MustCompile(`(^|[^\w.#-])` + regexp.QuoteMeta(r.Node) + suffix + `($|[^\w.#-])`)
	}

	trace, source, err := s.traceOf(ctx, r)
	if err != nil {
		return nil, out, err
	}
	out.Source, out.Lines, out.Matches = source, len(trace), []Line{}
	size := 0
	for i, l := range trace {
		ev := parseLine(i+1, l)
		if nodeRe != nil && !nodeRe.MatchString(ev.Text) {
			continue
		}
		if !re.MatchString(ev.Text) {
			continue
		}
		out.MatchesTotal++
		size += len(ev.Text)
		if len(out.Matches) >= maxMatches || size > ResultBytesMax {
			out.MatchesOmitted++
			continue
		}
		out.Matches = append(out.Matches, ev)
	}
	return nil, out, nil
}

// traceOf is the seed's trace: the file sf-run wrote for it, unless a
// replay is asked for (replay, or a schedule to replay), or there is none.
func (s *Server) traceOf(ctx context.Context, r *commands.Run) ([]string, string, error) {
	if !r.ReplayTrace && r.Faults == "" {
		w, err := config.LoadWith(r.Config, config.LoadOptions{Profile: r.Profile, Set: r.Set})
		if err != nil {
			return nil, "", fmt.Errorf("sf-run: %v", err)
		}
		base := filepath.Join(sweep.ArtifactDir(w), fmt.Sprintf("seed-%d.trace.log", r.Seeds[0]))
		for _, p := range []string{base, base + ".zst"} {
			lines, err := readTraceFile(p)
			switch {
			case err == nil:
				return lines, textfmt.Display(p), nil
			case !errors.Is(err, fs.ErrNotExist):
				return nil, "", fmt.Errorf("sf_trace_search: %s: %w", p, err)
			}
		}
	}
	_, res, _, err := s.replayRun(ctx, r.Options)
	if err != nil {
		return nil, "", err
	}
	return res.Trace, "replay", nil
}

// readTraceFile reads the trace lines of a seed-N.trace.log: the lines
// after "trace:" up to the blank line that ends them.
func readTraceFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := compressed.Open(f)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(record.Capped(r, traceFileBytesMax))
	sc.Buffer(make([]byte, 64<<10), traceFileBytesMax)
	var lines []string
	in := false
	for sc.Scan() {
		l := sc.Text()
		switch {
		case !in:
			in = l == "trace:"
		case l == "":
			return lines, nil
		default:
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !in {
		return nil, errors.New("no trace in it (no line \"trace:\")")
	}
	return lines, nil
}

// instanceRe finds a node instance (server#2) in a trace line.
var instanceRe = regexp.MustCompile(`[A-Za-z0-9_.-]+#[0-9]+`)

// parseLine splits a trace line ("    3.112s  fault crash server#1, ...")
// into its time and text, and names the first instance in it.
func parseLine(index int, line string) Line {
	ev := Line{Index: index}
	rest := strings.TrimLeft(line, " ")
	if at, text, ok := strings.Cut(rest, "  "); ok && strings.HasSuffix(at, "s") {
		ev.At, ev.Text = at, text
	} else {
		ev.Text = rest
	}
	ev.Node = instanceRe.FindString(ev.Text)
	if len(ev.Text) > LineBytesMax {
		ev.Text, ev.Truncated = cut(ev.Text, LineBytesMax), true
	}
	return ev
}

// readRecords decodes the JSONL records a command wrote.
func readRecords(name string, data []byte) ([]*record.Any, error) {
	rd := record.NewReader(bytes.NewReader(data), "<"+name+" records>")
	var recs []*record.Any
	for {
		r, err := rd.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: reading its records: %w", name, err)
		}
		recs = append(recs, r)
	}
}
