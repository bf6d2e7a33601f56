package history_test

import (
	"encoding/json"
	"fmt"
	"log"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/sf-dst/sf/lib/history"
)

// A model of one's own, a stack, checked with Porcupine on a history file.
func Example() {
	const file = `{"index":0,"type":"invoke","process":1,"f":"push","key":"s","value":"a","time":10,"id":0}
{"index":1,"type":"ok","process":1,"f":"push","key":"s","value":null,"time":20,"id":0}
{"index":2,"type":"invoke","process":2,"f":"push","key":"s","value":"b","time":30,"id":1}
{"index":3,"type":"info","process":2,"f":"push","key":"s","value":"b","time":40,"id":1}
{"index":4,"type":"invoke","process":1,"f":"pop","key":"s","value":null,"time":50,"id":2}
{"index":5,"type":"ok","process":1,"f":"pop","key":"s","value":"a","time":60,"id":2}
`
	model := porcupine.Model{
		Init: func() any { return []string(nil) },
		Step: func(state, input, _ any) (bool, any) {
			stack := state.([]string)
			op := input.(history.HistoryOp)
			var v string
			switch op.F {
			case "push":
				json.Unmarshal(op.Value, &v)
				return true, append(slices.Clip(stack), v)
			case "pop":
				top := ""
				if len(stack) > 0 {
					top, stack = stack[len(stack)-1], stack[:len(stack)-1]
				}
				if op.Status != history.StatusOK {
					return true, stack // any outcome is possible
				}
				json.Unmarshal(op.Output, &v)
				return v == top, stack
			}
			return false, state
		},
		Equal: func(a, b any) bool { return slices.Equal(a.([]string), b.([]string)) },
	}
	ops, err := history.ReadHistory(strings.NewReader(file))
	if err != nil {
		log.Fatal(err)
	}
	// The unknown push of "b" may land after the pop, so popping "a" is fine.
	fmt.Println(porcupine.CheckOperations(model, history.PorcupineOperations(ops)))
	// Output: true
}
