package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sf-dst/sf/lib/margin"
)

// ToolNames are the tools sf-mcp serves, sorted as the SDK lists them.
var ToolNames = []string{"sf_check", "sf_faults_edit", "sf_mutate", "sf_replay", "sf_report", "sf_run", "sf_shrink", "sf_trace_search"}

func (s *Server) addTools(srv *mcp.Server) {
	addTool(srv, &mcp.Tool{Name: "sf_run",
		Description: "Run a world over seeds on the deterministic simulator (sf-run -seeds). Returns the counts, " +
			"the failing seeds with their class, message, artifacts and replay command, the property table with " +
			"margins, and the buggify sites. exit_status 1 means a seed or a property failed."}, s.run)
	addTool(srv, &mcp.Tool{Name: "sf_replay",
		Description: "Replay one seed (sf-run -seed N [-faults FILE]) and return its record, its events (name, node " +
			"instance, virtual time, details as JSON) and, apart, the lines its programs printed. The same seed and " +
			"binary always give the same run."}, s.replay)
	addTool(srv, &mcp.Tool{Name: "sf_trace_search",
		Description: "Search one seed's trace with a regular expression, optionally only lines naming a node. " +
			"Reads the trace sf-run wrote under .seedfall/ for a failing seed, or replays the seed when there is none " +
			"(or when replay or faults is given)."}, s.traceSearch)
	addTool(srv, &mcp.Tool{Name: "sf_shrink",
		Description: "Cut a failing seed's faults down to those that make it fail (sf-shrink), from a seed or from " +
			"sf-run record files. Returns each shrunk schedule's file, fault counts and replay command."}, s.shrink)
	addTool(srv, &mcp.Tool{Name: "sf_faults_edit",
		Description: "List, edit and check one seed's fault schedule (sf-faults): remove, shift or add faults, " +
			"write the result and return it with the sf-run command that replays it."}, s.faultsEdit)
	addTool(srv, &mcp.Tool{Name: "sf_check",
		Description: "Check a recorded history for linearizability or serializability (sf-check). Returns the " +
			"verdict, the anomalies and the timeline file of a violation."}, s.check)
	addTool(srv, &mcp.Tool{Name: "sf_mutate",
		Description: "Weaken the simulated world or mutate the program's source and see whether the world's checks " +
			"catch it (sf-mutate). Returns one verdict per mutant and the mutation score."}, s.mutate)
	addTool(srv, &mcp.Tool{Name: "sf_report",
		Description: "Report what sweeps found from sf-run and sf-shrink record files (sf-report): findings grouped " +
			"by failure, their status across runs, property and buggify tables; optionally Markdown and HTML files."}, s.report)
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

// addTool is mcp.AddTool with the output schema inferred as the SDK infers
// it, but for typeSchemas.
func addTool[In, Out any](srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	s, err := jsonschema.For[Out](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: the output schema of %s: %v", t.Name, err)) // the types are fixed
	}
	t.OutputSchema = s
	mcp.AddTool(srv, t, h)
}
