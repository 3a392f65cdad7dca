import { useEffect, useRef, useState } from "preact/hooks";
import { codeToChar, customEmoji, loadEmoji, searchEmoji, type EmojiChoice } from "../emoji";

/** A dialog listing the server's emoji and the organization's custom emoji, with search. */
export function EmojiPicker({ onPick, onClose, label = "Add reaction" }: { onPick: (e: EmojiChoice) => void; onClose: () => void; label?: string }) {
  const [all, setAll] = useState<EmojiChoice[]>(customEmoji());
  const [query, setQuery] = useState("");
  const [error, setError] = useState<string | undefined>();
  const ref = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    loadEmoji()
      .then((list) => setAll([...customEmoji(), ...list]))
      .catch(() => setError("Could not load the emoji list"));
    const close = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) onClose();
    };
    document.addEventListener("mousedown", close);
    return () => document.removeEventListener("mousedown", close);
  }, []);
  const shown = searchEmoji(all, query);
  return (
    <div class="emoji-picker" role="dialog" aria-label={label} ref={ref} onKeyDown={(e) => e.key === "Escape" && (e.stopPropagation(), onClose())}>
      <input
        ref={input}
        type="search"
        class="emoji-search"
        aria-label="Search emoji"
        placeholder="Search emoji"
        value={query}
        onInput={(e) => setQuery(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && shown[0]) {
            e.preventDefault();
            onPick(shown[0]);
          }
        }}
      />
      {error && <p class="error">{error}</p>}
      <div class="emoji-grid">
        {shown.map((e) => (
          <button type="button" key={`${e.type}:${e.code}`} class="emoji-choice" aria-label={e.name} title={`:${e.name}:`} onClick={() => onPick(e)}>
            {e.type === "realm_emoji" ? <img src={e.url} alt="" class="emoji" /> : codeToChar(e.code)}
          </button>
        ))}
      </div>
    </div>
  );
}
