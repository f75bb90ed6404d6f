// Last-Event-ID (Core's extension of the session event stream): a stream
// reopened after any event of a finished Turn replays the rest of that
// Turn's events, the same events with the same IDs, from Core's records;
// an ID of another stream is refused.
import { agents, assert, main, newAgent, newSession, refused, runTurn, types } from './lib.mjs';

main(async () => {
  const session = await newSession(await newAgent());
  const turn = await runTurn(session.id, 'hi');
  const own = turn.events.filter((e) => e.turn_id === turn.turnID);
  assert.ok(own.length >= 3, types(turn.events));

  for (const from of [0, 1, own.length - 2]) {
    const stream = await agents.sessions.events.stream(session.id, {}, { headers: { 'Last-Event-ID': own[from].event_id } });
    const replayed = [];
    for await (const event of stream) {
      if (event.turn_id === turn.turnID) replayed.push(event);
      if (event.type === 'agent.session.turn.completed' && event.turn_id === turn.turnID) break;
    }
    const want = own.slice(from + 1);
    assert.deepEqual(replayed.map((e) => [e.event_id, e.type]), want.map((e) => [e.event_id, e.type]),
      `resumed after ${own[from].type}`);
    const deltas = (events) => events.filter((e) => e.type === 'agent.session.turn.output_text.delta').map((e) => e.delta).join('');
    assert.equal(deltas(replayed), deltas(want));
  }

  const other = await newSession(await newAgent());
  await refused(
    agents.sessions.events.stream(other.id, {}, { headers: { 'Last-Event-ID': own[0].event_id } }),
    400,
    'a Last-Event-ID of another Session',
  );
});
