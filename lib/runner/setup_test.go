package runner

import (
	"testing"

	"github.com/sf-dst/sf/lib/engine"
)

// TestSetupsHeld: a Prepared holds the forks of at most SetupsHeld setups,
// letting the oldest go, and runs a setup it let go again when asked.
func TestSetupsHeld(t *testing.T) {
	p := prepare(t, "lib/runner/testdata/setupfork/seedfall.json")
	specs := make([]engine.Spec, SetupsHeld+1)
	for i := range specs {
		specs[i] = *p.Spec
	}
	first, err := p.setup(&specs[0], "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range specs[1:] {
		if _, err := p.setup(&specs[i+1], ""); err != nil {
			t.Fatal(err)
		}
	}
	if len(p.setups) != SetupsHeld || len(p.setupOrder) != SetupsHeld {
		t.Fatalf("%d setups held (%d in order), want %d", len(p.setups), len(p.setupOrder), SetupsHeld)
	}
	if _, held := p.setups[setupKey{&specs[0], ""}]; held {
		t.Error("the oldest setup is still held")
	}
	again, err := p.setup(&specs[0], "")
	if err != nil {
		t.Fatal(err)
	}
	if again == first || again.AtNs != first.AtNs || again.Step != first.Step {
		t.Errorf("the setup run again: fork at step %d, %dns (the same fork: %v); first at step %d, %dns",
			again.Step, again.AtNs, again == first, first.Step, first.AtNs)
	}
}
