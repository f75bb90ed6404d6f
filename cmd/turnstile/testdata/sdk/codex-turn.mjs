// Two Turns on the Codex Harness (the test's fake model server answers
// "Hello, world", then "again"): streamed to completion with the SDK's
// sessions.stream helper, their items read back.
import { agents, all, assert, assistantText, harness, main, newAgent, newSession, runTurn, userTexts } from './lib.mjs';

main(async () => {
  assert.equal(harness, 'codex');
  const session = await newSession(await newAgent());
  const first = await runTurn(session.id, 'hi');
  assert.equal(first.text, 'Hello, world');
  const turn = await agents.sessions.turns.retrieve(first.turnID, { session_id: session.id });
  assert.equal(turn.status, 'completed');
  const second = await runTurn(session.id, 'once more');
  assert.equal(second.text, 'again');
  const history = await all(agents.sessions.items.list(session.id, { order: 'asc' }));
  assert.deepEqual(userTexts(history), ['hi', 'once more']);
  assert.equal(assistantText(history), 'Hello, worldagain');
});
