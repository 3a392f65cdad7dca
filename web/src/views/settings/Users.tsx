// The organization's people: roles, deactivation and reactivation (administrators; only an
// owner may make or unmake owners, as the server insists).

import { useState } from "preact/hooks";
import { state } from "../../store";
import type { User } from "../../types";
import { deactivateUser, reactivateUser, setRole, ROLES } from "../../settingsActions";
import { ConfirmDialog, Outcome, Section, useSave } from "./form";

function roleOf(u: User): number {
  if (typeof u.role === "number") return u.role;
  return u.is_admin ? 200 : u.is_guest ? 600 : 400;
}

function UserRow({ u, save, onDeactivate }: { u: User; save: ReturnType<typeof useSave>; onDeactivate: (u: User) => void }) {
  const role = roleOf(u);
  const active = u.is_active !== false;
  const self = u.user_id === state.self.user_id;
  // Only owners may touch an owner's role or give the owner role.
  const editable = !self && (state.self.is_owner || role !== 100);
  return (
    <tr>
      <th scope="row">{u.full_name}</th>
      <td>{u.email}</td>
      <td>
        <select
          aria-label={`Role of ${u.full_name}`}
          value={String(role)}
          disabled={!editable || !active}
          onChange={(e) => void save.run(() => setRole(u.user_id, Number((e.target as HTMLSelectElement).value)), `${u.full_name}'s role changed`)}
        >
          {ROLES.filter(([r]) => r !== 100 || state.self.is_owner || role === 100).map(([r, name]) => (
            <option key={r} value={String(r)}>
              {name}
            </option>
          ))}
        </select>
      </td>
      <td>
        {!active && <span class="settings-hint">Deactivated </span>}
        {self || !editable ? null : active ? (
          <button type="button" class="button small" onClick={() => onDeactivate(u)}>
            Deactivate<span class="visually-hidden"> {u.full_name}</span>
          </button>
        ) : (
          <button type="button" class="button small" onClick={() => void save.run(() => reactivateUser(u.user_id), `${u.full_name} reactivated`)}>
            Reactivate<span class="visually-hidden"> {u.full_name}</span>
          </button>
        )}
      </td>
    </tr>
  );
}

export function UserSettings() {
  const save = useSave();
  const [filter, setFilter] = useState("");
  const [victim, setVictim] = useState<User | undefined>();
  const f = filter.trim().toLowerCase();
  const people = [...state.users.values()]
    .filter((u) => !u.is_bot && (!f || u.full_name.toLowerCase().includes(f) || u.email.toLowerCase().includes(f)))
    .sort((a, b) => Number(a.is_active === false) - Number(b.is_active === false) || a.full_name.localeCompare(b.full_name));
  return (
    <Section title="People in the organization">
      <div class="settings-field">
        <label for="user-filter">Filter people</label>
        <input id="user-filter" type="search" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
      </div>
      <Outcome save={save} />
      <div class="settings-table-wrap">
        <table class="settings-table">
          <caption class="visually-hidden">People, their roles and whether they are active</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Account</th>
            </tr>
          </thead>
          <tbody>
            {people.map((u) => (
              <UserRow key={u.user_id} u={u} save={save} onDeactivate={setVictim} />
            ))}
          </tbody>
        </table>
      </div>
      {victim && (
        <ConfirmDialog
          title={`Deactivate ${victim.full_name}?`}
          body="They will be signed out at once and can no longer sign in; their messages stay. You can reactivate them later."
          action="Deactivate"
          onConfirm={() => save.run(() => deactivateUser(victim.user_id), `${victim.full_name} deactivated`)}
          onClose={() => setVictim(undefined)}
        />
      )}
    </Section>
  );
}
