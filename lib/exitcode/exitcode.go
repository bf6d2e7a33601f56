// Package exitcode is the one table of exit statuses shared by every sf
// command. A script can tell from the status alone whether the system under
// test passed, whether sf found a problem in it, or whether sf itself could
// not do its job.
package exitcode

const (
	// Pass means the command did its job and found nothing wrong: every seed
	// passed, the history checked out, the schedule was written.
	Pass = 0
	// Problem means the command did its job and found a problem in the system
	// under test: a seed failed, a history is not linearizable, or a checker
	// gave up (which is not a pass). sf-shrink also exits with it when it
	// shrank a failure, since the failure is still there.
	Problem = 1
	// Usage means the command could not do its job: bad flags or arguments,
	// unreadable or invalid input (a world file, a schedule, a history), a
	// build that failed, or an internal error. Nothing was learnt about the
	// system under test.
	Usage = 2
	// Interrupted means SIGINT or SIGTERM stopped the command before it
	// finished, after it wrote what it had; it is the status a shell reports
	// for a command killed by SIGINT (128+2).
	Interrupted = 130
)
