// A screenshot of the client for the README: seeds a conversation in a fresh channel on the
// server at TEST_SERVER_URL (development users), signs in as Hamlet and captures the
// channel view. Usage: TEST_SERVER_URL=... node test/screenshot.mjs [out.png]

import { chromium } from "playwright-core";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const SERVER = (process.env.TEST_SERVER_URL ?? "").replace(/\/$/, "");
if (!SERVER) throw new Error("TEST_SERVER_URL is not set");
const out = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "../test-results/web-client.png");

const keys = new Map();
async function api(email, method, path, params = {}) {
  if (!keys.has(email)) {
    const r = await fetch(`${SERVER}/api/v1/dev_fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: email }) });
    keys.set(email, (await r.json()).api_key);
  }
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) form.set(k, typeof v === "string" ? v : JSON.stringify(v));
  const auth = { Authorization: `Basic ${Buffer.from(`${email}:${keys.get(email)}`).toString("base64")}` };
  const r = await fetch(`${SERVER}/api/v1/${path}${method === "GET" ? `?${form}` : ""}`, { method, headers: auth, body: method === "GET" ? undefined : form });
  const body = await r.json();
  if (body.result !== "success") throw new Error(`${path}: ${JSON.stringify(body)}`);
  return body;
}

const channel = "design";
const people = ["hamlet", "othello", "iago", "cordelia", "desdemona"].map((n) => `${n}@zulip.com`);
await api("iago@zulip.com", "POST", "users/me/subscriptions", { subscriptions: [{ name: channel, description: "How the product looks and works" }], principals: people });
const say = (who, topic, content) => api(`${who}@zulip.com`, "POST", "messages", { type: "stream", to: channel, topic, content });
await say("iago", "release plan", "The web client is ready for a first look. Open the organization's URL after `make dev` and sign in.");
await say("othello", "release plan", "Tried it on my phone: the sidebar folds away behind the menu button. Very usable.");
await say("cordelia", "release plan", "> the sidebar folds away behind the menu button\n\nSame on a small laptop window. @**King Hamlet** can we ship it on Friday?");
await say("hamlet", "release plan", "Friday works. Checklist:\n- [x] sign-in with sessions\n- [x] live updates through one event queue\n- [ ] announce it in #**Verona**");
await say("desdemona", "math rendering", "Server-side KaTeX works: $$e^{i\\pi} + 1 = 0$$");
await say("iago", "math rendering", "And code is highlighted:\n```python\ndef unread(messages):\n    return sum(1 for m in messages if \"read\" not in m.flags)\n```");
await say("othello", "math rendering", "```spoiler Does it handle spoilers?\nYes: click the header to open it.\n```");
await api("othello@zulip.com", "POST", "messages", { type: "direct", to: [(await api("hamlet@zulip.com", "GET", "users/me")).user_id], content: "Nice work on the client!" });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  await page.goto(`${SERVER}/login/`);
  await page.getByLabel("Email", { exact: true }).fill("hamlet@zulip.com");
  await page.getByLabel("Password", { exact: true }).fill("dev-password");
  await page.getByRole("button", { name: "Log in", exact: true }).click();
  await page.getByRole("navigation", { name: "Channels" }).getByRole("link", { name: channel, exact: true }).click();
  await page.getByRole("region", { name: "Messages" }).getByRole("article").first().waitFor();
  await page.waitForTimeout(1500);
  await page.screenshot({ path: out });
  console.log(out);
} finally {
  await browser.close();
}
