// test/unit/narrow.test.ts
import { test } from "node:test";
import assert from "node:assert/strict";

// src/narrow.ts
var RESOLVED_PREFIX = "\u2714 ";
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
function operandIds(t) {
  if (Array.isArray(t.operand)) return [...t.operand].sort((a, b) => a - b);
  return String(t.operand).split(",").filter((s) => s !== "").map(Number).sort((a, b) => a - b);
}
function channelOperandId(t, ctx2) {
  if (typeof t.operand === "number") return t.operand;
  const s = String(t.operand);
  if (/^\d+$/.test(s)) return Number(s);
  return ctx2.channelIdByName?.(s);
}
function textOf(html) {
  return html.replace(/<[^>]*>/g, " ").replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}
function messageMatches(msg, narrow, ctx2) {
  let unknown = false;
  for (const t of narrow) {
    const r = termMatches(msg, t, ctx2);
    if (r === void 0) {
      unknown = true;
      continue;
    }
    if (r === !!t.negated) return false;
  }
  return unknown ? void 0 : true;
}
function termMatches(msg, t, ctx2) {
  const operand = typeof t.operand === "string" ? t.operand : "";
  switch (t.operator) {
    case "channel":
    case "stream":
      return msg.type === "stream" && msg.stream_id === channelOperandId(t, ctx2);
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
        const ids = t.operand.split(",").map((e) => ctx2.userIdByEmail?.(e.trim().toLowerCase()));
        if (ids.some((x) => x === void 0)) return false;
        want = ids.sort((a, b) => a - b);
      }
      want = want.filter((id) => id !== ctx2.selfId);
      if (want.length === 0) want = [ctx2.selfId];
      const have = dmPartners(msg, ctx2.selfId);
      return have.length === want.length && have.every((id, i) => id === want[i]);
    }
    case "dm-including":
      return msg.type === "private" && operandIds(t).every((id) => dmUserIds(msg).includes(id));
    case "sender": {
      if (typeof t.operand === "number") return msg.sender_id === t.operand;
      if (/^\d+$/.test(operand)) return msg.sender_id === Number(operand);
      if (operand === "me") return msg.sender_id === ctx2.selfId;
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

// test/unit/narrow.test.ts
var ctx = { selfId: SELF, userIdByEmail: (e) => ({ "hamlet@x.com": 2, "othello@x.com": 3 })[e] };
test("channel and topic (topics compare case-insensitively)", () => {
  const m = streamMsg(9, "Lunch");
  assert.equal(messageMatches(m, [{ operator: "channel", operand: 9 }], ctx), true);
  assert.equal(messageMatches(m, [{ operator: "channel", operand: 10 }], ctx), false);
  assert.equal(messageMatches(m, [{ operator: "channel", operand: 9 }, { operator: "topic", operand: "lunch" }], ctx), true);
  assert.equal(messageMatches(m, [{ operator: "channel", operand: 9 }, { operator: "topic", operand: "dinner" }], ctx), false);
  assert.equal(messageMatches(dmMsg([1, 2]), [{ operator: "channel", operand: 9 }], ctx), false);
});
test("the empty narrow takes everything", () => {
  assert.equal(messageMatches(streamMsg(9, "x"), [], ctx), true);
  assert.equal(messageMatches(dmMsg([1, 2]), [], ctx), true);
});
test("DM narrows match the exact set of people, with or without oneself", () => {
  const one = dmMsg([1, 2]);
  const group = dmMsg([1, 2, 3]);
  assert.equal(messageMatches(one, [{ operator: "dm", operand: [2] }], ctx), true);
  assert.equal(messageMatches(one, [{ operator: "dm", operand: [1, 2] }], ctx), true);
  assert.equal(messageMatches(group, [{ operator: "dm", operand: [2] }], ctx), false);
  assert.equal(messageMatches(group, [{ operator: "dm", operand: [3, 2] }], ctx), true);
  assert.equal(messageMatches(one, [{ operator: "dm", operand: "hamlet@x.com" }], ctx), true);
  const self = dmMsg([1]);
  assert.equal(messageMatches(self, [{ operator: "dm", operand: [1] }], ctx), true);
  assert.equal(messageMatches(self, [{ operator: "dm", operand: [2] }], ctx), false);
  assert.equal(messageMatches(one, [{ operator: "is", operand: "dm" }], ctx), true);
  assert.equal(messageMatches(streamMsg(9, "x"), [{ operator: "is", operand: "dm" }], ctx), false);
});
test("sender, starred, mentioned, unread, resolved, and negation", () => {
  const m = streamMsg(9, "\u2714 fixed", { flags: ["starred", "wildcard_mentioned"] });
  assert.equal(messageMatches(m, [{ operator: "sender", operand: 2 }], ctx), true);
  assert.equal(messageMatches(m, [{ operator: "sender", operand: "HAMLET@x.com" }], ctx), true);
  assert.equal(messageMatches(m, [{ operator: "sender", operand: "me" }], ctx), false);
  assert.equal(messageMatches(m, [{ operator: "is", operand: "starred" }], ctx), true);
  assert.equal(messageMatches(m, [{ operator: "is", operand: "mentioned" }], ctx), true);
  assert.equal(messageMatches(m, [{ operator: "is", operand: "unread" }], ctx), true);
  assert.equal(messageMatches(m, [{ operator: "is", operand: "resolved" }], ctx), true);
  assert.equal(messageMatches(m, [{ operator: "is", operand: "resolved", negated: true }], ctx), false);
  assert.equal(messageMatches(streamMsg(9, "open"), [{ operator: "is", operand: "starred" }], ctx), false);
});
test("full-text search is left to the server unless a word is plainly missing", () => {
  const m = streamMsg(9, "x", { content: "<p>The quick fox</p>" });
  assert.equal(messageMatches(m, [{ operator: "search", operand: "quick" }], ctx), void 0);
  assert.equal(messageMatches(m, [{ operator: "search", operand: "zebra" }], ctx), false);
  assert.equal(messageMatches(m, [{ operator: "channel", operand: 10 }, { operator: "search", operand: "quick" }], ctx), false);
});
test("has: from the rendered content and reactions", () => {
  const img = streamMsg(9, "x", { content: '<p><a href="/user_uploads/1/a.png">a.png</a></p><div class="message_inline_image"></div>' });
  assert.equal(messageMatches(img, [{ operator: "has", operand: "image" }], ctx), true);
  assert.equal(messageMatches(img, [{ operator: "has", operand: "attachment" }], ctx), true);
  assert.equal(messageMatches(img, [{ operator: "has", operand: "reaction" }], ctx), false);
});
