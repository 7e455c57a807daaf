import { type SelectQueryBuilder, sql } from 'kysely'

export type Page = { offset: number; limit: number }

/** How many rows the filtered query matches: a list's `total`. */
export const countRows = async <DB, TB extends keyof DB, O>(base: SelectQueryBuilder<DB, TB, O>) =>
  (
    await base
      .select(sql<number>`count(*)::int`.as('total'))
      .$castTo<{ total: number }>()
      .executeTakeFirstOrThrow()
  ).total

/**
 * One page, newest first, ties broken by id so that pages never overlap: the order of every list
 * endpoint. For `$call` on the rows query of a list.
 */
export const newestFirstPage =
  ({ offset, limit }: Page) =>
  <DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) =>
    query.orderBy(sql.ref('created_at'), 'desc').orderBy(sql.ref('id'), 'desc').offset(offset).limit(limit)
