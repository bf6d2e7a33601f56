// Package config loads and validates world files, the seedfall.json files that describe a cluster of Go
// programs to simulate and the faults to inject.
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
// Paths are relative to the file that holds them. Durations are Go duration strings, and ranges are arrays
// of two of them. [World], [Node], [Link], [Liveness], [Preempt], [Checker] and [Faults] document each
// field and its default, but for the fields of the fault kinds (crash_per_sec, udp_loss...), which
// lib/faults declares with their kinds and the loader reads from there; docs/world.md is the user's
// manual.
//
// # Layers
//
// A world is built in layers: the file named by "extends" (recursively), the file, the profile chosen
// with [LoadOptions].Profile, then each [LoadOptions].Set override (path=value). Objects merge field by
// field and everything else replaces. "faults" may start from a preset, a built-in fault level such as
// "faults": "resilient"; [PresetNames] lists them.
//
// # Validation
//
// Validation is strict, because a setting that is silently dropped makes a run look as if it tested
// something it did not. An unknown field is an error that suggests the nearest known name. Every error
// starts with the file name (the base file for a value written there, or the -set argument) and names the
// JSON path of the offending value, or the line and column of malformed JSON:
//
//	seedfall.json: nodes[1].pgk: unknown field (did you mean "pkg"?)
//	base.json: faults.udp_loss: must be between 0 and 1, got 1.5
//	-set faults.crash_per_sek=1: unknown field (did you mean "crash_per_sec"?)
//	seedfall.json:3:17: invalid character '}' looking for beginning of object key string
//
// [ParseSeeds] parses the seed lists that tools take with -seeds, such as "1-100" or "1-5,9,20-22".
package config
