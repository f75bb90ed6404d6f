// Package store holds implementations of core.Store, Core's durable
// records of Sessions, Turns, active inputs and run events.
//
// Memory is the simulator's store: it lives outside the Machine, so it
// survives a simulated Core crash. Restarting Core means building a new
// Machine over the same Memory with core.Restart; every record the old
// Machine wrote before its last Step returned is there. Memory copies
// slices on the way in and out, so neither side can alter the other's
// view by mutating a slice.
//
// Subpackages: sqlitestore is the real Core's on-disk store (SQLite with
// group commit; a shell, never imported by the simulator), and storetest
// is the contract suite every implementation runs.
package store
