import { type Kysely, sql } from 'kysely'

/**
 * A credit hold placed in one statement (billing/holds.ts): the balance row's lock, then the sum
 * of the open holds and the insert. A function, because the insert must read the holds committed
 * by whoever held the lock before: under read committed each statement of a volatile function
 * takes a snapshot of its own, as two statements of a transaction would, and the hold costs one
 * round trip instead of four (begin, lock, insert, commit). Answers 'placed', 'refused' (the
 * balance minus the open holds does not cover it) or 'missing' (no such organization).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    create function place_credit_hold(
      p_id text, p_organization_id text, p_amount_micros bigint, p_min_balance_micros bigint,
      p_kind text, p_reference text, p_created_at timestamptz, p_expires_at timestamptz,
      p_instance_id text, p_message_id text, p_model text, p_prompt_tokens integer,
      p_used_micros bigint, p_text_offset integer
    ) returns text language plpgsql as $$
    begin
      perform 1 from organizations where id = p_organization_id for update;
      if not found then
        return 'missing';
      end if;
      insert into credit_holds (id, organization_id, amount_micros, kind, reference, created_at, expires_at,
        instance_id, message_id, model, prompt_tokens, used_micros, text_offset)
      select p_id, o.id, p_amount_micros, p_kind, p_reference, p_created_at, p_expires_at, p_instance_id,
        p_message_id, p_model, p_prompt_tokens, p_used_micros, p_text_offset
      from organizations o
      where o.id = p_organization_id
        and o.credit_balance_micros >= p_min_balance_micros
        and o.credit_balance_micros - coalesce((select sum(h.amount_micros) from credit_holds h
          where h.organization_id = o.id and h.expires_at > p_created_at), 0) >= p_amount_micros;
      return case when found then 'placed' else 'refused' end;
    end $$`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop function place_credit_hold(text, text, bigint, bigint, text, text, timestamptz, timestamptz, text, text, text, integer, bigint, integer)`.execute(
    db,
  )
}
