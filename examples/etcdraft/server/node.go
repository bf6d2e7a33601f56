package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/fileutil"
	"go.etcd.io/etcd/server/v3/etcdserver/api/snap"
	"go.etcd.io/etcd/server/v3/storage/wal"
	"go.etcd.io/etcd/server/v3/storage/wal/walpb"
	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/protobuf/proto"
)

// tick is raft's logical clock: heartbeats every 2 ticks, elections after
// 10 to 20, so a run of a few virtual seconds sees many of both.
const tick = 20 * time.Millisecond

type nodeConfig struct {
	id, snapCount, catchUp uint64
	peers                  int
	dir                    string // etcd's member directory: wal/ and snap/ in it
	segment                int64
	// syncDir fsyncs the directories etcd's code leaves unsynced (see
	// fsyncDir): the workaround for the finding of seedfall.strict_dirs.json.
	syncDir bool
	// restoreBroken puts back snapshot files etcd set aside after a read
	// that failed but now read back whole (restoreBroken in corrupt.go).
	restoreBroken bool
}

// raftNode is raftexample's raftNode: raft's node, its MemoryStorage, and
// the WAL and snapshotter that make them durable.
type raftNode struct {
	cfg         nodeConfig
	node        raft.Node
	storage     *raft.MemoryStorage
	wal         *wal.WAL
	snapshotter *snap.Snapshotter
	kv          *store
	tr          *transport
	lg          *zap.Logger
	restarted   bool

	confState     *raftpb.ConfState
	snapshotIndex uint64

	mu       sync.Mutex
	lead     uint64
	reads    map[string]chan uint64 // ReadIndex requests by context, answered with the read index
	appliedC []applyWaiter
}

type applyWaiter struct {
	index uint64
	c     chan struct{}
}

func zapLogger() *zap.Logger {
	enc := zapcore.NewConsoleEncoder(zapcore.EncoderConfig{MessageKey: "msg", LevelKey: "level", EncodeLevel: zapcore.LowercaseLevelEncoder})
	return zap.New(zapcore.NewCore(enc, zapcore.Lock(os.Stderr), zapcore.WarnLevel))
}

// startNode opens (or creates) the WAL and the snapshots the way etcd's
// bootstrap does, rebuilds the state machine from the newest snapshot the
// WAL knows of, and starts or restarts raft.
func startNode(cfg nodeConfig, kv *store, tr *transport) (*raftNode, error) {
	lg := zapLogger()
	wal.SegmentSizeBytes = cfg.segment
	waldir, snapdir := filepath.Join(cfg.dir, "wal"), filepath.Join(cfg.dir, "snap")
	for _, d := range []string{filepath.Dir(cfg.dir), cfg.dir, snapdir} {
		if err := fileutil.TouchDirAll(lg, d); err != nil {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
		if err := fsyncDir(cfg.syncDir, filepath.Dir(d)); err != nil {
			return nil, err
		}
	}
	rn := &raftNode{cfg: cfg, storage: raft.NewMemoryStorage(), snapshotter: snap.New(lg, snapdir), kv: kv, tr: tr, lg: lg,
		reads: map[string]chan uint64{}}
	rc := &raft.Config{
		ID:                        cfg.id,
		ElectionTick:              10,
		HeartbeatTick:             2,
		Storage:                   rn.storage,
		MaxSizePerMsg:             64 * 1024,
		MaxInflightMsgs:           64,
		MaxUncommittedEntriesSize: 1 << 20,
		CheckQuorum:               true,
		PreVote:                   true,
		ReadOnlyOption:            raft.ReadOnlySafe,
		Logger:                    quietLogger{},
	}
	if wal.Exist(waldir) {
		rn.restarted = true
		if cfg.restoreBroken {
			if err := restoreBroken(lg, snapdir, cfg.syncDir); err != nil {
				return nil, err
			}
		}
		if err := rn.replay(waldir); err != nil {
			return nil, err
		}
		rc.Applied = rn.snapshotIndex
		rn.node = raft.RestartNode(rc)
	} else {
		w, err := wal.Create(lg, waldir, nil)
		if err != nil {
			return nil, fmt.Errorf("create wal: %w", err)
		}
		if err := fsyncDir(cfg.syncDir, waldir); err != nil {
			return nil, err
		}
		rn.wal = w
		var peers []raft.Peer
		for i := 1; i <= cfg.peers; i++ {
			peers = append(peers, raft.Peer{ID: uint64(i)})
		}
		rn.node = raft.StartNode(rc, peers)
	}
	return rn, nil
}

// replay is etcd's restart path: the newest snapshot that a WAL snapshot
// record names and the committed HardState covers, then the WAL from there
// (repaired once if its tail is torn, as openWALFromSnapshot does).
func (rn *raftNode) replay(waldir string) error {
	walSnaps, err := wal.ValidSnapshotEntries(rn.lg, waldir)
	if err != nil {
		return fmt.Errorf("read wal snapshot records: %w", err)
	}
	snapshot, err := rn.snapshotter.LoadNewestAvailable(walSnaps)
	if err != nil && !errors.Is(err, snap.ErrNoSnapshot) {
		return fmt.Errorf("load snapshot: %w", err)
	}
	walsnap := &walpb.Snapshot{}
	if snapshot != nil {
		walsnap.Index, walsnap.Term = new(snapshot.Metadata.GetIndex()), new(snapshot.Metadata.GetTerm())
		if err := rn.storage.ApplySnapshot(snapshot); err != nil {
			return fmt.Errorf("apply snapshot %d: %w", snapshot.Metadata.GetIndex(), err)
		}
		if err := rn.kv.restore(snapshot.Data); err != nil {
			return fmt.Errorf("restore snapshot %d: %w", snapshot.Metadata.GetIndex(), err)
		}
		rn.confState = snapshot.Metadata.ConfState
		rn.snapshotIndex = snapshot.Metadata.GetIndex()
		rn.kv.setApplied(rn.snapshotIndex)
	}
	repaired := false
	for {
		w, err := wal.Open(rn.lg, waldir, walsnap)
		if err != nil {
			return fmt.Errorf("open wal: %w", err)
		}
		_, st, ents, err := w.ReadAll()
		if err != nil {
			w.Close()
			if repaired || !errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("read wal, cannot be repaired: %w", err)
			}
			if !wal.Repair(rn.lg, waldir) {
				return fmt.Errorf("repair wal: %w", err)
			}
			repaired = true
			continue
		}
		rn.wal = w
		if err := rn.storage.SetHardState(st); err != nil {
			return fmt.Errorf("set hard state: %w", err)
		}
		if err := rn.storage.Append(ents); err != nil {
			return fmt.Errorf("append %d wal entries: %w", len(ents), err)
		}
		fmt.Printf("server: replayed snapshot at %d, %d wal entries, hard state term %d commit %d\n",
			rn.snapshotIndex, len(ents), st.GetTerm(), st.GetCommit())
		return nil
	}
}

func (rn *raftNode) applied() uint64 { return rn.kv.appliedIndex() }

// run is the Ready loop, in etcd's order: the snapshot file and its WAL
// record, then the HardState and entries, fsynced, before any message of
// this Ready leaves and before anything is applied.
func (rn *raftNode) run() {
	t := time.NewTicker(tick)
	defer t.Stop()
	go rn.purge()
	for {
		select {
		case <-t.C:
			rn.node.Tick()
		case rd := <-rn.node.Ready():
			rn.ready(rd)
			rn.node.Advance()
		}
	}
}

func (rn *raftNode) ready(rd raft.Ready) {
	if rd.SoftState != nil {
		rn.mu.Lock()
		rn.lead = rd.SoftState.Lead
		rn.mu.Unlock()
	}
	if !raft.IsEmptySnap(rd.Snapshot) {
		if err := rn.saveSnap(rd.Snapshot); err != nil {
			failStop("save received snapshot", err)
		}
	}
	if err := rn.wal.Save(rd.HardState, rd.Entries); err != nil {
		failStop("save to wal", err)
	}
	if !raft.IsEmptySnap(rd.Snapshot) {
		if err := rn.wal.Sync(); err != nil {
			failStop("sync wal", err)
		}
		if err := rn.storage.ApplySnapshot(rd.Snapshot); err != nil {
			failStop("apply received snapshot", err)
		}
		if err := rn.kv.restore(rd.Snapshot.Data); err != nil {
			failStop("restore received snapshot", err)
		}
		rn.confState = rd.Snapshot.Metadata.ConfState
		rn.snapshotIndex = rd.Snapshot.Metadata.GetIndex()
		rn.kv.setApplied(rn.snapshotIndex)
		if err := rn.wal.ReleaseLockTo(rn.snapshotIndex); err != nil {
			failStop("release wal locks", err)
		}
		rn.notifyApplied()
	}
	if err := rn.storage.Append(rd.Entries); err != nil {
		failStop("append to raft storage", err)
	}
	rn.tr.send(rd.Messages, rn.node)
	rn.apply(rd.CommittedEntries)
	rn.readStates(rd.ReadStates)
	rn.maybeSnapshot()
}

// apply hands committed entries to the state machine, skipping those a
// snapshot already holds, and answers the clients waiting on them.
func (rn *raftNode) apply(ents []*raftpb.Entry) {
	if len(ents) == 0 {
		return
	}
	applied := rn.kv.appliedIndex()
	if first := ents[0].GetIndex(); first > applied+1 {
		failStop("apply", fmt.Errorf("first committed entry %d is past applied index %d + 1", first, applied))
	}
	for _, e := range ents {
		if e.GetIndex() <= applied {
			continue
		}
		switch e.GetType() {
		case raftpb.EntryType_EntryNormal:
			if len(e.Data) > 0 {
				rn.kv.apply(e.Data)
			}
		case raftpb.EntryType_EntryConfChange:
			var cc raftpb.ConfChange
			if err := proto.Unmarshal(e.Data, &cc); err != nil {
				failStop("decode conf change", err)
			}
			rn.confState = rn.node.ApplyConfChange(&cc)
		}
		rn.kv.setApplied(e.GetIndex())
	}
	rn.notifyApplied()
}

// maybeSnapshot is raftexample's maybeTriggerSnapshot with etcd's storage
// calls: snapshot the state machine every snapCount entries, save it (file,
// then WAL record), let the WAL release older segments, and compact the
// in-memory log, keeping catchUp entries for followers a little behind.
func (rn *raftNode) maybeSnapshot() {
	applied := rn.kv.appliedIndex()
	if applied-rn.snapshotIndex <= rn.cfg.snapCount {
		return
	}
	snapshot, err := rn.storage.CreateSnapshot(applied, rn.confState, rn.kv.snapshot())
	if err != nil {
		failStop("create snapshot", err)
	}
	if err := rn.saveSnap(snapshot); err != nil {
		failStop("save snapshot", err)
	}
	if err := rn.wal.ReleaseLockTo(applied); err != nil {
		failStop("release wal locks", err)
	}
	compact := uint64(1)
	if applied > rn.cfg.catchUp {
		compact = applied - rn.cfg.catchUp
	}
	if err := rn.storage.Compact(compact); err != nil && !errors.Is(err, raft.ErrCompacted) {
		failStop("compact", err)
	}
	rn.snapshotIndex = applied
}

// saveSnap is etcd's storage.SaveSnap: the snapshot file first, then its
// record in the WAL, so that no WAL record names a missing file (an orphan
// file is harmless).
func (rn *raftNode) saveSnap(s *raftpb.Snapshot) error {
	walSnap := &walpb.Snapshot{Index: new(s.Metadata.GetIndex()), Term: new(s.Metadata.GetTerm()), ConfState: s.Metadata.ConfState}
	if err := rn.snapshotter.SaveSnap(s); err != nil {
		return err
	}
	if err := fsyncDir(rn.cfg.syncDir, filepath.Join(rn.cfg.dir, "snap")); err != nil {
		return err
	}
	return rn.wal.SaveSnapshot(walSnap)
}

// fsyncDir fsyncs dir when on is set. etcd's code creates three things
// whose directory entries it never syncs: wal.Create fsyncs the parent of
// the WAL directory after renaming it into place, but not the directory
// itself, which holds the first segment; fileutil.TouchDirAll makes the
// data, member and snap directories without syncing their parents; and
// Snapshotter.SaveSnap fsyncs a snapshot file but not the snap directory.
// Under strict directory semantics a crash can drop any of them.
func fsyncDir(on bool, dir string) error {
	if !on {
		return nil
	}
	d, err := fileutil.OpenDir(dir)
	if err != nil {
		return fmt.Errorf("open %s to fsync it: %w", dir, err)
	}
	defer d.Close()
	if err := fileutil.Fsync(d); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

// purge removes old WAL segments (those whose locks ReleaseLockTo dropped)
// and old snapshot files, keeping a few of each, as etcd's purgeFile does.
func (rn *raftNode) purge() {
	dir := rn.cfg.dir
	walErr := fileutil.PurgeFile(rn.lg, filepath.Join(dir, "wal"), "wal", 3, 500*time.Millisecond, nil)
	snapErr := fileutil.PurgeFile(rn.lg, filepath.Join(dir, "snap"), "snap", 3, 500*time.Millisecond, nil)
	select {
	case err := <-walErr:
		failStop("purge wal files", err)
	case err := <-snapErr:
		failStop("purge snap files", err)
	}
}

func (rn *raftNode) leader() uint64 {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.lead
}

// readIndex asks raft for a read index and waits for it to be applied here.
func (rn *raftNode) readIndex(ctx context.Context, rctx string) error {
	c := make(chan uint64, 1)
	rn.mu.Lock()
	rn.reads[rctx] = c
	rn.mu.Unlock()
	defer func() {
		rn.mu.Lock()
		delete(rn.reads, rctx)
		rn.mu.Unlock()
	}()
	if err := rn.node.ReadIndex(ctx, []byte(rctx)); err != nil {
		return err
	}
	select {
	case idx := <-c:
		return rn.waitApplied(ctx, idx)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (rn *raftNode) readStates(rs []raft.ReadState) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	for _, r := range rs {
		if c, ok := rn.reads[string(r.RequestCtx)]; ok {
			select {
			case c <- r.Index:
			default:
			}
		}
	}
}

// waitApplied returns once the state machine has applied index.
func (rn *raftNode) waitApplied(ctx context.Context, index uint64) error {
	rn.mu.Lock()
	if rn.kv.appliedIndex() >= index {
		rn.mu.Unlock()
		return nil
	}
	c := make(chan struct{})
	rn.appliedC = append(rn.appliedC, applyWaiter{index, c})
	rn.mu.Unlock()
	select {
	case <-c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (rn *raftNode) notifyApplied() {
	applied := rn.kv.appliedIndex()
	rn.mu.Lock()
	defer rn.mu.Unlock()
	keep := rn.appliedC[:0]
	for _, w := range rn.appliedC {
		if w.index <= applied {
			close(w.c)
		} else {
			keep = append(keep, w)
		}
	}
	rn.appliedC = keep
}

// quietLogger keeps raft's warnings and errors and drops its chatter;
// Fatal and Panic stay what they are in raft (an invariant broken, such as
// a log that lost committed entries), which sf reports as a failure.
type quietLogger struct{}

func (quietLogger) Debug(...any)          {}
func (quietLogger) Debugf(string, ...any) {}
func (quietLogger) Info(...any)           {}
func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Warning(v ...any) {
	fmt.Fprintln(os.Stderr, append([]any{"raft warning:"}, v...)...)
}
func (quietLogger) Warningf(f string, v ...any) {
	fmt.Fprintf(os.Stderr, "raft warning: "+f+"\n", v...)
}
func (quietLogger) Error(v ...any)            { fmt.Fprintln(os.Stderr, append([]any{"raft error:"}, v...)...) }
func (quietLogger) Errorf(f string, v ...any) { fmt.Fprintf(os.Stderr, "raft error: "+f+"\n", v...) }
func (quietLogger) Fatal(v ...any)            { panic(fmt.Sprint(v...)) }
func (quietLogger) Fatalf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
func (quietLogger) Panic(v ...any)            { panic(fmt.Sprint(v...)) }
func (quietLogger) Panicf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
