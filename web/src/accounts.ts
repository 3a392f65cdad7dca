// The open `/accounts/...` reads of the sign-up and password pages (their writes use
// `accountPost`): JSON envelopes, errors as `ApiError`.
import { ApiError } from "./api";

export async function accountGet(path: string): Promise<Record<string, unknown>> {
  let resp: Response;
  try {
    resp = await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } });
  } catch {
    throw new ApiError(0, "NETWORK", "Could not reach the server");
  }
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

/** The path segment after `prefix` (`/join/<key>/` → `<key>`), or "" when there is none. */
export function keyFromPath(prefix: string, pathname: string = location.pathname): string {
  if (!pathname.startsWith(prefix)) return "";
  return decodeURIComponent(pathname.slice(prefix.length).split("/")[0] ?? "");
}
