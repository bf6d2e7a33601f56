package catalog

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestScanScopes checks, one snippet at a time, which name a message refers
// to. Each snippet is the body of a function in a file that imports sim and
// declares the package-level constant c = "pkg".
func TestScanScopes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string // "kind message", "site message prob", or "uncataloged function"
	}{
		{"package constant", `sim.Reachable(c)`, []string{"reachable pkg"}},
		{"parameter shadows it", `func(c string) { sim.Reachable(c) }("x")`, []string{"uncataloged sim.Reachable"}},
		{"if init shadows it", `if c := "x"[:1]; c != "" { sim.Reachable(c) }; sim.Reachable(c)`,
			[]string{"uncataloged sim.Reachable", "reachable pkg"}},
		{"declared after its use", `sim.Reachable(c); c := 1; _ = c`, []string{"reachable pkg"}},
		{"right side of its own declaration", `c := c + "!"; sim.Reachable(c)`, []string{"uncataloged sim.Reachable"}},
		{"range variable", `for _, c := range []string{"a"} { sim.Reachable(c) }; sim.Reachable(c)`,
			[]string{"uncataloged sim.Reachable", "reachable pkg"}},
		{"type switch variable", `var x any; switch c := x.(type) { case string: sim.Reachable(c) }`,
			[]string{"uncataloged sim.Reachable"}},
		{"select clause", `ch := make(chan string); select { case c := <-ch: sim.Reachable(c); default: sim.Reachable(c) }`,
			[]string{"uncataloged sim.Reachable", "reachable pkg"}},
		{"local constant", `const d, e = c + "-d", "e"; sim.Reachable(d); sim.Reachable(e)`,
			[]string{"reachable pkg-d", "reachable e"}},
		{"local constant group with iota", `const ( a = 0.5 * iota; b ); sim.BuggifyWithProb("s", b)`,
			[]string{"site s 0.5"}},
		{"local type named sim", `type sim struct{}; _ = sim{}`, nil},
		{"closure in a deferred call", `defer func() { sim.Sometimes(true, "deferred") }()`, []string{"sometimes deferred"}},
		{"goroutine", `go sim.Reachable("go")`, []string{"reachable go"}},
		{"label and loop", `L: for i := 0; i < 1; i++ { sim.Reachable(c + "loop"); continue L }`, []string{"reachable pkgloop"}},
		{"string conversion", `sim.Reachable(string("conv"))`, []string{"reachable conv"}},
		{"rune conversion is not a string constant", `sim.Reachable(string(rune(65)))`, []string{"uncataloged sim.Reachable"}},
		{"missing message", `sim.Reachable()`, []string{"uncataloged sim.Reachable"}},
		{"function value", `f := sim.Reachable; f("value")`, nil},
		{"other sim function", `sim.Budget(3)`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "a.go")
			writeFile(t, path, "package p\n\nimport \"github.com/sf-dst/sf/sim\"\n\nconst c = \"pkg\"\n\nfunc f() {\n"+tc.body+"\n}\n")
			found, err := scanPackage([]string{path})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range found {
				switch {
				case !f.constant:
					got = append(got, "uncataloged "+f.function)
				case f.form.kind == "":
					got = append(got, "site "+f.message+" "+constant.MakeFloat64(f.prob).String())
				default:
					got = append(got, f.form.kind+" "+f.message)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// Package-level constants may be declared in another file, after their use,
// and in terms of each other.
func TestScanPackageConstants(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")
	writeFile(t, a, "package p\n\nimport \"github.com/sf-dst/sf/sim\"\n\nfunc f() { sim.Reachable(z); sim.Reachable(loop) }\n")
	writeFile(t, b, "package p\n\nconst z = y + \"z\"\nconst y = \"y\"\nconst loop = loop + \"x\"\n")
	found, err := scanPackage([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 || !found[0].constant || found[0].message != "yz" || found[1].constant {
		t.Errorf("found %+v, want yz and an uncataloged call", found)
	}
}

func TestEval(t *testing.T) {
	consts := map[string]constant.Value{"s": constant.MakeString("s"), "n": constant.MakeInt64(3)}
	lookup := func(name string) constant.Value { return consts[name] }
	for _, tc := range []struct {
		expr, want string // want is the value's Go syntax, or "" for not a constant
	}{
		{`"a" + "b"`, `"ab"`},
		{"`raw` + s", `"raws"`},
		{`("a") + (s + "b")`, `"asb"`},
		{`"a" - "b"`, ""},
		{`"a" + 1`, ""},
		{`1/4`, "0"},
		{`1.0/4`, "0.25"},
		{`n*0.5`, "1.5"},
		{`-n + 1`, "-2"},
		{`1/0`, ""},
		{`float64(1)/3`, "0.333333"},
		{`float32(n)`, "3"},
		{`int(1.5)`, ""},
		{`!true`, ""},
		{`x`, ""},
		{`f("a")`, ""},
		{`pkg.Const`, ""},
		{`"a"[0:1]`, ""},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			e, err := parser.ParseExpr(tc.expr)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if v := eval(e, lookup); v != nil {
				got = v.String()
			}
			if got != tc.want {
				t.Errorf("eval(%s) = %s, want %s", tc.expr, got, tc.want)
			}
		})
	}
}

// TestFormsMatchSDK reads the SDKs' source and checks that every cataloged
// function exists with its message (or site) where the table says, and that
// every other function that takes a message is one that is deliberately left
// out, so a property function added to the SDK cannot go unnoticed.
func TestFormsMatchSDK(t *testing.T) {
	for _, tc := range []struct {
		name, dir, msgParam string
		k                   *sdk
		notProperties       []string
	}{
		{"sim", filepath.Join("..", "..", "sim"), "msg", simSDK, []string{"Assert", "Fail"}},
		{"antithesis", filepath.Join("testdata", "fake-antithesis", "assert"), "message", antithesisSDK, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := sdkParams(t, tc.dir)
			for name, fm := range tc.k.funcs {
				ps, ok := params[name]
				switch {
				case !ok:
					t.Errorf("%s.%s: not in %s", tc.k.name, name, tc.dir)
				case fm.kind == "" && (len(ps) <= fm.arg || ps[fm.arg] != "site"):
					t.Errorf("%s.%s(%s): site is not argument %d", tc.k.name, name, strings.Join(ps, ", "), fm.arg)
				case fm.kind != "" && (len(ps) <= fm.arg || ps[fm.arg] != tc.msgParam):
					t.Errorf("%s.%s(%s): %s is not argument %d", tc.k.name, name, strings.Join(ps, ", "), tc.msgParam, fm.arg)
				case fm.prob > 0 && (len(ps) <= fm.prob || ps[fm.prob] != "p"):
					t.Errorf("%s.%s(%s): p is not argument %d", tc.k.name, name, strings.Join(ps, ", "), fm.prob)
				}
			}
			for name, ps := range params {
				if _, ok := tc.k.funcs[name]; ok || slices.Contains(tc.notProperties, name) {
					continue
				}
				if slices.Contains(ps, tc.msgParam) || slices.Contains(ps, "site") {
					t.Errorf("%s.%s(%s) takes a message but is not cataloged", tc.k.name, name, strings.Join(ps, ", "))
				}
			}
		})
	}
}

// sdkParams returns the parameter names of every exported function in the
// non-test files of dir.
func sdkParams(t *testing.T, dir string) map[string][]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	out := map[string][]string{}
	fset := token.NewFileSet()
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !fd.Name.IsExported() {
				continue
			}
			var names []string
			for _, field := range fd.Type.Params.List {
				for _, n := range field.Names {
					names = append(names, n.Name)
				}
			}
			out[fd.Name.Name] = names
		}
	}
	return out
}
