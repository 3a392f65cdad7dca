// Zulip's search syntax: `channel:Verona topic:"two words" sender:me is:starred has:link
// -is:resolved free text` → narrow terms, and back. Operands may be quoted, and `+` stands
// for a space in an unquoted operand (as in Zulip's search box); free words gather into one
// `search` term.

import type { Narrow, NarrowTerm } from "./types";

export interface SearchNames {
  channelIdByName(name: string): number | undefined;
  channelName(id: number): string | undefined;
  userIdByEmail(email: string): number | undefined;
  userEmail(id: number): string | undefined;
}

const OPERATORS = new Set([
  "channel", "stream", "topic", "subject", "sender", "from", "dm", "pm-with", "dm-including",
  "is", "has", "near", "id", "with", "search", "channels", "streams",
]);

const ALIASES: Record<string, string> = {
  stream: "channel",
  subject: "topic",
  from: "sender",
  "pm-with": "dm",
  streams: "channels",
};

/** Splits on spaces, keeping "quoted strings" (the quotes removed) as one token part. */
function tokenize(input: string): string[] {
  const tokens: string[] = [];
  let cur = "";
  let inQuote = false;
  let had = false;
  for (const ch of input) {
    if (ch === '"') {
      inQuote = !inQuote;
      had = true;
      cur += ch;
    } else if (/\s/.test(ch) && !inQuote) {
      if (cur || had) tokens.push(cur);
      cur = "";
      had = false;
    } else {
      cur += ch;
    }
  }
  if (cur || had) tokens.push(cur);
  return tokens;
}

function unquote(s: string): { text: string; quoted: boolean } {
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) return { text: s.slice(1, -1), quoted: true };
  return { text: s, quoted: false };
}

export function parseSearch(input: string, names: SearchNames): Narrow {
  const narrow: Narrow = [];
  const words: string[] = [];
  for (const token of tokenize(input.trim())) {
    const m = /^(-?)([a-z-]+):(.*)$/i.exec(token);
    if (!m || !OPERATORS.has(m[2]!.toLowerCase())) {
      words.push(token);
      continue;
    }
    const negated = m[1] === "-";
    let operator = m[2]!.toLowerCase();
    operator = ALIASES[operator] ?? operator;
    const { text, quoted } = unquote(m[3]!);
    const value = quoted ? text : text.replace(/\+/g, " ");
    if (operator === "search") {
      words.push(value);
      continue;
    }
    let operand: NarrowTerm["operand"] = value;
    if (operator === "channel") {
      operand = names.channelIdByName(value) ?? (/^\d+$/.test(value) ? Number(value) : value);
    } else if (operator === "sender") {
      if (value !== "me") operand = names.userIdByEmail(value.toLowerCase()) ?? value;
    } else if (operator === "dm" || operator === "dm-including") {
      const ids = value.split(",").map((e) => names.userIdByEmail(e.trim().toLowerCase()));
      operand = ids.every((x) => x !== undefined) ? (ids as number[]) : value;
    } else if (operator === "is" || operator === "has") {
      operand = value.toLowerCase();
      if (operand === "private") operand = "dm";
    } else if (operator === "near" || operator === "id" || operator === "with") {
      operand = /^\d+$/.test(value) ? Number(value) : value;
    }
    narrow.push(negated ? { operator, operand, negated: true } : { operator, operand });
  }
  const text = words.join(" ").replace(/"/g, "").trim();
  if (text) narrow.push({ operator: "search", operand: text });
  return narrow;
}

function quoteIfNeeded(s: string): string {
  return /[\s"]/.test(s) || s === "" ? `"${s.replace(/"/g, "")}"` : s;
}

/** The search-box text of a narrow (the inverse of parseSearch, for display). */
export function narrowToSearch(narrow: Narrow, names: SearchNames): string {
  return narrow
    .map((t) => {
      if (t.operator === "search") return String(t.operand);
      let operand: string;
      if (t.operator === "channel") {
        operand = typeof t.operand === "number" ? names.channelName(t.operand) ?? String(t.operand) : String(t.operand);
      } else if ((t.operator === "dm" || t.operator === "dm-including") && Array.isArray(t.operand)) {
        operand = t.operand.map((id) => names.userEmail(id) ?? String(id)).join(",");
      } else if (t.operator === "sender" && typeof t.operand === "number") {
        operand = names.userEmail(t.operand) ?? String(t.operand);
      } else {
        operand = String(t.operand);
      }
      return `${t.negated ? "-" : ""}${t.operator}:${quoteIfNeeded(operand)}`;
    })
    .join(" ");
}
