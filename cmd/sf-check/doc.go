// Sf-check checks a recorded history of operations: linearizability against a
// model, or serializability of list-append transactions.
//
// Usage:
//
//	sf-check [-model MODEL] [-format FORMAT] [-timeline FILE] [-json] [-timeout DURATION]
//	         [-max-steps N] [-max-bytes N] (FILE | -history FILE)
//
// The history is sf's JSON Lines file (sf-run writes a failing seed's to
// .seedfall/<world>/seed-N.history.jsonl next to the world file), one
// invoke or completion event per line, or a Jepsen history.edn, named by
// -history or as the only argument; flags may come before or after it. -
// reads standard input, as does giving no file when standard input is not a
// terminal; errors then name <stdin>. A history compressed with zstd or gzip
// is read as it is (told by its first bytes, not its name), and the limits
// below count its decompressed bytes.
// -format says which format the history is in; by
// default sf-check tells them apart by their first line. In a Jepsen history
// a completion belongs to its process's open invocation, and the keys of a
// jepsen.independent test come from its [key value] tuples.
//
// Every input is bounded: sf-check refuses a history larger than -max-bytes
// (default 1 GiB) or with a line longer than 64 MiB, with an error that names
// the input, the line and the limit, and stops reading there. So a file
// without newlines, such as /dev/zero, is refused after 64 MiB, not read until
// memory runs out.
//
// A large uncompressed history file is mapped into memory rather than copied
// into it; it must not change while sf-check runs (if it is truncated,
// sf-check stops with an error that names it).
//
// A list-append history in JSON Lines has the JSON of its invocations' and
// ok completions' values checked once, by the checker (which decodes the
// transactions, and compares an ok one's invocation with its result), not
// also by the reader; on any error it is read again the strict way, so its
// errors are the same as ever.
//
// Models (-model, default kv), each key checked on its own:
//
//	kv           put a string, get the string read ("" or null when absent): a register
//	cas          kv plus cas with value [old, new] and output true if it swapped
//	append       append a string, read the whole list: an append-only log
//	queue        enqueue a string, dequeue the item taken ("" when empty): a FIFO queue
//	set          add a string, read the members in any order: a grow-only set
//	counter      add an integer, read the integer: a counter
//	list-append  txn with [f, key, value] micro-ops, f r or append: serializability
//
// Failed operations did not happen. Operations of unknown outcome (info) and
// operations that never returned may take effect at any time after they
// started; unknown reads say nothing and are dropped. For list-append,
// transactions of unknown outcome count as possibly committed: their appends
// are used once someone reads them, and their reads are ignored.
//
// sf-check prints every anomaly with one explained example and then the
// verdict. For list-append the anomalies are G0, G1a, G1b, G1c, G-single,
// G2, internal, incompatible-order, duplicate-elements, duplicate-append and
// garbage-read. On a linearizability violation it writes an interactive
// timeline, one self-contained HTML file, next to the history (h.jsonl gives
// h.html) or to -timeline.
//
// Linearizability checking is NP-complete: after -timeout of real time
// (default 30s) sf-check gives up, says "gave up checking N operations for
// linearizability", and exits 1, because a check that gave up proves nothing.
// -timeout must be more than 0: there is no "no limit", since nothing else
// bounds how long a check may take. A timeout of 0 or below is a usage error.
// A history whose operations all failed or ended unknown fits any model, so
// it gets no verdict either ("nothing to check: none of the N operations of
// the history completed") and exits 1.
//
// -max-steps N gives up after N model steps per key instead, checking one key
// at a time, so the verdict does not depend on how fast or loaded the host
// is; -timeout still bounds the whole check.
//
// A counter key whose adds all add the same amount, a set key, and an append
// key whose values are all different need no search: they are decided in
// time about proportional to their operations, however many ended unknown,
// and never give up. Other counter and append keys are searched.
//
// -json prints one JSON record on standard output instead of text: tool,
// schema, history, format, model, verdict (ok, illegal or unknown), passed,
// class, operations, checked, summary, anomalies (kind, count, example, ops),
// keys, timeline, independent, timeout_ms, elapsed_ms, error and exit_status.
//
// Once the input is read, SIGINT (Ctrl-C) or SIGTERM stops sf-check within
// a fraction of a second, whether it is parsing the history or checking it:
// it prints "sf-check: interrupted: the check was stopped before it
// finished" (with -json, a record whose error says so, without a verdict)
// and exits 130. While it still reads its input, the signal ends it as it
// ends any program.
//
// Exit status: 0 the history passed; 1 it failed, the check gave up, or no
// operation completed; 2 bad
// usage or input (a malformed line, a completion with no invocation, a
// duplicate id, an operation or value the model does not have, unreadable
// EDN, an input over a limit), each reported as file:line and what is wrong;
// 130 interrupted by SIGINT or SIGTERM.
package main
