package synthetic_test

import (
	"context"
	"fmt"
	"io"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
	"github.com/turnstile-sim/turnstile/wire"
)

// An adapter declares its kind, discovery installs its factories, and the
// Registry validates the whole declaration before installing them. A Turn
// then runs as the Runtime runs it: the caller creates the bounded output
// channel and drains it, the Turn closes it, and settlement decides reuse.
func Example() {
	ctx := context.Background()
	h := synthetic.New()
	h.Script(synthetic.TurnScript{Deltas: []string{"Hello, ", "world"}})

	// Register: validate the declaration, discover, install in order.
	decl := synthetic.Declaration(h)
	rt, err := decl.Discover(ctx, nil, io.Discard)
	if err != nil {
		panic(err)
	}
	var reg agent.Registry
	if err := reg.Register(decl, rt); err != nil {
		panic(err)
	}
	factory, _ := reg.Executors(synthetic.Kind)

	// Prepare an Executor without model input.
	ex, err := factory.NewExecutor(ctx, agent.ExecutorConfig{
		SessionID:     "session-1",
		Configuration: wire.ExecutionConfiguration{AgentKind: synthetic.Kind},
	})
	if err != nil {
		panic(err)
	}

	// Start the consumer before the native start, then start the Turn.
	out := make(chan agent.Event, wire.OutputFramesMax)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for ev := range out {
			switch p := ev.Payload.(type) {
			case wire.Delta:
				fmt.Printf("%s delta %q\n", ev.RunID, p.Delta)
			case wire.Done:
				fmt.Printf("%s done %q\n", ev.RunID, p.Content)
			}
		}
	}()
	turn, err := ex.StartTurn(ctx, agent.TurnRequest{RunID: "run-1", Input: wire.TextInput("hi"), Output: out})
	if turn == nil {
		close(out) // nil Turn: nothing was submitted and the channel is ours
		<-drained
		panic(err)
	}

	// Settlement confirms the output closed and says whether to reuse.
	settlement, err := turn.AwaitSettlement(ctx)
	if err != nil {
		panic(err)
	}
	<-drained
	fmt.Println("reusable:", settlement.Reusable)

	// Close releases the native session; it is independent of the Turn.
	if err := ex.Close(ctx); err != nil {
		panic(err)
	}
	fmt.Printf("closed: %d of %d\n", h.Truth().ExecutorsClosed, h.Truth().ExecutorsCreated)
	// Output:
	// run-1 delta "Hello, "
	// run-1 delta "world"
	// run-1 done "Hello, world"
	// reusable: true
	// closed: 1 of 1
}
