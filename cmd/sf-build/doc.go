// Sf-build compiles the Go packages of a world for GOOS=wasip1 GOARCH=wasm
// into a content-addressed store and prints the manifest.
//
// Usage:
//
//	sf-build [-c FILE] [-q]
//
// Each node's pkg is built with -trimpath into
// .seedfall/build/<sha256>.wasm next to the world file; nodes that name a
// prebuilt wasm module are copied into the store unchanged. The manifest
// (node, package, module path, sha256, size, and whether the module was
// already in the store) is written to .seedfall/build/manifest.json and
// printed on stdout; progress lines go to stderr. sf-run builds what it needs
// by itself, so sf-build is for Makefiles, caches and CI steps.
//
// A package whose inputs did not change is not built again: a key computed
// from the Go version and settings, the build flags and overlays, and the
// package's import graph (go list -deps: module versions from the module
// cache, file contents for everything else, go.mod and go.work files) names
// the module already in the store, recorded under .seedfall/build/key/.
// The import graph itself is kept under .seedfall/build/list/ and listed
// again only when something it depends on changes (a file of one of your
// packages, a go.mod, go.sum or go.work, the go settings); after copying in
// a file that keeps its old size and time, delete that folder.
//
// With compat_overlay, packages are built with shims for mmap, msync and
// flock (package syscall through an overlay of the toolchain's files;
// golang.org/x/sys and bbolt through copies in .seedfall/build/compat/ and
// a generated go.work). A "compat" line per shim on stderr, and the
// manifest's "compat" list, say which shim was chosen for what.
//
// A failed build shows go's output with the node it was building. When go
// finds no module for sf's own packages (github.com/sf-dst/sf/sim,
// simtest), which are not published, a remedy follows in place of go's "go
// get": the commands that tie the module to a checkout of sf (the checkout
// this sf-build was built from), as docs/real-systems.md gives them. A
// name compat_overlay shims that is undefined (syscall.Mmap, unix.Flock)
// gets a line suggesting compat_overlay.
//
// -c - reads the world file from standard input (at most 16 MiB, like a
// file): its relative paths and .seedfall are then those of the current
// directory, and its errors name <stdin>.
//
// Exit status: 0 built, 2 bad usage or input (a broken world file, a
// missing package, a compile error, no Go toolchain).
package main
