#include "textflag.h"

// func clearStreaming(p unsafe.Pointer, n uintptr)
//
// Zeroes n bytes from p, a 16-byte-aligned address, n a multiple of 128
// above 0, with non-temporal stores (SSE2, which every amd64 has).
TEXT ·clearStreaming(SB), NOSPLIT, $0-16
	MOVQ	p+0(FP), DI
	MOVQ	n+8(FP), BX
	PXOR	X0, X0
clear:
	MOVNTO	X0, 0(DI)
	MOVNTO	X0, 16(DI)
	MOVNTO	X0, 32(DI)
	MOVNTO	X0, 48(DI)
	MOVNTO	X0, 64(DI)
	MOVNTO	X0, 80(DI)
	MOVNTO	X0, 96(DI)
	MOVNTO	X0, 112(DI)
	ADDQ	$128, DI
	SUBQ	$128, BX
	JA	clear
	// Order the streaming stores before any later store.
	SFENCE
	RET
