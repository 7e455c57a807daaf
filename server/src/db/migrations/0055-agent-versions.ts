import { type Kysely, sql } from 'kysely'

/** The row's columns that are no setting: identity, ownership, times, and the sealed webhook secret. */
const NOT_SETTINGS = new Set([
  'id',
  'organization_id',
  'user_id',
  'created_at',
  'updated_at',
  'webhook_secret_box',
])

const camel = (column: string) => column.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

/**
 * Agent versions: a draft per agent (what the studio edits, absent while it equals the published
 * settings) and immutable numbered versions (the highest is the published one: it is what the
 * agents row holds and every session runs on). Conversations and calls record the version they
 * ran on, set by a trigger from the agent's highest version when the row is written. Every
 * existing agent gets version 1 from its current settings.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('agent_versions')
    .addColumn('agent_id', 'text', (col) => col.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('number', 'integer', (col) => col.notNull())
    .addColumn('settings', 'jsonb', (col) => col.notNull())
    .addColumn('functions', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('published_by', 'text')
    .addColumn('note', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('agent_versions_pkey', ['agent_id', 'number'])
    .execute()
  await db.schema
    .createTable('agent_drafts')
    .addColumn('agent_id', 'text', (col) => col.primaryKey().references('agents.id').onDelete('cascade'))
    .addColumn('settings', 'jsonb', (col) => col.notNull())
    .addColumn('updated_by', 'text')
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.alterTable('conversations').addColumn('agent_version', 'integer').execute()
  await db.schema.alterTable('calls').addColumn('agent_version', 'integer').execute()
  await sql`
    create function record_agent_version() returns trigger language plpgsql as $$
    begin
      if new.agent_version is null then
        new.agent_version := (select max(v.number) from agent_versions v where v.agent_id = new.agent_id);
      end if;
      return new;
    end $$`.execute(db)
  await sql`create trigger conversations_agent_version before insert on conversations
    for each row execute function record_agent_version()`.execute(db)
  await sql`create trigger calls_agent_version before insert on calls
    for each row execute function record_agent_version()`.execute(db)

  // Version 1 of every agent made before versions, in the settings vocabulary of the code
  // (camelCase of each column), with its custom functions' definitions (never their headers).
  const { rows } = await sql<{
    row: Record<string, unknown>
  }>`select to_jsonb(a) as row from agents a`.execute(db)
  for (const { row } of rows) {
    const settings = Object.fromEntries(
      Object.entries(row)
        .filter(([column]) => !NOT_SETTINGS.has(column))
        .map(([column, value]) => [camel(column), value]),
    )
    await sql`
      insert into agent_versions (agent_id, number, settings, functions, published_by, note, created_at)
      values (${row.id}, 1, ${JSON.stringify(settings)}::jsonb,
        coalesce((select jsonb_agg(jsonb_build_object('id', f.id, 'name', f.name, 'label', f.label,
            'description', f.description, 'endpoint', f.endpoint, 'method', f.method,
            'parameters', f.parameters) order by f.name)
          from custom_functions f where f.agent_id = ${row.id}), '[]'::jsonb),
        ${row.user_id}, 'Settings before versions', now())`.execute(db)
  }
  await sql`update conversations c set agent_version = 1 where c.agent_id in (select agent_id from agent_versions)`.execute(
    db,
  )
  await sql`update calls c set agent_version = 1 where c.agent_id in (select agent_id from agent_versions)`.execute(
    db,
  )
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop trigger calls_agent_version on calls`.execute(db)
  await sql`drop trigger conversations_agent_version on conversations`.execute(db)
  await sql`drop function record_agent_version()`.execute(db)
  await db.schema.alterTable('calls').dropColumn('agent_version').execute()
  await db.schema.alterTable('conversations').dropColumn('agent_version').execute()
  await db.schema.dropTable('agent_drafts').execute()
  await db.schema.dropTable('agent_versions').execute()
}
