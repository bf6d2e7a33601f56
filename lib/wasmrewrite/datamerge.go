package wasmrewrite

import (
	"errors"
	"sort"
)

// MergeDataSegments rewrites a module's data section so that its active
// segments, which Go emits by the tens of thousands, become a few large
// ones. wazero evaluates each segment's offset and copies each one at every
// instantiation, which made the data section a third of the cost of
// starting a node. Memory starts zeroed, so filling the small gaps between
// segments with zeros changes nothing; segments are applied in their
// original order, so an overlap keeps the later bytes. A module with passive
// segments, or one we cannot parse, is returned unchanged: the rewrite is
// an optimisation, never a requirement.
func MergeDataSegments(bin []byte) []byte {
	out, err := rewriteData(bin)
	if err != nil {
		return bin
	}
	return out
}

// dataGapMax is the widest run of zeros merged into a segment; a wider gap
// starts a new segment, so a sparse data section does not grow.
const dataGapMax = 4096

type dataSegment struct {
	offset uint32
	data   []byte
}

var errNoRewrite = errors.New("data section not rewritable")

func rewriteData(bin []byte) ([]byte, error) {
	if len(bin) < 8 || string(bin[:4]) != "\x00asm" {
		return nil, errNoRewrite
	}
	pos := 8
	out := make([]byte, 0, len(bin))
	out = append(out, bin[:8]...)
	rewritten := false
	dataCountAt := -1 // position in out of the DataCount section, if any
	var merged []dataSegment
	for pos < len(bin) {
		id := bin[pos]
		size, n, ok := uleb(bin[pos+1:])
		if !ok {
			return nil, errNoRewrite
		}
		start := pos + 1 + n
		end := start + int(size)
		if end > len(bin) {
			return nil, errNoRewrite
		}
		switch id {
		case 12: // data count: rewritten once the data section is known
			dataCountAt = len(out)
			out = append(out, bin[pos:end]...)
		case 11:
			segs, err := parseActiveSegments(bin[start:end])
			if err != nil {
				return nil, err
			}
			merged = mergeSegments(segs)
			body := encodeSegments(merged)
			out = append(out, 11)
			out = appendUleb(out, uint32(len(body)))
			out = append(out, body...)
			rewritten = true
		default:
			out = append(out, bin[pos:end]...)
		}
		pos = end
	}
	if !rewritten {
		return nil, errNoRewrite
	}
	if dataCountAt >= 0 {
		// Replace the DataCount section with one holding the new count.
		_, n, _ := uleb(out[dataCountAt+1:])
		oldEnd := dataCountAt + 1 + n
		_, m, _ := uleb(out[oldEnd:])
		oldEnd += m
		var sec []byte
		sec = append(sec, 12)
		cnt := appendUleb(nil, uint32(len(merged)))
		sec = appendUleb(sec, uint32(len(cnt)))
		sec = append(sec, cnt...)
		out = append(out[:dataCountAt], append(sec, out[oldEnd:]...)...)
	}
	return out, nil
}

func parseActiveSegments(b []byte) ([]dataSegment, error) {
	count, n, ok := uleb(b)
	if !ok {
		return nil, errNoRewrite
	}
	b = b[n:]
	segs := make([]dataSegment, 0, count)
	for i := uint32(0); i < count; i++ {
		flags, n, ok := uleb(b)
		if !ok || flags != 0 { // only active segments of memory 0
			return nil, errNoRewrite
		}
		b = b[n:]
		if len(b) < 2 || b[0] != 0x41 { // i32.const
			return nil, errNoRewrite
		}
		off, n, ok := sleb32(b[1:])
		if !ok || off < 0 || len(b) < 1+n+1 || b[1+n] != 0x0b {
			return nil, errNoRewrite
		}
		b = b[1+n+1:]
		size, n, ok := uleb(b)
		if !ok || len(b) < n+int(size) {
			return nil, errNoRewrite
		}
		segs = append(segs, dataSegment{offset: uint32(off), data: b[n : n+int(size)]})
		b = b[n+int(size):]
	}
	if len(b) != 0 {
		return nil, errNoRewrite
	}
	return segs, nil
}

func mergeSegments(segs []dataSegment) []dataSegment {
	if len(segs) == 0 {
		return nil
	}
	// Group segments into runs whose gaps are small, then lay each run's
	// segments into one buffer in their original order.
	order := make([]int, len(segs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return segs[order[a]].offset < segs[order[b]].offset })
	var runs [][2]uint32 // [start, end) of each merged segment
	for _, i := range order {
		s := segs[i]
		end := s.offset + uint32(len(s.data))
		if len(runs) > 0 && s.offset <= runs[len(runs)-1][1]+dataGapMax {
			runs[len(runs)-1][1] = max(runs[len(runs)-1][1], end)
			continue
		}
		runs = append(runs, [2]uint32{s.offset, end})
	}
	out := make([]dataSegment, len(runs))
	for i, r := range runs {
		out[i] = dataSegment{offset: r[0], data: make([]byte, r[1]-r[0])}
	}
	for _, s := range segs { // original order: later segments win overlaps
		j := sort.Search(len(runs), func(k int) bool { return runs[k][1] > s.offset })
		copy(out[j].data[s.offset-runs[j][0]:], s.data)
	}
	return out
}

func encodeSegments(segs []dataSegment) []byte {
	var b []byte
	b = appendUleb(b, uint32(len(segs)))
	for _, s := range segs {
		b = append(b, 0, 0x41)
		b = appendSleb32(b, int32(s.offset))
		b = append(b, 0x0b)
		b = appendUleb(b, uint32(len(s.data)))
		b = append(b, s.data...)
	}
	return b
}

func uleb(b []byte) (uint32, int, bool) {
	var v uint32
	for i := 0; i < len(b) && i < 5; i++ {
		v |= uint32(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1, true
		}
	}
	return 0, 0, false
}

func sleb32(b []byte) (int32, int, bool) {
	var v int64
	for i := 0; i < len(b) && i < 5; i++ {
		v |= int64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			if b[i]&0x40 != 0 && i < 4 {
				v -= 1 << (7 * (i + 1))
			}
			return int32(v), i + 1, true
		}
	}
	return 0, 0, false
}

func appendUleb(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

func appendSleb32(b []byte, v int32) []byte {
	x := int64(v)
	for {
		c := byte(x & 0x7f)
		x >>= 7
		if (x == 0 && c&0x40 == 0) || (x == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
