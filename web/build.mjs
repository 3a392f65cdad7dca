// Builds web/dist: index.html, the hashed app bundle (ES module, minified), its CSS,
// KaTeX's CSS and fonts, and the _headers file that sets the Content-Security-Policy.
import { build } from "esbuild";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, "dist");
// Empty dist without removing the folder itself: a running `wrangler dev` watches it, and
// loses it (serving 404s) when the folder is replaced.
mkdirSync(dist, { recursive: true });
for (const entry of readdirSync(dist)) rmSync(join(dist, entry), { recursive: true, force: true });
mkdirSync(join(dist, "assets"), { recursive: true });

const result = await build({
  entryPoints: { app: join(root, "src/boot.ts") },
  splitting: true,
  chunkNames: "[name]-[hash]",
  bundle: true,
  format: "esm",
  minify: process.env.NO_MINIFY ? false : true,
  sourcemap: false,
  target: ["es2020", "chrome100", "firefox100", "safari15"],
  jsx: "automatic",
  jsxImportSource: "preact",
  outdir: join(dist, "assets"),
  entryNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  metafile: true,
  legalComments: "none",
  loader: { ".css": "css" },
  logLevel: "warning",
});

// KaTeX's stylesheet and the fonts it points at (fonts/…, relative to the CSS).
const katexDir = join(root, "node_modules/katex/dist");
mkdirSync(join(dist, "katex"), { recursive: true });
cpSync(join(katexDir, "katex.min.css"), join(dist, "katex/katex.min.css"));
cpSync(join(katexDir, "fonts"), join(dist, "katex/fonts"), { recursive: true });

// Files served as they are at Zulip's static paths: the default organization logo
// (`/static/images/logo/zulip-org-logo.svg`, the register's `realm_logo_url` while none is
// uploaded; src/domain/realm_icon.rs).
cpSync(join(root, "static"), join(dist, "static"), { recursive: true });

// The first page's chunks: the entry and what it imports, statically or not, except the
// modules loaded on demand (LAZY), which are neither preloaded nor counted in its size.
const LAZY = new Set(["src/views/settings/Settings.tsx"]);
const meta = result.metafile.outputs;
const short = (p) => p.slice(p.indexOf("assets/"));
const entry = Object.keys(meta).find((p) => meta[p].entryPoint === "src/boot.ts");
const firstPage = new Set();
(function walk(p) {
  if (firstPage.has(p)) return;
  firstPage.add(p);
  for (const i of meta[p].imports) {
    if (i.external || !meta[i.path] || LAZY.has(meta[i.path].entryPoint)) continue;
    walk(i.path);
  }
})(entry);
const js = short(entry);
const chunks = [...firstPage].map(short).filter((p) => p.endsWith(".js") && p !== js);
const lazy = Object.keys(meta).map(short).filter((p) => p.endsWith(".js") && p !== js && !chunks.includes(p));
const css = Object.keys(meta).map(short).find((p) => p.endsWith(".css"));
const katexVersion = JSON.parse(readFileSync(join(root, "node_modules/katex/package.json"), "utf8")).version;

writeFileSync(
  join(dist, "index.html"),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Team chat</title>
<link rel="stylesheet" href="/katex/katex.min.css?v=${katexVersion}">
<link rel="stylesheet" href="/${css}">
<script type="module" src="/${js}"></script>
${chunks.map((c) => `<link rel="modulepreload" href="/${c}">`).join("\n")}
</head>
<body>
<div id="app"></div>
<noscript>This chat needs JavaScript.</noscript>
</body>
</html>
`,
);

const csp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https://secure.gravatar.com",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join("; ");
writeFileSync(
  join(dist, "_headers"),
  `/*
  Content-Security-Policy: ${csp}
  X-Content-Type-Options: nosniff
  Referrer-Policy: same-origin

/assets/*
  Cache-Control: public, max-age=31536000, immutable

/katex/*
  Cache-Control: public, max-age=604800
`,
);

// The first page's JavaScript + CSS, gzip (KaTeX's fonts excluded, its CSS included).
const gz = (p) => gzipSync(readFileSync(join(dist, p)), { level: 9 }).length;
const sizes = { js: [js, ...chunks].reduce((n, p) => n + gz(p), 0), css: gz(css), katexCss: gz("katex/katex.min.css") };
const total = sizes.js + sizes.css + sizes.katexCss;
const lazyJs = lazy.reduce((n, p) => n + gz(p), 0);
writeFileSync(join(dist, "size.json"), JSON.stringify({ ...sizes, total, lazyJs }, null, 1) + "\n");
console.log(`web/dist: ${[js, ...chunks, css].join(" ")}; first page JS+CSS gzip ${(total / 1024).toFixed(1)} KB (js ${(sizes.js / 1024).toFixed(1)}, css ${(sizes.css / 1024).toFixed(1)}, katex css ${(sizes.katexCss / 1024).toFixed(1)}); loaded on demand: ${lazy.join(" ")} ${(lazyJs / 1024).toFixed(1)} KB`);
