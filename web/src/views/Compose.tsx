import { useEffect, useRef, useState } from "preact/hooks";
import type { Message, Narrow } from "../types";
import { changed, names, state, setNotice } from "../store";
import { narrowChannelId, narrowDmIds, narrowTopic, dmPartners } from "../narrow";
import { narrowToHash, messageLink } from "../hash";
import { rawContent, renderPreview, sendMessage, typingActivity, typingStop, type Destination } from "../actions";
import { ApiError, patch, upload } from "../api";
import { Content } from "./Content";
import { IconClip, IconEye } from "./Icons";

type Mode = "channel" | "dm";

interface Draft {
  mode: Mode;
  streamId: number | undefined;
  topic: string;
  to: string;
  content: string;
}

const DRAFTS_KEY = "drafts-v1";

function loadDrafts(): Record<string, Draft> {
  try {
    return JSON.parse(localStorage.getItem(DRAFTS_KEY) ?? "{}");
  } catch {
    return {};
  }
}

function saveDraft(key: string, d: Draft): void {
  const all = loadDrafts();
  if (d.content.trim()) all[key] = d;
  else delete all[key];
  localStorage.setItem(DRAFTS_KEY, JSON.stringify(all));
}

function defaultsFor(narrow: Narrow | undefined): Draft {
  const d: Draft = { mode: "channel", streamId: undefined, topic: "", to: "", content: "" };
  if (!narrow) return d;
  const dm = narrowDmIds(narrow);
  if (dm) {
    d.mode = "dm";
    d.to = dm.map((id) => state.users.get(id)?.email ?? String(id)).join(", ");
    return d;
  }
  d.streamId = narrowChannelId(narrow);
  d.topic = narrowTopic(narrow) ?? "";
  return d;
}

/** Resolves the "To" field (emails or full names, comma-separated) to user ids. */
export function parseRecipients(to: string): { ids: number[]; unknown: string[] } {
  const ids: number[] = [];
  const unknown: string[] = [];
  for (const raw of to.split(",")) {
    const t = raw.trim();
    if (!t) continue;
    let id = state.usersByEmail.get(t.toLowerCase());
    if (id === undefined) {
      for (const u of state.users.values()) if (u.full_name.toLowerCase() === t.toLowerCase() && u.is_active !== false) id = u.user_id;
    }
    if (id === undefined) unknown.push(t);
    else if (!ids.includes(id)) ids.push(id);
  }
  return { ids, unknown };
}

interface Suggestion {
  label: string;
  detail?: string;
  insert: string;
}

/** Completions for the word being typed in a field. */
function suggestionsFor(field: "to" | "topic" | "content", value: string, caret: number, streamId: number | undefined): { items: Suggestion[]; start: number } {
  if (field === "to") {
    const start = value.lastIndexOf(",", caret - 1) + 1;
    const q = value.slice(start, caret).trim().toLowerCase();
    if (!q) return { items: [], start };
    const items = [...state.users.values()]
      .filter((u) => u.is_active !== false && (u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().startsWith(q)))
      .slice(0, 8)
      .map((u) => ({ label: u.full_name, detail: u.email, insert: `${start ? " " : ""}${u.email}, ` }));
    return { items, start };
  }
  if (field === "topic") {
    const q = value.toLowerCase();
    const topics = streamId !== undefined ? [...(state.topics.get(streamId)?.values() ?? [])] : [];
    const items = topics
      .filter((t) => t.name.toLowerCase().includes(q) && t.name.toLowerCase() !== q)
      .sort((a, b) => b.maxId - a.maxId)
      .slice(0, 8)
      .map((t) => ({ label: t.name, insert: t.name }));
    return { items, start: 0 };
  }
  const before = value.slice(0, caret);
  const m = /(^|\s)([@#])(\**)([^\s@#*]*(?: [^\s@#*]*)?)$/.exec(before);
  if (!m) return { items: [], start: caret };
  const start = caret - m[2]!.length - m[3]!.length - m[4]!.length;
  const q = m[4]!.toLowerCase();
  if (m[2] === "@") {
    const items = [...state.users.values()]
      .filter((u) => u.is_active !== false && (u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().startsWith(q)))
      .slice(0, 8)
      .map((u) => ({ label: u.full_name, detail: u.email, insert: `@**${u.full_name}** ` }));
    return { items, start };
  }
  const items = [...state.subs.values()]
    .filter((s) => s.name.toLowerCase().includes(q))
    .slice(0, 8)
    .map((s) => ({ label: s.name, insert: `#**${s.name}** ` }));
  return { items, start };
}

/** What other parts of the app ask of the compose box (reply, quote, focus). */
export const composeApi = {
  focus: () => {},
  reply: (_m: Message) => {},
  quote: async (_m: Message) => {},
  insert: (_text: string) => {},
  uploadFiles: (_files: File[]) => {},
};

export function Compose({ narrowKey, narrow, queueId }: { narrowKey: string; narrow: Narrow | undefined; queueId: () => string }) {
  const [draft, setDraft] = useState<Draft>(() => loadDrafts()[narrowKey] ?? defaultsFor(narrow));
  const [preview, setPreview] = useState<string | undefined>();
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [uploads, setUploads] = useState<{ id: number; name: string; progress: number }[]>([]);
  const [suggest, setSuggest] = useState<{ field: "to" | "topic" | "content"; items: Suggestion[]; start: number; index: number } | undefined>();
  const [dragging, setDragging] = useState(false);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const topicInput = useRef<HTMLInputElement>(null);
  const toInput = useRef<HTMLInputElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const draftRef = useRef(draft);
  draftRef.current = draft;
  const keyRef = useRef(narrowKey);

  // The draft of the view we leave is kept; the one of the view we enter comes back.
  useEffect(() => {
    if (keyRef.current === narrowKey) return;
    saveDraft(keyRef.current, draftRef.current);
    typingStop();
    keyRef.current = narrowKey;
    setDraft(loadDrafts()[narrowKey] ?? defaultsFor(narrow));
    setPreview(undefined);
    setError(undefined);
    setSuggest(undefined);
  }, [narrowKey]);

  useEffect(() => {
    const save = () => saveDraft(keyRef.current, draftRef.current);
    window.addEventListener("pagehide", save);
    return () => window.removeEventListener("pagehide", save);
  }, []);

  const channels = [...state.subs.values()].sort((a, b) => a.name.localeCompare(b.name));
  const streamId = draft.streamId ?? channels[0]?.stream_id;

  function update(patch: Partial<Draft>) {
    setDraft((d) => ({ ...d, ...patch }));
  }

  function destination(d: Draft = draftRef.current): Destination | undefined {
    if (d.mode === "dm") {
      const { ids, unknown } = parseRecipients(d.to);
      if (unknown.length || ids.length === 0) return undefined;
      return { kind: "dm", userIds: ids };
    }
    const sid = d.streamId ?? channels[0]?.stream_id;
    if (sid === undefined) return undefined;
    return { kind: "channel", streamId: sid, topic: d.topic.trim() };
  }

  async function send() {
    const d = draftRef.current;
    if (!d.content.trim() || sending) return;
    if (d.mode === "dm") {
      const { ids, unknown } = parseRecipients(d.to);
      if (unknown.length) return setError(`Unknown recipient: ${unknown.join(", ")}`);
      if (ids.length === 0) return setError("Add at least one recipient");
    }
    const dest = destination(d);
    if (!dest) return setError("Choose a channel");
    setSending(true);
    setError(undefined);
    typingStop();
    // The box empties at once (the message shows as a local echo); a refusal puts it back.
    setDraft((cur) => ({ ...cur, content: "" }));
    setPreview(undefined);
    try {
      await sendMessage(dest, d.content, queueId());
      // Zulip says where a message went when the open view will not show it.
      const shown = narrow && (dest.kind === "channel"
        ? (narrowChannelId(narrow) === undefined || narrowChannelId(narrow) === dest.streamId) && (narrowTopic(narrow) === undefined || narrowTopic(narrow)!.toLowerCase() === dest.topic.toLowerCase()) && !narrowDmIds(narrow)
        : narrowDmIds(narrow)?.slice().sort((a, b) => a - b).join() === dest.userIds.slice().sort((a, b) => a - b).join());
      if (!shown) {
        setNotice(
          dest.kind === "channel"
            ? `Sent to #${names.channelName(dest.streamId) ?? "channel"} › ${dest.topic || state.realm.emptyTopicName}`
            : `Sent to ${dest.userIds.map((id) => state.users.get(id)?.full_name ?? id).join(", ")}`,
        );
      }
      setDraft((cur) => ({ ...cur, content: "" }));
      saveDraft(keyRef.current, { ...d, content: "" });
      setPreview(undefined);
      textarea.current?.focus();
    } catch (e) {
      setDraft((cur) => ({ ...cur, content: cur.content ? cur.content : d.content }));
      setError(e instanceof ApiError ? e.message : String(e));
    }
    setSending(false);
  }

  function insertText(text: string) {
    const ta = textarea.current;
    const d = draftRef.current;
    const s = ta ? ta.selectionStart : d.content.length;
    const e = ta ? ta.selectionEnd : d.content.length;
    const content = d.content.slice(0, s) + text + d.content.slice(e);
    update({ content });
    requestAnimationFrame(() => {
      if (!ta) return;
      ta.focus();
      ta.selectionStart = ta.selectionEnd = s + text.length;
    });
  }

  let uploadId = 0;
  function uploadFiles(files: File[]) {
    for (const file of files) {
      const id = Date.now() + ++uploadId;
      setUploads((u) => [...u, { id, name: file.name, progress: 0 }]);
      upload(file, (p) => setUploads((u) => u.map((x) => (x.id === id ? { ...x, progress: p } : x))))
        .then((r) => {
          const name = r.filename.replace(/[[\]]/g, "");
          insertText(`[${name}](${r.url})`);
        })
        .catch((e) => setError(e instanceof ApiError ? e.message : String(e)))
        .finally(() => setUploads((u) => u.filter((x) => x.id !== id)));
    }
  }

  composeApi.focus = () => {
    if (draftRef.current.mode === "channel" && !draftRef.current.topic) topicInput.current?.focus();
    else if (draftRef.current.mode === "dm" && !draftRef.current.to) toInput.current?.focus();
    else textarea.current?.focus();
  };
  composeApi.reply = (m: Message) => {
    if (m.type === "stream") update({ mode: "channel", streamId: m.stream_id, topic: m.subject });
    else update({ mode: "dm", to: dmPartners(m, state.self.user_id).map((id) => state.users.get(id)?.email ?? "").join(", ") });
    requestAnimationFrame(() => textarea.current?.focus());
  };
  composeApi.quote = async (m: Message) => {
    composeApi.reply(m);
    try {
      const raw = await rawContent(m.id);
      const link = messageLink(location.origin, m, names, state.self.user_id);
      const fence = raw.includes("```") ? "````" : "```";
      const name = state.users.get(m.sender_id)?.full_name ?? m.sender_full_name;
      const prefix = draftRef.current.content ? "\n" : "";
      insertText(`${prefix}@_**${name}|${m.sender_id}** [said](${link}):\n${fence}quote\n${raw}\n${fence}\n`);
    } catch (e) {
      setNotice((e as Error).message);
    }
  };
  composeApi.insert = insertText;
  composeApi.uploadFiles = uploadFiles;

  function onFieldInput(field: "to" | "topic" | "content", value: string, caret: number) {
    if (field === "to") update({ to: value });
    else if (field === "topic") update({ topic: value });
    else {
      update({ content: value });
      if (value.trim()) typingActivity(destination({ ...draftRef.current, content: value }));
    }
    const s = suggestionsFor(field, value, caret, streamId);
    setSuggest(s.items.length ? { field, items: s.items, start: s.start, index: 0 } : undefined);
  }

  function accept(field: "to" | "topic" | "content", item: Suggestion) {
    const d = draftRef.current;
    if (field === "topic") update({ topic: item.insert });
    else if (field === "to") {
      const caret = toInput.current?.selectionStart ?? d.to.length;
      update({ to: d.to.slice(0, suggest!.start) + item.insert + d.to.slice(caret).replace(/^[^,]*,?\s*/, "") });
    } else {
      const caret = textarea.current?.selectionStart ?? d.content.length;
      const content = d.content.slice(0, suggest!.start) + item.insert + d.content.slice(caret);
      update({ content });
      const pos = suggest!.start + item.insert.length;
      requestAnimationFrame(() => {
        if (textarea.current) textarea.current.selectionStart = textarea.current.selectionEnd = pos;
      });
    }
    setSuggest(undefined);
  }

  /** Keys of the completion list; answers true when it used the key. */
  function completionKey(field: "to" | "topic" | "content", e: KeyboardEvent): boolean {
    if (!suggest || suggest.field !== field) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const n = suggest.items.length;
      setSuggest({ ...suggest, index: (suggest.index + (e.key === "ArrowDown" ? 1 : n - 1)) % n });
      e.preventDefault();
      return true;
    }
    if (e.key === "Enter" || e.key === "Tab") {
      accept(field, suggest.items[suggest.index]!);
      e.preventDefault();
      return true;
    }
    if (e.key === "Escape") {
      setSuggest(undefined);
      e.stopPropagation();
      return true;
    }
    return false;
  }

  function onContentKey(e: KeyboardEvent) {
    if (completionKey("content", e)) return;
    if (e.key === "Enter" && !e.isComposing) {
      const ctrl = e.ctrlKey || e.metaKey;
      // Ctrl+Enter always sends; Enter alone when the person chose "Enter sends".
      if (ctrl || (state.settings.enter_sends && !e.shiftKey)) {
        e.preventDefault();
        void send();
      }
    } else if (e.key === "Escape") {
      (e.target as HTMLElement).blur();
    }
  }

  async function togglePreview() {
    if (preview !== undefined) return setPreview(undefined);
    try {
      setPreview(draft.content.trim() ? await renderPreview(draft.content) : "<p><em>Nothing to preview</em></p>");
    } catch (e) {
      setError((e as Error).message);
    }
  }

  const listId = "compose-suggestions";
  const suggestionList = (field: "to" | "topic" | "content") =>
    suggest && suggest.field === field ? (
      <ul class="suggestions" id={listId} role="listbox" aria-label="Suggestions">
        {suggest.items.map((it, i) => (
          <li
            key={it.label + i}
            id={`${listId}-${i}`}
            role="option"
            aria-selected={i === suggest.index}
            onMouseDown={(e) => {
              e.preventDefault();
              accept(field, it);
            }}
          >
            <span class="s-label">{it.label}</span>
            {it.detail && <span class="s-detail">{it.detail}</span>}
          </li>
        ))}
      </ul>
    ) : null;
  const comboProps = (field: "to" | "topic" | "content") => ({
    "aria-autocomplete": "list" as const,
    "aria-controls": suggest && suggest.field === field ? listId : undefined,
    "aria-activedescendant": suggest && suggest.field === field ? `${listId}-${suggest.index}` : undefined,
  });

  return (
    <form
      class={`compose${dragging ? " dragging" : ""}`}
      aria-label="Compose"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      onDragOver={(e) => {
        if (e.dataTransfer?.types.includes("Files")) {
          e.preventDefault();
          setDragging(true);
        }
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        setDragging(false);
        const files = [...(e.dataTransfer?.files ?? [])];
        if (files.length) {
          e.preventDefault();
          uploadFiles(files);
        }
      }}
    >
      <div class="compose-header">
        <div class="mode-switch" role="group" aria-label="Message type">
          <button type="button" class={draft.mode === "channel" ? "on" : ""} aria-pressed={draft.mode === "channel"} onClick={() => update({ mode: "channel" })}>
            Channel message
          </button>
          <button type="button" class={draft.mode === "dm" ? "on" : ""} aria-pressed={draft.mode === "dm"} onClick={() => (update({ mode: "dm" }), requestAnimationFrame(() => toInput.current?.focus()))}>
            Direct message
          </button>
        </div>
        {draft.mode === "channel" ? (
          <>
            <select aria-label="Channel" value={streamId === undefined ? "" : String(streamId)} onChange={(e) => update({ streamId: Number(e.currentTarget.value) })}>
              {channels.map((s) => (
                <option key={s.stream_id} value={String(s.stream_id)}>
                  #{s.name}
                </option>
              ))}
            </select>
            <span class="rh-sep" aria-hidden="true">
              ›
            </span>
            <div class="field-wrap topic-wrap">
              <input
                ref={topicInput}
                aria-label="Topic"
                placeholder={`Topic (empty: ${state.realm.emptyTopicName})`}
                maxLength={state.realm.maxTopicLength}
                value={draft.topic}
                {...comboProps("topic")}
                onInput={(e) => onFieldInput("topic", e.currentTarget.value, e.currentTarget.selectionStart ?? 0)}
                onKeyDown={(e) => {
                  if (completionKey("topic", e)) return;
                  if (e.key === "Enter") {
                    e.preventDefault();
                    textarea.current?.focus();
                  }
                }}
                onBlur={() => setTimeout(() => setSuggest((s) => (s?.field === "topic" ? undefined : s)), 150)}
              />
              {suggestionList("topic")}
            </div>
          </>
        ) : (
          <div class="field-wrap to-wrap">
            <input
              ref={toInput}
              aria-label="To"
              placeholder="Add one or more people (email or name)"
              value={draft.to}
              {...comboProps("to")}
              onInput={(e) => onFieldInput("to", e.currentTarget.value, e.currentTarget.selectionStart ?? 0)}
              onKeyDown={(e) => {
                if (completionKey("to", e)) return;
                if (e.key === "Enter") {
                  e.preventDefault();
                  textarea.current?.focus();
                }
              }}
              onBlur={() => setTimeout(() => setSuggest((s) => (s?.field === "to" ? undefined : s)), 150)}
            />
            {suggestionList("to")}
          </div>
        )}
      </div>
      <div class="field-wrap content-wrap">
        {preview !== undefined ? (
          <div class="preview" aria-label="Preview" role="region">
            <Content html={preview} />
          </div>
        ) : (
          <textarea
            ref={textarea}
            aria-label="Message"
            placeholder={draft.mode === "dm" ? "Message" : `Message #${names.channelName(streamId ?? -1) ?? ""}${draft.topic ? ` › ${draft.topic}` : ""}`}
            rows={Math.min(10, Math.max(2, draft.content.split("\n").length))}
            value={draft.content}
            {...comboProps("content")}
            onInput={(e) => onFieldInput("content", e.currentTarget.value, e.currentTarget.selectionStart ?? 0)}
            onKeyDown={onContentKey}
            onPaste={(e) => {
              const files = [...(e.clipboardData?.files ?? [])];
              if (files.length) {
                e.preventDefault();
                uploadFiles(files);
              }
            }}
            onBlur={() => setTimeout(() => setSuggest((s) => (s?.field === "content" ? undefined : s)), 150)}
          />
        )}
        {suggestionList("content")}
      </div>
      {uploads.map((u) => (
        <div class="upload-progress" role="status" key={u.id}>
          Uploading {u.name}…
          <progress max={1} value={u.progress} aria-label={`Uploading ${u.name}`} />
        </div>
      ))}
      {error && (
        <p class="compose-error" role="alert">
          {error}
        </p>
      )}
      <div class="compose-footer">
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          aria-label="File to upload"
          onChange={(e) => {
            uploadFiles([...(e.currentTarget.files ?? [])]);
            e.currentTarget.value = "";
          }}
        />
        <button type="button" class="icon-button" aria-label="Upload files" title="Upload files" onClick={() => fileInput.current?.click()}>
          <IconClip />
        </button>
        <button type="button" class={`icon-button${preview !== undefined ? " on" : ""}`} aria-label={preview !== undefined ? "Continue editing" : "Preview"} aria-pressed={preview !== undefined} title="Preview" onClick={() => void togglePreview()}>
          <IconEye />
        </button>
        <label class="enter-sends">
          <input
            type="checkbox"
            checked={state.settings.enter_sends}
            onChange={(e) => {
              // A user setting, kept by the server (other tabs hear of it as an event).
              const value = e.currentTarget.checked;
              state.settings.enter_sends = value;
              changed();
              patch("settings", { enter_sends: value ? "true" : "false" }).catch((err) => setNotice((err as Error).message));
            }}
          />
          Enter sends
        </label>
        <span class="hint" aria-hidden="true">
          {state.settings.enter_sends ? "Shift+Enter for a new line" : "Ctrl+Enter to send"}
        </span>
        <button type="submit" class="button primary send" disabled={sending || !draft.content.trim()}>
          Send
        </button>
      </div>
    </form>
  );
}

export function narrowKeyOf(narrow: Narrow | undefined): string {
  return narrow ? narrowToHash(narrow.filter((t) => t.operator !== "near" && t.operator !== "with"), names) : "#inbox";
}
