// Calls to the server: /api/v1 with the session cookie and the CSRF header, bodies
// form-encoded with lists and objects JSON-encoded into one field, as Zulip's web app does.

export class ApiError extends Error {
  constructor(
    public status: number,
    public code: string,
    msg: string,
    public body: Record<string, unknown> = {},
  ) {
    super(msg);
  }
}

let csrfCache: string | undefined;
/** The csrftoken cookie's value, read once (reading document.cookie is not free). */
export function csrfToken(): string {
  if (csrfCache) return csrfCache;
  const m = /(?:^|;\s*)csrftoken=([^;]*)/.exec(document.cookie);
  csrfCache = m ? decodeURIComponent(m[1]!) : "";
  return csrfCache;
}

type Params = Record<string, unknown>;

export function encodeParams(params: Params): URLSearchParams {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    body.set(k, typeof v === "string" ? v : JSON.stringify(v));
  }
  return body;
}

async function parse(resp: Response): Promise<Record<string, unknown>> {
  let data: Record<string, unknown>;
  try {
    data = (await resp.json()) as Record<string, unknown>;
  } catch {
    throw new ApiError(resp.status, "NETWORK", `The server answered ${resp.status}`);
  }
  if (!resp.ok || data.result === "error") {
    throw new ApiError(resp.status, String(data.code ?? "BAD_REQUEST"), String(data.msg ?? `Error ${resp.status}`), data);
  }
  return data;
}

/** Called when the server says the session is gone (401 from any API call). */
let onUnauthorized: () => void = () => {};
export function setUnauthorizedHandler(f: () => void): void {
  onUnauthorized = f;
}

export async function call<T = Record<string, unknown>>(
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  params: Params | FormData = {},
  opts: { signal?: AbortSignal } = {},
): Promise<T> {
  let url = `/api/v1/${path}`;
  const init: RequestInit = {
    method,
    credentials: "same-origin",
    headers: { "X-CSRFToken": csrfToken() } as Record<string, string>,
    signal: opts.signal,
  };
  // A file upload (avatar) goes as multipart/form-data, other bodies form-encoded.
  const encoded = params instanceof FormData ? params : encodeParams(params);
  if (method === "GET") {
    const q = encoded.toString();
    if (q) url += `?${q}`;
  } else {
    init.body = encoded;
  }
  let resp: Response;
  try {
    resp = await fetch(url, init);
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    throw new ApiError(0, "NETWORK", "Could not reach the server");
  }
  try {
    return (await parse(resp)) as T;
  } catch (e) {
    // The token may have changed (signed in again in another tab): read the cookie anew.
    if (e instanceof ApiError && e.code === "CSRF_FAILED") csrfCache = undefined;
    if (e instanceof ApiError && e.status === 401 && path !== "events") onUnauthorized();
    throw e;
  }
}

export const get = <T = Record<string, unknown>>(path: string, params?: Params, opts?: { signal?: AbortSignal }) =>
  call<T>("GET", path, params, opts);
export const post = <T = Record<string, unknown>>(path: string, params?: Params | FormData) => call<T>("POST", path, params);
export const patch = <T = Record<string, unknown>>(path: string, params?: Params) => call<T>("PATCH", path, params);
export const del = <T = Record<string, unknown>>(path: string, params?: Params) => call<T>("DELETE", path, params);

/** Signing in and out (not under /api/v1; same envelope). */
export async function accountPost(path: string, params: Record<string, string>): Promise<Record<string, unknown>> {
  let resp: Response;
  try {
    resp = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken() },
      body: new URLSearchParams(params),
    });
  } catch {
    throw new ApiError(0, "NETWORK", "Could not reach the server");
  }
  return parse(resp);
}

/** POST /user_uploads with progress (fetch has no upload progress; XHR does). */
export function upload(
  file: File,
  onProgress: (fraction: number) => void,
): Promise<{ url: string; filename: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/v1/user_uploads");
    xhr.withCredentials = true;
    xhr.setRequestHeader("X-CSRFToken", csrfToken());
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let data: Record<string, unknown> = {};
      try {
        data = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON */
      }
      if (xhr.status >= 200 && xhr.status < 300 && data.result !== "error") {
        resolve({ url: String(data.url ?? data.uri), filename: String(data.filename ?? file.name) });
      } else {
        reject(new ApiError(xhr.status, String(data.code ?? "BAD_REQUEST"), String(data.msg ?? `Upload failed (${xhr.status})`)));
      }
    };
    xhr.onerror = () => reject(new ApiError(0, "NETWORK", "Upload failed: could not reach the server"));
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
}
