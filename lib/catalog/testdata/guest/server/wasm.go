//go:build wasip1

package main

import "github.com/sf-dst/sf/sim"

func init() { sim.Reachable("only in the simulator") }
