// Security in the browser: HTML and script in every field a person controls never run; a
// cross-site form POST carrying the session cookie is refused; a signed-out session's cookie
// is refused.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import {
  SERVER, launch, close, person, shot, suffix, alertsOf, api,
  signInWithDevLogin, signInWithPassword, createChannel, sendToChannel, messagesIn,
  channelsNav, messageArticle, openChannel, eventually,
} from "./helpers.mjs";

before(launch);
after(close);

const T = { timeout: 90000 };
const IMG = "<img src=x onerror=alert(1)>";
const SCRIPT = "<script>alert(1)</script>";

/** A person's own rename (PATCH /settings); an administrator's when the server ignores it. */
async function rename(email, fullName) {
  const r = await api(email, "PATCH", "settings", { full_name: fullName });
  if ((r.ignored_parameters_unsupported ?? []).includes("full_name")) {
    const id = (await api("iago@zulip.com", "GET", `users/${email}`)).user.user_id;
    await api("iago@zulip.com", "PATCH", `users/${id}`, { full_name: fullName });
  }
}

test("HTML in a message, topic, channel name, full name and file name never executes", T, async () => {
  const s = suffix();
  const channel = `${IMG} ${s}`;
  const topic = `${SCRIPT} ${s}`;
  const attacker = "prospero@zulip.com";
  const victim = "cordelia@zulip.com";
  await createChannel(attacker, channel, [attacker, victim]);
  const oldName = (await api(attacker, "GET", "users/me")).full_name;
  // Zulip refuses `>` `"` `@` in names: an unclosed tag is the attack that fits.
  const evilName = `<img src=x onerror=alert(1) x=${s}`;
  await rename(attacker, evilName);
  const a = await person();
  const b = await person();
  try {
    await sendToChannel(attacker, channel, topic, `${IMG} ${SCRIPT} <svg onload=alert(1)> [x](javascript:alert(1)) ${s}`);
    // A file whose name carries HTML, dropped on the attacker's compose box (its name is
    // shown while it uploads), then linked under that name.
    await signInWithDevLogin(a.page, attacker);
    const compose = a.page.getByRole("form", { name: "Compose" });
    await compose.evaluate((form, name) => {
      const dt = new DataTransfer();
      dt.items.add(new File(["hello"], name, { type: "text/plain" }));
      form.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, `${IMG}${SCRIPT}.txt`);
    const box = compose.getByRole("textbox", { name: "Message" });
    await eventually(async () => /\(\/user_uploads\/[^)]+\)/.exec(await box.inputValue()), { message: "upload link" });
    const url = /\((\/user_uploads\/[^)]+)\)/.exec(await box.inputValue())[1];
    await sendToChannel(attacker, channel, topic, `[${IMG}${SCRIPT}.txt](${url}) file ${s}`);

    await signInWithDevLogin(b.page, victim);
    await openChannel(b.page, channel);
    await messageArticle(b.page, `file ${s}`).waitFor();
    // Everything is shown as text.
    await channelsNav(b.page).getByRole("link", { name: channel, exact: true }).waitFor();
    await b.page.getByRole("link", { name: topic, exact: true }).first().waitFor();
    const body = await b.page.locator("body").innerText();
    assert.ok(body.includes(evilName), "the full name is shown as text");
    assert.ok(body.includes(`${IMG}${SCRIPT}.txt`), "the file's link text is shown as text");
    // The topic view, the inbox, and the compose box's completion all render these names.
    await b.page.getByRole("link", { name: topic, exact: true }).first().click();
    await messageArticle(b.page, `file ${s}`).waitFor();
    await b.page.goto(`${SERVER}/#inbox`);
    await b.page.getByRole("navigation", { name: "Channels" }).waitFor();
    await b.page.getByRole("form", { name: "Compose" }).getByRole("textbox", { name: "Message" }).fill("@img");
    await b.page.waitForTimeout(1500);
    await shot(b.page, "20-xss-attempts-shown-as-text");
    assert.deepEqual(await alertsOf(b.page), []);
    assert.deepEqual(await alertsOf(a.page), []);
    assert.equal(await b.page.locator("script:not([src])").count(), 0);
    // The CSP would stop an injected handler from running anyway: prove nothing was
    // injected in the first place (no element made from these strings exists).
    for (const page of [a.page, b.page]) {
      assert.equal(await page.locator('img[src="x"], [onerror], [onload]').count(), 0, "no injected element");
    }
  } finally {
    await rename(attacker, oldName).catch(() => {});
    await a.context.close();
    await b.context.close();
  }
});

/** A page on another origin whose form posts a message to the chat server on load. */
function attackerSite(target, fields) {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${String(v).replace(/"/g, "&quot;")}">`)
    .join("");
  const html = `<!doctype html><html><body><form id="f" method="POST" action="${target}">${inputs}</form><script>document.getElementById("f").submit()</script></body></html>`;
  const server = createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end(html);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

test("a cross-site form POST with the session cookie is refused", T, async () => {
  const s = suffix();
  const channel = `Csrf ${s}`;
  await createChannel("hamlet@zulip.com", channel, ["hamlet@zulip.com"]);
  const victim = await person();
  const site = await attackerSite(`${SERVER}/api/v1/messages`, { type: "stream", to: channel, topic: "csrf", content: `forged ${s}` });
  const port = site.address().port;
  try {
    await signInWithPassword(victim.page, "hamlet@zulip.com");
    // From another site (localhost is not 127.0.0.1) and from another origin of the same site.
    for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
      const page = await victim.context.newPage();
      const answer = page.waitForResponse((r) => r.url().startsWith(`${SERVER}/api/v1/messages`), { timeout: 15000 });
      await page.goto(`${origin}/`);
      const r = await answer;
      assert.ok(r.status() === 401 || r.status() === 403, `${origin}: refused (${r.status()})`);
      await page.close();
    }
    await new Promise((r) => setTimeout(r, 500));
    const found = await messagesIn("hamlet@zulip.com", [{ operator: "channel", operand: channel }]);
    assert.equal(found.filter((m) => m.content.includes(`forged ${s}`)).length, 0, "no message was created");
  } finally {
    site.close();
    await victim.context.close();
  }
});

test("a signed-out session's cookie is refused", T, async () => {
  const alice = await person();
  try {
    await signInWithPassword(alice.page, "othello@zulip.com");
    const cookies = await alice.context.cookies(SERVER);
    const session = cookies.find((c) => c.name === "sessionid");
    const csrf = cookies.find((c) => c.name === "csrftoken");
    assert.ok(session, "a session cookie was set");
    assert.equal(session.httpOnly, true, "the session cookie is HttpOnly");
    const header = { Cookie: `sessionid=${session.value}; csrftoken=${csrf?.value ?? ""}`, "X-CSRFToken": csrf?.value ?? "" };
    const live = await fetch(`${SERVER}/api/v1/users/me`, { headers: header });
    assert.equal(live.status, 200, "the cookie works while signed in");

    await alice.page.getByRole("button", { name: "Log out", exact: true }).click();
    await alice.page.waitForURL(/\/login\/$/);
    const replay = await fetch(`${SERVER}/api/v1/users/me`, { headers: header });
    assert.equal(replay.status, 401, "the old cookie is refused");
    const post = await fetch(`${SERVER}/api/v1/register`, { method: "POST", headers: header });
    assert.equal(post.status, 401);
    await shot(alice.page, "21-signed-out-cookie-refused");
  } finally {
    await alice.context.close();
  }
});

test("the pages carry a Content-Security-Policy without inline script", T, async () => {
  const r = await fetch(`${SERVER}/login/`, { headers: { "Sec-Fetch-Mode": "navigate", Accept: "text/html" } });
  assert.equal(r.status, 200);
  const csp = r.headers.get("content-security-policy") ?? "";
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.doesNotMatch(csp, /script-src[^;]*unsafe-inline/);
  assert.equal(r.headers.get("x-content-type-options"), "nosniff");
  const html = await r.text();
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);
});
