package config

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestLoadStdin: the path "-" reads the world from LoadOptions.Stdin; the world's directory, its
// relative paths and its extends are those of the current directory, World.File stays "-", and
// errors name the input <stdin>.
func TestLoadStdin(t *testing.T) {
	dir := inTempDir(t, layered)
	stdin := func(text string) LoadOptions {
		o := all
		o.Stdin = strings.NewReader(text)
		return o
	}
	w, err := LoadWith("-", stdin(`{"extends": "base/base.json", "workload": {"pkg": "client"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if w.File != "-" || w.Dir != dir {
		t.Errorf("File, Dir = %q, %q, want \"-\", %q", w.File, w.Dir, dir)
	}
	if w.Workload.Pkg != filepath.Join(dir, "client") || w.Nodes[0].Pkg != filepath.Join(dir, "base/node") {
		t.Errorf("paths = %s, %s", w.Workload.Pkg, w.Nodes[0].Pkg)
	}
	if want := []string{filepath.Join(dir, "base/base.json")}; !reflect.DeepEqual(w.Extends, want) {
		t.Errorf("Extends = %v, want %v", w.Extends, want)
	}

	tests := []struct{ name, text, want string }{
		{"bad value", `{"duration": "3x", "workload": {"name": "c", "pkg": "client"}}`,
			`<stdin>: duration: invalid duration "3x"`},
		{"missing base", `{"extends": "nope.json"}`,
			"<stdin>: extends: world file nope.json does not exist (resolved to " + filepath.Join(dir, "nope.json") + ")"},
		{"error in the base", `{"extends": "base/bad.json", "workload": {"name": "c", "pkg": "client"}}`,
			`base/bad.json: duration: invalid duration "3x"`},
		{"too large", `{` + workload + `}` + strings.Repeat(" ", maxFileBytes),
			"<stdin>: file is larger than the limit of 16777216 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadWith("-", stdin(tt.text))
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestLoadStdinReadError: a failing standard input is an error that names <stdin>.
func TestLoadStdinReadError(t *testing.T) {
	o := all
	o.Stdin = errReader{}
	_, err := LoadWith("-", o)
	if want := "<stdin>: broken pipe"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("broken pipe") }
