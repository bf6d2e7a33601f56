package engine

import (
	"github.com/sf-dst/sf/lib/engine/core"
	"github.com/sf-dst/sf/lib/wire"
)

// DecodeFork reads a fork that Fork.Encode wrote, for the world spec it
// was taken in, to resume in this engine (core.DecodeFork).
func (e *Engine) DecodeFork(r *wire.Reader, spec *Spec) (*Fork, error) {
	if spec.NetOverlay {
		spec = withOverlayFiles(spec)
	}
	return core.DecodeFork(r, spec, e.host)
}
