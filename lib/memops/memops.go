// Package memops clears memory that the cache is not expected to hold: a
// reused guest memory's pages at a node start, the image's zero pages a
// guest wrote, a file's holes read into a mapping. Go's clear stores through
// the cache below 32 MiB, so that every line it writes is first read from
// memory; on amd64 ClearCold uses non-temporal stores instead, which skip
// that read (SSE2, which every amd64 processor has). Elsewhere it is clear.
package memops

// ClearColdMin is the shortest length ClearCold stores around the cache;
// below it Go's clear was as fast or faster, the memory being as often in
// the cache (BenchmarkClearCold).
const ClearColdMin = 64 << 10
