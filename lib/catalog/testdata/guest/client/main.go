// Command client imports the sim SDK under an alias and names its
// properties with constants, and with values that are not constants.
package main

import (
	"fmt"
	"os"

	"example.com/guest/internal/store"
	s "github.com/sf-dst/sf/sim"
)

func main() {
	ok := len(os.Args) > 1
	s.Always(ok, "concatenated "+"literals")
	s.Sometimes(ok, msgAcked)
	s.Reachable(msgTyped)
	s.Reachable(second)
	s.AlwaysLessThan[int](1, 2, "explicit instantiation")
	(s.Reachable)("parenthesized")
	const local = "local " + prefix
	s.Reachable(local)
	{
		const prefix = "shadowed const "
		s.Reachable(prefix + "in a block")
	}
	s.Reachable(prefix + "after the block")
	msgAcked := fmt.Sprint("shadowing var")
	s.Sometimes(ok, msgAcked)
	s.Always(ok, fmt.Sprintf("node %d", 1))
	s.Always(ok, notConst)
	s.Buggify(os.Args[0])
	s.BuggifyWithProb("variable probability", float64(len(os.Args)))
	s.BuggifyWithProb("constant probability", prob)
	s.BuggifyWithProb("iota probability", p1)
	s.BuggifyWithProb("integer division", 5/2*0.1)
	store.Put(nil)
}

type fake struct{}

func (fake) Reachable(string) {}

// param takes a parameter named like the import, which is not the SDK.
func param(s fake) { s.Reachable("a parameter named s") }
