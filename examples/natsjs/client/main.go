// Command client is the workload of the natsjs example. It publishes
// messages to a JetStream stream, one at a time, and remembers each one the
// server acknowledged. The server crashes and restarts meanwhile. At the end,
// with faults held off, it reads the whole stream back through an ordered
// consumer and fails the run if an acknowledged message is missing or
// changed.
//
// Usage:
//
//	client [-server nats://server:4222] [-messages 300] [-pause 20ms]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/sf-dst/sf/sim"
)

const stream = "EVENTS"

func main() {
	url := flag.String("server", "nats://server:4222", "the NATS server")
	messages := flag.Int("messages", 300, "messages to publish")
	pause := flag.Duration("pause", 20*time.Millisecond, "wait between two publishes")
	flag.Parse()

	nc, err := nats.Connect(*url,
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(50*time.Millisecond),
		nats.Timeout(time.Second))
	if err != nil {
		die("connect", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		die("jetstream", err)
	}
	cfg := jetstream.StreamConfig{Name: stream, Subjects: []string{"ev.>"}, Storage: jetstream.FileStorage}
	retry("create stream", func(ctx context.Context) error {
		_, err := js.CreateOrUpdateStream(ctx, cfg)
		return err
	})

	// acked[i] is the payload of message i once the server acknowledged it.
	acked := map[int]string{}
	order := []int{}
	n := sim.Budget(*messages)
	for i := 1; i <= n; i++ {
		payload := fmt.Sprintf("m-%d", i)
		// The same message id on every attempt: JetStream drops a
		// duplicate of a message it already stored, so a retry after a
		// lost ack does not store it twice.
		for attempt := 0; attempt < 5; attempt++ {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_, err := js.Publish(ctx, "ev."+payload, []byte(payload), jetstream.WithMsgID(payload))
			cancel()
			if err == nil {
				acked[i] = payload
				order = append(order, i)
				break
			}
			time.Sleep(100 * time.Millisecond)
			// A crash can take the stream itself when its
			// definition was not durable. Defining it again would
			// hide that (the new stream finds the old message
			// files), so a stream gone after acknowledged messages
			// is a failure of its own.
			ctx, cancel = context.WithTimeout(context.Background(), time.Second)
			_, err = js.Stream(ctx, stream)
			cancel()
			if errors.Is(err, jetstream.ErrStreamNotFound) {
				if len(acked) > 0 {
					sim.Fail(fmt.Sprintf("stream %s lost after a restart, with %d acknowledged messages", stream, len(acked)))
				}
				retry("create stream", func(ctx context.Context) error {
					_, err := js.CreateOrUpdateStream(ctx, cfg)
					return err
				})
			}
		}
		time.Sleep(*pause)
	}
	fmt.Printf("client: %d of %d messages acknowledged\n", len(acked), n)

	// No fault while the stream is read back: what is missing now was lost
	// by a crash during the publishes, not by one during the check.
	sim.QuietFor(60 * time.Second)
	var got map[string]bool
	retry("read the stream back", func(ctx context.Context) error {
		var err error
		got, err = readAll(ctx, js)
		return err
	})
	for _, i := range order {
		if !got[acked[i]] {
			sim.Fail(fmt.Sprintf("acknowledged message lost: %s (%d acknowledged, %d in the stream)", acked[i], len(acked), len(got)))
		}
	}
	fmt.Printf("client: all %d acknowledged messages are in the stream (%d messages)\n", len(acked), len(got))
	nc.Close()
}

// readAll reads every message of the stream with an ordered consumer and
// returns their payloads. A message whose payload differs from its subject
// counts as changed: it is left out, so the check reports it lost.
func readAll(ctx context.Context, js jetstream.JetStream) (map[string]bool, error) {
	s, err := js.Stream(ctx, stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return nil, err
	}
	got := map[string]bool{}
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
			if "ev."+string(msg.Data()) == msg.Subject() {
				got[string(msg.Data())] = true
			}
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

// retry calls f until it succeeds, with a second for each attempt, and ends
// the run after 60 attempts.
func retry(what string, f func(ctx context.Context) error) {
	var err error
	for attempt := 0; attempt < 60; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err = f(ctx)
		cancel()
		if err == nil {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	die(what, err)
}

func die(what string, err error) {
	fmt.Fprintf(os.Stderr, "client: %s: %v\n", what, err)
	os.Exit(1)
}
