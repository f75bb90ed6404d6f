// A function call of the Harness surfaces as a function_call item and the
// Session's requires_action; the tool result returned through session
// events lets the Turn complete, and both items stay in its history. (The
// Agent declares no function tool: Core's built-in policy does not qualify
// the synthetic Harness kind for declared function tools; the call comes
// from the daemon's script.)
import { agents, all, assert, main, message, newAgent, newSession, send, subscribe, types } from './lib.mjs';

main(async () => {
  const agent = await newAgent();
  const session = await newSession(agent);
  const events = await subscribe(session.id);
  await send(session.id, message('look x up'));
  const created = await events.next((e) => e.type === 'agent.session.turn.created', 'turn.created');
  const added = await events.next(
    (e) => e.type === 'agent.session.turn.item.added' && e.item.type === 'function_call',
    'the function_call item',
  );
  assert.equal(added.item.name, 'lookup');
  assert.equal(added.item.call_id, 'call-1');
  const args = typeof added.item.arguments === 'string' ? JSON.parse(added.item.arguments) : added.item.arguments;
  assert.deepEqual(args, { q: 'x' });
  const asked = await events.next((e) => e.type === 'agent.session.requires_action', 'requires_action');
  const action = asked.session.required_actions.find((a) => a.type === 'function_call');
  assert.ok(action, JSON.stringify(asked.session.required_actions));
  assert.equal(action.call_id, 'call-1');
  assert.equal(action.turn_id, created.turn_id);

  await send(session.id, {
    type: 'agent.session.input.tool_result',
    call_id: 'call-1',
    turn_id: created.turn_id,
    success: true,
    output: '{"answer":42}',
  });
  const end = await events.next((e) => ['agent.session.turn.completed', 'agent.session.turn.failed', 'agent.session.turn.cancelled'].includes(e.type), 'the Turn end');
  assert.equal(end.type, 'agent.session.turn.completed', types(events.seen));
  events.close();

  const items = await all(agents.sessions.turns.items.list(created.turn_id, { session_id: session.id, order: 'asc' }));
  const call = items.find((i) => i.type === 'function_call');
  const output = items.find((i) => i.type === 'function_call_output');
  assert.ok(call && output, `items ${items.map((i) => i.type)}`);
  assert.equal(output.call_id, 'call-1');
  const text = typeof output.output === 'string' ? output.output : output.output.map((c) => c.text).join('');
  assert.equal(text, '{"answer":42}');
});
