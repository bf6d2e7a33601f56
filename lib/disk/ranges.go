package disk

// ranges is a sorted list of disjoint, non-adjacent byte ranges [start, end).
type ranges [][2]int64

// add inserts [a, b), merging it with the ranges it touches.
func (rs ranges) add(a, b int64) ranges {
	if a >= b {
		return rs
	}
	out := make(ranges, 0, len(rs)+1)
	i := 0
	for ; i < len(rs) && rs[i][1] < a; i++ {
		out = append(out, rs[i])
	}
	for ; i < len(rs) && rs[i][0] <= b; i++ {
		a, b = min(a, rs[i][0]), max(b, rs[i][1])
	}
	out = append(out, [2]int64{a, b})
	return append(out, rs[i:]...)
}

// remove takes [a, b) out of every range.
func (rs ranges) remove(a, b int64) ranges {
	if a >= b || len(rs) == 0 {
		return rs
	}
	var out ranges
	for _, r := range rs {
		if r[1] <= a || r[0] >= b {
			out = append(out, r)
			continue
		}
		if r[0] < a {
			out = append(out, [2]int64{r[0], a})
		}
		if r[1] > b {
			out = append(out, [2]int64{b, r[1]})
		}
	}
	return out
}

// clip drops everything at or past size.
func (rs ranges) clip(size int64) ranges { return rs.remove(size, 1<<62) }

// total returns the number of bytes the ranges cover.
func (rs ranges) total() int64 {
	var n int64
	for _, r := range rs {
		n += r[1] - r[0]
	}
	return n
}

// nth returns the offset of the i-th byte covered, counting from 0.
func (rs ranges) nth(i int64) int64 {
	for _, r := range rs {
		if i < r[1]-r[0] {
			return r[0] + i
		}
		i -= r[1] - r[0]
	}
	panic("disk: ranges.nth past the end")
}

// pagesOf returns the indexes of the pages that [a, b) touches, as a range
// [first, last+1); empty when a >= b.
func pagesOf(a, b int64) (first, end int64) {
	if a >= b {
		return 0, 0
	}
	return a / PageBytes, (b-1)/PageBytes + 1
}
