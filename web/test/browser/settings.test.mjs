// The settings screens: an administrator renames a channel, makes it private and archives
// it; a person uploads an avatar and changes their password. Each time a second person's
// browser shows the change live (their sidebar, the avatar beside the messages, the
// organization icon in the top bar).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { deflateSync, crc32 } from "node:zlib";
import {
  SERVER, launch, close, person, shot, suffix, api,
  signInWithDevLogin, signInWithPassword, createChannel, sendToChannel,
  channelsNav, messageArticle, openChannel, eventually,
} from "./helpers.mjs";

before(launch);
after(close);

const T = { timeout: 120000 };

/** A small PNG of one colour, built here (no image files in the repository). */
function png(size, [r, g, b]) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => [r, g, b]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: size }, () => row)));
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header), chunk("IDAT", pixels), chunk("IEND", Buffer.alloc(0))]);
}

async function openSettings(page, screen) {
  await page.getByRole("banner").getByRole("link", { name: "Settings", exact: true }).click();
  await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: screen, exact: true }).click();
  await page.getByRole("region", { name: screen, exact: true }).getByRole("heading", { name: screen, level: 2 }).waitFor();
}

/** The settings form of `channel`, chosen in the Channels screen. */
async function openChannelSettings(page, channel) {
  await openSettings(page, "Channels");
  await page.getByRole("combobox", { name: "Channel", exact: true }).selectOption({ label: `#${channel}` });
  return page.getByRole("form", { name: `Settings of #${channel}` });
}

test("an administrator renames a channel, makes it private and archives it; a member sees each live", T, async () => {
  const s = suffix();
  const channel = `Admin ${s}`;
  const renamed = `Renamed ${s}`;
  const streamId = await createChannel("iago@zulip.com", channel, ["iago@zulip.com", "cordelia@zulip.com"]);
  const admin = await person();
  const member = await person();
  try {
    await signInWithDevLogin(admin.page, "iago@zulip.com");
    await signInWithDevLogin(member.page, "cordelia@zulip.com");
    const memberNav = channelsNav(member.page);
    await memberNav.getByRole("link", { name: channel, exact: true }).waitFor();

    await openSettings(admin.page, "Channels");
    await admin.page.getByRole("combobox", { name: "Channel", exact: true }).selectOption({ label: `#${channel}` });
    const form = admin.page.getByRole("form", { name: `Settings of #${channel}` });
    await form.getByRole("textbox", { name: "Channel name" }).fill(renamed);
    await form.getByRole("textbox", { name: "Channel description" }).fill(`About ${s}`);
    await form.getByRole("button", { name: "Save changes" }).click();
    await memberNav.getByRole("link", { name: renamed, exact: true }).waitFor();
    assert.equal(await memberNav.getByRole("link", { name: channel, exact: true }).count(), 0);
    await shot(admin.page, "40-settings-channel-renamed");

    // Private, with shared history: the member's sidebar marks it.
    const renamedForm = admin.page.getByRole("form", { name: `Settings of #${renamed}` });
    await renamedForm.getByRole("combobox", { name: "Who can access the channel" }).selectOption("private-shared");
    await renamedForm.getByRole("button", { name: "Save changes" }).click();
    const row = memberNav.getByRole("listitem").filter({ has: member.page.getByRole("link", { name: renamed, exact: true }) });
    await row.getByRole("img", { name: "Private channel" }).waitFor();
    const after = (await api("iago@zulip.com", "GET", `streams/${streamId}`)).stream;
    assert.equal(after.invite_only, true);
    assert.equal(after.history_public_to_subscribers, true);
    assert.equal(after.description, `About ${s}`);
    await shot(member.page, "41-settings-member-sees-private");

    // Archived: gone from the member's sidebar and from the administrator's list.
    await renamedForm.getByRole("button", { name: "Archive channel" }).click();
    await admin.page.getByRole("alertdialog", { name: `Archive #${renamed}?` }).getByRole("button", { name: "Archive", exact: true }).click();
    await memberNav.getByRole("link", { name: renamed, exact: true }).waitFor({ state: "detached" });
    const choices = await admin.page.getByRole("combobox", { name: "Channel", exact: true }).getByRole("option").allTextContents();
    assert.ok(!choices.some((c) => c.includes(renamed)), "the archived channel is no longer listed");
    await shot(admin.page, "42-settings-channel-archived");
    assert.deepEqual(admin.page.errors, []);
    assert.deepEqual(member.page.errors, []);
  } finally {
    await admin.context.close();
    await member.context.close();
  }
});

test("a member does not see the organization's settings", T, async () => {
  const { context, page } = await person();
  try {
    await signInWithDevLogin(page, "cordelia@zulip.com");
    await openSettings(page, "Profile");
    const sections = page.getByRole("navigation", { name: "Settings sections" });
    await sections.getByRole("link", { name: "Notifications", exact: true }).waitFor();
    assert.equal(await sections.getByRole("link", { name: "Channels", exact: true }).count(), 0);
    // An organization screen's address shows the person's own profile instead.
    await page.goto(page.url().replace(/#.*/, "#organization/channels"));
    await page.getByRole("region", { name: "Profile", exact: true }).getByRole("heading", { name: "Profile", level: 2 }).waitFor();
  } finally {
    await context.close();
  }
});

test("a person uploads an avatar, renames themself and changes their password; another person sees the avatar and name live", T, async () => {
  const s = suffix();
  const address = `settings-${s}@zulip.com`;
  const fullName = `Avatar Person ${s}`;
  const oldPassword = "an-old-passphrase-9";
  const newPassword = `a-new-passphrase-${s}`;
  await api("iago@zulip.com", "POST", "users", { email: address, password: oldPassword, full_name: fullName });
  const channel = `Faces ${s}`;
  await createChannel("iago@zulip.com", channel, [address, "othello@zulip.com"]);
  await sendToChannel(address, channel, "hello", `hello from ${s}`);
  const alice = await person();
  const bob = await person();
  try {
    await signInWithPassword(alice.page, address, oldPassword);
    await signInWithDevLogin(bob.page, "othello@zulip.com");
    await openChannel(bob.page, channel);
    const avatarSeenByBob = messageArticle(bob.page, `hello from ${s}`).getByRole("img", { name: `Avatar of ${fullName}` });
    await avatarSeenByBob.waitFor();

    await openSettings(alice.page, "Profile");
    const chooser = alice.page.waitForEvent("filechooser");
    await alice.page.getByRole("button", { name: "Upload avatar" }).click();
    await (await chooser).setFiles({ name: "me.png", mimeType: "image/png", buffer: png(64, [214, 90, 49]) });
    await alice.page.getByRole("status").filter({ hasText: "Avatar uploaded" }).waitFor();
    await alice.page.getByRole("button", { name: "Delete avatar" }).waitFor();
    const own = alice.page.getByRole("img", { name: "Your avatar" });
    await eventually(async () => /\/user_avatars\//.test((await own.getAttribute("src")) ?? ""), { message: "own avatar shown" });

    // Bob's browser shows the uploaded image beside Alice's message, loaded, without a reload.
    await eventually(
      async () => avatarSeenByBob.evaluate((el) => el.tagName === "IMG" && /\/user_avatars\//.test(el.src) && el.complete && el.naturalWidth === 64),
      { message: "the new avatar in the other browser" },
    );
    await shot(alice.page, "43-settings-avatar");
    await shot(bob.page, "44-settings-avatar-seen");

    // A new name reaches Bob's message list too.
    await alice.page.getByRole("textbox", { name: "Full name" }).fill(`Renamed ${fullName}`);
    await alice.page.getByRole("button", { name: "Save name" }).click();
    await bob.page.getByRole("article", { name: new RegExp(`^Renamed ${fullName}, `) }).waitFor();

    // The password: a wrong current password is refused with Zulip's message.
    await alice.page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Account and password" }).click();
    await alice.page.getByLabel("Current password", { exact: true }).fill("not-my-password");
    await alice.page.getByLabel("New password", { exact: true }).fill(newPassword);
    await alice.page.getByRole("button", { name: "Change password" }).click();
    await alice.page.getByRole("alert").filter({ hasText: "Wrong password!" }).waitFor();
    await shot(alice.page, "45-settings-password-refused");
    await alice.page.getByLabel("Current password", { exact: true }).fill(oldPassword);
    await alice.page.getByLabel("New password", { exact: true }).fill(newPassword);
    await alice.page.getByRole("button", { name: "Change password" }).click();
    await alice.page.getByRole("status").filter({ hasText: "Your password has been changed." }).waitFor();
    assert.deepEqual(alice.page.errors, []);
    assert.deepEqual(bob.page.errors, []);
  } finally {
    await alice.context.close();
    await bob.context.close();
  }
  const fresh = await person();
  try {
    await signInWithPassword(fresh.page, address, newPassword);
  } finally {
    await fresh.context.close();
  }
  const refused = await person();
  try {
    await refused.page.goto(`${SERVER}/login/`);
    await refused.page.getByLabel("Email", { exact: true }).fill(address);
    await refused.page.getByLabel("Password", { exact: true }).fill(oldPassword);
    await refused.page.getByRole("button", { name: "Log in", exact: true }).click();
    await refused.page.getByRole("alert").waitFor();
    assert.equal(await refused.page.getByRole("button", { name: "Log out", exact: true }).count(), 0);
  } finally {
    await refused.context.close();
  }
});

/** Controls in an accessibility snapshot that have no accessible name. */
function unnamedControls(snapshot) {
  return snapshot.split("\n").filter((l) => /^\s*- (textbox|combobox|checkbox|button|radio|searchbox|spinbutton|link)(\s*\[[^\]]*\])*\s*(:.*)?$/.test(l));
}

test("every settings screen has a heading and names every control", T, async () => {
  await api("iago@zulip.com", "POST", "user_groups/create", { name: `screens ${suffix()}`, description: "For the screenshot", members: [] });
  const { context, page } = await person();
  const screens = [
    "Profile", "Account and password", "Notifications", "Display",
    "Organization profile", "Organization settings", "Join rules", "Channels", "Default channels", "Users", "Groups",
  ];
  try {
    await signInWithDevLogin(page, "iago@zulip.com");
    for (const [i, screen] of screens.entries()) {
      await openSettings(page, screen);
      const region = page.getByRole("region", { name: screen, exact: true });
      if (screen === "Channels") await region.getByRole("combobox", { name: "Channel", exact: true }).selectOption({ label: "#Verona" });
      if (screen === "Groups") await region.getByRole("combobox", { name: "Group", exact: true }).selectOption({ index: 1 });
      const unnamed = unnamedControls(await page.getByRole("main").ariaSnapshot());
      assert.deepEqual(unnamed, [], `unnamed controls on ${screen}`);
      await shot(page, `46-settings-${String(i).padStart(2, "0")}-${screen.toLowerCase().replace(/ /g, "-")}`);
    }
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
  }
});

test("the organization's new name reaches a member's browser live", T, async () => {
  const s = suffix();
  const original = (await api("iago@zulip.com", "POST", "register", { fetch_event_types: ["realm"] })).realm_name;
  const admin = await person();
  const member = await person();
  try {
    await signInWithDevLogin(admin.page, "iago@zulip.com");
    await signInWithDevLogin(member.page, "hamlet@zulip.com");
    await openSettings(admin.page, "Organization profile");
    await admin.page.getByRole("textbox", { name: "Organization name" }).fill(`Renamed org ${s}`);
    await admin.page.getByRole("textbox", { name: "Organization description" }).fill(`What we do, ${s}`);
    await admin.page.getByRole("button", { name: "Save changes" }).click();
    await member.page.getByRole("banner").getByRole("link", { name: `Renamed org ${s}` }).waitFor();
    const after = await api("hamlet@zulip.com", "POST", "register", { fetch_event_types: ["realm"] });
    assert.equal(after.realm_description, `What we do, ${s}`);
  } finally {
    await admin.context.close();
    await member.context.close();
    // Other tests read the organization's name.
    await api("iago@zulip.com", "PATCH", "realm", { name: original });
  }
});

test("an administrator manages default channels, roles, deactivation and groups", T, async () => {
  const s = suffix();
  const address = `managed-${s}@zulip.com`;
  const fullName = `Managed ${s}`;
  await api("iago@zulip.com", "POST", "users", { email: address, password: "a-passphrase-for-managed-1", full_name: fullName });
  const target = (await api("iago@zulip.com", "GET", `users/${address}`)).user.user_id;
  const channel = `Default ${s}`;
  const streamId = await createChannel("iago@zulip.com", channel, ["iago@zulip.com"]);
  const { context, page } = await person();
  try {
    await signInWithDevLogin(page, "iago@zulip.com");

    await openSettings(page, "Default channels");
    await page.getByRole("combobox", { name: "Channel to add" }).selectOption({ label: `#${channel}` });
    await page.getByRole("button", { name: "Add default channel" }).click();
    const defaults = page.getByRole("list", { name: "Default channels" });
    await defaults.getByRole("button", { name: `Remove #${channel}` }).waitFor();
    const listed = await api("iago@zulip.com", "GET", "streams", { include_default: "true" });
    assert.equal(listed.streams.find((c) => c.stream_id === streamId).is_default, true);
    await defaults.getByRole("button", { name: `Remove #${channel}` }).click();
    await defaults.getByRole("button", { name: `Remove #${channel}` }).waitFor({ state: "detached" });

    await openSettings(page, "Users");
    await page.getByRole("searchbox", { name: "Filter people" }).fill(s);
    await page.getByRole("combobox", { name: `Role of ${fullName}` }).selectOption({ label: "Moderator" });
    await page.getByRole("status").filter({ hasText: `${fullName}'s role changed` }).waitFor();
    assert.equal((await api("iago@zulip.com", "GET", `users/${target}`)).user.role, 300);
    await page.getByRole("button", { name: `Deactivate ${fullName}` }).click();
    await page.getByRole("alertdialog", { name: `Deactivate ${fullName}?` }).getByRole("button", { name: "Deactivate", exact: true }).click();
    await page.getByRole("button", { name: `Reactivate ${fullName}` }).waitFor();
    assert.equal((await api("iago@zulip.com", "GET", `users/${target}`)).user.is_active, false);
    await shot(page, "47-settings-user-deactivated");
    await page.getByRole("button", { name: `Reactivate ${fullName}` }).click();
    await page.getByRole("button", { name: `Deactivate ${fullName}` }).waitFor();

    await openSettings(page, "Groups");
    await page.getByRole("textbox", { name: "Name of the new group" }).fill(`crew ${s}`);
    await page.getByRole("textbox", { name: "Description of the new group" }).fill("First");
    await page.getByRole("button", { name: "Create group" }).click();
    const form = page.getByRole("form", { name: `Settings of the group crew ${s}` });
    await form.waitFor();
    await form.getByRole("textbox", { name: "Group name" }).fill(`team ${s}`);
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("form", { name: `Settings of the group team ${s}` }).waitFor();
    await page.getByRole("combobox", { name: "Person to add" }).selectOption({ label: fullName });
    await page.getByRole("button", { name: "Add member" }).click();
    await page.getByRole("list", { name: `Members of team ${s}` }).getByRole("button", { name: `Remove ${fullName}` }).waitFor();
    const groups = (await api("iago@zulip.com", "GET", "user_groups")).user_groups;
    const g = groups.find((x) => x.name === `team ${s}`);
    assert.ok(g && g.members.includes(target), "the renamed group holds the new member");
    await shot(page, "48-settings-group");
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
  }
});

test("a join rule toggled by an administrator is saved and shown to their other tab", T, async () => {
  const realm = async () => api("iago@zulip.com", "POST", "register", { fetch_event_types: ["realm"] });
  const before = (await realm()).realm_disallow_disposable_email_addresses;
  const { context, page } = await person();
  const other = await context.newPage();
  try {
    await signInWithDevLogin(page, "iago@zulip.com");
    await openSettings(page, "Join rules");
    await other.goto(page.url());
    const label = "Don't allow disposable email addresses";
    const mirror = other.getByRole("checkbox", { name: label });
    assert.equal(await mirror.isChecked(), before);
    await page.getByRole("checkbox", { name: label }).setChecked(!before);
    await eventually(async () => (await mirror.isChecked()) === !before, { message: "the other tab follows" });
    assert.equal((await realm()).realm_disallow_disposable_email_addresses, !before);
    assert.equal(await page.getByRole("checkbox", { name: label }).isChecked(), !before);
  } finally {
    await context.close();
    await api("iago@zulip.com", "PATCH", "realm", { disallow_disposable_email_addresses: String(before) });
  }
});

test("notification and display settings are saved and kept after a reload", T, async () => {
  const s = suffix();
  const address = `prefs-${s}@zulip.com`;
  await api("iago@zulip.com", "POST", "users", { email: address, password: "a-passphrase-for-prefs-1", full_name: `Prefs ${s}` });
  const { context, page } = await person();
  try {
    await signInWithPassword(page, address, "a-passphrase-for-prefs-1");
    await openSettings(page, "Notifications");
    const sounds = page.getByRole("checkbox", { name: "Sounds", exact: true });
    assert.equal(await sounds.isChecked(), true);
    await sounds.uncheck();
    await openSettings(page, "Display");
    await page.getByRole("combobox", { name: "Time format" }).selectOption({ label: "24-hour (15:00)" });
    await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    const r = await api(address, "POST", "register", { fetch_event_types: ["user_settings"] });
    assert.equal(r.user_settings.enable_sounds, false);
    assert.equal(r.user_settings.twenty_four_hour_time, true);
    await page.reload();
    await page.getByRole("region", { name: "Display", exact: true }).waitFor();
    assert.equal(await page.getByRole("combobox", { name: "Time format" }).inputValue(), "true");
  } finally {
    await context.close();
  }
});

test("an administrator uploads the organization icon; another person's top bar shows it live, and its removal too", T, async () => {
  const realmName = (await api("hamlet@zulip.com", "POST", "register", { fetch_event_types: ["realm"] })).realm_name;
  const admin = await person();
  const member = await person();
  try {
    await signInWithDevLogin(admin.page, "iago@zulip.com");
    await signInWithDevLogin(member.page, "hamlet@zulip.com");
    const icon = member.page.getByRole("banner").getByRole("img", { name: `${realmName} icon`, exact: true });

    await openSettings(admin.page, "Organization profile");
    const region = admin.page.getByRole("region", { name: "Organization icon", exact: true });
    await region.getByLabel("Upload icon", { exact: true }).setInputFiles({ name: "icon.png", mimeType: "image/png", buffer: png(48, [46, 139, 87]) });
    await region.getByRole("status").filter({ hasText: "Organization icon uploaded" }).waitFor();
    await region.getByRole("button", { name: "Remove icon", exact: true }).waitFor();
    const r = await api("iago@zulip.com", "POST", "register", { fetch_event_types: ["realm"] });
    assert.equal(r.realm_icon_source, "U");
    await eventually(
      async () => (await icon.count()) === 1 && icon.evaluate((el, url) => el.src.endsWith(url) && el.complete && el.naturalWidth === 48, r.realm_icon_url),
      { message: "the new icon in the other browser's top bar" },
    );
    await shot(admin.page, "49-settings-organization-icon");
    await shot(member.page, "50-settings-organization-icon-seen");

    // Removed: back to the default, and the other browser's top bar drops the uploaded icon.
    await region.getByRole("button", { name: "Remove icon", exact: true }).click();
    await region.getByRole("status").filter({ hasText: "Organization icon removed" }).waitFor();
    await eventually(async () => (await icon.count()) === 0, { message: "the uploaded icon gone from the other browser's top bar" });
    assert.equal((await api("iago@zulip.com", "POST", "register", { fetch_event_types: ["realm"] })).realm_icon_source, "G");
  } finally {
    await admin.context.close();
    await member.context.close();
  }
});

/** The id of a role group (`role:moderators`, …), as the API names it. */
async function systemGroupId(name) {
  const groups = (await api("iago@zulip.com", "GET", "user_groups")).user_groups;
  return groups.find((g) => g.name === name).id;
}

const realmOf = async (email = "iago@zulip.com") => api(email, "POST", "register", { fetch_event_types: ["realm"] });

test("an administrator manages a private channel they are not subscribed to", T, async () => {
  const s = suffix();
  const channel = `Hidden ${s}`;
  await api("hamlet@zulip.com", "POST", "users/me/subscriptions", { subscriptions: [{ name: channel, description: "" }], invite_only: "true" });
  const streamId = (await api("hamlet@zulip.com", "GET", "get_stream_id", { stream: channel })).stream_id;
  const { context, page } = await person();
  try {
    await signInWithDevLogin(page, "iago@zulip.com");
    await openSettings(page, "Channels");
    await page.getByRole("combobox", { name: "Channel", exact: true }).selectOption({ label: `#${channel} (private)` });
    const form = page.getByRole("form", { name: `Settings of #${channel}` });
    await form.getByLabel("Channel description").fill(`Kept by the administrators ${s}`);
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    assert.equal((await api("iago@zulip.com", "GET", `streams/${streamId}`)).stream.description, `Kept by the administrators ${s}`);
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
  }
});

test("an administrator changes who can subscribe anyone to a channel, and the API reports it", T, async () => {
  const s = suffix();
  const channel = `Subscribers ${s}`;
  const streamId = await createChannel("iago@zulip.com", channel, ["iago@zulip.com"]);
  const moderators = await systemGroupId("role:moderators");
  const { context, page } = await person();
  try {
    await signInWithDevLogin(page, "iago@zulip.com");
    const form = await openChannelSettings(page, channel);
    const permission = form.getByRole("group", { name: "Subscription permissions" }).getByRole("combobox", { name: "Who can subscribe anyone to this channel" });
    await permission.selectOption({ label: "Moderators" });
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    assert.equal((await api("iago@zulip.com", "GET", `streams/${streamId}`)).stream.can_add_subscribers_group, moderators);
    assert.equal(await permission.inputValue(), String(moderators), "the field shows the saved group");
    await permission.scrollIntoViewIfNeeded();
    await shot(page, "51-settings-channel-permissions");
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
  }
});

test("a channel's permission that the server refuses to give everyone does not offer everyone", T, async () => {
  const { context, page } = await person();
  try {
    await signInWithDevLogin(page, "iago@zulip.com");
    const form = await openChannelSettings(page, "Verona");
    const add = await form.getByRole("combobox", { name: "Who can subscribe anyone to this channel" }).getByRole("option").allTextContents();
    const remove = await form.getByRole("combobox", { name: "Who can unsubscribe anyone from this channel" }).getByRole("option").allTextContents();
    assert.ok(!add.includes("Everyone, including guests"), `offered: ${add}`);
    assert.ok(remove.includes("Everyone, including guests"), `offered: ${remove}`);
  } finally {
    await context.close();
  }
});

test("an administrator who is not an owner is not offered a channel's message retention period", T, async () => {
  const { context, page } = await person();
  try {
    await signInWithDevLogin(page, "iago@zulip.com");
    const form = await openChannelSettings(page, "Verona");
    await form.getByRole("combobox", { name: "Who can administer this channel" }).waitFor();
    assert.equal(await form.getByRole("combobox", { name: "Message retention period" }).count(), 0);
  } finally {
    await context.close();
  }
});

test("an owner sets a channel's message retention period after confirming, and the API reports it", T, async () => {
  const s = suffix();
  const channel = `Retained ${s}`;
  const streamId = await createChannel("desdemona@zulip.com", channel, ["desdemona@zulip.com"]);
  const { context, page } = await person();
  try {
    await signInWithDevLogin(page, "desdemona@zulip.com");
    const form = await openChannelSettings(page, channel);
    const period = form.getByRole("combobox", { name: "Message retention period" });
    assert.match(await period.getByRole("option", { selected: true }).textContent(), /^Use organization level settings/);
    await period.selectOption({ label: "Custom" });
    await form.getByRole("spinbutton", { name: "Retention period (days)" }).fill("30");
    await form.getByRole("button", { name: "Save changes" }).click();
    const dialog = page.getByRole("alertdialog", { name: `Change the message retention period of #${channel}?` });
    await dialog.waitFor();
    await shot(page, "52-settings-channel-retention-confirm");
    await dialog.getByRole("button", { name: "Confirm", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Saved" }).waitFor();
    assert.equal((await api("desdemona@zulip.com", "GET", `streams/${streamId}`)).stream.message_retention_days, 30);

    // Back to the organization's period: null again, without a warning when that is forever.
    await period.selectOption({ index: 0 });
    await form.getByRole("button", { name: "Save changes" }).click();
    if ((await realmOf()).realm_message_retention_days === -1) {
      await eventually(async () => (await api("desdemona@zulip.com", "GET", `streams/${streamId}`)).stream.message_retention_days === null, {
        message: "the organization's period again",
      });
    }
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
  }
});

test("an owner sets the organization's message retention period, and GET /register reports it", T, async () => {
  const before = (await realmOf()).realm_message_retention_days;
  const { context, page } = await person();
  try {
    await signInWithDevLogin(page, "desdemona@zulip.com");
    await openSettings(page, "Organization settings");
    const form = page.getByRole("form", { name: "Message retention" });
    await form.getByRole("combobox", { name: "Message retention period" }).selectOption({ label: "Custom" });
    await form.getByRole("spinbutton", { name: "Retention period (days)" }).fill("3650");
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("alertdialog", { name: "Change the organization's message retention period?" }).getByRole("button", { name: "Confirm", exact: true }).click();
    await page.getByRole("region", { name: "Message retention", exact: true }).getByRole("status").filter({ hasText: "Saved" }).waitFor();
    assert.equal((await realmOf("desdemona@zulip.com")).realm_message_retention_days, 3650);
    await shot(page, "53-settings-organization-retention");
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
    await api("desdemona@zulip.com", "PATCH", "realm", { message_retention_days: JSON.stringify(before === -1 ? "unlimited" : before) });
  }
});

test("an administrator who is not an owner sees the organization's retention period but cannot change it", T, async () => {
  const { context, page } = await person();
  try {
    await signInWithDevLogin(page, "iago@zulip.com");
    await openSettings(page, "Organization settings");
    const region = page.getByRole("region", { name: "Message retention", exact: true });
    await region.getByText("Only organization owners can change it.").waitFor();
    assert.equal(await region.getByRole("combobox").count(), 0);
  } finally {
    await context.close();
  }
});

test("an administrator picks the new-channel announcement channel; GET /register reports it and another tab follows", T, async () => {
  const s = suffix();
  const channel = `Announcements ${s}`;
  const streamId = await createChannel("iago@zulip.com", channel, ["iago@zulip.com"]);
  const before = await realmOf();
  const { context, page } = await person();
  const other = await context.newPage();
  try {
    await signInWithDevLogin(page, "iago@zulip.com");
    await openSettings(page, "Organization settings");
    await other.goto(page.url());
    const mirror = other.getByRole("combobox", { name: "New channel announcements" });
    await mirror.waitFor();
    const form = page.getByRole("form", { name: "Notifications" });
    await form.getByRole("combobox", { name: "New channel announcements" }).selectOption({ label: `#${channel}` });
    await form.getByRole("combobox", { name: "New user announcements" }).selectOption({ label: "Disabled" });
    await form.getByRole("combobox", { name: "Zulip update announcements" }).selectOption({ label: `#${channel}` });
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("region", { name: "Notifications", exact: true }).getByRole("status").filter({ hasText: "Saved" }).waitFor();
    const after = await realmOf();
    assert.equal(after.realm_new_stream_announcements_stream_id, streamId);
    assert.equal(after.realm_signup_announcements_stream_id, -1);
    assert.equal(after.realm_zulip_update_announcements_stream_id, streamId);
    await eventually(async () => (await mirror.inputValue()) === String(streamId), { message: "the other tab follows" });
    await shot(page, "54-settings-organization-announcements");
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
    await api("iago@zulip.com", "PATCH", "realm", {
      new_stream_announcements_stream_id: String(before.realm_new_stream_announcements_stream_id),
      signup_announcements_stream_id: String(before.realm_signup_announcements_stream_id),
      zulip_update_announcements_stream_id: String(before.realm_zulip_update_announcements_stream_id),
    });
  }
});

test("an administrator limits who creates user groups; GET /register reports it and a member is refused", T, async () => {
  const before = await realmOf();
  const groups = (await api("iago@zulip.com", "GET", "user_groups")).user_groups;
  const administrators = groups.find((g) => g.name === "role:administrators").id;
  const { context, page } = await person();
  try {
    await signInWithDevLogin(page, "iago@zulip.com");
    await openSettings(page, "Join rules");
    const form = page.getByRole("form", { name: "Other permissions" });
    await form.getByRole("combobox", { name: "Who can create user groups" }).selectOption({ label: "Administrators" });
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("region", { name: "Other permissions", exact: true }).getByRole("status").filter({ hasText: "Saved" }).waitFor();
    assert.equal((await realmOf()).realm_can_create_groups, administrators);
    await assert.rejects(api("hamlet@zulip.com", "POST", "user_groups/create", { name: `Refused ${suffix()}`, description: "", members: [] }), /Insufficient permission/);
    await shot(page, "56-settings-organization-permissions");
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
    await api("iago@zulip.com", "PATCH", "realm", { can_create_groups: { new: before.realm_can_create_groups } });
  }
});

test("an administrator uploads a night logo; it is shown, and its removal too", T, async () => {
  const dayLogo = (await realmOf()).realm_logo_url;
  const { context, page } = await person();
  try {
    await signInWithDevLogin(page, "iago@zulip.com");
    await openSettings(page, "Organization profile");
    const region = page.getByRole("region", { name: "Organization night logo", exact: true });
    await region.getByLabel("Upload night logo", { exact: true }).setInputFiles({ name: "night.png", mimeType: "image/png", buffer: png(40, [20, 30, 60]) });
    await region.getByRole("status").filter({ hasText: "Organization night logo uploaded" }).waitFor();
    const r = await realmOf();
    assert.equal(r.realm_night_logo_source, "U");
    const img = region.getByRole("img", { name: "Current organization night logo" });
    await eventually(async () => img.evaluate((el, url) => el.src.endsWith(url) && el.complete && el.naturalWidth > 0, r.realm_night_logo_url), {
      message: "the uploaded night logo shown",
    });
    assert.equal((await realmOf()).realm_logo_url, dayLogo, "the day logo is not touched");
    await region.scrollIntoViewIfNeeded();
    await shot(page, "55-settings-night-logo");

    await region.getByRole("button", { name: "Remove night logo", exact: true }).click();
    await region.getByRole("status").filter({ hasText: "Organization night logo removed" }).waitFor();
    await region.getByRole("button", { name: "Remove night logo", exact: true }).waitFor({ state: "detached" });
    assert.equal((await realmOf()).realm_night_logo_source, "D");
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
  }
});
