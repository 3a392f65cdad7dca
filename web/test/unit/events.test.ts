// The event loop against a fake server: events applied in order, a re-registration after
// BAD_EVENT_QUEUE_ID (the view is fetched again), a retry after a network error.
import { test } from "node:test";
import assert from "node:assert/strict";

const memory = new Map<string, string>();
const g = globalThis as Record<string, unknown>;
g.localStorage = { getItem: (k: string) => memory.get(k) ?? null, setItem: (k: string, v: string) => memory.set(k, v), removeItem: (k: string) => memory.delete(k) };
g.location = new URL("http://chat.test/");
g.document = { cookie: "csrftoken=tok" };

type Reply = { status: number; body: unknown } | "network";
const calls: { url: string; method: string; csrf: string | null }[] = [];
let script: ((url: string, method: string) => Reply)[] = [];

g.fetch = async (input: string, init: RequestInit = {}) => {
  const method = init.method ?? "GET";
  calls.push({ url: input, method, csrf: new Headers(init.headers).get("X-CSRFToken") });
  const next = script.shift();
  if (!next) return new Promise(() => {}); // a poll that never answers: the test is over
  const r = next(input, method);
  if (r === "network") throw new TypeError("fetch failed");
  return new Response(JSON.stringify(r.body), { status: r.status, headers: { "Content-Type": "application/json" } });
};

const { EventLoop } = await import("../../src/events");
const { state } = await import("../../src/store");

function registerReply(queue: string) {
  return () => ({
    status: 200,
    body: {
      result: "success", msg: "", queue_id: queue, last_event_id: -1, user_id: 1, email: "me@x.com", full_name: "Me",
      realm_users: [{ user_id: 1, email: "me@x.com", full_name: "Me" }, { user_id: 2, email: "h@x.com", full_name: "H" }],
      subscriptions: [{ stream_id: 9, name: "Verona", is_muted: false, pin_to_top: false }],
      unread_msgs: { streams: [], pms: [], huddles: [], mentions: [] },
      max_message_id: 10,
    },
  });
}

const message = (id: number) => ({
  type: "message", id: id - 100, flags: [],
  message: { id, type: "stream", stream_id: 9, subject: "t", sender_id: 2, sender_email: "h@x.com", sender_full_name: "H", content: "<p>x</p>", display_recipient: "Verona", timestamp: 1, reactions: [], avatar_url: null, flags: [] },
});

test("events are applied; an expired queue is registered again and the view refetched; network errors are retried", async () => {
  let reregistered = 0;
  script = [
    registerReply("q1"),
    (url) => {
      assert.match(url, /queue_id=q1&last_event_id=-1/);
      return { status: 200, body: { result: "success", msg: "", events: [message(101)] } };
    },
    (url) => {
      assert.match(url, /last_event_id=1\b/);
      assert.ok(state.unreads.isUnread(101), "the first poll's message was applied");
      return { status: 400, body: { result: "error", msg: "Bad event queue id: q1", code: "BAD_EVENT_QUEUE_ID", queue_id: "q1" } };
    },
    registerReply("q2"),
    () => "network",
    (url) => {
      assert.match(url, /queue_id=q2&last_event_id=-1/);
      return { status: 200, body: { result: "success", msg: "", events: [message(102)] } };
    },
  ];
  const loop = new EventLoop({ onReregistered: () => void reregistered++, onUnauthorized: () => assert.fail("not signed out") });
  await loop.register();
  loop.start();
  const deadline = Date.now() + 10000;
  while (script.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 50));
  loop.stop();
  assert.equal(script.length, 0, "every scripted answer was asked for");
  assert.equal(reregistered, 1);
  assert.equal(loop.queueId, "q2");
  // After registering again the state is register's (which would list 101 if still unread).
  assert.ok(state.unreads.isUnread(102));
  assert.ok(calls.every((c) => c.csrf === "tok"), "every call carries the CSRF header");
  assert.equal(calls.filter((c) => c.url.includes("/register")).length, 2);
});
