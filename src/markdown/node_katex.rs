//! For native tests: the worker's KaTeX module run by one shared `node` process
//! (`tests/katex/render_lines.mjs`, the `katex` package from the project's node_modules).
//! A missing `node` or `katex` fails the test that asks for it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use super::TexRenderer;

struct Node {
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

fn node() -> &'static Mutex<Node> {
    static NODE: OnceLock<Mutex<Node>> = OnceLock::new();
    NODE.get_or_init(|| {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/katex/render_lines.mjs");
        let mut child = Command::new("node")
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("`node` is required to typeset math in tests: {e}"));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Mutex::new(Node { _child: child, stdin, stdout })
    })
}

fn render(tex: &str, display: bool) -> Option<String> {
    let mut node = node().lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let request = serde_json::json!({ "tex": tex, "display": display });
    writeln!(node.stdin, "{request}").expect("node's KaTeX process accepts input");
    let mut line = String::new();
    node.stdout.read_line(&mut line).expect("node's KaTeX process answers");
    assert!(!line.is_empty(), "node's KaTeX process ended (is `katex` installed? run `npm ci`)");
    let answer: serde_json::Value = serde_json::from_str(&line).expect("a JSON answer");
    answer["html"].as_str().map(str::to_string)
}

/// KaTeX through node, as the worker typesets math.
pub fn renderer() -> TexRenderer {
    TexRenderer::new(render)
}
