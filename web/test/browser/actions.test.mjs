// Message actions and the rest of the day-one table: typing shown to the other person, star,
// resolve, move, delete, muting a channel and a topic, the draft kept per view, the
// Markdown preview, quote and reply, and the `n` shortcut.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  launch, close, person, shot, suffix, api,
  signInWithDevLogin, createChannel, sendToChannel,
  channelsNav, messagesRegion, messageArticle, eventually, unreadCountOf, openChannel,
} from "./helpers.mjs";

before(launch);
after(close);

const T = { timeout: 90000 };

test("typing in the compose box is shown to the other person", T, async () => {
  const s = suffix();
  const channel = `Typing ${s}`;
  await createChannel("hamlet@zulip.com", channel, ["hamlet@zulip.com", "othello@zulip.com"]);
  await sendToChannel("hamlet@zulip.com", channel, "chat", `start ${s}`);
  const alice = await person();
  const bob = await person();
  try {
    await signInWithDevLogin(alice.page, "hamlet@zulip.com");
    await signInWithDevLogin(bob.page, "othello@zulip.com");
    await openChannel(alice.page, channel);
    await openChannel(bob.page, channel);
    const compose = alice.page.getByRole("form", { name: "Compose" });
    await compose.getByRole("textbox", { name: "Topic" }).fill("chat");
    await compose.getByRole("textbox", { name: "Message" }).pressSequentially("I am typ", { delay: 30 });
    const hamlet = (await api("othello@zulip.com", "GET", "users/hamlet@zulip.com")).user.full_name;
    await messagesRegion(bob.page).getByText(`${hamlet} is typing…`).waitFor();
    await shot(bob.page, "30-typing");
  } finally {
    await alice.context.close();
    await bob.context.close();
  }
});

test("star, resolve, move and delete a message", T, async () => {
  const s = suffix();
  const channel = `Actions ${s}`;
  await createChannel("iago@zulip.com", channel, ["iago@zulip.com"]);
  const keep = `keep me ${s}`;
  const drop = `delete me ${s}`;
  await sendToChannel("iago@zulip.com", channel, "bugs", keep);
  await sendToChannel("iago@zulip.com", channel, "bugs", drop);
  const alice = await person();
  try {
    await signInWithDevLogin(alice.page, "iago@zulip.com");
    await openChannel(alice.page, channel);
    const msg = messageArticle(alice.page, keep);
    await msg.hover();
    await msg.getByRole("button", { name: "Star message" }).click();
    await msg.getByRole("button", { name: "Unstar message" }).waitFor();
    const starred = await api("iago@zulip.com", "GET", "messages", { narrow: [{ operator: "is", operand: "starred" }], anchor: "newest", num_before: "5", num_after: "0" });
    assert.ok(starred.messages.some((m) => m.content.includes(keep)));

    // Resolve the topic from the recipient header's menu.
    await messagesRegion(alice.page).getByRole("button", { name: "Options for topic bugs" }).first().click();
    await alice.page.getByRole("menuitem", { name: "Mark as resolved" }).click();
    await messagesRegion(alice.page).getByRole("link", { name: "✔ bugs", exact: true }).first().waitFor();

    // Move one message to a new topic.
    await msg.hover();
    await msg.getByRole("button", { name: "Message actions" }).click();
    await alice.page.getByRole("menuitem", { name: "Move messages" }).click();
    const dialog = alice.page.getByRole("dialog", { name: "Move messages" });
    await dialog.getByRole("textbox", { name: "New topic" }).fill("moved here");
    await dialog.getByRole("combobox", { name: "Which messages" }).selectOption("change_one");
    await dialog.getByRole("button", { name: "Move", exact: true }).click();
    await messagesRegion(alice.page).getByRole("link", { name: "moved here", exact: true }).first().waitFor();

    // Delete the other.
    const victim = messageArticle(alice.page, drop);
    await victim.hover();
    await victim.getByRole("button", { name: "Message actions" }).click();
    await alice.page.getByRole("menuitem", { name: "Delete message" }).click();
    await alice.page.getByRole("alertdialog", { name: "Delete message?" }).getByRole("button", { name: "Delete", exact: true }).click();
    await victim.waitFor({ state: "detached" });
    await shot(alice.page, "31-actions");
  } finally {
    await alice.context.close();
  }
});

test("muting a channel dims it and takes its messages out of the counts", T, async () => {
  const s = suffix();
  const channel = `Mute ${s}`;
  await createChannel("hamlet@zulip.com", channel, ["hamlet@zulip.com", "cordelia@zulip.com"]);
  await sendToChannel("hamlet@zulip.com", channel, "noise", `noise ${s}`);
  await sendToChannel("hamlet@zulip.com", channel, "signal", `signal ${s}`);
  const bob = await person();
  try {
    await signInWithDevLogin(bob.page, "cordelia@zulip.com");
    const link = channelsNav(bob.page).getByRole("link", { name: channel, exact: true });
    await eventually(async () => (await unreadCountOf(link)) === 2, { message: "2 unread" });
    // Mute one topic from the sidebar. A search in the channel lists its topics there
    // without reading the messages (search views do not mark messages read).
    await bob.page.getByRole("searchbox", { name: "Search" }).fill(`channel:"${channel}" zebra`);
    await bob.page.getByRole("searchbox", { name: "Search" }).press("Enter");
    await channelsNav(bob.page).getByRole("button", { name: "Options for topic noise" }).click();
    await bob.page.getByRole("menuitem", { name: "Mute topic" }).click();
    await eventually(async () => (await unreadCountOf(link)) === 1, { message: "muted topic left out" });
    // Then the whole channel.
    await bob.page.goto(bob.page.url().replace(/#.*/, "#inbox"));
    await channelsNav(bob.page).getByRole("button", { name: `Options for channel ${channel}` }).click();
    await bob.page.getByRole("menuitem", { name: "Mute channel" }).click();
    await eventually(async () => (await unreadCountOf(link)) === 0, { message: "muted channel counts nothing" });
    const sub = (await api("cordelia@zulip.com", "GET", "users/me/subscriptions")).subscriptions.find((x) => x.name === channel);
    assert.equal(sub.is_muted, true);
    // A muted channel still shows when opened; its muted topic stays out of its view.
    await link.click();
    await messageArticle(bob.page, `signal ${s}`).waitFor();
    assert.equal(await messageArticle(bob.page, `noise ${s}`).count(), 0);
    await shot(bob.page, "32-muted");
  } finally {
    await bob.context.close();
  }
});

test("the draft is kept per view, and the preview renders Markdown", T, async () => {
  const s = suffix();
  const channel = `Drafts ${s}`;
  await createChannel("shiva@zulip.com", channel, ["shiva@zulip.com"]);
  const alice = await person();
  try {
    await signInWithDevLogin(alice.page, "shiva@zulip.com");
    await openChannel(alice.page, channel);
    const compose = alice.page.getByRole("form", { name: "Compose" });
    const box = compose.getByRole("textbox", { name: "Message" });
    await box.fill(`**bold draft** ${s}`);
    await channelsNav(alice.page).getByRole("link", { name: "Verona", exact: true }).click();
    await eventually(async () => (await box.inputValue()) === "", { message: "another view, another draft" });
    await alice.page.goBack();
    await eventually(async () => (await box.inputValue()) === `**bold draft** ${s}`, { message: "draft back" });
    await compose.getByRole("button", { name: "Preview" }).click();
    await compose.getByRole("region", { name: "Preview" }).locator("strong", { hasText: "bold draft" }).waitFor();
    await shot(alice.page, "33-preview");
  } finally {
    await alice.context.close();
  }
});

test("`n` goes to the next unread topic", T, async () => {
  const s = suffix();
  const channel = `Next ${s}`;
  await createChannel("hamlet@zulip.com", channel, ["hamlet@zulip.com", "desdemona@zulip.com"]);
  await sendToChannel("hamlet@zulip.com", channel, `first ${s}`, "one");
  const alice = await person();
  try {
    await signInWithDevLogin(alice.page, "desdemona@zulip.com");
    await alice.page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Inbox" }).waitFor();
    // Walk with `n` until the new topic is open (other tests may have left unread topics).
    await eventually(
      async () => {
        await alice.page.locator("body").press("n");
        await alice.page.waitForTimeout(300);
        return decodeURIComponent(alice.page.url()).includes(`first.20${s}`);
      },
      { timeout: 20000, interval: 100, message: "the unread topic opened by n" },
    );
    await messageArticle(alice.page, "one").waitFor();
  } finally {
    await alice.context.close();
  }
});

test("a long channel opens at the first unread and pages by anchor, never all at once", T, async () => {
  const s = suffix();
  const channel = `Long ${s}`;
  await createChannel("hamlet@zulip.com", channel, ["hamlet@zulip.com", "othello@zulip.com"]);
  for (let i = 1; i <= 130; i++) await sendToChannel("hamlet@zulip.com", channel, "history", `line ${i} of ${s}`);
  // Othello has read everything up to line 100 (after the channel's opening message).
  const ids = (await api("othello@zulip.com", "GET", "messages", {
    narrow: [{ operator: "channel", operand: channel }], anchor: "oldest", num_before: "0", num_after: "200",
  })).messages.map((m) => m.id);
  await api("othello@zulip.com", "POST", "messages/flags", { messages: ids.slice(0, 101), op: "add", flag: "read" });
  const bob = await person();
  try {
    await signInWithDevLogin(bob.page, "othello@zulip.com");
    await openChannel(bob.page, channel);
    const articles = messagesRegion(bob.page).getByRole("article");
    await messageArticle(bob.page, `line 101 of ${s}`).waitFor();
    const first = await articles.count();
    assert.ok(first <= 60, `one window at first (${first} shown)`);
    assert.equal(await messageArticle(bob.page, `line 1 of ${s}`).count(), 0);
    // Scroll up until the first message: older windows come in as the top nears.
    await eventually(
      async () => {
        await articles.first().hover();
        await bob.page.mouse.wheel(0, -4000);
        return (await messageArticle(bob.page, `line 1 of ${s}`).count()) === 1;
      },
      { timeout: 30000, interval: 400, message: "the oldest message after scrolling up" },
    );
    assert.equal(await articles.count(), 131, "the opening message and the 130 lines");
    await shot(bob.page, "34-paged-back");
  } finally {
    await bob.context.close();
  }
});

test("with the Enter-sends setting, Enter sends; the setting is kept by the server", T, async () => {
  const s = suffix();
  const channel = `Enter ${s}`;
  await createChannel("aaron@zulip.com", channel, ["aaron@zulip.com"]);
  const alice = await person();
  try {
    await signInWithDevLogin(alice.page, "aaron@zulip.com");
    await openChannel(alice.page, channel);
    const compose = alice.page.getByRole("form", { name: "Compose" });
    const setting = compose.getByRole("checkbox", { name: "Enter sends" });
    if (!(await setting.isChecked())) await setting.check();
    await compose.getByRole("textbox", { name: "Topic" }).fill("keys");
    await compose.getByRole("textbox", { name: "Message" }).fill(`sent with Enter ${s}`);
    await compose.getByRole("textbox", { name: "Message" }).press("Enter");
    await messageArticle(alice.page, `sent with Enter ${s}`).waitFor();
    await eventually(async () => (await api("aaron@zulip.com", "POST", "register", { fetch_event_types: ["user_settings"] })).user_settings?.enter_sends === true, { message: "the server has the setting" });
    await alice.page.reload();
    await compose.getByRole("checkbox", { name: "Enter sends" }).waitFor();
    assert.equal(await compose.getByRole("checkbox", { name: "Enter sends" }).isChecked(), true);
  } finally {
    await api("aaron@zulip.com", "PATCH", "settings", { enter_sends: "false" }).catch(() => {});
    await alice.context.close();
  }
});

test("reading in one tab lowers the counts in another tab of the same person", T, async () => {
  const s = suffix();
  const channel = `Tabs ${s}`;
  await createChannel("hamlet@zulip.com", channel, ["hamlet@zulip.com", "shiva@zulip.com"]);
  await sendToChannel("hamlet@zulip.com", channel, "tabs", `read me elsewhere ${s}`);
  const tabs = await person();
  try {
    await signInWithDevLogin(tabs.page, "shiva@zulip.com");
    const other = await tabs.context.newPage();
    await other.goto(tabs.page.url().replace(/#.*$/, "") + "#inbox");
    const link = channelsNav(tabs.page).getByRole("link", { name: channel, exact: true });
    await eventually(async () => (await unreadCountOf(link)) === 1, { message: "1 unread in the first tab" });
    await openChannel(other, channel);
    await messageArticle(other, `read me elsewhere ${s}`).waitFor();
    await eventually(async () => (await unreadCountOf(link)) === 0, { message: "read in the other tab" });
    await shot(tabs.page, "35-read-in-other-tab");
  } finally {
    await tabs.context.close();
  }
});

test("quote and reply puts the quoted message in the compose box", T, async () => {
  const s = suffix();
  const channel = `Quote ${s}`;
  await createChannel("othello@zulip.com", channel, ["othello@zulip.com", "iago@zulip.com"]);
  await sendToChannel("othello@zulip.com", channel, "quotes", `To be quoted ${s}`);
  const alice = await person();
  try {
    await signInWithDevLogin(alice.page, "iago@zulip.com");
    await openChannel(alice.page, channel);
    const msg = messageArticle(alice.page, `To be quoted ${s}`);
    await msg.hover();
    await msg.getByRole("button", { name: "Message actions" }).click();
    await alice.page.getByRole("menuitem", { name: "Quote and reply" }).click();
    const compose = alice.page.getByRole("form", { name: "Compose" });
    await eventually(async () => (await compose.getByRole("textbox", { name: "Message" }).inputValue()).includes(`\`\`\`quote\nTo be quoted ${s}\n\`\`\``), { message: "the quote" });
    assert.equal(await compose.getByRole("textbox", { name: "Topic" }).inputValue(), "quotes");
    await compose.getByRole("button", { name: "Send", exact: true }).click();
    await messagesRegion(alice.page).getByRole("article").filter({ has: alice.page.getByRole("blockquote") }).first().waitFor();
    await shot(alice.page, "36-quote-and-reply");
  } finally {
    await alice.context.close();
  }
});

test("keyboard: c opens the compose box, arrows move the selection, r replies to it", T, async () => {
  const s = suffix();
  const channel = `Keys ${s}`;
  await createChannel("cordelia@zulip.com", channel, ["cordelia@zulip.com"]);
  await sendToChannel("cordelia@zulip.com", channel, "alpha", `first ${s}`);
  await sendToChannel("cordelia@zulip.com", channel, "beta", `second ${s}`);
  const alice = await person();
  try {
    await signInWithDevLogin(alice.page, "cordelia@zulip.com");
    await openChannel(alice.page, channel);
    await messageArticle(alice.page, `second ${s}`).waitFor();
    const compose = alice.page.getByRole("form", { name: "Compose" });
    await alice.page.locator("body").press("c");
    await eventually(async () => compose.getByRole("textbox", { name: "Topic" }).evaluate((el) => el === document.activeElement), { message: "c focuses the compose box" });
    await alice.page.keyboard.press("Escape");
    await messageArticle(alice.page, `second ${s}`).click({ position: { x: 5, y: 5 } });
    await alice.page.keyboard.press("ArrowUp");
    await eventually(async () => (await messageArticle(alice.page, `first ${s}`).getAttribute("aria-current")) === "true", { message: "ArrowUp selects the message above" });
    await alice.page.keyboard.press("r");
    await eventually(async () => (await compose.getByRole("textbox", { name: "Topic" }).inputValue()) === "alpha", { message: "r replies to the selected message" });
  } finally {
    await alice.context.close();
  }
});
