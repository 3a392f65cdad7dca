import { test } from "node:test";
import assert from "node:assert/strict";
import { Unreads } from "../../src/unread";
import { VISIBILITY } from "../../src/types";
import { SELF, dmMsg, streamMsg } from "./fixtures";

function rules(muted: number[] = [], topics: Record<string, number> = {}) {
  return {
    isChannelMuted: (id: number) => muted.includes(id),
    topicPolicy: (id: number, t: string) => topics[`${id}:${t.toLowerCase()}`] ?? VISIBILITY.INHERIT,
  };
}

const register = {
  streams: [
    { stream_id: 9, topic: "lunch", unread_message_ids: [1, 2] },
    { stream_id: 9, topic: "noise", unread_message_ids: [3] },
    { stream_id: 12, topic: "ops", unread_message_ids: [4, 5, 6] },
  ],
  pms: [{ other_user_id: 2, unread_message_ids: [7] }],
  huddles: [{ user_ids_string: "1,2,3", unread_message_ids: [8, 9] }],
  mentions: [5],
};

test("counts from register, by channel, topic and conversation", () => {
  const u = Unreads.fromRegister(register, SELF, rules());
  assert.equal(u.channelCount(9), 3);
  assert.equal(u.channelCount(12), 3);
  assert.equal(u.topicCount(9, "LUNCH"), 2);
  assert.equal(u.dmCount("2"), 1);
  assert.equal(u.dmCount("2,3"), 2);
  assert.equal(u.totalDms(), 3);
  assert.equal(u.mentionCount(), 1);
  assert.equal(u.total(), 9);
});

test("a muted topic leaves its channel's count and the total, but keeps its own", () => {
  const u = Unreads.fromRegister(register, SELF, rules([], { "9:noise": VISIBILITY.MUTED }));
  assert.equal(u.channelCount(9), 2);
  assert.equal(u.topicCount(9, "noise"), 1);
  assert.equal(u.total(), 8);
});

test("a muted channel counts only its unmuted or followed topics; mentions still count", () => {
  const u = Unreads.fromRegister(register, SELF, rules([12]));
  assert.equal(u.channelCount(12), 0);
  // 9's three, the DMs' three, and message 5 (a mention in the muted channel).
  assert.equal(u.total(), 7);
  const v = Unreads.fromRegister(register, SELF, rules([12], { "12:ops": VISIBILITY.UNMUTED }));
  assert.equal(v.channelCount(12), 3);
  assert.equal(v.total(), 9);
});

test("new messages count unless already read; mentions are noted", () => {
  const u = new Unreads(SELF, rules());
  u.addMessage(streamMsg(9, "a"));
  u.addMessage(streamMsg(9, "a", { flags: ["read"] }));
  const m = streamMsg(9, "b", { flags: ["mentioned"] });
  u.addMessage(m);
  u.addMessage(dmMsg([1, 2]));
  assert.equal(u.channelCount(9), 2);
  assert.equal(u.mentionCount(), 1);
  assert.equal(u.dmCount("2"), 1);
  u.markRead([m.id]);
  assert.equal(u.mentionCount(), 0);
  assert.equal(u.total(), 2);
});

test("read flags from another tab, and unread again with message_details", () => {
  const u = Unreads.fromRegister(register, SELF, rules());
  u.markRead([1, 2, 7]);
  assert.equal(u.topicCount(9, "lunch"), 0);
  assert.equal(u.dmCount("2"), 0);
  u.markUnread([1, 7], {
    "1": { type: "stream", stream_id: 9, topic: "lunch" },
    "7": { type: "private", user_ids: [2] },
  });
  assert.equal(u.topicCount(9, "lunch"), 1);
  assert.equal(u.dmCount("2"), 1);
});

test("moves carry unread messages to the new channel and topic; deletions drop them", () => {
  const u = Unreads.fromRegister(register, SELF, rules());
  u.move([1, 2], 12, "food");
  assert.equal(u.topicCount(9, "lunch"), 0);
  assert.equal(u.topicCount(12, "food"), 2);
  u.move([3], undefined, "✔ noise");
  assert.equal(u.topicCount(9, "✔ noise"), 1);
  u.delete([4, 5]);
  assert.equal(u.topicCount(12, "ops"), 1);
  assert.equal(u.mentionCount(), 0);
});

test("next unread topic follows the sidebar order and skips muted topics", () => {
  const u = Unreads.fromRegister(register, SELF, rules([], { "9:noise": VISIBILITY.MUTED }));
  const order = [12, 9];
  assert.deepEqual(u.nextUnreadTopic(order, undefined), { streamId: 12, topic: "ops" });
  assert.deepEqual(u.nextUnreadTopic(order, { streamId: 12, topic: "ops" }), { streamId: 9, topic: "lunch" });
  assert.deepEqual(u.nextUnreadTopic(order, { streamId: 9, topic: "lunch" }), { streamId: 12, topic: "ops" });
});
