import { type Kysely, sql } from 'kysely'

/**
 * Outbound batch calling: the organization's phone numbers, batch jobs, their contacts and every
 * dial attempt. Jobs keep no foreign key to phone numbers or agents: deleting either is allowed
 * and the dialer fails the jobs that still need them, with a reason. An attempt row is inserted
 * (claimed) before dialling, so the unique (contact, attempt number) pair forbids a double dial.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('phone_numbers')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('number', 'text', (col) => col.notNull())
    .addColumn('label', 'text')
    .addColumn('outbound_agent_id', 'text', (col) => col.references('agents.id').onDelete('set null'))
    .addColumn('sip_trunk_id', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('phone_numbers_org_number_uq', ['organization_id', 'number'])
    .execute()
  await db.schema
    .createIndex('phone_numbers_org_idx')
    .on('phone_numbers')
    .columns(['organization_id', 'created_at', 'id'])
    .execute()

  await db.schema
    .createTable('batch_jobs')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('organization_id', 'text', (col) =>
      col.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('phone_number_id', 'text', (col) => col.notNull())
    .addColumn('agent_id', 'text', (col) => col.notNull())
    .addColumn('key_id', 'text')
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (col) =>
      col
        .notNull()
        .check(
          sql`status in ('pending', 'scheduled', 'running', 'paused', 'completed', 'failed', 'cancelled')`,
        ),
    )
    .addColumn('concurrent_call_limit', 'integer', (col) => col.notNull())
    .addColumn('max_attempts', 'integer', (col) => col.notNull())
    .addColumn('scheduled_start_time', 'timestamptz')
    .addColumn('timezone', 'text', (col) => col.notNull().defaultTo('UTC'))
    .addColumn('calling_window', 'jsonb')
    .addColumn('total_contacts', 'integer', (col) => col.notNull())
    .addColumn('estimated_cost_micros', 'bigint', (col) => col.notNull())
    .addColumn('failure_reason', 'text')
    .addColumn('unknown_placeholders', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('batch_jobs_status_start_idx')
    .on('batch_jobs')
    .columns(['status', 'scheduled_start_time'])
    .execute()
  await db.schema
    .createIndex('batch_jobs_org_idx')
    .on('batch_jobs')
    .columns(['organization_id', 'created_at', 'id'])
    .execute()

  await db.schema
    .createTable('batch_contacts')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('batch_job_id', 'text', (col) => col.notNull().references('batch_jobs.id').onDelete('cascade'))
    .addColumn('organization_id', 'text', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('phone', 'text', (col) => col.notNull())
    .addColumn('name', 'text')
    .addColumn('fields', 'jsonb', (col) => col.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('time_zone', 'text')
    .addColumn('status', 'text', (col) =>
      col
        .notNull()
        .defaultTo('pending')
        .check(sql`status in ('pending', 'in_progress', 'completed', 'failed', 'cancelled')`),
    )
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('last_error', 'text')
    .addColumn('last_outcome', 'text')
    .addColumn('call_id', 'text')
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('batch_contacts_job_phone_uq', ['batch_job_id', 'phone'])
    .execute()
  await db.schema
    .createIndex('batch_contacts_job_status_next_idx')
    .on('batch_contacts')
    .columns(['batch_job_id', 'status', 'next_attempt_at'])
    .execute()
  await db.schema
    .createIndex('batch_contacts_job_position_idx')
    .on('batch_contacts')
    .columns(['batch_job_id', 'position'])
    .execute()

  await db.schema
    .createTable('batch_attempts')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('batch_contact_id', 'text', (col) =>
      col.notNull().references('batch_contacts.id').onDelete('cascade'),
    )
    .addColumn('batch_job_id', 'text', (col) => col.notNull().references('batch_jobs.id').onDelete('cascade'))
    .addColumn('attempt_number', 'integer', (col) => col.notNull())
    .addColumn('started_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('finished_at', 'timestamptz')
    .addColumn('outcome', 'text', (col) =>
      col.check(sql`outcome in ('answered', 'busy', 'no_answer', 'failed', 'completed')`),
    )
    .addColumn('sip_status', 'integer')
    .addColumn('call_id', 'text')
    .addColumn('error', 'text')
    .addUniqueConstraint('batch_attempts_contact_number_uq', ['batch_contact_id', 'attempt_number'])
    .execute()
  await db.schema
    .createIndex('batch_attempts_job_idx')
    .on('batch_attempts')
    .columns(['batch_job_id', 'started_at'])
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('batch_attempts').execute()
  await db.schema.dropTable('batch_contacts').execute()
  await db.schema.dropTable('batch_jobs').execute()
  await db.schema.dropTable('phone_numbers').execute()
}
