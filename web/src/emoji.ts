// Emoji: the server's list (emoji_api.json: code → names), shown as Unicode characters
// from their code points (no sprite sheets), plus the organization's custom emoji.

import { state } from "./store";

export interface EmojiChoice {
  name: string;
  code: string;
  type: "unicode_emoji" | "realm_emoji" | "zulip_extra_emoji";
  /** All names, for search. */
  aliases: string[];
  url?: string;
}

export function codeToChar(code: string): string {
  try {
    return String.fromCodePoint(...code.split("-").map((h) => parseInt(h, 16)));
  } catch {
    return "";
  }
}

let unicode: EmojiChoice[] | undefined;
let loading: Promise<EmojiChoice[]> | undefined;

export function loadEmoji(): Promise<EmojiChoice[]> {
  if (unicode) return Promise.resolve(unicode);
  loading ??= fetch(state.realm.emojiDataUrl, { credentials: "same-origin" })
    .then((r) => r.json())
    .then((d: { code_to_names: Record<string, string[]> }) => {
      unicode = Object.entries(d.code_to_names).map(([code, names]) => ({
        name: names[0]!,
        code,
        type: "unicode_emoji" as const,
        aliases: names,
      }));
      return unicode;
    })
    .catch((e) => {
      loading = undefined;
      throw e;
    });
  return loading;
}

export function customEmoji(): EmojiChoice[] {
  return [...state.realmEmoji.values()]
    .filter((e) => !e.deactivated)
    .map((e) => ({ name: e.name, code: e.id, type: "realm_emoji" as const, aliases: [e.name], url: e.source_url }));
}

/** The popular few shown first, as Zulip's picker does. */
export const POPULAR = ["1f44d", "1f389", "1f642", "2764", "1f6e0", "1f419"];

export function searchEmoji(all: EmojiChoice[], query: string, limit = 120): EmojiChoice[] {
  const q = query.trim().toLowerCase().replace(/^:|:$/g, "").replace(/ /g, "_");
  if (!q) {
    const popular = POPULAR.map((c) => all.find((e) => e.code === c)).filter(Boolean) as EmojiChoice[];
    return [...popular, ...all.filter((e) => !POPULAR.includes(e.code))].slice(0, limit);
  }
  const starts = all.filter((e) => e.aliases.some((a) => a.startsWith(q)));
  const contains = all.filter((e) => !starts.includes(e) && e.aliases.some((a) => a.includes(q)));
  return [...starts, ...contains].slice(0, limit);
}

/**
 * Server-rendered emoji spans (`<span class="emoji emoji-1f642" ...>:smile:</span>`) get
 * their Unicode character as text; called on each message body after it is inserted.
 */
export function showEmojiAsText(root: HTMLElement): void {
  for (const el of root.querySelectorAll<HTMLElement>("span.emoji")) {
    const cls = [...el.classList].find((c) => c.startsWith("emoji-"));
    if (!cls) continue;
    const ch = codeToChar(cls.slice("emoji-".length));
    if (ch && el.textContent !== ch) {
      if (!el.title) el.title = el.textContent ?? "";
      el.textContent = ch;
    }
  }
}
