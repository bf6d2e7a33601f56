package cmdspec

import "strconv"

// Sample is a value that a flag and a field can both give, written each
// way: CLI the flag's values (each given with the flag; the arguments for
// an Args option), MCP the field's value.
type Sample struct {
	CLI []string
	MCP any
}

// SamplesOf are values of o's type to give o both ways, good and bad,
// leaving out those that the surfaces refuse apart on purpose: a field at
// its type's zero (left out, as an omitted field), "-" for an option that
// reads standard input, a blank required path, a number above MCPMax.
func SamplesOf(o *Option) []Sample {
	one := func(cli string, mcp any) Sample { return Sample{[]string{cli}, mcp} }
	var out []Sample
	switch v := o.Value.(type) {
	case *stringValue:
		for _, s := range []string{"x", "a b", " ", "-", "."} {
			if (s == "-" && o.Stdin) || (s == " " && o.Required != "" && o.Path != NotPath) {
				continue
			}
			out = append(out, one(s, s))
		}
		if o.Nullable {
			out = append(out, one("", ""))
		}
	case *boolValue:
		out = append(out, Sample{nil, true})
	case *intValue:
		for _, n := range []int{-1, 1, 7, o.MCPMax} {
			if n != 0 {
				out = append(out, one(strconv.Itoa(n), n))
			}
		}
	case *int64Value:
		for _, n := range []int64{-1, 1, 7} {
			out = append(out, one(strconv.FormatInt(n, 10), n))
		}
	case *durationValue:
		for _, s := range []string{"x", "0s", "-1s", "1m30s"} {
			out = append(out, one(s, s))
		}
	case *seedValue:
		out = append(out, one("1", 1), one("42", 42))
		if o.Required != "" || o.Nullable {
			out = append(out, one("0", 0))
		}
	case *stringsValue:
		switch v.items {
		case itemNumbers:
			out = append(out, Sample{[]string{"1"}, []int{1}}, Sample{[]string{"2", "3"}, []int{2, 3}}, Sample{[]string{"-1"}, []int{-1}})
		case itemObjects:
			out = append(out, Sample{[]string{`{"at":"1s"}`}, []map[string]any{{"at": "1s"}}})
		case itemNames:
			out = append(out, one("a,b", []string{"a", "b"}), one(" ", []string{" "}), one(" a ,", []string{" a ", ""}))
		default:
			out = append(out, Sample{[]string{"a"}, []string{"a"}}, Sample{[]string{"a", "b=c,d"}, []string{"a", "b=c,d"}})
		}
	}
	return out
}

// ArgsOf says whether o's values are the command line's arguments.
func ArgsOf(o *Option) bool { return o.Args }
