module github.com/turnstile-sim/turnstile

go 1.26

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/benbjohnson/clock v1.3.5
	github.com/coder/websocket v1.8.15
	go.uber.org/goleak v1.3.0
	pgregory.net/rapid v1.3.0
)
