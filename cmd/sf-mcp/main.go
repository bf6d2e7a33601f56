package main

import (
	"context"
	_ "embed"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/sf-dst/sf/lib/exitcode"
	"github.com/sf-dst/sf/lib/manual"
	"github.com/sf-dst/sf/lib/mcpserver"
	"github.com/sf-dst/sf/lib/stopsignal"
)

//go:embed doc.go
var docSource string

func main() {
	stopsignal.Install(stopsignal.ExitAtOnce)
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run is sf-mcp on the given arguments (args[0] is its name); the protocol
// itself always runs on the process's own stdin and stdout, which an MCP
// client connects to. It returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return manual.Main(manual.Command{
		Name:  "sf-mcp",
		Usage: "serve the sf tools over the Model Context Protocol on stdio",
		Doc:   docSource,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", DefaultText: "the current one", Usage: "resolve the tools' paths against the folder `DIR`"},
		},
		Action: func(c *cli.Context) error {
			if err := manual.NoArgs(c); err != nil {
				return err
			}
			if d := c.String("dir"); d != "" {
				if err := os.Chdir(d); err != nil {
					return manual.Usage("sf-mcp", "-dir: %v", err)
				}
			}
			root, err := os.Getwd()
			if err != nil {
				return cli.Exit("sf-mcp: "+err.Error(), exitcode.Usage)
			}
			srv := mcpserver.New(mcpserver.Options{RunTool: manual.Sibling(args, "sf-run"), Root: root})
			if err := srv.Run(context.Background(), &mcpserver.Transport{In: os.Stdin, Out: os.Stdout}); err != nil {
				return cli.Exit(err.Error(), exitcode.Usage)
			}
			return nil
		},
	}, args, stdin, stdout, stderr)
}
