// Package cputime reads the CPU time the running process has used, for
// benchmarks that report cost beside wall time: unlike wall time, CPU time
// does not grow with the machine's load.
package cputime
