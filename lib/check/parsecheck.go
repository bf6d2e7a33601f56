package check

import (
	"errors"

	"github.com/sf-dst/sf/lib/history"
)

// ParseAndCheck reads a history from data with read, as history.Parse does,
// and checks it with opts, as Check does: its report (but for Elapsed) or
// its error is theirs. read.DeferValueCheck is its own to set; the
// caller's is ignored.
//
// A list-append history in JSON Lines is read first with DeferValueCheck:
// the reader leaves the values of invocations and ok completions
// unvalidated, because the checker looks at each of them anyway. The
// checker decodes every ok completion's value and every other operation's
// invocation strictly, and compares an ok operation's invocation with its
// result (see invocationMatches), which costs far less than validating it;
// only an invocation that differs from its result is validated in full.
// Should that reading or the check fail for any reason but an interrupt,
// the history is read again with every value validated and checked again,
// and that outcome is returned, so every error is the one the strict
// reading gives. Other models and formats are read strictly, once.
func ParseAndCheck(data []byte, read history.ReadOptions, opts Options) (*Report, error) {
	if read.Format == "" || read.Format == history.FormatAuto {
		read.Format = history.DetectFormat(data)
	}
	read.DeferValueCheck = false
	if opts.Model == ListAppend && read.Format == history.FormatJSONL {
		lazy := read
		lazy.DeferValueCheck = true
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
