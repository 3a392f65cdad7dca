// Math typesetting for the worker: the `katex` npm package (the version in package.json,
// whose output Zulip's test suite expects), bundled by worker-build's esbuild step and
// called from Rust (src/markdown/math.rs). Zulip calls KaTeX with only `displayMode` set
// and shows a formula KaTeX rejects as its source; so does this. `strict: "ignore"` only
// silences the log line KaTeX's default ("warn") writes for non-LaTeX input such as
// unicode letters in math; the HTML is the same.
import katex from "katex";

export function renderTex(tex, display) {
  try {
    return katex.renderToString(tex, { displayMode: display, strict: "ignore" });
  } catch (error) {
    if (!(error instanceof katex.ParseError)) {
      console.error("KaTeX failed:", error);
    }
    return undefined;
  }
}
