// Pieces every settings screen uses: a save runner whose refusal is shown in an alert
// region, drafts that follow the store until edited, labelled toggles, and a confirmation
// dialog for what cannot be undone.

import { useEffect, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";

/** Runs a change; the server's refusal goes to `error` (shown by <Outcome>), success to `done`. */
export function useSave() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();
  async function run(f: () => Promise<unknown>, doneText = "Saved"): Promise<boolean> {
    setBusy(true);
    setError(undefined);
    setDone(undefined);
    try {
      await f();
      setDone(doneText);
      return true;
    } catch (e) {
      setError((e as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, done, run };
}

/** The result of the last change: an alert for a refusal, a status line for success. */
export function Outcome({ save }: { save: { error?: string; done?: string } }) {
  return (
    <div class="settings-outcome">
      <div role="alert">{save.error && <p class="settings-error">{save.error}</p>}</div>
      <div role="status">{save.done && !save.error && <p class="settings-done">{save.done}</p>}</div>
    </div>
  );
}

/**
 * An edited value that follows the store: it shows the stored value until the person types,
 * and goes back to following it when the stored value changes (a live event, ours or another's).
 */
export function useDraft<T>(stored: T): [T, (v: T) => void, boolean, () => void] {
  const [draft, setDraft] = useState<{ v: T } | undefined>();
  const prev = useRef(stored);
  useEffect(() => {
    if (prev.current !== stored) {
      prev.current = stored;
      setDraft(undefined);
    }
  }, [stored]);
  const value = draft ? draft.v : stored;
  return [value, (v: T) => setDraft({ v }), draft !== undefined && draft.v !== stored, () => setDraft(undefined)];
}

/**
 * A toggle saved at once: it shows the new value while the change is on its way and until
 * the event brings it (no flicker back), and the stored one again if the server refuses.
 */
export function SavedToggle({ label, stored, save, onSave }: { label: string; stored: boolean; save: ReturnType<typeof useSave>; onSave: (v: boolean) => Promise<unknown> }) {
  const [value, setValue, , reset] = useDraft(stored);
  return (
    <Toggle
      label={label}
      checked={value}
      onChange={async (v) => {
        setValue(v);
        if (!(await save.run(() => onSave(v)))) reset();
      }}
    />
  );
}

let fieldIds = 0;
export function useId(prefix: string): string {
  const ref = useRef<string>();
  if (!ref.current) ref.current = `${prefix}-${++fieldIds}`;
  return ref.current;
}

export function Toggle({ label, checked, onChange, hint, disabled }: { label: string; checked: boolean; onChange: (v: boolean) => void; hint?: string; disabled?: boolean }) {
  const id = useId("toggle");
  return (
    <div class="settings-toggle">
      <input type="checkbox" id={id} checked={checked} disabled={disabled} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} />
      <label for={id}>{label}</label>
      {hint && (
        <span class="settings-hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
    </div>
  );
}

export function Section({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) {
  const hid = useId("section");
  return (
    <section class="settings-section" aria-labelledby={hid} id={id}>
      <h3 id={hid}>{title}</h3>
      {children}
    </section>
  );
}

/** A confirmation for what cannot be undone: focus on the action, Esc or Cancel closes. */
export function ConfirmDialog({ title, body, action, onConfirm, onClose }: { title: string; body: string; action: string; onConfirm: () => Promise<boolean>; onClose: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  const id = useId("confirm");
  useEffect(() => ref.current?.focus(), []);
  return (
    <div class="modal-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="modal" role="alertdialog" aria-modal="true" aria-labelledby={id} aria-describedby={`${id}-body`} onKeyDown={(e) => e.key === "Escape" && (e.stopPropagation(), onClose())}>
        <h2 id={id}>{title}</h2>
        <p id={`${id}-body`}>{body}</p>
        <div class="modal-buttons">
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            class="button danger"
            ref={ref}
            onClick={async () => {
              // A refusal is shown by the screen's alert region, behind the dialog: close either way.
              await onConfirm();
              onClose();
            }}
          >
            {action}
          </button>
        </div>
      </div>
    </div>
  );
}
