// The web client's numbers for `make bench`: JavaScript + CSS of the first page (gzip,
// KaTeX's fonts excluded), and the time from a signed-in page load to the first message list
// painted, beside the register call plus the one GET /messages it needs, measured in the
// same browser and run. Prints one JSON object.
//
// Usage: TEST_SERVER_URL=http://127.0.0.1:PORT node test/bench.mjs [rounds]

import { chromium } from "playwright-core";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SERVER = (process.env.TEST_SERVER_URL ?? "").replace(/\/$/, "");
if (!SERVER) throw new Error("TEST_SERVER_URL is not set");
const rounds = Number(process.argv[2] ?? 15);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const size = JSON.parse(readFileSync(join(root, "dist/size.json"), "utf8"));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // The first message painted: the first <article> in the DOM, then the frame that shows it.
  // A promise, not polling: the page does no extra work while it loads.
  await context.addInitScript(() => {
    window.__painted = new Promise((resolve) => {
      new MutationObserver((_, obs) => {
        if (!document.querySelector("article")) return;
        obs.disconnect();
        requestAnimationFrame(() => setTimeout(() => resolve((window.__firstMessagePaint = performance.now())), 0));
      }).observe(document, { childList: true, subtree: true });
    });
  });
  const page = await context.newPage();
  const login = await page.request.post(`${SERVER}/accounts/login/local/`, { form: { direct_email: "iago@zulip.com" } });
  if (!login.ok()) throw new Error(`dev login: ${login.status()}`);
  await page.goto(`${SERVER}/#narrow/channel/0-Verona`);
  const verona = await page.evaluate(async () => {
    const csrf = decodeURIComponent(/csrftoken=([^;]*)/.exec(document.cookie)?.[1] ?? "");
    const r = await fetch("/api/v1/get_stream_id?stream=Verona", { headers: { "X-CSRFToken": csrf } });
    return (await r.json()).stream_id;
  });
  // A full first window: 50 messages in Verona (sent once per server).
  await page.evaluate(async (verona) => {
    const csrf = decodeURIComponent(/csrftoken=([^;]*)/.exec(document.cookie)?.[1] ?? "");
    const h = { "X-CSRFToken": csrf };
    const q = new URLSearchParams({ anchor: "newest", num_before: "50", num_after: "0", narrow: JSON.stringify([{ operator: "channel", operand: verona }]) });
    const have = (await fetch(`/api/v1/messages?${q}`, { headers: h }).then((r) => r.json())).messages.length;
    for (let i = have; i < 50; i++) {
      const content = `Bench message ${i}: **some** Markdown, \`code\`, a [link](https://example.com) and :smile:`;
      await fetch("/api/v1/messages", { method: "POST", headers: h, body: new URLSearchParams({ type: "stream", to: String(verona), topic: `bench ${i % 5}`, content }) });
    }
  }, verona);
  const url = `${SERVER}/#narrow/channel/${verona}-Verona`;

  const page_ms = [];
  const api_ms = [];
  const ready_ms = [];
  const mark_ms = {};
  for (let i = 0; i < rounds + 1; i++) {
    await page.goto("about:blank");
    await page.goto(url);
    const t = await page.evaluate(() => window.__painted);
    // When the page had both answers (the rest is the app's own work: script, render, paint).
    const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType("mark").map((m) => [m.name, m.startTime])));
    for (const [k, v] of Object.entries(marks)) (mark_ms[k] ??= []).push(v);
    const ready = await page.evaluate(() =>
      Math.max(...performance.getEntriesByType("resource").filter((e) => /\/api\/v1\/(register|messages)/.test(e.name)).slice(0, 2).map((e) => e.responseEnd)),
    );
    // The same two calls the page makes, from the same page, one after the other.
    const a = await page.evaluate(async (verona) => {
      const csrf = decodeURIComponent(/csrftoken=([^;]*)/.exec(document.cookie)?.[1] ?? "");
      const h = { "X-CSRFToken": csrf };
      const t0 = performance.now();
      const reg = await fetch("/api/v1/register", {
        method: "POST",
        headers: h,
        body: new URLSearchParams({
          apply_markdown: "true", client_gravatar: "false", slim_presence: "true",
          client_capabilities: JSON.stringify({ notification_settings_null: true, bulk_message_deletion: true, user_avatar_url_field_optional: false, stream_typing_notifications: true, user_settings_object: true, empty_topic_name: true }),
        }),
      }).then((r) => r.json());
      const q = new URLSearchParams({ anchor: "first_unread", num_before: "25", num_after: "25", narrow: JSON.stringify([{ operator: "channel", operand: verona }]), apply_markdown: "true", client_gravatar: "false" });
      await fetch(`/api/v1/messages?${q}`, { headers: h }).then((r) => r.json());
      const elapsed = performance.now() - t0;
      await fetch("/api/v1/events", { method: "DELETE", headers: h, body: new URLSearchParams({ queue_id: reg.queue_id }) });
      return elapsed;
    }, verona);
    if (i === 0) continue; // warm-up: caches, the isolate, the first compile
    page_ms.push(t);
    api_ms.push(a);
    ready_ms.push(ready);
  }
  const page_median = median(page_ms);
  const api_median = median(api_ms);
  console.log(
    JSON.stringify({
      first_page_js_css_gzip_kb: +(size.total / 1024).toFixed(1),
      js_gzip_kb: +(size.js / 1024).toFixed(1),
      css_gzip_kb: +((size.css + size.katexCss) / 1024).toFixed(1),
      rounds,
      load_to_first_messages_ms: +page_median.toFixed(1),
      load_to_data_ready_ms: +median(ready_ms).toFixed(1),
      register_plus_messages_ms: +api_median.toFixed(1),
      marks_ms: Object.fromEntries(Object.entries(mark_ms).map(([k, v]) => [k, +median(v).toFixed(1)])),
      ratio: +(page_median / api_median).toFixed(2),
    }),
  );
} finally {
  await browser.close();
}
