package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/sf-dst/sf/lib/echo"
	"github.com/sf-dst/sf/lib/textfmt"
)

// LoadOptions change how a world file is loaded.
type LoadOptions struct {
	// Profile names a profile of the file to apply over it, as -profile does. Defaults to none.
	Profile string
	// Set holds overrides in the form path=value, applied in order after the profile, as -set does. The
	// path is dotted with indices, such as faults.crash_per_sec or nodes[0].args; the value is JSON if
	// it parses as JSON and a string otherwise (and always a string for a string or duration field).
	// Defaults to none.
	Set []string
	// Stdin is what the path "-" reads. Defaults to os.Stdin.
	Stdin io.Reader
}

// LoadWith reads the world file at path and validates it like ParseWith. The path "-" reads opts.Stdin,
// with the same size limit as a file; see ParseWith for how such a world is named and where its relative
// paths point.
func LoadWith(path string, opts LoadOptions) (*World, error) {
	var data []byte
	var err error
	if path == "-" {
		stdin := opts.Stdin
		if stdin == nil {
			stdin = os.Stdin
		}
		data, err = readWorld(stdin)
	} else {
		data, err = readWorldFile(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, missingWorld(path, err)
	}
	if err != nil {
		return nil, fileError(textfmt.InputName(path), err)
	}
	return ParseWith(path, data, opts)
}

// missingWorld is the error of a world file that is not there. It names
// the folder looked in, since the tools look for seedfall.json in the
// current folder unless told otherwise and a newcomer may not know which
// folder that was, and the flag that names another file.
func missingWorld(path string, err error) error {
	dir, absErr := filepath.Abs(filepath.Dir(path))
	if absErr != nil {
		dir = filepath.Dir(path)
	}
	return fmt.Errorf("%s: %w (looked in %s; -c FILE names the world file)", textfmt.InputName(path), unwrapPath(err), dir)
}

// errTooLarge is the error of a world file over the size limit.
var errTooLarge = fmt.Errorf("file is larger than the limit of %d bytes", maxFileBytes)

// readWorldFile reads a world file of at most maxFileBytes.
func readWorldFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readWorld(f)
}

// readWorld reads a world of at most maxFileBytes from r.
func readWorld(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileBytes {
		return nil, errTooLarge
	}
	return data, nil
}

// fileError puts the file name in front of an error from reading it, without repeating it.
func fileError(path string, err error) error {
	return fmt.Errorf("%s: %w", path, unwrapPath(err))
}

// ParseWith decodes and validates a world file from data. file names the source: errors start with it,
// and relative paths in the file are resolved against its directory. The file "-" is standard input:
// errors name it <stdin>, and its relative paths (extends among them) and its .seedfall directory are
// those of the current directory; World.File stays "-". The world is built in layers: the
// files it extends, the file, the profile opts.Profile, then each override of opts.Set; objects merge
// field by field and anything else replaces. Every profile of the file is checked, selected or not.
//
// It returns the first error in the order of the file. Each one names the file (the base file for a
// value written there, the -set argument for an override) and the JSON path of the value, such as
// nodes[1].pkg, or the line and column of malformed JSON.
func ParseWith(file string, data []byte, opts LoadOptions) (*World, error) {
	name := textfmt.InputName(file)
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	dir := filepath.Dir(abs)
	if file == "" {
		dir = abs
	}
	l := &loader{}
	root, err := l.loadTree(name, abs, data, nil)
	if err != nil {
		return nil, err
	}
	top := &source{name: name, dir: dir}
	set := &setList{}
	if len(l.extends) > 0 {
		set.add("extends")
	}
	if pv := root.get("profiles"); pv != nil {
		set.add("profiles")
	}
	root, profiles, err := splitProfiles(root)
	if err != nil {
		return nil, err
	}
	run := root
	if opts.Profile != "" {
		i := slices.IndexFunc(profiles, func(m member) bool { return m.key == opts.Profile })
		if i < 0 {
			return nil, unknownProfile(name, opts.Profile, profiles)
		}
		run = mergeWorld(root, profiles[i].value)
	}
	for _, arg := range opts.Set {
		if run, err = applySet(run, arg, dir); err != nil {
			return nil, err
		}
	}
	w, err := decodeWorld(run, top, set)
	if err != nil {
		return nil, err
	}
	for _, p := range profiles {
		if p.key == opts.Profile {
			continue
		}
		if _, err := decodeWorld(mergeWorld(root, p.value), top, nil); err != nil {
			return nil, err
		}
	}
	w.File, w.Dir, w.Extends, w.Profile = file, dir, l.extends, opts.Profile
	w.Overrides = slices.Clone(opts.Set)
	w.Set = set.paths
	return w, nil
}

// decodeWorld decodes a world from its merged tree over the defaults and validates it. Fields set are
// recorded in set, unless it is nil.
func decodeWorld(root *jvalue, top *source, set *setList) (*World, error) {
	w := defaultWorld()
	d := newDecoder(top, set)
	if err := d.decodeValue("", root, reflect.ValueOf(w).Elem()); err != nil {
		return nil, err
	}
	return w, nil
}

// loader reads a world file and the files it extends.
type loader struct {
	extends []string // absolute paths of the files extended, nearest first
}

// chainLink is one file in a chain of extends: its name for messages and its absolute path.
type chainLink struct{ name, abs string }

// loadTree reads the world file named name (at the absolute path abs) from data, and merges it over the
// file it extends, if any. chain lists the files that extend this one, outermost first.
func (l *loader) loadTree(name, abs string, data []byte, chain []chainLink) (*jvalue, error) {
	// Some editors start a UTF-8 file with a byte order mark, which JSON
	// does not allow; it says nothing, so it is skipped.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := checkSyntax(name, data); err != nil {
		return nil, err
	}
	src := &source{name: name, dir: filepath.Dir(abs)}
	root, err := parseTree(data, src, "")
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, src.errorf("", "expected an object")
	}
	ext := root.get("extends")
	if ext == nil {
		return root, nil
	}
	chain = append(chain, chainLink{name: name, abs: abs})
	switch {
	case ext.kind != '"':
		return nil, src.errorf("extends", "expected a string")
	case ext.str == "":
		return nil, src.errorf("extends", "must name a world file")
	}
	baseAbs, baseName := ext.str, ext.str
	if !filepath.IsAbs(ext.str) {
		baseAbs = filepath.Join(src.dir, ext.str)
		baseName = filepath.Join(filepath.Dir(name), ext.str)
	}
	baseAbs = filepath.Clean(baseAbs)
	if i := slices.IndexFunc(chain, func(c chainLink) bool { return c.abs == baseAbs }); i >= 0 {
		var names []string
		for _, c := range chain[i:] {
			names = append(names, c.name)
		}
		return nil, src.errorf("extends", "cycle: %s -> %s", strings.Join(names, " -> "), baseName)
	}
	if len(chain) > maxExtendsDepth {
		return nil, src.errorf("extends", "more than %d extends in a row", maxExtendsDepth)
	}
	baseData, err := readWorldFile(baseAbs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, src.errorf("extends", "world file %s does not exist (resolved to %s)", ext.str, baseAbs)
	case err != nil:
		return nil, src.errorf("extends", "world file %s: %v", ext.str, unwrapPath(err))
	}
	l.extends = append(l.extends, baseAbs)
	base, err := l.loadTree(baseName, baseAbs, baseData, chain)
	if err != nil {
		return nil, err
	}
	return mergeWorld(base, root.without("extends")), nil
}

// splitProfiles takes the profiles out of a world's tree. Each profile comes back with its values
// sourced at profiles.NAME, so that messages name the place in the file.
func splitProfiles(root *jvalue) (*jvalue, []member, error) {
	pv := root.get("profiles")
	if pv == nil {
		return root, nil, nil
	}
	if pv.kind != '{' {
		return nil, nil, pv.src.errorf("profiles", "expected an object of profiles")
	}
	var out []member
	for _, m := range pv.members {
		pp := joinPath("profiles", m.key)
		switch {
		case m.key == "" || len(m.key) > maxNameLen || !validName(m.key):
			return nil, nil, m.value.src.errorf(pp, "invalid profile name %s: use 1 to %d letters, digits, '_' and '-'", echo.Quote(m.key), maxNameLen)
		case m.value.kind != '{':
			return nil, nil, m.value.src.errorf(pp, "expected an object")
		}
		moved := make(map[*source]*source)
		prof := resource(m.value, func(s *source) *source {
			if moved[s] == nil {
				c := *s
				c.prefix = concatPath(s.prefix, pp)
				moved[s] = &c
			}
			return moved[s]
		})
		for _, k := range []string{"extends", "profiles"} {
			if v := prof.get(k); v != nil {
				return nil, nil, v.src.errorf(k, "not allowed in a profile")
			}
		}
		out = append(out, member{key: m.key, value: prof})
	}
	return root.without("profiles"), out, nil
}

// unknownProfile is the error for a -profile that the file does not define.
func unknownProfile(file, name string, profiles []member) error {
	if len(profiles) == 0 {
		return &pathError{file: file, path: "-profile " + echo.Cut(name), msg: "unknown profile: the world defines no profiles"}
	}
	var names []string
	for _, p := range profiles {
		names = append(names, p.key)
	}
	return &pathError{file: file, path: "-profile " + echo.Cut(name),
		msg: "unknown profile (known: " + strings.Join(names, ", ") + ")"}
}
