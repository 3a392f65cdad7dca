// Joining and coming back in the browser: an invitation link's sign-up page makes a new
// member who lands in the app signed in; "forgot password" mails a link whose page sets a
// new password and signs the person in. Emails are read from the development outbox.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { SERVER, launch, close, person, shot, suffix, api, signInWithPassword } from "./helpers.mjs";

before(launch);
after(close);

const T = { timeout: 90000 };
const NEW_PASSWORD = "a-brand-new-passphrase-17";

async function lastEmailTo(address) {
  const r = await fetch(`${SERVER}/api/v1/dev_emails`);
  const body = await r.json();
  const mail = body.emails.find((e) => e.to === address);
  assert.ok(mail, `an email to ${address}`);
  return mail;
}

function linkPath(mail, prefix) {
  const m = new RegExp(`https?://[^\\s]+(${prefix}[A-Za-z0-9]+/)`).exec(mail.text);
  assert.ok(m, `a ${prefix} link in ${mail.text}`);
  return m[1];
}

test("an invitation link's page signs a new member up and into the app", T, async () => {
  const address = `joiner-${suffix()}@example.org`;
  const verona = (await api("iago@zulip.com", "GET", "get_stream_id", { stream: "Verona" })).stream_id;
  await api("iago@zulip.com", "POST", "invites", { invitee_emails: address, stream_ids: [verona] });
  const path = linkPath(await lastEmailTo(address), "/join/");
  const { context, page } = await person();
  try {
    await page.goto(`${SERVER}${path}`);
    await page.getByRole("heading", { name: "Join Zulip Dev" }).waitFor();
    assert.equal(await page.getByLabel("Email", { exact: true }).inputValue(), address);
    await page.getByLabel("Full name", { exact: true }).fill("Browser Joiner");
    await page.getByLabel("Password", { exact: true }).fill("password");
    await page.getByRole("button", { name: "Sign up", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "The password is too weak." }).waitFor();
    await page.getByLabel("Password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Sign up", exact: true }).click();
    await page.getByRole("button", { name: "Log out", exact: true }).waitFor();
    await shot(page, "onboarding-joined");
    const users = (await api("iago@zulip.com", "GET", "users")).members;
    assert.ok(users.some((u) => u.full_name === "Browser Joiner"), "the new member exists");
    // The link works once.
    await page.goto(`${SERVER}${path}`);
    await page.getByRole("alert").filter({ hasText: "This confirmation link has already been used." }).waitFor();
    assert.deepEqual(page.errors, []);
  } finally {
    await context.close();
  }
});

test("forgot password mails a link whose page sets a new password and signs in", T, async () => {
  const address = `resetter-${suffix()}@zulip.com`;
  await api("iago@zulip.com", "POST", "users", { email: address, password: "an-old-passphrase-9", full_name: "Reset Person" });
  const { context, page } = await person();
  try {
    await page.goto(`${SERVER}/login/`);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByLabel("Email", { exact: true }).fill(address);
    await page.getByRole("button", { name: "Send a link", exact: true }).click();
    await page.getByRole("status").filter({ hasText: address }).waitFor();
    const path = linkPath(await lastEmailTo(address), "/password/reset/");
    await page.goto(`${SERVER}${path}`);
    await page.getByRole("heading", { name: "Set a new password" }).waitFor();
    await page.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole("button", { name: "Set password", exact: true }).click();
    await page.getByRole("button", { name: "Log out", exact: true }).waitFor();
    await shot(page, "onboarding-password-reset");
  } finally {
    await context.close();
  }
  const fresh = await person();
  try {
    await signInWithPassword(fresh.page, address, NEW_PASSWORD);
  } finally {
    await fresh.context.close();
  }
});
