package build

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Hints that follow a failed go build of a world's package, for the two
// failures a user meets first with a service of their own: sf's modules are
// not in their go.mod, and a storage library needs compat_overlay.

// RecipeDoc is where the manual gives the recipe that ties a module to a
// checkout of sf, as a build error names it.
const RecipeDoc = `docs/real-systems.md, "3. sf's modules in yours"`

// sfModuleRE finds the import paths of sf's two modules in go's output.
var sfModuleRE = regexp.MustCompile(`github\.com/sf-dst/sf(?:/[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-])?`)

// moduleLookupFailures are the phrases of go's output that say it found no
// module for a package or could not fetch one.
var moduleLookupFailures = []string{
	"no required module provides package",
	"missing go.sum entry for module providing package",
	"cannot find module providing package",
	"module lookup disabled",
	"reading https://",
	"unrecognized import path",
	"replacement directory",
}

// goGetHintRE matches go's own remedy after a lookup failure, "; to add
// it:" (or "; to add:") and the indented go get line that follows, which
// cannot work before sf's modules are published.
var goGetHintRE = regexp.MustCompile(`; to add(?: it)?:\n[ \t]+go get [^\n]*`)

// buildHint takes go's output of a failed build of the package in dir and
// returns it with what to do about it, when sf knows: the recipe, with the
// exact commands, when go could not find sf's modules (go's own "go get"
// remedy, which cannot work for them, is left out), and compat_overlay when
// a name it shims is undefined and the world builds without it. The hint is
// "" otherwise.
func buildHint(text, dir string, compatOn bool) (string, string) {
	if pkgs := missingSFPackages(text); len(pkgs) > 0 {
		return goGetHintRE.ReplaceAllString(text, ""), sfModuleHint(dir, pkgs)
	}
	if !compatOn {
		if names := compatShimmed(text); len(names) > 0 {
			if len(names) > compatNamesMax {
				names = append(names[:compatNamesMax], "...")
			}
			return text, fmt.Sprintf("wasip1 has no mmap or flock, and compat_overlay shims what this build lacks (%s): "+
				"set \"compat_overlay\": true in the world file (docs/compat.md)", strings.Join(names, ", "))
		}
	}
	return text, ""
}

// compatNamesMax is how many undefined names the compat_overlay hint
// repeats; go's output above it has them all.
const compatNamesMax = 3

// missingSFPackages returns the packages of sf's modules that go's output
// names, when it says that it could not find a module for them; nil
// otherwise.
func missingSFPackages(text string) []string {
	failed := false
	for _, p := range moduleLookupFailures {
		failed = failed || strings.Contains(text, p)
	}
	if !failed {
		return nil
	}
	var pkgs []string
	for _, p := range sfModuleRE.FindAllString(text, -1) {
		if !slices.Contains(pkgs, p) {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs
}

// sfModuleHint is the recipe of docs/real-systems.md for the module that
// holds dir, with the commands filled in: a replace of both of sf's modules
// by the checkout sf was built from, sf's checksums, and a go get of the
// packages go did not find.
func sfModuleHint(dir string, pkgs []string) string {
	root, known := sfCheckout()
	if !known {
		root = "$SF"
	}
	mod := moduleRoot(dir)
	var b strings.Builder
	b.WriteString("sf's modules (github.com/sf-dst/sf/sim, the SDK; github.com/sf-dst/sf, simtest) are not published, so go get\n")
	if known {
		fmt.Fprintf(&b, "cannot fetch them; tie your module to this checkout of sf (%s):\n", RecipeDoc)
	} else {
		fmt.Fprintf(&b, "cannot fetch them; tie your module to a checkout of sf, with SF set to its folder (%s):\n", RecipeDoc)
	}
	q := func(p string) string {
		if p == "$SF" || strings.HasPrefix(p, "$SF/") {
			return `"` + p + `"`
		}
		return shellQuote(p)
	}
	fmt.Fprintf(&b, "    cd %s\n", shellQuote(mod))
	fmt.Fprintf(&b, "    go mod edit -replace=github.com/sf-dst/sf=%s -replace=github.com/sf-dst/sf/sim=%s\n",
		q(root), q(joinSlash(root, "sim")))
	fmt.Fprintf(&b, "    cat %s >> go.sum\n", q(joinSlash(root, "go.sum")))
	fmt.Fprintf(&b, "    go get %s", strings.Join(pkgs, " "))
	return b.String()
}

// joinSlash joins like filepath.Join, except for the $SF placeholder, which
// keeps a slash for the shell.
func joinSlash(root, name string) string {
	if root == "$SF" {
		return root + "/" + name
	}
	return filepath.Join(root, name)
}

// moduleRoot returns the folder of the go.mod that holds dir, or dir when
// there is none above it.
func moduleRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for d := abs; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && st.Mode().IsRegular() {
			return d
		}
		if filepath.Dir(d) == d {
			return abs
		}
	}
}

// sfCheckout is checkout, except in a test of the hint without one.
var sfCheckout = checkout

// checkout returns the root of the sf checkout this program was compiled
// from, and whether it is still one: the source path the compiler recorded
// for this file, unless the build trimmed it (-trimpath) or the folder no
// longer holds both of sf's modules. sf-run from `make build` and a user's
// test binary built through the recipe's replace both know it.
func checkout() (string, bool) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", false
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	for dir, module := range map[string]string{root: "github.com/sf-dst/sf", filepath.Join(root, "sim"): "github.com/sf-dst/sf/sim"} {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil || !bytes.HasPrefix(data, []byte("module "+module+"\n")) {
			return "", false
		}
	}
	return root, true
}

// shellQuote quotes p for a POSIX shell when it needs it.
func shellQuote(p string) string {
	if p != "" && strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+=:@,") == "" {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// undefinedRE finds go's "undefined: syscall.Mmap" and "undefined:
// unix.Flock" errors.
var undefinedRE = regexp.MustCompile(`undefined: (syscall|unix)\.([A-Za-z_][A-Za-z0-9_]*)`)

// compatShimmed returns what compat_overlay would supply to a build whose
// output is text, nil for nothing: the names go reports undefined that the
// shims define (syscall.Mmap, unix.Flock), as go spells them, and the
// modules with a shim of their own that fail with something undefined
// (go.etcd.io/bbolt's missing wasm constants).
func compatShimmed(text string) []string {
	var names []string
	add := func(n string) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, m := range undefinedRE.FindAllStringSubmatch(text, -1) {
		if shimmedNames()[m[1]][m[2]] {
			add(m[1] + "." + m[2])
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, "undefined: ") {
			continue
		}
		for _, mod := range slices.Sorted(maps.Keys(moduleShims)) {
			if strings.Contains(line, mod+"@") {
				add(mod)
			}
		}
	}
	return names
}

// shimmedNames returns the exported names that compat_overlay adds, by
// package (syscall, unix), read from the shim files themselves so that the
// hint follows the shims.
var shimmedNames = sync.OnceValue(func() map[string]map[string]bool {
	names := map[string]map[string]bool{}
	for pkg, src := range map[string][]byte{"syscall": compatSyscallFile, "unix": compatUnixFile} {
		names[pkg] = exportedNames(src)
	}
	return names
})

// exportedNames returns the exported top-level names that a Go file
// declares; none when it does not parse.
func exportedNames(src []byte) map[string]bool {
	names := map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return names
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							names[n.Name] = true
						}
					}
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						names[s.Name.Name] = true
					}
				}
			}
		}
	}
	return names
}
