package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sf-dst/sf/lib/atomicfile"
	"github.com/sf-dst/sf/lib/readfile"
)

// The listing cache. Every start of sf-run lists each of the world's
// packages with its dependencies (`go list -deps`) to compute the content
// key, and the compat_overlay lists them once more to find the modules it
// shims. Each list loads the whole module graph: for badger's server about
// a tenth of a second of CPU, most of what a start costs besides loading the
// modules, paid again by every sweep, replay and test of an unchanged
// world. So a listing is kept in the store with a fingerprint of everything
// its answer depends on, and given again while the fingerprint still holds.
//
// What a listing depends on, and how the fingerprint sees it:
//   - the go command and its settings: `go env` of every setting that
//     changes what go list answers, in the package's directory with the
//     same environment (one cheap process, which also names the go.mod and
//     go.work in use), the arguments, the extra environment, and the
//     content of an overlay and of every file it maps: these make the
//     entry's name;
//   - each listed package outside the module cache and the standard
//     library: the name, size and modification time of every file of its
//     directory and the names of its subdirectories (a file added, removed
//     or edited, a build constraint changed in a file the listing left
//     out), and the names of the entries of each directory above it up to
//     its module's root (a go.mod or a vendor directory that appears there
//     moves the module's boundary); see dirHash for what is left out;
//   - the content of every go.mod, go.sum and vendor/modules.txt of a
//     module outside the module cache, of the go.work and go.work.sum in
//     use, and of the go.mod and go.sum of each module the go.work uses,
//     since together they choose every version;
//   - packages in the module cache and the standard library are fixed by
//     their module's version and by GOVERSION and GOROOT.
// A listing with an error in it is not kept, so that a fix elsewhere (a
// download, a new file) is always seen; nor is one with a package that has
// no module or embeds files, whose inputs the fingerprint does not follow;
// nor one taken within listRecent of a change to what it covers.
// The content key still hashes every file the listing names, so the cache
// decides only which files those are.

// listCacheVersion changes whenever what the fingerprint covers changes.
const listCacheVersion = "sf-list-cache 1"

// listCacheBytesMax bounds a listing read back from the store: badger's
// server lists in about 300 KB.
const listCacheBytesMax = 64 << 20

// listRecent is how long before a listing the files it depends on must
// have last changed for it to be kept.
const listRecent = 2 * time.Second

// listFingerprintFields are the fields the fingerprint reads from a
// listing; goListCached asks for them along with the caller's.
var listFingerprintFields = []string{"Dir", "Standard", "Module", "EmbedFiles", "Error", "DepsErrors"}

// listEntry is a listing kept in the store.
type listEntry struct {
	Version string            `json:"version"`
	Dirs    map[string]string `json:"dirs"`  // directory -> hash of its entries
	Names   map[string]string `json:"names"` // directory -> hash of its entries' names
	Files   map[string]string `json:"files"` // file -> hash of its content, "" for none
	// Present are the module cache's directories of the listed modules,
	// which must still be there (go clean -modcache empties it).
	Present []string `json:"present"`
	Output  string   `json:"output"`
}

// goListCached runs `go list` with args (which start with "list" and hold a
// -json=fields flag) in dir with the build's environment and extra env, or
// gives the output of the same command from the store when nothing it
// depends on has changed. The output holds listFingerprintFields too.
// goenv is listGoEnv's output for dir and env when the caller has it
// already, or nil.
func goListCached(goCmd, store, dir string, env, args []string, goenv []byte) ([]byte, error) {
	args = withListFields(args)
	abs, err := filepath.Abs(dir)
	if err == nil && goenv == nil {
		goenv, err = listGoEnv(goCmd, dir, env)
	}
	if err != nil {
		return goOutputEnv(goCmd, dir, env, args...)
	}
	id, genv, err := listID(goenv, abs, env, args)
	if err != nil {
		return goOutputEnv(goCmd, dir, env, args...)
	}
	path := filepath.Join(store, "list", id+".json")
	if out, ok := cachedListing(path); ok {
		return out, nil
	}
	started := time.Now()
	out, err := goOutputEnv(goCmd, dir, env, args...)
	if err != nil {
		return nil, err
	}
	if e, ok := listFingerprint(out, genv, started); ok {
		e.Output = string(out)
		if data, err := json.Marshal(e); err == nil && os.MkdirAll(filepath.Dir(path), 0o755) == nil {
			// A listing that cannot be kept costs only the next start's
			// go list.
			_ = atomicfile.WriteFile(path, data, 0o644)
		}
	}
	return out, nil
}

// withListFields returns args with listFingerprintFields added to its
// -json= flag.
func withListFields(args []string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if fields, ok := strings.CutPrefix(a, "-json="); ok {
			have := strings.Split(fields, ",")
			for _, f := range listFingerprintFields {
				if !slices.Contains(have, f) {
					have = append(have, f)
				}
			}
			out[i] = "-json=" + strings.Join(have, ",")
		}
	}
	return out
}

// listEnvVars are the go env settings that can change what go list
// answers. All of go env would also run the C compiler, for its flags.
var listEnvVars = []string{"CGO_ENABLED", "GO111MODULE", "GOARCH", "GODEBUG", "GOENV", "GOEXPERIMENT", "GOFIPS140",
	"GOFLAGS", "GOINSECURE", "GOMOD", "GOMODCACHE", "GONOPROXY", "GONOSUMDB", "GOOS", "GOPATH", "GOPRIVATE", "GOPROXY",
	"GOROOT", "GOSUMDB", "GOTOOLCHAIN", "GOVERSION", "GOWASM", "GOWORK"}

// listEnv is what the fingerprint needs of `go env -json`.
type listEnv struct {
	GOWORK, GOMODCACHE, GOROOT string
}

// listGoEnv runs `go env -json` of listEnvVars in dir with env.
func listGoEnv(goCmd, dir string, env []string) ([]byte, error) {
	return goOutputEnv(goCmd, dir, env, append([]string{"env", "-json"}, listEnvVars...)...)
}

// listID names the cache entry of one go list: a hash of the go command's
// settings in dir (goenv, listGoEnv's output), the arguments, the extra
// environment and any overlay with the files it maps.
func listID(goenv []byte, dir string, env, args []string) (string, listEnv, error) {
	var genv listEnv
	if err := json.Unmarshal(goenv, &genv); err != nil {
		return "", listEnv{}, err
	}
	if genv.GOMODCACHE == "" || genv.GOROOT == "" {
		return "", listEnv{}, errors.New("go env did not name the module cache and GOROOT")
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\ndir %q\nargs %q\nenv %q\n", listCacheVersion, dir, args, env)
	h.Write(goenv)
	for i, a := range args {
		if a == "-overlay" && i+1 < len(args) {
			if err := hashOverlay(h, args[i+1]); err != nil {
				return "", listEnv{}, err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), genv, nil
}

// cachedListing returns the listing kept at path when its fingerprint
// still holds.
func cachedListing(path string) ([]byte, bool) {
	data, err := readfile.Regular(path, listCacheBytesMax)
	if err != nil {
		return nil, false
	}
	var e listEntry
	if json.Unmarshal(data, &e) != nil || e.Version != listCacheVersion {
		return nil, false
	}
	for d, want := range e.Dirs {
		if got, _, err := dirHash(d, false); err != nil || got != want {
			return nil, false
		}
	}
	for d, want := range e.Names {
		if got, _, err := dirHash(d, true); err != nil || got != want {
			return nil, false
		}
	}
	for f, want := range e.Files {
		if got, _, err := contentHash(f); err != nil || got != want {
			return nil, false
		}
	}
	for _, d := range e.Present {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, false
		}
	}
	return []byte(e.Output), true
}

// listFingerprint reads a go list output and returns the fingerprint of
// what it depends on, or false when it should not be kept. A fingerprint is
// taken after the listing, so anything it covers that changed since before
// the listing began (started) could make it describe files the listing did
// not see: then the listing is not kept either.
func listFingerprint(out []byte, genv listEnv, started time.Time) (listEntry, bool) {
	e := listEntry{Version: listCacheVersion, Dirs: map[string]string{}, Names: map[string]string{}, Files: map[string]string{}}
	cache := filepath.Clean(genv.GOMODCACHE) + string(filepath.Separator)
	inCache := func(p string) bool { return strings.HasPrefix(filepath.Clean(p)+string(filepath.Separator), cache) }
	var newest time.Time
	seen := func(t time.Time) {
		if t.After(newest) {
			newest = t
		}
	}
	addFile := func(p string) bool {
		h, t, err := contentHash(p)
		e.Files[p] = h
		seen(t)
		return err == nil
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			Dir        string
			Standard   bool
			EmbedFiles []string
			Error      json.RawMessage
			DepsErrors json.RawMessage
			Module     *struct {
				Dir, GoMod string
				Replace    *struct{ Dir, GoMod string }
			}
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil || len(p.Error) > 0 || len(p.DepsErrors) > 0 {
			return listEntry{}, false
		}
		switch {
		case p.Standard:
			continue
		case p.Module == nil || p.Dir == "":
			return listEntry{}, false
		case inCache(p.Dir):
			d := p.Module.Dir
			if r := p.Module.Replace; r != nil {
				d = r.Dir
			}
			if d != "" && !slices.Contains(e.Present, d) {
				e.Present = append(e.Present, d)
			}
			continue
		case len(p.EmbedFiles) > 0:
			return listEntry{}, false
		}
		m := struct{ Dir, GoMod string }{p.Module.Dir, p.Module.GoMod}
		if r := p.Module.Replace; r != nil {
			m = struct{ Dir, GoMod string }{r.Dir, r.GoMod}
		}
		if m.Dir == "" || m.GoMod == "" {
			return listEntry{}, false
		}
		if _, ok := e.Dirs[p.Dir]; !ok {
			h, t, err := dirHash(p.Dir, false)
			if err != nil {
				return listEntry{}, false
			}
			e.Dirs[p.Dir] = h
			seen(t)
		}
		// The directories between the package and its module's root.
		root := filepath.Clean(m.Dir)
		for d := filepath.Dir(p.Dir); strings.HasPrefix(d+string(filepath.Separator), root+string(filepath.Separator)); d = filepath.Dir(d) {
			if _, ok := e.Names[d]; !ok {
				h, t, err := dirHash(d, true)
				if err != nil {
					return listEntry{}, false
				}
				e.Names[d] = h
				seen(t)
			}
			if d == root || d == filepath.Dir(d) {
				break
			}
		}
		if !inCache(m.GoMod) {
			md := filepath.Dir(m.GoMod)
			for _, f := range []string{m.GoMod, filepath.Join(md, "go.sum"), filepath.Join(md, "vendor", "modules.txt")} {
				if !addFile(f) {
					return listEntry{}, false
				}
			}
		}
	}
	if w := genv.GOWORK; w != "" && w != "off" {
		if !addFile(w) || !addFile(w+".sum") {
			return listEntry{}, false
		}
		uses, ok := workUses(w)
		if !ok {
			return listEntry{}, false
		}
		for _, u := range uses {
			if !addFile(filepath.Join(u, "go.mod")) || !addFile(filepath.Join(u, "go.sum")) {
				return listEntry{}, false
			}
		}
	}
	// A file system may keep times to the second or coarser.
	if !newest.Before(started.Add(-listRecent)) {
		return listEntry{}, false
	}
	return e, true
}

// contentHash returns the hash of a small file's content, "" for a file
// that does not exist, and its modification time.
func contentHash(path string) (string, time.Time, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", time.Time{}, nil
	}
	if err != nil {
		return "", time.Time{}, err
	}
	data, err := readfile.Regular(path, listCacheBytesMax)
	if err != nil {
		return "", time.Time{}, err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), fi.ModTime(), nil
}

// dirHash returns a hash of a directory's entries, with the latest
// modification time among its files: the entries' names only, or their
// names, and for files their sizes and modification times (of what a
// symbolic link points to). A folder inside counts by its name and type
// alone: it is a package of its own if it matters (listings that embed
// files are not kept), and its time changes whenever anything is written
// in it. Entries whose names start with "." or "_" are left out, as the go
// command leaves them out of packages: sf's own .seedfall folder among
// them, which every run writes to; so is the directory's own time, which
// such an entry changes too.
func dirHash(dir string, namesOnly bool) (string, time.Time, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", time.Time{}, err
	}
	var newest time.Time
	h := sha256.New()
	for _, d := range ents {
		if strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") {
			continue
		}
		fmt.Fprintf(h, "%q\n", d.Name())
		fi, err := d.Info()
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			fi, err = os.Stat(filepath.Join(dir, d.Name()))
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// Gone since the directory was read, or a dangling link:
			// its absence is what is fingerprinted.
			fmt.Fprintf(h, "absent\n")
			continue
		case err != nil:
			return "", time.Time{}, err
		case fi.IsDir():
			fmt.Fprintf(h, "dir\n")
			continue
		}
		if fi.ModTime().After(newest) {
			newest = fi.ModTime()
		}
		if !namesOnly {
			fmt.Fprintf(h, "%v %d %d\n", fi.Mode().Type(), fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil)), newest, nil
}

// workUses returns the directories a go.work file uses, absolute, or false
// when it cannot be read as a go.work.
func workUses(path string) ([]string, bool) {
	data, err := readfile.Regular(path, listCacheBytesMax)
	if err != nil {
		return nil, false
	}
	base := filepath.Dir(path)
	var uses []string
	inBlock := false
	for line := range strings.Lines(string(data)) {
		if i := strings.Index(line, "//"); i >= 0 {
			if strings.ContainsAny(line, "\"`") {
				return nil, false // a comment mark may be inside a quoted path
			}
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		var p string
		switch rest, isUse := strings.CutPrefix(line, "use"); {
		case line == "":
			continue
		case inBlock && line == ")":
			inBlock = false
			continue
		case inBlock:
			p = line
		case isUse && strings.TrimSpace(rest) == "(":
			inBlock = true
			continue
		case isUse && rest != "" && (rest[0] == ' ' || rest[0] == '\t'):
			p = strings.TrimSpace(rest)
		case isUse:
			return nil, false
		default:
			continue // go, toolchain, replace, godebug
		}
		if p[0] == '"' || p[0] == '`' {
			u, ok := unquoteWorkPath(p)
			if !ok {
				return nil, false
			}
			p = u
		} else if strings.ContainsAny(p, " \t") {
			return nil, false
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		uses = append(uses, filepath.Clean(p))
	}
	if inBlock {
		return nil, false
	}
	slices.Sort(uses)
	return slices.Compact(uses), true
}

// unquoteWorkPath reads a quoted path of a go.work.
func unquoteWorkPath(p string) (string, bool) {
	if len(p) >= 2 && p[0] == '`' && p[len(p)-1] == '`' {
		return p[1 : len(p)-1], true
	}
	var s string
	if json.Unmarshal([]byte(p), &s) != nil {
		return "", false
	}
	return s, true
}
