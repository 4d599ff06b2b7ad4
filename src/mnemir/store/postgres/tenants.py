"""Row-level security: the database itself keeps each user's memories apart, for a role without BYPASSRLS.

The administrator (the role that owns the tables; owners are not subject to these policies) creates the store and
calls :meth:`PostgresStore.enable_row_level_security` once, naming the role tenants connect with. A tenant's
session says whose memories it may touch with the setting ``mnemir.user_id`` (:func:`tenant_url` puts it in the
connection URL); then every row of ``records``, ``embeddings``, ``relationships`` and ``history`` that belongs to
another user is invisible to it and cannot be written, whatever SQL it sends.

- ``records``: rows whose ``user_id`` is the session's user.
- ``embeddings``, ``relationships``, ``history``: rows of the session user's records (by rid, source, memory id);
  a history row for a memory not stored yet (written in the same transaction just before it) may be inserted if
  no other user holds that id. A hard-deleted memory's tombstone is visible to the administrator only.
- ``meta`` and ``schema_migrations``: read-only for tenants (the administrator creates the store and fixes its
  embedding model with the first write).

Not covered: records with no user (``user_id`` NULL) are invisible to every tenant; a tenant can learn whether
an id is held by another user (an insert under that id is refused), though not whose it is or what it holds.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from mnemir.errors import ValidationError

#: the session setting naming the tenant's user
SETTING = "mnemir.user_id"
TABLES = ("records", "embeddings", "relationships", "history")

_FUNCTIONS = f"""
CREATE OR REPLACE FUNCTION mnemir_tenant() RETURNS text LANGUAGE sql STABLE
    AS $$ SELECT nullif(current_setting('{SETTING}', true), '') $$;
CREATE OR REPLACE FUNCTION mnemir_owns(memory_id text) RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public
    AS $$ SELECT EXISTS (SELECT 1 FROM records WHERE id = memory_id AND user_id = mnemir_tenant()) $$;
CREATE OR REPLACE FUNCTION mnemir_owns_rid(row_id bigint) RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public
    AS $$ SELECT EXISTS (SELECT 1 FROM records WHERE rid = row_id AND user_id = mnemir_tenant()) $$;
CREATE OR REPLACE FUNCTION mnemir_held_by_another(memory_id text) RETURNS boolean LANGUAGE sql STABLE
    SECURITY DEFINER SET search_path = public
    AS $$ SELECT EXISTS (SELECT 1 FROM records WHERE id = memory_id
                         AND user_id IS DISTINCT FROM mnemir_tenant()) $$
"""

_POLICIES = {
    "records": ("user_id = mnemir_tenant()", "user_id = mnemir_tenant()"),
    "embeddings": ("mnemir_owns_rid(rid)", "mnemir_owns_rid(rid)"),
    "relationships": ("mnemir_owns(source)", "mnemir_owns(source)"),
    "history": ("mnemir_owns(memory_id)", "NOT mnemir_held_by_another(memory_id)"),
}


def install(cur: Any, role: str) -> None:
    """Enable the policies and grant ``role`` what a tenant needs (idempotent; run by the tables' owner)."""
    from psycopg import sql

    if not isinstance(role, str) or not role:
        raise ValidationError("name the role tenants connect with", field="role", value=role)
    cur.execute("SELECT rolbypassrls OR rolsuper FROM pg_roles WHERE rolname = %s", [role])
    found = cur.fetchone()
    if found is None:
        raise ValidationError(f"no role {role!r} in this server; create it first (CREATE ROLE ... LOGIN)",
                              field="role", value=role)
    if found[0]:
        raise ValidationError(f"role {role!r} bypasses row-level security (superuser or BYPASSRLS)",
                              field="role", value=role, allowed="a role with NOBYPASSRLS, not a superuser")
    for statement in _FUNCTIONS.split(";\n"):
        if statement.strip():
            cur.execute(statement)
    who = sql.Identifier(role)
    for table, (using, check) in _POLICIES.items():
        name = sql.Identifier(table)
        cur.execute(sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(name))
        cur.execute(sql.SQL("DROP POLICY IF EXISTS mnemir_scope ON {}").format(name))
        cur.execute(sql.SQL("CREATE POLICY mnemir_scope ON {} USING (" + using + ") WITH CHECK (" + check + ")")
                    .format(name))
        cur.execute(sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON {} TO {}").format(name, who))
    cur.execute(sql.SQL("GRANT SELECT ON meta, schema_migrations TO {}").format(who))
    cur.execute(sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {}").format(who))
    cur.execute(sql.SQL("GRANT EXECUTE ON FUNCTION mnemir_tenant(), mnemir_owns(text), mnemir_owns_rid(bigint), "
                        "mnemir_held_by_another(text) TO {}").format(who))


def tenant_url(url: str, user: str) -> str:
    """``url`` with the session setting that makes the connection act for ``user`` (libpq ``options``)."""
    if not isinstance(user, str) or not user or any(c.isspace() or c == "\\" for c in user):
        raise ValidationError("a tenant user id for the connection", field="user", value=user,
                              allowed="a non-empty id without spaces or backslashes")
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "options"]
    query.append(("options", f"-c {SETTING}={user}"))
    return urlunsplit(parts._replace(query=urlencode(query, quote_via=quote)))  # libpq reads %20, not +
