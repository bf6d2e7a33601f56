package main

import (
	"testing"

	"github.com/sf-dst/sf/sim"
)

func TestServer(t *testing.T) { sim.Reachable("in a test") }
