// What the person does: open a narrow, page through it, send, edit, react, star, mute,
// mark read. Each calls the API and leaves the store's live update to the event queue
// (except where waiting would feel slow: the local echo of a send, marking read).

import { ApiError, del, get, patch, post } from "./api";
import type { Message, Narrow } from "./types";
import { applyEvent, changed, mergeMessages, names, noteTopic, setNotice, state, type MessageView } from "./store";
import { messageMatches, nearAnchor, serverNarrow, narrowsEqual, narrowChannelId } from "./narrow";
import { narrowToHash } from "./hash";
import { messagesParams } from "./messagesParams";
import { takeMessages } from "./prefetch";

export const WINDOW = 50;

interface MessagesResponse {
  messages: Message[];
  found_oldest: boolean;
  found_newest: boolean;
  found_anchor?: boolean;
  anchor: number;
}

function fetchMessages(narrow: Narrow, anchor: string | number, before: number, after: number, includeAnchor = true) {
  const early = includeAnchor ? takeMessages(narrow, anchor) : undefined;
  return (early as Promise<MessagesResponse> | undefined) ?? get<MessagesResponse>("messages", messagesParams(narrow, anchor, before, after, includeAnchor));
}

let viewToken = 0;

/** Opens a narrow: the window around the first unread (or the `near` message). */
export async function openNarrow(narrow: Narrow): Promise<void> {
  const token = ++viewToken;
  const view: MessageView = { narrow, messages: [], foundOldest: false, foundNewest: false, loading: "initial" };
  state.view = view;
  state.selectedId = undefined;
  changed();
  const near = nearAnchor(narrow);
  try {
    const r = await fetchMessages(narrow, near ?? "first_unread", WINDOW / 2, WINDOW / 2);
    if (token !== viewToken) return;
    mergeMessages(view, r.messages);
    view.foundOldest = r.found_oldest;
    view.foundNewest = r.found_newest;
    view.loading = "none";
    performance.mark("first-window-loaded");
    const anchorId = near ?? (r.found_anchor === false && r.messages.length ? r.messages[r.messages.length - 1]!.id : r.anchor);
    view.anchorId = view.messages.some((m) => m.id === anchorId) ? anchorId : view.messages[view.messages.length - 1]?.id;
    state.selectedId = view.anchorId;
  } catch (e) {
    if (token !== viewToken) return;
    view.loading = "none";
    view.error = (e as Error).message;
  }
  changed();
}

export async function loadOlder(): Promise<void> {
  const v = state.view;
  if (!v || v.foundOldest || v.loading !== "none" || v.messages.length === 0) return;
  const token = viewToken;
  v.loading = "older";
  changed();
  try {
    const r = await fetchMessages(v.narrow, v.messages[0]!.id, WINDOW, 0, false);
    if (token !== viewToken) return;
    mergeMessages(v, r.messages);
    v.foundOldest = r.found_oldest;
  } catch (e) {
    setNotice((e as Error).message);
  }
  v.loading = "none";
  changed();
}

export async function loadNewer(): Promise<void> {
  const v = state.view;
  if (!v || v.foundNewest || v.loading !== "none" || v.messages.length === 0) return;
  const token = viewToken;
  v.loading = "newer";
  changed();
  try {
    const last = v.messages.filter((m) => !m.local_id).pop()!;
    const r = await fetchMessages(v.narrow, last.id, 0, WINDOW, false);
    if (token !== viewToken) return;
    mergeMessages(v, r.messages);
    v.foundNewest = r.found_newest;
  } catch (e) {
    setNotice((e as Error).message);
  }
  v.loading = "none";
  changed();
}

/**
 * After the event queue was registered again: events in the gap are lost, so fetch the
 * newest window of the open narrow (and what lies after the last message we have) and merge
 * it by id. Nothing is shown twice; nothing sent in the gap is missed.
 */
export async function refetchView(): Promise<void> {
  const v = state.view;
  if (!v) return;
  const token = viewToken;
  try {
    const real = v.messages.filter((m) => !m.local_id);
    const last = real[real.length - 1];
    if (v.foundNewest || !last) {
      const r = await fetchMessages(v.narrow, last ? last.id : "newest", last ? 0 : WINDOW, last ? WINDOW * 4 : 0);
      if (token !== viewToken) return;
      mergeMessages(v, r.messages);
      v.foundNewest = r.found_newest;
      if (!last) v.foundOldest = r.found_oldest;
    }
    // Edits, reactions and flags that changed in the gap: refresh what is on screen.
    if (real.length) {
      const r = await fetchMessages(v.narrow, real[0]!.id, 0, Math.min(real.length + 5, 1000));
      if (token !== viewToken) return;
      const fresh = new Map(r.messages.map((m) => [m.id, m]));
      v.messages = v.messages
        .filter((m) => m.local_id || fresh.has(m.id) || m.id > r.messages[r.messages.length - 1]!.id)
        .map((m) => fresh.get(m.id) ?? m);
      mergeMessages(v, r.messages);
    }
  } catch (e) {
    setNotice((e as Error).message);
  }
  changed();
}

/**
 * The first window may be fetched while /register runs (in parallel, for a faster first
 * paint). Messages sent between that fetch and the queue's creation reach neither: fetch
 * what lies between the window's last message and register's max_message_id.
 */
export async function catchUpToRegister(): Promise<void> {
  const v = state.view;
  if (!v || !v.foundNewest || v.loading !== "none") return;
  const real = v.messages.filter((m) => !m.local_id);
  const last = real[real.length - 1]?.id ?? 0;
  if (state.registerMaxId <= last) return;
  const token = viewToken;
  try {
    const r = await fetchMessages(v.narrow, last, 0, WINDOW, false);
    if (token !== viewToken) return;
    mergeMessages(v, r.messages);
    changed();
  } catch {
    /* the next scroll fetches them */
  }
}

// ---- Sending -----------------------------------------------------------------------------

let localCounter = 0;

export type Destination = { kind: "channel"; streamId: number; topic: string } | { kind: "dm"; userIds: number[] };

/**
 * A local echo: our own message shown at once, while the send is on its way (as plain text,
 * marked as sending); the message event that carries our local_id replaces it.
 */
function echo(dest: Destination, content: string, localId: string): Message | undefined {
  const v = state.view;
  if (!v || !v.foundNewest) return undefined;
  const me = state.users.get(state.self.user_id);
  const msg: Message = {
    id: Number.MAX_SAFE_INTEGER - localCounter,
    local_id: localId,
    type: dest.kind === "channel" ? "stream" : "private",
    sender_id: state.self.user_id,
    sender_email: state.self.email,
    sender_full_name: state.self.full_name,
    avatar_url: me?.avatar_url ?? null,
    content,
    display_recipient:
      dest.kind === "channel"
        ? names.channelName(dest.streamId) ?? ""
        : [...new Set([...dest.userIds, state.self.user_id])].map((id) => ({ id, email: state.users.get(id)?.email ?? "", full_name: state.users.get(id)?.full_name ?? "" })),
    stream_id: dest.kind === "channel" ? dest.streamId : undefined,
    subject: dest.kind === "channel" ? dest.topic : "",
    timestamp: Math.floor(Date.now() / 1000),
    flags: ["read"],
    reactions: [],
  };
  if (messageMatches(msg, v.narrow, names) !== true) return undefined;
  v.messages = [...v.messages, msg];
  changed();
  return msg;
}

export async function sendMessage(dest: Destination, content: string, queueId: string): Promise<void> {
  const localId = `${Date.now()}.${++localCounter}`;
  const local = echo(dest, content, localId);
  const params: Record<string, unknown> =
    dest.kind === "channel"
      ? { type: "stream", to: String(dest.streamId), topic: dest.topic, content }
      : { type: "direct", to: dest.userIds, content };
  params.queue_id = queueId;
  params.local_id = localId;
  params.read_by_sender = "true";
  try {
    const r = await post<{ id: number }>("messages", params);
    // Whichever comes first, the answer or the event: the echo never stays beside the
    // real message (it takes the real id, so the event's message replaces it by id).
    const v = state.view;
    if (local && v && v.messages.some((m) => m.local_id === localId)) {
      v.messages = v.messages.some((m) => m.id === r.id && !m.local_id)
        ? v.messages.filter((m) => m.local_id !== localId)
        : v.messages.map((m) => (m.local_id === localId ? { ...m, id: r.id } : m)).sort((a, b) => a.id - b.id);
      changed();
    }
  } catch (e) {
    const v = state.view;
    if (local && v) {
      v.messages = v.messages.filter((m) => m.local_id !== localId);
      changed();
    }
    throw e;
  }
}

export async function markRead(ids: number[]): Promise<void> {
  const fresh = ids.filter((id) => state.unreads.isUnread(id));
  if (fresh.length === 0) return;
  state.unreads.markRead(fresh);
  changed();
  try {
    await post("messages/flags", { messages: fresh, op: "add", flag: "read" });
  } catch (e) {
    setNotice((e as Error).message);
  }
}

export async function markAllRead(): Promise<void> {
  try {
    await post("mark_all_as_read");
  } catch (e) {
    setNotice((e as Error).message);
  }
}

export async function markNarrowRead(narrow: Narrow): Promise<void> {
  try {
    let anchor = "oldest";
    for (let i = 0; i < 20; i++) {
      const r = await post<{ found_newest: boolean; last_processed_id: number | null }>("messages/flags/narrow", {
        anchor,
        include_anchor: "true",
        num_before: "0",
        num_after: "1000",
        narrow: [...serverNarrow(narrow), { operator: "is", operand: "unread" }],
        op: "add",
        flag: "read",
      });
      if (r.found_newest || r.last_processed_id === null) break;
      anchor = String(r.last_processed_id + 1);
    }
  } catch (e) {
    setNotice((e as Error).message);
  }
}

export async function toggleStar(msg: Message): Promise<void> {
  const starred = msg.flags.includes("starred");
  await run(() => post("messages/flags", { messages: [msg.id], op: starred ? "remove" : "add", flag: "starred" }));
}

export async function toggleReaction(msg: Message, emoji: { name: string; code: string; type: string }): Promise<void> {
  const mine = msg.reactions.some(
    (r) => r.user_id === state.self.user_id && r.emoji_code === emoji.code && r.reaction_type === emoji.type,
  );
  const params = { emoji_name: emoji.name, emoji_code: emoji.code, reaction_type: emoji.type };
  await run(() => (mine ? del(`messages/${msg.id}/reactions`, params) : post(`messages/${msg.id}/reactions`, params)));
}

export async function rawContent(id: number): Promise<string> {
  const r = await get<{ raw_content?: string; message?: { content: string } }>(`messages/${id}`, { apply_markdown: "false" });
  return r.message?.content ?? r.raw_content ?? "";
}

export async function editMessage(id: number, content: string): Promise<boolean> {
  return run(() => patch(`messages/${id}`, { content }));
}

export async function moveTopic(
  msg: Message,
  topic: string,
  streamId: number | undefined,
  propagate: "change_one" | "change_later" | "change_all",
): Promise<boolean> {
  const params: Record<string, unknown> = { topic, propagate_mode: propagate, send_notification_to_old_thread: "false", send_notification_to_new_thread: "false" };
  if (streamId !== undefined && streamId !== msg.stream_id) params.stream_id = String(streamId);
  return run(() => patch(`messages/${msg.id}`, params));
}

export async function deleteMessage(id: number): Promise<boolean> {
  return run(() => del(`messages/${id}`));
}

export async function setChannelProperty(streamId: number, property: "is_muted" | "pin_to_top", value: boolean): Promise<void> {
  await run(() => post("users/me/subscriptions/properties", { subscription_data: [{ stream_id: streamId, property, value }] }));
}

export async function setTopicVisibility(streamId: number, topic: string, policy: number): Promise<void> {
  await run(() => post("user_topics", { stream_id: String(streamId), topic, visibility_policy: String(policy) }));
}

export async function renderPreview(content: string): Promise<string> {
  const r = await post<{ rendered: string }>("messages/render", { content });
  return r.rendered;
}

/** Topics of a channel (for the sidebar and topic completion). */
export async function loadTopics(streamId: number): Promise<void> {
  try {
    const r = await get<{ topics: { name: string; max_id: number }[] }>(`users/me/${streamId}/topics`);
    // Replaces the list (moved-away topics vanish), keeping topics that live events
    // brought in after the server answered.
    const newest = Math.max(0, ...r.topics.map((t) => t.max_id));
    const live = [...(state.topics.get(streamId)?.values() ?? [])].filter((t) => t.maxId > newest);
    state.topics.set(streamId, new Map());
    for (const t of r.topics) noteTopic(streamId, t.name, t.max_id);
    for (const t of live) noteTopic(streamId, t.name, t.maxId);
    changed();
  } catch {
    /* the sidebar keeps the topics it knows */
  }
}

let typingState: { key: string; lastStart: number; timer: ReturnType<typeof setTimeout> | undefined; params: Record<string, unknown> } | undefined;

/** Typing notifications: `start` at most every wait period, `stop` after a pause or a send. */
export function typingActivity(dest: Destination | undefined): void {
  if (!dest) return;
  const params: Record<string, unknown> =
    dest.kind === "channel"
      ? { type: "stream", stream_id: String(dest.streamId), topic: dest.topic }
      : { type: "direct", to: dest.userIds };
  const key = JSON.stringify(params);
  const now = Date.now();
  if (typingState && typingState.key !== key) typingStop();
  if (!typingState || now - typingState.lastStart > state.realm.typingStartedWaitMs) {
    void post("typing", { ...params, op: "start" }).catch(() => {});
    typingState = { key, lastStart: now, timer: undefined, params };
  }
  clearTimeout(typingState.timer);
  typingState.timer = setTimeout(typingStop, state.realm.typingStoppedWaitMs);
}

export function typingStop(): void {
  if (!typingState) return;
  clearTimeout(typingState.timer);
  void post("typing", { ...typingState.params, op: "stop" }).catch(() => {});
  typingState = undefined;
}

/** Runs an action; a refusal from the server is shown to the person. */
async function run(f: () => Promise<unknown>): Promise<boolean> {
  try {
    await f();
    return true;
  } catch (e) {
    setNotice(e instanceof ApiError ? e.message : String(e));
    return false;
  }
}

// ---- Navigation ----------------------------------------------------------------------------

export function navigate(narrow: Narrow): void {
  const hash = narrowToHash(narrow, names);
  if (location.hash !== hash) location.hash = hash;
  else if (!state.view || !narrowsEqual(state.view.narrow, narrow)) void openNarrow(narrow);
}

export function currentChannel(): number | undefined {
  return state.route.kind === "narrow" ? narrowChannelId(state.route.narrow) : undefined;
}

export async function sendPresence(): Promise<void> {
  try {
    const r = await post<{ presences?: Record<string, unknown> }>("users/me/presence", {
      status: document.hasFocus() ? "active" : "idle",
      ping_only: "false",
      new_user_input: "true",
      slim_presence: "true",
    });
    if (r.presences) {
      // Handled like a presence event carrying many users.
      applyEvent({ type: "presence", presences: r.presences });
    }
  } catch {
    /* presence is best-effort */
  }
}
