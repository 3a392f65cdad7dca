// Shared helpers of the browser tests: Debian's Chromium through playwright-core, people
// signed in in their own browser contexts, setup through the API (Basic auth with a
// development API key), screenshots into web/test-results/.

import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

export const SERVER = (process.env.TEST_SERVER_URL ?? "").replace(/\/$/, "");
if (!SERVER) throw new Error("TEST_SERVER_URL is not set (run through scripts/with-test-server.sh)");
export const PASSWORD = "dev-password";
const here = dirname(fileURLToPath(import.meta.url));
export const RESULTS = join(here, "../../test-results");
mkdirSync(RESULTS, { recursive: true });

export function suffix() {
  return Math.random().toString(36).slice(2, 8);
}

let browser;
export async function launch() {
  // playwright-core gives each launch a fresh temporary profile (--user-data-dir) itself.
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
  return browser;
}

export async function close() {
  await browser?.close();
}

/**
 * A person's browser context with an alert hook: window.alert/confirm/prompt calls and
 * dialogs are recorded (page.alerts), so a test can prove no injected script ran.
 */
export async function person(options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  await context.addInitScript(() => {
    window.__alerts = [];
    for (const name of ["alert", "confirm", "prompt"]) {
      window[name] = (...args) => {
        window.__alerts.push([name, String(args[0])]);
        return name === "confirm" ? true : name === "prompt" ? null : undefined;
      };
    }
  });
  // A page load waits on the local worker; on a loaded 2-core machine that has taken over
  // Playwright's 30 s default (a CI run beside two builds), so navigations get 90 s.
  context.setDefaultNavigationTimeout(90_000);
  const page = await context.newPage();
  page.dialogs = [];
  page.on("dialog", (d) => {
    page.dialogs.push(d.message());
    void d.dismiss().catch(() => {});
  });
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  return { context, page };
}

export async function alertsOf(page) {
  const recorded = await page.evaluate(() => window.__alerts ?? []);
  return [...recorded.map((a) => a.join(": ")), ...page.dialogs.map((d) => `dialog: ${d}`)];
}

export async function shot(page, name) {
  await page.screenshot({ path: join(RESULTS, `${name}.png`) });
}

/** Signs in with the email and password form. */
export async function signInWithPassword(page, email, password = PASSWORD) {
  await page.goto(`${SERVER}/login/`);
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Log in", exact: true }).click();
  await page.getByRole("button", { name: "Log out", exact: true }).waitFor();
}

/** Signs in with one click on the development login list. */
export async function signInWithDevLogin(page, email) {
  await page.goto(`${SERVER}/login/`);
  await page.getByRole("button", { name: email, exact: true }).click();
  await page.getByRole("button", { name: "Log out", exact: true }).waitFor();
}

// ---- The API from Node, for setup and checks ------------------------------------------------

const keys = new Map();
export async function apiKey(email) {
  if (keys.has(email)) return keys.get(email);
  const r = await fetch(`${SERVER}/api/v1/dev_fetch_api_key`, { method: "POST", body: new URLSearchParams({ username: email }) });
  const body = await r.json();
  assert.equal(body.result, "success", `dev_fetch_api_key ${email}: ${JSON.stringify(body)}`);
  keys.set(email, body.api_key);
  return body.api_key;
}

export async function api(email, method, path, params = {}) {
  const key = await apiKey(email);
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) form.set(k, typeof v === "string" ? v : JSON.stringify(v));
  let url = `${SERVER}/api/v1/${path}`;
  const init = { method, headers: { Authorization: `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}` } };
  if (method === "GET") url += `?${form}`;
  else init.body = form;
  const r = await fetch(url, init);
  const body = await r.json();
  if (body.result !== "success") throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * A fresh channel with the given people subscribed; answers its id. The notification bot's
 * opening message is marked read for them all, so the tests' unread counts start at zero.
 */
export async function createChannel(owner, name, emails) {
  await api(owner, "POST", "users/me/subscriptions", {
    subscriptions: [{ name, description: "" }],
    principals: emails,
  });
  const r = await api(owner, "GET", "get_stream_id", { stream: name });
  for (const email of emails) await api(email, "POST", "mark_stream_as_read", { stream_id: String(r.stream_id) });
  return r.stream_id;
}

export async function sendToChannel(email, channel, topic, content) {
  return api(email, "POST", "messages", { type: "stream", to: channel, topic, content });
}

export async function messagesIn(email, narrow, anchor = "newest", before = 100) {
  const r = await api(email, "GET", "messages", { narrow, anchor, num_before: String(before), num_after: "0" });
  return r.messages;
}

// ---- UI helpers ----------------------------------------------------------------------------------

export function channelsNav(page) {
  return page.getByRole("navigation", { name: "Channels" });
}

export function messagesRegion(page) {
  return page.getByRole("region", { name: "Messages" });
}

export function messageArticle(page, text) {
  return messagesRegion(page).getByRole("article").filter({ hasText: text });
}

/** Polls `f` until it answers a truthy value (or throws after `timeout`). */
export async function eventually(f, { timeout = 15000, interval = 200, message = "condition" } = {}) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await f();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${message} (last: ${last})`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

/** The unread count shown for a sidebar link (its aria-describedby), 0 when none. */
export async function unreadCountOf(link) {
  return link.evaluate((el) => {
    const id = el.getAttribute("aria-describedby");
    const count = id && document.getElementById(id);
    return count ? parseInt(count.textContent ?? "0", 10) || 0 : 0;
  });
}

export async function openChannel(page, name) {
  await channelsNav(page).getByRole("link", { name, exact: true }).click();
  await messagesRegion(page).waitFor();
}

export async function composeToChannel(page, channelName, topic, content) {
  const compose = page.getByRole("form", { name: "Compose" });
  await compose.getByRole("button", { name: "Channel message" }).click();
  await compose.getByRole("combobox", { name: "Channel" }).selectOption({ label: `#${channelName}` });
  await compose.getByRole("textbox", { name: "Topic" }).fill(topic);
  await compose.getByRole("textbox", { name: "Message" }).fill(content);
  await compose.getByRole("button", { name: "Send", exact: true }).click();
}
