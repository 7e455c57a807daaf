import { type Kysely, sql } from 'kysely'

/**
 * Conversations outlive their agent: no foreign key to agents, and the agent's name is kept, so
 * deleting an agent's configuration leaves its conversations readable for billing.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('conversations')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('agent_id', 'text', (col) => col.notNull())
    .addColumn('agent_name', 'text', (col) => col.notNull())
    .addColumn('api_key_id', 'text')
    .addColumn('user_identifier', 'text')
    .addColumn('metadata', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('status', 'text', (col) =>
      col.notNull().defaultTo('active').check(sql`status in ('active', 'ended', 'expired')`),
    )
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('last_activity_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('ended_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('conversations_org_idx')
    .on('conversations')
    .columns(['organization_id', 'created_at'])
    .execute()
  await db.schema.createIndex('conversations_agent_idx').on('conversations').column('agent_id').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('conversations').execute()
}
