package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/cmdspec"
	"github.com/sf-dst/sf/lib/commands"
	"github.com/sf-dst/sf/lib/margin"
)

// ToolNames are the tools sf-mcp serves, sorted as the SDK lists them.
var ToolNames = []string{"sf_check", "sf_faults_edit", "sf_fork", "sf_mutate", "sf_replay", "sf_report", "sf_resume", "sf_run", "sf_shrink", "sf_trace_search"}

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
	add(srv, run, "sf_fork", s.fork)
	add(srv, run, "sf_resume", s.resume)
	add(srv, specs["sf-shrink"], "sf_shrink", s.shrink)
	add(srv, specs["sf-faults"], "sf_faults_edit", s.faultsEdit)
	add(srv, specs["sf-check"], "sf_check", s.check)
	add(srv, specs["sf-mutate"], "sf_mutate", s.mutate)
	add(srv, specs["sf-report"], "sf_report", s.report)
}

// add adds the tool name of the command spec, with handler h, which reads
// its arguments with the command's FromMCP function. Its output schema is
// the one the SDK would infer, but for typeSchemas.
func add[Out any](srv *mcp.Server, spec *cmdspec.Command, name string, h mcp.ToolHandlerFor[json.RawMessage, Out]) {
	t := spec.Tool(name)
	out, err := jsonschema.For[Out](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: the output schema of %s: %v", name, err)) // the types are fixed
	}
	mcp.AddTool(srv, &mcp.Tool{Name: name, Description: t.Description, InputSchema: spec.Schema(name), OutputSchema: out}, h)
}

// typeSchemas are the schemas of the types that encode themselves, which
// the SDK's inference would take for the structs they are: a margin is a
// number, or a string for an infinity or a NaN.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	// Details of an event are any JSON value.
	reflect.TypeFor[json.RawMessage](): {},
	reflect.TypeFor[margin.Value](): {Types: []string{"number", "string"},
		Description: "a comparison's margin: a number, exact for integers; \"+Inf\", \"-Inf\" or \"NaN\" as a string"},
}
