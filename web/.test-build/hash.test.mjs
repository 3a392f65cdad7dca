// test/unit/hash.test.ts
import { test } from "node:test";
import assert from "node:assert/strict";

// src/hash.ts
function encodeHashComponent(s) {
  return encodeURIComponent(s).replace(/\./g, "%2E").replace(/%/g, ".");
}
function decodeHashComponent(s) {
  try {
    return decodeURIComponent(s.replace(/\./g, "%"));
  } catch {
    return s;
  }
}
function slug(name) {
  return name.replace(/ /g, "-");
}
function channelSlug(id, name) {
  return encodeHashComponent(`${id}-${slug(name ?? "unknown")}`);
}
function encodeOperand(term, names2) {
  const op = term.operator;
  if (op === "channel" || op === "stream") {
    const id = Number(term.operand);
    return channelSlug(id, names2.channelName(id));
  }
  if (op === "dm" || op === "dm-including") {
    const ids = Array.isArray(term.operand) ? term.operand : [Number(term.operand)];
    const tail = ids.length === 1 ? slug(names2.userName(ids[0]) ?? "user") : ids.length > 1 ? "group" : "";
    return encodeHashComponent(`${ids.join(",")}-${tail}`);
  }
  if (op === "sender" && typeof term.operand === "number") {
    return encodeHashComponent(`${term.operand}-${slug(names2.userName(term.operand) ?? "user")}`);
  }
  return encodeHashComponent(String(term.operand));
}
function narrowToHash(narrow, names2) {
  if (narrow.length === 0) return "#feed";
  const parts = narrow.map(
    (t) => `${t.negated ? "-" : ""}${encodeHashComponent(t.operator)}/${encodeOperand(t, names2)}`
  );
  return `#narrow/${parts.join("/")}`;
}
function decodeIdSlug(s) {
  const m = /^(\d+)(-|$)/.exec(s);
  return m ? Number(m[1]) : void 0;
}
function hashToNarrow(hash, names2) {
  const h = hash.replace(/^#/, "");
  if (h === "feed" || h === "all-messages" || h === "") return [];
  if (!h.startsWith("narrow/")) return void 0;
  const parts = h.slice("narrow/".length).split("/");
  const narrow = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    let operator = decodeHashComponent(parts[i]);
    const raw = decodeHashComponent(parts[i + 1]);
    let negated = false;
    if (operator.startsWith("-")) {
      negated = true;
      operator = operator.slice(1);
    }
    if (operator === "stream") operator = "channel";
    if (operator === "subject") operator = "topic";
    if (operator === "pm-with") operator = "dm";
    let operand = raw;
    if (operator === "channel") {
      const id = decodeIdSlug(raw);
      operand = id ?? names2.channelIdByName(raw) ?? raw;
    } else if (operator === "dm" || operator === "dm-including") {
      const idPart = raw.split("-")[0];
      if (/^\d+(,\d+)*$/.test(idPart)) {
        operand = idPart.split(",").map(Number);
      } else {
        const ids = raw.split(",").map((e) => names2.userIdByEmail(e.trim()));
        operand = ids.every((x) => x !== void 0) ? ids : raw;
      }
    } else if (operator === "sender") {
      const id = decodeIdSlug(raw);
      operand = id ?? names2.userIdByEmail(raw) ?? raw;
    } else if (operator === "near" || operator === "id" || operator === "with") {
      operand = Number(raw);
    }
    narrow.push(negated ? { operator, operand, negated } : { operator, operand });
  }
  return narrow;
}
function messageLink(origin, msg, names2, selfId) {
  let narrow;
  if (msg.type === "stream" && msg.stream_id !== void 0) {
    narrow = [
      { operator: "channel", operand: msg.stream_id },
      { operator: "topic", operand: msg.subject }
    ];
  } else {
    const users = msg.display_recipient.map((u) => u.id).filter((id) => id !== selfId);
    narrow = [{ operator: "dm", operand: users.length ? users : [selfId] }];
  }
  return `${origin}/${narrowToHash(narrow, names2)}/near/${msg.id}`;
}

// test/unit/hash.test.ts
var names = {
  channelName: (id) => ({ 9: "Verona", 12: "core team" })[id],
  channelIdByName: (n) => ({ verona: 9, "core team": 12 })[n.toLowerCase()],
  userName: (id) => ({ 10: "King Hamlet", 11: "Othello" })[id],
  userIdByEmail: (e) => ({ "hamlet@zulip.com": 10, "othello@zulip.com": 11 })[e.toLowerCase()]
};
test("components use Zulip's dot encoding", () => {
  assert.equal(encodeHashComponent("rome & co."), "rome.20.26.20co.2E");
  assert.equal(decodeHashComponent("rome.20.26.20co.2E"), "rome & co.");
  for (const s of ["a/b", "\u2714 done", "100%", "x.y", "<script>"]) assert.equal(decodeHashComponent(encodeHashComponent(s)), s);
});
test("a channel and topic narrow is the server's link form", () => {
  const h = narrowToHash([{ operator: "channel", operand: 9 }, { operator: "topic", operand: "rome & co." }], names);
  assert.equal(h, "#narrow/channel/9-Verona/topic/rome.20.26.20co.2E");
  assert.deepEqual(hashToNarrow(h, names), [
    { operator: "channel", operand: 9 },
    { operator: "topic", operand: "rome & co." }
  ]);
});
test("channel names with spaces become slugs; the id decides", () => {
  const h = narrowToHash([{ operator: "channel", operand: 12 }], names);
  assert.equal(h, "#narrow/channel/12-core-team");
  assert.deepEqual(hashToNarrow("#narrow/channel/12-renamed", names), [{ operator: "channel", operand: 12 }]);
  assert.deepEqual(hashToNarrow("#narrow/stream/Verona", names), [{ operator: "channel", operand: 9 }]);
});
test("DM narrows: ids and a slug; legacy emails read too", () => {
  assert.equal(narrowToHash([{ operator: "dm", operand: [10] }], names), "#narrow/dm/10-King-Hamlet");
  assert.equal(narrowToHash([{ operator: "dm", operand: [10, 11] }], names), "#narrow/dm/10.2C11-group");
  assert.deepEqual(hashToNarrow("#narrow/dm/10.2C11-group", names), [{ operator: "dm", operand: [10, 11] }]);
  assert.deepEqual(hashToNarrow("#narrow/pm-with/hamlet.40zulip.2Ecom", names), [{ operator: "dm", operand: [10] }]);
});
test("views, negation and unknown hashes", () => {
  assert.deepEqual(hashToNarrow("#feed", names), []);
  assert.deepEqual(hashToNarrow("#all-messages", names), []);
  assert.deepEqual(hashToNarrow("#narrow/is/starred", names), [{ operator: "is", operand: "starred" }]);
  assert.deepEqual(hashToNarrow("#narrow/-is/resolved", names), [{ operator: "is", operand: "resolved", negated: true }]);
  assert.equal(hashToNarrow("#settings", names), void 0);
  assert.equal(narrowToHash([], names), "#feed");
  const s = narrowToHash([{ operator: "search", operand: "hello world" }], names);
  assert.equal(s, "#narrow/search/hello.20world");
  assert.deepEqual(hashToNarrow(s, names), [{ operator: "search", operand: "hello world" }]);
});
test("a message link ends with /near/<id>", () => {
  const link = messageLink(
    "https://chat.example",
    { id: 42, type: "stream", stream_id: 9, subject: "plans", display_recipient: "Verona" },
    names,
    10
  );
  assert.equal(link, "https://chat.example/#narrow/channel/9-Verona/topic/plans/near/42");
  assert.deepEqual(hashToNarrow(new URL(link).hash, names), [
    { operator: "channel", operand: 9 },
    { operator: "topic", operand: "plans" },
    { operator: "near", operand: 42 }
  ]);
});
