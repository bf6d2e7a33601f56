// Package bank is the system of the antithesis example: a ledger of
// accounts that moves money between them. It uses nothing of sf; where it
// needs randomness it asks the Antithesis SDK, as code written for
// Antithesis does.
package bank

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/antithesishq/antithesis-sdk-go/random"
)

// ErrInsufficientFunds is returned by Transfer when the source account holds
// less than the amount.
var ErrInsufficientFunds = errors.New("insufficient funds")

// Ledger holds the balance of every account. It is safe for concurrent use.
type Ledger struct {
	mu       sync.Mutex
	balances map[string]int64

	// skipDebit plants the bug: see NewLedger.
	skipDebit bool
}

// NewLedger opens accounts with the same opening balance each. With
// skipDebit, Transfer takes a "fast path" that a random choice picks now and
// then, and that path credits the destination without debiting the source:
// money is created.
func NewLedger(accounts []string, opening int64, skipDebit bool) *Ledger {
	l := &Ledger{balances: make(map[string]int64, len(accounts)), skipDebit: skipDebit}
	for _, a := range accounts {
		l.balances[a] = opening
	}
	return l
}

// Transfer moves amount from one account to another, or returns
// ErrInsufficientFunds and changes nothing.
func (l *Ledger) Transfer(from, to string, amount int64) error {
	if amount <= 0 {
		return fmt.Errorf("transfer of %d: the amount must be positive", amount)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.balances[from]; !ok {
		return fmt.Errorf("no account %q", from)
	}
	if _, ok := l.balances[to]; !ok {
		return fmt.Errorf("no account %q", to)
	}
	if l.balances[from] < amount {
		return ErrInsufficientFunds
	}
	if l.skipDebit {
		// The planted bug: one transfer in twenty takes the fast path, which
		// forgets the debit.
		if path, _ := random.RandomChoice(fastOrSlow); path == "fast" {
			l.balances[to] += amount
			return nil
		}
	}
	l.balances[from] -= amount
	l.balances[to] += amount
	return nil
}

// fastOrSlow is what the buggy Transfer chooses from: "fast" once in twenty.
var fastOrSlow = append(slices.Repeat([]string{"slow"}, 19), "fast")

// Balance returns the balance of an account, 0 for one that does not exist.
func (l *Ledger) Balance(account string) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.balances[account]
}

// Total returns the sum of every balance.
func (l *Ledger) Total() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var t int64
	for _, b := range l.balances {
		t += b
	}
	return t
}
