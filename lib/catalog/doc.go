// Package catalog finds, before a sweep, the properties and buggify sites
// written in a world's Go source, so that one no seed reaches can still be
// reported with its location.
//
// [Scan] takes the directories of the node, workload and finally packages. For
// each it runs `go list -deps` with GOOS=wasip1 GOARCH=wasm, so build tags
// select the files that actually run in the simulator, and parses the files
// of every package that belongs to the scanned package's own module (or, in a
// workspace, to any workspace module). [ScanListed] does the same from
// listings its caller already has, as sf-run's build does. The standard library and third-party
// modules are not scanned: their properties are still counted once they run,
// but a world is not failed for code its author did not write.
//
// A call is cataloged when it calls one of these functions, through whatever
// name the file imports the package as (the default name, an alias or a dot
// import), and its message is a constant string:
//
//	github.com/sf-dst/sf/sim
//	    Always, AlwaysGreaterThan, AlwaysGreaterThanOrEqualTo, AlwaysLessThan,
//	    AlwaysLessThanOrEqualTo, AlwaysSome                              always
//	    AlwaysOrUnreachable                                              alwaysOrUnreachable
//	    Sometimes, SometimesGreaterThan, SometimesGreaterThanOrEqualTo,
//	    SometimesLessThan, SometimesLessThanOrEqualTo, SometimesAll      sometimes
//	    Reachable                                                        reachable
//	    Unreachable                                                      unreachable
//	    Eventually                                                       eventually
//	    Buggify, BuggifyWithProb                                         a buggify site
//	github.com/antithesishq/antithesis-sdk-go/assert
//	    the same property functions, without Eventually
//
// Assert and Fail are not properties and are not cataloged. A constant string
// is a string literal, a sum of constant strings, or the name of a constant
// declared in the same package, at package level or in an enclosing block, with
// implicit repetition and iota resolved as Go does. Anything else, such as a
// variable or fmt.Sprintf, makes the call uncataloged: it is listed in
// [Catalog.Uncataloged] with its location, and the sweep still tracks it once it
// runs.
//
// Locations are paths relative to the module root of the scanned package, with
// forward slashes, and lines of the call. Every list is sorted by file, then
// line, so a catalog is the same whatever the order of the directories given.
// A property is identified by its kind and message: the same pair at two
// places is listed once per place, and [Catalog.Locations] gives them all.
package catalog
