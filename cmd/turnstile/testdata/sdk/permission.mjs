// A permission request of the Harness surfaces as the Session's
// requires_action (an approval request); approving it lets the Turn
// complete.
import { agents, assert, main, message, newAgent, newSession, send, subscribe, types } from './lib.mjs';

main(async () => {
  const session = await newSession(await newAgent());
  const events = await subscribe(session.id);
  await send(session.id, message('list the files'));
  const created = await events.next((e) => e.type === 'agent.session.turn.created', 'turn.created');
  const asked = await events.next((e) => e.type === 'agent.session.requires_action', 'requires_action');
  const actions = asked.session.required_actions;
  assert.equal(asked.session.status, 'requires_action');
  assert.equal(actions.length, 1, JSON.stringify(actions));
  const action = actions[0];
  assert.equal(action.type, 'mcp_approval_request', JSON.stringify(action));
  assert.equal(action.turn_id, created.turn_id);
  assert.ok(action.request_id, 'request_id');
  assert.equal(action.request.type, 'mcp_tool_call');
  assert.equal(action.request.name, 'shell');
  assert.match(action.request.message, /Run ls/);

  const pending = await agents.sessions.retrieve(session.id);
  assert.equal(pending.status, 'requires_action');
  assert.deepEqual(pending.required_actions.map((a) => a.request_id), [action.request_id]);

  await send(session.id, {
    type: 'agent.session.input.mcp_approval_request_result',
    request_id: action.request_id,
    response: { type: 'mcp_tool_call', decision: 'approve' },
  });
  const end = await events.next((e) => e.type.startsWith('agent.session.turn.') && ['completed', 'failed', 'cancelled'].includes(e.turn?.status), 'the Turn end');
  assert.equal(end.type, 'agent.session.turn.completed', types(events.seen));
  await events.next((e) => e.type === 'agent.session.idle', 'session.idle');
  events.close();

  const after = await agents.sessions.retrieve(session.id);
  assert.equal(after.status, 'idle');
  assert.deepEqual(after.required_actions, []);
});
