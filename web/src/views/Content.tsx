import { useLayoutEffect, useRef } from "preact/hooks";
import { showEmojiAsText } from "../emoji";

/**
 * A message body as the server rendered it: the one place server HTML is inserted. Emoji
 * spans then show their Unicode character; spoilers toggle by their header.
 */
export function Content({ html, class: cls = "" }: { html: string; class?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.innerHTML = html;
    showEmojiAsText(el);
    for (const h of el.querySelectorAll<HTMLElement>(".spoiler-header")) {
      h.setAttribute("role", "button");
      h.setAttribute("tabindex", "0");
      h.setAttribute("aria-expanded", "false");
    }
    for (const a of el.querySelectorAll<HTMLAnchorElement>("a[href]")) {
      const href = a.getAttribute("href") ?? "";
      if (!href.startsWith("/#") && !href.startsWith("#")) {
        a.target = "_blank";
        a.rel = "noopener noreferrer";
      }
    }
  }, [html]);
  function toggle(e: Event) {
    const header = (e.target as HTMLElement).closest(".spoiler-header");
    if (!header) return;
    if (e instanceof KeyboardEvent && e.key !== "Enter" && e.key !== " ") return;
    e.preventDefault();
    const block = header.closest(".spoiler-block");
    const open = !block?.classList.contains("spoiler-open");
    block?.classList.toggle("spoiler-open", open);
    header.setAttribute("aria-expanded", String(open));
    block?.querySelector(".spoiler-content")?.setAttribute("aria-hidden", String(!open));
  }
  return <div class={`rendered-content ${cls}`} ref={ref} onClick={toggle} onKeyDown={toggle} />;
}
