package core

import "github.com/sf-dst/sf/lib/schedule"

// Fault is one entry of a fault schedule; the schedule package defines its
// file form and checks.
type Fault = schedule.Fault

// Dur is virtual time in nanoseconds that reads and writes as a Go duration
// string.
type Dur = schedule.Dur

// Fault kinds the engine plans and applies, named as the schedule package
// names them.
const (
	KindCrash       = schedule.KindCrash
	KindBuggify     = schedule.KindBuggify
	KindClockJump   = schedule.KindClockJump
	KindCrashIO     = schedule.KindCrashIO
	KindFsyncEIO    = schedule.KindFsyncEIO
	KindWriteEIO    = schedule.KindWriteEIO
	KindWriteENOSPC = schedule.KindWriteENOSPC
	KindReadEIO     = schedule.KindReadEIO
	KindReadCorrupt = schedule.KindReadCorrupt
	KindLostWrite   = schedule.KindLostWrite
	KindMmapWB      = schedule.KindMmapWB
	KindMisdirected = schedule.KindMisdirected
	KindBitrot      = schedule.KindBitrot
	KindPartition   = schedule.KindPartition
	KindClog        = schedule.KindClog
	KindNetReset    = schedule.KindNetReset
	KindSlow        = schedule.KindSlow
	KindPause       = schedule.KindPause
	KindUDPDrop     = schedule.KindUDPDrop
	KindUDPDup      = schedule.KindUDPDup
)
