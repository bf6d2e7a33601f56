package mcpserver

import (
	"fmt"
	"path/filepath"
	"strings"
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

// confine is the tool error for a path that leads out of root, or nil.
// what says why the path matters ("is written", "has its artifacts
// written next to it").
func (s *Server) confine(tool, field, p, what string) error {
	if p == "" || inside(s.opts.Root, p) {
		return nil
	}
	return inputError(tool, field, "%s is outside the server's folder %s (-dir), and %s", cut(p, 200), s.opts.Root, what)
}

// confineWorld is confine for a world file.
func (s *Server) confineWorld(tool, field, config string) error {
	return s.confine(tool, field, config, "its artifacts would be written next to it")
}

// confineOut is confine for a file a tool writes.
func (s *Server) confineOut(tool, field, p string) error {
	return s.confine(tool, field, p, "it would be written there")
}

// worldConfiner is what sf_shrink checks the worlds that records name
// with, when they are read.
func (s *Server) worldConfiner(tool string) func(config string) error {
	return func(config string) error {
		if err := s.confineWorld(tool, "records", config); err != nil {
			return fmt.Errorf("a record's world: %w", err)
		}
		return nil
	}
}
