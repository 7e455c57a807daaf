import { type Kysely, sql } from 'kysely'

/**
 * A reply's hold grown (or shrunk) for its next round in one statement (billing/holds.ts), as
 * `place_credit_hold` places one (0087): the balance row's lock, then the update in a statement
 * of its own, whose snapshot sees every hold committed by those who held the lock before. Answers
 * whether the hold now covers the round; false changes nothing.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    create function cover_credit_hold(
      p_id text, p_organization_id text, p_amount_micros bigint, p_min_balance_micros bigint,
      p_now timestamptz, p_expires_at timestamptz, p_instance_id text, p_message_id text, p_model text,
      p_prompt_tokens integer, p_used_micros bigint, p_text_offset integer
    ) returns boolean language plpgsql as $$
    begin
      perform 1 from organizations where id = p_organization_id for update;
      update credit_holds h set amount_micros = p_amount_micros, expires_at = p_expires_at,
        instance_id = p_instance_id, message_id = p_message_id, model = p_model,
        prompt_tokens = p_prompt_tokens, used_micros = p_used_micros, text_offset = p_text_offset
      from organizations o
      where h.id = p_id and o.id = h.organization_id
        and o.credit_balance_micros >= p_min_balance_micros
        and o.credit_balance_micros - coalesce((select sum(other.amount_micros) from credit_holds other
          where other.organization_id = o.id and other.id <> h.id and other.expires_at > p_now), 0)
          >= p_amount_micros;
      return found;
    end $$`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop function cover_credit_hold(text, text, bigint, bigint, timestamptz, timestamptz, text, text, text, integer, bigint, integer)`.execute(
    db,
  )
}
