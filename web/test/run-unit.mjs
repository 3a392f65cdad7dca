// Unit tests in Node, no browser: each test/unit/*.test.ts is bundled by esbuild into
// node_modules/.cache/unit-tests/ and run with `node --test`.
import { build } from "esbuild";
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "node_modules/.cache/unit-tests");
rmSync(out, { recursive: true, force: true });
const entries = readdirSync(join(root, "test/unit"))
  .filter((f) => f.endsWith(".test.ts") || f.endsWith(".test.tsx"))
  .map((f) => join(root, "test/unit", f));
await build({
  entryPoints: entries,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outdir: out,
  outExtension: { ".js": ".mjs" },
  jsx: "automatic",
  jsxImportSource: "preact",
  packages: "external",
  logLevel: "warning",
});
const files = readdirSync(out).filter((f) => f.endsWith(".mjs")).map((f) => join(out, f));
const r = spawnSync(process.execPath, ["--test", "--test-reporter=spec", ...files], { stdio: "inherit" });
process.exit(r.status ?? 1);
