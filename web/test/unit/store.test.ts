// Live events applied to the store: what the open narrow shows and the unread counts.
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";

const memory = new Map<string, string>();
(globalThis as Record<string, unknown>).localStorage = {
  getItem: (k: string) => memory.get(k) ?? null,
  setItem: (k: string, v: string) => memory.set(k, v),
  removeItem: (k: string) => memory.delete(k),
};
(globalThis as Record<string, unknown>).location = new URL("http://chat.test/");

const { applyEvent, loadRegister, state, hooks } = await import("../../src/store");
const { SELF, dmMsg, streamMsg } = await import("./fixtures");

beforeEach(() => {
  loadRegister({
    user_id: SELF,
    email: "me@x.com",
    full_name: "Me",
    realm_users: [
      { user_id: 1, email: "me@x.com", full_name: "Me" },
      { user_id: 2, email: "hamlet@x.com", full_name: "Hamlet" },
    ],
    subscriptions: [
      { stream_id: 9, name: "Verona", is_muted: false, pin_to_top: false },
      { stream_id: 12, name: "Denmark", is_muted: false, pin_to_top: false },
    ],
    unread_msgs: { streams: [], pms: [], huddles: [], mentions: [] },
    user_topics: [],
  });
});

function openView(narrow: Parameters<typeof Object>[0], messages = [] as ReturnType<typeof streamMsg>[]) {
  state.view = { narrow, messages, foundOldest: true, foundNewest: true, loading: "none" };
}

test("a new message in the open narrow is shown once; others only counted", () => {
  openView([{ operator: "channel", operand: 9 }]);
  const here = streamMsg(9, "lunch");
  const there = streamMsg(12, "lunch");
  applyEvent({ type: "message", message: here, flags: [] });
  applyEvent({ type: "message", message: here, flags: [] });
  applyEvent({ type: "message", message: there, flags: [] });
  assert.deepEqual(state.view!.messages.map((m) => m.id), [here.id]);
  assert.equal(state.unreads.channelCount(9), 1);
  assert.equal(state.unreads.channelCount(12), 1);
});

test("a view that has not reached the newest message does not take live messages", () => {
  openView([]);
  state.view!.foundNewest = false;
  applyEvent({ type: "message", message: streamMsg(9, "x"), flags: [] });
  assert.equal(state.view!.messages.length, 0);
});

test("our own message arrives read and replaces its local echo", () => {
  openView([{ operator: "dm", operand: [2] }], [{ ...dmMsg([1, 2]), id: 1e9, local_id: "l1" } as never]);
  const m = dmMsg([1, 2], { sender_id: SELF });
  applyEvent({ type: "message", message: m, flags: ["read"], local_message_id: "l1" });
  assert.deepEqual(state.view!.messages.map((x) => x.id), [m.id]);
  assert.equal(state.unreads.total(), 0);
});

test("read flags from another tab lower the counts and mark the shown message", () => {
  const m = streamMsg(9, "lunch");
  openView([{ operator: "channel", operand: 9 }]);
  applyEvent({ type: "message", message: m, flags: [] });
  assert.equal(state.unreads.total(), 1);
  applyEvent({ type: "update_message_flags", op: "add", flag: "read", messages: [m.id], all: false });
  assert.equal(state.unreads.total(), 0);
  assert.ok(state.view!.messages[0]!.flags.includes("read"));
});

test("an edit replaces the content; a move out of the topic removes the message", () => {
  const a = streamMsg(9, "lunch");
  const b = streamMsg(9, "lunch");
  openView([{ operator: "channel", operand: 9 }, { operator: "topic", operand: "lunch" }], [a, b]);
  applyEvent({ type: "update_message", message_id: a.id, message_ids: [a.id], rendered_content: "<p>new</p>", edit_timestamp: 5, flags: [] });
  assert.equal(state.view!.messages[0]!.content, "<p>new</p>");
  assert.equal(state.view!.messages[0]!.last_edit_timestamp, 5);
  applyEvent({ type: "update_message", message_id: b.id, message_ids: [b.id], stream_id: 9, orig_subject: "lunch", subject: "dinner", propagate_mode: "change_one", edit_timestamp: 6 });
  assert.deepEqual(state.view!.messages.map((m) => m.id), [a.id]);
});

test("a resolve keeps the messages in the channel view and is not marked as moved", () => {
  const a = streamMsg(9, "bug");
  openView([{ operator: "channel", operand: 9 }], [a]);
  applyEvent({ type: "update_message", message_id: a.id, message_ids: [a.id], stream_id: 9, orig_subject: "bug", subject: "✔ bug", propagate_mode: "change_all", edit_timestamp: 7 });
  assert.equal(state.view!.messages[0]!.subject, "✔ bug");
  assert.equal(state.view!.messages[0]!.last_moved_timestamp, undefined);
});

test("messages moved into the open topic are fetched", () => {
  let asked = 0;
  hooks.refetchView = () => void asked++;
  openView([{ operator: "channel", operand: 9 }, { operator: "topic", operand: "dinner" }], []);
  applyEvent({ type: "update_message", message_id: 5, message_ids: [5], stream_id: 9, orig_subject: "lunch", subject: "dinner", propagate_mode: "change_all", edit_timestamp: 6 });
  assert.equal(asked, 1);
});

test("reactions toggle per person and emoji; deletions remove messages and counts", () => {
  const a = streamMsg(9, "lunch");
  openView([], [a]);
  applyEvent({ type: "message", message: streamMsg(9, "x"), flags: [] });
  const r = { type: "reaction", message_id: a.id, user_id: 2, emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji" };
  applyEvent({ ...r, op: "add" });
  applyEvent({ ...r, op: "add" });
  assert.equal(state.view!.messages[0]!.reactions.length, 1);
  applyEvent({ ...r, op: "remove" });
  assert.equal(state.view!.messages[0]!.reactions.length, 0);
  const ids = state.view!.messages.map((m) => m.id);
  applyEvent({ type: "delete_message", message_ids: ids, message_type: "stream" });
  assert.equal(state.view!.messages.length, 0);
  assert.equal(state.unreads.total(), 0);
});

test("muting a topic live takes it out of the counts", () => {
  applyEvent({ type: "message", message: streamMsg(9, "noise"), flags: [] });
  assert.equal(state.unreads.channelCount(9), 1);
  applyEvent({ type: "user_topic", stream_id: 9, topic_name: "Noise", last_updated: 1, visibility_policy: 1 });
  assert.equal(state.unreads.channelCount(9), 0);
  applyEvent({ type: "subscription", op: "update", stream_id: 9, property: "is_muted", value: true });
  assert.equal(state.subs.get(9)!.is_muted, true);
});

test("typing notices are kept per conversation", () => {
  applyEvent({ type: "typing", op: "start", message_type: "stream", stream_id: 9, topic: "Lunch", sender: { user_id: 2 } });
  assert.ok(state.typing.get("c:9:lunch")?.has(2));
  applyEvent({ type: "typing", op: "stop", message_type: "stream", stream_id: 9, topic: "Lunch", sender: { user_id: 2 } });
  assert.ok(!state.typing.get("c:9:lunch")?.has(2));
});
