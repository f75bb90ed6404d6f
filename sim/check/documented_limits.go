package check

// The Runtime's table limits of the documents (wire-reference §6.1,
// DESIGN.md §5), written out here again so that neither an oracle nor the
// world that configures the machines reads them from the daemon's own
// defaults: a wrong default then shows as a breach instead of moving the
// yardstick with it. The timers are in documentedTimers (timing_table.go).
const (
	DocumentedActiveMax           = 4   // concurrent preparations and executions
	DocumentedIdleExecutorsMax    = 16  // idle executors kept
	DocumentedExecutorsMax        = 20  // executors held: 16 idle + 4 active
	DocumentedAdmissionRecordsMax = 64  // admission records per connection
	DocumentedSteerInputsPerRun   = 256 // steering inputs per Run
)
