// User groups: the organization's own groups with their name, description and members
// (role groups are Zulip's system groups and cannot be edited), and a new group.

import { useEffect, useState } from "preact/hooks";
import { state } from "../../store";
import type { UserGroup } from "../../types";
import { changeGroupMembers, createGroup, updateGroup } from "../../settingsActions";
import { NameDescriptionForm, Outcome, Section, useId, useSave } from "./form";

function GroupForm({ g }: { g: UserGroup }) {
  const save = useSave();
  const [add, setAdd] = useState("");
  const addId = useId("group-add");
  const members = g.members.map((id) => state.users.get(id)).filter((u) => u !== undefined).sort((a, b) => a.full_name.localeCompare(b.full_name));
  const others = [...state.users.values()].filter((u) => u.is_active !== false && !g.members.includes(u.user_id)).sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <>
      <NameDescriptionForm
        label={`Settings of the group ${g.name}`}
        nameLabel="Group name"
        descriptionLabel="Group description"
        name={g.name}
        description={g.description}
        nameMaxLength={100}
        rows={2}
        save={save}
        onSave={(changes) => updateGroup(g.id, changes)}
      />
      <h4>Members</h4>
      <ul class="settings-list" aria-label={`Members of ${g.name}`}>
        {members.map((u) => (
          <li key={u.user_id}>
            <span>{u.full_name}</span>
            <button type="button" class="button small" onClick={() => void save.run(() => changeGroupMembers(g.id, [], [u.user_id]), `${u.full_name} removed`)}>
              Remove<span class="visually-hidden"> {u.full_name}</span>
            </button>
          </li>
        ))}
        {members.length === 0 && <li class="empty">No members</li>}
      </ul>
      <form
        class="settings-inline"
        onSubmit={async (e) => {
          e.preventDefault();
          if (add && (await save.run(() => changeGroupMembers(g.id, [Number(add)], []), "Member added"))) setAdd("");
        }}
      >
        <label for={addId}>Person to add</label>
        <select id={addId} value={add} onChange={(e) => setAdd((e.target as HTMLSelectElement).value)}>
          <option value="">Choose a person…</option>
          {others.map((u) => (
            <option key={u.user_id} value={String(u.user_id)}>
              {u.full_name}
            </option>
          ))}
        </select>
        <button type="submit" class="button" disabled={save.busy || !add}>
          Add member
        </button>
      </form>
      <Outcome save={save} />
    </>
  );
}

function NewGroup({ onCreated }: { onCreated: (name: string) => void }) {
  const save = useSave();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const nameId = useId("new-group-name");
  const descId = useId("new-group-description");
  return (
    <Section title="New group">
      <form
        class="settings-form"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await save.run(() => createGroup(name.trim(), description, [state.self.user_id]), "Group created")) {
            onCreated(name.trim());
            setName("");
            setDescription("");
          }
        }}
      >
        <label for={nameId}>Name of the new group</label>
        <input id={nameId} type="text" value={name} required maxLength={100} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <label for={descId}>Description of the new group</label>
        <input id={descId} type="text" value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
        <div class="settings-buttons">
          <button type="submit" class="button" disabled={save.busy}>
            Create group
          </button>
        </div>
      </form>
      <Outcome save={save} />
    </Section>
  );
}

export function GroupSettings() {
  const [selected, setSelected] = useState<number | undefined>();
  // A group just created is chosen once its user_group event has brought it.
  const [created, setCreated] = useState<string | undefined>();
  const selectId = useId("group-choice");
  const groups = [...state.groups.values()].filter((g) => !g.is_system_group && !g.deactivated).sort((a, b) => a.name.localeCompare(b.name));
  const g = selected !== undefined ? state.groups.get(selected) : groups.find((x) => x.name === created);
  // Keep it chosen by id (a rename must not lose it).
  useEffect(() => {
    if (selected === undefined && g) setSelected(g.id);
  }, [g?.id]);
  return (
    <>
      <Section title="Groups of the organization">
        <div class="settings-field">
          <label for={selectId}>Group</label>
          <select id={selectId} value={g ? String(g.id) : ""} onChange={(e) => {
              setCreated(undefined);
              setSelected(Number((e.target as HTMLSelectElement).value) || undefined);
            }}
          >
            <option value="">Choose a group…</option>
            {groups.map((x) => (
              <option key={x.id} value={String(x.id)}>
                {x.name} ({x.members.length})
              </option>
            ))}
          </select>
        </div>
        {g && <GroupForm key={g.id} g={g} />}
      </Section>
      <NewGroup
        onCreated={(name) => {
          setSelected(undefined);
          setCreated(name);
        }}
      />
    </>
  );
}
