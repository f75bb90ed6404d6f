// Cancel: a running Turn ends cancelled with what it streamed so far; a
// cancel with no running Turn is refused; the Session takes the next Turn.
import { agents, assert, main, message, newAgent, newSession, refused, runTurn, send, subscribe } from './lib.mjs';

main(async () => {
  const session = await newSession(await newAgent());
  const events = await subscribe(session.id);
  await send(session.id, message('start'));
  const created = await events.next((e) => e.type === 'agent.session.turn.created', 'turn.created');
  await events.next((e) => e.type === 'agent.session.turn.output_text.delta', 'the first delta');

  const running = await agents.sessions.retrieve(session.id);
  assert.equal(running.status, 'in_progress');

  await send(session.id, { type: 'agent.session.input.cancel' });
  const cancelled = await events.next(
    (e) => ['agent.session.turn.cancelled', 'agent.session.turn.completed', 'agent.session.turn.failed'].includes(e.type),
    'the Turn end',
  );
  assert.equal(cancelled.type, 'agent.session.turn.cancelled');
  assert.equal(cancelled.turn_id, created.turn_id);
  assert.equal(cancelled.turn.status, 'cancelled');
  await events.next((e) => e.type === 'agent.session.idle', 'session.idle');
  events.close();

  const turn = await agents.sessions.turns.retrieve(created.turn_id, { session_id: session.id });
  assert.equal(turn.status, 'cancelled');

  // Nothing runs: a cancel is refused and changes nothing.
  await refused(send(session.id, { type: 'agent.session.input.cancel' }), 409, 'cancel of a finished Turn');
  const still = await agents.sessions.turns.retrieve(created.turn_id, { session_id: session.id });
  assert.equal(still.status, 'cancelled');

  const next = await runTurn(session.id, 'after the cancel');
  assert.equal(next.text, 'after the cancel');
});
