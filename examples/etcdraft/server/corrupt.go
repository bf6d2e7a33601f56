package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"go.etcd.io/etcd/server/v3/etcdserver/api/snap"
	"go.etcd.io/etcd/server/v3/storage/wal/walpb"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"github.com/sf-dst/sf/sim"
)

// corruptTries is how many times -on-corrupt refuse opens the WAL before it
// takes a checksum error for damage on the disk rather than a bad read: a
// read fault (read_corrupt) flips bits on the way and goes away on the next
// read, damage stays.
const corruptTries = 3

// isCorrupt says whether a start failed on a record that is not what was
// written: its checksum fails, it does not even parse (a flipped bit in its
// length or framing: etcd's decoder returns protobuf's error before it gets
// to the checksum), or its type is none etcd knows (the checksum covers a
// record's data, not its type; etcd returns a plain error for that, hence
// the match on its text).
func isCorrupt(err error) bool {
	return errors.Is(err, walpb.ErrCRCMismatch) || errors.Is(err, proto.Error) ||
		strings.Contains(err.Error(), "unexpected block type")
}

// refuse is -on-corrupt refuse: a member whose WAL fails its checksum stops
// in plain sight instead of exiting into a restart loop. It takes no part in
// raft and answers every client request with "ERR corrupt", which is the
// stop an operator sees in etcd's log (lg.Fatal "failed to read WAL") made
// visible to the checker; the client's finally check counts it as the clear
// stop the contract allows.
func refuse(addr string, cause error) {
	fmt.Printf("server: refusing to serve: the wal failed its checks %d times: %v\n", corruptTries, cause)
	sim.Event("corrupt-stop", map[string]string{"error": cause.Error()})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		failStop("listen for clients", err)
	}
	answer := "ERR corrupt " + strings.ReplaceAll(cause.Error(), "\n", " ")
	for {
		c, err := ln.Accept()
		if err != nil {
			failStop("accept", err)
		}
		go func() {
			defer c.Close()
			in := bufio.NewReader(io.LimitReader(c, 1<<20))
			for {
				if _, err := in.ReadString('\n'); err != nil {
					return
				}
				if _, err := io.WriteString(c, answer+"\n"); err != nil {
					return
				}
			}
		}()
	}
}

// restoreBroken is -restore-broken, the workaround for E3: etcd's
// snapshotter renames a snapshot file to .broken after one failed read of
// it, so a read fault that the next read would not repeat sets a good
// snapshot aside for good, and a member that got its newest snapshot from the
// leader (its WAL has a gap before it) cannot replay from an older one. This
// reads each .broken file again at start and puts back those that now pass
// their checksum.
func restoreBroken(lg *zap.Logger, snapdir string, syncDir bool) error {
	names, err := filepath.Glob(filepath.Join(snapdir, "*.snap.broken"))
	if err != nil {
		return err
	}
	restored := false
	for _, b := range names {
		if _, err := snap.Read(lg, b); err != nil {
			continue // damaged on the disk: it stays set aside
		}
		orig := strings.TrimSuffix(b, ".broken")
		if _, err := os.Stat(orig); err == nil {
			continue
		}
		if err := os.Rename(b, orig); err != nil {
			return fmt.Errorf("restore %s: %w", b, err)
		}
		fmt.Printf("server: restored %s, which reads back whole\n", filepath.Base(orig))
		restored = true
	}
	if restored {
		return fsyncDir(syncDir, snapdir)
	}
	return nil
}
