import { type Kysely, sql } from 'kysely'

/**
 * What analytics sums per conversation, kept on the conversation as its messages are written:
 * the number of messages, when the user first wrote, and how long the first reply after that took.
 * A trigger keeps them for every way a message is stored (a typed turn, a reply, a spoken line)
 * and removed (a privacy deletion of a call's lines), so GET /v1/analytics reads conversations
 * alone instead of probing every conversation's messages.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('conversations')
    .addColumn('message_count', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('first_user_at', 'timestamptz')
    .addColumn('first_reply_seconds', 'double precision')
    .execute()
  await sql`
    create function conversation_counters() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        update conversations c set
          message_count = c.message_count + 1,
          first_user_at = case when new.role = 'user' and (c.first_user_at is null or new.created_at < c.first_user_at)
            then new.created_at else c.first_user_at end,
          first_reply_seconds = case
            when c.first_reply_seconds is null and new.role = 'assistant' and c.first_user_at is not null
              and new.created_at >= c.first_user_at
            then extract(epoch from new.created_at - c.first_user_at) else c.first_reply_seconds end
        where c.id = new.conversation_id;
        return null;
      end if;
      update conversations c set message_count = greatest(c.message_count - 1, 0)
      where c.id = old.conversation_id;
      return null;
    end $$`.execute(db)
  await sql`create trigger chat_messages_counters after insert or delete on chat_messages
    for each row execute function conversation_counters()`.execute(db)
  // What was written before the counters existed.
  await sql`
    update conversations c set message_count = m.n, first_user_at = m.first_user_at,
      first_reply_seconds = extract(epoch from r.first_reply - m.first_user_at)
    from (select conversation_id, count(*) as n,
            min(created_at) filter (where role = 'user') as first_user_at
          from chat_messages group by conversation_id) m
    left join lateral (select min(a.created_at) as first_reply from chat_messages a
      where a.conversation_id = m.conversation_id and a.role = 'assistant'
        and a.created_at >= m.first_user_at) r on true
    where c.id = m.conversation_id`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop trigger chat_messages_counters on chat_messages`.execute(db)
  await sql`drop function conversation_counters()`.execute(db)
  await db.schema
    .alterTable('conversations')
    .dropColumn('message_count')
    .dropColumn('first_user_at')
    .dropColumn('first_reply_seconds')
    .execute()
}
