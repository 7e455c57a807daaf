import { type Kysely, sql } from 'kysely'

export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('agents')
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_secret_box', 'text')
    .addColumn('handoff_agent_ids', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute()

  await db.schema
    .createTable('organization_provider_keys')
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('provider', 'text', (col) => col.notNull())
    .addColumn('key_box', 'text', (col) => col.notNull())
    .addColumn('last4', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('organization_provider_keys_pkey', ['organization_id', 'provider'])
    .execute()

  await db.schema
    .createTable('custom_functions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('agent_id', 'text', (col) => col.notNull().references('agents.id').onDelete('cascade'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('label', 'text', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    .addColumn('endpoint', 'text', (col) => col.notNull())
    .addColumn('method', 'text', (col) =>
      col.notNull().defaultTo('POST').check(sql`method in ('GET', 'POST', 'PUT', 'PATCH')`),
    )
    .addColumn('headers_box', 'text', (col) => col.notNull())
    .addColumn('parameters', 'jsonb', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('custom_functions_agent_name_key', ['agent_id', 'name'])
    .execute()
  await db.schema
    .createIndex('custom_functions_org_idx')
    .on('custom_functions')
    .column('organization_id')
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('custom_functions').execute()
  await db.schema.dropTable('organization_provider_keys').execute()
  await db.schema
    .alterTable('agents')
    .dropColumn('webhook_url')
    .dropColumn('webhook_secret_box')
    .dropColumn('handoff_agent_ids')
    .execute()
}
