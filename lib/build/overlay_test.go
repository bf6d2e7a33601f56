package build

import (
	"bytes"
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sf-dst/sf/lib/config"
)

func goTool(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no Go toolchain on PATH: net_overlay is generated from the toolchain's own files")
	}
	return goCmd
}

func toolchainRoot(t *testing.T) string {
	t.Helper()
	root, err := goroot(goTool(t), ".")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestPatchToolchainFiles patches the installed toolchain's own files: each
// gains its hook on the line of the opening brace, so no other line moves,
// and the result still parses.
func TestPatchToolchainFiles(t *testing.T) {
	netDir := filepath.Join(toolchainRoot(t), "src", "net")
	for _, tc := range []struct {
		file  string
		hooks map[string]string // the signature line each hook ends
		patch func(string, []byte) ([]byte, error)
	}{
		{"net_fake.go", map[string]string{"func socket(": socketHook}, patchSocket},
		{"fd_fake.go", map[string]string{
			"func (fd *netFD) accept() (netfd *netFD, err error) {":  acceptHook,
			"func (fd *netFD) Read(p []byte) (n int, err error) {":   readHook,
			"func (fd *netFD) Write(p []byte) (nn int, err error) {": writeHook,
		}, patchFD},
		{"interface_stub.go", map[string]string{
			"func interfaceTable(ifindex int) ([]Interface, error) {":   ifaceHook,
			"func interfaceAddrTable(ifi *Interface) ([]Addr, error) {": addrHook,
		}, patchInterfaces},
		{"sockopt_fake.go", map[string]string{
			"func setReadBuffer(fd *netFD, bytes int) error {":     optHook,
			"func setWriteBuffer(fd *netFD, bytes int) error {":    optHook,
			"func setKeepAlive(fd *netFD, keepalive bool) error {": optHook,
			"func setLinger(fd *netFD, sec int) error {":           optHook,
		}, patchSockopts},
		{"tcpsockopt_stub.go", map[string]string{
			"func setNoDelay(fd *netFD, noDelay bool) error {":              optHook,
			"func setKeepAliveIdle(fd *netFD, d time.Duration) error {":     optHook,
			"func setKeepAliveInterval(fd *netFD, d time.Duration) error {": optHook,
			"func setKeepAliveCount(fd *netFD, n int) error {":              optHook,
		}, patchTCPSockopts},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(netDir, tc.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			out, err := tc.patch(path, src)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := bytes.Count(src, []byte("\n")), bytes.Count(out, []byte("\n")); a != b {
				t.Errorf("the patch changed the line count from %d to %d", a, b)
			}
			hooked := map[string]bool{}
			srcLines := strings.Split(string(src), "\n")
			for i, line := range strings.Split(string(out), "\n") {
				if line == srcLines[i] {
					continue
				}
				ok := false
				for sig, hook := range tc.hooks {
					if strings.HasPrefix(line, sig) && strings.HasSuffix(line, "{"+hook) && !hooked[sig] {
						hooked[sig], ok = true, true
						break
					}
				}
				if !ok {
					t.Errorf("line %d patched as %q, want a signature line ending in its hook", i+1, line)
				}
			}
			if len(hooked) != len(tc.hooks) {
				t.Errorf("%d lines patched as expected, want %d", len(hooked), len(tc.hooks))
			}
			if _, err := parser.ParseFile(token.NewFileSet(), path, out, 0); err != nil {
				t.Errorf("the patched file does not parse: %v", err)
			}
		})
	}
}

// TestPatchShapes: a file that does not look as expected is an error that
// names the file and what is missing, never a silent half patch.
func TestPatchShapes(t *testing.T) {
	const sig = "func socket(ctx context.Context, net string, family, sotype, proto int, ipv6only bool, laddr, raddr sockaddr, ctrlCtxFn func(context.Context, string, string, syscall.RawConn) error)"
	const readWrite = "func (fd *netFD) Read(p []byte) (n int, err error) { return }\nfunc (fd *netFD) Write(p []byte) (nn int, err error) { return }\n"
	const tables = "func interfaceTable(ifindex int) ([]Interface, error) {\n\treturn nil, nil\n}\nfunc interfaceAddrTable(ifi *Interface) ([]Addr, error) {\n\treturn nil, nil\n}\n"
	const opts = "func setReadBuffer(fd *netFD, bytes int) error { return nil }\nfunc setWriteBuffer(fd *netFD, bytes int) error { return nil }\n" +
		"func setKeepAlive(fd *netFD, keepalive bool) error { return nil }\nfunc setLinger(fd *netFD, sec int) error { return nil }\n"
	const unsupported = "; this Go release is not supported by net_overlay (turn it off, or use a Go release it supports)"
	tests := []struct {
		name, src, want string
		patch           func(string, []byte) ([]byte, error)
	}{
		{"socket as expected", "package net\n" + sig + " (*netFD, error) {\n\treturn nil, nil\n}\n", "", patchSocket},
		{"no socket", "package net\nfunc sockets() {}\n", "net_overlay: net_fake.go: no func socket" + unsupported, patchSocket},
		{"socket is a method", "package net\nfunc (fd *netFD) socket() {}\n", "net_overlay: net_fake.go: no func socket" + unsupported, patchSocket},
		{"a parameter renamed", "package net\n" + strings.Replace(sig, "raddr", "remote", 1) + " (*netFD, error) { return nil, nil }\n",
			"net_overlay: net_fake.go: func socket: no raddr sockaddr" + unsupported, patchSocket},
		{"a parameter retyped", "package net\n" + strings.Replace(sig, "laddr, raddr sockaddr", "laddr, raddr Addr", 1) + " (*netFD, error) { return nil, nil }\n",
			"net_overlay: net_fake.go: func socket: laddr is Addr, want sockaddr" + unsupported, patchSocket},
		{"other results", "package net\n" + sig + " (fd *netFD, ok bool, err error) { return }\n",
			"net_overlay: net_fake.go: func socket returns (*netFD, bool, error), want (*netFD, error)" + unsupported, patchSocket},
		{"not Go", "package net\nfunc socket( {\n", "net_overlay: net_fake.go: does not parse: net_fake.go:2:14: expected ')', found '{'" + unsupported, patchSocket},

		{"accept as expected", "package net\nfunc (fd *netFD) accept() (netfd *netFD, err error) { return }\n" + readWrite, "", patchFD},
		{"no accept", "package net\nfunc accept() (netfd *netFD, err error) { return }\n" + readWrite, "net_overlay: fd_fake.go: no method accept of *netFD" + unsupported, patchFD},
		{"accept on another type", "package net\nfunc (fd *fakeNetFD) accept() (netfd *netFD, err error) { return }\n" + readWrite, "net_overlay: fd_fake.go: no method accept of *netFD" + unsupported, patchFD},
		{"accept with unnamed results", "package net\nfunc (fd *netFD) accept() (*netFD, error) { return nil, nil }\n" + readWrite,
			"net_overlay: fd_fake.go: method accept of *netFD: no err error" + unsupported, patchFD},
		{"accept but no Write", "package net\nfunc (fd *netFD) accept() (netfd *netFD, err error) { return }\nfunc (fd *netFD) Read(p []byte) (n int, err error) { return }\n",
			"net_overlay: fd_fake.go: no method Write of *netFD" + unsupported, patchFD},
		{"accept but Read renames its buffer", "package net\nfunc (fd *netFD) accept() (netfd *netFD, err error) { return }\n" + strings.Replace(readWrite, "Read(p", "Read(b", 1),
			"net_overlay: fd_fake.go: method Read of *netFD: no p []byte" + unsupported, patchFD},
		{"accept but Write's receiver is not fd", "package net\nfunc (fd *netFD) accept() (netfd *netFD, err error) { return }\n" + strings.Replace(readWrite, "(fd *netFD) Write", "(c *netFD) Write", 1),
			"net_overlay: fd_fake.go: method Write of *netFD: the receiver is not named fd" + unsupported, patchFD},
		{"accept but Read returns more", "package net\nfunc (fd *netFD) accept() (netfd *netFD, err error) { return }\n" + strings.Replace(readWrite, "(n int, err error)", "(n int, ok bool, err error)", 1),
			"net_overlay: fd_fake.go: method Read of *netFD returns (int, bool, error), want (int, error)" + unsupported, patchFD},

		{"interfaces as expected", "package net\n" + tables, "", patchInterfaces},
		{"interfaces without interfaceAddrTable", "package net\n" + strings.Replace(tables, "interfaceAddrTable", "interfaceAddrs", 1),
			"net_overlay: interface_stub.go: no func interfaceAddrTable" + unsupported, patchInterfaces},
		{"interfaces with interfaceTable a method", "package net\n" + strings.Replace(tables, "func interfaceTable", "func (t *table) interfaceTable", 1),
			"net_overlay: interface_stub.go: no func interfaceTable" + unsupported, patchInterfaces},
		{"interfaces with ifindex renamed", "package net\n" + strings.Replace(tables, "ifindex int", "index int", 1),
			"net_overlay: interface_stub.go: func interfaceTable: no ifindex int" + unsupported, patchInterfaces},
		{"interfaces with ifi retyped", "package net\n" + strings.Replace(tables, "ifi *Interface", "ifi Interface", 1),
			"net_overlay: interface_stub.go: func interfaceAddrTable: ifi is Interface, want *Interface" + unsupported, patchInterfaces},
		{"interfaces with other results", "package net\n" + strings.Replace(tables, "([]Addr, error)", "([]Addr, bool, error)", 1),
			"net_overlay: interface_stub.go: func interfaceAddrTable returns ([]Addr, bool, error), want ([]Addr, error)" + unsupported, patchInterfaces},

		{"sockopts as expected", "package net\n" + opts, "", patchSockopts},
		{"sockopts without setLinger", "package net\n" + strings.Replace(opts, "setLinger", "setLingerTime", 1),
			"net_overlay: sockopt_fake.go: no func setLinger" + unsupported, patchSockopts},
		{"sockopts with the buffer size renamed", "package net\n" + strings.Replace(opts, "setReadBuffer(fd *netFD, bytes int)", "setReadBuffer(fd *netFD, n int)", 1),
			"net_overlay: sockopt_fake.go: func setReadBuffer: no bytes int" + unsupported, patchSockopts},
		{"sockopts with fd retyped", "package net\n" + strings.Replace(opts, "setKeepAlive(fd *netFD", "setKeepAlive(fd *fakeNetFD", 1),
			"net_overlay: sockopt_fake.go: func setKeepAlive: fd is *fakeNetFD, want *netFD" + unsupported, patchSockopts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := "net_fake.go"
			switch {
			case strings.Contains(tt.name, "accept"):
				file = "fd_fake.go"
			case strings.HasPrefix(tt.name, "interfaces"):
				file = "interface_stub.go"
			case strings.HasPrefix(tt.name, "sockopts"):
				file = "sockopt_fake.go"
			}
			out, err := tt.patch(file, []byte(tt.src))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tt.want == "":
				if _, err := parser.ParseFile(token.NewFileSet(), file, out, 0); err != nil {
					t.Errorf("the patched file does not parse: %v\n%s", err, out)
				}
			case err == nil:
				t.Fatalf("accepted, want %q", tt.want)
			case err.Error() != tt.want:
				t.Errorf("error\n got %q\nwant %q", err, tt.want)
			}
		})
	}
}

// TestNetOverlayFiles: the overlay maps the toolchain's own paths to the
// generated files, and generating it again reuses the same directory.
func TestNetOverlayFiles(t *testing.T) {
	root := toolchainRoot(t)
	store := t.TempDir()
	path, err := netOverlay(store, root)
	if err != nil {
		t.Fatal(err)
	}
	again, err := netOverlay(store, root)
	if err != nil || again != path {
		t.Errorf("second generation: %q, %v; want the same overlay %q", again, err, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ov struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &ov); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(ov.Replace) != 6 {
		t.Errorf("the overlay replaces %d files, want 6: %v", len(ov.Replace), ov.Replace)
	}
	for _, name := range []string{"net_fake.go", "fd_fake.go", "interface_stub.go", "sockopt_fake.go", "tcpsockopt_stub.go", NetOverlayFile} {
		key := filepath.Join(root, "src", "net", name)
		dst, ok := ov.Replace[key]
		if !ok {
			t.Errorf("the overlay has no key %s", key)
			continue
		}
		if !filepath.IsAbs(dst) || !strings.HasPrefix(dst, store) {
			t.Errorf("%s -> %s, want a file under the store %s", key, dst, store)
		}
		if _, err := os.Stat(dst); err != nil {
			t.Error(err)
		}
	}
	if got, _ := os.ReadFile(ov.Replace[filepath.Join(root, "src", "net", NetOverlayFile)]); !bytes.Equal(got, netOverlayFile) {
		t.Errorf("%s is not the embedded file", NetOverlayFile)
	}
}

// TestNetOverlayUnsupportedToolchain: a GOROOT whose net package does not
// have the expected shape fails the build with a clear error.
func TestNetOverlayUnsupportedToolchain(t *testing.T) {
	root := t.TempDir()
	netDir := filepath.Join(root, "src", "net")
	if err := os.MkdirAll(netDir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(netDir, "net_fake.go"), []byte("package net\n"), 0o644)
	os.WriteFile(filepath.Join(netDir, "fd_fake.go"), []byte("package net\n"), 0o644)
	os.WriteFile(filepath.Join(netDir, "interface_stub.go"), []byte("package net\n"), 0o644)
	_, err := netOverlay(t.TempDir(), root)
	want := "net_overlay: " + filepath.Join(netDir, "net_fake.go") + ": no func socket; this Go release is not supported by net_overlay (turn it off, or use a Go release it supports)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	_, err = netOverlay(t.TempDir(), filepath.Join(root, "nowhere"))
	if err == nil || !strings.HasPrefix(err.Error(), "net_overlay: open ") {
		t.Errorf("a GOROOT without net: error %v, want net_overlay: open ...", err)
	}
}

// TestBuildNetOverlay builds one package with and without the overlay: the
// two modules differ, the manifest says which is which, and only the first
// imports the engine's TCP functions.
func TestBuildNetOverlay(t *testing.T) {
	goTool(t)
	pkg, err := filepath.Abs(filepath.Join("testdata", "netguest"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "seedfall.json")
	world := `{"nodes": [{"name": "server", "pkg": "` + pkg + `"}], "workload": {"name": "client", "pkg": "` + pkg + `"}}`
	if err := os.WriteFile(file, []byte(world), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	var mods [2]Module
	for i, overlay := range []bool{false, true} {
		man, err := Build(w, Options{NetOverlay: overlay})
		if err != nil {
			t.Fatalf("net_overlay %v: %v", overlay, err)
		}
		if len(man.Modules) != 2 || man.Modules[0].SHA256 != man.Modules[1].SHA256 {
			t.Fatalf("net_overlay %v: want one module shared by both programs, got %+v", overlay, man.Modules)
		}
		for _, m := range man.Modules {
			if m.NetOverlay != overlay {
				t.Errorf("net_overlay %v: module of %s says net_overlay %v", overlay, m.Node, m.NetOverlay)
			}
		}
		mods[i] = man.Modules[0]
		wasm, err := os.ReadFile(mods[i].Wasm)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(wasm, []byte("tcp_dial")); got != overlay {
			t.Errorf("net_overlay %v: the module imports seedfall.tcp_dial: %v", overlay, got)
		}
		saved, _ := os.ReadFile(filepath.Join(dir, StateDir, "build", "manifest.json"))
		if got := bytes.Contains(saved, []byte(`"net_overlay": true`)); got != overlay {
			t.Errorf("net_overlay %v: manifest.json records net_overlay: %v\n%s", overlay, got, saved)
		}
	}
	if mods[0].SHA256 == mods[1].SHA256 {
		t.Errorf("the module built with net_overlay is the one built without (%s)", mods[0].SHA256)
	}
}
