// test/unit/search.test.ts
import { test } from "node:test";
import assert from "node:assert/strict";

// src/search.ts
var OPERATORS = /* @__PURE__ */ new Set([
  "channel",
  "stream",
  "topic",
  "subject",
  "sender",
  "from",
  "dm",
  "pm-with",
  "dm-including",
  "is",
  "has",
  "near",
  "id",
  "with",
  "search",
  "channels",
  "streams"
]);
var ALIASES = {
  stream: "channel",
  subject: "topic",
  from: "sender",
  "pm-with": "dm",
  streams: "channels"
};
function tokenize(input) {
  const tokens = [];
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
function unquote(s) {
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) return { text: s.slice(1, -1), quoted: true };
  return { text: s, quoted: false };
}
function parseSearch(input, names2) {
  const narrow = [];
  const words = [];
  for (const token of tokenize(input.trim())) {
    const m = /^(-?)([a-z-]+):(.*)$/i.exec(token);
    if (!m || !OPERATORS.has(m[2].toLowerCase())) {
      words.push(token);
      continue;
    }
    const negated = m[1] === "-";
    let operator = m[2].toLowerCase();
    operator = ALIASES[operator] ?? operator;
    const { text: text2, quoted } = unquote(m[3]);
    const value = quoted ? text2 : text2.replace(/\+/g, " ");
    if (operator === "search") {
      words.push(value);
      continue;
    }
    let operand = value;
    if (operator === "channel") {
      operand = names2.channelIdByName(value) ?? (/^\d+$/.test(value) ? Number(value) : value);
    } else if (operator === "sender") {
      if (value !== "me") operand = names2.userIdByEmail(value.toLowerCase()) ?? value;
    } else if (operator === "dm" || operator === "dm-including") {
      const ids = value.split(",").map((e) => names2.userIdByEmail(e.trim().toLowerCase()));
      operand = ids.every((x) => x !== void 0) ? ids : value;
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
function quoteIfNeeded(s) {
  return /[\s"]/.test(s) || s === "" ? `"${s.replace(/"/g, "")}"` : s;
}
function narrowToSearch(narrow, names2) {
  return narrow.map((t) => {
    if (t.operator === "search") return String(t.operand);
    let operand;
    if (t.operator === "channel") {
      operand = typeof t.operand === "number" ? names2.channelName(t.operand) ?? String(t.operand) : String(t.operand);
    } else if ((t.operator === "dm" || t.operator === "dm-including") && Array.isArray(t.operand)) {
      operand = t.operand.map((id) => names2.userEmail(id) ?? String(id)).join(",");
    } else if (t.operator === "sender" && typeof t.operand === "number") {
      operand = names2.userEmail(t.operand) ?? String(t.operand);
    } else {
      operand = String(t.operand);
    }
    return `${t.negated ? "-" : ""}${t.operator}:${quoteIfNeeded(operand)}`;
  }).join(" ");
}

// test/unit/search.test.ts
var names = {
  channelIdByName: (n) => ({ verona: 9, "core team": 12 })[n.toLowerCase()],
  channelName: (id) => ({ 9: "Verona", 12: "core team" })[id],
  userIdByEmail: (e) => ({ "hamlet@zulip.com": 10, "othello@zulip.com": 11 })[e],
  userEmail: (id) => ({ 10: "hamlet@zulip.com", 11: "othello@zulip.com" })[id]
};
test("operators become terms; channel names become ids", () => {
  assert.deepEqual(parseSearch("channel:Verona topic:lunch", names), [
    { operator: "channel", operand: 9 },
    { operator: "topic", operand: "lunch" }
  ]);
});
test("free words gather into one search term, wherever they are", () => {
  assert.deepEqual(parseSearch("hello channel:verona world", names), [
    { operator: "channel", operand: 9 },
    { operator: "search", operand: "hello world" }
  ]);
});
test("quoted operands and + for spaces", () => {
  assert.deepEqual(parseSearch('channel:"core team" topic:"two words"', names), [
    { operator: "channel", operand: 12 },
    { operator: "topic", operand: "two words" }
  ]);
  assert.deepEqual(parseSearch("topic:my+topic", names), [{ operator: "topic", operand: "my topic" }]);
});
test("sender, dm, is, has and negation", () => {
  assert.deepEqual(parseSearch("sender:hamlet@zulip.com is:starred -has:link is:private", names), [
    { operator: "sender", operand: 10 },
    { operator: "is", operand: "starred" },
    { operator: "has", operand: "link", negated: true },
    { operator: "is", operand: "dm" }
  ]);
  assert.deepEqual(parseSearch("sender:me", names), [{ operator: "sender", operand: "me" }]);
  assert.deepEqual(parseSearch("dm:hamlet@zulip.com,othello@zulip.com", names), [{ operator: "dm", operand: [10, 11] }]);
});
test("legacy operator names are folded", () => {
  assert.deepEqual(parseSearch("stream:Verona subject:x pm-with:hamlet@zulip.com", names), [
    { operator: "channel", operand: 9 },
    { operator: "topic", operand: "x" },
    { operator: "dm", operand: [10] }
  ]);
});
test("an unknown operator or a colon in text stays a word", () => {
  assert.deepEqual(parseSearch("time:10:30 http://x", names), [{ operator: "search", operand: "time:10:30 http://x" }]);
  assert.deepEqual(parseSearch("   ", names), []);
});
test("an unknown channel keeps its name as operand (the server answers)", () => {
  assert.deepEqual(parseSearch("channel:Nowhere", names), [{ operator: "channel", operand: "Nowhere" }]);
});
test("narrowToSearch is the inverse for display", () => {
  const text = 'channel:"core team" topic:"two words" sender:hamlet@zulip.com -is:resolved lunch';
  assert.equal(narrowToSearch(parseSearch(text, names), names), text);
});
