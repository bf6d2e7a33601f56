package build

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The net_overlay build. Go's net package on wasip1 keeps TCP and UDP inside
// the process (net_fake.go). With net_overlay, guests are built with
// `go build -overlay` so that its TCP and UDP sockets are WASI sockets that
// the engine opens on the simulated network:
//
//   - net_fake.go: socket() first asks seedfallSocket, and keeps its own code
//     for whatever that declines (Unix sockets);
//   - fd_fake.go: (*netFD).accept() gives the connections it accepts their
//     addresses, through seedfallAccepted, and (*netFD).Read and Write send
//     a UDP socket's reads and writes to seedfallRead and seedfallWrite;
//   - interface_stub.go: interfaceTable and interfaceAddrTable describe the
//     node's simulated interfaces, through seedfallInterfaceTable and
//     seedfallInterfaceAddrTable, instead of none;
//   - sockopt_fake.go and tcpsockopt_stub.go: the option setters (buffer
//     sizes, keep-alive, linger, no delay) succeed on the simulated network's
//     sockets, through seedfallSockopt, instead of failing with ENOPROTOOPT;
//   - net_seedfall_wasip1.go: a new file of our own with those functions,
//     the methods of *netFD that UDPConn calls (readFrom, writeTo and the
//     rest, which take the place of fakeNetFD's), and the host imports they
//     call.
//
// Overlay keys must be absolute paths into the GOROOT of the toolchain that
// builds, so the patched files are generated from that toolchain's own
// copies each time, never kept in this repository. Each patch inserts one
// line's worth of code right after an opening brace, so every other line of
// Go's file keeps its number (and stack traces their meaning).

//go:embed netoverlay/net_seedfall_wasip1.go.txt
var netOverlayFile []byte

// netOverlayVersion changes whenever the patches change, so that the
// overlay's directory, and the modules built with it, change too.
const netOverlayVersion = "4"

// NetOverlayFile is the name of the file net_overlay adds to package net.
const NetOverlayFile = "net_seedfall_wasip1.go"

// The text the patches insert.
const (
	socketHook = ` if fd, ok, err := seedfallSocket(ctx, net, family, sotype, laddr, raddr, ctrlCtxFn); ok { return fd, err };`
	acceptHook = ` defer func() { if err == nil { seedfallAccepted(netfd) } }();`
	readHook   = ` if seedfallDatagram(fd) { return fd.seedfallRead(p) };`
	writeHook  = ` if seedfallDatagram(fd) { return fd.seedfallWrite(p) };`
	ifaceHook  = ` return seedfallInterfaceTable(ifindex);`
	addrHook   = ` return seedfallInterfaceAddrTable(ifi);`
	optHook    = ` if seedfallSockopt(fd) { return nil };`
)

// overlayPatches are the toolchain's files of package net that the overlay
// patches, in the order they are read, and how.
var overlayPatches = []struct {
	name  string
	patch func(path string, src []byte) ([]byte, error)
}{
	{"net_fake.go", patchSocket},
	{"fd_fake.go", patchFD},
	{"interface_stub.go", patchInterfaces},
	{"sockopt_fake.go", patchSockopts},
	{"tcpsockopt_stub.go", patchTCPSockopts},
}

// netOverlay writes the overlay for the toolchain rooted at goroot into
// store/overlay/<key>/ and returns the path of its overlay.json. key hashes
// everything the overlay is made of, so a new toolchain or a new patch gets a
// new directory and an existing one is reused as is.
func netOverlay(store, goroot string) (string, error) {
	netDir := filepath.Join(goroot, "src", "net")
	files := map[string][]byte{NetOverlayFile: netOverlayFile}
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s%d:%s", len(netOverlayVersion), netOverlayVersion, len(goroot), goroot)
	for _, f := range overlayPatches {
		path := filepath.Join(netDir, f.name)
		src, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("net_overlay: %w", err)
		}
		out, err := f.patch(path, src)
		if err != nil {
			return "", err
		}
		files[f.name] = out
		fmt.Fprintf(h, "%d:", len(out))
		h.Write(out)
	}
	fmt.Fprintf(h, "%d:", len(netOverlayFile))
	h.Write(netOverlayFile)
	dir := filepath.Join(store, "overlay", hex.EncodeToString(h.Sum(nil))[:16])
	jsonPath := filepath.Join(dir, "overlay.json")
	if _, err := os.Stat(jsonPath); err == nil {
		return jsonPath, nil
	}
	replace := map[string]string{}
	for name, data := range files {
		dst := filepath.Join(dir, name)
		if err := writeAtomic(dst, data); err != nil {
			return "", fmt.Errorf("net_overlay: %w", err)
		}
		replace[filepath.Join(netDir, name)] = dst
	}
	data, _ := json.MarshalIndent(struct {
		Replace map[string]string
	}{replace}, "", "  ")
	if err := writeAtomic(jsonPath, append(data, '\n')); err != nil {
		return "", fmt.Errorf("net_overlay: %w", err)
	}
	return jsonPath, nil
}

// writeAtomic writes data to path, making its directory, so that a reader
// never sees a partial file (two builds may generate the same overlay). A
// file that holds data already is left as it is: its time stays that of
// its first write, so the listing cache does not take it for a change.
func writeAtomic(path string, data []byte) error {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// goroot returns the GOROOT of the toolchain that builds in dir (which may
// differ from goCmd's own when go.mod selects another toolchain).
func goroot(goCmd, dir string) (string, error) {
	cmd := exec.Command(goCmd, "env", "GOROOT")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("net_overlay: go env GOROOT: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	root := strings.TrimSpace(string(out))
	if root == "" || !filepath.IsAbs(root) {
		return "", fmt.Errorf("net_overlay: go env GOROOT gave %q, not an absolute path", root)
	}
	return root, nil
}

// shapeError says that a file of the toolchain does not look as net_overlay
// expects, which means a Go release it does not support yet.
func shapeError(path, what string) error {
	return fmt.Errorf("net_overlay: %s: %s; this Go release is not supported by net_overlay (turn it off, or use a Go release it supports)", path, what)
}

// patchSocket inserts the call to seedfallSocket at the top of net_fake.go's
// socket function, after checking that the function has the parameters the
// call passes, with the types it expects.
func patchSocket(path string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, shapeError(path, fmt.Sprintf("does not parse: %v", err))
	}
	var fn *ast.FuncDecl
	for _, d := range f.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Recv == nil && d.Name.Name == "socket" {
			fn = d
		}
	}
	if fn == nil || fn.Body == nil {
		return nil, shapeError(path, "no func socket")
	}
	want := map[string]string{
		"ctx":       "context.Context",
		"net":       "string",
		"family":    "int",
		"sotype":    "int",
		"laddr":     "sockaddr",
		"raddr":     "sockaddr",
		"ctrlCtxFn": "func(context.Context, string, string, syscall.RawConn) error",
	}
	if err := checkFields(fn.Type.Params, want); err != nil {
		return nil, shapeError(path, "func socket: "+err.Error())
	}
	if got := fieldTypes(fn.Type.Results); got != "*netFD, error" {
		return nil, shapeError(path, fmt.Sprintf("func socket returns (%s), want (*netFD, error)", got))
	}
	return insertAfter(src, fset.Position(fn.Body.Lbrace).Offset, socketHook), nil
}

// patchFD patches three methods of *netFD in fd_fake.go: accept calls
// seedfallAccepted on the connection it returns, and Read and Write hand UDP
// sockets of the simulated network to seedfallRead and seedfallWrite. It
// first checks that each method has the parameters and results its hook
// uses.
func patchFD(path string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, shapeError(path, fmt.Sprintf("does not parse: %v", err))
	}
	methods := map[string]*ast.FuncDecl{}
	for _, d := range f.Decls {
		d, ok := d.(*ast.FuncDecl)
		if !ok || d.Recv == nil || len(d.Recv.List) != 1 || d.Body == nil {
			continue
		}
		if types.ExprString(d.Recv.List[0].Type) == "*netFD" {
			methods[d.Name.Name] = d
		}
	}
	type patch struct {
		off  int
		text string
	}
	var patches []patch
	for _, m := range []struct {
		name            string
		params, results map[string]string
		resultTypes     string
		hook            string
	}{
		{"accept", nil, map[string]string{"netfd": "*netFD", "err": "error"}, "*netFD, error", acceptHook},
		{"Read", map[string]string{"p": "[]byte"}, nil, "int, error", readHook},
		{"Write", map[string]string{"p": "[]byte"}, nil, "int, error", writeHook},
	} {
		fn := methods[m.name]
		if fn == nil {
			return nil, shapeError(path, "no method "+m.name+" of *netFD")
		}
		if recv := fn.Recv.List[0].Names; m.name != "accept" && (len(recv) != 1 || recv[0].Name != "fd") {
			return nil, shapeError(path, "method "+m.name+" of *netFD: the receiver is not named fd")
		}
		if err := checkFields(fn.Type.Params, m.params); err != nil {
			return nil, shapeError(path, "method "+m.name+" of *netFD: "+err.Error())
		}
		if err := checkFields(fn.Type.Results, m.results); err != nil {
			return nil, shapeError(path, "method "+m.name+" of *netFD: "+err.Error())
		}
		if got := fieldTypes(fn.Type.Results); got != m.resultTypes {
			return nil, shapeError(path, fmt.Sprintf("method %s of *netFD returns (%s), want (%s)", m.name, got, m.resultTypes))
		}
		patches = append(patches, patch{fset.Position(fn.Body.Lbrace).Offset, m.hook})
	}
	// From the end of the file back, so that each offset still holds.
	slices.SortFunc(patches, func(a, b patch) int { return b.off - a.off })
	for _, p := range patches {
		src = insertAfter(src, p.off, p.text)
	}
	return src, nil
}

// A funcPatch is a hook for the top of one top-level function, with the
// parameters and results it relies on.
type funcPatch struct {
	name        string
	params      map[string]string
	resultTypes string
	hook        string
}

// patchInterfaces makes interface_stub.go's interfaceTable and
// interfaceAddrTable return what seedfallInterfaceTable and
// seedfallInterfaceAddrTable say. Patching the file, rather than leaving it
// out of the build and declaring the functions in ours, keeps whatever else
// a Go release puts in it, and turns a change of these two signatures into a
// clear error instead of a compile error inside package net.
// interfaceMulticastAddrTable keeps Go's code: it lists no address.
func patchInterfaces(path string, src []byte) ([]byte, error) {
	return patchFuncs(path, src, []funcPatch{
		{"interfaceTable", map[string]string{"ifindex": "int"}, "[]Interface, error", ifaceHook},
		{"interfaceAddrTable", map[string]string{"ifi": "*Interface"}, "[]Addr, error", addrHook},
	})
}

// patchSockopts makes sockopt_fake.go's buffer size, keep-alive and linger
// options succeed on the simulated network's sockets, which have no such
// settings, as a Linux socket takes them; Go's code answers ENOPROTOOPT for
// every socket that is not its fake network's, and a library that checks
// the error (memberlist sizes its UDP buffer, and stops when it cannot)
// would stop where it runs on Linux.
func patchSockopts(path string, src []byte) ([]byte, error) {
	var fs []funcPatch
	for name, arg := range map[string]string{"setReadBuffer": "bytes int", "setWriteBuffer": "bytes int", "setKeepAlive": "keepalive bool", "setLinger": "sec int"} {
		fs = append(fs, sockoptPatch(name, arg))
	}
	return patchFuncs(path, src, fs)
}

// patchTCPSockopts does the same for tcpsockopt_stub.go's TCP options: no
// delay and the keep-alive timings.
func patchTCPSockopts(path string, src []byte) ([]byte, error) {
	var fs []funcPatch
	for name, arg := range map[string]string{"setNoDelay": "noDelay bool", "setKeepAliveIdle": "d time.Duration", "setKeepAliveInterval": "d time.Duration", "setKeepAliveCount": "n int"} {
		fs = append(fs, sockoptPatch(name, arg))
	}
	return patchFuncs(path, src, fs)
}

// sockoptPatch is the patch of a socket option setter func name(fd *netFD,
// arg) error.
func sockoptPatch(name, arg string) funcPatch {
	argName, argType, _ := strings.Cut(arg, " ")
	return funcPatch{name, map[string]string{"fd": "*netFD", argName: argType}, "error", optHook}
}

// patchFuncs inserts each patch's hook at the top of its function, after
// checking that the function has the parameters and results the hook uses.
func patchFuncs(path string, src []byte, patches []funcPatch) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, shapeError(path, fmt.Sprintf("does not parse: %v", err))
	}
	funcs := map[string]*ast.FuncDecl{}
	for _, d := range f.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Recv == nil && d.Body != nil {
			funcs[d.Name.Name] = d
		}
	}
	// In a fixed order, so that the first error is the same on every run.
	slices.SortFunc(patches, func(a, b funcPatch) int { return strings.Compare(a.name, b.name) })
	var offs []int
	hooks := map[int]string{}
	for _, fp := range patches {
		fn := funcs[fp.name]
		if fn == nil {
			return nil, shapeError(path, "no func "+fp.name)
		}
		if err := checkFields(fn.Type.Params, fp.params); err != nil {
			return nil, shapeError(path, "func "+fp.name+": "+err.Error())
		}
		if got := fieldTypes(fn.Type.Results); got != fp.resultTypes {
			return nil, shapeError(path, fmt.Sprintf("func %s returns (%s), want (%s)", fp.name, got, fp.resultTypes))
		}
		off := fset.Position(fn.Body.Lbrace).Offset
		offs = append(offs, off)
		hooks[off] = fp.hook
	}
	// From the end of the file back, so that each offset still holds.
	slices.Sort(offs)
	for _, off := range slices.Backward(offs) {
		src = insertAfter(src, off, hooks[off])
	}
	return src, nil
}

// checkFields checks that list declares each name of want with its type.
func checkFields(list *ast.FieldList, want map[string]string) error {
	got := map[string]string{}
	if list != nil {
		for _, field := range list.List {
			for _, name := range field.Names {
				got[name.Name] = types.ExprString(field.Type)
			}
		}
	}
	names := make([]string, 0, len(want))
	for name := range want {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		typ, ok := got[name]
		switch {
		case !ok:
			return fmt.Errorf("no %s %s", name, want[name])
		case typ != want[name]:
			return fmt.Errorf("%s is %s, want %s", name, typ, want[name])
		}
	}
	return nil
}

func fieldTypes(list *ast.FieldList) string {
	if list == nil {
		return ""
	}
	var out []string
	for _, field := range list.List {
		for range max(len(field.Names), 1) {
			out = append(out, types.ExprString(field.Type))
		}
	}
	return strings.Join(out, ", ")
}

func insertAfter(src []byte, off int, text string) []byte {
	out := make([]byte, 0, len(src)+len(text))
	out = append(out, src[:off+1]...)
	out = append(out, text...)
	return append(out, src[off+1:]...)
}

// overlayBuildHint follows a build error in the file net_overlay adds: its
// code uses unexported parts of package net that a Go release may change.
const overlayBuildHint = "net_overlay: the overlay's own file does not compile against this Go release's net package; this Go release is not supported by net_overlay (turn it off, or use a Go release it supports)"

// netOverlayFor returns the overlay.json for the toolchain that builds pkg.
func netOverlayFor(goCmd, store, pkg string) (string, error) {
	root, err := goroot(goCmd, pkg)
	if err != nil {
		return "", err
	}
	return netOverlay(store, root)
}
