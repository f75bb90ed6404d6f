// Shared helpers of the Agents API acceptance scripts. Every script drives
// a real `turnstile core` and `turnstile daemon` through the official
// OpenAI SDK only: the client reads OPENAI_BASE_URL (<core>/v1) and
// OPENAI_API_KEY (a key `turnstile core key add` issued) from the
// environment, as any SDK program does.
import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';

export { assert, OpenAI };

// No retries: a refused request must fail the script, not be retried.
export const client = new OpenAI({ maxRetries: 0, timeout: 30_000 });
export const agents = client.beta.agents;

// The Harness kind and model the Agent runs (the synthetic Harness unless
// the test names another).
export const harness = process.env.TURNSTILE_HARNESS ?? 'synthetic';
export const model = process.env.TURNSTILE_MODEL ?? 'synthetic-1';

let lines;

// control asks the Go test driving this script to act on the real
// processes ("restart-core") and waits for its "ok" on stdin.
export async function control(command) {
  lines ??= createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  process.stdout.write(`@@turnstile ${command}\n`);
  const { value, done } = await lines.next();
  assert.ok(!done, `control ${command}: stdin closed`);
  assert.equal(value, 'ok', `control ${command}`);
}

// main runs the script body; any failure prints its stack and exits 1.
export function main(body) {
  body().then(
    () => process.exit(0),
    (err) => {
      console.error(err?.stack ?? err);
      if (err instanceof OpenAI.APIError) console.error('status', err.status, 'error', JSON.stringify(err.error));
      process.exit(1);
    },
  );
}

// newAgent creates a reusable Agent run by the test's Harness.
export function newAgent(extra = {}) {
  return agents.create({
    model,
    name: 'acceptance',
    instructions: 'Answer briefly.',
    x_agents_core: { harness },
    ...extra,
  });
}

// newSession starts a Session of agent with no Environment.
export function newSession(agent, extra = {}) {
  return agents.sessions.create({ agent_id: agent.id, environment: { type: 'none' }, ...extra });
}

// runTurn runs one Turn on an idle Session with the SDK's own
// sessions.stream helper and returns its events, its Turn ID and the text
// its deltas streamed.
export async function runTurn(sessionID, input, params = {}) {
  const events = [];
  for await (const event of agents.sessions.stream(sessionID, { input, ...params })) {
    events.push(event);
  }
  const created = events.find((e) => e.type === 'agent.session.turn.created');
  assert.ok(created, `no turn.created in ${types(events)}`);
  const text = events
    .filter((e) => e.type === 'agent.session.turn.output_text.delta' && e.turn_id === created.turn_id)
    .map((e) => e.delta)
    .join('');
  return { events, turnID: created.turn_id, text };
}

// types lists the event types, for messages.
export function types(events) {
  return events.map((e) => e.type).join(',');
}

// subscribe opens the Session's live event stream; next(pred) returns the
// first event from now on that pred accepts, close() ends the stream.
export async function subscribe(sessionID) {
  const stream = await agents.sessions.events.stream(sessionID);
  const it = stream[Symbol.asyncIterator]();
  const seen = [];
  return {
    seen,
    async next(pred, what) {
      for (;;) {
        const { value, done } = await it.next();
        assert.ok(!done, `event stream ended waiting for ${what}; saw ${types(seen)}`);
        seen.push(value);
        if (pred(value)) return value;
      }
    },
    close() {
      stream.controller.abort();
    },
  };
}

// send posts one input event to the Session.
export function send(sessionID, ...events) {
  return agents.sessions.events.create(sessionID, { events });
}

// message is a user message input event.
export function message(text) {
  return {
    type: 'agent.session.input.message',
    input: [{ role: 'user', content: [{ type: 'input_text', text }] }],
  };
}

// all collects every item of an auto-paginating list.
export async function all(page) {
  const out = [];
  for await (const item of page) out.push(item);
  return out;
}

// messageText is the text of a message item's content parts.
export function messageText(item) {
  return (item.content ?? []).map((c) => c.text ?? '').join('');
}

// userTexts lists the texts of the user messages among items.
export function userTexts(items) {
  return items.filter((i) => i.type === 'message' && i.role === 'user').map(messageText);
}

// assistantText joins the texts of the assistant messages among items.
export function assistantText(items) {
  return items
    .filter((i) => i.type === 'message' && i.role === 'assistant')
    .map(messageText)
    .join('');
}

// refused awaits promise and asserts it fails with an OpenAI-shaped error
// of the given status; it returns the error.
export async function refused(promise, status, what) {
  let err;
  try {
    await promise;
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof OpenAI.APIError, `${what}: want an APIError, got ${err}`);
  assert.equal(err.status, status, `${what}: status ${err.status}: ${JSON.stringify(err.error)}`);
  const body = err.error;
  assert.equal(typeof body?.message, 'string', `${what}: error.message: ${JSON.stringify(body)}`);
  assert.ok(body.message.length > 0, `${what}: empty error.message`);
  assert.equal(typeof body.type, 'string', `${what}: error.type: ${JSON.stringify(body)}`);
  assert.ok('param' in body && 'code' in body, `${what}: error lacks param or code: ${JSON.stringify(body)}`);
  return err;
}
