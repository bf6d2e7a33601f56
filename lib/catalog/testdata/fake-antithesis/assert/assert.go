// Package assert stands in for the Antithesis Go SDK's assert package, with
// the same signatures, so the catalog tests need no network.
package assert

type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~float32 | ~float64 | ~uint64 | ~uint | ~uintptr
}

type Pair struct {
	First  string
	Second bool
}

func Always(condition bool, message string, details map[string]any)              {}
func AlwaysOrUnreachable(condition bool, message string, details map[string]any) {}
func Sometimes(condition bool, message string, details map[string]any)           {}
func Unreachable(message string, details map[string]any)                         {}
func Reachable(message string, details map[string]any)                           {}

func AlwaysGreaterThan[T Number](left, right T, message string, details map[string]any)             {}
func AlwaysGreaterThanOrEqualTo[T Number](left, right T, message string, details map[string]any)    {}
func SometimesGreaterThan[T Number](left, right T, message string, details map[string]any)          {}
func SometimesGreaterThanOrEqualTo[T Number](left, right T, message string, details map[string]any) {}
func AlwaysLessThan[T Number](left, right T, message string, details map[string]any)                {}
func AlwaysLessThanOrEqualTo[T Number](left, right T, message string, details map[string]any)       {}
func SometimesLessThan[T Number](left, right T, message string, details map[string]any)             {}
func SometimesLessThanOrEqualTo[T Number](left, right T, message string, details map[string]any)    {}

func AlwaysSome(pairs []Pair, message string, details map[string]any)   {}
func SometimesAll(pairs []Pair, message string, details map[string]any) {}

// Internal helpers of the SDK calling its own functions must not be
// cataloged: this module is third-party to the guest.
func selfCheck() { Always(true, "the fake SDK's own property", nil) }
