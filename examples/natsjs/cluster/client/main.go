// Command client is the workload of the natsjs example's cluster world. It
// defines a file-backed stream replicated on three servers (R3), publishes
// messages to it one at a time through any server, retrying on another one
// when a publish fails, and remembers each one the cluster acknowledged.
// Servers crash, restart and are cut off meanwhile. At the end, with faults
// held off and the network healed, it reads the whole stream back and fails
// the run if an acknowledged message is missing, changed or stored twice.
//
// Each publish and the final read are recorded as a history of the append
// model (the stream is one append-only list), so the run also checks that
// the stream holds the acknowledged messages in the order they were
// acknowledged.
//
// Usage:
//
//	client -nodes n1,n2,n3 [-messages 300] [-pause 20ms] [-for 40s]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/sf-dst/sf/sim"
)

const stream = "EVENTS"

// attempts bounds the tries of one publish, over every server in turn; with
// a second each, it outlasts a JetStream leader election.
const attempts = 30

func main() {
	nodes := flag.String("nodes", "n1,n2,n3", "comma-separated names of the NATS servers")
	messages := flag.Int("messages", 300, "messages to publish")
	pause := flag.Duration("pause", 20*time.Millisecond, "wait between two publishes")
	// Elections under crashes and partitions can stall the publishes for
	// many seconds; a bound on their time makes every seed end in the
	// check rather than at the time horizon.
	publishFor := flag.Duration("for", 40*time.Second, "stop publishing after this long, even before -messages")
	flag.Parse()

	// One connection per server, each held to its own server, so a
	// retry on the next connection goes to another node.
	var js []jetstream.JetStream
	for _, n := range strings.Split(*nodes, ",") {
		nc, err := nats.Connect("nats://"+n+":4222",
			nats.IgnoreDiscoveredServers(),
			nats.RetryOnFailedConnect(true),
			nats.MaxReconnects(-1),
			nats.ReconnectWait(50*time.Millisecond),
			nats.Timeout(time.Second))
		if err != nil {
			die("connect to "+n, err)
		}
		defer nc.Close()
		j, err := jetstream.New(nc)
		if err != nil {
			die("jetstream on "+n, err)
		}
		js = append(js, j)
	}
	cfg := jetstream.StreamConfig{
		Name:     stream,
		Subjects: []string{"ev.>"},
		Storage:  jetstream.FileStorage,
		Replicas: 3,
	}
	if err := onAny(js, 0, 60, func(ctx context.Context, j jetstream.JetStream) error {
		_, err := j.CreateOrUpdateStream(ctx, cfg)
		return err
	}); err != nil {
		die("create stream", err)
	}
	// The cluster has elected its meta leader and the stream's leader:
	// faults may start (with faults_after_setup).
	sim.SetupComplete()

	// acked[i] is the payload of message i once the cluster acknowledged it.
	acked := map[int]string{}
	order := []int{}
	n := sim.Budget(*messages)
	started := time.Now()
	sent := 0
	for i := 1; i <= n && time.Since(started) < *publishFor; i++ {
		sent = i
		payload := fmt.Sprintf("m-%d", i)
		op := sim.Invoke(0, "append", stream, payload)
		// The same message id on every attempt and every server:
		// JetStream drops a duplicate of a message it already stored,
		// so a retry after a lost ack does not store it twice.
		var ack *jetstream.PubAck
		tries := 0
		err := onAny(js, i, attempts, func(ctx context.Context, j jetstream.JetStream) error {
			tries++
			var err error
			ack, err = j.Publish(ctx, "ev."+payload, []byte(payload), jetstream.WithMsgID(payload))
			return err
		})
		if err != nil {
			// It may still be stored: a leader can commit it after
			// the client gave up.
			op.Unknown()
		} else {
			// What the ack said, for triage: the stream sequence
			// it names, and whether it was for a duplicate.
			op.Ok(pubAck{Seq: ack.Sequence, Duplicate: ack.Duplicate, Tries: tries})
			acked[i] = payload
			order = append(order, i)
		}
		time.Sleep(*pause)
	}
	fmt.Printf("client: %d of %d messages acknowledged in %v\n", len(acked), sent, time.Since(started).Round(time.Millisecond))

	// No fault while the stream is read back, and the network healed:
	// what is missing now was lost during the publishes.
	sim.QuietFor(120 * time.Second)
	got := readBack(js, len(acked))
	if lost := missing(acked, order, got); len(lost) > 0 {
		// Read once more, later: a message that shows up now was
		// stored, and the first read missed it (a stale read); one
		// still missing is lost.
		time.Sleep(10 * time.Second)
		again := readBack(js, len(acked))
		sim.Fail(fmt.Sprintf("acknowledged message lost: %s (%d acknowledged, %d in the stream; read again 10s later: %d in the stream, %d of the %d still missing)",
			lost[0], len(acked), len(got), len(again), len(missing(acked, order, again)), len(lost)))
	}
	check(got)
	fmt.Printf("client: all %d acknowledged messages are in the stream (%d messages)\n", len(acked), len(got))
}

// readBack reads the whole stream, recorded as a read of the history, and
// ends the run if it cannot.
func readBack(js []jetstream.JetStream, acked int) []string {
	var got []string
	read := sim.Invoke(0, "read", stream, nil)
	if err := onAny(js, 0, 90, func(ctx context.Context, j jetstream.JetStream) error {
		var err error
		got, err = readAll(ctx, j)
		return err
	}); err != nil {
		read.Unknown()
		if errors.Is(err, jetstream.ErrStreamNotFound) && acked > 0 {
			sim.Fail(fmt.Sprintf("stream %s lost, with %d acknowledged messages", stream, acked))
		}
		die("read the stream back", err)
	}
	read.Ok(got)
	return got
}

// missing lists the acknowledged messages that got lacks, in the order they
// were acknowledged.
func missing(acked map[int]string, order []int, got []string) []string {
	in := map[string]bool{}
	for _, p := range got {
		in[p] = true
	}
	var lost []string
	for _, i := range order {
		if !in[acked[i]] {
			lost = append(lost, acked[i])
		}
	}
	return lost
}

// pubAck is what the history keeps of an acknowledged publish.
type pubAck struct {
	Seq       uint64 `json:"seq"`
	Duplicate bool   `json:"duplicate,omitempty"`
	Tries     int    `json:"tries"`
}

// check fails the run on a message whose payload is not the one its
// subject names, and on a message stored twice despite its message id.
func check(got []string) {
	seen := map[string]bool{}
	for seq, p := range got {
		if !strings.HasPrefix(p, "m-") {
			sim.Fail(fmt.Sprintf("message at stream position %d changed: %q", seq+1, p))
		}
		if seen[p] {
			sim.Fail(fmt.Sprintf("message %s stored twice despite its message id (%d messages in the stream)", p, len(got)))
		}
		seen[p] = true
	}
}

// onAny calls f on the servers in turn, starting with server start modulo
// their number, a second for each attempt, until it succeeds or tries runs
// out; it returns the last error.
func onAny(js []jetstream.JetStream, start, tries int, f func(context.Context, jetstream.JetStream) error) error {
	var err error
	for a := 0; a < tries; a++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err = f(ctx, js[(start+a)%len(js)])
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// readAll reads every message of the stream, in order, with an ordered
// consumer and returns their payloads. A message whose payload differs from
// its subject is returned marked, so the check reports it changed.
func readAll(ctx context.Context, j jetstream.JetStream) ([]string, error) {
	s, err := j.Stream(ctx, stream)
	if err != nil {
		return nil, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return nil, err
	}
	// A member of a stream group that has no leader answers the info
	// request from its own store, which can lack messages the last
	// leader acknowledged; its answer names no leader. Its last
	// sequence would end the read too early, so wait for a leader.
	if info.Cluster != nil && info.Cluster.Leader == "" {
		return nil, errors.New("stream info answered without a stream leader")
	}
	var got []string
	if info.State.Msgs == 0 {
		return got, nil
	}
	cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return nil, err
	}
	for {
		batch, err := cons.Fetch(100, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			return nil, err
		}
		count := 0
		var last uint64
		for msg := range batch.Messages() {
			count++
			p := string(msg.Data())
			if "ev."+p != msg.Subject() {
				p = fmt.Sprintf("changed: subject %s, payload %q", msg.Subject(), p)
			}
			got = append(got, p)
			if md, err := msg.Metadata(); err == nil {
				last = md.Sequence.Stream
			}
		}
		if err := batch.Error(); err != nil {
			return nil, err
		}
		if last >= info.State.LastSeq {
			return got, nil
		}
		if count == 0 {
			return nil, errors.New("no message before the stream's last one")
		}
	}
}

func die(what string, err error) {
	fmt.Fprintf(os.Stderr, "client: %s: %v\n", what, err)
	os.Exit(1)
}
