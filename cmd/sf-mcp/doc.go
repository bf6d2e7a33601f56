// Sf-mcp serves the sf tools to an agent as a Model Context Protocol server
// on standard input and output.
//
// Usage:
//
//	sf-mcp [-dir DIR]
//
// An MCP client starts sf-mcp and talks to it over its stdin and stdout,
// one JSON-RPC message per line; nothing else is written to stdout. Its
// tools match the command line: sf_run (a sweep: failures, property
// margins, buggify sites), sf_replay (one seed: its record, its events with
// details as JSON, and its programs' output apart), sf_trace_search (a
// regular expression over one seed's trace, by node), sf_fork (a seed's
// world written to a snapshot file at a virtual time, as sf-run -snapshot,
// with inspect each node's disk and open descriptors there), sf_resume (a
// snapshot continued, with sf_replay's result, as sf-run -from, with faults
// a schedule for the rest and with branch its streams re-keyed), sf_shrink,
// sf_faults_edit, sf_check, sf_mutate and sf_report. Each has a JSON schema
// for its input and its output, runs the same code as its command and gives
// the same results; an input the command would refuse with exit status 2 is
// a tool error that carries the command's message. docs/agents.md shows how
// to register sf-mcp with a client and what each tool takes and returns.
//
// Paths given to the tools (world files, schedules, records, histories)
// are relative to the working directory, which -dir sets; artifacts go
// under .seedfall/ next to the world file, as with the commands. The tools
// write only inside that folder: a world file, an output path (md, html,
// findings, out, timeline, snapshot) or a schedule edited in place that
// leads out of it, through ".." or a symbolic link, is a tool error. Tool calls run one
// at a time, and each is bounded: at most 10000 seeds per sweep, and lists
// of failures, events and matches cut at a limit the result reports.
//
// A line that is not a JSON-RPC 2.0 message is answered with error -32700
// (not JSON, or longer than 16 MiB) or -32600 (not a valid request), and
// the session goes on. At the end of its input sf-mcp answers the requests
// it has read before it exits.
//
// Exit status: 0 when the client closed the connection, 2 on a usage error
// or when the connection failed.
package main
