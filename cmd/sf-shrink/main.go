package main

import (
	_ "embed"
	"io"
	"os"

	"github.com/sf-dst/sf/lib/commands"
	"github.com/sf-dst/sf/lib/stopsignal"
)

//go:embed doc.go
var docSource string

func main() {
	stopsignal.Install(stopsignal.StopWork)
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is sf-shrink on the given arguments (args[0] is its name) and streams;
// it returns the exit status. Tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return commands.ShrinkMain(docSource, args, commands.Streams{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}
