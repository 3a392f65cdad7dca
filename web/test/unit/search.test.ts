import { test } from "node:test";
import assert from "node:assert/strict";
import { narrowToSearch, parseSearch } from "../../src/search";

const names = {
  channelIdByName: (n: string) => ({ verona: 9, "core team": 12 })[n.toLowerCase()],
  channelName: (id: number) => ({ 9: "Verona", 12: "core team" })[id],
  userIdByEmail: (e: string) => ({ "hamlet@zulip.com": 10, "othello@zulip.com": 11 })[e],
  userEmail: (id: number) => ({ 10: "hamlet@zulip.com", 11: "othello@zulip.com" })[id],
};

test("operators become terms; channel names become ids", () => {
  assert.deepEqual(parseSearch("channel:Verona topic:lunch", names), [
    { operator: "channel", operand: 9 },
    { operator: "topic", operand: "lunch" },
  ]);
});

test("free words gather into one search term, wherever they are", () => {
  assert.deepEqual(parseSearch("hello channel:verona world", names), [
    { operator: "channel", operand: 9 },
    { operator: "search", operand: "hello world" },
  ]);
});

test("quoted operands and + for spaces", () => {
  assert.deepEqual(parseSearch('channel:"core team" topic:"two words"', names), [
    { operator: "channel", operand: 12 },
    { operator: "topic", operand: "two words" },
  ]);
  assert.deepEqual(parseSearch("topic:my+topic", names), [{ operator: "topic", operand: "my topic" }]);
});

test("sender, dm, is, has and negation", () => {
  assert.deepEqual(parseSearch("sender:hamlet@zulip.com is:starred -has:link is:private", names), [
    { operator: "sender", operand: 10 },
    { operator: "is", operand: "starred" },
    { operator: "has", operand: "link", negated: true },
    { operator: "is", operand: "dm" },
  ]);
  assert.deepEqual(parseSearch("sender:me", names), [{ operator: "sender", operand: "me" }]);
  assert.deepEqual(parseSearch("dm:hamlet@zulip.com,othello@zulip.com", names), [{ operator: "dm", operand: [10, 11] }]);
});

test("legacy operator names are folded", () => {
  assert.deepEqual(parseSearch("stream:Verona subject:x pm-with:hamlet@zulip.com", names), [
    { operator: "channel", operand: 9 },
    { operator: "topic", operand: "x" },
    { operator: "dm", operand: [10] },
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
