// The worker's KaTeX module (src/markdown/katex.mjs) behind stdin/stdout, for native
// tests: one JSON request per line ({"tex": "...", "display": false}), one JSON answer per
// line ({"html": "..."} or {"html": null} when KaTeX rejects the formula).
import { createInterface } from "node:readline";
import { renderTex } from "../../src/markdown/katex.mjs";

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  const { tex, display } = JSON.parse(line);
  const html = renderTex(tex, display) ?? null;
  process.stdout.write(JSON.stringify({ html }) + "\n");
}
