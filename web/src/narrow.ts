// Narrows: Zulip's lists of {operator, operand, negated} terms. What the server is asked
// for, and whether a message that arrives live (or is edited or moved) belongs to the
// narrow that is open.

import type { Message, Narrow, NarrowTerm } from "./types";

export const RESOLVED_PREFIX = "✔ ";

export function isResolved(topic: string): boolean {
  return topic.startsWith(RESOLVED_PREFIX);
}

export function dmUserIds(msg: Pick<Message, "type" | "display_recipient">): number[] {
  if (msg.type !== "private" || !Array.isArray(msg.display_recipient)) return [];
  return msg.display_recipient.map((u) => u.id);
}

/** The other participants of a DM, sorted; the user's own id for a DM with oneself. */
export function dmPartners(msg: Pick<Message, "type" | "display_recipient">, selfId: number): number[] {
  const ids = dmUserIds(msg).filter((id) => id !== selfId);
  return (ids.length ? ids : [selfId]).sort((a, b) => a - b);
}

/** A conversation key: "c:<channel id>:<topic lowercased>" or "d:<sorted partner ids>". */
export function conversationKey(msg: Message, selfId: number): string {
  if (msg.type === "stream") return `c:${msg.stream_id}:${msg.subject.toLowerCase()}`;
  return `d:${dmPartners(msg, selfId).join(",")}`;
}

function operandIds(t: NarrowTerm): number[] {
  if (Array.isArray(t.operand)) return [...t.operand].sort((a, b) => a - b);
  return String(t.operand)
    .split(",")
    .filter((s) => s !== "")
    .map(Number)
    .sort((a, b) => a - b);
}

export interface MatchContext {
  selfId: number;
  /** Lowercased email → user id, for `sender:` and `dm:` operands given as emails. */
  userIdByEmail?(email: string): number | undefined;
  channelIdByName?(name: string): number | undefined;
}

function channelOperandId(t: NarrowTerm, ctx: MatchContext): number | undefined {
  if (typeof t.operand === "number") return t.operand;
  const s = String(t.operand);
  if (/^\d+$/.test(s)) return Number(s);
  return ctx.channelIdByName?.(s);
}

function textOf(html: string): string {
  return html.replace(/<[^>]*>/g, " ").replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}

/**
 * Whether a message belongs to a narrow, judged on the client. Answers undefined when the
 * client cannot tell (full-text search: the server's stemming decides); the caller then
 * leaves the message out of the open view rather than guess.
 */
export function messageMatches(msg: Message, narrow: Narrow, ctx: MatchContext): boolean | undefined {
  let unknown = false;
  for (const t of narrow) {
    const r = termMatches(msg, t, ctx);
    if (r === undefined) {
      unknown = true;
      continue;
    }
    if (r === !!t.negated) return false;
  }
  return unknown ? undefined : true;
}

function termMatches(msg: Message, t: NarrowTerm, ctx: MatchContext): boolean | undefined {
  const operand = typeof t.operand === "string" ? t.operand : "";
  switch (t.operator) {
    case "channel":
    case "stream":
      return msg.type === "stream" && msg.stream_id === channelOperandId(t, ctx);
    case "channels":
      return operand === "public" ? msg.type === "stream" : undefined;
    case "topic":
    case "subject":
      return msg.type === "stream" && msg.subject.toLowerCase() === String(t.operand).toLowerCase();
    case "dm":
    case "pm-with": {
      if (msg.type !== "private") return false;
      let want = operandIds(t);
      if (typeof t.operand === "string" && /[@]/.test(t.operand)) {
        const ids = t.operand.split(",").map((e) => ctx.userIdByEmail?.(e.trim().toLowerCase()));
        if (ids.some((x) => x === undefined)) return false;
        want = (ids as number[]).sort((a, b) => a - b);
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
          return ["mentioned", "wildcard_mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"].some((f) =>
            msg.flags.includes(f),
          );
        case "alerted":
          return msg.flags.includes("has_alert_word");
        case "unread":
          return !msg.flags.includes("read");
        case "resolved":
          return msg.type === "stream" && isResolved(msg.subject);
        default:
          return undefined;
      }
    case "has": {
      const c = msg.content;
      if (operand === "image") return /class="message_inline_image"/.test(c);
      if (operand === "link") return /<a /.test(c);
      if (operand === "attachment") return /href="\/user_uploads\//.test(c);
      if (operand === "reaction") return msg.reactions.length > 0;
      return undefined;
    }
    case "id":
      return msg.id === Number(t.operand);
    case "near":
    case "with":
      return true;
    case "search": {
      // Every word appearing in the text is necessary, not sufficient (stemming, phrases).
      const words = operand.toLowerCase().split(/\s+/).filter(Boolean);
      const text = (textOf(msg.content) + " " + msg.subject).toLowerCase();
      if (!words.every((w) => text.includes(w.replace(/^"|"$/g, "")))) return false;
      return undefined;
    }
    default:
      return undefined;
  }
}

/** The terms sent to the server (`near`/`with` become the anchor instead). */
export function serverNarrow(narrow: Narrow): Narrow {
  return narrow.filter((t) => t.operator !== "near" && t.operator !== "with");
}

export function nearAnchor(narrow: Narrow): number | undefined {
  const t = narrow.find((t) => t.operator === "near" || t.operator === "with");
  return t ? Number(t.operand) : undefined;
}

export function narrowChannelId(narrow: Narrow): number | undefined {
  const t = narrow.find((t) => (t.operator === "channel" || t.operator === "stream") && !t.negated);
  if (!t) return undefined;
  const n = Number(t.operand);
  return Number.isFinite(n) ? n : undefined;
}

export function narrowTopic(narrow: Narrow): string | undefined {
  const t = narrow.find((t) => (t.operator === "topic" || t.operator === "subject") && !t.negated);
  return t ? String(t.operand) : undefined;
}

export function narrowDmIds(narrow: Narrow): number[] | undefined {
  const t = narrow.find((t) => t.operator === "dm" && !t.negated);
  return t ? operandIds(t) : undefined;
}

export function narrowIs(narrow: Narrow, what: string): boolean {
  return narrow.length === 1 && narrow[0]!.operator === "is" && narrow[0]!.operand === what && !narrow[0]!.negated;
}

export function narrowsEqual(a: Narrow, b: Narrow): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether the narrow's view is a plain conversation the compose box can address. */
export function isSearchNarrow(narrow: Narrow): boolean {
  return narrow.some((t) => t.operator === "search" || t.operator === "has" || t.operator === "sender" || t.negated);
}
