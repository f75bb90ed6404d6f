package check

import "strconv"

// connKey names a connection as the other records do ("c7").
func connKey(c uint64) string { return "c" + strconv.FormatUint(c, 10) }
