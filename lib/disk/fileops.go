package disk

import "slices"

// apply applies op to b, which it may modify in place, and returns the result.
func (op fileOp) apply(b []byte) []byte {
	if op.truncate {
		return resize(b, op.off)
	}
	data := op.bytes()
	end := op.off + int64(len(data))
	if end > int64(len(b)) {
		b = resize(b, end)
	}
	copy(b[op.off:], data)
	return b
}

// resize returns b with length n, zeroing any bytes it adds.
func resize(b []byte, n int64) []byte {
	old := int64(len(b))
	if n <= old {
		return b[:n]
	}
	b = slices.Grow(b, int(n-old))[:n]
	clear(b[old:])
	return b
}

// applyPrefix returns the content a crash leaves in a regular file when the
// first k of its pending operations reach the disk in order and, if torn > 0,
// the first torn bytes of the write after them too. A truncate is never torn.
// applyPrefix(0, 0) is the durable content and applyPrefix(len(pending), 0)
// the current content. The result is a new slice.
func (n *inode) applyPrefix(k, torn int) []byte {
	b := n.durable.bytes()
	for _, op := range n.pending[:k] {
		op.data, op.deferred = n.writeBytes(op), 0
		b = op.apply(b)
	}
	if torn > 0 && k < len(n.pending) && !n.pending[k].truncate {
		op := n.pending[k]
		op.data, op.deferred = n.writeBytes(op), 0
		op.data = op.data[:min(torn, len(op.data))]
		b = op.apply(b)
	}
	return b
}
