package core

import (
	"reflect"
	"strings"
	"testing"
)

// TestForkEncodingCoversEveryField pins the fields of every type whose
// values a fork's encoding writes (forkencode.go, forkdecode.go): a field
// added to one of them fails here until the encoder and the decoder write
// it, or this list says it is left out and why. Left out: Run.Spec,
// Node.Spec and Run.limits come from the world; Run.plan is made again from
// the world and the run's swarm; Run.scheduledHits and scheduledOps from
// Options.Faults; Run.exec, Instance.exec and Node.compiled run the guests;
// Options' fields that Resume takes from its own options; Result's fields
// that a run fills as it ends.
func TestForkEncodingCoversEveryField(t *testing.T) {
	pinned := map[reflect.Type]string{
		reflect.TypeFor[Run](): "Spec Seed Opts Now Nodes Net sched exec plan planner res ended sites scheduledHits scheduledOps rates " +
			"quietUntil rec opNode ends endSeq partitionSeq horizon recovering recoveryAt swarm setupDone hash calls props traceLines " +
			"wallEpoch limits traceBytes traceFull streamSeeds nextBranch planSeed mutant engineHits",
		reflect.TypeFor[Node](): "Idx Spec FS Cur compiled wasm count restartAt done skew crashes counts Slow slowSeq pausedUntil jumps " +
			"MonoJumps preempt",
		reflect.TypeFor[Instance](): "InstanceState exec",
		reflect.TypeFor[InstanceState](): "Run Node Num Name FDs Random Maps ExitCode Waits hashID started parked deadline slowDeadlines " +
			"pLoaded park exited failed oom crashed trap hostPanic resumeFailed lineBuf sdkBuf stderrTail crashLine pendingCrash " +
			"pendingAge crashTail",
		reflect.TypeFor[Desc]():         "Kind Ino Path Pos Flags Read Write Preopen Sock Antithesis",
		reflect.TypeFor[Mapping]():      "Ino Path Off Data N Shadow",
		reflect.TypeFor[Wait]():         "FD Write",
		reflect.TypeFor[parkPoint]():    "fn keyed noResume op carry",
		reflect.TypeFor[preemptState](): "total sliceUsed left random points",
		reflect.TypeFor[siteState]():    "name enabled fired hits fire",
		reflect.TypeFor[netEnd]():       "at seq fault gen clog",
		reflect.TypeFor[Property]():     "Kind Message Reached True Hits Margin FirstNs FirstTrueNs MarginNs falsified",
		reflect.TypeFor[Result](): "Seed Status Class Message Node AtNs Steps HostCalls RealNs Hash Checkpoints Calls Faults Trace " +
			"Properties Buggify History Check Tail Disks Property BudgetAsked CutShort MutantHits Snapshot",
		reflect.TypeFor[Options](): "Faults RecordCalls Inspect DivergeAtCall StopAtNs PanicAtCall PanicAtStep HostClock Budget Branches " +
			"RedrawAfterBranch Interrupt Mutant SnapshotAt Restore AtStep",
		reflect.TypeFor[Fork]():       "Step AtNs state guests",
		reflect.TypeFor[guestImage](): "wasm memory globals",
	}
	for typ, want := range pinned {
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s's fields are now\n\t%s\nthe encoding knows\n\t%s\nwrite the new ones in forkencode.go and forkdecode.go, then here", typ, g, want)
		}
	}
}
