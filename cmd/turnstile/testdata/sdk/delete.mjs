// Session delete: refused while a Turn is unfinished (nothing changes);
// once the Session is idle it is deleted (agent.session.deleted), every
// route answers it 404 and lists leave it out; other Sessions stay.
import { agents, all, assert, main, message, newAgent, newSession, refused, send, subscribe } from './lib.mjs';

main(async () => {
  const agent = await newAgent();
  const session = await newSession(agent, { metadata: { keep: 'me' } });
  const other = await newSession(agent);

  const events = await subscribe(session.id);
  await send(session.id, message('start'));
  const created = await events.next((e) => e.type === 'agent.session.turn.created', 'turn.created');
  await events.next((e) => e.type === 'agent.session.turn.output_text.delta', 'the first delta');

  const busy = await refused(agents.sessions.delete(session.id), 409, 'delete with a running Turn');
  assert.equal(busy.error.code, 'session_active');
  const running = await agents.sessions.retrieve(session.id);
  assert.equal(running.status, 'in_progress');
  assert.deepEqual(running.metadata, { keep: 'me' });

  await send(session.id, { type: 'agent.session.input.cancel' });
  await events.next((e) => e.type === 'agent.session.idle', 'session.idle');
  events.close();

  const deleted = await agents.sessions.delete(session.id);
  assert.deepEqual(deleted, { id: session.id, object: 'agent.session.deleted', deleted: true });

  const gone = (what, promise) =>
    refused(promise, 404, what).then((err) => assert.equal(err.error.code, 'unknown_session', what));
  await gone('retrieve', agents.sessions.retrieve(session.id));
  await gone('update', agents.sessions.update(session.id, { metadata: { a: 'b' } }));
  await gone('delete again', agents.sessions.delete(session.id));
  await gone('events', send(session.id, message('after the delete')));
  await gone('stream', agents.sessions.events.stream(session.id));
  await gone('turns', agents.sessions.turns.list(session.id));
  await gone('turn', agents.sessions.turns.retrieve(created.turn_id, { session_id: session.id }));
  await gone('turn items', agents.sessions.turns.items.list(created.turn_id, { session_id: session.id }));
  await gone('items', agents.sessions.items.list(session.id));

  const listed = (await all(agents.sessions.list({ limit: 1 }))).map((s) => s.id);
  assert.deepEqual(listed, [other.id]);
  assert.equal((await agents.sessions.retrieve(other.id)).status, 'idle');
});
