package check

import (
	"errors"

	"github.com/sf-dst/sf/lib/history"
)

// ParseAndCheck reads a history from data with read, as history.Parse does,
// and checks it with opts, as Check does: its report (but for Elapsed) or
// its error is theirs. read.DeferOutputCheck is its own to set; the
// caller's is ignored.
//
// A list-append history in JSON Lines is read first with
// DeferOutputCheck: the checker decodes every ok completion's value
// strictly anyway, so the reader's own check of that JSON, about a sixth of
// the instructions of reading and checking, is skipped. Should that reading
// or the check fail for any reason but an interrupt, the history is read
// again with every value validated and checked again, and that outcome is
// returned, so every error is the one the strict reading gives. Other
// models and formats are read strictly, once.
func ParseAndCheck(data []byte, read history.ReadOptions, opts Options) (*Report, error) {
	if read.Format == "" || read.Format == history.FormatAuto {
		read.Format = history.DetectFormat(data)
	}
	read.DeferOutputCheck = false
	if opts.Model == ListAppend && read.Format == history.FormatJSONL {
		lazy := read
		lazy.DeferOutputCheck = true
		r, err := parseAndCheck(data, lazy, opts)
		if err == nil || errors.Is(err, history.ErrInterrupted) || errors.Is(err, ErrInterrupted) {
			return r, err
		}
	}
	return parseAndCheck(data, read, opts)
}

func parseAndCheck(data []byte, read history.ReadOptions, opts Options) (*Report, error) {
	ops, err := history.Parse(data, read)
	if err != nil {
		return nil, err
	}
	return Check(ops, opts)
}
