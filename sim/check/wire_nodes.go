package check

import "strconv"

// coreNodeID is Core's node ID in the world: every other node on the wire
// is a device (d1..d4) or the workload.
const coreNodeID = "core"

// connKey names a connection as the other records do ("c7").
func connKey(c uint64) string { return "c" + strconv.FormatUint(c, 10) }
