package wasi

import (
	"math"

	"github.com/sf-dst/sf/lib/engine/core"
)

// pollWake is a node that parked in poll_oneoff running again.
var pollWake = core.Event{Name: "poll_oneoff wake", ID: 45}

// pollOneoff answers Go's runtime when it has nothing to run: a clock
// subscription for its next timer plus one per fd it waits on. If nothing is
// ready, the node parks until the scheduler finds one of them ready.
func pollOneoff(c *core.Call, inPtr, outPtr, nsubs, neventsPtr uint32) uint64 {
	in := c.In
	if nsubs == 0 {
		c.Key(0, 0)
		return core.EInval
	}
	mem := c.Mem()
	subs, ok := mem.Read(inPtr, 48*nsubs)
	if !ok {
		c.Key(uint64(nsubs), 0)
		return core.EFault
	}
	r := in.Run
	var deadline int64
	if c.Resuming() { // a fork copied the node waiting here
		deadline = in.ParkAgain(c.Ctx)
		c.Event(pollWake, 0, 0)
	} else {
		deadline = pollDeadline(c, subs, nsubs)
		c.Key(uint64(nsubs), uint64(deadline-r.Now))
		if !in.Ready(deadline) {
			in.ParkUntil(c.Ctx, deadline)
			c.Event(pollWake, 0, 0)
		}
	}
	var nev uint32
	for i := uint32(0); i < nsubs; i++ {
		sub := subs[48*i:]
		var ev [32]byte
		copy(ev[0:8], sub[0:8])
		ready := false
		switch sub[8] {
		case 0:
			ready = r.Now >= deadline
			ev[10] = 0
		case 1, 2:
			fd := int32(getU32(sub[16:]))
			ev[10] = sub[8]
			e := in.FD(fd)
			if e == nil {
				ready = true
				ev[8] = core.EBadf
			} else if in.FDReady(fd, sub[8] == 2) {
				ready = true
				if e.Kind == core.DescSock && sub[8] == 1 {
					putU64(ev[16:], uint64(e.Sock.Buffered()))
					if e.Sock.Readable() && e.Sock.Buffered() == 0 {
						ev[24] = 1 // hangup: end of stream or an error
					}
				}
			}
		}
		if ready {
			// Copied into a view of the guest's memory rather than passed
			// to Write, through which the array would escape: a heap
			// allocation for every event of every poll.
			out, ok := mem.Read(outPtr+32*nev, 32)
			if !ok {
				return core.EFault
			}
			copy(out, ev[:])
			nev++
		}
	}
	if !mem.WriteUint32Le(neventsPtr, nev) {
		return core.EFault
	}
	return core.ESuccess
}

// pollDeadline reads poll_oneoff's subscriptions: it returns the virtual
// time of the earliest clock and sets the instance's Waits to the
// descriptors.
func pollDeadline(c *core.Call, subs []byte, nsubs uint32) int64 {
	in := c.In
	r := in.Run
	deadline := int64(math.MaxInt64)
	in.Waits = in.Waits[:0]
	for i := uint32(0); i < nsubs; i++ {
		sub := subs[48*i:]
		switch sub[8] {
		case 0: // clock
			clockID := getU32(sub[16:])
			timeout := int64(getU64(sub[24:]))
			var d int64
			if getU16(sub[40:])&1 != 0 { // absolute
				if clockID == 0 {
					d = timeout - (r.Wall(in.Node) - r.Now)
				} else {
					d = timeout - 1 - in.Node.MonoJumps
				}
			} else {
				d = r.Now + timeout
				if d < r.Now || timeout < 0 { // overflow: wait forever
					d = math.MaxInt64
				} else if f := in.Node.Slow; f > 1 {
					// A slowed node waits f times as long for its timers. Go
					// asks again with the time left after every early wake,
					// so each timer deadline is stretched once, from the
					// first time the node waited for it.
					d = in.Stretch(d, timeout, f)
				}
			}
			deadline = min(deadline, r.TimerAt(d))
		case 1, 2:
			in.Waits = append(in.Waits, core.Wait{FD: int32(getU32(sub[16:])), Write: sub[8] == 2})
		}
	}
	return deadline
}

func getU16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func getU32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func getU64(b []byte) uint64 { return uint64(getU32(b)) | uint64(getU32(b[4:]))<<32 }
