package wasmrewrite

// instrEnd returns where the instruction that starts at fn[p] ends, and
// false for an instruction the rewriter does not know (SIMD, threads,
// exceptions) or one cut short. It decodes every immediate, so that an
// immediate byte is never mistaken for an opcode.
func instrEnd(fn []byte, p int) (int, bool) {
	op := fn[p]
	p++
	u := func() bool { // skip one LEB128 number
		for p < len(fn) {
			c := fn[p]
			p++
			if c&0x80 == 0 {
				return true
			}
		}
		return false
	}
	blockType := func() bool {
		if p >= len(fn) {
			return false
		}
		if c := fn[p]; c == 0x40 || (c >= 0x6f && c <= 0x7f) {
			p++
			return true
		}
		return u() // a type index, as a signed LEB128
	}
	good := true
	switch {
	case op == 0x00 || op == 0x01 || op == 0x05 || op == 0x0b || op == 0x0f || op == 0x1a || op == 0x1b || op == 0xd1:
	case op == 0x02 || op == 0x03 || op == 0x04:
		good = blockType()
	case op == 0x0c || op == 0x0d || op == 0x10 || op == 0x12 || (op >= 0x20 && op <= 0x26) || op == 0xd2:
		good = u()
	case op == 0x0e:
		cnt, n, ok := uleb(fn[p:])
		p += n
		good = ok
		for i := uint32(0); good && i <= cnt; i++ {
			good = u()
		}
	case op == 0x11 || op == 0x13:
		//lint:ignore SA4000 each call of u reads the next operand, so two calls read two
		good = u() && u()
	case op == 0x1c:
		cnt, n, ok := uleb(fn[p:])
		p += n + int(cnt)
		good = ok
	case op >= 0x28 && op <= 0x3e:
		//lint:ignore SA4000 each call of u reads the next operand, so two calls read two
		good = u() && u()
	case op == 0x3f || op == 0x40 || op == 0xd0:
		p++
	case op == 0x41 || op == 0x42:
		good = u()
	case op == 0x43:
		p += 4
	case op == 0x44:
		p += 8
	case op >= 0x45 && op <= 0xc4:
	case op == 0xfc:
		sub, n, ok := uleb(fn[p:])
		p += n
		good = ok
		switch {
		case sub <= 7:
		case sub == 8:
			good = good && u()
			p++
		case sub == 9 || sub == 13 || (sub >= 15 && sub <= 17):
			good = good && u()
		case sub == 10:
			p += 2
		case sub == 11:
			p++
		case sub == 12 || sub == 14:
			good = good && u() && u()
		default:
			good = false
		}
	default:
		good = false // SIMD, threads, exceptions: not something we rewrite
	}
	return p, good && p <= len(fn)
}

// skipLocals returns where a function body's code starts, after its vector
// of local declarations (count, type).
func skipLocals(fn []byte) (int, bool) {
	groups, p, ok := uleb(fn)
	if !ok {
		return 0, false
	}
	for i := uint32(0); i < groups; i++ {
		_, n, ok := uleb(fn[p:])
		if !ok || p+n >= len(fn) {
			return 0, false
		}
		p += n + 1
	}
	return p, true
}
