// Package storetest is the contract suite of core.Store. Every store
// implementation runs it from its tests:
//
//	storetest.Run(t, func(t *testing.T) (core.Store, func() core.Store) {
//		st := open(t)
//		return st, func() core.Store { return reopenAfterCrash(t, st) }
//	})
//
// open returns an empty store and its reopen function, which simulates a
// crash and restart: it returns the store a new process would find. The
// suite checks every read against its own model of the contract (listing
// order, replace semantics, the input index and event sequence rules,
// the tail read of a Turn's events (EventsAfter), counters, copies, exact round trips of every record field) before and
// after each reopen, and drives a real core.Machine across a reopen with
// core.Restart. The suspension and Environment preparation tables
// (core.SuspensionStore, core.PreparationStore) are part of the contract:
// their scenarios fail on a store that does not implement them, and
// core.Restart over the reopened store must settle their records.
//
// A store that buffers writes until a group commit implements Committer;
// the suite calls Commit where a server loop would. Run expects reopen to
// keep every write (Memory's reopen returns the same instance; a disk
// store commits, closes and opens). RunWith with LosesUncommitted expects
// reopen to drop exactly the writes since the last Commit, all of them
// together.
package storetest
