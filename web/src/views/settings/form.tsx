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

/**
 * A name and a description saved together (the organization's, a group's): only what was
 * edited is sent. The caller shows the outcome with the rest of its screen.
 */
export function NameDescriptionForm(props: {
  label?: string;
  nameLabel: string;
  descriptionLabel: string;
  name: string;
  description: string;
  nameMaxLength: number;
  rows: number;
  save: ReturnType<typeof useSave>;
  onSave: (changes: { name?: string; description?: string }) => Promise<unknown>;
}) {
  const [name, setName, nameDirty] = useDraft(props.name);
  const [description, setDescription, descDirty] = useDraft(props.description);
  const nameId = useId("name");
  const descId = useId("description");
  return (
    <form
      class="settings-form"
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        const changes: { name?: string; description?: string } = {};
        if (nameDirty) changes.name = name.trim();
        if (descDirty) changes.description = description;
        void props.save.run(() => props.onSave(changes));
      }}
    >
      <label for={nameId}>{props.nameLabel}</label>
      <input id={nameId} type="text" value={name} maxLength={props.nameMaxLength} required onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      <label for={descId}>{props.descriptionLabel}</label>
      <textarea id={descId} rows={props.rows} value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />
      <div class="settings-buttons">
        <button type="submit" class="button primary" disabled={props.save.busy || !(nameDirty || descDirty)}>
          Save changes
        </button>
      </div>
    </form>
  );
}

/** How a retention period reads: "Retain forever" or "N days". */
export function describeRetention(days: number): string {
  if (days === -1) return "Retain forever";
  return days === 1 ? "1 day" : `${days} days`;
}

/**
 * Zulip's "Message retention period": retain forever, or a custom number of days, and for a
 * channel the organization's period (`null`). `value` is days, -1 for forever; a custom
 * period being typed is 0 until it is a number (the field is required, so the form waits).
 */
export function RetentionSelect({ value, onChange, organizationDays }: { value: number | null; onChange: (v: number | null) => void; organizationDays?: number }) {
  const id = useId("retention");
  const daysId = useId("retention-days");
  const lastDays = useRef(30);
  if (value !== null && value > 0) lastDays.current = value;
  const choice = value === null ? "default" : value === -1 ? "forever" : "custom";
  return (
    <>
      <label for={id}>Message retention period</label>
      <select
        id={id}
        value={choice}
        onChange={(e) => {
          const v = (e.target as HTMLSelectElement).value;
          onChange(v === "default" ? null : v === "forever" ? -1 : lastDays.current);
        }}
      >
        {organizationDays !== undefined && <option value="default">Use organization level settings ({describeRetention(organizationDays)})</option>}
        <option value="forever">Retain forever</option>
        <option value="custom">Custom</option>
      </select>
      {choice === "custom" && (
        <>
          <label for={daysId}>Retention period (days)</label>
          <input
            id={daysId}
            type="number"
            min={1}
            step={1}
            required
            value={value !== null && value > 0 ? String(value) : ""}
            onInput={(e) => onChange(Math.floor(Number((e.target as HTMLInputElement).value)) || 0)}
          />
        </>
      )}
    </>
  );
}

/** The warning before a shorter retention period deletes messages for good. */
export function retentionWarning(days: number | null, organizationDays: number): string | undefined {
  const effective = days ?? organizationDays;
  if (effective === -1) return undefined;
  return `Messages older than ${describeRetention(effective)} will be deleted permanently, and so will every message that reaches that age from now on.`;
}
