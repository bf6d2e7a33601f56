// Package progress shows one progress line for long work (a sweep's seeds,
// the seeds sf-shrink shrinks) on a terminal: done/total, the rate, the
// failures so far, the time elapsed and the time left. On anything but a
// terminal (a file, a pipe, a test's buffer) a Bar does nothing, so records
// and logs never hold progress bytes.
//
// The line is drawn by github.com/schollz/progressbar. Text written to the
// same screen while the line is up would land after it, so the tools write
// their report through Bar.Writer, which erases the line first; the next Add
// draws it again.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// redrawInterval bounds how often the line is drawn: 15 times a second is
// smooth to the eye and costs nothing next to a seed's run. The last item
// is always drawn.
const redrawInterval = 66 * time.Millisecond

// Bar is one progress line. Its methods are safe for concurrent use; on a
// Bar that is not shown they do nothing.
type Bar struct {
	mu     sync.Mutex
	bar    *progressbar.ProgressBar // nil when not shown
	w      io.Writer
	failed int
	drawn  bool // the line is on the screen
}

// New returns a progress line of total items on w, counted in what
// ("seeds"). It is shown only when w is a terminal and total is more than
// one.
func New(w io.Writer, total int, what string) *Bar {
	b := &Bar{w: w}
	if total < 2 || !IsTerminal(w) {
		return b
	}
	b.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionUseANSICodes(true), // erase whole lines, whatever was drawn last
		progressbar.OptionSetWidth(20),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(what),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionSetDescription("0 failed"),
		progressbar.OptionThrottle(redrawInterval),
	)
	return b
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Shown reports whether the bar draws anything.
func (b *Bar) Shown() bool { return b.bar != nil }

// Add counts one item done, failed or not, and draws the line.
func (b *Bar) Add(failed bool) {
	if b.bar == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bar.Add(1)
	if failed {
		// Describe draws the line again, unless the last draw was too
		// recent; the next one then shows the new count.
		b.failed++
		b.bar.Describe(fmt.Sprintf("%d failed", b.failed))
	}
	b.drawn = true
}

// Finish erases the line for good; later Adds draw nothing. Call it before
// the closing summary.
func (b *Bar) Finish() {
	if b.bar == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clear()
	b.bar.Exit()
}

// clear erases the line if it is on the screen.
func (b *Bar) clear() {
	if b.drawn {
		b.bar.Clear()
		b.drawn = false
	}
}

// Writer returns w wrapped so that each write first erases the progress
// line: use it for every line printed to the terminal while the bar is up,
// to w or to any other stream on the same screen. For a bar not shown it
// returns w itself.
func (b *Bar) Writer(w io.Writer) io.Writer {
	if b.bar == nil {
		return w
	}
	return &clearingWriter{b: b, w: w}
}

type clearingWriter struct {
	b *Bar
	w io.Writer
}

func (c *clearingWriter) Write(p []byte) (int, error) {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	c.b.clear()
	return c.w.Write(p)
}
