// Steering: a second message sent while a Turn runs is applied to that
// Turn (no new Turn) and shows in the Turn's items; the Turn then ends by
// cancel.
import { agents, all, assert, main, message, newAgent, newSession, send, subscribe, userTexts } from './lib.mjs';

main(async () => {
  const session = await newSession(await newAgent());
  const events = await subscribe(session.id);
  await send(session.id, message('start'));
  const created = await events.next((e) => e.type === 'agent.session.turn.created', 'turn.created');
  const turnID = created.turn_id;
  // The synthetic Turn streams "working" and holds until cancelled.
  await events.next((e) => e.type === 'agent.session.turn.output_text.delta' && e.turn_id === turnID, 'the first delta');

  await send(session.id, message('more please'));
  // The Harness applies the steered input (it streams a delta naming it).
  await events.next(
    (e) => e.type === 'agent.session.turn.output_text.delta' && e.turn_id === turnID && e.delta.includes('more please'),
    'the applied steering input',
  );
  const turns = await all(agents.sessions.turns.list(session.id));
  assert.equal(turns.length, 1, 'steering started a new Turn');
  assert.equal(turns[0].id, turnID);

  const items = await all(agents.sessions.turns.items.list(turnID, { session_id: session.id, order: 'asc' }));
  assert.deepEqual(userTexts(items), ['start', 'more please']);

  await send(session.id, { type: 'agent.session.input.cancel' });
  const cancelled = await events.next((e) => e.type === 'agent.session.turn.cancelled', 'turn.cancelled');
  assert.equal(cancelled.turn_id, turnID);
  await events.next((e) => e.type === 'agent.session.idle', 'session.idle');
  events.close();

  const after = await all(agents.sessions.turns.items.list(turnID, { session_id: session.id, order: 'asc' }));
  assert.deepEqual(userTexts(after), ['start', 'more please'], 'the applied input stays in the Turn history');
});
