// Command client is the workload of the liveness example. It adds 1 to the
// primary's total n times, each add with its own id, and exits 0 once every
// add is acknowledged.
//
// Usage:
//
//	client [-addr primary:7000] [-adds 50] [-pause 20ms] [-resume]
//
// An add that fails (an error reply, a broken connection, no reply within
// 2s) is sent again with the same id until the primary answers OK. The
// client never gives up: in liveness mode the simulator decides when waiting
// has lasted too long.
//
// With -resume the client keeps its progress in the file "progress" on its
// own disk, one line per step, fsynced: "add <i> <id>" before add i is sent
// and "ack <i>" once it is acknowledged. A client that starts again after a
// crash reads the last line and carries on from there, resending the add that
// was in flight with its id. That is only safe when the server applies each
// id once.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sf-dst/sf/sim"
)

const (
	progressName = "progress"
	replyTimeout = 2 * time.Second
	retryPause   = 50 * time.Millisecond
)

func main() {
	addr := flag.String("addr", "primary:7000", "address of the primary")
	adds := flag.Int("adds", 50, "number of adds")
	pause := flag.Duration("pause", 20*time.Millisecond, "pause between two adds")
	resume := flag.Bool("resume", false, "keep progress in the file progress and resume from it after a restart")
	flag.Parse()
	name := sim.Node()
	if name == "" {
		name = "client"
	}
	if err := workload(*addr, name, sim.Budget(*adds), *pause, *resume); err != nil {
		fmt.Fprintf(os.Stderr, "client: %v\n", err)
		os.Exit(1)
	}
}

// workload performs adds next..n-1 with ids "<name>-1" ... "<name>-n", where
// next is 0 or, with resume, where the progress file says to continue.
func workload(addr, name string, n int, pause time.Duration, resume bool) error {
	var prog *progress
	next, inFlight := 0, ""
	if resume {
		var err error
		if prog, next, inFlight, err = openProgress(progressName); err != nil {
			return err
		}
		defer prog.f.Close()
		if next > 0 || inFlight != "" {
			fmt.Printf("client: resuming at add %d of %d, in flight: %q\n", next+1, n, inFlight)
			sim.Event("client resumed", map[string]any{"next add": next + 1, "in flight": inFlight})
		}
	}
	c := &client{addr: addr}
	defer c.drop()
	for i := next; i < n; i++ {
		id := fmt.Sprintf("%s-%d", name, i+1)
		if i == next && inFlight != "" {
			id = inFlight // resend the add a crash interrupted, as it was
		}
		if err := prog.write("add %d %s", i, id); err != nil {
			return err
		}
		c.add(id)
		if err := prog.write("ack %d", i); err != nil {
			return err
		}
		time.Sleep(pause)
	}
	fmt.Printf("client: %d adds acknowledged\n", n)
	return nil
}

// progress is the client's progress file. A nil *progress writes nothing.
type progress struct{ f *os.File }

// openProgress reads the progress file at path, creating it if missing, and
// returns the index of the next add and the id of the add in flight, if any.
// A last line without its newline, which a crash can leave, is cut off.
func openProgress(path string) (p *progress, next int, inFlight string, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, 0, "", err
	}
	var good int64
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return nil, 0, "", err
		}
		good += int64(len(line))
		var i int
		var id string
		if _, err := fmt.Sscanf(line, "add %d %s\n", &i, &id); err == nil {
			next, inFlight = i, id
		} else if _, err := fmt.Sscanf(line, "ack %d\n", &i); err == nil {
			next, inFlight = i+1, ""
		} else {
			f.Close()
			return nil, 0, "", fmt.Errorf("%s: bad line %q", path, line)
		}
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, 0, "", err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, 0, "", err
	}
	return &progress{f: f}, next, inFlight, nil
}

// write appends one line and fsyncs it.
func (p *progress) write(format string, args ...any) error {
	if p == nil {
		return nil
	}
	if _, err := fmt.Fprintf(p.f, format+"\n", args...); err != nil {
		return err
	}
	return p.f.Sync()
}

// client holds one connection to the primary, dialled on demand.
type client struct {
	addr string
	conn net.Conn
	r    *bufio.Reader
}

// add sends "ADD <id> 1" until the primary answers OK.
func (c *client) add(id string) {
	for {
		reply, err := c.roundTrip("ADD " + id + " 1")
		if err == nil && strings.HasPrefix(reply, "OK ") {
			if _, err := strconv.Atoi(strings.TrimPrefix(reply, "OK ")); err == nil {
				return
			}
		}
		time.Sleep(retryPause)
	}
}

// roundTrip sends one request line and returns the reply without its
// newline. After any error it drops the connection, so that a late reply is
// never read as the answer to a later request.
func (c *client) roundTrip(req string) (string, error) {
	if c.conn == nil {
		conn, err := sim.Dial(c.addr)
		if err != nil {
			return "", err
		}
		c.conn, c.r = conn, bufio.NewReader(conn)
	}
	c.conn.SetDeadline(time.Now().Add(replyTimeout))
	if _, err := io.WriteString(c.conn, req+"\n"); err != nil {
		c.drop()
		return "", err
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		c.drop()
		return "", err
	}
	return strings.TrimSuffix(line, "\n"), nil
}

func (c *client) drop() {
	if c.conn != nil {
		c.conn.Close()
		c.conn, c.r = nil, nil
	}
}
