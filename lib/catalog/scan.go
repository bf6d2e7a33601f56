package catalog

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"maps"
	"strconv"
)

// Import paths of the SDKs whose calls are cataloged.
const (
	SimPath        = "github.com/sf-dst/sf/sim"
	AntithesisPath = "github.com/antithesishq/antithesis-sdk-go/assert"
)

// form describes one cataloged function: what it declares and where its
// message (or site name) is among the arguments.
type form struct {
	kind    string // a Kind constant, or "" for a buggify site
	numeric string // a Numeric constant, or ""
	arg     int    // index of the message or site argument
	prob    int    // index of BuggifyWithProb's probability; 0 for every other function
}

// sdk is a package whose calls are cataloged.
type sdk struct {
	name  string // the package's own name, for Location.Function
	funcs map[string]form
}

// Argument positions: (cond, msg, details...), (msg, details...),
// (left, right, msg, details...), (named, msg, details...),
// (cond, msg, within), (site) and (site, p). The Antithesis SDK's functions
// take the same positions, with one details map in place of details....
var (
	antithesisSDK = &sdk{name: "assert", funcs: map[string]form{
		"Always":                        {kind: KindAlways, arg: 1},
		"AlwaysGreaterThan":             {kind: KindAlways, numeric: NumericGreater, arg: 2},
		"AlwaysGreaterThanOrEqualTo":    {kind: KindAlways, numeric: NumericGreaterOrEqual, arg: 2},
		"AlwaysLessThan":                {kind: KindAlways, numeric: NumericLess, arg: 2},
		"AlwaysLessThanOrEqualTo":       {kind: KindAlways, numeric: NumericLessOrEqual, arg: 2},
		"AlwaysSome":                    {kind: KindAlways, arg: 1},
		"AlwaysOrUnreachable":           {kind: KindAlwaysOrUnreachable, arg: 1},
		"Sometimes":                     {kind: KindSometimes, arg: 1},
		"SometimesGreaterThan":          {kind: KindSometimes, numeric: NumericGreater, arg: 2},
		"SometimesGreaterThanOrEqualTo": {kind: KindSometimes, numeric: NumericGreaterOrEqual, arg: 2},
		"SometimesLessThan":             {kind: KindSometimes, numeric: NumericLess, arg: 2},
		"SometimesLessThanOrEqualTo":    {kind: KindSometimes, numeric: NumericLessOrEqual, arg: 2},
		"SometimesAll":                  {kind: KindSometimes, arg: 1},
		"Reachable":                     {kind: KindReachable, arg: 0},
		"Unreachable":                   {kind: KindUnreachable, arg: 0},
	}}
	simSDK = &sdk{name: "sim", funcs: with(antithesisSDK.funcs, map[string]form{
		"Eventually":      {kind: KindEventually, arg: 1},
		"Buggify":         {arg: 0},
		"BuggifyWithProb": {arg: 0, prob: 1},
	})}
	sdks = map[string]*sdk{SimPath: simSDK, AntithesisPath: antithesisSDK}
)

// with returns a new map with the entries of both.
func with(a, b map[string]form) map[string]form {
	out := make(map[string]form, len(a)+len(b))
	maps.Copy(out, a)
	maps.Copy(out, b)
	return out
}

// finding is one call of a cataloged function, located by absolute path.
type finding struct {
	file     string
	line     int
	function string // "sim.Always"
	form     form
	constant bool // whether message is the call's constant message or site name
	message  string
	prob     float64 // for a site: see Site.Prob
}

// pkgConst is a package-level constant, evaluated on first use.
type pkgConst struct {
	expr  ast.Expr // nil when the declaration has no value for this name
	iota  int
	state int // 0 not evaluated, 1 being evaluated, 2 done
	val   constant.Value
}

// pkgScan scans the files of one package.
type pkgScan struct {
	consts   map[string]*pkgConst
	findings []finding
}

// scanPackage parses the given files, all of one package, and returns the
// calls of cataloged functions in them.
func scanPackage(paths []string) ([]finding, error) {
	fset := token.NewFileSet()
	files := make([]*ast.File, 0, len(paths))
	for _, path := range paths {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err // already "file:line:column: problem"
		}
		files = append(files, f)
	}
	p := &pkgScan{consts: map[string]*pkgConst{}}
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				forEachConst(g, func(name *ast.Ident, expr ast.Expr, iota int) {
					p.consts[name.Name] = &pkgConst{expr: expr, iota: iota}
				})
			}
		}
	}
	for _, f := range files {
		s := &fileScanner{pkg: p, fset: fset, imports: map[string]*sdk{}, iota: -1}
		s.scan(f)
	}
	return p.findings, nil
}

// forEachConst calls fn for each name a const declaration declares, with the
// expression that gives its value after implicit repetition (nil if none)
// and its iota.
func forEachConst(g *ast.GenDecl, fn func(name *ast.Ident, expr ast.Expr, iota int)) {
	var last []ast.Expr
	for i, spec := range g.Specs {
		vs := spec.(*ast.ValueSpec)
		if len(vs.Values) > 0 {
			last = vs.Values
		}
		for j, name := range vs.Names {
			var expr ast.Expr
			if j < len(last) {
				expr = last[j]
			}
			fn(name, expr, i)
		}
	}
}

// constValue returns the value of the package-level constant name, or nil
// when there is none or its value is not known.
func (p *pkgScan) constValue(name string) constant.Value {
	c := p.consts[name]
	if c == nil {
		return nil
	}
	switch c.state {
	case 1: // a cycle, which does not compile
		return nil
	case 2:
		return c.val
	}
	c.state = 1
	c.val = eval(c.expr, func(n string) constant.Value {
		if v := p.constValue(n); v != nil {
			return v
		}
		if n == "iota" && p.consts[n] == nil {
			return constant.MakeInt64(int64(c.iota))
		}
		return nil
	})
	c.state = 2
	return c.val
}

// fileScanner walks one file, keeping track of the names declared in the
// enclosing blocks so that a local name that shadows a package-level
// constant or an import is not mistaken for it.
type fileScanner struct {
	pkg     *pkgScan
	fset    *token.FileSet
	imports map[string]*sdk // by the name the file imports the package as
	dots    []*sdk          // imported with "."
	// scopes are the enclosing blocks, innermost last. A name present in one
	// is declared there; its value is the constant's value, or nil when it
	// is not a constant or its value is not known.
	scopes []map[string]constant.Value
	iota   int // the iota of the constant being declared, or -1
}

func (s *fileScanner) scan(f *ast.File) {
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		k := sdks[path]
		if k == nil {
			continue
		}
		switch {
		case imp.Name == nil:
			s.imports[k.name] = k
		case imp.Name.Name == ".":
			s.dots = append(s.dots, k)
		case imp.Name.Name != "_":
			s.imports[imp.Name.Name] = k
		}
	}
	if len(s.imports) == 0 && len(s.dots) == 0 {
		return
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			s.function(d.Recv, d.Type, d.Body)
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				for _, spec := range d.Specs {
					for _, v := range spec.(*ast.ValueSpec).Values {
						s.expr(v)
					}
				}
			}
		}
	}
}

func (s *fileScanner) push() { s.scopes = append(s.scopes, map[string]constant.Value{}) }
func (s *fileScanner) pop()  { s.scopes = s.scopes[:len(s.scopes)-1] }

func (s *fileScanner) declare(id *ast.Ident, val constant.Value) {
	if id != nil && id.Name != "_" {
		s.scopes[len(s.scopes)-1][id.Name] = val
	}
}

func (s *fileScanner) declareFields(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		for _, name := range f.Names {
			s.declare(name, nil)
		}
	}
}

// local reports whether name is declared in an enclosing block.
func (s *fileScanner) local(name string) bool {
	for i := len(s.scopes) - 1; i >= 0; i-- {
		if _, ok := s.scopes[i][name]; ok {
			return true
		}
	}
	return false
}

// value returns the constant value of name where it is used, or nil.
func (s *fileScanner) value(name string) constant.Value {
	for i := len(s.scopes) - 1; i >= 0; i-- {
		if v, ok := s.scopes[i][name]; ok {
			return v
		}
	}
	if v := s.pkg.constValue(name); v != nil {
		return v
	}
	if name == "iota" && s.iota >= 0 && s.pkg.consts[name] == nil {
		return constant.MakeInt64(int64(s.iota))
	}
	return nil
}

func (s *fileScanner) function(recv *ast.FieldList, typ *ast.FuncType, body *ast.BlockStmt) {
	s.push()
	s.declareFields(typ.TypeParams)
	s.declareFields(recv)
	s.declareFields(typ.Params)
	s.declareFields(typ.Results)
	if body != nil {
		s.stmts(body.List) // the parameters and the body share one block
	}
	s.pop()
}

func (s *fileScanner) stmts(list []ast.Stmt) {
	for _, st := range list {
		s.stmt(st)
	}
}

// stmt walks a statement, declaring names from the point where Go's scope
// rules start them.
func (s *fileScanner) stmt(st ast.Stmt) {
	switch st := st.(type) {
	case nil:
	case *ast.BlockStmt:
		s.push()
		s.stmts(st.List)
		s.pop()
	case *ast.ExprStmt:
		s.expr(st.X)
	case *ast.AssignStmt:
		for _, e := range st.Rhs {
			s.expr(e)
		}
		for _, e := range st.Lhs {
			if st.Tok == token.DEFINE {
				id, _ := e.(*ast.Ident)
				s.declare(id, nil)
			} else {
				s.expr(e)
			}
		}
	case *ast.DeclStmt:
		s.localDecl(st.Decl.(*ast.GenDecl))
	case *ast.IfStmt:
		s.push()
		s.stmt(st.Init)
		s.expr(st.Cond)
		s.stmt(st.Body)
		s.stmt(st.Else)
		s.pop()
	case *ast.ForStmt:
		s.push()
		s.stmt(st.Init)
		s.expr(st.Cond)
		s.stmt(st.Post)
		s.stmt(st.Body)
		s.pop()
	case *ast.RangeStmt:
		s.expr(st.X)
		s.push()
		if st.Tok == token.DEFINE {
			id, _ := st.Key.(*ast.Ident)
			s.declare(id, nil)
			id, _ = st.Value.(*ast.Ident)
			s.declare(id, nil)
		} else {
			s.expr(st.Key)
			s.expr(st.Value)
		}
		s.stmt(st.Body)
		s.pop()
	case *ast.SwitchStmt:
		s.push()
		s.stmt(st.Init)
		s.expr(st.Tag)
		s.clauses(st.Body, nil)
		s.pop()
	case *ast.TypeSwitchStmt:
		s.push()
		s.stmt(st.Init)
		var bound *ast.Ident
		switch a := st.Assign.(type) {
		case *ast.AssignStmt: // x := y.(type)
			bound, _ = a.Lhs[0].(*ast.Ident)
			s.expr(a.Rhs[0])
		case *ast.ExprStmt:
			s.expr(a.X)
		}
		s.clauses(st.Body, bound)
		s.pop()
	case *ast.SelectStmt:
		s.clauses(st.Body, nil)
	case *ast.LabeledStmt:
		s.stmt(st.Stmt)
	case *ast.GoStmt:
		s.expr(st.Call)
	case *ast.DeferStmt:
		s.expr(st.Call)
	case *ast.ReturnStmt:
		for _, e := range st.Results {
			s.expr(e)
		}
	case *ast.IncDecStmt:
		s.expr(st.X)
	case *ast.SendStmt:
		s.expr(st.Chan)
		s.expr(st.Value)
	}
}

// clauses walks the case clauses of a switch or select, each its own block,
// declaring bound (a type switch's variable) in each.
func (s *fileScanner) clauses(body *ast.BlockStmt, bound *ast.Ident) {
	for _, c := range body.List {
		s.push()
		switch c := c.(type) {
		case *ast.CaseClause:
			for _, e := range c.List {
				s.expr(e)
			}
			s.declare(bound, nil)
			s.stmts(c.Body)
		case *ast.CommClause:
			s.stmt(c.Comm)
			s.stmts(c.Body)
		}
		s.pop()
	}
}

// localDecl declares the names of a declaration inside a function. Local
// constants get their values, so that they can name a property too.
func (s *fileScanner) localDecl(g *ast.GenDecl) {
	switch g.Tok {
	case token.CONST:
		forEachConst(g, func(name *ast.Ident, expr ast.Expr, iota int) {
			s.iota = iota
			v := s.eval(expr)
			s.iota = -1
			s.declare(name, v)
		})
	case token.VAR:
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for _, v := range vs.Values {
				s.expr(v)
			}
			for _, name := range vs.Names {
				s.declare(name, nil)
			}
		}
	case token.TYPE:
		for _, spec := range g.Specs {
			s.declare(spec.(*ast.TypeSpec).Name, nil)
		}
	}
}

// expr finds the calls in an expression. A function literal is walked as a
// function, with its own blocks.
func (s *fileScanner) expr(e ast.Expr) {
	if e == nil {
		return
	}
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			s.function(nil, n.Type, n.Body)
			return false
		case *ast.CallExpr:
			s.call(n)
		}
		return true
	})
}

// call records c if it calls a cataloged function.
func (s *fileScanner) call(c *ast.CallExpr) {
	fun := ast.Unparen(c.Fun)
	switch f := fun.(type) { // an explicit instantiation, as in sim.AlwaysLessThan[int]
	case *ast.IndexExpr:
		fun = ast.Unparen(f.X)
	case *ast.IndexListExpr:
		fun = ast.Unparen(f.X)
	}
	var k *sdk
	var name string
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		id, ok := f.X.(*ast.Ident)
		if !ok || s.local(id.Name) {
			return
		}
		k, name = s.imports[id.Name], f.Sel.Name
	case *ast.Ident:
		if s.local(f.Name) {
			return
		}
		name = f.Name
		for _, d := range s.dots {
			if _, ok := d.funcs[name]; ok {
				k = d
				break
			}
		}
	}
	if k == nil {
		return
	}
	fm, ok := k.funcs[name]
	if !ok {
		return
	}
	fd := finding{
		file:     s.fset.Position(c.Pos()).Filename,
		line:     s.fset.Position(c.Pos()).Line,
		function: k.name + "." + name,
		form:     fm,
	}
	if fm.arg < len(c.Args) {
		if v := s.eval(c.Args[fm.arg]); v != nil && v.Kind() == constant.String {
			fd.constant, fd.message = true, constant.StringVal(v)
		}
	}
	if fm.prob > 0 {
		fd.prob = -1
		if fm.prob < len(c.Args) {
			if v := s.eval(c.Args[fm.prob]); v != nil && (v.Kind() == constant.Int || v.Kind() == constant.Float) {
				fd.prob, _ = constant.Float64Val(constant.ToFloat(v))
			}
		}
	}
	s.pkg.findings = append(s.pkg.findings, fd)
}

func (s *fileScanner) eval(e ast.Expr) constant.Value { return eval(e, s.value) }
