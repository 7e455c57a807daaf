import { type Kysely, sql } from 'kysely'

/**
 * One row per voice session or outbound call. No foreign key to agents: deleting an agent's
 * configuration keeps its call logs and transcripts for billing (spec, DELETE /v1/agents).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('calls')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('agent_id', 'text', (col) => col.notNull())
    .addColumn('user_id', 'text')
    .addColumn('key_id', 'text')
    .addColumn('room_name', 'text', (col) => col.notNull().unique())
    .addColumn('architecture', 'text', (col) =>
      col.notNull().check(sql`architecture in ('pipeline', 'realtime')`),
    )
    .addColumn('direction', 'text', (col) => col.notNull().check(sql`direction in ('web', 'outbound')`))
    .addColumn('status', 'text', (col) =>
      col.notNull().defaultTo('active').check(sql`status in ('active', 'ended', 'failed')`),
    )
    .addColumn('started_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('ended_at', 'timestamptz')
    .addColumn('duration_seconds', 'integer')
    .addColumn('cost_micros', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('end_reason', 'text')
    .addColumn('phone_number', 'text')
    .addColumn('batch_job_id', 'text')
    .addColumn('batch_contact_id', 'text')
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('calls_organization_created_idx')
    .on('calls')
    .columns(['organization_id', 'created_at'])
    .execute()
  await db.schema.createIndex('calls_status_idx').on('calls').column('status').execute()
  await db.schema.createIndex('calls_batch_job_idx').on('calls').column('batch_job_id').execute()
  await db.schema
    .createTable('call_transcript_lines')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('call_id', 'text', (col) => col.notNull().references('calls.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (col) => col.notNull())
    .addColumn('role', 'text', (col) => col.notNull().check(sql`role in ('user', 'assistant')`))
    .addColumn('content', 'text', (col) => col.notNull())
    .addColumn('spoken_at', 'timestamptz', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    .execute()
  await db.schema
    .createIndex('call_transcript_lines_call_idx')
    .on('call_transcript_lines')
    .columns(['call_id', 'position'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('call_transcript_lines').execute()
  await db.schema.dropTable('calls').execute()
}
