//! gzip through the runtime's `CompressionStream`: the platform compresses, so the worker
//! bundle carries no deflate encoder (data export archives are its one user).

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    /// `CompressionStream`, which web-sys offers only behind its unstable-APIs flag.
    type CompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<CompressionStream, JsValue>;
}

/// `bytes` gzipped: `new Response(new Blob([bytes]).stream().pipeThrough(new
/// CompressionStream("gzip"))).arrayBuffer()`.
pub async fn gzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let fail = |what: &str, err: JsValue| format!("gzip: {what}: {err:?}");
    let parts = js_sys::Array::of1(&Uint8Array::from(bytes));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(|e| fail("blob", e))?;
    let stream = CompressionStream::new("gzip").map_err(|e| fail("CompressionStream", e))?;
    let compressed = blob.stream().pipe_through(stream.unchecked_ref::<web_sys::ReadableWritablePair>());
    let response = web_sys::Response::new_with_opt_readable_stream(Some(&compressed)).map_err(|e| fail("response", e))?;
    let buffer = JsFuture::from(response.array_buffer().map_err(|e| fail("read", e))?).await.map_err(|e| fail("read", e))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}
