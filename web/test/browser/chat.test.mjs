// Two people in two browsers, end to end: sign in, channel messages live both ways, a DM,
// a reaction, an edit, an upload by drag and drop, a search, unread counts going down, the
// page recovering after its event queue expired, signing out.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import {
  SERVER, launch, close, person, shot, suffix, alertsOf,
  signInWithPassword, signInWithDevLogin, createChannel, sendToChannel, api,
  channelsNav, messagesRegion, messageArticle, eventually, unreadCountOf, openChannel, composeToChannel,
} from "./helpers.mjs";

before(launch);
after(close);

const T = { timeout: 90000 };

test("two people chat in a channel: one sends, the other sees it live and replies", T, async () => {
  const s = suffix();
  const channel = `Live ${s}`;
  await createChannel("hamlet@zulip.com", channel, ["hamlet@zulip.com", "othello@zulip.com"]);
  const alice = await person();
  const bob = await person();
  try {
    await signInWithPassword(alice.page, "hamlet@zulip.com");
    await shot(alice.page, "01-signed-in-password");
    await signInWithDevLogin(bob.page, "othello@zulip.com");
    await openChannel(alice.page, channel);
    await openChannel(bob.page, channel);

    const hello = `Hello from Hamlet ${s}`;
    await composeToChannel(alice.page, channel, "greetings", hello);
    await messageArticle(alice.page, hello).waitFor();
    await messageArticle(bob.page, hello).waitFor();
    await shot(bob.page, "02-bob-sees-message-live");

    // Bob replies with the keyboard: select the message, `r`, type, Ctrl+Enter.
    await messageArticle(bob.page, hello).click({ position: { x: 5, y: 5 } });
    await bob.page.keyboard.press("r");
    const compose = bob.page.getByRole("form", { name: "Compose" });
    await eventually(async () => (await compose.getByRole("textbox", { name: "Topic" }).inputValue()) === "greetings", { message: "reply topic" });
    const reply = `Hi Hamlet, Othello here ${s}`;
    await compose.getByRole("textbox", { name: "Message" }).fill(reply);
    await compose.getByRole("textbox", { name: "Message" }).press("Control+Enter");
    await messageArticle(alice.page, reply).waitFor();
    await shot(alice.page, "03-alice-sees-reply-live");
    assert.equal(await messageArticle(alice.page, reply).count(), 1);
    assert.deepEqual(await alertsOf(alice.page), []);
  } finally {
    await alice.context.close();
    await bob.context.close();
  }
});

test("a direct message reaches the other person, with an unread count", T, async () => {
  const s = suffix();
  const alice = await person();
  const bob = await person();
  try {
    await signInWithDevLogin(alice.page, "cordelia@zulip.com");
    await signInWithDevLogin(bob.page, "prospero@zulip.com");
    const compose = alice.page.getByRole("form", { name: "Compose" });
    await compose.getByRole("button", { name: "Direct message" }).click();
    await compose.getByRole("textbox", { name: "To" }).fill("prospero@zulip.com");
    const text = `A private word ${s}`;
    await compose.getByRole("textbox", { name: "Message" }).fill(text);
    await compose.getByRole("button", { name: "Send", exact: true }).click();

    const cordelia = (await api("prospero@zulip.com", "GET", "users/cordelia@zulip.com")).user.full_name;
    const dmLink = bob.page.getByRole("navigation", { name: "Direct messages" }).getByRole("link", { name: cordelia, exact: true });
    await dmLink.waitFor();
    await eventually(async () => (await unreadCountOf(dmLink)) >= 1, { message: "DM unread count" });
    await shot(bob.page, "04-dm-unread");
    await dmLink.click();
    await messageArticle(bob.page, text).waitFor();
    await eventually(async () => (await unreadCountOf(dmLink)) === 0, { message: "DM read" });
    await shot(bob.page, "05-dm-open");
  } finally {
    await alice.context.close();
    await bob.context.close();
  }
});

test("a reaction added in one browser shows in the other, and toggles off", T, async () => {
  const s = suffix();
  const channel = `React ${s}`;
  await createChannel("iago@zulip.com", channel, ["iago@zulip.com", "shiva@zulip.com"]);
  const text = `React to this ${s}`;
  await sendToChannel("iago@zulip.com", channel, "reactions", text);
  const alice = await person();
  const bob = await person();
  try {
    await signInWithDevLogin(alice.page, "iago@zulip.com");
    await signInWithDevLogin(bob.page, "shiva@zulip.com");
    await openChannel(alice.page, channel);
    await openChannel(bob.page, channel);
    const msg = messageArticle(bob.page, text);
    await msg.hover();
    await msg.getByRole("button", { name: "Add reaction" }).click();
    await bob.page.getByRole("dialog", { name: "Add reaction" }).getByRole("searchbox", { name: "Search emoji" }).fill("tada");
    await bob.page.getByRole("dialog", { name: "Add reaction" }).getByRole("button", { name: "tada", exact: true }).click();
    const seen = messageArticle(alice.page, text).getByRole("button", { name: "tada: 1" });
    await seen.waitFor();
    await shot(alice.page, "06-reaction-live");
    await messageArticle(bob.page, text).getByRole("button", { name: "tada: 1" }).click();
    await seen.waitFor({ state: "detached" });
  } finally {
    await alice.context.close();
    await bob.context.close();
  }
});

test("an edit of one's own message shows in the other browser", T, async () => {
  const s = suffix();
  const channel = `Edit ${s}`;
  await createChannel("hamlet@zulip.com", channel, ["hamlet@zulip.com", "othello@zulip.com"]);
  const alice = await person();
  const bob = await person();
  try {
    await signInWithDevLogin(alice.page, "hamlet@zulip.com");
    await signInWithDevLogin(bob.page, "othello@zulip.com");
    await openChannel(alice.page, channel);
    await openChannel(bob.page, channel);
    const original = `First draft ${s}`;
    await composeToChannel(alice.page, channel, "edits", original);
    const mine = messageArticle(alice.page, original);
    await mine.waitFor();
    await messageArticle(bob.page, original).waitFor();
    await mine.hover();
    await mine.getByRole("button", { name: "Message actions" }).click();
    await alice.page.getByRole("menuitem", { name: "Edit message" }).click();
    const box = alice.page.getByRole("textbox", { name: "Edit message" });
    await eventually(async () => (await box.inputValue()) === original, { message: "raw content in the edit box" });
    const edited = `Second thoughts ${s}`;
    await box.fill(edited);
    await alice.page.getByRole("button", { name: "Save", exact: true }).click();
    const theirs = messageArticle(bob.page, edited);
    await theirs.waitFor();
    assert.match(await theirs.innerText(), /\(edited\)/);
    assert.equal(await messageArticle(bob.page, original).count(), 0);
    await shot(bob.page, "07-edit-live");
  } finally {
    await alice.context.close();
    await bob.context.close();
  }
});

test("a file dropped on the compose box uploads, and the other person can open it", T, async () => {
  const s = suffix();
  const channel = `Files ${s}`;
  await createChannel("hamlet@zulip.com", channel, ["hamlet@zulip.com", "othello@zulip.com"]);
  const alice = await person();
  const bob = await person();
  try {
    await signInWithDevLogin(alice.page, "hamlet@zulip.com");
    await signInWithDevLogin(bob.page, "othello@zulip.com");
    await openChannel(alice.page, channel);
    await openChannel(bob.page, channel);
    const compose = alice.page.getByRole("form", { name: "Compose" });
    await compose.getByRole("textbox", { name: "Topic" }).fill("files");
    const bytes = Array.from({ length: 3000 }, (_, i) => (i * 7 + s.charCodeAt(i % s.length)) % 256);
    const name = `notes-${s}.bin`;
    await compose.evaluate(
      (form, { bytes, name }) => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(bytes)], name, { type: "application/octet-stream" }));
        form.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
        form.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
      },
      { bytes, name },
    );
    const message = compose.getByRole("textbox", { name: "Message" });
    await eventually(async () => /\[notes-.*\]\(\/user_uploads\/.+\)/.test(await message.inputValue()), { message: "upload link in the compose box" });
    await shot(alice.page, "08-upload-in-compose");
    await compose.getByRole("button", { name: "Send", exact: true }).click();
    const link = messageArticle(bob.page, name).getByRole("link", { name });
    await link.waitFor();
    const href = await link.getAttribute("href");
    assert.match(href, /^\/user_uploads\//);
    const r = await bob.page.request.get(`${SERVER}${href}`);
    assert.equal(r.status(), 200);
    assert.deepEqual([...(await r.body())], bytes);
    await shot(bob.page, "09-upload-received");
  } finally {
    await alice.context.close();
    await bob.context.close();
  }
});

test("files also upload through the button and by pasting", T, async () => {
  const s = suffix();
  const alice = await person();
  try {
    await signInWithDevLogin(alice.page, "iago@zulip.com");
    const compose = alice.page.getByRole("form", { name: "Compose" });
    const message = compose.getByRole("textbox", { name: "Message" });
    const chooser = alice.page.waitForEvent("filechooser");
    await compose.getByRole("button", { name: "Upload files" }).click();
    await (await chooser).setFiles({ name: `button-${s}.txt`, mimeType: "text/plain", buffer: Buffer.from(`via the button ${s}`) });
    await eventually(async () => new RegExp(`\\[button-${s}\\.txt\\]\\(/user_uploads/`).test(await message.inputValue()), { message: "link of the chosen file" });
    await message.evaluate((el, name) => {
      const dt = new DataTransfer();
      dt.items.add(new File(["pasted bytes"], name, { type: "text/plain" }));
      el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    }, `pasted-${s}.txt`);
    await eventually(async () => new RegExp(`\\[pasted-${s}\\.txt\\]\\(/user_uploads/`).test(await message.inputValue()), { message: "link of the pasted file" });
    await shot(alice.page, "09b-upload-button-and-paste");
  } finally {
    await alice.context.close();
  }
});

test("the search box takes Zulip's search syntax", T, async () => {
  const s = suffix();
  const channel = `Search ${s}`;
  await createChannel("iago@zulip.com", channel, ["iago@zulip.com"]);
  await sendToChannel("iago@zulip.com", channel, "pies", `apple pie ${s}`);
  await sendToChannel("iago@zulip.com", channel, "breads", `banana bread ${s}`);
  await sendToChannel("iago@zulip.com", channel, "pies", `cherry pie ${s}`);
  const alice = await person();
  try {
    await signInWithDevLogin(alice.page, "iago@zulip.com");
    const search = alice.page.getByRole("searchbox", { name: "Search" });
    await search.fill(`channel:"${channel}" banana`);
    await search.press("Enter");
    await messageArticle(alice.page, `banana bread ${s}`).waitFor();
    assert.equal(await messageArticle(alice.page, `apple pie ${s}`).count(), 0);
    await shot(alice.page, "10-search");
    await search.fill(`channel:"${channel}" topic:pies`);
    await search.press("Enter");
    await messageArticle(alice.page, `cherry pie ${s}`).waitFor();
    await messageArticle(alice.page, `apple pie ${s}`).waitFor();
    assert.equal(await messageArticle(alice.page, `banana bread ${s}`).count(), 0);
    assert.match(alice.page.url(), /#narrow\/channel\/\d+-.*\/topic\/pies$/);
  } finally {
    await alice.context.close();
  }
});

test("unread counts go down as messages are read", T, async () => {
  const s = suffix();
  const channel = `Unread ${s}`;
  await createChannel("hamlet@zulip.com", channel, ["hamlet@zulip.com", "polonius@zulip.com"]);
  const bob = await person();
  try {
    await signInWithDevLogin(bob.page, "polonius@zulip.com");
    const link = channelsNav(bob.page).getByRole("link", { name: channel, exact: true });
    await link.waitFor();
    const titleCount = async () => Number(/^\((\d+)\)/.exec(await bob.page.title())?.[1] ?? 0);
    const before = await titleCount();
    for (let i = 1; i <= 3; i++) await sendToChannel("hamlet@zulip.com", channel, "counting", `unread number ${i} ${s}`);
    await eventually(async () => (await unreadCountOf(link)) === 3, { message: "3 unread in the sidebar" });
    await eventually(async () => (await titleCount()) === before + 3, { message: "title count up by 3" });
    await shot(bob.page, "11-unread-counts");
    await link.click();
    await messageArticle(bob.page, `unread number 3 ${s}`).waitFor();
    await eventually(async () => (await unreadCountOf(link)) === 0, { message: "unread count gone after reading" });
    await eventually(async () => (await titleCount()) === before, { message: "title count back down" });
    const left = await api("polonius@zulip.com", "GET", "messages", {
      narrow: [{ operator: "channel", operand: channel }, { operator: "is", operand: "unread" }],
      anchor: "newest", num_before: "10", num_after: "0",
    });
    assert.equal(left.messages.length, 0, "the server has them read too");
    await shot(bob.page, "12-unread-read");
  } finally {
    await bob.context.close();
  }
});

test("the page recovers after its event queue expires, without losing or repeating a message", T, async () => {
  const s = suffix();
  const channel = `Queue ${s}`;
  await createChannel("hamlet@zulip.com", channel, ["hamlet@zulip.com", "othello@zulip.com"]);
  await sendToChannel("hamlet@zulip.com", channel, "queue", `before the gap ${s}`);
  const bob = await person();
  try {
    await signInWithDevLogin(bob.page, "othello@zulip.com");
    await openChannel(bob.page, channel);
    await messageArticle(bob.page, `before the gap ${s}`).waitFor();

    // Hold the page's polls, and meanwhile end its queue on the server as the idle timeout
    // would: its next poll finds the queue gone.
    let release;
    let heldQueue;
    const gate = new Promise((r) => (release = r));
    const isEvents = (url) => new URL(url).pathname === "/api/v1/events";
    await bob.page.route(isEvents, async (route) => {
      heldQueue ??= new URL(route.request().url()).searchParams.get("queue_id");
      await gate;
      await route.continue().catch(() => {});
    });
    await eventually(() => heldQueue, { message: "a poll held" });
    await api("othello@zulip.com", "DELETE", "events", { queue_id: heldQueue });
    await sendToChannel("hamlet@zulip.com", channel, "queue", `during the gap ${s}`);
    release();
    await bob.page.unroute(isEvents);

    await messageArticle(bob.page, `during the gap ${s}`).waitFor({ timeout: 45000 });
    await sendToChannel("hamlet@zulip.com", channel, "queue", `after the gap ${s}`);
    await messageArticle(bob.page, `after the gap ${s}`).waitFor({ timeout: 30000 });
    await new Promise((r) => setTimeout(r, 1500));
    for (const text of ["before the gap", "during the gap", "after the gap"]) {
      assert.equal(await messageArticle(bob.page, `${text} ${s}`).count(), 1, `"${text}" shown exactly once`);
    }
    await shot(bob.page, "13-after-queue-expiry");
  } finally {
    await bob.context.close();
  }
});

test("signing out ends the session and returns to the sign-in page", T, async () => {
  const alice = await person();
  try {
    await signInWithPassword(alice.page, "shiva@zulip.com");
    await alice.page.getByRole("button", { name: "Log out", exact: true }).click();
    await alice.page.waitForURL(/\/login\/$/);
    await alice.page.getByLabel("Email", { exact: true }).waitFor();
    await shot(alice.page, "14-signed-out");
    await alice.page.goto(`${SERVER}/`);
    await alice.page.waitForURL(/\/login\//);
    await alice.page.getByRole("button", { name: "Log in", exact: true }).waitFor();
  } finally {
    await alice.context.close();
  }
});

test("a wrong password is answered with the server's message", T, async () => {
  const alice = await person();
  try {
    await alice.page.goto(`${SERVER}/login/`);
    await alice.page.getByLabel("Email", { exact: true }).fill("hamlet@zulip.com");
    await alice.page.getByLabel("Password", { exact: true }).fill("not-the-password");
    await alice.page.getByRole("button", { name: "Log in", exact: true }).click();
    await alice.page.getByRole("alert").filter({ hasText: "Your username or password is incorrect" }).waitFor();
    await shot(alice.page, "00-login-error");
  } finally {
    await alice.context.close();
  }
});

test("at phone width the sidebar collapses behind a button", T, async () => {
  const alice = await person({ viewport: { width: 390, height: 800 } });
  try {
    await signInWithDevLogin(alice.page, "hamlet@zulip.com");
    const nav = channelsNav(alice.page);
    assert.equal(await nav.isVisible(), false);
    await alice.page.getByRole("button", { name: "Show sidebar" }).click();
    await nav.waitFor();
    await shot(alice.page, "15-phone-sidebar");
    await nav.getByRole("link", { name: "Verona", exact: true }).click();
    await messagesRegion(alice.page).waitFor();
    await nav.waitFor({ state: "hidden" });
    await shot(alice.page, "16-phone-channel");
  } finally {
    await alice.context.close();
  }
});
