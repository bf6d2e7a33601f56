package hostoutside

import (
	"context"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// wazeroWASI instantiates wazero's own WASI, whose calls never reach the
// dispatcher.
func wazeroWASI(ctx context.Context, r wazero.Runtime) {
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
}
