import { type Kysely, sql } from 'kysely'

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('created_by', 'text', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('name', 'text', (col) => col.notNull().check(sql`char_length(name) between 1 and 50`))
    .addColumn('type', 'text', (col) => col.notNull().check(sql`type in ('secret', 'widget')`))
    .addColumn('key_hash', 'text', (col) => col.notNull().unique())
    .addColumn('prefix', 'text', (col) => col.notNull())
    .addColumn('allowed_domains', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('status', 'text', (col) =>
      col.notNull().defaultTo('active').check(sql`status in ('active', 'disabled', 'revoked')`),
    )
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('last_used_at', 'timestamptz')
    .execute()
  await db.schema.createIndex('api_keys_org_idx').on('api_keys').column('organization_id').execute()

  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('user_id', 'text', (col) => col.notNull().references('users.id'))
    .addColumn('name', 'text', (col) => col.notNull().check(sql`char_length(name) between 2 and 50`))
    .addColumn('description', 'text', (col) => col.check(sql`char_length(description) <= 200`))
    .addColumn('agent_architecture', 'text', (col) =>
      col.notNull().check(sql`agent_architecture in ('pipeline', 'realtime', 'text')`),
    )
    .addColumn('mode', 'text', (col) => col.notNull().check(sql`mode in ('public', 'private', 'commercial')`))
    .addColumn('model', 'text')
    .addColumn('stt', 'text')
    .addColumn('tts', 'text')
    .addColumn('voice_id', 'text')
    .addColumn('realtime_provider', 'text', (col) =>
      col.check(sql`realtime_provider in ('openai', 'gemini')`),
    )
    .addColumn('sys_msg', 'text', (col) => col.check(sql`char_length(sys_msg) <= 5000`))
    .addColumn('greeting_type', 'text', (col) =>
      col.notNull().defaultTo('userFirst').check(sql`greeting_type in ('agentFirst', 'userFirst')`),
    )
    .addColumn('greeting_message', 'text')
    .addColumn('last_message', 'text', (col) => col.check(sql`char_length(last_message) <= 100`))
    .addColumn('temperature', 'double precision', (col) => col.notNull().defaultTo(0.7))
    .addColumn('inactivity_timeout', 'integer', (col) =>
      col.notNull().defaultTo(30).check(sql`inactivity_timeout between 10 and 60`),
    )
    .addColumn('function_calling_enabled', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('enabled_functions', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('enabled_custom_functions', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('languages', 'jsonb', (col) => col.notNull().defaultTo(sql`'["en"]'::jsonb`))
    .addColumn('active', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('agents_org_idx')
    .on('agents')
    .columns(['organization_id', 'created_at'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('agents').execute()
  await db.schema.dropTable('api_keys').execute()
}
