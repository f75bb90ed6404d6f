// Package fuzz holds the go test -fuzz targets of the protocol codec and
// their checked-in seed corpora (testdata/fuzz/<FuzzName>/).
//
// Every target checks the same properties: decoding never panics; a
// rejection wraps one of the named wire errors; an accepted frame whose
// payload validates re-encodes and decodes to an equal value; an accepted
// frame whose payload does not validate cannot be encoded.
//
// `make fuzz-smoke` runs each target for a few seconds; `make fuzz` for
// FUZZTIME each. `go test ./fuzz -update` rewrites the seed corpora from
// the golden fixtures of package wire and the rejection seeds of
// reject_seeds_test.go (one per error class a target can reach, each
// checked by TestRejectionSeeds to fail with its named error).
package fuzz
