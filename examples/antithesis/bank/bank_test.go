package bank

import (
	"errors"
	"testing"
)

// TestTransfer: a transfer moves money and keeps the total; one larger than
// the balance is refused and changes nothing. Outside the simulator and
// outside Antithesis the SDK's random reads crypto/rand, which does not
// matter here: the correct ledger never consults it.
func TestTransfer(t *testing.T) {
	l := NewLedger([]string{"a", "b"}, 100, false)
	if err := l.Transfer("a", "b", 30); err != nil {
		t.Fatal(err)
	}
	if a, b := l.Balance("a"), l.Balance("b"); a != 70 || b != 130 {
		t.Errorf("balances %d and %d, want 70 and 130", a, b)
	}
	if err := l.Transfer("a", "b", 71); !errors.Is(err, ErrInsufficientFunds) {
		t.Errorf("overdraft: error %v, want %v", err, ErrInsufficientFunds)
	}
	if got := l.Total(); got != 200 {
		t.Errorf("total %d, want 200", got)
	}
	for _, tc := range []struct {
		from, to string
		amount   int64
		want     string
	}{
		{"a", "b", 0, "transfer of 0: the amount must be positive"},
		{"x", "b", 1, `no account "x"`},
		{"a", "y", 1, `no account "y"`},
	} {
		if err := l.Transfer(tc.from, tc.to, tc.amount); err == nil || err.Error() != tc.want {
			t.Errorf("Transfer(%q, %q, %d) = %v, want %q", tc.from, tc.to, tc.amount, err, tc.want)
		}
	}
}

// TestSkipDebitCreatesMoney: the planted bug creates money once the random
// choice takes the fast path, one transfer in twenty; a thousand transfers
// miss it with probability (19/20)^1000, about 5e-23.
func TestSkipDebitCreatesMoney(t *testing.T) {
	l := NewLedger([]string{"a", "b"}, 1000, true)
	for i := range 1000 {
		from, to := "a", "b"
		if i%2 == 1 {
			from, to = to, from
		}
		if err := l.Transfer(from, to, 1); err != nil {
			t.Fatal(err)
		}
	}
	if l.Total() <= 2000 {
		t.Errorf("total %d after 1000 buggy transfers, want more than 2000", l.Total())
	}
}
