// What the settings screens send: PATCH /streams/{id} with only the settings that changed,
// in Zulip's shapes (a group as {new}, a retention period as days, "unlimited" or
// "realm_default"), and PATCH /realm's retention period as JSON.
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";

(globalThis as Record<string, unknown>).location = new URL("http://chat.test/");
(globalThis as Record<string, unknown>).document = { cookie: "csrftoken=t" };

const sent: { url: string; method: string; body: URLSearchParams }[] = [];
globalThis.fetch = (async (url: string, init: RequestInit) => {
  sent.push({ url, method: String(init.method), body: init.body as URLSearchParams });
  return new Response(JSON.stringify({ result: "success", msg: "" }), { headers: { "Content-Type": "application/json" } });
}) as typeof fetch;

const { updateChannel, setRealmRetention, retentionParam } = await import("../../src/settingsActions");
import type { Channel } from "../../src/types";

const channel: Channel = {
  stream_id: 9,
  name: "Verona",
  description: "",
  invite_only: false,
  history_public_to_subscribers: true,
  can_send_message_group: 11,
  can_add_subscribers_group: 12,
  can_delete_own_message_group: 12,
  message_retention_days: null,
};

beforeEach(() => {
  sent.length = 0;
});

test("a retention period goes as days, unlimited or realm_default", () => {
  assert.equal(retentionParam(30), "30");
  assert.equal(retentionParam(-1), "unlimited");
  assert.equal(retentionParam(null), "realm_default");
});

test("a channel change sends only the groups and period that differ", async () => {
  await updateChannel(channel, {
    name: "Verona",
    groups: { can_send_message_group: 11, can_add_subscribers_group: 13, can_delete_own_message_group: 12, can_resolve_topics_group: 14 },
    retention: 7,
  });
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.url, "/api/v1/streams/9");
  assert.equal(sent[0]!.method, "PATCH");
  assert.deepEqual(Object.fromEntries(sent[0]!.body), {
    can_add_subscribers_group: JSON.stringify({ new: 13 }),
    can_resolve_topics_group: JSON.stringify({ new: 14 }),
    message_retention_days: "7",
  });
});

test("an unchanged channel sends nothing, and the organization's period is kept as null", async () => {
  await updateChannel(channel, { name: "Verona", groups: { can_send_message_group: 11 }, retention: null });
  assert.equal(sent.length, 0);
});

test("the organization's retention period is JSON: a number of days or \"unlimited\"", async () => {
  await setRealmRetention(-1);
  await setRealmRetention(90);
  assert.deepEqual(
    sent.map((s) => s.body.get("message_retention_days")),
    ['"unlimited"', "90"],
  );
});
