// Package store is an internal package of the guest's module, imported by
// both the server and the client.
package store

import "github.com/sf-dst/sf/sim"

func Put(order []int) {
	sim.Always(len(order) >= 0, "the store keeps its order")
}
