// Runs one Turn on a local Turnstile Core and daemon with the official
// OpenAI SDK (npm install openai@7.60.0). The client reads Core's /v1 base
// URL and an API key from `turnstile core key add` from the environment:
//
//   OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_API_KEY=tsk_... node sdk-quickstart.mjs
import OpenAI from 'openai';

const client = new OpenAI();

const agent = await client.beta.agents.create({
  model: 'synthetic-1',
  x_agents_core: { harness: 'synthetic' },
});
const session = await client.beta.agents.sessions.create({
  agent_id: agent.id,
  environment: { type: 'none' },
});

const turn = client.beta.agents.sessions.stream(session.id, { input: 'Hello, Turnstile' });
for await (const event of turn) {
  if (event.type === 'agent.session.turn.output_text.delta') process.stdout.write(event.delta);
  if (event.type === 'agent.session.turn.completed') console.log(`\nturn ${event.turn_id}: ${event.turn.status}`);
}
