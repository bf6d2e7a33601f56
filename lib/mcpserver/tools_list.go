package mcpserver

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/cmdspec"
	"github.com/sf-dst/sf/lib/commands"
)

// ToolNames are the tools sf-mcp serves, sorted as the SDK lists them.
var ToolNames = []string{"sf_check", "sf_faults_edit", "sf_mutate", "sf_replay", "sf_report", "sf_run", "sf_shrink", "sf_trace_search"}

// addTools adds each tool with its description and input schema as its
// command declares them (lib/commands).
func (s *Server) addTools(srv *mcp.Server) {
	specs := map[string]*cmdspec.Command{}
	for _, sp := range commands.Specs() {
		specs[sp.Name], _ = sp.New()
	}
	run := specs["sf-run"]
	add(srv, run, "sf_run", s.run)
	add(srv, run, "sf_replay", s.replay)
	add(srv, run, "sf_trace_search", s.traceSearch)
	add(srv, specs["sf-shrink"], "sf_shrink", s.shrink)
	add(srv, specs["sf-faults"], "sf_faults_edit", s.faultsEdit)
	add(srv, specs["sf-check"], "sf_check", s.check)
	add(srv, specs["sf-mutate"], "sf_mutate", s.mutate)
	add(srv, specs["sf-report"], "sf_report", s.report)
}

// add adds the tool name of the command spec, with handler h, which reads
// its arguments with the command's FromMCP function.
func add[Out any](srv *mcp.Server, spec *cmdspec.Command, name string, h mcp.ToolHandlerFor[json.RawMessage, Out]) {
	t := spec.Tool(name)
	mcp.AddTool(srv, &mcp.Tool{Name: name, Description: t.Description, InputSchema: spec.Schema(name)}, h)
}
