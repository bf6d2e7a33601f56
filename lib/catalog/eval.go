package catalog

import (
	"go/ast"
	"go/constant"
	"go/token"
)

// eval returns the value of a constant expression made of literals, names,
// parentheses, unary and binary + - * /, and conversions to string and the
// float types, or nil when e is anything else. lookup gives the value of a
// name, or nil when the name is not a known constant. The arithmetic follows
// Go's rules for untyped constants, so 1/4 is 0 and 1.0/4 is 0.25.
func eval(e ast.Expr, lookup func(name string) constant.Value) constant.Value {
	switch e := e.(type) {
	case *ast.BasicLit:
		v := constant.MakeFromLiteral(e.Value, e.Kind, 0)
		if v.Kind() == constant.Unknown {
			return nil
		}
		return v
	case *ast.ParenExpr:
		return eval(e.X, lookup)
	case *ast.Ident:
		return lookup(e.Name)
	case *ast.UnaryExpr:
		x := eval(e.X, lookup)
		if !isNumber(x) || (e.Op != token.ADD && e.Op != token.SUB) {
			return nil
		}
		return constant.UnaryOp(e.Op, x, 0)
	case *ast.BinaryExpr:
		x, y := eval(e.X, lookup), eval(e.Y, lookup)
		if x == nil || y == nil {
			return nil
		}
		switch {
		case x.Kind() == constant.String && y.Kind() == constant.String:
			if e.Op != token.ADD {
				return nil
			}
			return constant.BinaryOp(x, token.ADD, y)
		case isNumber(x) && isNumber(y):
			op := e.Op
			switch op {
			case token.ADD, token.SUB, token.MUL:
			case token.QUO:
				if constant.Sign(y) == 0 {
					return nil
				}
				if x.Kind() == constant.Int && y.Kind() == constant.Int {
					op = token.QUO_ASSIGN // integer division, as Go does for untyped integers
				}
			default:
				return nil
			}
			return constant.BinaryOp(x, op, y)
		}
		return nil
	case *ast.CallExpr:
		// A conversion such as float64(1) or string("x"). A local or
		// package-level constant with the type's name would shadow it.
		id, ok := ast.Unparen(e.Fun).(*ast.Ident)
		if !ok || len(e.Args) != 1 || e.Ellipsis.IsValid() || lookup(id.Name) != nil {
			return nil
		}
		x := eval(e.Args[0], lookup)
		switch {
		case x == nil:
			return nil
		case id.Name == "string" && x.Kind() == constant.String:
			return x
		case (id.Name == "float64" || id.Name == "float32") && isReal(x):
			return constant.ToFloat(x)
		}
	}
	return nil
}

func isNumber(v constant.Value) bool {
	return v != nil && (v.Kind() == constant.Int || v.Kind() == constant.Float || v.Kind() == constant.Complex)
}

func isReal(v constant.Value) bool {
	return v != nil && (v.Kind() == constant.Int || v.Kind() == constant.Float)
}
