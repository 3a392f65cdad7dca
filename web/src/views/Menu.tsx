import { useEffect, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { IconDots } from "./Icons";

export interface MenuItem {
  label: string;
  onSelect: () => void;
}

/** A button opening a small menu of actions (role=menu, arrow keys, Esc closes). */
export function MenuButton({ label, items, icon = <IconDots />, class: cls = "" }: { label: string; items: MenuItem[]; icon?: ComponentChildren; class?: string }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const first = ref.current?.querySelector<HTMLElement>('[role="menuitem"]');
    first?.focus();
    const close = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", close);
    return () => document.removeEventListener("mousedown", close);
  }, [open]);
  function onKey(e: KeyboardEvent) {
    const items = [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const i = items.indexOf(document.activeElement as HTMLElement);
    if (e.key === "Escape") {
      setOpen(false);
      (ref.current?.querySelector("button") as HTMLElement | null)?.focus();
      e.stopPropagation();
    } else if (e.key === "ArrowDown") {
      items[(i + 1) % items.length]?.focus();
      e.preventDefault();
      e.stopPropagation();
    } else if (e.key === "ArrowUp") {
      items[(i - 1 + items.length) % items.length]?.focus();
      e.preventDefault();
      e.stopPropagation();
    }
  }
  return (
    <div class={`menu-wrap ${cls}`} ref={ref} onKeyDown={onKey}>
      <button type="button" class="icon-button" aria-label={label} title={label} aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)}>
        {icon}
      </button>
      {open && (
        <ul class="menu" role="menu" aria-label={label}>
          {items.map((it) => (
            <li role="none" key={it.label}>
              <button
                type="button"
                role="menuitem"
                onClick={() => {
                  setOpen(false);
                  it.onSelect();
                }}
              >
                {it.label}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
