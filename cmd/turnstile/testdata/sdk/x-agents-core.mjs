// Core's additions live only inside x_agents_core; any other member of it
// is a 400 naming the member, and nothing is created.
import { agents, all, assert, harness, main, model, newAgent, refused } from './lib.mjs';

main(async () => {
  const before = (await all(agents.list())).length;
  const err = await refused(
    agents.create({ model, x_agents_core: { harness, color: 'blue' } }),
    400,
    'an unknown x_agents_core member on agents.create',
  );
  assert.match(err.param ?? '', /x_agents_core\.color/, JSON.stringify(err.error));
  await refused(
    agents.create({ model, x_agents_core: { harness, model_provider: { protocol: 'openai_responses', base_url: 'https://m.example.test/v1', region: 'eu' } } }),
    400,
    'an unknown x_agents_core.model_provider member',
  );
  await refused(
    agents.sessions.create({ agent: { model, x_agents_core: { harness, color: 'blue' } }, environment: { type: 'none' } }),
    400,
    'an unknown x_agents_core member of an inline Session agent',
  );
  assert.equal((await all(agents.list())).length, before, 'a refused create created an Agent');
  assert.equal((await all(agents.sessions.list())).length, 0, 'a refused create created a Session');

  const agent = await newAgent();
  await refused(
    agents.update(agent.id, { x_agents_core: { harness, color: 'blue' } }),
    400,
    'an unknown x_agents_core member on agents.update',
  );
  assert.equal((await agents.retrieve(agent.id)).updated_at, agent.updated_at, 'a refused update changed the Agent');
});
