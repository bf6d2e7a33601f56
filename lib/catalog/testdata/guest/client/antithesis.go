package main

import (
	"fmt"

	"github.com/antithesishq/antithesis-sdk-go/assert"
)

func antithesis(n, m int) {
	assert.Always(n > m, "antithesis always", nil)
	assert.AlwaysOrUnreachable(n > m, "antithesis always or unreachable", nil)
	assert.Sometimes(n > m, "antithesis sometimes", nil)
	assert.Reachable("antithesis reachable", nil)
	assert.Unreachable("antithesis unreachable", map[string]any{"n": n})
	assert.AlwaysGreaterThan(n, m, "antithesis always gt", nil)
	assert.AlwaysGreaterThanOrEqualTo(n, m, "antithesis always ge", nil)
	assert.AlwaysLessThan(m, n, "antithesis always lt", nil)
	assert.AlwaysLessThanOrEqualTo(m, n, "antithesis always le", nil)
	assert.SometimesGreaterThan(n, m, "antithesis sometimes gt", nil)
	assert.SometimesGreaterThanOrEqualTo(n, m, "antithesis sometimes ge", nil)
	assert.SometimesLessThan(m, n, "antithesis sometimes lt", nil)
	assert.SometimesLessThanOrEqualTo(m, n, "antithesis sometimes le", nil)
	assert.AlwaysSome([]assert.Pair{{First: "a", Second: true}}, "antithesis always some", nil)
	assert.SometimesAll([]assert.Pair{{First: "a", Second: true}}, "antithesis sometimes all", nil)
	assert.Always(true, prefix+"antithesis with a constant", nil)
	assert.Sometimes(true, fmt.Sprint(n), nil)
}
