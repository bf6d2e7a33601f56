// Command client is the workload of the httpkv example. It writes k1=v1,
// k2=v2, ... to the primary with PUT requests, one at a time, and remembers
// every write the primary acknowledged with 200. Then it reads every
// acknowledged key back: a key that is missing or holds another value fails
// the run, since the service promised to keep it.
//
// Usage:
//
//	client [-primary primary:8080] [-backup backup:8080] [-writes 100]
//
// Each request times out after 300ms. A primary that answers 503 (a
// synchronous primary that cannot reach its backup) is asked again. A primary
// that does not answer at all, 3 times in a row, is taken for dead: the client
// fails over to the backup, stops writing, and reads every acknowledged key
// from the backup instead. That is where the planted bug of the server shows:
// a write the primary acknowledged before the backup had it is not there.
//
// The client uses the sim package for its checks (sim.Assert, which panics
// outside the simulator) and its properties, and plain net/http for
// everything else.
package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/sf-dst/sf/sim"
)

const (
	requestTimeout = 300 * time.Millisecond
	// failoverAfter is how many requests in a row the primary must leave
	// unanswered before the client fails over. Errors before the primary
	// first answered do not count: it may still be starting.
	failoverAfter = 3
	retryPause    = 50 * time.Millisecond
	// pauseBetweenWrites spreads the writes over a few seconds of virtual
	// time, so that partitions land among them.
	pauseBetweenWrites = 10 * time.Millisecond
	// retryFor bounds the retries of one request; reaching it fails the run.
	retryFor = 30 * time.Second
)

func main() {
	primary := flag.String("primary", "primary:8080", "the primary, as host:port")
	backup := flag.String("backup", "backup:8080", "the backup, as host:port")
	writes := flag.Int("writes", 100, "number of keys to write")
	flag.Parse()
	c := newClient(*primary, *backup)
	n := sim.Budget(*writes)
	if err := c.run(n); err != nil {
		fmt.Fprintf(os.Stderr, "client: %v\n", err)
		os.Exit(1)
	}
	sim.Sometimes(c.failedOver, "the client failed over to the backup")
	where := "the primary"
	if c.failedOver {
		where = "the backup"
	}
	fmt.Printf("client: %d of %d writes acknowledged, all readable from %s\n", len(c.acked), n, where)
}

type client struct {
	primary, backup string // host:port
	http            *http.Client

	acked      []int // numbers of the acknowledged writes, in order
	reached    bool  // the primary has answered at least once
	misses     int   // requests in a row the primary left unanswered
	failedOver bool
}

func newClient(primary, backup string) *client {
	return &client{
		primary: primary,
		backup:  backup,
		http:    &http.Client{Timeout: requestTimeout, Transport: &http.Transport{}},
	}
}

func key(i int) string   { return fmt.Sprintf("k%d", i) }
func value(i int) string { return fmt.Sprintf("v%d", i) }

// run writes keys 1..n, stopping early if it fails over, and then checks
// every acknowledged write. A lost write fails through sim.Assert; an error
// is a request that kept failing for retryFor, or an answer the service
// should never give.
func (c *client) run(n int) error {
	for i := 1; i <= n && !c.failedOver; i++ {
		if err := c.put(i); err != nil {
			return err
		}
		time.Sleep(pauseBetweenWrites)
	}
	return c.checkAcked()
}

// put writes key i to the primary until it is acknowledged or the client
// fails over.
func (c *client) put(i int) error {
	k := key(i)
	start := time.Now()
	for {
		status, _, err := c.do(http.MethodPut, c.primary, k, value(i))
		switch {
		case err == nil && status == http.StatusOK:
			c.acked = append(c.acked, i)
			return nil
		case err == nil && status != http.StatusServiceUnavailable:
			return fmt.Errorf("PUT %s: the primary answered %d", k, status)
		case err != nil && c.missed(k, err):
			return nil
		}
		if time.Since(start) >= retryFor {
			return fmt.Errorf("PUT %s: gave up after %s: %s", k, retryFor, describe(status, err))
		}
		time.Sleep(retryPause)
	}
}

// checkAcked reads every acknowledged key back, from the primary or, once the
// client has failed over, from the backup. A failover in the middle starts
// the check again on the backup.
func (c *client) checkAcked() error {
	for j := 0; j < len(c.acked); {
		i := c.acked[j]
		k, want := key(i), value(i)
		server := c.primary
		if c.failedOver {
			server = c.backup
		}
		start := time.Now()
		status, body, err := c.do(http.MethodGet, server, k, "")
		for err != nil || status >= 500 {
			if err != nil && !c.failedOver && c.missed(k, err) {
				break
			}
			if time.Since(start) >= retryFor {
				return fmt.Errorf("GET %s from %s: gave up after %s: %s", k, server, retryFor, describe(status, err))
			}
			time.Sleep(retryPause)
			status, body, err = c.do(http.MethodGet, server, k, "")
		}
		if err != nil { // failed over just now
			j = 0
			continue
		}
		got := body
		if status != http.StatusOK {
			got = fmt.Sprintf("%d %s", status, http.StatusText(status))
		}
		if c.failedOver {
			sim.Assert(got == want, fmt.Sprintf("acknowledged write lost after failover: %s=%s, backup answers %q", k, want, got))
		} else {
			sim.Assert(got == want, fmt.Sprintf("acknowledged write lost: %s=%s, primary answers %q", k, want, got))
		}
		j++
	}
	return nil
}

// missed counts a request to the primary that got no answer, and fails over
// when it is the failoverAfter-th in a row. It reports whether the client
// has failed over.
func (c *client) missed(k string, err error) bool {
	if !c.reached {
		return false
	}
	c.misses++
	if c.misses < failoverAfter {
		return false
	}
	c.failedOver = true
	fmt.Printf("client: the primary did not answer %d times in a row (%v); failing over to the backup with %d acknowledged writes\n",
		c.misses, err, len(c.acked))
	sim.Event("failover", map[string]any{"during": k, "acknowledged": len(c.acked), "error": err.Error()})
	return true
}

// do sends one request for key k to server and returns the status and body
// of the answer. Any answer from the primary resets the count of misses.
func (c *client) do(method, server, k, body string) (status int, answer string, err error) {
	var r io.Reader = http.NoBody
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, "http://"+server+"/kv/"+k, r)
	if err != nil {
		return 0, "", err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", err
	}
	if server == c.primary {
		c.reached, c.misses = true, 0
	}
	return resp.StatusCode, string(b), nil
}

func describe(status int, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("answered %d", status)
}
