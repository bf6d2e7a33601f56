package core

import "github.com/sf-dst/sf/lib/faults"

// Fault is one entry of a fault schedule; lib/faults defines it with
// everything each kind of fault needs, and lib/schedule its file form.
type Fault = faults.Fault

// Dur is virtual time in nanoseconds that reads and writes as a Go duration
// string.
type Dur = faults.Dur
