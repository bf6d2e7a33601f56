// Package progress shows how far long work has got (a sweep's seeds, the
// seeds sf-shrink shrinks, sf-mutate's mutants) on stderr: done/total, the
// rate, the failures so far, the time elapsed and the time left.
//
// On a terminal that is one line, drawn again in place by
// github.com/schollz/progressbar. Text written to the same screen while the
// line is up would land after it, so the tools write their report through
// Bar.Writer, which erases the line first; the next Add draws it again.
//
// Anywhere else (a file, a pipe, a test's buffer) a Bar writes nothing,
// so records and logs never hold progress bytes, unless the environment
// variable SF_PROGRESS asks for plain lines at an interval ("5s"): then a
// stderr that is a file or a pipe gets one line per interval, as a CI log
// or make demo's output wants. A writer that is not a file (a buffer of a
// test, of sf-mcp or of simtest) never gets them.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// redrawInterval bounds how often the line is drawn: 15 times a second is
// smooth to the eye and costs nothing next to a seed's run. The last item
// is always drawn.
const redrawInterval = 66 * time.Millisecond

// EnvVar is the environment variable that asks for progress lines on a
// stderr that is not a terminal: a Go duration, the time between lines.
const EnvVar = "SF_PROGRESS"

// IntervalMin is the shortest interval SF_PROGRESS may ask for.
const IntervalMin = 100 * time.Millisecond

// Interval returns the interval SF_PROGRESS asks for: 0 when it is unset
// or empty, or an error that says what is wrong with it. The tools check
// it before they start (lib/manual), so that a typo is a usage error and
// not a run without its progress lines.
func Interval() (time.Duration, error) {
	v := strings.TrimSpace(os.Getenv(EnvVar))
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < IntervalMin {
		return 0, fmt.Errorf("%s=%q: want the time between progress lines, a duration of at least %v such as 5s", EnvVar, v, IntervalMin)
	}
	return d, nil
}

// Bar is one progress line on a terminal, or progress lines at an
// interval elsewhere. Its methods are safe for concurrent use; on a Bar
// that is not shown they do nothing.
type Bar struct {
	mu     sync.Mutex
	bar    *progressbar.ProgressBar // nil when no line is drawn in place
	w      io.Writer
	failed int
	drawn  bool // the line is on the screen

	// lines says the Bar writes lines at an interval (SF_PROGRESS); it is
	// set by New and never changes, so it is read without the lock.
	lines       bool
	total, done int
	what        string
	start       time.Time
	stop        chan struct{} // closed by Finish
	stopped     chan struct{} // closed by the goroutine that writes the lines
	finish      sync.Once
}

// New returns a progress line of total items on w, counted in what
// ("seeds"). It is shown only when total is more than one, and w is a
// terminal, or a file or a pipe with SF_PROGRESS set (Interval).
func New(w io.Writer, total int, what string) *Bar {
	b := &Bar{w: w}
	if total < 2 {
		return b
	}
	if !IsTerminal(w) {
		if every, err := Interval(); err == nil && every > 0 {
			if _, ok := w.(*os.File); ok {
				b.startLines(total, what, every)
			}
		}
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

// IsTerminal reports whether the stream s (an io.Reader or io.Writer) is a
// terminal: a file whose descriptor the terminal driver answers for, not
// merely a character device such as /dev/null.
func IsTerminal(s any) bool {
	f, ok := s.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// startLines writes a line on b.w every interval until Finish.
func (b *Bar) startLines(total int, what string, every time.Duration) {
	b.lines, b.total, b.what, b.start = true, total, what, time.Now()
	b.stop, b.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(b.stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				b.mu.Lock()
				fmt.Fprintln(b.w, b.line(time.Since(b.start)))
				b.mu.Unlock()
			}
		}
	}()
}

// line is one progress line after elapsed: "progress 120/200 seeds, 3
// failed, 4.1 seeds/s, 29s elapsed, about 19s left".
func (b *Bar) line(elapsed time.Duration) string {
	s := fmt.Sprintf("progress %d/%d %s, %d failed", b.done, b.total, b.what, b.failed)
	if elapsed <= 0 {
		return s
	}
	rate := float64(b.done) / elapsed.Seconds()
	s += fmt.Sprintf(", %.1f %s/s, %s elapsed", rate, b.what, elapsed.Round(time.Second))
	if rate > 0 && b.done < b.total {
		left := time.Duration(float64(b.total-b.done) / rate * float64(time.Second))
		s += fmt.Sprintf(", about %s left", left.Round(time.Second))
	}
	return s
}

// Shown reports whether the bar draws anything: a line on a terminal, or
// lines at an interval.
func (b *Bar) Shown() bool { return b.bar != nil || b.lines }

// Add counts one item done, failed or not, and draws the line.
func (b *Bar) Add(failed bool) {
	if b.lines {
		b.mu.Lock()
		b.done++
		if failed {
			b.failed++
		}
		b.mu.Unlock()
		return
	}
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

// Finish erases the line for good, or stops the lines at an interval;
// later Adds draw nothing. Call it before the closing summary; calling it
// again does nothing.
func (b *Bar) Finish() {
	if b.lines {
		b.finish.Do(func() {
			close(b.stop)
			<-b.stopped
		})
		return
	}
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
	if b.bar != nil && b.drawn {
		b.bar.Clear()
		b.drawn = false
	}
}

// Writer returns w wrapped so that each write first erases the progress
// line: use it for every line printed to the terminal while the bar is up,
// to w or to any other stream on the same screen. For a bar not shown it
// returns w itself.
func (b *Bar) Writer(w io.Writer) io.Writer {
	if b.bar == nil && !b.lines {
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
