// A Vault credential is write-only: no answer of any route echoes its
// secret (the raw bodies are read, not only the typed objects), and a
// Session references the Vault by ID. The Go test checks Core's log and
// data directory for the secret too.
import { agents, all, assert, main, newAgent, newSession } from './lib.mjs';

const secret = process.env.TURNSTILE_VAULT_SECRET;
const providerKey = process.env.TURNSTILE_PROVIDER_KEY;

// raw reads an SDK call's HTTP answer as text and checks that it holds no
// secret.
async function raw(promise, what) {
  const response = await promise.asResponse();
  const text = await response.text();
  assert.ok(response.ok, `${what}: ${response.status} ${text}`);
  assert.ok(!text.includes(secret), `${what} echoes the credential's secret: ${text}`);
  assert.ok(!text.includes(providerKey), `${what} echoes the provider key: ${text}`);
  return JSON.parse(text);
}

main(async () => {
  assert.ok(secret && secret.length >= 16, 'TURNSTILE_VAULT_SECRET');
  assert.ok(providerKey && providerKey.length >= 16, 'TURNSTILE_PROVIDER_KEY');
  const vault = await raw(agents.vaults.create({ name: 'mcp', metadata: { team: 'a' } }), 'vaults.create');
  assert.equal(vault.object, 'vault');

  const cred = await raw(agents.vaults.credentials.create(vault.id, {
    name: 'docs-mcp',
    auth: { type: 'static_bearer', token: secret, mcp_server_url: 'https://mcp.example.test/mcp' },
  }), 'credentials.create');
  assert.equal(cred.object, 'vault.credential');
  assert.equal(cred.vault_id, vault.id);
  assert.equal(cred.auth.type, 'static_bearer');
  assert.equal(cred.auth.mcp_server_url, 'https://mcp.example.test/mcp');
  assert.ok(!('token' in cred.auth), 'the token is returned');

  await raw(agents.vaults.credentials.retrieve(cred.id, { vault_id: vault.id }), 'credentials.retrieve');
  await raw(agents.vaults.retrieve(vault.id), 'vaults.retrieve');
  const listed = await raw(agents.vaults.credentials.list(vault.id), 'credentials.list');
  assert.deepEqual(listed.data.map((c) => c.id), [cred.id]);
  await raw(agents.vaults.list(), 'vaults.list');
  const rotated = await raw(agents.vaults.credentials.update(cred.id, {
    vault_id: vault.id, auth: { type: 'static_bearer', token: `${secret}-rotated` },
  }), 'credentials.update');
  assert.equal(rotated.id, cred.id);

  // A model-provider key is write-only too: read back as configured.
  const agent = await raw(agents.create({
    model: process.env.TURNSTILE_MODEL ?? 'synthetic-1',
    x_agents_core: {
      harness: process.env.TURNSTILE_HARNESS ?? 'synthetic',
      model_provider: { protocol: 'openai_responses', base_url: 'https://models.example.test/v1', api_key: providerKey },
    },
  }), 'agents.create with a provider key');
  assert.equal(agent.x_agents_core?.model_provider?.api_key_configured, true, JSON.stringify(agent.x_agents_core));
  assert.ok(!('api_key' in agent.x_agents_core.model_provider), 'the api_key is returned');
  await raw(agents.retrieve(agent.id), 'agents.retrieve');

  const session = await newSession(await newAgent(), { vault_ids: [vault.id] });
  assert.deepEqual(session.vault_ids, [vault.id]);
  await raw(agents.sessions.retrieve(session.id), 'sessions.retrieve');
  const sessions = await all(agents.sessions.list());
  assert.ok(sessions.some((s) => s.id === session.id));
  assert.ok(!JSON.stringify(sessions).includes(secret));

  const deleted = await agents.vaults.credentials.delete(cred.id, { vault_id: vault.id });
  assert.equal(deleted.deleted, true);
});
