// The live events the settings screens depend on: what an administrator or another tab
// changes reaches the one store (organization, channels, people, groups, one's settings).
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";

(globalThis as Record<string, unknown>).location = new URL("http://chat.test/");

const { applyEvent, loadRegister, state, inGroupSetting } = await import("../../src/store");
const { SELF } = await import("./fixtures");

beforeEach(() => {
  loadRegister({
    user_id: SELF,
    email: "me@x.com",
    full_name: "Me",
    role: 200,
    is_admin: true,
    avatar_source: "G",
    realm_name: "Old name",
    realm_description: "Old description",
    realm_invite_required: true,
    realm_emails_restricted_to_domains: false,
    realm_disallow_disposable_email_addresses: true,
    realm_domains: [{ domain: "x.com", allow_subdomains: false }],
    realm_default_streams: [9],
    realm_users: [
      { user_id: 1, email: "me@x.com", full_name: "Me", role: 200, avatar_url: "/a.png" },
      { user_id: 2, email: "hamlet@x.com", full_name: "Hamlet", role: 400, avatar_url: null },
    ],
    realm_user_groups: [
      { id: 30, name: "role:members", description: "", members: [1, 2], direct_subgroup_ids: [], is_system_group: true },
      { id: 40, name: "design", description: "Designers", members: [2], direct_subgroup_ids: [], is_system_group: false },
    ],
    streams: [{ stream_id: 9, name: "Verona", invite_only: false, description: "Italy", history_public_to_subscribers: true, can_send_message_group: 30 }],
    subscriptions: [{ stream_id: 9, name: "Verona", is_muted: false, pin_to_top: false, invite_only: false }],
    user_settings: { enter_sends: false, twenty_four_hour_time: false, enable_sounds: true, emojiset: "google" },
    unread_msgs: { streams: [], pms: [], huddles: [], mentions: [] },
  });
});

test("a realm update of the name and description reaches the store", () => {
  applyEvent({ type: "realm", op: "update", property: "name", value: "New name" });
  applyEvent({ type: "realm", op: "update", property: "description", value: "New description" });
  assert.equal(state.realm.name, "New name");
  assert.equal(state.realm.description, "New description");
});

test("a realm update_dict carries the join rules", () => {
  applyEvent({ type: "realm", op: "update_dict", property: "default", data: { invite_required: false, emails_restricted_to_domains: true } });
  assert.equal(state.realm.inviteRequired, false);
  assert.equal(state.realm.emailsRestrictedToDomains, true);
  assert.equal(state.realm.disallowDisposableEmails, true, "a setting the event does not name is kept");
});

test("register's retention period, announcement channels and night logo reach the store", () => {
  loadRegister({
    user_id: SELF,
    email: "me@x.com",
    full_name: "Me",
    realm_message_retention_days: 90,
    realm_new_stream_announcements_stream_id: 9,
    realm_signup_announcements_stream_id: -1,
    realm_night_logo_url: "/user_avatars/2/realm/night_logo.png?version=2",
    realm_night_logo_source: "U",
    unread_msgs: { streams: [], pms: [], huddles: [], mentions: [] },
  });
  assert.equal(state.realm.messageRetentionDays, 90);
  assert.equal(state.realm.newChannelAnnouncementsChannel, 9);
  assert.equal(state.realm.signupAnnouncementsChannel, -1);
  assert.equal(state.realm.nightLogoSource, "U");
});

test("realm updates carry the retention period and the announcement channels", () => {
  applyEvent({ type: "realm", op: "update", property: "message_retention_days", value: 30 });
  applyEvent({ type: "realm", op: "update", property: "new_stream_announcements_stream_id", value: 9 });
  applyEvent({ type: "realm", op: "update", property: "signup_announcements_stream_id", value: -1 });
  assert.equal(state.realm.messageRetentionDays, 30);
  assert.equal(state.realm.newChannelAnnouncementsChannel, 9);
  assert.equal(state.realm.signupAnnouncementsChannel, -1);
  applyEvent({ type: "realm", op: "update", property: "message_retention_days", value: -1 });
  assert.equal(state.realm.messageRetentionDays, -1);
});

test("a realm update_dict for the night logo changes it and leaves the day logo", () => {
  applyEvent({ type: "realm", op: "update_dict", property: "logo", data: { logo_url: "/day.png", logo_source: "U" } });
  applyEvent({ type: "realm", op: "update_dict", property: "night_logo", data: { night_logo_url: "/night.png", night_logo_source: "U" } });
  assert.equal(state.realm.nightLogoUrl, "/night.png");
  assert.equal(state.realm.nightLogoSource, "U");
  assert.equal(state.realm.logoUrl, "/day.png");
  applyEvent({ type: "realm", op: "update_dict", property: "night_logo", data: { night_logo_url: "/default.svg", night_logo_source: "D" } });
  assert.equal(state.realm.nightLogoSource, "D");
  assert.equal(state.realm.logoSource, "U");
});

test("a renamed channel is renamed in the channel list and the sidebar's subscription", () => {
  applyEvent({ type: "stream", op: "update", stream_id: 9, name: "Verona", property: "name", value: "Padua" });
  assert.equal(state.channels.get(9)!.name, "Padua");
  assert.equal(state.subs.get(9)!.name, "Padua");
});

test("a channel made private takes the history setting sent beside invite_only", () => {
  applyEvent({ type: "stream", op: "update", stream_id: 9, name: "Verona", property: "invite_only", value: true, history_public_to_subscribers: false, is_web_public: false });
  const c = state.channels.get(9)!;
  assert.equal(c.invite_only, true);
  assert.equal(c.history_public_to_subscribers, false);
  assert.equal(state.subs.get(9)!.invite_only, true);
});

test("a channel's description and permission groups follow stream updates", () => {
  applyEvent({ type: "stream", op: "update", stream_id: 9, name: "Verona", property: "description", value: "Fair", rendered_description: "<p>Fair</p>" });
  applyEvent({ type: "stream", op: "update", stream_id: 9, name: "Verona", property: "can_send_message_group", value: 40 });
  applyEvent({ type: "stream", op: "update", stream_id: 9, name: "Verona", property: "can_administer_channel_group", value: { new: 30, old: 8 } });
  const c = state.channels.get(9)!;
  assert.equal(c.description, "Fair");
  assert.equal(c.can_send_message_group, 40);
  assert.equal(c.can_administer_channel_group, 30);
});

test("every channel permission group and the retention period follow stream updates", () => {
  const c0 = state.channels.get(9)!;
  assert.equal(c0.can_add_subscribers_group, null, "a setting register left out is null");
  assert.equal(c0.message_retention_days, null, "no period of its own: the organization's");
  applyEvent({ type: "stream", op: "update", stream_id: 9, name: "Verona", property: "can_add_subscribers_group", value: 40 });
  applyEvent({ type: "stream", op: "update", stream_id: 9, name: "Verona", property: "can_delete_own_message_group", value: { new: 30, old: 40 } });
  applyEvent({ type: "stream", op: "update", stream_id: 9, name: "Verona", property: "message_retention_days", value: 14 });
  const c = state.channels.get(9)!;
  assert.equal(c.can_add_subscribers_group, 40);
  assert.equal(c.can_delete_own_message_group, 30);
  assert.equal(c.message_retention_days, 14);
  applyEvent({ type: "stream", op: "update", stream_id: 9, name: "Verona", property: "message_retention_days", value: null });
  assert.equal(state.channels.get(9)!.message_retention_days, null);
});

test("an archived channel (stream delete) leaves the lists and the default channels", () => {
  applyEvent({ type: "stream", op: "delete", streams: [{ stream_id: 9, name: "Verona" }], stream_ids: [9] });
  assert.equal(state.channels.has(9), false);
  assert.equal(state.subs.has(9), false);
  assert.deepEqual(state.realm.defaultChannels, []);
});

test("default_streams replaces the default channels, as ids or channel objects", () => {
  applyEvent({ type: "default_streams", default_streams: [9, 12] });
  assert.deepEqual(state.realm.defaultChannels, [9, 12]);
  applyEvent({ type: "default_streams", default_streams: [{ stream_id: 12, name: "Denmark" }] });
  assert.deepEqual(state.realm.defaultChannels, [12]);
});

test("realm_domains adds, changes and removes allowed domains", () => {
  applyEvent({ type: "realm_domains", op: "add", realm_domain: { domain: "a.org", allow_subdomains: false } });
  applyEvent({ type: "realm_domains", op: "change", realm_domain: { domain: "a.org", allow_subdomains: true } });
  applyEvent({ type: "realm_domains", op: "remove", domain: "x.com" });
  assert.deepEqual(state.realm.domains, [{ domain: "a.org", allow_subdomains: true }]);
});

test("a new avatar (realm_user update) replaces the person's avatar_url", () => {
  applyEvent({ type: "realm_user", op: "update", person: { user_id: 2, avatar_url: "/user_avatars/2/new.png", avatar_source: "U", avatar_version: 2 } });
  assert.equal(state.users.get(2)!.avatar_url, "/user_avatars/2/new.png");
  assert.equal(state.users.get(2)!.full_name, "Hamlet", "the rest of the person is kept");
});

test("our own avatar source and role follow realm_user updates", () => {
  applyEvent({ type: "realm_user", op: "update", person: { user_id: SELF, avatar_source: "U", avatar_url: "/user_avatars/1/x.png" } });
  assert.equal(state.self.avatar_source, "U");
  applyEvent({ type: "realm_user", op: "update", person: { user_id: SELF, role: 400 } });
  assert.equal(state.self.is_admin, false);
  assert.equal(state.self.role, 400);
});

test("user_group events rename a group and change its members", () => {
  applyEvent({ type: "user_group", op: "update", group_id: 40, data: { name: "ux" } });
  applyEvent({ type: "user_group", op: "add_members", group_id: 40, user_ids: [1] });
  applyEvent({ type: "user_group", op: "remove_members", group_id: 40, user_ids: [2] });
  const g = state.groups.get(40)!;
  assert.equal(g.name, "ux");
  assert.equal(g.description, "Designers");
  assert.deepEqual(g.members, [1]);
  assert.equal(inGroupSetting(40, SELF, false), true, "permissions read the live membership");
});

test("user_group add and remove create and drop groups", () => {
  applyEvent({ type: "user_group", op: "add", group: { id: 50, name: "ops", description: "", members: [2], direct_subgroup_ids: [40], is_system_group: false } });
  assert.equal(state.groups.get(50)!.name, "ops");
  applyEvent({ type: "user_group", op: "add_subgroups", group_id: 50, direct_subgroup_ids: [30] });
  assert.deepEqual(state.groups.get(50)!.direct_subgroup_ids, [40, 30]);
  applyEvent({ type: "user_group", op: "remove", group_id: 50 });
  assert.equal(state.groups.has(50), false);
});

test("user_settings updates any of the person's settings", () => {
  applyEvent({ type: "user_settings", op: "update", property: "enable_sounds", value: false });
  applyEvent({ type: "user_settings", op: "update", property: "emojiset", value: "twitter" });
  assert.equal(state.settings.enable_sounds, false);
  assert.equal(state.settings.emojiset, "twitter");
});
