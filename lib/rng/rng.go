// Package rng is sf's one source of randomness: small, seeded streams keyed by
// purpose, so that every choice in a run follows from the seed alone.
//
// A stream is identified by the run's seed, a purpose (such as "sched" or
// "net") and optional integer or string keys (a node, an incarnation, a
// site). Drawing from one stream never moves another, which is what lets a
// fault be removed from a schedule without shifting the others. The
// generator is SplitMix64, which is fixed here and does not change with Go
// releases.
package rng

import "math"

// Stream is a deterministic sequence of random numbers. The zero value is a
// valid stream keyed by nothing; use New to key one.
type Stream struct {
	state uint64
}

const golden = 0x9e3779b97f4a7c15

func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Key folds a string into a stream key, for keys that are names (a node, a
// buggify site) rather than numbers.
func Key(s string) uint64 {
	// FNV-1a, then mixed so that short strings spread over all 64 bits.
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix(h)
}

// New returns the stream for seed, purpose and keys.
func New(seed uint64, purpose string, keys ...uint64) *Stream {
	s := &Stream{}
	s.Reset(seed, purpose, keys...)
	return s
}

// Reset re-keys s in place, as New does, without allocating.
func (s *Stream) Reset(seed uint64, purpose string, keys ...uint64) {
	h := mix(seed + golden)
	h = mix(h ^ Key(purpose))
	for _, k := range keys {
		h = mix(h ^ (k + golden))
	}
	s.state = h
}

// Uint64 returns the next 64 random bits.
func (s *Stream) Uint64() uint64 {
	s.state += golden
	return mix(s.state)
}

// Float64 returns a number in [0, 1).
func (s *Stream) Float64() float64 {
	return float64(s.Uint64()>>11) / (1 << 53)
}

// Intn returns a number in [0, n). It panics if n <= 0, which is a
// programming error.
func (s *Stream) Intn(n int) int {
	if n <= 0 {
		panic("rng: Intn with n <= 0")
	}
	return int(s.Uint64n(uint64(n)))
}

// Uint64n returns a number in [0, n) without modulo bias.
func (s *Stream) Uint64n(n uint64) uint64 {
	if n == 0 {
		panic("rng: Uint64n with n == 0")
	}
	limit := math.MaxUint64 - math.MaxUint64%n
	for {
		v := s.Uint64()
		if v < limit {
			return v % n
		}
	}
}

// Between returns a number in [lo, hi], both included. lo > hi is a
// programming error.
func (s *Stream) Between(lo, hi int64) int64 {
	if lo >= hi {
		return lo
	}
	span := uint64(hi-lo) + 1
	if span == 0 { // the whole int64 range
		return int64(s.Uint64())
	}
	return lo + int64(s.Uint64n(span))
}

// Chance reports true with probability p.
func (s *Stream) Chance(p float64) bool {
	if p <= 0 {
		return false
	}
	return s.Float64() < p
}

// ExpNs returns the waiting time in nanoseconds until the next event of a
// Poisson process with ratePerSec events per second. A rate of 0 or less
// never fires and returns math.MaxInt64.
func (s *Stream) ExpNs(ratePerSec float64) int64 {
	if ratePerSec <= 0 {
		return math.MaxInt64
	}
	u := s.Float64()
	secs := -Log(1-u) / ratePerSec
	ns := secs * 1e9
	if ns >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(ns)
}

// Fill fills p with random bytes.
func (s *Stream) Fill(p []byte) {
	for len(p) >= 8 {
		v := s.Uint64()
		p[0], p[1], p[2], p[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		p[4], p[5], p[6], p[7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
		p = p[8:]
	}
	if len(p) > 0 {
		v := s.Uint64()
		for i := range p {
			p[i] = byte(v >> (8 * i))
		}
	}
}

// ln2hi + ln2lo is the natural logarithm of 2: ln2hi has few enough bits
// that e*ln2hi is exact for every binary exponent e of a float64.
const (
	ln2hi = 6.93147180369123816490e-01
	ln2lo = 1.90821492927058770002e-10
)

// Log returns the natural logarithm of x, for x > 0, with the same bits on
// every architecture. math.Log is assembly on some (amd64, s390x) and pure
// Go on others, and the two can differ in the last bit, which would move a
// fault by a nanosecond and so change a seed's whole run. Log uses only
// float64 additions, multiplications and divisions, each rounded on its own:
// the explicit conversions stop the compiler from fusing a multiply and an
// add, which Go allows and arm64, ppc64 and s390x do. It is within two units
// in the last place of the exact logarithm.
//
// x = m * 2^e with m in [sqrt(1/2), sqrt(2)); ln(m) = 2 atanh(s) with
// s = (m-1)/(m+1), |s| < 0.172, the series s + s^3/3 + s^5/5 + ... summed
// from its smallest term up.
func Log(x float64) float64 {
	switch {
	case x != x || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	m, e := math.Frexp(x) // exact: m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2 // exact
		e--
	}
	f := m - 1 // exact (Sterbenz)
	s := float64(f / float64(2+f))
	s2 := float64(s * s)
	// Past 27 terms, s^(2k+1)/(2k+1) is below 2^-110 of s: nothing left to add.
	const terms = 27
	var t [terms]float64
	t[0] = s
	for k := 1; k < terms; k++ {
		t[k] = float64(t[k-1] * s2)
	}
	var tail float64 // every term after the first, smallest first
	for k := terms - 1; k >= 1; k-- {
		tail = float64(tail + float64(t[k]/float64(2*k+1)))
	}
	// ln(m) = 2s + 2*tail = f - s*f + 2*tail, since 2s = f - s*f exactly in
	// real numbers; the form on the right keeps f's exact bits in front.
	lnm := float64(f - float64(float64(s*f)-float64(2*tail)))
	fe := float64(e)
	return float64(float64(fe*ln2hi) + float64(lnm+float64(fe*ln2lo)))
}

// State is where the stream stands, which FromState makes a stream of
// again: a snapshot file saves a stream as it.
func (s *Stream) State() uint64 { return s.state }

// FromState returns the stream that stands at state.
func FromState(state uint64) *Stream { return &Stream{state: state} }
