import { useEffect, useRef, useState } from "preact/hooks";
import { names, state } from "../store";
import { narrowToSearch, parseSearch } from "../search";
import { navigate } from "../actions";
import { isSearchNarrow } from "../narrow";

/** The search box: Zulip's search syntax, turned into a narrow on Enter. */
export function SearchBox() {
  const route = state.route;
  const current = route.kind === "narrow" && isSearchNarrow(route.narrow) ? narrowToSearch(route.narrow, names) : "";
  const [text, setText] = useState(current);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => setText(current), [current]);
  useEffect(() => {
    const focus = () => input.current?.focus();
    document.addEventListener("focus-search", focus);
    return () => document.removeEventListener("focus-search", focus);
  }, []);
  return (
    <form
      role="search"
      class="search"
      onSubmit={(e) => {
        e.preventDefault();
        const narrow = parseSearch(text, names);
        navigate(narrow);
        input.current?.blur();
      }}
    >
      <input
        ref={input}
        type="search"
        aria-label="Search"
        placeholder="Search (channel:, topic:, sender:, is:, has:)"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            setText(current);
            e.currentTarget.blur();
          }
        }}
      />
    </form>
  );
}
