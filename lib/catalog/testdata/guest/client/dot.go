package main

import . "github.com/sf-dst/sf/sim"

func dotted() {
	Sometimes(true, "dot-imported")
	Always := func(bool, string) {}
	Always(true, "a local func named like a dot-imported one")
}
