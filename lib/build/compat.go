package build

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The compat_overlay build. Storage libraries call mmap and flock, which
// wasip1 lacks, and some keep per-architecture constants with no file for
// wasm. compat_overlay builds them anyway, in two parts:
//
//   - package syscall gets Mmap, Munmap, Msync, Madvise, Mlock, Munlock,
//     Flock, Fdatasync and the Linux constants they take, through a go build
//     -overlay of the toolchain's own files (GOROOT files can be overlaid):
//     one new file, and fs_wasip1.go with its Read, Write, Pread, Pwrite,
//     Fsync and Close renamed seedfallRaw*, so that the new file's versions
//     keep mappings coherent with the file;
//   - modules that need a file of their own (golang.org/x/sys/unix, which is
//     empty on wasip1; bbolt, which lacks its wasm constants) are copied
//     into the build store with the file added, and the build uses a
//     generated go.work that replaces them with the copies. go build
//     refuses overlays of files in the module cache, and the user's tree and
//     module cache are never written.
//
// Copies are kept by module version and compatVersion, so a new shim gets a
// new copy.

// compatVersion changes whenever a shim file or the syscall patch changes.
const compatVersion = "9"

//go:embed compat/syscall_seedfall_wasip1.go.txt
var compatSyscallFile []byte

//go:embed compat/unix_seedfall_wasip1.go.txt
var compatUnixFile []byte

//go:embed compat/bbolt_common_wasm.go.txt
var compatBboltFile []byte

//go:embed compat/boltdb_bolt_wasip1.go.txt
var compatBoltV1File []byte

//go:embed compat/pebble_rawalloc_wasm.go.txt
var compatPebbleRawalloc []byte

//go:embed compat/pebble_manual_wasm.go.txt
var compatPebbleManual []byte

//go:embed compat/ristretto_z_mmap_wasip1.go.txt
var compatRistrettoMmap []byte

//go:embed compat/badger_y_dsync_wasip1.go.txt
var compatBadgerDsync []byte

//go:embed compat/pebble_vfs_wasip1.go.txt
var compatPebbleVFS []byte

//go:embed compat/pebble2_vfs_wasip1.go.txt
var compatPebble2VFS []byte

//go:embed compat/sockaddr_route_info_wasip1.go.txt
var compatSockaddrRoute []byte

// CompatSyscallFile is the name of the file compat_overlay adds to syscall.
const CompatSyscallFile = "syscall_seedfall_wasip1.go"

// compatRenamed are the functions of syscall/fs_wasip1.go that the added
// file wraps.
var compatRenamed = []string{"Read", "Write", "Pread", "Pwrite", "Fsync", "Close"}

// A moduleShim is what compat_overlay adds to one module.
type moduleShim struct {
	name  string            // what sf-build prints
	files map[string][]byte // path in the module -> content
	// remove are files of the module left out of the copy, because they
	// build for wasip1 and do not compile there.
	remove []string
}

var moduleShims = map[string]moduleShim{
	"golang.org/x/sys": {"generic (mmap, flock and their constants in golang.org/x/sys/unix)",
		map[string][]byte{"unix/seedfall_wasip1.go": compatUnixFile}, nil},
	"go.etcd.io/bbolt": {"bbolt (its wasm constants; mmap and flock through the generic shim)",
		map[string][]byte{"internal/common/bolt_wasm.go": compatBboltFile}, nil},
	// The original bolt, which raft-boltdb/v2 still imports.
	"github.com/boltdb/bolt": {"bolt (its wasm constants; mmap and flock through the generic shim, without its raw madvise call)",
		map[string][]byte{"bolt_seedfall_wasip1.go": compatBoltV1File}, []string{"bolt_unix.go"}},
	"github.com/cockroachdb/pebble": {"pebble (its wasm constants, and a wasip1 file system with flock through the generic shim)",
		map[string][]byte{"internal/rawalloc/rawalloc_wasm.go": compatPebbleRawalloc,
			"internal/manual/manual_wasm.go": compatPebbleManual, "vfs/seedfall_wasip1.go": compatPebbleVFS},
		[]string{"vfs/file_lock_generic.go"}},
	// pebble v2 is pebble's module of a new path; its file system asks for
	// device IDs and wrapped file infos too, and internal/manual builds
	// as it is.
	"github.com/cockroachdb/pebble/v2": {"pebble v2 (its wasm constants, and a wasip1 file system with flock through the generic shim)",
		map[string][]byte{"internal/rawalloc/rawalloc_wasm.go": compatPebbleRawalloc, "vfs/seedfall_wasip1.go": compatPebble2VFS},
		[]string{"vfs/file_lock_generic.go"}},
	// badger maps its files through ristretto's z package, whose wasip1
	// file fails every call with ENOSYS.
	"github.com/dgraph-io/ristretto/v2": {"badger (ristretto's z: mmap, munmap, msync through the generic shim)",
		map[string][]byte{"z/mmap_wasip1.go": compatRistrettoMmap}, nil},
	"github.com/dgraph-io/badger/v4": {"badger (O_DSYNC for the files it opens synchronous, as on Linux)",
		map[string][]byte{"y/file_dsync_wasip1.go": compatBadgerDsync}, nil},
	// hashicorp/memberlist imports go-sockaddr, which has a route table
	// reader for each system but none for wasip1, and so does not build.
	// The file fits v1.0.6 and later, where route_info.go declares
	// routeInfo and its errors for every system; before, each system's
	// file declared its own.
	"github.com/hashicorp/go-sockaddr": {"go-sockaddr (no route table on wasip1, as on js)",
		map[string][]byte{"route_info_wasip1.go": compatSockaddrRoute}, nil},
}

// compatSetup is what a compat_overlay build of one package needs.
type compatSetup struct {
	replace map[string]string // overlay entries for package syscall
	gowork  string            // the generated go.work, or "" when no module needs a copy
	chosen  []string          // "module@version: shim", for the log and the manifest
	list    []byte            // the package's listing without overlays, when it has no error
}

// compatFor prepares the compat_overlay build of the package in dir.
func compatFor(goCmd, store, dir string) (*compatSetup, error) {
	root, err := goroot(goCmd, dir)
	if err != nil {
		return nil, err
	}
	cs := &compatSetup{}
	if cs.replace, err = compatSyscall(store, root); err != nil {
		return nil, err
	}
	cs.chosen = append(cs.chosen, "syscall: generic (mmap, flock, msync, madvise in package syscall)")
	// The listing has the key's fields, so that without an error in it
	// the property catalog can use it (Manifest.Listed): it is the
	// package's listing without the overlay, which the key's is not.
	out, err := goListCached(goCmd, store, dir, nil, []string{"list", "-e", "-deps", "-json=" + keyListFields, "."}, nil)
	if err != nil {
		return nil, fmt.Errorf("compat_overlay: %w", err)
	}
	type mod struct {
		Path, Version, Dir string
		Replace            *struct{ Path, Version, Dir string }
	}
	found := map[string]mod{}
	clean := true
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			Module            *mod
			Error, DepsErrors json.RawMessage
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("compat_overlay: go list: %w", err)
		}
		if len(p.Error) > 0 || len(p.DepsErrors) > 0 {
			clean = false
		}
		if m := p.Module; m != nil {
			if _, ok := moduleShims[m.Path]; ok && m.Version != "" {
				found[m.Path] = *m
			}
		}
	}
	if clean {
		cs.list = out
	}
	if len(found) == 0 {
		return cs, nil
	}
	var replaces []string
	for _, path := range slices.Sorted(maps.Keys(found)) {
		m := found[path]
		src := m.Dir
		if m.Replace != nil {
			src = m.Replace.Dir
		}
		if src == "" {
			return nil, fmt.Errorf("compat_overlay: %s@%s is not downloaded (run go mod download in %s)", m.Path, m.Version, dir)
		}
		copyDir, err := compatCopy(store, m.Path, m.Version, src, moduleShims[path])
		if err != nil {
			return nil, err
		}
		replaces = append(replaces, fmt.Sprintf("replace %s => %s", m.Path, quoteModPath(fromWork(store, copyDir))))
		cs.chosen = append(cs.chosen, fmt.Sprintf("%s@%s: %s", m.Path, m.Version, moduleShims[path].name))
	}
	if cs.gowork, err = compatWork(goCmd, store, dir, replaces); err != nil {
		return nil, err
	}
	return cs, nil
}

func quoteModPath(p string) string {
	if strings.ContainsAny(p, " \t\"'`") {
		return fmt.Sprintf("%q", p)
	}
	return p
}

// compatSyscall writes the patched syscall files for the toolchain at goroot
// and returns their overlay entries.
func compatSyscall(store, goroot string) (map[string]string, error) {
	dir := filepath.Join(goroot, "src", "syscall")
	fsPath := filepath.Join(dir, "fs_wasip1.go")
	src, err := os.ReadFile(fsPath)
	if err != nil {
		return nil, fmt.Errorf("compat_overlay: %w", err)
	}
	patched, err := renameFuncs(fsPath, src, compatRenamed)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(compatVersion), []byte(goroot), patched, compatSyscallFile} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	out := filepath.Join(store, "overlay", "compat-"+hex.EncodeToString(h.Sum(nil))[:16])
	files := map[string][]byte{"fs_wasip1.go": patched, CompatSyscallFile: compatSyscallFile}
	replace := map[string]string{}
	for name, data := range files {
		dst := filepath.Join(out, name)
		if _, err := os.Stat(dst); err != nil {
			if err := writeAtomic(dst, data); err != nil {
				return nil, fmt.Errorf("compat_overlay: %w", err)
			}
		}
		replace[filepath.Join(dir, name)] = dst
	}
	return replace, nil
}

// renameFuncs renames the named top-level functions of a file to
// seedfallRaw<Name>, after checking that each exists once. Only the name
// changes, so every line keeps its number.
func renameFuncs(path string, src []byte, names []string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, compatShapeError(path, fmt.Sprintf("does not parse: %v", err))
	}
	offs := map[string][]int{}
	for _, d := range f.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Recv == nil && slices.Contains(names, d.Name.Name) {
			offs[d.Name.Name] = append(offs[d.Name.Name], fset.Position(d.Name.Pos()).Offset)
		}
	}
	var at []int
	for _, n := range names {
		if len(offs[n]) != 1 {
			return nil, compatShapeError(path, fmt.Sprintf("%d declarations of func %s, want 1", len(offs[n]), n))
		}
		at = append(at, offs[n][0])
	}
	slices.Sort(at)
	out := append([]byte(nil), src...)
	for i := len(at) - 1; i >= 0; i-- {
		out = slices.Insert(out, at[i], []byte("seedfallRaw")...)
	}
	return out, nil
}

func compatShapeError(path, what string) error {
	return fmt.Errorf("compat_overlay: %s: %s; this Go release is not supported by compat_overlay (turn it off, or use a Go release it supports)", path, what)
}

// compatCopy copies the module at src into the store with its shim files
// added, once per module version and compatVersion, and returns the copy's
// directory.
func compatCopy(store, path, version, src string, shim moduleShim) (string, error) {
	// The module cache's escaping: an upper-case letter becomes '!' and the
	// letter in lower case, so names stay distinct on case-insensitive disks.
	var esc strings.Builder
	for _, r := range path {
		if 'A' <= r && r <= 'Z' {
			esc.WriteString("!" + string(r+'a'-'A'))
		} else {
			esc.WriteRune(r)
		}
	}
	dst := filepath.Join(store, "compat", filepath.FromSlash(esc.String())+"@"+version+"-sf"+compatVersion)
	if _, err := os.Stat(filepath.Join(dst, "go.mod")); err == nil {
		return dst, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("compat_overlay: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".copy-*")
	if err != nil {
		return "", fmt.Errorf("compat_overlay: %w", err)
	}
	defer os.RemoveAll(tmp)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(tmp, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err == nil {
		for _, name := range shim.remove {
			if err = os.Remove(filepath.Join(tmp, filepath.FromSlash(name))); err != nil {
				break
			}
		}
	}
	if err == nil {
		// A module that predates modules (github.com/boltdb/bolt) has no
		// go.mod, and a replacement directory must have one. Go synthesizes
		// "module <path>" for such a module in the cache; the copy gets the
		// same, so it builds with the same language version (go 1.16).
		if _, serr := os.Stat(filepath.Join(tmp, "go.mod")); errors.Is(serr, fs.ErrNotExist) {
			err = os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module "+path+"\n"), 0o644)
		}
	}
	if err == nil {
		for name, data := range shim.files {
			if err = os.WriteFile(filepath.Join(tmp, filepath.FromSlash(name)), data, 0o644); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = os.Rename(tmp, dst)
		if err != nil {
			if _, serr := os.Stat(filepath.Join(dst, "go.mod")); serr == nil {
				err = nil // another build made the same copy first
			}
		}
	}
	if err != nil {
		return "", fmt.Errorf("compat_overlay: copying %s@%s: %w", path, version, err)
	}
	return dst, nil
}

// fromWork is the directory dir as a replace line of compatWork's go.work
// names it: relative to the go.work's folder, so that it reads the same
// for every copy of the world, and so does the module. go build records a
// replaced module's directory in the module's build information as its
// go.work wrote it: an absolute path made the module of a world that
// uses compat_overlay differ in every folder, and wazero compile it
// again for each. A path that cannot be made relative stays absolute.
func fromWork(store, dir string) string {
	// Every go.work is at store/compat/work/<16 hex digits>/go.work.
	rel, err := filepath.Rel(filepath.Join(store, "compat", "work", "0123456789abcdef"), dir)
	if err != nil {
		return dir
	}
	return filepath.ToSlash(rel)
}

// compatWork writes a go.work that uses what the package's build uses
// today (the user's go.work, its modules by absolute path and its replaced
// directories by fromWork's, or the package's own module) and adds
// replaces, and returns its path.
func compatWork(goCmd, store, dir string, replaces []string) (string, error) {
	var env struct{ GOWORK, GOMOD string }
	if err := goJSON(goCmd, dir, &env, "env", "-json", "GOWORK", "GOMOD"); err != nil {
		return "", fmt.Errorf("compat_overlay: %w", err)
	}
	var b strings.Builder
	var sum []byte
	switch {
	case env.GOWORK != "" && env.GOWORK != "off":
		var wf struct {
			Go      string
			Use     []struct{ DiskPath string }
			Replace []struct {
				Old, New struct{ Path, Version string }
			}
		}
		if err := goJSON(goCmd, dir, &wf, "work", "edit", "-json", env.GOWORK); err != nil {
			return "", fmt.Errorf("compat_overlay: %w", err)
		}
		base := filepath.Dir(env.GOWORK)
		fmt.Fprintf(&b, "go %s\n\n", wf.Go)
		for _, u := range wf.Use {
			p := u.DiskPath
			if !filepath.IsAbs(p) {
				p = filepath.Join(base, p)
			}
			fmt.Fprintf(&b, "use %s\n", quoteModPath(p))
		}
		for _, r := range wf.Replace {
			if slices.ContainsFunc(replaces, func(s string) bool { return strings.HasPrefix(s, "replace "+r.Old.Path+" ") }) {
				continue
			}
			old := r.Old.Path
			if r.Old.Version != "" {
				old += " " + r.Old.Version
			}
			nw := r.New.Path
			if r.New.Version != "" {
				nw += " " + r.New.Version
			} else {
				if !filepath.IsAbs(nw) {
					nw = filepath.Join(base, nw)
				}
				nw = fromWork(store, nw)
			}
			fmt.Fprintf(&b, "replace %s => %s\n", old, quoteModPath(nw))
		}
		sum, _ = os.ReadFile(env.GOWORK + ".sum")
	case env.GOMOD != "" && env.GOMOD != os.DevNull:
		var mf struct{ Go string }
		if err := goJSON(goCmd, dir, &mf, "mod", "edit", "-json", env.GOMOD); err != nil {
			return "", fmt.Errorf("compat_overlay: %w", err)
		}
		fmt.Fprintf(&b, "go %s\n\nuse %s\n", mf.Go, quoteModPath(filepath.Dir(env.GOMOD)))
	default:
		return "", fmt.Errorf("compat_overlay: %s is in no module (no go.mod found)", dir)
	}
	b.WriteString("\n" + strings.Join(replaces, "\n") + "\n")
	h := sha256.Sum256([]byte(b.String() + "\x00" + string(sum)))
	wdir := filepath.Join(store, "compat", "work", hex.EncodeToString(h[:])[:16])
	path := filepath.Join(wdir, "go.work")
	if len(sum) > 0 {
		if err := writeAtomic(path+".sum", sum); err != nil {
			return "", fmt.Errorf("compat_overlay: %w", err)
		}
	}
	if err := writeAtomic(path, []byte(b.String())); err != nil {
		return "", fmt.Errorf("compat_overlay: %w", err)
	}
	return path, nil
}

// mergeOverlay returns an overlay.json with the entries of the one at base
// (none when base is "") and those of extra, written once per content.
func mergeOverlay(store, base string, extra map[string]string) (string, error) {
	all := map[string]string{}
	if base != "" {
		var ov struct{ Replace map[string]string }
		data, err := os.ReadFile(base)
		if err == nil {
			err = json.Unmarshal(data, &ov)
		}
		if err != nil {
			return "", fmt.Errorf("reading overlay %s: %w", base, err)
		}
		maps.Copy(all, ov.Replace)
	}
	maps.Copy(all, extra)
	data, _ := json.MarshalIndent(struct{ Replace map[string]string }{all}, "", "  ")
	h := sha256.Sum256(data)
	path := filepath.Join(store, "overlay", "merged-"+hex.EncodeToString(h[:])[:16], "overlay.json")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := writeAtomic(path, append(data, '\n')); err != nil {
		return "", err
	}
	return path, nil
}
