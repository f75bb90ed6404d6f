// Package example is a small text-only Harness adapter written for the
// adapter author's guide (adapters/README.md): kind "wordecho" streams
// its input back one word per delta. Its native side is Engine, an
// in-process stand-in for a real engine's process or connection, with
// knobs (Behaviour) that let tests produce every lifecycle path. It is
// registered only in its own tests and never by the daemon program.
package example
