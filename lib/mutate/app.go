package mutate

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sf-dst/sf/lib/build"
	"github.com/sf-dst/sf/lib/engine"
	"github.com/sf-dst/sf/lib/record"
	"github.com/sf-dst/sf/lib/rng"
	"github.com/sf-dst/sf/lib/runner"
)

// The kinds of source mutant.
const (
	FlipComparison  = "flip_comparison"
	SkipErrorReturn = "skip_error_return"
	SkipSync        = "skip_sync"
)

// Site is one place a source mutant can change: the bytes [From, To) of
// File become New.
type Site struct {
	Node     string // the node whose package holds the file
	Pkg      string // the package's directory
	File     string // absolute path
	Line     int
	Kind     string
	From, To int
	New      string
	// Change shows the edit for people: "a < b -> a >= b".
	Change string
}

var flips = map[token.Token]token.Token{
	token.LSS: token.GEQ, token.GEQ: token.LSS,
	token.GTR: token.LEQ, token.LEQ: token.GTR,
	token.EQL: token.NEQ, token.NEQ: token.EQL,
}

// Sites lists every source mutant of the Go files (tests left out) in the
// package directory pkg, in file and offset order.
func Sites(node, pkg string) ([]Site, error) {
	entries, err := os.ReadDir(pkg)
	if err != nil {
		return nil, err
	}
	var out []Site
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		path := filepath.Join(pkg, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return nil, err
		}
		text := func(n ast.Node) string {
			return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
		}
		add := func(pos token.Pos, s Site) {
			p := fset.Position(pos)
			s.Node, s.Pkg, s.File, s.Line = node, pkg, path, p.Line
			out = append(out, s)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if to, ok := flips[n.Op]; ok {
					off := fset.Position(n.OpPos).Offset
					change := fmt.Sprintf("%s -> %s %s %s", oneLine(text(n)), oneLine(text(n.X)), to, oneLine(text(n.Y)))
					add(n.OpPos, Site{Kind: FlipComparison, From: off, To: off + len(n.Op.String()), New: to.String(), Change: change})
				}
			case *ast.IfStmt:
				c, ok := n.Cond.(*ast.BinaryExpr)
				if !ok || c.Op != token.NEQ || !isNil(c.Y) || len(n.Body.List) == 0 {
					return true
				}
				if _, ok := n.Body.List[len(n.Body.List)-1].(*ast.ReturnStmt); !ok {
					return true
				}
				off := fset.Position(c.Pos()).Offset
				add(c.Pos(), Site{Kind: SkipErrorReturn, From: off, To: off, New: "false && ",
					Change: fmt.Sprintf("if %s -> if false && %s", oneLine(text(c)), oneLine(text(c)))})
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Sync" || len(n.Args) != 0 {
					return true
				}
				from, to := fset.Position(n.Pos()).Offset, fset.Position(n.End()).Offset
				// The receiver is still evaluated, so the mutant does not
				// leave a variable unused.
				repl := fmt.Sprintf("func(any) error { return nil }(%s)", text(sel.X))
				add(n.Pos(), Site{Kind: SkipSync, From: from, To: to, New: repl,
					Change: fmt.Sprintf("%s -> nil, without syncing", oneLine(text(n)))})
			}
			return true
		})
	}
	return out, nil
}

func isNil(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "nil"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Pick chooses count of the sites with the stream of seed, and returns
// them in file and line order. The same sites, seed and count give the
// same choice.
func Pick(sites []Site, seed uint64, count int) []Site {
	idx := make([]int, len(sites))
	for i := range idx {
		idx[i] = i
	}
	s := rng.New(seed, "mutant", rng.Key("app"))
	count = min(count, len(idx))
	for i := range count {
		j := i + s.Intn(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	chosen := idx[:count]
	sort.Ints(chosen)
	out := make([]Site, count)
	for i, k := range chosen {
		out[i] = sites[k]
	}
	return out
}

// appMutants lists, picks, builds and runs the source mutants.
func (c *Command) appMutants(p *runner.Prepared, emit func(Verdict)) error {
	w := p.World
	var sites []Site
	nodesOf := map[string]int{}
	for _, n := range w.Nodes {
		if n.Pkg == "" {
			continue
		}
		nodesOf[n.Pkg]++
		s, err := Sites(n.Name, n.Pkg)
		if err != nil {
			return fmt.Errorf("node %s: listing source mutants: %w", n.Name, err)
		}
		sites = append(sites, s...)
	}
	sort.SliceStable(sites, func(i, j int) bool {
		if sites[i].File != sites[j].File {
			return sites[i].File < sites[j].File
		}
		return sites[i].From < sites[j].From
	})
	if len(sites) == 0 {
		fmt.Fprintln(c.Stderr, "no source mutants: the node packages have no comparison, error return or Sync call to change")
		return nil
	}
	tmp, err := os.MkdirTemp("", "sf-mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for i, s := range Pick(sites, c.Seeds[0], c.AppMutants) {
		rel, err := filepath.Rel(w.Dir, s.File)
		if err != nil {
			rel = s.File
		}
		v := Verdict{Mutant: record.Mutant{Kind: record.KindMutant, Name: s.Kind, Source: "app", File: filepath.ToSlash(rel),
			Line: s.Line, Change: s.Change, Node: s.Node}, SharedPkg: nodesOf[s.Pkg] > 1}
		src, err := os.ReadFile(s.File)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		b.Write(src[:s.From])
		b.WriteString(s.New)
		b.Write(src[s.To:])
		dir := filepath.Join(tmp, fmt.Sprint(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		mutated := filepath.Join(dir, filepath.Base(s.File))
		if err := os.WriteFile(mutated, b.Bytes(), 0o644); err != nil {
			return err
		}
		wasm, err := build.Package(w, s.Pkg, map[string]string{s.File: mutated}, dir)
		if err != nil {
			v.Verdict, v.Reason = record.VerdictDidNotBuild, firstCompileError(err.Error())
			emit(v)
			continue
		}
		spec := *p.Spec
		spec.Nodes = append([]engine.NodeSpec(nil), p.Spec.Nodes...)
		for k := range spec.Nodes {
			if spec.Nodes[k].Name == s.Node {
				spec.Nodes[k].Wasm = wasm
			}
		}
		out, err := c.sweep(p, &spec, "")
		if err != nil {
			return fmt.Errorf("source mutant %s:%d: %w", v.File, v.Line, err)
		}
		v.SeedsPassed = out.passed
		out.noteGaveUp(&v.Mutant)
		if out.failed != nil {
			v.Verdict, v.KilledBySeed, v.Reason = record.VerdictKilled, out.failed.Seed, out.failed.Message
		} else {
			v.Verdict = record.VerdictSurvived
		}
		emit(v)
	}
	return nil
}

// firstCompileError is the first line of go build's output that names a
// file, or the error's first line.
func firstCompileError(text string) string {
	lines := strings.Split(text, "\n")
	for _, l := range lines {
		if l = strings.TrimSpace(l); strings.Contains(l, ".go:") {
			return l
		}
	}
	return strings.TrimSpace(lines[0])
}
