// Package hostoutside hands wazero host functions outside core's
// dispatcher, in each way wazero allows: TestHostFunctionsGoThroughTheDispatcher
// must find every one. It is under testdata, so nothing builds it.
package hostoutside

import (
	"context"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

func register(ctx context.Context, r wazero.Runtime) error {
	b := r.NewHostModuleBuilder("env")
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(context.Context, api.Module, []uint64) {}), nil, nil).Export("a")
	b.NewFunctionBuilder().WithGoFunction(api.GoFunc(func(context.Context, []uint64) {}), nil, nil).Export("b")
	b.NewFunctionBuilder().WithFunc(func() {}).Export("c")
	_, err := b.Instantiate(ctx)
	return err
}
