// Unread messages: which are unread, where they live, and the counts the sidebar and the
// title show. Follows Zulip's muting rules: a muted topic's messages are not counted for
// its channel; a muted channel counts only its unmuted or followed topics; mentions and
// direct messages always count. Fed by register's `unread_msgs`, new messages, flag
// events (other tabs reading), moves and deletions.

import type { Message } from "./types";
import { VISIBILITY } from "./types";
import { dmPartners } from "./narrow";

type Where = { kind: "stream"; streamId: number; topic: string } | { kind: "dm"; key: string };

export interface MuteRules {
  isChannelMuted(streamId: number): boolean;
  topicPolicy(streamId: number, topic: string): number;
}

export interface RegisterUnreads {
  pms?: { other_user_id?: number; sender_id?: number; unread_message_ids: number[] }[];
  streams?: { stream_id: number; topic: string; unread_message_ids: number[] }[];
  huddles?: { user_ids_string: string; unread_message_ids: number[] }[];
  mentions?: number[];
}

export interface MessageDetails {
  type: "stream" | "private";
  stream_id?: number;
  topic?: string;
  user_ids?: number[];
  mentioned?: boolean;
}

export class Unreads {
  private where = new Map<number, Where>();
  private mentions = new Set<number>();
  constructor(private selfId: number, private rules: MuteRules) {}

  static fromRegister(data: RegisterUnreads, selfId: number, rules: MuteRules): Unreads {
    const u = new Unreads(selfId, rules);
    for (const s of data.streams ?? []) {
      for (const id of s.unread_message_ids) u.where.set(id, { kind: "stream", streamId: s.stream_id, topic: s.topic });
    }
    for (const p of data.pms ?? []) {
      const other = p.other_user_id ?? p.sender_id ?? selfId;
      for (const id of p.unread_message_ids) u.where.set(id, { kind: "dm", key: String(other) });
    }
    for (const h of data.huddles ?? []) {
      const key = h.user_ids_string
        .split(",")
        .map(Number)
        .filter((id) => id !== selfId)
        .sort((a, b) => a - b)
        .join(",");
      for (const id of h.unread_message_ids) u.where.set(id, { kind: "dm", key });
    }
    for (const id of data.mentions ?? []) if (u.where.has(id)) u.mentions.add(id);
    return u;
  }

  get size(): number {
    return this.where.size;
  }

  isUnread(id: number): boolean {
    return this.where.has(id);
  }

  /** A new message (or one fetched); counted when its flags lack "read". */
  addMessage(msg: Message): void {
    if (msg.flags.includes("read")) {
      this.remove(msg.id);
      return;
    }
    this.where.set(
      msg.id,
      msg.type === "stream"
        ? { kind: "stream", streamId: msg.stream_id!, topic: msg.subject }
        : { kind: "dm", key: dmPartners(msg, this.selfId).join(",") },
    );
    if (["mentioned", "wildcard_mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"].some((f) => msg.flags.includes(f))) {
      this.mentions.add(msg.id);
    }
  }

  private remove(id: number): void {
    this.where.delete(id);
    this.mentions.delete(id);
  }

  markRead(ids: Iterable<number>): void {
    for (const id of ids) this.remove(id);
  }

  /** `update_message_flags` remove "read": the event's message_details say where they are. */
  markUnread(ids: number[], details: Record<string, MessageDetails> | undefined): void {
    for (const id of ids) {
      const d = details?.[String(id)];
      if (!d) continue;
      if (d.type === "stream") this.where.set(id, { kind: "stream", streamId: d.stream_id!, topic: d.topic ?? "" });
      else {
        const others = (d.user_ids ?? []).filter((u) => u !== this.selfId).sort((a, b) => a - b);
        this.where.set(id, { kind: "dm", key: (others.length ? others : [this.selfId]).join(",") });
      }
      if (d.mentioned) this.mentions.add(id);
    }
  }

  /** Messages moved to another channel and/or topic. */
  move(ids: number[], streamId: number | undefined, topic: string | undefined): void {
    for (const id of ids) {
      const w = this.where.get(id);
      if (!w || w.kind !== "stream") continue;
      this.where.set(id, { kind: "stream", streamId: streamId ?? w.streamId, topic: topic ?? w.topic });
    }
  }

  delete(ids: Iterable<number>): void {
    for (const id of ids) this.remove(id);
  }

  private topicCounts(w: Where & { kind: "stream" }): boolean {
    const policy = this.rules.topicPolicy(w.streamId, w.topic);
    if (this.rules.isChannelMuted(w.streamId)) return policy === VISIBILITY.UNMUTED || policy === VISIBILITY.FOLLOWED;
    return policy !== VISIBILITY.MUTED;
  }

  /** Unread count of a channel as the sidebar shows it (muted topics left out). */
  channelCount(streamId: number): number {
    let n = 0;
    for (const w of this.where.values()) if (w.kind === "stream" && w.streamId === streamId && this.topicCounts(w)) n++;
    return n;
  }

  /** Unread count of one topic (shown even when the topic is muted). */
  topicCount(streamId: number, topic: string): number {
    const t = topic.toLowerCase();
    let n = 0;
    for (const w of this.where.values()) if (w.kind === "stream" && w.streamId === streamId && w.topic.toLowerCase() === t) n++;
    return n;
  }

  /** Unread counts by topic in a channel (display names as first seen). */
  topicsOf(streamId: number): Map<string, number> {
    const m = new Map<string, { name: string; n: number }>();
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
  dmCount(key: string): number {
    let n = 0;
    for (const w of this.where.values()) if (w.kind === "dm" && w.key === key) n++;
    return n;
  }

  dmKeys(): Map<string, number> {
    const m = new Map<string, number>();
    for (const w of this.where.values()) if (w.kind === "dm") m.set(w.key, (m.get(w.key) ?? 0) + 1);
    return m;
  }

  totalDms(): number {
    let n = 0;
    for (const w of this.where.values()) if (w.kind === "dm") n++;
    return n;
  }

  mentionCount(): number {
    return this.mentions.size;
  }

  /** The page title's count: DMs, mentions, and channel messages not muted away. */
  total(): number {
    let n = 0;
    for (const [id, w] of this.where) {
      if (w.kind === "dm" || this.mentions.has(id) || this.topicCounts(w)) n++;
    }
    return n;
  }

  /** Unread message ids in a stream topic (for marking a conversation read). */
  idsInTopic(streamId: number, topic: string): number[] {
    const t = topic.toLowerCase();
    const ids: number[] = [];
    for (const [id, w] of this.where) if (w.kind === "stream" && w.streamId === streamId && w.topic.toLowerCase() === t) ids.push(id);
    return ids.sort((a, b) => a - b);
  }

  /**
   * The next topic with unread messages after (channel, topic), in the order the sidebar
   * lists channels (given) and topics by their oldest unread message; muted ones skipped.
   */
  nextUnreadTopic(
    channelOrder: number[],
    current: { streamId: number; topic: string } | undefined,
  ): { streamId: number; topic: string } | undefined {
    const byChannel = new Map<number, Map<string, { topic: string; first: number }>>();
    for (const [id, w] of this.where) {
      if (w.kind !== "stream" || !this.topicCounts(w)) continue;
      const topics = byChannel.get(w.streamId) ?? new Map();
      const k = w.topic.toLowerCase();
      const e = topics.get(k);
      if (!e || id < e.first) topics.set(k, { topic: w.topic, first: id });
      byChannel.set(w.streamId, topics);
    }
    const list: { streamId: number; topic: string }[] = [];
    for (const sid of channelOrder) {
      const topics = byChannel.get(sid);
      if (!topics) continue;
      for (const e of [...topics.values()].sort((a, b) => a.first - b.first)) list.push({ streamId: sid, topic: e.topic });
    }
    if (list.length === 0) return undefined;
    if (!current) return list[0];
    const i = list.findIndex((e) => e.streamId === current.streamId && e.topic.toLowerCase() === current.topic.toLowerCase());
    if (i === -1) return list[0];
    return list[(i + 1) % list.length]!.topic.toLowerCase() === current.topic.toLowerCase() && list.length === 1
      ? undefined
      : list[(i + 1) % list.length];
  }
}
