package mcpserver

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sf-dst/sf/lib/cmdspec"
)

// inside says whether p, resolved against the server's working directory
// with its symbolic links followed as far as it exists, lies within root
// (the -dir folder). Tools write only there: an output path given in a
// call (md, html, findings, out, timeline) and the world file, next to
// which the artifacts go. An empty root confines nothing.
func inside(root, p string) bool {
	if root == "" {
		return true
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return false
	}
	real := resolveExisting(abs)
	rootReal := resolveExisting(root)
	rel, err := filepath.Rel(rootReal, real)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolveExisting follows the symbolic links of the longest part of p that
// exists, and appends the rest as it is.
func resolveExisting(p string) string {
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// outside is the error of a path that leads out of root, to say after
// the field's name, or nil. what says why the path matters ("it would be
// written there").
func (s *Server) outside(p, what string) error {
	if p == "" || inside(s.opts.Root, p) {
		return nil
	}
	return fmt.Errorf("%s is outside the server's folder %s (-dir), and %s", cut(p, 200), s.opts.Root, what)
}

// confine is outside as a tool's error about its field.
func (s *Server) confine(tool, field, p, what string) error {
	if err := s.outside(p, what); err != nil {
		return inputError(tool, field, "%v", err)
	}
	return nil
}

// paths is what the server checks of each path a call gives
// (cmdspec.PathCheck): a world file, next to which the artifacts go, and a
// file to write lie inside its folder.
func (s *Server) paths(o *cmdspec.Option, p string) error {
	switch o.Path {
	case cmdspec.World:
		return s.outside(p, "its artifacts would be written next to it")
	case cmdspec.Output:
		return s.outside(p, "it would be written there")
	}
	return nil
}

// worldConfiner is what sf_shrink checks the worlds that records name
// with, when they are read.
func (s *Server) worldConfiner(tool string) func(config string) error {
	return func(config string) error {
		if err := s.confine(tool, "records", config, "its artifacts would be written next to it"); err != nil {
			return fmt.Errorf("a record's world: %w", err)
		}
		return nil
	}
}
