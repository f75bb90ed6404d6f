// An Agent and a Session; one Turn streamed to completion with the SDK's
// sessions.stream helper; the Turn, its items and the Session's items read
// back; a second Turn on the same Session.
import {
  agents, all, assert, assistantText, main, model, newAgent, newSession, runTurn, types, userTexts,
} from './lib.mjs';

main(async () => {
  const agent = await newAgent();
  assert.equal(agent.object, 'agent');
  assert.equal(agent.model, model);
  assert.ok(agent.id, 'agent id');
  const again = await agents.retrieve(agent.id);
  assert.equal(again.id, agent.id);
  assert.equal(again.instructions, 'Answer briefly.');

  const session = await newSession(agent, { metadata: { purpose: 'acceptance' } });
  assert.equal(session.object, 'agent.session');
  assert.equal(session.status, 'idle');
  assert.deepEqual(session.metadata, { purpose: 'acceptance' });

  // The daemon's synthetic script streams "Hello, " then "world".
  const turn = await runTurn(session.id, 'hi');
  const seq = turn.events.map((e) => e.type);
  assert.ok(seq.indexOf('agent.session.turn.created') < seq.indexOf('agent.session.turn.output_text.delta'), types(turn.events));
  assert.equal(turn.text, 'Hello, world', types(turn.events));
  const done = turn.events.find((e) => e.type === 'agent.session.turn.output_text.done');
  assert.ok(done, `no output_text.done in ${types(turn.events)}`);
  assert.equal(done.text, 'Hello, world');
  const completed = turn.events.find((e) => e.type === 'agent.session.turn.completed');
  assert.ok(completed, `no turn.completed in ${types(turn.events)}`);
  assert.equal(completed.turn.status, 'completed');
  assert.equal(completed.turn.session_id, session.id);
  assert.equal(seq.at(-1), 'agent.session.idle', types(turn.events));
  assert.ok(seq.indexOf('agent.session.turn.completed') < seq.lastIndexOf('agent.session.idle'));
  for (const e of turn.events) assert.ok(e.event_id, `event ${e.type} without an event_id`);

  const t = await agents.sessions.turns.retrieve(turn.turnID, { session_id: session.id, order: 'asc' });
  assert.equal(t.object, 'agent.session.turn');
  assert.equal(t.id, turn.turnID);
  assert.equal(t.status, 'completed');
  assert.equal(t.error, null);
  // Core keeps no clock in its records: completed_at is null or no earlier
  // than created_at.
  assert.ok(t.completed_at === null || t.completed_at >= t.created_at, JSON.stringify(t));

  const items = await all(agents.sessions.turns.items.list(turn.turnID, { session_id: session.id, order: 'asc' }));
  assert.deepEqual(userTexts(items), ['hi']);
  assert.equal(assistantText(items), 'Hello, world');
  for (const item of items) assert.equal(item.turn_id, turn.turnID);

  // Scripts used up: the synthetic Harness echoes the input.
  const second = await runTurn(session.id, 'echo me');
  assert.equal(second.text, 'echo me');
  assert.notEqual(second.turnID, turn.turnID);

  const history = await all(agents.sessions.items.list(session.id, { order: 'asc' }));
  assert.deepEqual(userTexts(history), ['hi', 'echo me']);
  assert.equal(assistantText(history), 'Hello, worldecho me');

  const after = await agents.sessions.retrieve(session.id);
  assert.equal(after.status, 'idle');
  assert.deepEqual(after.required_actions, []);
});
