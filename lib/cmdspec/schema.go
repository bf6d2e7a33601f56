package cmdspec

import (
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is the input schema of the command's tool named tool: an object
// with a property per field, in the tool's order, each typed as its
// option's value and described (Doc); the Required ones required, and no
// other property allowed.
func (c *Command) Schema(tool string) *jsonschema.Schema {
	t := c.Tool(tool)
	if t == nil {
		panic("cmdspec: " + c.Name + " has no tool " + tool)
	}
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for _, name := range t.Fields {
		o := c.FieldOption(name)
		if o == nil {
			panic("cmdspec: " + tool + " has no option for its field " + name)
		}
		p := o.Value.schema(o)
		p.Description = o.Doc
		if d, ok := t.Docs[name]; ok {
			p.Description = d
		}
		if p.Description == "" {
			p.Description = o.derivedDoc()
		}
		s.Properties[name] = p
		s.PropertyOrder = append(s.PropertyOrder, name)
		if o.Required != "" {
			s.Required = append(s.Required, name)
		}
	}
	return s
}

// derivedDoc is a field's description made from its flag's: the usage
// without backquotes, and the default.
func (o *Option) derivedDoc() string {
	d := strings.ReplaceAll(o.Usage, "`", "")
	def := o.DefaultText
	if def == "" {
		def = o.Value.defaultText()
	}
	if def != "" {
		d += " (default " + def + ")"
	}
	return d
}
