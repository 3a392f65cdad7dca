// The official JavaScript client (zulip-js 2.1.0) against the server, driven by
// tests/zulip_js_client.rs: send, a narrowed fetch at the first unread message, an edit
// (zulip-js sends PATCH parameters in the query string) and an event queue.
// Exits non-zero with a message on the first failure.
const zulipInit = require('zulip-js');

function check(ok, what, value) {
  if (!ok) {
    console.error(`FAILED: ${what}: ${JSON.stringify(value)}`);
    process.exit(1);
  }
  console.log(`ok: ${what}`);
}

async function main() {
  const realm = process.env.TEST_SERVER_URL;
  const channel = process.env.CHANNEL;
  const hamlet = await zulipInit({ username: process.env.SENDER_EMAIL, apiKey: process.env.SENDER_KEY, realm });
  const othello = await zulipInit({ username: process.env.READER_EMAIL, apiKey: process.env.READER_KEY, realm });

  const queue = await othello.queues.register({ event_types: ['message'] });
  check(queue.result === 'success' && queue.queue_id, 'register a queue', queue);

  const sent = await hamlet.messages.send({ to: channel, type: 'stream', topic: 'js', content: 'from zulip-js' });
  check(sent.result === 'success' && Number.isInteger(sent.id), 'send a channel message', sent);

  const fetched = await othello.messages.retrieve({
    anchor: 'first_unread',
    num_before: 0,
    num_after: 10,
    narrow: [{ operator: 'stream', operand: channel }],
  });
  check(fetched.result === 'success' && fetched.anchor === sent.id, 'first_unread anchor of the narrow', fetched);
  check(fetched.messages.some((m) => m.id === sent.id && m.content.includes('from zulip-js')), 'the message is fetched', fetched);

  const edited = await hamlet.messages.update({ message_id: sent.id, content: 'edited by zulip-js' });
  check(edited.result === 'success', 'edit through PATCH query parameters', edited);
  const after = await othello.messages.getById({ message_id: sent.id });
  check(after.result === 'success' && after.message.content.includes('edited by zulip-js'), 'the edit is stored', after);

  const events = await othello.events.retrieve({ queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: false });
  check(
    events.result === 'success' && events.events.some((e) => e.type === 'message' && e.message.id === sent.id),
    'the message event arrives',
    events,
  );
}

main().catch((err) => {
  console.error(`FAILED: ${err.stack || err}`);
  process.exit(1);
});
