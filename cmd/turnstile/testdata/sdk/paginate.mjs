// Cursor pages of Sessions and Turns: pages of the asked size, has_more,
// the next page from the last ID, every object exactly once, both orders.
import { agents, all, assert, main, newAgent, newSession, runTurn } from './lib.mjs';

main(async () => {
  const agent = await newAgent();
  const created = [];
  for (let i = 0; i < 5; i++) created.push((await newSession(agent, { metadata: { n: String(i) } })).id);

  const first = await agents.sessions.list({ limit: 2, order: 'asc' });
  assert.equal(first.data.length, 2);
  assert.equal(first.has_more, true);
  assert.deepEqual(first.data.map((s) => s.id), created.slice(0, 2));
  assert.ok(first.hasNextPage());
  const second = await first.getNextPage();
  assert.deepEqual(second.data.map((s) => s.id), created.slice(2, 4));

  const asc = (await all(agents.sessions.list({ limit: 2, order: 'asc' }))).map((s) => s.id);
  assert.deepEqual(asc, created);
  const desc = (await all(agents.sessions.list({ limit: 2, order: 'desc' }))).map((s) => s.id);
  assert.deepEqual(desc, [...created].reverse());
  const last = await agents.sessions.list({ limit: 5, order: 'asc' });
  assert.equal(last.data.length, 5);
  assert.equal(last.has_more, false);
  assert.equal(last.hasNextPage(), false);

  const byAgent = (await all(agents.sessions.list({ agent_id: agent.id, limit: 3 }))).map((s) => s.id);
  assert.deepEqual([...byAgent].sort(), [...created].sort());

  const session = created[0];
  const turnIDs = [];
  for (const text of ['one', 'two', 'three']) turnIDs.push((await runTurn(session, text)).turnID);
  const turnPage = await agents.sessions.turns.list(session, { limit: 1, order: 'asc' });
  assert.equal(turnPage.data.length, 1);
  assert.equal(turnPage.has_more, true);
  const turns = (await all(agents.sessions.turns.list(session, { limit: 1, order: 'asc' }))).map((t) => t.id);
  assert.deepEqual(turns, turnIDs);
  const turnsDesc = (await all(agents.sessions.turns.list(session, { limit: 2, order: 'desc' }))).map((t) => t.id);
  assert.deepEqual(turnsDesc, [...turnIDs].reverse());

  const agentIDs = (await all(agents.list({ limit: 1 }))).map((a) => a.id);
  assert.deepEqual(agentIDs, [agent.id]);
});
