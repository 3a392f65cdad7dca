-- User groups: Zulip's system groups (one set per organization, membership derived from
-- roles) and user-defined groups (explicit members), both with subgroups. Realm permission
-- settings name a group by id.

CREATE TABLE user_groups (
    id INTEGER PRIMARY KEY,
    realm_id INTEGER NOT NULL REFERENCES realms(id),
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    is_system_group INTEGER NOT NULL DEFAULT 0,
    -- System groups only: users of exactly this role are direct members (role:members and
    -- role:fullmembers both hold role 400). Null: members are the rows of user_group_members.
    system_role INTEGER,
    creator_id INTEGER REFERENCES users(id),
    date_created INTEGER,
    deactivated INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX user_groups_realm_name ON user_groups(realm_id, name);

CREATE TABLE user_group_members (
    group_id INTEGER NOT NULL REFERENCES user_groups(id),
    user_id INTEGER NOT NULL REFERENCES users(id),
    PRIMARY KEY (group_id, user_id)
);
CREATE INDEX user_group_members_user ON user_group_members(user_id);

CREATE TABLE user_group_subgroups (
    supergroup_id INTEGER NOT NULL REFERENCES user_groups(id),
    subgroup_id INTEGER NOT NULL REFERENCES user_groups(id),
    PRIMARY KEY (supergroup_id, subgroup_id)
);
