import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeHashComponent, encodeHashComponent, hashToNarrow, narrowToHash, messageLink } from "../../src/hash";

const names = {
  channelName: (id: number) => ({ 9: "Verona", 12: "core team" })[id],
  channelIdByName: (n: string) => ({ verona: 9, "core team": 12 })[n.toLowerCase()],
  userName: (id: number) => ({ 10: "King Hamlet", 11: "Othello" })[id],
  userIdByEmail: (e: string) => ({ "hamlet@zulip.com": 10, "othello@zulip.com": 11 })[e.toLowerCase()],
};

test("components use Zulip's dot encoding", () => {
  assert.equal(encodeHashComponent("rome & co."), "rome.20.26.20co.2E");
  assert.equal(decodeHashComponent("rome.20.26.20co.2E"), "rome & co.");
  for (const s of ["a/b", "✔ done", "100%", "x.y", "<script>"]) assert.equal(decodeHashComponent(encodeHashComponent(s)), s);
});

test("a channel and topic narrow is the server's link form", () => {
  const h = narrowToHash([{ operator: "channel", operand: 9 }, { operator: "topic", operand: "rome & co." }], names);
  assert.equal(h, "#narrow/channel/9-Verona/topic/rome.20.26.20co.2E");
  assert.deepEqual(hashToNarrow(h, names), [
    { operator: "channel", operand: 9 },
    { operator: "topic", operand: "rome & co." },
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
  assert.equal(hashToNarrow("#settings", names), undefined);
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
    10,
  );
  assert.equal(link, "https://chat.example/#narrow/channel/9-Verona/topic/plans/near/42");
  assert.deepEqual(hashToNarrow(new URL(link).hash, names), [
    { operator: "channel", operand: 9 },
    { operator: "topic", operand: "plans" },
    { operator: "near", operand: 42 },
  ]);
});
