// Package lib is a third-party library with properties of its own, which the
// catalog of a guest that imports it leaves out.
package lib

import "github.com/sf-dst/sf/sim"

func Do() {
	sim.Always(true, "a third-party property")
	sim.Reachable("a third-party library ran")
}
