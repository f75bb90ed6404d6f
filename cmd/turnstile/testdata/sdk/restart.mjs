// Core restarts mid-Session (SIGTERM, then a new process on the same data
// and address); the Session, its Agent and its history are what was
// persisted, and the next Turn continues the same history.
import { agents, all, assert, assistantText, control, main, newAgent, newSession, runTurn, userTexts } from './lib.mjs';

main(async () => {
  const agent = await newAgent();
  const session = await newSession(agent);
  const first = await runTurn(session.id, 'before the restart');
  assert.equal(first.text, 'first answer');

  await control('restart-core');

  const back = await agents.sessions.retrieve(session.id);
  assert.equal(back.id, session.id);
  assert.equal(back.status, 'idle');
  assert.equal((await agents.retrieve(agent.id)).id, agent.id);
  const turns = await all(agents.sessions.turns.list(session.id));
  assert.deepEqual(turns.map((t) => [t.id, t.status]), [[first.turnID, 'completed']]);

  const second = await runTurn(session.id, 'after the restart');
  assert.equal(second.text, 'after the restart');
  const history = await all(agents.sessions.items.list(session.id, { order: 'asc' }));
  assert.deepEqual(userTexts(history), ['before the restart', 'after the restart']);
  assert.equal(assistantText(history), 'first answerafter the restart');
  const after = await all(agents.sessions.turns.list(session.id, { order: 'asc' }));
  assert.deepEqual(after.map((t) => t.id), [first.turnID, second.turnID]);
});
