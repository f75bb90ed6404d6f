// A Session created with its first input and stream: true answers that
// Turn's events as Server-Sent Events; finalResult collects the Turn and
// its final assistant message. The SDK's toolHandlers answer a function
// call of the next Turn by themselves.
import { agents, all, assert, assistantText, main, model, harness, types, userTexts } from './lib.mjs';

main(async () => {
  const stream = await agents.sessions.create({
    agent: { model, x_agents_core: { harness } },
    environment: { type: 'none' },
    input: 'first words',
    stream: true,
  });
  const result = await stream.finalResult();
  assert.equal(result.turn.status, 'completed', JSON.stringify(result.turn));
  assert.equal(result.messages.map((m) => m.content.map((c) => c.text).join('')).join(''), 'streamed at creation');
  const sessionID = result.turn.session_id;
  const session = await agents.sessions.retrieve(sessionID);
  assert.equal(session.status, 'idle');

  const calls = [];
  const events = [];
  for await (const event of agents.sessions.stream(sessionID, {
    input: 'use the tool',
    toolHandlers: {
      lookup: (args) => {
        calls.push(args);
        return { answer: 42 };
      },
    },
  })) {
    events.push(event);
  }
  assert.deepEqual(calls, [{ q: 'y' }], types(events));
  assert.ok(events.some((e) => e.type === 'agent.session.turn.completed'), types(events));
  const turns = await all(agents.sessions.turns.list(sessionID, { order: 'asc' }));
  assert.equal(turns.length, 2);
  const items = await all(agents.sessions.turns.items.list(turns[1].id, { session_id: sessionID, order: 'asc' }));
  const output = items.find((i) => i.type === 'function_call_output');
  assert.ok(output, `items ${items.map((i) => i.type)}`);
  assert.equal(output.call_id, 'call-2');
  const text = typeof output.output === 'string' ? output.output : output.output.map((c) => c.text).join('');
  assert.deepEqual(JSON.parse(text), { answer: 42 });

  const history = await all(agents.sessions.items.list(sessionID, { order: 'asc' }));
  assert.deepEqual(userTexts(history), ['first words', 'use the tool']);
  assert.ok(assistantText(history).startsWith('streamed at creation'));
});
