import { test } from "node:test";
import assert from "node:assert/strict";
import { messageMatches } from "../../src/narrow";
import { SELF, dmMsg, streamMsg } from "./fixtures";

const ctx = { selfId: SELF, userIdByEmail: (e: string) => ({ "hamlet@x.com": 2, "othello@x.com": 3 })[e] };

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
  const m = streamMsg(9, "✔ fixed", { flags: ["starred", "wildcard_mentioned"] });
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
  assert.equal(messageMatches(m, [{ operator: "search", operand: "quick" }], ctx), undefined);
  assert.equal(messageMatches(m, [{ operator: "search", operand: "zebra" }], ctx), false);
  assert.equal(messageMatches(m, [{ operator: "channel", operand: 10 }, { operator: "search", operand: "quick" }], ctx), false);
});

test("has: from the rendered content and reactions", () => {
  const img = streamMsg(9, "x", { content: '<p><a href="/user_uploads/1/a.png">a.png</a></p><div class="message_inline_image"></div>' });
  assert.equal(messageMatches(img, [{ operator: "has", operand: "image" }], ctx), true);
  assert.equal(messageMatches(img, [{ operator: "has", operand: "attachment" }], ctx), true);
  assert.equal(messageMatches(img, [{ operator: "has", operand: "reaction" }], ctx), false);
});
