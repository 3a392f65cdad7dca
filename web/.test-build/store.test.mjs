var __defProp = Object.defineProperty;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __esm = (fn, res, err) => function __init() {
  if (err) throw err[0];
  try {
    return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
  } catch (e) {
    throw err = [e], e;
  }
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// src/types.ts
var VISIBILITY;
var init_types = __esm({
  "src/types.ts"() {
    "use strict";
    VISIBILITY = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 };
  }
});

// src/narrow.ts
function isResolved(topic) {
  return topic.startsWith(RESOLVED_PREFIX);
}
function dmUserIds(msg) {
  if (msg.type !== "private" || !Array.isArray(msg.display_recipient)) return [];
  return msg.display_recipient.map((u) => u.id);
}
function dmPartners(msg, selfId) {
  const ids = dmUserIds(msg).filter((id) => id !== selfId);
  return (ids.length ? ids : [selfId]).sort((a, b) => a - b);
}
function conversationKey(msg, selfId) {
  if (msg.type === "stream") return `c:${msg.stream_id}:${msg.subject.toLowerCase()}`;
  return `d:${dmPartners(msg, selfId).join(",")}`;
}
function operandIds(t) {
  if (Array.isArray(t.operand)) return [...t.operand].sort((a, b) => a - b);
  return String(t.operand).split(",").filter((s) => s !== "").map(Number).sort((a, b) => a - b);
}
function channelOperandId(t, ctx) {
  if (typeof t.operand === "number") return t.operand;
  const s = String(t.operand);
  if (/^\d+$/.test(s)) return Number(s);
  return ctx.channelIdByName?.(s);
}
function textOf(html) {
  return html.replace(/<[^>]*>/g, " ").replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}
function messageMatches(msg, narrow, ctx) {
  let unknown = false;
  for (const t of narrow) {
    const r = termMatches(msg, t, ctx);
    if (r === void 0) {
      unknown = true;
      continue;
    }
    if (r === !!t.negated) return false;
  }
  return unknown ? void 0 : true;
}
function termMatches(msg, t, ctx) {
  const operand = typeof t.operand === "string" ? t.operand : "";
  switch (t.operator) {
    case "channel":
    case "stream":
      return msg.type === "stream" && msg.stream_id === channelOperandId(t, ctx);
    case "channels":
      return operand === "public" ? msg.type === "stream" : void 0;
    case "topic":
    case "subject":
      return msg.type === "stream" && msg.subject.toLowerCase() === String(t.operand).toLowerCase();
    case "dm":
    case "pm-with": {
      if (msg.type !== "private") return false;
      let want = operandIds(t);
      if (typeof t.operand === "string" && /[@]/.test(t.operand)) {
        const ids = t.operand.split(",").map((e) => ctx.userIdByEmail?.(e.trim().toLowerCase()));
        if (ids.some((x) => x === void 0)) return false;
        want = ids.sort((a, b) => a - b);
      }
      want = want.filter((id) => id !== ctx.selfId);
      if (want.length === 0) want = [ctx.selfId];
      const have = dmPartners(msg, ctx.selfId);
      return have.length === want.length && have.every((id, i) => id === want[i]);
    }
    case "dm-including":
      return msg.type === "private" && operandIds(t).every((id) => dmUserIds(msg).includes(id));
    case "sender": {
      if (typeof t.operand === "number") return msg.sender_id === t.operand;
      if (/^\d+$/.test(operand)) return msg.sender_id === Number(operand);
      if (operand === "me") return msg.sender_id === ctx.selfId;
      return msg.sender_email.toLowerCase() === operand.toLowerCase();
    }
    case "is":
      switch (operand) {
        case "dm":
        case "private":
          return msg.type === "private";
        case "starred":
          return msg.flags.includes("starred");
        case "mentioned":
          return ["mentioned", "wildcard_mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"].some(
            (f) => msg.flags.includes(f)
          );
        case "alerted":
          return msg.flags.includes("has_alert_word");
        case "unread":
          return !msg.flags.includes("read");
        case "resolved":
          return msg.type === "stream" && isResolved(msg.subject);
        default:
          return void 0;
      }
    case "has": {
      const c = msg.content;
      if (operand === "image") return /class="message_inline_image"/.test(c);
      if (operand === "link") return /<a /.test(c);
      if (operand === "attachment") return /href="\/user_uploads\//.test(c);
      if (operand === "reaction") return msg.reactions.length > 0;
      return void 0;
    }
    case "id":
      return msg.id === Number(t.operand);
    case "near":
    case "with":
      return true;
    case "search": {
      const words = operand.toLowerCase().split(/\s+/).filter(Boolean);
      const text = (textOf(msg.content) + " " + msg.subject).toLowerCase();
      if (!words.every((w) => text.includes(w.replace(/^"|"$/g, "")))) return false;
      return void 0;
    }
    default:
      return void 0;
  }
}
var RESOLVED_PREFIX;
var init_narrow = __esm({
  "src/narrow.ts"() {
    "use strict";
    RESOLVED_PREFIX = "\u2714 ";
  }
});

// src/unread.ts
var Unreads;
var init_unread = __esm({
  "src/unread.ts"() {
    "use strict";
    init_types();
    init_narrow();
    Unreads = class _Unreads {
      constructor(selfId, rules) {
        this.selfId = selfId;
        this.rules = rules;
      }
      selfId;
      rules;
      where = /* @__PURE__ */ new Map();
      mentions = /* @__PURE__ */ new Set();
      static fromRegister(data, selfId, rules) {
        const u = new _Unreads(selfId, rules);
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
  }
});

// src/store.ts
var store_exports = {};
__export(store_exports, {
  applyEvent: () => applyEvent,
  canDelete: () => canDelete,
  canEdit: () => canEdit,
  changed: () => changed,
  getVersion: () => getVersion,
  hooks: () => hooks,
  isTopicMuted: () => isTopicMuted,
  loadRegister: () => loadRegister,
  mergeMessages: () => mergeMessages,
  muteRules: () => muteRules,
  names: () => names,
  noteTopic: () => noteTopic,
  presenceOf: () => presenceOf,
  setNotice: () => setNotice,
  state: () => state,
  subscribe: () => subscribe,
  topicKey: () => topicKey,
  viewShows: () => viewShows
});
function subscribe(f) {
  listeners.add(f);
  return () => listeners.delete(f);
}
function changed() {
  version++;
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(() => {
    scheduled = false;
    for (const f of listeners) f();
  });
}
function getVersion() {
  return version;
}
function topicKey(streamId, topic) {
  return `${streamId}:${topic.toLowerCase()}`;
}
function isTopicMuted(streamId, topic) {
  const p = muteRules.topicPolicy(streamId, topic);
  if (muteRules.isChannelMuted(streamId)) return p !== VISIBILITY.UNMUTED && p !== VISIBILITY.FOLLOWED;
  return p === VISIBILITY.MUTED;
}
function loadRegister(r) {
  state.self = {
    user_id: r.user_id,
    email: r.email,
    full_name: r.full_name,
    role: r.role ?? 400,
    is_admin: !!r.is_admin,
    is_guest: !!r.is_guest
  };
  state.realm = {
    name: r.realm_name ?? "",
    editLimitSeconds: r.realm_message_content_edit_limit_seconds ?? null,
    deleteLimitSeconds: r.realm_message_content_delete_limit_seconds ?? null,
    allowEditing: r.realm_allow_message_editing ?? true,
    canDeleteOwnGroup: typeof r.realm_can_delete_own_message_group === "number" ? r.realm_can_delete_own_message_group : null,
    canDeleteAnyGroup: typeof r.realm_can_delete_any_message_group === "number" ? r.realm_can_delete_any_message_group : null,
    emptyTopicName: r.realm_empty_topic_display_name ?? "general chat",
    maxMessageLength: r.max_message_length ?? 1e4,
    maxTopicLength: r.max_topic_length ?? 60,
    typingStartedWaitMs: r.server_typing_started_wait_period_milliseconds ?? 1e4,
    typingStoppedWaitMs: r.server_typing_stopped_wait_period_milliseconds ?? 5e3,
    typingExpiryMs: r.server_typing_started_expiry_period_milliseconds ?? 15e3,
    emojiDataUrl: new URL(r.server_emoji_data_url ?? "/static/generated/emoji/emoji_api.json", location.href).pathname,
    groupMembers: new Map(
      (r.realm_user_groups ?? []).map((g) => [g.id, { members: g.members ?? [], subgroups: g.direct_subgroup_ids ?? g.subgroups ?? [] }])
    )
  };
  state.users = /* @__PURE__ */ new Map();
  state.usersByEmail = /* @__PURE__ */ new Map();
  for (const u of [...r.realm_users ?? [], ...r.realm_non_active_users ?? []]) addUser(u);
  state.subs = new Map((r.subscriptions ?? []).map((s) => [s.stream_id, normalizeSub(s)]));
  state.channels = /* @__PURE__ */ new Map();
  for (const c of [...r.streams ?? [], ...r.subscriptions ?? []]) state.channels.set(c.stream_id, { stream_id: c.stream_id, name: c.name, invite_only: c.invite_only });
  state.userTopics = new Map((r.user_topics ?? []).map((t) => [topicKey(t.stream_id, t.topic_name), t.visibility_policy]));
  state.recentDms = /* @__PURE__ */ new Map();
  for (const c of r.recent_private_conversations ?? []) {
    const ids = c.user_ids.filter((id) => id !== r.user_id).sort((a, b) => a - b);
    state.recentDms.set((ids.length ? ids : [r.user_id]).join(","), c.max_message_id);
  }
  state.unreads = Unreads.fromRegister(r.unread_msgs ?? {}, r.user_id, muteRules);
  for (const s of r.unread_msgs?.streams ?? []) {
    noteTopic(s.stream_id, s.topic, Math.max(...s.unread_message_ids));
  }
  state.presence = /* @__PURE__ */ new Map();
  for (const [id, p] of Object.entries(r.presences ?? {})) setPresence(Number(id), p);
  state.realmEmoji = new Map(Object.entries(r.realm_emoji ?? {}).map(([id, e]) => [id, { ...e, id }]));
  const us = r.user_settings ?? r;
  state.settings = { enter_sends: !!us.enter_sends, twenty_four_hour_time: !!us.twenty_four_hour_time };
  const stored = localStorage.getItem("enter_sends");
  if (stored !== null) state.settings.enter_sends = stored === "true";
  state.ready = true;
  changed();
}
function normalizeSub(s) {
  return {
    stream_id: s.stream_id,
    name: s.name,
    color: s.color,
    is_muted: s.is_muted ?? (s.in_home_view === void 0 ? false : !s.in_home_view),
    pin_to_top: !!s.pin_to_top,
    invite_only: !!s.invite_only,
    description: s.description
  };
}
function addUser(u) {
  state.users.set(u.user_id, u);
  state.usersByEmail.set(String(u.email).toLowerCase(), u.user_id);
}
function setPresence(id, p) {
  if (typeof p?.active_timestamp === "number" || typeof p?.idle_timestamp === "number") {
    state.presence.set(id, { active: p.active_timestamp ?? 0, idle: p.idle_timestamp ?? 0 });
    return;
  }
  let active = 0;
  let idle = 0;
  for (const v of Object.values(p ?? {})) {
    if (!v || typeof v.timestamp !== "number") continue;
    if (v.status === "active") active = Math.max(active, v.timestamp);
    idle = Math.max(idle, v.timestamp);
  }
  const old = state.presence.get(id);
  state.presence.set(id, { active: Math.max(active, old?.active ?? 0), idle: Math.max(idle, old?.idle ?? 0) });
}
function presenceOf(id) {
  const p = state.presence.get(id);
  if (!p) return "offline";
  const now = Date.now() / 1e3;
  if (now - p.active < 140) return "active";
  if (now - p.idle < 140) return "idle";
  return "offline";
}
function noteTopic(streamId, topic, messageId) {
  let m = state.topics.get(streamId);
  if (!m) state.topics.set(streamId, m = /* @__PURE__ */ new Map());
  const k = topic.toLowerCase();
  const e = m.get(k);
  if (!e || e.maxId < messageId) m.set(k, { name: topic, maxId: messageId });
}
function noteMessage(msg) {
  if (msg.type === "stream" && msg.stream_id !== void 0) noteTopic(msg.stream_id, msg.subject, msg.id);
  else {
    const key = dmPartners(msg, state.self.user_id).join(",");
    if ((state.recentDms.get(key) ?? 0) < msg.id) state.recentDms.set(key, msg.id);
  }
}
function mergeMessages(view, incoming) {
  if (incoming.length === 0) return;
  const byId = new Map(view.messages.map((m) => [m.id, m]));
  for (const m of incoming) {
    byId.set(m.id, m);
    noteMessage(m);
  }
  view.messages = [...byId.values()].sort((a, b) => a.id - b.id);
}
function updateViewMessage(id, f) {
  const v = state.view;
  if (!v) return;
  const i = v.messages.findIndex((m) => m.id === id);
  if (i === -1) return;
  v.messages = v.messages.slice();
  v.messages[i] = f(v.messages[i]);
}
function viewShows(msg) {
  const v = state.view;
  if (!v) return false;
  if (v.narrow.length === 0 && msg.type === "stream" && isTopicMuted(msg.stream_id, msg.subject)) return false;
  return messageMatches(msg, v.narrow, names) === true;
}
function applyEvent(e) {
  switch (e.type) {
    case "message": {
      const msg = { ...e.message, flags: e.flags ?? e.message.flags ?? [], reactions: e.message.reactions ?? [] };
      state.unreads.addMessage(msg);
      noteMessage(msg);
      const v = state.view;
      if (v && v.foundNewest && viewShows(msg)) {
        if (e.local_message_id) v.messages = v.messages.filter((m) => m.local_id !== e.local_message_id);
        mergeMessages(v, [msg]);
      }
      state.typing.get(conversationKey(msg, state.self.user_id))?.delete(msg.sender_id);
      break;
    }
    case "update_message":
      applyUpdateMessage(e);
      break;
    case "delete_message": {
      const ids = e.message_ids ?? [e.message_id];
      state.unreads.delete(ids);
      if (state.view) {
        const gone = new Set(ids);
        state.view.messages = state.view.messages.filter((m) => !gone.has(m.id));
      }
      break;
    }
    case "reaction": {
      const r = { emoji_name: e.emoji_name, emoji_code: e.emoji_code, reaction_type: e.reaction_type, user_id: e.user_id };
      updateViewMessage(e.message_id, (m) => {
        const same = (x) => x.user_id === r.user_id && x.emoji_code === r.emoji_code && x.reaction_type === r.reaction_type;
        const rest = m.reactions.filter((x) => !same(x));
        return { ...m, reactions: e.op === "add" ? [...rest, r] : rest };
      });
      break;
    }
    case "update_message_flags": {
      const ids = e.messages ?? [];
      const flag = e.flag;
      const add = e.op === "add";
      if (flag === "read") {
        if (add) {
          if (e.all) state.unreads = new Unreads(state.self.user_id, muteRules);
          else state.unreads.markRead(ids);
        } else state.unreads.markUnread(ids, e.message_details);
      }
      const v = state.view;
      if (v) {
        const set = new Set(ids);
        v.messages = v.messages.map((m) => {
          if (!(e.all || set.has(m.id))) return m;
          const has = m.flags.includes(flag);
          if (add === has) return m;
          return { ...m, flags: add ? [...m.flags, flag] : m.flags.filter((f) => f !== flag) };
        });
      }
      break;
    }
    case "typing": {
      const senderId = e.sender?.user_id;
      if (senderId === void 0 || senderId === state.self.user_id) break;
      let key;
      if (e.message_type === "stream") key = `c:${e.stream_id}:${String(e.topic ?? "").toLowerCase()}`;
      else {
        const ids = (e.recipients ?? []).map((r) => r.user_id).filter((id) => id !== state.self.user_id);
        key = `d:${(ids.length ? ids : [state.self.user_id]).sort((a, b) => a - b).join(",")}`;
      }
      let m = state.typing.get(key);
      if (!m) state.typing.set(key, m = /* @__PURE__ */ new Map());
      if (e.op === "start") m.set(senderId, Date.now() + state.realm.typingExpiryMs);
      else m.delete(senderId);
      break;
    }
    case "presence":
      if (e.presences) for (const [id, p] of Object.entries(e.presences)) setPresence(Number(id), p);
      else if (e.user_id !== void 0) setPresence(e.user_id, e.presence);
      break;
    case "subscription":
      applySubscription(e);
      break;
    case "stream":
      if (e.op === "update" && e.property === "name") {
        const c = state.channels.get(e.stream_id);
        if (c) state.channels.set(e.stream_id, { ...c, name: e.value });
        const s = state.subs.get(e.stream_id);
        if (s) state.subs.set(e.stream_id, { ...s, name: e.value });
      } else if (e.op === "create") {
        for (const c of e.streams ?? []) state.channels.set(c.stream_id, { stream_id: c.stream_id, name: c.name, invite_only: c.invite_only });
      } else if (e.op === "delete") {
        for (const c of e.streams ?? []) {
          state.channels.delete(c.stream_id);
          state.subs.delete(c.stream_id);
        }
      }
      break;
    case "user_topic":
      state.userTopics.set(topicKey(e.stream_id, e.topic_name), e.visibility_policy);
      break;
    case "realm_user":
      if (e.op === "add") addUser(e.person);
      else if (e.op === "update" && e.person) {
        const u = state.users.get(e.person.user_id);
        if (u) {
          const next2 = { ...u, ...e.person };
          state.users.set(u.user_id, next2);
          state.usersByEmail.set(next2.email.toLowerCase(), u.user_id);
          if (e.person.full_name !== void 0 && state.view) {
            state.view.messages = state.view.messages.map(
              (m) => m.sender_id === u.user_id ? { ...m, sender_full_name: e.person.full_name } : m
            );
          }
          if (u.user_id === state.self.user_id && e.person.full_name) state.self.full_name = e.person.full_name;
        }
      }
      break;
    case "realm_emoji":
      if (e.realm_emoji) state.realmEmoji = new Map(Object.entries(e.realm_emoji).map(([id, x]) => [id, { ...x, id }]));
      break;
    case "user_settings":
      if (e.op === "update" && e.property in state.settings && localStorage.getItem(e.property) === null) {
        state.settings[e.property] = e.value;
      }
      break;
    case "realm":
      if (e.op === "update_dict" && e.data) {
        const d = e.data;
        if ("message_content_edit_limit_seconds" in d) state.realm.editLimitSeconds = d.message_content_edit_limit_seconds;
        if ("message_content_delete_limit_seconds" in d) state.realm.deleteLimitSeconds = d.message_content_delete_limit_seconds;
        if ("allow_message_editing" in d) state.realm.allowEditing = d.allow_message_editing;
        if ("name" in d) state.realm.name = d.name;
      }
      break;
    default:
      return;
  }
  changed();
}
function applySubscription(e) {
  if (e.op === "update") {
    const s = state.subs.get(e.stream_id);
    if (!s) return;
    const next2 = { ...s };
    if (e.property === "is_muted") next2.is_muted = !!e.value;
    else if (e.property === "in_home_view") next2.is_muted = !e.value;
    else if (e.property === "pin_to_top") next2.pin_to_top = !!e.value;
    else if (e.property === "color") next2.color = e.value;
    else return;
    state.subs.set(e.stream_id, next2);
  } else if (e.op === "add") {
    for (const s of e.subscriptions ?? []) {
      state.subs.set(s.stream_id, normalizeSub(s));
      state.channels.set(s.stream_id, { stream_id: s.stream_id, name: s.name, invite_only: s.invite_only });
    }
  } else if (e.op === "remove") {
    for (const s of e.subscriptions ?? []) state.subs.delete(s.stream_id);
  }
}
function applyUpdateMessage(e) {
  const ids = e.message_ids ?? (e.message_id !== void 0 ? [e.message_id] : []);
  const newTopic = e.subject ?? e.topic;
  const moved = newTopic !== void 0 || e.new_stream_id !== void 0 && e.new_stream_id !== e.stream_id;
  if (moved) {
    state.unreads.move(ids, e.new_stream_id, newTopic);
    const oldStream = e.stream_id;
    const oldTopic = e.orig_subject;
    if (oldStream !== void 0 && oldTopic !== void 0) {
      const key = topicKey(oldStream, oldTopic);
      if (e.propagate_mode === "change_all" && state.userTopics.has(key) && newTopic !== void 0) {
        state.userTopics.set(topicKey(e.new_stream_id ?? oldStream, newTopic), state.userTopics.get(key));
      }
    }
  }
  const v = state.view;
  if (!v) return;
  const idSet = new Set(ids);
  let removed = false;
  v.messages = v.messages.map((m) => {
    if (!idSet.has(m.id)) return m;
    let next2 = m;
    if (e.rendered_content !== void 0 && m.id === e.message_id) {
      next2 = { ...next2, content: e.rendered_content, is_me_message: e.is_me_message ?? next2.is_me_message };
      if (!e.rendering_only) next2.last_edit_timestamp = e.edit_timestamp;
    }
    if (moved && next2.type === "stream") {
      const resolveOnly = e.new_stream_id === void 0 && newTopic !== void 0 && e.orig_subject !== void 0 && newTopic.replace(/^✔ /, "") === String(e.orig_subject).replace(/^✔ /, "");
      next2 = {
        ...next2,
        subject: newTopic ?? next2.subject,
        stream_id: e.new_stream_id ?? next2.stream_id,
        display_recipient: e.new_stream_id !== void 0 ? names.channelName(e.new_stream_id) ?? next2.display_recipient : next2.display_recipient
      };
      if (!resolveOnly) next2.last_moved_timestamp = e.edit_timestamp;
    }
    if (e.flags && m.id === e.message_id) next2 = { ...next2, flags: e.flags };
    return next2;
  }).filter((m) => {
    if (!idSet.has(m.id) || !moved) return true;
    const keep = messageMatches(m, v.narrow, names) !== false;
    if (!keep) removed = true;
    return keep;
  });
  void removed;
  for (const m of v.messages) if (idSet.has(m.id)) noteMessage(m);
  if (moved) {
    const present = new Set(v.messages.map((m) => m.id));
    if (ids.some((id) => !present.has(id))) {
      const probe = { ...v.messages[0] ?? {}, type: "stream", stream_id: e.new_stream_id ?? e.stream_id, subject: newTopic ?? e.orig_subject ?? "", flags: [], reactions: [], content: "", sender_email: "", display_recipient: "" };
      if (messageMatches(probe, v.narrow.filter((t) => t.operator === "channel" || t.operator === "topic"), names) && v.narrow.every((t) => t.operator === "channel" || t.operator === "topic")) {
        hooks.refetchView();
      }
    }
  }
}
function inGroup(groupId, userId, seen = /* @__PURE__ */ new Set()) {
  if (groupId === null) return false;
  if (seen.has(groupId)) return false;
  seen.add(groupId);
  const g = state.realm.groupMembers.get(groupId);
  if (!g) return false;
  if (g.members.includes(userId)) return true;
  return g.subgroups.some((s) => inGroup(s, userId, seen));
}
function canEdit(msg) {
  if (msg.sender_id !== state.self.user_id || !state.realm.allowEditing || msg.local_id) return false;
  const limit = state.realm.editLimitSeconds;
  return limit === null || limit === 0 || Date.now() / 1e3 - msg.timestamp < limit;
}
function canDelete(msg) {
  if (msg.local_id) return false;
  const me = state.self.user_id;
  if (state.realm.canDeleteAnyGroup !== null ? inGroup(state.realm.canDeleteAnyGroup, me) : state.self.is_admin) return true;
  if (msg.sender_id !== me) return false;
  if (state.realm.canDeleteOwnGroup !== null && !inGroup(state.realm.canDeleteOwnGroup, me)) return false;
  const limit = state.realm.deleteLimitSeconds;
  return limit === null || limit === 0 || Date.now() / 1e3 - msg.timestamp < limit;
}
function setNotice(text) {
  state.notice = text;
  changed();
}
var hooks, listeners, version, state, scheduled, muteRules, names;
var init_store = __esm({
  "src/store.ts"() {
    "use strict";
    init_types();
    init_unread();
    init_narrow();
    hooks = { refetchView: () => {
    } };
    listeners = /* @__PURE__ */ new Set();
    version = 0;
    state = {
      ready: false,
      self: { user_id: 0, email: "", full_name: "", role: 400, is_admin: false, is_guest: false },
      realm: {
        name: "",
        editLimitSeconds: 600,
        deleteLimitSeconds: null,
        allowEditing: true,
        canDeleteOwnGroup: null,
        canDeleteAnyGroup: null,
        emptyTopicName: "general chat",
        maxMessageLength: 1e4,
        maxTopicLength: 60,
        typingStartedWaitMs: 1e4,
        typingStoppedWaitMs: 5e3,
        typingExpiryMs: 15e3,
        emojiDataUrl: "/static/generated/emoji/emoji_api.json",
        groupMembers: /* @__PURE__ */ new Map()
      },
      users: /* @__PURE__ */ new Map(),
      usersByEmail: /* @__PURE__ */ new Map(),
      subs: /* @__PURE__ */ new Map(),
      channels: /* @__PURE__ */ new Map(),
      userTopics: /* @__PURE__ */ new Map(),
      topics: /* @__PURE__ */ new Map(),
      recentDms: /* @__PURE__ */ new Map(),
      unreads: new Unreads(0, { isChannelMuted: () => false, topicPolicy: () => 0 }),
      presence: /* @__PURE__ */ new Map(),
      typing: /* @__PURE__ */ new Map(),
      realmEmoji: /* @__PURE__ */ new Map(),
      settings: { enter_sends: false, twenty_four_hour_time: false },
      view: null,
      selectedId: void 0,
      route: { kind: "inbox" },
      notice: void 0,
      connection: "ok"
    };
    scheduled = false;
    muteRules = {
      isChannelMuted: (id) => state.subs.get(id)?.is_muted ?? false,
      topicPolicy: (id, topic) => state.userTopics.get(topicKey(id, topic)) ?? VISIBILITY.INHERIT
    };
    names = {
      get selfId() {
        return state.self.user_id;
      },
      channelName: (id) => state.channels.get(id)?.name ?? state.subs.get(id)?.name,
      channelIdByName: (name) => {
        const n = name.toLowerCase();
        for (const c of state.channels.values()) if (c.name.toLowerCase() === n) return c.stream_id;
        for (const c of state.subs.values()) if (c.name.toLowerCase() === n) return c.stream_id;
        return void 0;
      },
      userName: (id) => state.users.get(id)?.full_name,
      userIdByEmail: (email) => state.usersByEmail.get(email.toLowerCase()),
      userEmail: (id) => state.users.get(id)?.email
    };
  }
});

// test/unit/fixtures.ts
var fixtures_exports = {};
__export(fixtures_exports, {
  SELF: () => SELF,
  dmMsg: () => dmMsg,
  streamMsg: () => streamMsg,
  users: () => users
});
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
var next, SELF, users;
var init_fixtures = __esm({
  "test/unit/fixtures.ts"() {
    "use strict";
    next = 100;
    SELF = 1;
    users = {
      1: { id: 1, email: "me@x.com", full_name: "Me" },
      2: { id: 2, email: "hamlet@x.com", full_name: "Hamlet" },
      3: { id: 3, email: "othello@x.com", full_name: "Othello" }
    };
  }
});

// test/unit/store.test.ts
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";
var memory = /* @__PURE__ */ new Map();
globalThis.localStorage = {
  getItem: (k) => memory.get(k) ?? null,
  setItem: (k, v) => memory.set(k, v),
  removeItem: (k) => memory.delete(k)
};
globalThis.location = new URL("http://chat.test/");
var { applyEvent: applyEvent2, loadRegister: loadRegister2, state: state2, hooks: hooks2 } = await Promise.resolve().then(() => (init_store(), store_exports));
var { SELF: SELF2, dmMsg: dmMsg2, streamMsg: streamMsg2 } = await Promise.resolve().then(() => (init_fixtures(), fixtures_exports));
beforeEach(() => {
  loadRegister2({
    user_id: SELF2,
    email: "me@x.com",
    full_name: "Me",
    realm_users: [
      { user_id: 1, email: "me@x.com", full_name: "Me" },
      { user_id: 2, email: "hamlet@x.com", full_name: "Hamlet" }
    ],
    subscriptions: [
      { stream_id: 9, name: "Verona", is_muted: false, pin_to_top: false },
      { stream_id: 12, name: "Denmark", is_muted: false, pin_to_top: false }
    ],
    unread_msgs: { streams: [], pms: [], huddles: [], mentions: [] },
    user_topics: []
  });
});
function openView(narrow, messages = []) {
  state2.view = { narrow, messages, foundOldest: true, foundNewest: true, loading: "none" };
}
test("a new message in the open narrow is shown once; others only counted", () => {
  openView([{ operator: "channel", operand: 9 }]);
  const here = streamMsg2(9, "lunch");
  const there = streamMsg2(12, "lunch");
  applyEvent2({ type: "message", message: here, flags: [] });
  applyEvent2({ type: "message", message: here, flags: [] });
  applyEvent2({ type: "message", message: there, flags: [] });
  assert.deepEqual(state2.view.messages.map((m) => m.id), [here.id]);
  assert.equal(state2.unreads.channelCount(9), 1);
  assert.equal(state2.unreads.channelCount(12), 1);
});
test("a view that has not reached the newest message does not take live messages", () => {
  openView([]);
  state2.view.foundNewest = false;
  applyEvent2({ type: "message", message: streamMsg2(9, "x"), flags: [] });
  assert.equal(state2.view.messages.length, 0);
});
test("our own message arrives read and replaces its local echo", () => {
  openView([{ operator: "dm", operand: [2] }], [{ ...dmMsg2([1, 2]), id: 1e9, local_id: "l1" }]);
  const m = dmMsg2([1, 2], { sender_id: SELF2 });
  applyEvent2({ type: "message", message: m, flags: ["read"], local_message_id: "l1" });
  assert.deepEqual(state2.view.messages.map((x) => x.id), [m.id]);
  assert.equal(state2.unreads.total(), 0);
});
test("read flags from another tab lower the counts and mark the shown message", () => {
  const m = streamMsg2(9, "lunch");
  openView([{ operator: "channel", operand: 9 }]);
  applyEvent2({ type: "message", message: m, flags: [] });
  assert.equal(state2.unreads.total(), 1);
  applyEvent2({ type: "update_message_flags", op: "add", flag: "read", messages: [m.id], all: false });
  assert.equal(state2.unreads.total(), 0);
  assert.ok(state2.view.messages[0].flags.includes("read"));
});
test("an edit replaces the content; a move out of the topic removes the message", () => {
  const a = streamMsg2(9, "lunch");
  const b = streamMsg2(9, "lunch");
  openView([{ operator: "channel", operand: 9 }, { operator: "topic", operand: "lunch" }], [a, b]);
  applyEvent2({ type: "update_message", message_id: a.id, message_ids: [a.id], rendered_content: "<p>new</p>", edit_timestamp: 5, flags: [] });
  assert.equal(state2.view.messages[0].content, "<p>new</p>");
  assert.equal(state2.view.messages[0].last_edit_timestamp, 5);
  applyEvent2({ type: "update_message", message_id: b.id, message_ids: [b.id], stream_id: 9, orig_subject: "lunch", subject: "dinner", propagate_mode: "change_one", edit_timestamp: 6 });
  assert.deepEqual(state2.view.messages.map((m) => m.id), [a.id]);
});
test("a resolve keeps the messages in the channel view and is not marked as moved", () => {
  const a = streamMsg2(9, "bug");
  openView([{ operator: "channel", operand: 9 }], [a]);
  applyEvent2({ type: "update_message", message_id: a.id, message_ids: [a.id], stream_id: 9, orig_subject: "bug", subject: "\u2714 bug", propagate_mode: "change_all", edit_timestamp: 7 });
  assert.equal(state2.view.messages[0].subject, "\u2714 bug");
  assert.equal(state2.view.messages[0].last_moved_timestamp, void 0);
});
test("messages moved into the open topic are fetched", () => {
  let asked = 0;
  hooks2.refetchView = () => void asked++;
  openView([{ operator: "channel", operand: 9 }, { operator: "topic", operand: "dinner" }], []);
  applyEvent2({ type: "update_message", message_id: 5, message_ids: [5], stream_id: 9, orig_subject: "lunch", subject: "dinner", propagate_mode: "change_all", edit_timestamp: 6 });
  assert.equal(asked, 1);
});
test("reactions toggle per person and emoji; deletions remove messages and counts", () => {
  const a = streamMsg2(9, "lunch");
  openView([], [a]);
  applyEvent2({ type: "message", message: streamMsg2(9, "x"), flags: [] });
  const r = { type: "reaction", message_id: a.id, user_id: 2, emoji_name: "smile", emoji_code: "1f642", reaction_type: "unicode_emoji" };
  applyEvent2({ ...r, op: "add" });
  applyEvent2({ ...r, op: "add" });
  assert.equal(state2.view.messages[0].reactions.length, 1);
  applyEvent2({ ...r, op: "remove" });
  assert.equal(state2.view.messages[0].reactions.length, 0);
  const ids = state2.view.messages.map((m) => m.id);
  applyEvent2({ type: "delete_message", message_ids: ids, message_type: "stream" });
  assert.equal(state2.view.messages.length, 0);
  assert.equal(state2.unreads.total(), 0);
});
test("muting a topic live takes it out of the counts", () => {
  applyEvent2({ type: "message", message: streamMsg2(9, "noise"), flags: [] });
  assert.equal(state2.unreads.channelCount(9), 1);
  applyEvent2({ type: "user_topic", stream_id: 9, topic_name: "Noise", last_updated: 1, visibility_policy: 1 });
  assert.equal(state2.unreads.channelCount(9), 0);
  applyEvent2({ type: "subscription", op: "update", stream_id: 9, property: "is_muted", value: true });
  assert.equal(state2.subs.get(9).is_muted, true);
});
test("typing notices are kept per conversation", () => {
  applyEvent2({ type: "typing", op: "start", message_type: "stream", stream_id: 9, topic: "Lunch", sender: { user_id: 2 } });
  assert.ok(state2.typing.get("c:9:lunch")?.has(2));
  applyEvent2({ type: "typing", op: "stop", message_type: "stream", stream_id: 9, topic: "Lunch", sender: { user_id: 2 } });
  assert.ok(!state2.typing.get("c:9:lunch")?.has(2));
});
