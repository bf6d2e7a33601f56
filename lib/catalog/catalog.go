package catalog

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Property kinds, as the sweep's property table prints them.
const (
	KindAlways              = "always"
	KindAlwaysOrUnreachable = "alwaysOrUnreachable"
	KindSometimes           = "sometimes"
	KindReachable           = "reachable"
	KindUnreachable         = "unreachable"
	KindEventually          = "eventually"
)

// Comparisons of the numeric forms, in Property.Numeric.
const (
	NumericGreater        = "gt"
	NumericGreaterOrEqual = "ge"
	NumericLess           = "lt"
	NumericLessOrEqual    = "le"
)

// ListTimeout bounds each `go list` run. It only matters when the go command
// has to download modules over a slow network; a warm run takes well under a
// second.
const ListTimeout = 2 * time.Minute

// ListParallel is how many `go list` runs Scan starts at once.
const ListParallel = 8

// ErrNoToolchain is returned by Scan when it has packages to scan and no go
// command can be found on PATH.
var ErrNoToolchain = errors.New("no Go toolchain found: the property catalog runs `go list` to find a package's files; install Go 1.26 or later and put `go` on PATH")

// Property is one call of a property function with a constant message.
type Property struct {
	// Kind is one of the Kind constants.
	Kind string
	// Message identifies the property.
	Message string
	// File is the path of the file relative to the scanned package's module
	// root, with forward slashes, such as "client/main.go".
	File string
	// Line is the line of the call.
	Line int
	// Numeric is the comparison of the numeric forms ("gt", "ge", "lt",
	// "le"), and "" for every other form.
	Numeric string
}

// Site is one call of Buggify or BuggifyWithProb with a constant site name.
type Site struct {
	// Name identifies the site.
	Name string
	// Prob is p of a BuggifyWithProb whose p is a constant, 0 for Buggify
	// (which fires with the default probability, 0.25), and -1 for a
	// BuggifyWithProb whose p is known only at run time.
	Prob float64
	// File and Line locate the call, as in Property.
	File string
	Line int
}

// Location is a call that could not be cataloged because its message or
// site name is not a constant string.
type Location struct {
	// File and Line locate the call, as in Property.
	File string
	Line int
	// Function is the function called, qualified by its package's own name
	// whatever the file imports it as: "sim.Always", "assert.Sometimes".
	Function string
}

// String returns "file:line".
func (l Location) String() string { return l.File + ":" + strconv.Itoa(l.Line) }

// Catalog is what Scan found. Each list is sorted by file, then line, and
// holds each entry once.
type Catalog struct {
	Properties  []Property
	Sites       []Site
	Uncataloged []Location
}

// Locations returns where the property (kind, msg) is written, as sorted
// "file:line" strings such as "client/main.go:41", or nil when it is not in
// the catalog.
func (c *Catalog) Locations(kind, msg string) []string {
	var out []string
	for _, p := range c.Properties {
		if p.Kind == kind && p.Message == msg {
			out = append(out, p.File+":"+strconv.Itoa(p.Line))
		}
	}
	return out
}

// SiteLocations returns where the buggify site name is written, as sorted
// "file:line" strings, or nil when it is not in the catalog.
func (c *Catalog) SiteLocations(name string) []string {
	var out []string
	for _, s := range c.Sites {
		if s.Name == name {
			out = append(out, s.File+":"+strconv.Itoa(s.Line))
		}
	}
	return out
}

// Scan catalogs the packages in pkgDirs and every package of their modules
// that they import, as the package documentation describes. Directories may
// repeat, and may belong to different modules. It needs the go command on
// PATH (ErrNoToolchain otherwise) and fails when `go list` fails, when a file
// cannot be read or does not parse. An empty pkgDirs gives an empty catalog.
func Scan(pkgDirs []string) (*Catalog, error) { return scanDirs(pkgDirs, "") }

// ScanFrom is Scan with every file path made relative to base (such as the
// world file's directory) instead of to its module's root.
func ScanFrom(base string, pkgDirs []string) (*Catalog, error) { return scanDirs(pkgDirs, base) }

func scanDirs(pkgDirs []string, base string) (*Catalog, error) {
	return scanListed(pkgDirs, base, nil)
}

// ListFields are the fields of `go list -json` that ScanListed needs from a
// listing it is given.
const ListFields = "ImportPath,Dir,GoFiles,Standard,DepOnly,Module"

// ScanListed is ScanFrom for a caller that has already run `go list -deps
// -json` in some of the package directories, as sf-run's build does for its
// content key: listed maps an absolute package directory to that command's
// output, run with GOOS=wasip1 GOARCH=wasm and no overlay, holding at least
// the ListFields. The catalog then runs go list only in the directories that
// listed does not cover, so that one start does not list the same package
// twice.
func ScanListed(base string, pkgDirs []string, listed map[string][]byte) (*Catalog, error) {
	return scanListed(pkgDirs, base, listed)
}

func scanListed(pkgDirs []string, base string, listed map[string][]byte) (*Catalog, error) {
	dirs, err := distinctDirs(pkgDirs)
	if err != nil {
		return nil, err
	}
	cat := &Catalog{}
	if len(dirs) == 0 {
		return cat, nil
	}
	lists := make([]listing, len(dirs))
	var todo []int
	for i, dir := range dirs {
		if out, ok := listed[dir]; ok {
			lists[i] = parseListing(dir, out)
		} else {
			todo = append(todo, i)
		}
	}
	if len(todo) > 0 {
		goCmd, err := exec.LookPath("go")
		if err != nil {
			return nil, ErrNoToolchain
		}
		var wg sync.WaitGroup
		sem := make(chan struct{}, ListParallel)
		for _, i := range todo {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				lists[i] = goList(goCmd, dirs[i])
			})
		}
		wg.Wait()
	}

	scanned := map[string][]finding{} // by package directory, so a package shared by nodes is parsed once
	props := map[Property]bool{}
	sites := map[Site]bool{}
	uncat := map[Location]bool{}
	for _, l := range lists {
		if l.err != nil {
			return nil, l.err
		}
		for _, pkg := range l.pkgs {
			found, ok := scanned[pkg.Dir]
			if !ok {
				paths := make([]string, 0, len(pkg.GoFiles))
				for _, name := range pkg.GoFiles {
					if !strings.HasSuffix(name, "_test.go") {
						paths = append(paths, filepath.Join(pkg.Dir, name))
					}
				}
				if found, err = scanPackage(paths); err != nil {
					return nil, err
				}
				scanned[pkg.Dir] = found
			}
			for _, f := range found {
				root := l.moduleDir
				if base != "" {
					root = base
				}
				file := locationPath(root, f.file)
				switch {
				case !f.constant:
					uncat[Location{File: file, Line: f.line, Function: f.function}] = true
				case f.form.kind == "":
					sites[Site{Name: f.message, Prob: f.prob, File: file, Line: f.line}] = true
				default:
					props[Property{Kind: f.form.kind, Message: f.message, File: file, Line: f.line, Numeric: f.form.numeric}] = true
				}
			}
		}
	}

	cat.Properties = sortedKeys(props, func(a, b Property) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Message, b.Message), cmp.Compare(a.Numeric, b.Numeric))
	})
	cat.Sites = sortedKeys(sites, func(a, b Site) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Prob, b.Prob))
	})
	cat.Uncataloged = sortedKeys(uncat, func(a, b Location) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Function, b.Function))
	})
	return cat, nil
}

func sortedKeys[T comparable](set map[T]bool, compare func(a, b T) int) []T {
	if len(set) == 0 {
		return nil
	}
	out := make([]T, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.SortFunc(out, compare)
	return out
}

// distinctDirs makes every directory absolute and drops repeats, keeping the
// first occurrence's order.
func distinctDirs(pkgDirs []string) ([]string, error) {
	seen := map[string]bool{}
	var dirs []string
	for _, d := range pkgDirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("package directory %s: %w", d, err)
		}
		if !seen[abs] {
			seen[abs] = true
			dirs = append(dirs, abs)
		}
	}
	return dirs, nil
}

// locationPath is how a property's location names file: relative to root
// with forward slashes, also when it lies outside root
// ("../kvlog/client/main.go" for a world that runs another example's
// client), or file itself when it has no relative form. It is a key that
// reports and pins compare, so unlike textfmt.RelPath, which shows a path
// for people, it keeps the same form for every file.
func locationPath(root, file string) string {
	if r, err := filepath.Rel(root, file); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(file)
}

// listedPackage is the part of `go list -json` that Scan reads.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Standard   bool
	DepOnly    bool
	Module     *struct {
		Path string
		Main bool
		Dir  string
	}
}

// listing is the outcome of one `go list`: the packages to scan and the
// module root that their locations are relative to.
type listing struct {
	moduleDir string
	pkgs      []listedPackage
	err       error
}

// goList lists the package in dir with its dependencies, as the wasip1
// build sees them.
func goList(goCmd, dir string) listing {
	ctx, cancel := context.WithTimeout(context.Background(), ListTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goCmd, "list", "-deps", "-json="+ListFields, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return listing{err: fmt.Errorf("go list in %s: did not finish within %v", dir, ListTimeout)}
		}
		text := strings.TrimRight(stderr.String(), "\n")
		if text == "" {
			return listing{err: fmt.Errorf("go list in %s: %w", dir, err)}
		}
		return listing{err: fmt.Errorf("go list in %s: %w:\n%s", dir, err, indent(text))}
	}
	return parseListing(dir, stdout.Bytes())
}

// parseListing reads the output of `go list -deps -json` run in dir and
// keeps the packages of the listed package's own module. In a workspace
// every workspace module is a main module, and they are kept too.
func parseListing(dir string, out []byte) listing {
	var all []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			return listing{err: fmt.Errorf("go list in %s: reading its output: %w", dir, err)}
		}
		all = append(all, p)
	}
	var root *listedPackage
	for i := range all {
		if !all[i].DepOnly {
			root = &all[i]
		}
	}
	if root == nil {
		return listing{err: fmt.Errorf("go list in %s: listed no package", dir)}
	}
	if root.Module == nil {
		return listing{err: fmt.Errorf("go list in %s: package %s is not in a module", dir, root.ImportPath)}
	}
	l := listing{moduleDir: root.Module.Dir}
	for _, p := range all {
		if p.Standard || p.Module == nil {
			continue
		}
		if p.Module.Main || p.Module.Path == root.Module.Path {
			l.pkgs = append(l.pkgs, p)
		}
	}
	return l
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }
