// Package mcpserver is sf-mcp: the sf tools as tools of a Model Context
// Protocol server, so that an agent can run a world, replay and search a
// seed, shrink, edit a schedule, check a history, mutate and report through
// typed JSON instead of parsing what the command line prints.
//
// Each tool calls the lib/ code its command calls (lib/sweep for sf_run,
// sf_replay and sf_trace_search, lib/shrink, lib/faultsedit, lib/check,
// lib/mutate, lib/report), in its JSON mode where the command has one, and
// decodes the records it writes. So a tool's result is the command's
// result, and when the command would exit with status 2 the tool returns
// a tool error whose text is the command's own message ("sf-run:
// nope.json: no such file or directory"). Exit status 1 (a seed failed, a
// mutant survived) is a result, not an error: it is in exit_status.
//
// Tool calls run one at a time: a sweep already uses every core it is
// given, and the tools resolve paths against the server's one working
// directory and write artifacts under .seedfall/ as the commands do.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/sweep"
)

// Bounds of what one call returns. Lists cut at a bound say so in the
// result (an *_omitted count or a truncated flag). The bounds of what a
// call may ask for are its fields', declared with them in lib/commands
// (SeedsMax, FailuresMax, EventsMax, MatchesMax, ShrinkMax, MutantsMax).
const (
	// LineBytesMax bounds one trace line as returned; a longer line is cut
	// and marked truncated.
	LineBytesMax = 4096
	// ResultBytesMax bounds the text of a list of events or lines in one
	// result: past it, the rest are counted as omitted.
	ResultBytesMax = 1 << 20
	// TextBytesMax bounds sf_report's text report in a result.
	TextBytesMax = 64 << 10
	// errorBytesMax bounds a tool error's text.
	errorBytesMax = 8 << 10
	// traceFileBytesMax bounds a trace file sf_trace_search reads,
	// decompressed.
	traceFileBytesMax = 256 << 20
)

// Options configure the server.
type Options struct {
	// RunTool is how repro lines call sf-run, "bin/sf-run" when sf-mcp was
	// started as bin/sf-mcp; sf_mutate's lines call the sf-mutate next to
	// it. Defaults to "sf-run".
	RunTool string
	// Root is the folder the tools may write in (sf-mcp's -dir, else its
	// working directory): see confine.go. Defaults to "", no bound.
	Root string
}

// Server holds the tools' shared state.
type Server struct {
	opts Options
	mu   sync.Mutex // one tool call at a time
}

// New returns the MCP server with every sf tool added.
func New(o Options) *mcp.Server {
	if o.RunTool == "" {
		o.RunTool = "sf-run"
	}
	s := &Server{opts: o}
	srv := mcp.NewServer(&mcp.Implementation{Name: "sf-mcp", Title: "sf deterministic simulation testing", Version: sweep.Version},
		&mcp.ServerOptions{Instructions: instructions})
	s.addTools(srv)
	return srv
}

const instructions = "sf runs Go services compiled to wasm on a deterministic simulator. " +
	"Paths (world files, schedules, records, histories) are relative to the server's working directory. " +
	"Start with sf_run on a world file (seedfall.json); replay or search a failing seed with sf_replay or sf_trace_search; " +
	"cut it down with sf_shrink; edit its schedule with sf_faults_edit and replay it with sf_replay's faults."

// tool runs f as one call of the named tool: alone, with an interrupt that
// the call's cancellation sets.
func (s *Server) tool(ctx context.Context, f func(interrupt *atomic.Bool) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	interrupt := new(atomic.Bool)
	stop := context.AfterFunc(ctx, func() { interrupt.Store(true) })
	defer stop()
	return f(interrupt)
}

// commandError turns a command's exit status and standard error into the
// tool error for statuses other than 0 and 1: the lines the command wrote
// under its own name ("sf-run: ..."), which are its error messages, else
// the end of what it wrote.
func commandError(name string, code int, stderr string) error {
	if code == exitcode.Interrupted {
		return fmt.Errorf("%s: interrupted: the call was cancelled before it finished", name)
	}
	var msgs []string
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, name+": ") && !strings.HasPrefix(l, name+": note: ") {
			msgs = append(msgs, l)
		}
	}
	if len(msgs) == 0 {
		for _, l := range lines[max(0, len(lines)-20):] {
			if strings.TrimSpace(l) != "" {
				msgs = append(msgs, l)
			}
		}
	}
	text := strings.Join(msgs, "\n")
	if text == "" {
		text = fmt.Sprintf("%s: exit status %d", name, code)
	}
	return errors.New(cut(text, errorBytesMax))
}

// inputError is a call's own mistake in its arguments, named by the field.
func inputError(tool, field, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %s", tool, field, fmt.Sprintf(format, args...))
}

// cut shortens s to at most n bytes, at a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !isRuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
