// test/unit/unread.test.ts
import { test } from "node:test";
import assert from "node:assert/strict";

// src/types.ts
var VISIBILITY = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 };

// src/narrow.ts
function dmUserIds(msg) {
  if (msg.type !== "private" || !Array.isArray(msg.display_recipient)) return [];
  return msg.display_recipient.map((u) => u.id);
}
function dmPartners(msg, selfId) {
  const ids = dmUserIds(msg).filter((id) => id !== selfId);
  return (ids.length ? ids : [selfId]).sort((a, b) => a - b);
}

// src/unread.ts
var Unreads = class _Unreads {
  constructor(selfId, rules2) {
    this.selfId = selfId;
    this.rules = rules2;
  }
  selfId;
  rules;
  where = /* @__PURE__ */ new Map();
  mentions = /* @__PURE__ */ new Set();
  static fromRegister(data, selfId, rules2) {
    const u = new _Unreads(selfId, rules2);
    for (const s of data.streams ?? []) {
      for (const id of s.unread_message_ids) u.where.set(id, { kind: "stream", streamId: s.stream_id, topic: s.topic });
    }
    for (const p of data.pms ?? []) {
      const other = p.other_user_id ?? p.sender_id ?? selfId;
      for (const id of p.unread_message_ids) u.where.set(id, { kind: "dm", key: String(other) });
    }
    for (const h of data.huddles ?? []) {
      const key = h.user_ids_string.split(",").map(Number).filter((id) => id !== selfId).sort((a, b) => a - b).join(",");
      for (const id of h.unread_message_ids) u.where.set(id, { kind: "dm", key });
    }
    for (const id of data.mentions ?? []) if (u.where.has(id)) u.mentions.add(id);
    return u;
  }
  get size() {
    return this.where.size;
  }
  isUnread(id) {
    return this.where.has(id);
  }
  /** A new message (or one fetched); counted when its flags lack "read". */
  addMessage(msg) {
    if (msg.flags.includes("read")) {
      this.remove(msg.id);
      return;
    }
    this.where.set(
      msg.id,
      msg.type === "stream" ? { kind: "stream", streamId: msg.stream_id, topic: msg.subject } : { kind: "dm", key: dmPartners(msg, this.selfId).join(",") }
    );
    if (["mentioned", "wildcard_mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"].some((f) => msg.flags.includes(f))) {
      this.mentions.add(msg.id);
    }
  }
  remove(id) {
    this.where.delete(id);
    this.mentions.delete(id);
  }
  markRead(ids) {
    for (const id of ids) this.remove(id);
  }
  /** `update_message_flags` remove "read": the event's message_details say where they are. */
  markUnread(ids, details) {
    for (const id of ids) {
      const d = details?.[String(id)];
      if (!d) continue;
      if (d.type === "stream") this.where.set(id, { kind: "stream", streamId: d.stream_id, topic: d.topic ?? "" });
      else {
        const others = (d.user_ids ?? []).filter((u) => u !== this.selfId).sort((a, b) => a - b);
        this.where.set(id, { kind: "dm", key: (others.length ? others : [this.selfId]).join(",") });
      }
      if (d.mentioned) this.mentions.add(id);
    }
  }
  /** Messages moved to another channel and/or topic. */
  move(ids, streamId, topic) {
    for (const id of ids) {
      const w = this.where.get(id);
      if (!w || w.kind !== "stream") continue;
      this.where.set(id, { kind: "stream", streamId: streamId ?? w.streamId, topic: topic ?? w.topic });
    }
  }
  delete(ids) {
    for (const id of ids) this.remove(id);
  }
  topicCounts(w) {
    const policy = this.rules.topicPolicy(w.streamId, w.topic);
    if (this.rules.isChannelMuted(w.streamId)) return policy === VISIBILITY.UNMUTED || policy === VISIBILITY.FOLLOWED;
    return policy !== VISIBILITY.MUTED;
  }
  /** Unread count of a channel as the sidebar shows it (muted topics left out). */
  channelCount(streamId) {
    let n = 0;
    for (const w of this.where.values()) if (w.kind === "stream" && w.streamId === streamId && this.topicCounts(w)) n++;
    return n;
  }
  /** Unread count of one topic (shown even when the topic is muted). */
  topicCount(streamId, topic) {
    const t = topic.toLowerCase();
    let n = 0;
    for (const w of this.where.values()) if (w.kind === "stream" && w.streamId === streamId && w.topic.toLowerCase() === t) n++;
    return n;
  }
  /** Unread counts by topic in a channel (display names as first seen). */
  topicsOf(streamId) {
    const m = /* @__PURE__ */ new Map();
    for (const w of this.where.values()) {
      if (w.kind !== "stream" || w.streamId !== streamId) continue;
      const k = w.topic.toLowerCase();
      const e = m.get(k) ?? { name: w.topic, n: 0 };
      e.n++;
      m.set(k, e);
    }
    return new Map([...m.values()].map((e) => [e.name, e.n]));
  }
  /** Unread count of a DM conversation, keyed by the sorted ids of the other people. */
  dmCount(key) {
    let n = 0;
    for (const w of this.where.values()) if (w.kind === "dm" && w.key === key) n++;
    return n;
  }
  dmKeys() {
    const m = /* @__PURE__ */ new Map();
    for (const w of this.where.values()) if (w.kind === "dm") m.set(w.key, (m.get(w.key) ?? 0) + 1);
    return m;
  }
  totalDms() {
    let n = 0;
    for (const w of this.where.values()) if (w.kind === "dm") n++;
    return n;
  }
  mentionCount() {
    return this.mentions.size;
  }
  /** The page title's count: DMs, mentions, and channel messages not muted away. */
  total() {
    let n = 0;
    for (const [id, w] of this.where) {
      if (w.kind === "dm" || this.mentions.has(id) || this.topicCounts(w)) n++;
    }
    return n;
  }
  /** Unread message ids in a stream topic (for marking a conversation read). */
  idsInTopic(streamId, topic) {
    const t = topic.toLowerCase();
    const ids = [];
    for (const [id, w] of this.where) if (w.kind === "stream" && w.streamId === streamId && w.topic.toLowerCase() === t) ids.push(id);
    return ids.sort((a, b) => a - b);
  }
  /**
   * The next topic with unread messages after (channel, topic), in the order the sidebar
   * lists channels (given) and topics by their oldest unread message; muted ones skipped.
   */
  nextUnreadTopic(channelOrder, current) {
    const byChannel = /* @__PURE__ */ new Map();
    for (const [id, w] of this.where) {
      if (w.kind !== "stream" || !this.topicCounts(w)) continue;
      const topics = byChannel.get(w.streamId) ?? /* @__PURE__ */ new Map();
      const k = w.topic.toLowerCase();
      const e = topics.get(k);
      if (!e || id < e.first) topics.set(k, { topic: w.topic, first: id });
      byChannel.set(w.streamId, topics);
    }
    const list = [];
    for (const sid of channelOrder) {
      const topics = byChannel.get(sid);
      if (!topics) continue;
      for (const e of [...topics.values()].sort((a, b) => a.first - b.first)) list.push({ streamId: sid, topic: e.topic });
    }
    if (list.length === 0) return void 0;
    if (!current) return list[0];
    const i = list.findIndex((e) => e.streamId === current.streamId && e.topic.toLowerCase() === current.topic.toLowerCase());
    if (i === -1) return list[0];
    return list[(i + 1) % list.length].topic.toLowerCase() === current.topic.toLowerCase() && list.length === 1 ? void 0 : list[(i + 1) % list.length];
  }
};

// test/unit/fixtures.ts
var next = 100;
var SELF = 1;
var users = {
  1: { id: 1, email: "me@x.com", full_name: "Me" },
  2: { id: 2, email: "hamlet@x.com", full_name: "Hamlet" },
  3: { id: 3, email: "othello@x.com", full_name: "Othello" }
};
function streamMsg(streamId, topic, extra = {}) {
  return {
    id: ++next,
    type: "stream",
    sender_id: 2,
    sender_email: "hamlet@x.com",
    sender_full_name: "Hamlet",
    avatar_url: null,
    content: "<p>hello</p>",
    display_recipient: "Verona",
    stream_id: streamId,
    subject: topic,
    timestamp: 17e8,
    flags: [],
    reactions: [],
    ...extra
  };
}
function dmMsg(ids, extra = {}) {
  return {
    id: ++next,
    type: "private",
    sender_id: 2,
    sender_email: "hamlet@x.com",
    sender_full_name: "Hamlet",
    avatar_url: null,
    content: "<p>psst</p>",
    display_recipient: ids.map((id) => users[id]),
    subject: "",
    timestamp: 17e8,
    flags: [],
    reactions: [],
    ...extra
  };
}

// test/unit/unread.test.ts
function rules(muted = [], topics = {}) {
  return {
    isChannelMuted: (id) => muted.includes(id),
    topicPolicy: (id, t) => topics[`${id}:${t.toLowerCase()}`] ?? VISIBILITY.INHERIT
  };
}
var register = {
  streams: [
    { stream_id: 9, topic: "lunch", unread_message_ids: [1, 2] },
    { stream_id: 9, topic: "noise", unread_message_ids: [3] },
    { stream_id: 12, topic: "ops", unread_message_ids: [4, 5, 6] }
  ],
  pms: [{ other_user_id: 2, unread_message_ids: [7] }],
  huddles: [{ user_ids_string: "1,2,3", unread_message_ids: [8, 9] }],
  mentions: [5]
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
    "7": { type: "private", user_ids: [2] }
  });
  assert.equal(u.topicCount(9, "lunch"), 1);
  assert.equal(u.dmCount("2"), 1);
});
test("moves carry unread messages to the new channel and topic; deletions drop them", () => {
  const u = Unreads.fromRegister(register, SELF, rules());
  u.move([1, 2], 12, "food");
  assert.equal(u.topicCount(9, "lunch"), 0);
  assert.equal(u.topicCount(12, "food"), 2);
  u.move([3], void 0, "\u2714 noise");
  assert.equal(u.topicCount(9, "\u2714 noise"), 1);
  u.delete([4, 5]);
  assert.equal(u.topicCount(12, "ops"), 1);
  assert.equal(u.mentionCount(), 0);
});
test("next unread topic follows the sidebar order and skips muted topics", () => {
  const u = Unreads.fromRegister(register, SELF, rules([], { "9:noise": VISIBILITY.MUTED }));
  const order = [12, 9];
  assert.deepEqual(u.nextUnreadTopic(order, void 0), { streamId: 12, topic: "ops" });
  assert.deepEqual(u.nextUnreadTopic(order, { streamId: 12, topic: "ops" }), { streamId: 9, topic: "lunch" });
  assert.deepEqual(u.nextUnreadTopic(order, { streamId: 9, topic: "lunch" }), { streamId: 12, topic: "ops" });
});
