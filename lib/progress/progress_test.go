package progress

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// TestNotATerminal: on a buffer, a file or a pipe the bar writes nothing and
// Writer hands back the writer it was given.
func TestNotATerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	for _, w := range []io.Writer{&buf, f} {
		b := New(w, 10, "seeds")
		if b.Shown() {
			t.Errorf("%T: shown", w)
		}
		if b.Writer(w) != w {
			t.Errorf("%T: Writer wrapped it", w)
		}
		b.Add(true)
		b.Add(false)
		b.Finish()
	}
	if fi, _ := f.Stat(); buf.Len() != 0 || fi.Size() != 0 {
		t.Errorf("wrote %q to a buffer and %d bytes to a file", buf.String(), fi.Size())
	}
}

// TestTerminal: on a pseudo-terminal the line counts items and failures,
// and a line printed through Writer starts on an erased line.
func TestTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(ptmx)
		got <- string(b)
	}()

	b := New(tty, 3, "seeds")
	if !b.Shown() {
		t.Fatal("not shown on a terminal")
	}
	b.Add(false)
	w := b.Writer(tty)
	io.WriteString(w, "FAIL seed 2\n")
	b.Add(true)
	b.Add(false)
	b.Finish()
	tty.Close()
	out := <-got

	for _, want := range []string{"(1/3, ", "(3/3, ", "1 failed", "seeds/s", "\x1b[2K\rFAIL seed 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal got no %q:\n%q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\x1b[2K\r") {
		t.Errorf("Finish left the line up:\n%q", out)
	}
}
