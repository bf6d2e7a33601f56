package atomicfile

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWriteFileReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "f.txt")
	for _, data := range []string{"first", "second"} {
		if err := WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != data {
			t.Fatalf("read %q, %v; want %q", b, err, data)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestWriteFileThroughLink: a link to a file stays a link, and the file it
// names gets the data.
func TestWriteFileThroughLink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.md"), filepath.Join(dir, "link.md")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q", b)
	}
}

// TestWriteFileToPipe: writing to a named pipe through a link, as
// `sf-report -md /dev/stdout` writes to /dev/stdout, writes into the pipe
// and leaves both the pipe and the link in place.
func TestWriteFileToPipe(t *testing.T) {
	dir := t.TempDir()
	fifo, link := filepath.Join(dir, "fifo"), filepath.Join(dir, "stdout")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink(fifo, link); err != nil {
		t.Skip(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := WriteFile(link, []byte("report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "report\n" {
		t.Errorf("the pipe's reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v, %v", fi.Mode(), err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
	}
}

// TestWriteFileDanglingLink: a link to a file not made yet stays a link,
// and the file is made where it points.
func TestWriteFileDanglingLink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink("target.md", link); err != nil {
		t.Skip(err)
	}
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "target.md")); string(b) != "new" {
		t.Errorf("target holds %q", b)
	}
}

// TestWriteFileKeepsPermissions: replacing a file keeps its mode.
func TestWriteFileKeepsPermissions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode(), err)
	}
}

// TestWriteFileDevStdoutToFile: /dev/stdout that the shell redirected to a
// file gets the data after what the program printed before, and the file
// is not replaced.
func TestWriteFileDevStdoutToFile(t *testing.T) {
	if os.Getenv("ATOMICFILE_CHILD") == "1" {
		os.Stdout.WriteString("before\n")
		if err := WriteFile("/dev/stdout", []byte("DATA\n"), 0o644); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
		os.Stdout.WriteString("after\n")
		os.Exit(0)
	}
	if _, err := os.Lstat("/dev/stdout"); err != nil {
		t.Skip(err)
	}
	out := filepath.Join(t.TempDir(), "out.txt")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteFileDevStdoutToFile$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD=1")
	cmd.Stdout = f
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if b, _ := os.ReadFile(out); string(b) != "before\nDATA\nafter\n" {
		t.Errorf("the redirected file holds %q", b)
	}
}

// TestRemoveStale: only WriteFile's temporary files older than the age go;
// a fresh one (a writer at work) and other files stay.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	files := map[string]time.Duration{ // name -> age
		".seed-1.trace.log.tmp-123":  2 * time.Hour,
		".seed-2.faults.json.tmp-45": 2 * time.Hour,
		".seed-3.trace.log.tmp-678":  time.Minute,
		"seed-4.trace.log":           2 * time.Hour,
		".hidden":                    2 * time.Hour,
	}
	for name, age := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := RemoveStale(dir, time.Hour, now)
	if err != nil || n != 2 {
		t.Fatalf("RemoveStale: %d, %v; want 2 removed", n, err)
	}
	for name := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		gone := err != nil
		if want := strings.Contains(name, ".tmp-") && files[name] > time.Hour; gone != want {
			t.Errorf("%s: removed %v, want %v", name, gone, want)
		}
	}
	if n, err := RemoveStale(filepath.Join(dir, "nope"), time.Hour, now); n != 0 || err != nil {
		t.Errorf("a missing folder: %d, %v", n, err)
	}
}
