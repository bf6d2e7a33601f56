package progress

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestNotATerminal: on a buffer, a file or a pipe the bar writes nothing and
// Writer hands back the writer it was given.
func TestNotATerminal(t *testing.T) {
	t.Setenv(EnvVar, "")
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

// TestInterval: SF_PROGRESS is a duration of at least IntervalMin, or
// unset; anything else is an error that says what it wants.
func TestInterval(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  time.Duration
		err   string
	}{
		{"", 0, ""},
		{"5s", 5 * time.Second, ""},
		{" 250ms ", 250 * time.Millisecond, ""},
		{"5", 0, `SF_PROGRESS="5": want the time between progress lines, a duration of at least 100ms such as 5s`},
		{"10ms", 0, `SF_PROGRESS="10ms": want the time between progress lines, a duration of at least 100ms such as 5s`},
		{"-1s", 0, `SF_PROGRESS="-1s": want the time between progress lines, a duration of at least 100ms such as 5s`},
	} {
		t.Setenv(EnvVar, tc.value)
		got, err := Interval()
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("SF_PROGRESS=%q: %v, %v; want %v, %q", tc.value, got, err, tc.want, tc.err)
		}
	}
}

var lineRE = regexp.MustCompile(`^progress (\d+)/10 seeds, (\d+) failed(, [\d.]+ seeds/s, \d+s elapsed(, about \d+s left)?)?$`)

// TestLinesAtAnInterval (issue 29): with SF_PROGRESS set, a file or a pipe
// gets a plain line per interval, with what is done, the failures and the
// rate, and none after Finish; a buffer still gets nothing.
func TestLinesAtAnInterval(t *testing.T) {
	t.Setenv(EnvVar, "100ms")
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := New(f, 10, "seeds")
	if !b.Shown() {
		t.Fatal("not shown on a file with SF_PROGRESS set")
	}
	w := b.Writer(f)
	b.Add(false)
	b.Add(true)
	io.WriteString(w, "FAIL seed 2\n")
	time.Sleep(350 * time.Millisecond)
	b.Add(false)
	time.Sleep(250 * time.Millisecond)
	b.Finish()
	b.Finish()
	size := func() int64 { fi, _ := f.Stat(); return fi.Size() }
	n := size()
	time.Sleep(250 * time.Millisecond)
	if size() != n {
		t.Errorf("lines went on after Finish")
	}
	data, _ := os.ReadFile(f.Name())
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if lines[0] != "FAIL seed 2" || len(lines) < 4 {
		t.Fatalf("want the report line and at least 3 progress lines:\n%s", data)
	}
	last := ""
	for _, l := range lines[1:] {
		m := lineRE.FindStringSubmatch(l)
		if m == nil || m[2] != "1" || m[3] == "" {
			t.Errorf("not a progress line of 10 seeds with 1 failed and a rate: %q", l)
			continue
		}
		last = m[1]
	}
	if last != "3" {
		t.Errorf("the last line counts %s seeds done, want 3:\n%s", last, data)
	}
	if strings.Contains(string(data), "\x1b[") {
		t.Errorf("the lines hold terminal escapes: %q", data)
	}

	var buf bytes.Buffer
	if b := New(&buf, 10, "seeds"); b.Shown() || b.Writer(&buf) != &buf {
		t.Errorf("a buffer gets progress lines")
	}
}

// TestIsTerminal: a terminal is what the terminal driver answers for,
// read or written; /dev/null is a character device but no terminal, and
// neither a pipe nor a buffer is one (issue 24: one test for every tool).
func TestIsTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, s := range []any{null, r, w, &bytes.Buffer{}, strings.NewReader(""), nil} {
		if IsTerminal(s) {
			t.Errorf("%T is a terminal", s)
		}
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	var reader io.Reader = tty
	if !IsTerminal(tty) || !IsTerminal(reader) {
		t.Error("a pseudo-terminal is not a terminal")
	}
}
