// Package config loads and validates world files, the seedfall.json files that describe a cluster of Go
// programs to simulate.
//
// A world file is a JSON object:
//
//	{
//	  "nodes": [
//	    { "name": "n1", "pkg": "./node", "args": ["-id", "n1"] },
//	    { "name": "n2", "pkg": "./node", "args": ["-id", "n2"], "env": { "DEBUG": "1" } }
//	  ],
//	  "workload": { "name": "client", "pkg": "./client" },
//	  "duration": "60s",
//	  "latency": ["1ms", "5ms"],
//	  "watchdog": "30s",
//	  "supervise": true,
//	  "faults": { "crash_per_sec": 0.5, "restart_after": ["10ms", "500ms"] }
//	}
//
// Paths are relative to the file's directory. Durations are Go duration strings, and ranges are arrays of
// two of them. [World], [Node] and [Faults] document each field and its default.
//
// Validation is strict, because a setting that is silently dropped makes a run look as if it tested
// something it did not. An unknown field is an error that suggests the nearest known name; a field that
// the reference spec defines but this version does not implement yet, such as faults.partition_per_sec or
// the "faults": "resilient" preset shorthand, is an error that says so. Every error starts with the file
// name and names the JSON path of the offending value, or the line and column of malformed JSON:
//
//	seedfall.json: nodes[1].pgk: unknown field (did you mean "pkg"?)
//	seedfall.json: faults.partition_per_sec: not supported yet by this version of sf
//	seedfall.json:3:17: invalid character '}' looking for beginning of object key string
//
// [ParseSeeds] parses the seed lists that tools take with -seeds, such as "1-100" or "1-5,9,20-22".
package config
