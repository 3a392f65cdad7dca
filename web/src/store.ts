// The one state store. Everything the views show lives here; the register response fills
// it, live events update it (applyEvent), and views subscribe to re-render on change.

import type { Channel, GroupSetting, Message, Narrow, Subscription, User, UserGroup } from "./types";
import { CHANNEL_GROUP_SETTINGS, VISIBILITY } from "./types";
import { Unreads, type RegisterUnreads } from "./unread";
import { conversationKey, dmPartners, messageMatches, type MatchContext } from "./narrow";
import type { HashNames } from "./hash";
import type { SearchNames } from "./search";

export type { GroupSetting };

/** The organization's group settings the administrators' permissions screen edits (`realm_<name>` in `/register`). */
export const REALM_GROUP_SETTINGS = [
  "can_create_public_channel_group",
  "can_create_private_channel_group",
  "can_set_topics_policy_group",
  "can_add_subscribers_group",
  "can_move_messages_between_channels_group",
  "can_move_messages_between_topics_group",
  "can_resolve_topics_group",
  "can_delete_any_message_group",
  "can_delete_own_message_group",
  "can_mention_many_users_group",
  "can_add_custom_emoji_group",
  "can_create_groups",
  "can_manage_all_groups",
  "can_invite_users_group",
  "create_multiuse_invite_group",
] as const;
export type RealmGroupSettingName = (typeof REALM_GROUP_SETTINGS)[number];

export interface RealmInfo {
  name: string;
  /** The settings of REALM_GROUP_SETTINGS, as the server last said. */
  groupSettings: Partial<Record<RealmGroupSettingName, GroupSetting>>;
  editLimitSeconds: number | null;
  deleteLimitSeconds: number | null;
  allowEditing: boolean;
  canDeleteOwnGroup: GroupSetting;
  canDeleteAnyGroup: GroupSetting;
  canMoveTopicsGroup: GroupSetting;
  canResolveTopicsGroup: GroupSetting;
  emptyTopicName: string;
  maxMessageLength: number;
  maxTopicLength: number;
  typingStartedWaitMs: number;
  typingStoppedWaitMs: number;
  typingExpiryMs: number;
  emojiDataUrl: string;
  description: string;
  /** Join rules (PATCH /realm, shown to administrators). */
  inviteRequired: boolean;
  emailsRestrictedToDomains: boolean;
  disallowDisposableEmails: boolean;
  domains: { domain: string; allow_subdomains: boolean }[];
  /** The default channels' ids. */
  defaultChannels: number[];
  /** The organization's icon (`U` uploaded, `G` Gravatar's) and logos (`U` or default `D`). */
  iconUrl: string;
  iconSource: string;
  logoUrl: string;
  logoSource: string;
  nightLogoUrl: string;
  nightLogoSource: string;
  /** Days messages are kept; -1 forever (owners change it). */
  messageRetentionDays: number;
  /** Where the notification bot announces new channels and new people: a channel id, or -1 for nowhere. */
  newChannelAnnouncementsChannel: number;
  signupAnnouncementsChannel: number;
  zulipUpdateAnnouncementsChannel: number;
}

/** The person's settings from register's `user_settings`, kept whole (the settings screens show them). */
export type UserSettings = { enter_sends: boolean; twenty_four_hour_time: boolean } & Record<string, unknown>;

export interface RealmEmoji {
  id: string;
  name: string;
  source_url: string;
  deactivated?: boolean;
}

export interface MessageView {
  narrow: Narrow;
  messages: Message[];
  foundOldest: boolean;
  foundNewest: boolean;
  loading: "none" | "initial" | "older" | "newer";
  error?: string;
  /** The message to scroll to once the first window has painted. */
  anchorId?: number;
}

export interface TopicInfo {
  name: string;
  maxId: number;
}

export interface State {
  ready: boolean;
  self: { user_id: number; email: string; full_name: string; role: number; is_admin: boolean; is_owner: boolean; is_guest: boolean; avatar_source: string };
  realm: RealmInfo;
  users: Map<number, User>;
  usersByEmail: Map<string, number>;
  subs: Map<number, Subscription>;
  channels: Map<number, Channel>;
  userTopics: Map<string, number>;
  topics: Map<number, Map<string, TopicInfo>>;
  recentDms: Map<string, number>;
  unreads: Unreads;
  presence: Map<number, { active: number; idle: number }>;
  typing: Map<string, Map<number, number>>;
  realmEmoji: Map<string, RealmEmoji>;
  groups: Map<number, UserGroup>;
  settings: UserSettings;
  view: MessageView | null;
  selectedId: number | undefined;
  route: { kind: "inbox" } | { kind: "narrow"; narrow: Narrow } | { kind: "settings"; section: string };
  /** A notice for the person, shown in the banner (server errors of actions). */
  notice: string | undefined;
  connection: "ok" | "reconnecting";
  /** register's max_message_id: newer messages come as events. */
  registerMaxId: number;
}

type Listener = () => void;

/** Set by the app: actions the store asks for but does not do itself. */
export const hooks = { refetchView: () => {}, reloadTopics: (_streamId: number) => {} };
const listeners = new Set<Listener>();
let version = 0;

export const state: State = {
  ready: false,
  self: { user_id: 0, email: "", full_name: "", role: 400, is_admin: false, is_owner: false, is_guest: false, avatar_source: "G" },
  realm: {
    name: "",
    groupSettings: {},
    editLimitSeconds: 600,
    deleteLimitSeconds: null,
    allowEditing: true,
    canDeleteOwnGroup: null,
    canDeleteAnyGroup: null,
    canMoveTopicsGroup: null,
    canResolveTopicsGroup: null,
    emptyTopicName: "general chat",
    maxMessageLength: 10000,
    maxTopicLength: 60,
    typingStartedWaitMs: 10000,
    typingStoppedWaitMs: 5000,
    typingExpiryMs: 15000,
    emojiDataUrl: "/static/generated/emoji/emoji_api.json",
    description: "",
    inviteRequired: false,
    emailsRestrictedToDomains: false,
    disallowDisposableEmails: false,
    domains: [],
    defaultChannels: [],
    iconUrl: "",
    iconSource: "G",
    logoUrl: "",
    logoSource: "D",
    nightLogoUrl: "",
    nightLogoSource: "D",
    messageRetentionDays: -1,
    newChannelAnnouncementsChannel: -1,
    signupAnnouncementsChannel: -1,
    zulipUpdateAnnouncementsChannel: -1,
  },
  users: new Map(),
  usersByEmail: new Map(),
  subs: new Map(),
  channels: new Map(),
  userTopics: new Map(),
  topics: new Map(),
  recentDms: new Map(),
  unreads: new Unreads(0, { isChannelMuted: () => false, topicPolicy: () => 0 }),
  presence: new Map(),
  typing: new Map(),
  realmEmoji: new Map(),
  groups: new Map(),
  settings: { enter_sends: false, twenty_four_hour_time: false },
  view: null,
  selectedId: undefined,
  route: { kind: "inbox" },
  notice: undefined,
  connection: "ok",
  registerMaxId: -1,
};

export function subscribe(f: Listener): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

let scheduled = false;
/** Marks the state changed; listeners run once per microtask however many changes. */
export function changed(): void {
  version++;
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(() => {
    scheduled = false;
    for (const f of listeners) f();
  });
}

export function getVersion(): number {
  return version;
}

export function topicKey(streamId: number, topic: string): string {
  return `${streamId}:${topic.toLowerCase()}`;
}

export const muteRules = {
  isChannelMuted: (id: number) => state.subs.get(id)?.is_muted ?? false,
  topicPolicy: (id: number, topic: string) => state.userTopics.get(topicKey(id, topic)) ?? VISIBILITY.INHERIT,
};

export function isTopicMuted(streamId: number, topic: string): boolean {
  const p = muteRules.topicPolicy(streamId, topic);
  if (muteRules.isChannelMuted(streamId)) return p !== VISIBILITY.UNMUTED && p !== VISIBILITY.FOLLOWED;
  return p === VISIBILITY.MUTED;
}

export const names: HashNames & SearchNames & MatchContext = {
  get selfId() {
    return state.self.user_id;
  },
  channelName: (id) => state.channels.get(id)?.name ?? state.subs.get(id)?.name,
  channelIdByName: (name) => {
    const n = name.toLowerCase();
    for (const c of state.channels.values()) if (c.name.toLowerCase() === n) return c.stream_id;
    for (const c of state.subs.values()) if (c.name.toLowerCase() === n) return c.stream_id;
    return undefined;
  },
  userName: (id) => state.users.get(id)?.full_name,
  userIdByEmail: (email) => state.usersByEmail.get(email.toLowerCase()),
  userEmail: (id) => state.users.get(id)?.email,
};

// ---- Filling the store from /register ----------------------------------------------------

/* eslint-disable @typescript-eslint/no-explicit-any */
export function loadRegister(r: any): void {
  state.self = {
    user_id: r.user_id,
    email: r.email,
    full_name: r.full_name,
    role: r.role ?? 400,
    is_admin: !!r.is_admin,
    is_owner: !!r.is_owner,
    is_guest: !!r.is_guest,
    avatar_source: r.avatar_source ?? "G",
  };
  state.realm = {
    name: r.realm_name ?? "",
    groupSettings: Object.fromEntries(REALM_GROUP_SETTINGS.map((k) => [k, r[`realm_${k}`] ?? null])),
    editLimitSeconds: r.realm_message_content_edit_limit_seconds ?? null,
    deleteLimitSeconds: r.realm_message_content_delete_limit_seconds ?? null,
    allowEditing: r.realm_allow_message_editing ?? true,
    canDeleteOwnGroup: r.realm_can_delete_own_message_group ?? null,
    canDeleteAnyGroup: r.realm_can_delete_any_message_group ?? null,
    canMoveTopicsGroup: r.realm_can_move_messages_between_topics_group ?? null,
    canResolveTopicsGroup: r.realm_can_resolve_topics_group ?? null,
    emptyTopicName: r.realm_empty_topic_display_name ?? "general chat",
    maxMessageLength: r.max_message_length ?? 10000,
    maxTopicLength: r.max_topic_length ?? 60,
    typingStartedWaitMs: r.server_typing_started_wait_period_milliseconds ?? 10000,
    typingStoppedWaitMs: r.server_typing_stopped_wait_period_milliseconds ?? 5000,
    typingExpiryMs: r.server_typing_started_expiry_period_milliseconds ?? 15000,
    emojiDataUrl: new URL(r.server_emoji_data_url ?? "/static/generated/emoji/emoji_api.json", location.href).pathname,
    description: r.realm_description ?? "",
    inviteRequired: !!r.realm_invite_required,
    emailsRestrictedToDomains: !!r.realm_emails_restricted_to_domains,
    disallowDisposableEmails: !!r.realm_disallow_disposable_email_addresses,
    domains: r.realm_domains ?? [],
    defaultChannels: defaultChannelIds(r.realm_default_streams),
    iconUrl: r.realm_icon_url ?? "",
    iconSource: r.realm_icon_source ?? "G",
    logoUrl: r.realm_logo_url ?? "",
    logoSource: r.realm_logo_source ?? "D",
    nightLogoUrl: r.realm_night_logo_url ?? "",
    nightLogoSource: r.realm_night_logo_source ?? "D",
    messageRetentionDays: r.realm_message_retention_days ?? -1,
    newChannelAnnouncementsChannel: r.realm_new_stream_announcements_stream_id ?? -1,
    signupAnnouncementsChannel: r.realm_signup_announcements_stream_id ?? -1,
    zulipUpdateAnnouncementsChannel: r.realm_zulip_update_announcements_stream_id ?? -1,
  };
  state.groups = new Map((r.realm_user_groups ?? []).map((g: any) => [g.id, normalizeGroup(g)]));
  state.users = new Map();
  state.usersByEmail = new Map();
  for (const u of [...(r.realm_users ?? []), ...(r.realm_non_active_users ?? [])]) addUser(u);
  state.subs = new Map((r.subscriptions ?? []).map((s: any) => [s.stream_id, normalizeSub(s)]));
  state.channels = new Map();
  // Every channel the person can see: also private ones they left or never joined that they
  // see as an administrator or through the channel's groups (`unsubscribed`, `never_subscribed`).
  const visible = [...(r.streams ?? []), ...(r.unsubscribed ?? []), ...(r.never_subscribed ?? []), ...(r.subscriptions ?? [])];
  for (const c of visible) state.channels.set(c.stream_id, channelOf(c));
  state.userTopics = new Map((r.user_topics ?? []).map((t: any) => [topicKey(t.stream_id, t.topic_name), t.visibility_policy]));
  state.recentDms = new Map();
  for (const c of r.recent_private_conversations ?? []) {
    const ids = (c.user_ids as number[]).filter((id) => id !== r.user_id).sort((a, b) => a - b);
    state.recentDms.set((ids.length ? ids : [r.user_id]).join(","), c.max_message_id);
  }
  state.unreads = Unreads.fromRegister((r.unread_msgs ?? {}) as RegisterUnreads, r.user_id, muteRules);
  for (const s of (r.unread_msgs?.streams ?? []) as { stream_id: number; topic: string; unread_message_ids: number[] }[]) {
    noteTopic(s.stream_id, s.topic, Math.max(...s.unread_message_ids));
  }
  state.presence = new Map();
  for (const [id, p] of Object.entries(r.presences ?? {})) setPresence(Number(id), p);
  state.realmEmoji = new Map(Object.entries(r.realm_emoji ?? {}).map(([id, e]: [string, any]) => [id, { ...e, id }]));
  const us = r.user_settings ?? r;
  // Kept whole only from the settings object (the legacy form scatters them over the answer).
  state.settings = { ...(r.user_settings ?? {}), enter_sends: !!us.enter_sends, twenty_four_hour_time: !!us.twenty_four_hour_time };
  state.registerMaxId = typeof r.max_message_id === "number" ? r.max_message_id : -1;
  state.ready = true;
  performance.mark("register-loaded");
  changed();
}

function normalizeSub(s: any): Subscription {
  return {
    stream_id: s.stream_id,
    name: s.name,
    color: s.color,
    is_muted: s.is_muted ?? (s.in_home_view === undefined ? false : !s.in_home_view),
    pin_to_top: !!s.pin_to_top,
    invite_only: !!s.invite_only,
    description: s.description,
  };
}

/** The channel fields the client keeps (the sidebar's and the settings screens'). */
function channelOf(c: any): Channel {
  return {
    stream_id: c.stream_id,
    name: c.name,
    invite_only: !!c.invite_only,
    description: c.description ?? "",
    history_public_to_subscribers: c.history_public_to_subscribers ?? !c.invite_only,
    is_web_public: !!c.is_web_public,
    is_archived: !!c.is_archived,
    ...Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((k) => [k, c[k] ?? null])),
    message_retention_days: c.message_retention_days ?? null,
  };
}

function normalizeGroup(g: any): UserGroup {
  return {
    id: g.id,
    name: g.name,
    description: g.description ?? "",
    members: g.members ?? [],
    direct_subgroup_ids: g.direct_subgroup_ids ?? g.subgroups ?? [],
    is_system_group: !!g.is_system_group,
    deactivated: !!g.deactivated,
  };
}

/** `realm_default_streams` and the `default_streams` event: ids, or channel objects (older servers). */
function defaultChannelIds(list: any): number[] {
  return ((list ?? []) as any[]).map((x) => (typeof x === "number" ? x : x.stream_id));
}

function addUser(u: any): void {
  state.users.set(u.user_id, u);
  state.usersByEmail.set(String(u.email).toLowerCase(), u.user_id);
}

function setPresence(id: number, p: any): void {
  if (typeof p?.active_timestamp === "number" || typeof p?.idle_timestamp === "number") {
    state.presence.set(id, { active: p.active_timestamp ?? 0, idle: p.idle_timestamp ?? 0 });
    return;
  }
  // Legacy form: {client: {status, timestamp}}.
  let active = 0;
  let idle = 0;
  for (const v of Object.values(p ?? {}) as any[]) {
    if (!v || typeof v.timestamp !== "number") continue;
    if (v.status === "active") active = Math.max(active, v.timestamp);
    idle = Math.max(idle, v.timestamp);
  }
  const old = state.presence.get(id);
  state.presence.set(id, { active: Math.max(active, old?.active ?? 0), idle: Math.max(idle, old?.idle ?? 0) });
}

export function presenceOf(id: number): "active" | "idle" | "offline" {
  const p = state.presence.get(id);
  if (!p) return "offline";
  const now = Date.now() / 1000;
  if (now - p.active < 140) return "active";
  if (now - p.idle < 140) return "idle";
  return "offline";
}

export function noteTopic(streamId: number, topic: string, messageId: number): void {
  let m = state.topics.get(streamId);
  if (!m) state.topics.set(streamId, (m = new Map()));
  const k = topic.toLowerCase();
  const e = m.get(k);
  if (!e || e.maxId < messageId) m.set(k, { name: topic, maxId: messageId });
}

function noteMessage(msg: Message): void {
  if (msg.type === "stream" && msg.stream_id !== undefined) noteTopic(msg.stream_id, msg.subject, msg.id);
  else {
    const key = dmPartners(msg, state.self.user_id).join(",");
    if ((state.recentDms.get(key) ?? 0) < msg.id) state.recentDms.set(key, msg.id);
  }
}

// ---- The open message list ---------------------------------------------------------------

/** Merges fetched messages into the view: sorted by id, each id once. */
export function mergeMessages(view: MessageView, incoming: Message[]): void {
  if (incoming.length === 0) return;
  const byId = new Map(view.messages.map((m) => [m.id, m]));
  for (const m of incoming) {
    byId.set(m.id, m);
    noteMessage(m);
  }
  view.messages = [...byId.values()].sort((a, b) => a.id - b.id);
}

function updateViewMessage(id: number, f: (m: Message) => Message): void {
  const v = state.view;
  if (!v) return;
  const i = v.messages.findIndex((m) => m.id === id);
  if (i === -1) return;
  v.messages = v.messages.slice();
  v.messages[i] = f(v.messages[i]!);
}

export function viewShows(msg: Message): boolean {
  const v = state.view;
  if (!v) return false;
  if (v.narrow.length === 0 && msg.type === "stream" && isTopicMuted(msg.stream_id!, msg.subject)) return false;
  return messageMatches(msg, v.narrow, names) === true;
}

// ---- Live events ----------------------------------------------------------------------------

export function applyEvent(e: any): void {
  switch (e.type) {
    case "message": {
      const msg: Message = { ...e.message, flags: e.flags ?? e.message.flags ?? [], reactions: e.message.reactions ?? [] };
      state.unreads.addMessage(msg);
      noteMessage(msg);
      const v = state.view;
      // A locally echoed copy of our own send gives way to the real message.
      if (v && e.local_message_id) v.messages = v.messages.filter((m) => m.local_id !== e.local_message_id);
      if (v && v.foundNewest && viewShows(msg)) mergeMessages(v, [msg]);
      // The sender stopped typing once the message arrived.
      state.typing.get(conversationKey(msg, state.self.user_id))?.delete(msg.sender_id);
      break;
    }
    case "update_message":
      applyUpdateMessage(e);
      break;
    case "delete_message": {
      const ids: number[] = e.message_ids ?? [e.message_id];
      if (e.stream_id !== undefined) hooks.reloadTopics(e.stream_id);
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
        const same = (x: typeof r) => x.user_id === r.user_id && x.emoji_code === r.emoji_code && x.reaction_type === r.reaction_type;
        const rest = m.reactions.filter((x) => !same(x));
        return { ...m, reactions: e.op === "add" ? [...rest, r] : rest };
      });
      break;
    }
    case "update_message_flags": {
      const ids: number[] = e.messages ?? [];
      const flag: string = e.flag;
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
      if (senderId === undefined || senderId === state.self.user_id) break;
      let key: string;
      if (e.message_type === "stream") key = `c:${e.stream_id}:${String(e.topic ?? "").toLowerCase()}`;
      else {
        const ids = ((e.recipients ?? []) as { user_id: number }[]).map((r) => r.user_id).filter((id) => id !== state.self.user_id);
        key = `d:${(ids.length ? ids : [state.self.user_id]).sort((a, b) => a - b).join(",")}`;
      }
      let m = state.typing.get(key);
      if (!m) state.typing.set(key, (m = new Map()));
      if (e.op === "start") m.set(senderId, Date.now() + state.realm.typingExpiryMs);
      else m.delete(senderId);
      break;
    }
    case "presence":
      if (e.presences) for (const [id, p] of Object.entries(e.presences)) setPresence(Number(id), p);
      else if (e.user_id !== undefined) setPresence(e.user_id, e.presence);
      break;
    case "subscription":
      applySubscription(e);
      break;
    case "stream":
      applyStream(e);
      break;
    case "user_group":
      applyUserGroup(e);
      break;
    case "default_streams":
      state.realm.defaultChannels = defaultChannelIds(e.default_streams);
      break;
    case "realm_domains":
      applyRealmDomains(e);
      break;
    case "user_topic":
      state.userTopics.set(topicKey(e.stream_id, e.topic_name), e.visibility_policy);
      break;
    case "realm_user":
      if (e.op === "add") addUser(e.person);
      else if (e.op === "update" && e.person) {
        const u = state.users.get(e.person.user_id);
        if (u) {
          const next = { ...u, ...e.person };
          state.users.set(u.user_id, next);
          state.usersByEmail.set(next.email.toLowerCase(), u.user_id);
          if (e.person.full_name !== undefined && state.view) {
            state.view.messages = state.view.messages.map((m) =>
              m.sender_id === u.user_id ? { ...m, sender_full_name: e.person.full_name } : m,
            );
          }
          if (u.user_id === state.self.user_id) applySelfUpdate(e.person);
        }
      }
      break;
    case "realm_emoji":
      if (e.realm_emoji) state.realmEmoji = new Map(Object.entries(e.realm_emoji).map(([id, x]: [string, any]) => [id, { ...x, id }]));
      break;
    case "user_settings":
      if (e.op === "update" && typeof e.property === "string") state.settings = { ...state.settings, [e.property]: e.value };
      break;
    case "realm":
      if (e.op === "update") applyRealmDict({ [e.property]: e.value });
      else if (e.op === "update_dict" && e.data) applyRealmDict(e.data);
      break;
    default:
      return;
  }
  changed();
}

/** Organization settings from `realm` `update` (one property) and `update_dict` (several). */
function applyRealmDict(d: any): void {
  const r = state.realm;
  if ("message_content_edit_limit_seconds" in d) r.editLimitSeconds = d.message_content_edit_limit_seconds;
  if ("message_content_delete_limit_seconds" in d) r.deleteLimitSeconds = d.message_content_delete_limit_seconds;
  if ("allow_message_editing" in d) r.allowEditing = d.allow_message_editing;
  if ("name" in d) r.name = d.name;
  for (const k of REALM_GROUP_SETTINGS) if (k in d) r.groupSettings = { ...r.groupSettings, [k]: d[k] };
  if ("description" in d) r.description = d.description;
  if ("invite_required" in d) r.inviteRequired = d.invite_required;
  if ("emails_restricted_to_domains" in d) r.emailsRestrictedToDomains = d.emails_restricted_to_domains;
  if ("disallow_disposable_email_addresses" in d) r.disallowDisposableEmails = d.disallow_disposable_email_addresses;
  if ("can_delete_own_message_group" in d) r.canDeleteOwnGroup = d.can_delete_own_message_group;
  if ("can_delete_any_message_group" in d) r.canDeleteAnyGroup = d.can_delete_any_message_group;
  if ("can_move_messages_between_topics_group" in d) r.canMoveTopicsGroup = d.can_move_messages_between_topics_group;
  if ("can_resolve_topics_group" in d) r.canResolveTopicsGroup = d.can_resolve_topics_group;
  if ("message_retention_days" in d) r.messageRetentionDays = d.message_retention_days ?? -1;
  if ("new_stream_announcements_stream_id" in d) r.newChannelAnnouncementsChannel = d.new_stream_announcements_stream_id;
  if ("signup_announcements_stream_id" in d) r.signupAnnouncementsChannel = d.signup_announcements_stream_id;
  if ("zulip_update_announcements_stream_id" in d) r.zulipUpdateAnnouncementsChannel = d.zulip_update_announcements_stream_id;
  // `update_dict` with property `icon`, `logo` or `night_logo`.
  if ("icon_url" in d) r.iconUrl = d.icon_url;
  if ("icon_source" in d) r.iconSource = d.icon_source;
  if ("logo_url" in d) r.logoUrl = d.logo_url;
  if ("logo_source" in d) r.logoSource = d.logo_source;
  if ("night_logo_url" in d) r.nightLogoUrl = d.night_logo_url;
  if ("night_logo_source" in d) r.nightLogoSource = d.night_logo_source;
}

/** Our own role or name changed (by us or by an administrator). */
function applySelfUpdate(p: any): void {
  if (p.full_name) state.self.full_name = p.full_name;
  if (p.avatar_source) state.self.avatar_source = p.avatar_source;
  if (typeof p.role === "number") {
    state.self.role = p.role;
    state.self.is_owner = p.role === 100;
    state.self.is_admin = p.role <= 200;
    state.self.is_guest = p.role === 600;
  }
}

/** Channel properties apply to the channel and to our subscription of it. */
function applyStream(e: any): void {
  if (e.op === "update") {
    const fields: Record<string, unknown> = { [e.property]: e.value };
    // Zulip sends these beside `invite_only`; a group setting arrives whole or as {new, old}.
    for (const k of ["history_public_to_subscribers", "is_web_public"]) if (k in e) fields[k] = e[k];
    if (e.property.endsWith("_group") && e.value && typeof e.value === "object" && "new" in e.value) fields[e.property] = e.value.new;
    const c = state.channels.get(e.stream_id);
    if (c) state.channels.set(e.stream_id, { ...c, ...fields });
    const s = state.subs.get(e.stream_id);
    if (s) state.subs.set(e.stream_id, { ...s, ...fields });
  } else if (e.op === "create") {
    for (const c of e.streams ?? []) state.channels.set(c.stream_id, channelOf(c));
  } else if (e.op === "delete") {
    const ids: number[] = e.stream_ids ?? (e.streams ?? []).map((c: any) => c.stream_id);
    for (const id of ids) {
      state.channels.delete(id);
      state.subs.delete(id);
    }
    state.realm.defaultChannels = state.realm.defaultChannels.filter((id) => !ids.includes(id));
  }
}

function applyUserGroup(e: any): void {
  const g = state.groups.get(e.group_id);
  const set = (next: UserGroup) => state.groups.set(next.id, next);
  const union = (a: number[], b: number[]) => [...new Set([...a, ...b])];
  const minus = (a: number[], b: number[]) => a.filter((x) => !b.includes(x));
  if (e.op === "add" && e.group) set(normalizeGroup(e.group));
  else if (e.op === "remove") state.groups.delete(e.group_id);
  else if (!g) return;
  else if (e.op === "update") set({ ...g, ...e.data });
  else if (e.op === "add_members") set({ ...g, members: union(g.members, e.user_ids) });
  else if (e.op === "remove_members") set({ ...g, members: minus(g.members, e.user_ids) });
  else if (e.op === "add_subgroups") set({ ...g, direct_subgroup_ids: union(g.direct_subgroup_ids, e.direct_subgroup_ids) });
  else if (e.op === "remove_subgroups") set({ ...g, direct_subgroup_ids: minus(g.direct_subgroup_ids, e.direct_subgroup_ids) });
}

function applyRealmDomains(e: any): void {
  const d = state.realm.domains.filter((x) => x.domain !== (e.realm_domain?.domain ?? e.domain));
  if (e.op === "add" || e.op === "change") d.push(e.realm_domain);
  state.realm.domains = d.sort((a, b) => a.domain.localeCompare(b.domain));
}

function applySubscription(e: any): void {
  if (e.op === "update") {
    const s = state.subs.get(e.stream_id);
    if (!s) return;
    const next = { ...s };
    if (e.property === "is_muted") next.is_muted = !!e.value;
    else if (e.property === "in_home_view") next.is_muted = !e.value;
    else if (e.property === "pin_to_top") next.pin_to_top = !!e.value;
    else if (e.property === "color") next.color = e.value;
    else return;
    state.subs.set(e.stream_id, next);
  } else if (e.op === "add") {
    for (const s of e.subscriptions ?? []) {
      state.subs.set(s.stream_id, normalizeSub(s));
      state.channels.set(s.stream_id, channelOf(s));
    }
  } else if (e.op === "remove") {
    for (const s of e.subscriptions ?? []) state.subs.delete(s.stream_id);
  }
}

function applyUpdateMessage(e: any): void {
  const ids: number[] = e.message_ids ?? (e.message_id !== undefined ? [e.message_id] : []);
  const newTopic: string | undefined = e.subject ?? e.topic;
  const moved = newTopic !== undefined || (e.new_stream_id !== undefined && e.new_stream_id !== e.stream_id);
  if (moved) {
    state.unreads.move(ids, e.new_stream_id, newTopic);
    // The sidebar's topic lists of both channels: a topic may have emptied or appeared.
    if (e.stream_id !== undefined) hooks.reloadTopics(e.stream_id);
    if (e.new_stream_id !== undefined && e.new_stream_id !== e.stream_id) hooks.reloadTopics(e.new_stream_id);
    const oldStream: number | undefined = e.stream_id;
    const oldTopic: string | undefined = e.orig_subject;
    if (oldStream !== undefined && oldTopic !== undefined) {
      const key = topicKey(oldStream, oldTopic);
      // The policy follows a whole-topic move (Zulip moves user_topics with change_all).
      if (e.propagate_mode === "change_all" && state.userTopics.has(key) && newTopic !== undefined) {
        state.userTopics.set(topicKey(e.new_stream_id ?? oldStream, newTopic), state.userTopics.get(key)!);
      }
    }
  }
  const v = state.view;
  if (!v) return;
  const idSet = new Set(ids);
  let removed = false;
  v.messages = v.messages
    .map((m) => {
      if (!idSet.has(m.id)) return m;
      let next: Message = m;
      if (e.rendered_content !== undefined && m.id === e.message_id) {
        next = { ...next, content: e.rendered_content, is_me_message: e.is_me_message ?? next.is_me_message };
        if (!e.rendering_only) next.last_edit_timestamp = e.edit_timestamp;
      }
      if (moved && next.type === "stream") {
        const resolveOnly =
          e.new_stream_id === undefined &&
          newTopic !== undefined &&
          e.orig_subject !== undefined &&
          newTopic.replace(/^✔ /, "") === String(e.orig_subject).replace(/^✔ /, "");
        next = {
          ...next,
          subject: newTopic ?? next.subject,
          stream_id: e.new_stream_id ?? next.stream_id,
          display_recipient: e.new_stream_id !== undefined ? names.channelName(e.new_stream_id) ?? next.display_recipient : next.display_recipient,
        };
        if (!resolveOnly) next.last_moved_timestamp = e.edit_timestamp;
      }
      if (e.flags && m.id === e.message_id) next = { ...next, flags: e.flags };
      return next;
    })
    .filter((m) => {
      // A message moved out of the open narrow leaves it.
      if (!idSet.has(m.id) || !moved) return true;
      const keep = messageMatches(m, v.narrow, names) !== false;
      if (!keep) removed = true;
      return keep;
    });
  void removed;
  for (const m of v.messages) if (idSet.has(m.id)) noteMessage(m);
  // Messages moved into the open narrow: fetch them (the event carries no message bodies).
  if (moved) {
    const present = new Set(v.messages.map((m) => m.id));
    if (ids.some((id) => !present.has(id))) {
      const probe = { ...(v.messages[0] ?? {}), type: "stream", stream_id: e.new_stream_id ?? e.stream_id, subject: newTopic ?? e.orig_subject ?? "", flags: [], reactions: [], content: "", sender_email: "", display_recipient: "" } as Message;
      if (messageMatches(probe, v.narrow.filter((t) => t.operator === "channel" || t.operator === "topic"), names) && v.narrow.every((t) => t.operator === "channel" || t.operator === "topic")) {
        hooks.refetchView();
      }
    }
  }
}

// ---- Permissions ------------------------------------------------------------------------------

function inGroup(groupId: number, userId: number, seen = new Set<number>()): boolean {
  if (seen.has(groupId)) return false;
  seen.add(groupId);
  const g = state.groups.get(groupId);
  if (!g) return false;
  if (g.members.includes(userId)) return true;
  return g.direct_subgroup_ids.some((s) => inGroup(s, userId, seen));
}

/** Whether a person is in a group-valued setting; `fallback` when the server sent none. */
export function inGroupSetting(setting: GroupSetting, userId: number, fallback: boolean): boolean {
  if (setting === null || setting === undefined) return fallback;
  if (typeof setting === "number") return inGroup(setting, userId);
  return (setting.direct_members ?? []).includes(userId) || (setting.direct_subgroups ?? []).some((g) => inGroup(g, userId));
}

export function canEdit(msg: Message): boolean {
  if (msg.sender_id !== state.self.user_id || !state.realm.allowEditing || msg.local_id) return false;
  const limit = state.realm.editLimitSeconds;
  return limit === null || limit === 0 || Date.now() / 1000 - msg.timestamp < limit;
}

export function canDelete(msg: Message): boolean {
  if (msg.local_id) return false;
  const me = state.self.user_id;
  if (inGroupSetting(state.realm.canDeleteAnyGroup, me, state.self.is_admin)) return true;
  if (msg.sender_id !== me) return false;
  if (!inGroupSetting(state.realm.canDeleteOwnGroup, me, true)) return false;
  const limit = state.realm.deleteLimitSeconds;
  return limit === null || limit === 0 || Date.now() / 1000 - msg.timestamp < limit;
}

/** Moving a message to another topic: its sender, or the organization's group for it. */
export function canMove(msg: Message): boolean {
  if (msg.type !== "stream" || msg.local_id) return false;
  return msg.sender_id === state.self.user_id || inGroupSetting(state.realm.canMoveTopicsGroup, state.self.user_id, true);
}

export function canResolve(): boolean {
  return inGroupSetting(state.realm.canResolveTopicsGroup, state.self.user_id, true);
}

let noticeTimer: ReturnType<typeof setTimeout> | undefined;
/** A notice in the banner; it goes away by itself after a few seconds. */
export function setNotice(text: string | undefined): void {
  state.notice = text;
  clearTimeout(noticeTimer);
  if (text) {
    noticeTimer = setTimeout(() => {
      state.notice = undefined;
      changed();
    }, 8000);
  }
  changed();
}
