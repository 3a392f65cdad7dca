import type { Narrow } from "./types";
import { serverNarrow } from "./narrow";

/** The query of GET /messages for a window of a narrow. */
export function messagesParams(narrow: Narrow, anchor: string | number, before: number, after: number, includeAnchor = true) {
  return {
    anchor: String(anchor),
    num_before: String(before),
    num_after: String(after),
    include_anchor: includeAnchor ? "true" : "false",
    narrow: serverNarrow(narrow),
    apply_markdown: "true",
    client_gravatar: "false",
  };
}
