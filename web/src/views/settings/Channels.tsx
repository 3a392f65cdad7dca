// Channel administration: name, description, privacy, who may post and administer, archiving.

import { useState } from "preact/hooks";
import { state } from "../../store";
import type { Channel, GroupSetting } from "../../types";
import { archiveChannel, privacyOf, updateChannel, SYSTEM_GROUP_NAMES, type Privacy } from "../../settingsActions";
import { ConfirmDialog, Outcome, Section, useDraft, useId, useSave } from "./form";

/** The groups a permission can name: the role groups (Zulip's names), then the organization's own. */
export function groupChoices(allowNobody = true): [number, string][] {
  const system: [number, string][] = [];
  const own: [number, string][] = [];
  for (const g of state.groups.values()) {
    if (g.deactivated) continue;
    if (g.is_system_group) {
      if (g.name === "role:internet" || (!allowNobody && g.name === "role:nobody")) continue;
      system.push([g.id, SYSTEM_GROUP_NAMES[g.name] ?? g.name]);
    } else own.push([g.id, g.name]);
  }
  const order = Object.keys(SYSTEM_GROUP_NAMES);
  const rank = (id: number) => order.indexOf(state.groups.get(id)?.name ?? "");
  system.sort((a, b) => rank(a[0]) - rank(b[0]));
  own.sort((a, b) => a[1].localeCompare(b[1]));
  return [...system, ...own];
}

function GroupSelect({ label, value, onChange, hint }: { label: string; value: GroupSetting | undefined; onChange: (id: number) => void; hint?: string }) {
  const id = useId("group");
  const choices = groupChoices();
  const current = typeof value === "number" ? String(value) : "";
  return (
    <>
      <label for={id}>{label}</label>
      <select id={id} value={current} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onChange(Number((e.target as HTMLSelectElement).value))}>
        {current === "" && <option value="">A custom set of people</option>}
        {choices.map(([gid, name]) => (
          <option key={gid} value={String(gid)}>
            {name}
          </option>
        ))}
      </select>
      {hint && (
        <span class="settings-hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
    </>
  );
}

function ChannelForm({ c }: { c: Channel }) {
  const save = useSave();
  const [name, setName, nameDirty] = useDraft(c.name);
  const [description, setDescription, descDirty] = useDraft(c.description ?? "");
  const [privacy, setPrivacy, privacyDirty] = useDraft<Privacy>(privacyOf(c));
  const [canSend, setCanSend, sendDirty] = useDraft<GroupSetting | undefined>(c.can_send_message_group);
  const [canAdmin, setCanAdmin, adminDirty] = useDraft<GroupSetting | undefined>(c.can_administer_channel_group);
  const [confirm, setConfirm] = useState(false);
  const nameId = useId("channel-name");
  const descId = useId("channel-description");
  const privacyId = useId("channel-privacy");
  const dirty = nameDirty || descDirty || privacyDirty || sendDirty || adminDirty;
  return (
    <>
      <form
        class="settings-form"
        aria-label={`Settings of #${c.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          void save.run(() =>
            updateChannel(c, {
              name: name.trim(),
              description,
              privacy,
              canSendGroup: typeof canSend === "number" ? canSend : undefined,
              canAdministerGroup: typeof canAdmin === "number" ? canAdmin : undefined,
            }),
          );
        }}
      >
        <label for={nameId}>Channel name</label>
        <input id={nameId} type="text" value={name} maxLength={60} required onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <label for={descId}>Channel description</label>
        <textarea id={descId} rows={3} value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />
        <label for={privacyId}>Who can access the channel</label>
        <select id={privacyId} value={privacy} onChange={(e) => setPrivacy((e.target as HTMLSelectElement).value as Privacy)}>
          <option value="public">Public: anyone in the organization can join</option>
          <option value="private-shared">Private, shared history: subscribers see the whole history</option>
          <option value="private">Private, protected history: subscribers see messages from when they joined</option>
        </select>
        <GroupSelect label="Who can post to the channel" value={canSend} onChange={setCanSend} />
        <GroupSelect label="Who can administer the channel" value={canAdmin} onChange={setCanAdmin} hint="Administrators of the organization always can." />
        <div class="settings-buttons">
          <button type="submit" class="button primary" disabled={save.busy || !dirty}>
            Save changes
          </button>
          <button type="button" class="button danger" onClick={() => setConfirm(true)}>
            Archive channel
          </button>
        </div>
      </form>
      <Outcome save={save} />
      {confirm && (
        <ConfirmDialog
          title={`Archive #${c.name}?`}
          body="Archiving a channel takes it out of everyone's channel list; its messages stay. An administrator can unarchive it later."
          action="Archive"
          onConfirm={() => save.run(() => archiveChannel(c.stream_id), `#${c.name} archived`)}
          onClose={() => setConfirm(false)}
        />
      )}
    </>
  );
}

export function ChannelSettings() {
  const [selected, setSelected] = useState<number | undefined>();
  const selectId = useId("channel-choice");
  const channels = [...state.channels.values()].filter((c) => !c.is_archived).sort((a, b) => a.name.localeCompare(b.name));
  const c = selected !== undefined ? state.channels.get(selected) : undefined;
  return (
    <Section title="Channels of the organization">
      <div class="settings-field">
        <label for={selectId}>Channel</label>
        <select id={selectId} value={c ? String(c.stream_id) : ""} onChange={(e) => setSelected(Number((e.target as HTMLSelectElement).value) || undefined)}>
          <option value="">Choose a channel…</option>
          {channels.map((x) => (
            <option key={x.stream_id} value={String(x.stream_id)}>
              #{x.name}
              {x.invite_only ? " (private)" : ""}
            </option>
          ))}
        </select>
      </div>
      {c ? <ChannelForm key={c.stream_id} c={c} /> : selected !== undefined && <p role="status">This channel was archived or is no longer visible.</p>}
    </Section>
  );
}
