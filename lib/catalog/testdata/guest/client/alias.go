package main

import at "github.com/antithesishq/antithesis-sdk-go/assert"

func aliased() { at.Reachable("antithesis through an alias", nil) }
