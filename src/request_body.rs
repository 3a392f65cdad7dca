//! A request's body, read once: form fields (with the query string, as [`Params`]),
//! multipart files, or the raw bytes of a tus chunk. Oversized bodies are refused before
//! they are read.

use worker::{FormEntry, Method, Request};

use crate::error::{ApiError, ApiResult};
use crate::params::Params;

/// A file sent in a multipart body.
pub struct UploadedFile {
    pub field: String,
    pub name: String,
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// The raw body of an `application/offset+octet-stream` request (a tus chunk).
pub enum OctetBody {
    /// Another content type: the body was read as parameters.
    Absent,
    Bytes(Vec<u8>),
    /// Reading it failed part way (the connection dropped).
    Broken,
}

/// The largest form-encoded body: room for a bot's whole storage (Zulip allows 10 million
/// characters) and any real request, small enough to refuse before reading it.
pub const MAX_FORM_BODY_BYTES: u64 = 32 << 20;
/// A multipart body carries one upload and a little framing.
const MULTIPART_OVERHEAD_BYTES: u64 = 1 << 20;

/// Refuses a body whose declared length is over the bound, before reading it.
fn check_body_size(req: &Request, multipart: bool) -> ApiResult<()> {
    let declared = req.headers().get("Content-Length")?.and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(0);
    let max_upload_mib = crate::domain::register_state::MAX_FILE_UPLOAD_SIZE_MIB as u64;
    if multipart && declared > (max_upload_mib << 20) + MULTIPART_OVERHEAD_BYTES {
        return Err(ApiError::upload_too_large(max_upload_mib as i64));
    }
    if !multipart && declared > MAX_FORM_BODY_BYTES {
        return Err(ApiError::request_too_large(MAX_FORM_BODY_BYTES as usize));
    }
    Ok(())
}

/// What a request carries besides its headers.
pub struct RequestBody {
    pub params: Params,
    pub files: Vec<UploadedFile>,
    pub octets: OctetBody,
    /// The text of a body that is neither form-encoded nor multipart nor a tus chunk (a
    /// webhook's JSON), up to [`MAX_TEXT_BODY_BYTES`].
    pub text: Option<String>,
}

/// The largest JSON body kept (an incoming webhook's payload): GitHub's and GitLab's real
/// payloads are far smaller; a bigger one is refused before it is parsed.
pub const MAX_TEXT_BODY_BYTES: usize = 5 << 20;

impl RequestBody {
    /// Reads the body by its content type; the query string's fields join the form's.
    pub async fn read(req: &mut Request, query: &str) -> ApiResult<RequestBody> {
        let query = Params::parse_urlencoded(query);
        let content_type = req.headers().get("Content-Type")?.unwrap_or_default().to_ascii_lowercase();
        let mut body = Vec::new();
        let mut files = Vec::new();
        let mut octets = OctetBody::Absent;
        let mut kept_text = None;
        check_body_size(req, content_type.starts_with("multipart/form-data"))?;
        if content_type.starts_with("multipart/form-data") {
            let form = req.form_data().await.map_err(|_| ApiError::bad_request("Malformed multipart body"))?;
            let (form, names) = form_field_names(form);
            for name in names {
                for entry in form.get_all(&name).unwrap_or_default() {
                    match entry {
                        FormEntry::Field(value) => body.push((name.clone(), value)),
                        FormEntry::File(file) => files.push(UploadedFile {
                            field: name.clone(),
                            name: file.name(),
                            content_type: file.type_(),
                            bytes: file.bytes().await?,
                        }),
                    }
                }
            }
        } else if content_type.starts_with(crate::domain::tus::CHUNK_CONTENT_TYPE) {
            octets = match req.bytes().await {
                Ok(bytes) => OctetBody::Bytes(bytes),
                Err(_) => OctetBody::Broken,
            };
        } else if req.method() != Method::Get {
            // Form-encoded is the API's body format; clients that omit the content type
            // (curl -d does not) still send it form-encoded.
            let text = req.text().await.unwrap_or_default();
            let form = content_type.is_empty() || content_type.starts_with("application/x-www-form-urlencoded");
            // A form may be as large as a bot's whole storage; any other body is a
            // webhook's payload, kept whole only up to its own bound.
            let limit = if form { MAX_FORM_BODY_BYTES as usize } else { MAX_TEXT_BODY_BYTES };
            if text.len() > limit {
                return Err(ApiError::request_too_large(limit));
            }
            if content_type.starts_with("application/json") {
                kept_text = Some(text);
            } else {
                body = Params::parse_urlencoded(&text);
                // A JSON payload sent with another type (a webhook's `text/plain`, or a
                // form type, as Zulip's own webhook tests send Grafana's).
                if !form || text.trim_start().starts_with(['{', '[']) {
                    kept_text = Some(text);
                }
            }
        }
        Ok(RequestBody { params: Params::new(query, body), files, octets, text: kept_text })
    }
}

/// The distinct field names of a multipart body (workers-rs has no iterator over them).
fn form_field_names(form: worker::FormData) -> (worker::FormData, Vec<String>) {
    use wasm_bindgen::{JsCast, JsValue};
    let mut names = Vec::new();
    let raw: web_sys::FormData = JsValue::from(form).unchecked_into();
    let iter = js_sys::try_iter(&raw.keys()).ok().flatten();
    if let Some(iter) = iter {
        for key in iter.flatten() {
            if let Some(name) = key.as_string() {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    (worker::FormData::from(JsValue::from(raw)), names)
}
