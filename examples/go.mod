module github.com/sf-dst/sf/examples

go 1.26.0

require (
	github.com/sf-dst/sf v0.0.0
	github.com/sf-dst/sf/sim v0.0.0
)

require github.com/antithesishq/antithesis-sdk-go v0.9.0

require (
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/schollz/progressbar/v3 v3.19.1 // indirect
	github.com/tetratelabs/wazero v1.12.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/term v0.48.0 // indirect
)

replace github.com/sf-dst/sf/sim => ../sim

// The examples' go tests use simtest, in the root module.
replace github.com/sf-dst/sf => ../
