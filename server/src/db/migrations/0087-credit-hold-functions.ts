import { type Kysely, sql } from 'kysely'

/**
 * Placing and growing a credit hold as one statement each (billing/holds.ts), where each was a
 * transaction of four round trips (begin, the balance row's lock, the write, commit) on the chat
 * reply's path to its first chunk. The rule is the same: the organization's balance row is locked
 * first, and only then are the open holds summed, in a statement of its own whose snapshot sees
 * every hold committed by those who held the lock before (a volatile PL/pgSQL function takes a
 * fresh snapshot for each statement it runs under read committed; one statement alone could not:
 * its snapshot is taken before it waits for the lock). The call is its own transaction, so the
 * lock is held until the hold is written and committed.
 *
 * place_credit_hold answers true when placed, false when the balance (at least min_balance and
 * above zero) minus the open holds does not cover amount, null when there is no such organization.
 * cover_credit_hold answers whether the hold now covers amount (false: unchanged).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await sql`
    create function place_credit_hold(hold_id text, organization text, amount bigint, min_balance bigint,
      hold_kind text, hold_reference text, held_at timestamptz, expires timestamptz, round_instance text,
      round_message text, round_model text, round_prompt_tokens integer, round_used bigint,
      round_text_offset integer) returns boolean language plpgsql volatile as $$
    begin
      perform 1 from organizations where id = organization for update;
      if not found then return null; end if;
      insert into credit_holds (id, organization_id, amount_micros, kind, reference, created_at, expires_at,
        instance_id, message_id, model, prompt_tokens, used_micros, text_offset)
      select hold_id, o.id, amount, hold_kind, hold_reference, held_at, expires, round_instance, round_message,
        round_model, round_prompt_tokens, round_used, round_text_offset
      from organizations o
      where o.id = organization and o.credit_balance_micros >= min_balance
        and o.credit_balance_micros - coalesce((select sum(h.amount_micros) from credit_holds h
          where h.organization_id = o.id and h.expires_at > held_at), 0) >= amount;
      return found;
    end $$`.execute(db)
  await sql`
    create function cover_credit_hold(hold_id text, organization text, amount bigint, min_balance bigint,
      held_at timestamptz, expires timestamptz, round_instance text, round_message text, round_model text,
      round_prompt_tokens integer, round_used bigint, round_text_offset integer) returns boolean
      language plpgsql volatile as $$
    begin
      perform 1 from organizations where id = organization for update;
      update credit_holds h set amount_micros = amount, expires_at = expires, instance_id = round_instance,
        message_id = round_message, model = round_model, prompt_tokens = round_prompt_tokens,
        used_micros = round_used, text_offset = round_text_offset
      from organizations o
      where h.id = hold_id and o.id = h.organization_id and o.credit_balance_micros >= min_balance
        and o.credit_balance_micros - coalesce((select sum(other.amount_micros) from credit_holds other
          where other.organization_id = o.id and other.id <> h.id and other.expires_at > held_at), 0) >= amount;
      return found;
    end $$`.execute(db)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await sql`drop function cover_credit_hold`.execute(db)
  await sql`drop function place_credit_hold`.execute(db)
}
