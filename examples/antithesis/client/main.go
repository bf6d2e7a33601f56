// Command client is the workload of the antithesis example. It opens four
// accounts in a bank.Ledger and lets three tellers, each a goroutine, move
// random amounts between random accounts. After every transfer it asserts
// that the total balance has not changed.
//
// It is written for the Antithesis Go SDK alone: assert, lifecycle and
// random, and no import of sf. Under sf the SDK's assertions count as
// properties, lifecycle.SendEvent appears in the trace, and random reads
// the seeded stream, so a seed replays the same transfers.
//
// Usage:
//
//	client [-tellers 3] [-transfers 20] [-skip-debit]
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"sync"
	"time"

	"github.com/antithesishq/antithesis-sdk-go/assert"
	"github.com/antithesishq/antithesis-sdk-go/lifecycle"
	"github.com/antithesishq/antithesis-sdk-go/random"

	"github.com/sf-dst/sf/examples/antithesis/bank"
)

const opening = 100 // each account's opening balance

var accounts = []string{"alice", "bob", "carol", "dave"}

// draw is the SDK's stream of random numbers that Antithesis steers (and sf
// replays from the seed). random.Source returns it as a math/rand.Source64;
// only its Uint64 is used, so this package need not import math/rand.
var draw = random.Source().(interface{ Uint64() uint64 })

func main() {
	tellers := flag.Int("tellers", 3, "concurrent tellers")
	transfers := flag.Int("transfers", 20, "transfers per teller")
	skipDebit := flag.Bool("skip-debit", false, "plant the bug: now and then a transfer forgets its debit")
	flag.Parse()

	ledger := bank.NewLedger(accounts, opening, *skipDebit)
	want := int64(opening * len(accounts))
	lifecycle.SetupComplete(map[string]any{"accounts": len(accounts), "total": want})

	// The first draws of the random stream, printed so that a replay can be
	// compared with the run it replays.
	fmt.Printf("client: first draws %d %d %d\n", draw.Uint64(), draw.Uint64(), draw.Uint64())

	var wg sync.WaitGroup
	for t := range *tellers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			teller(t, ledger, *transfers, want)
		}()
	}
	wg.Wait()

	total := ledger.Total()
	lifecycle.SendEvent("audit", map[string]any{"total": total, "want": want})
	assert.Reachable("the final audit ran", nil)
	fmt.Printf("client: %d tellers made %d transfers each; total %d\n", *tellers, *transfers, total)
}

// teller makes n transfers and checks the total after each.
func teller(id int, ledger *bank.Ledger, n int, want int64) {
	for range n {
		from, _ := random.RandomChoice(accounts)
		to, _ := random.RandomChoice(accounts)
		if from == to {
			continue
		}
		amount := int64(1 + draw.Uint64()%60)
		err := ledger.Transfer(from, to, amount)
		switch {
		case errors.Is(err, bank.ErrInsufficientFunds):
			assert.Sometimes(true, "a transfer is refused for insufficient funds", map[string]any{"from": from, "amount": amount})
		case err != nil:
			log.Fatalf("client: teller %d: %v", id, err)
		default:
			assert.Sometimes(ledger.Balance(from) < 10, "a transfer leaves an account nearly empty", map[string]any{"account": from, "balance": ledger.Balance(from)})
		}
		total := ledger.Total()
		assert.Always(total == want, "the total balance never changes", map[string]any{"total": total, "want": want, "teller": id})
		time.Sleep(time.Duration(1+draw.Uint64()%5) * time.Millisecond)
	}
}
