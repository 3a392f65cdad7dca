// Zulip's URL-fragment encoding of narrows ("hash_util"): a component is percent-encoded,
// then `.` is written `%2E` and every `%` becomes `.`, so "rome & co." reads
// "rome.20.26.20co.2E". Channels are "<id>-<name>", DMs "<ids>-<slug>".

import type { Narrow, NarrowTerm } from "./types";

export function encodeHashComponent(s: string): string {
  return encodeURIComponent(s).replace(/\./g, "%2E").replace(/%/g, ".");
}

export function decodeHashComponent(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\./g, "%"));
  } catch {
    return s;
  }
}

export interface HashNames {
  channelName(id: number): string | undefined;
  channelIdByName(name: string): number | undefined;
  userName(id: number): string | undefined;
  userIdByEmail(email: string): number | undefined;
}

function slug(name: string): string {
  return name.replace(/ /g, "-");
}

export function channelSlug(id: number, name: string | undefined): string {
  return encodeHashComponent(`${id}-${slug(name ?? "unknown")}`);
}

function encodeOperand(term: NarrowTerm, names: HashNames): string {
  const op = term.operator;
  if (op === "channel" || op === "stream") {
    const id = Number(term.operand);
    return channelSlug(id, names.channelName(id));
  }
  if (op === "dm" || op === "dm-including") {
    const ids = Array.isArray(term.operand) ? term.operand : [Number(term.operand)];
    const tail = ids.length === 1 ? slug(names.userName(ids[0]!) ?? "user") : ids.length > 1 ? "group" : "";
    return encodeHashComponent(`${ids.join(",")}-${tail}`);
  }
  if (op === "sender" && typeof term.operand === "number") {
    return encodeHashComponent(`${term.operand}-${slug(names.userName(term.operand) ?? "user")}`);
  }
  return encodeHashComponent(String(term.operand));
}

/** `#narrow/...` for a narrow; the empty narrow is `#feed`. */
export function narrowToHash(narrow: Narrow, names: HashNames): string {
  if (narrow.length === 0) return "#feed";
  const parts = narrow.map(
    (t) => `${t.negated ? "-" : ""}${encodeHashComponent(t.operator)}/${encodeOperand(t, names)}`,
  );
  return `#narrow/${parts.join("/")}`;
}

function decodeIdSlug(s: string): number | undefined {
  const m = /^(\d+)(-|$)/.exec(s);
  return m ? Number(m[1]) : undefined;
}

/** The narrow of a `#narrow/...` fragment, or undefined when it is not a narrow. */
export function hashToNarrow(hash: string, names: HashNames): Narrow | undefined {
  const h = hash.replace(/^#/, "");
  if (h === "feed" || h === "all-messages" || h === "") return [];
  if (!h.startsWith("narrow/")) return undefined;
  const parts = h.slice("narrow/".length).split("/");
  const narrow: Narrow = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    let operator = decodeHashComponent(parts[i]!);
    const raw = decodeHashComponent(parts[i + 1]!);
    let negated = false;
    if (operator.startsWith("-")) {
      negated = true;
      operator = operator.slice(1);
    }
    if (operator === "stream") operator = "channel";
    if (operator === "subject") operator = "topic";
    if (operator === "pm-with") operator = "dm";
    let operand: NarrowTerm["operand"] = raw;
    if (operator === "channel") {
      const id = decodeIdSlug(raw);
      operand = id ?? names.channelIdByName(raw) ?? raw;
    } else if (operator === "dm" || operator === "dm-including") {
      const idPart = raw.split("-")[0]!;
      if (/^\d+(,\d+)*$/.test(idPart)) {
        operand = idPart.split(",").map(Number);
      } else {
        const ids = raw.split(",").map((e) => names.userIdByEmail(e.trim()));
        operand = ids.every((x) => x !== undefined) ? (ids as number[]) : raw;
      }
    } else if (operator === "sender") {
      const id = decodeIdSlug(raw);
      operand = id ?? names.userIdByEmail(raw) ?? raw;
    } else if (operator === "near" || operator === "id" || operator === "with") {
      operand = Number(raw);
    }
    narrow.push(negated ? { operator, operand, negated } : { operator, operand });
  }
  return narrow;
}

/** A link to one message (Zulip's "copy link"). */
export function messageLink(
  origin: string,
  msg: { id: number; type: string; stream_id?: number; subject: string; display_recipient: unknown },
  names: HashNames,
  selfId: number,
): string {
  let narrow: Narrow;
  if (msg.type === "stream" && msg.stream_id !== undefined) {
    narrow = [
      { operator: "channel", operand: msg.stream_id },
      { operator: "topic", operand: msg.subject },
    ];
  } else {
    const users = (msg.display_recipient as { id: number }[]).map((u) => u.id).filter((id) => id !== selfId);
    narrow = [{ operator: "dm", operand: users.length ? users : [selfId] }];
  }
  return `${origin}/${narrowToHash(narrow, names)}/near/${msg.id}`;
}
