import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signUp } from '../../test/helpers/accounts.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { AppError } from '../http/app-error.ts'
import { changeBalance, debitUsage, getBalanceMicros, listLedger } from './service.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ env: { TRIAL_CREDITS_USD: '0' } })
})
afterAll(async () => {
  await server.destroy()
})

describe('credit ledger', () => {
  it('100 concurrent debits of 1 against a balance of 50 leave exactly 0 and 50 refusals', async () => {
    const { organization } = await signUp(server)
    const { db } = server.ctx
    await changeBalance(
      { db },
      { organizationId: organization.id, amountMicros: 50, kind: 'grant', reason: 'test funds' },
    )

    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        changeBalance(
          { db },
          { organizationId: organization.id, amountMicros: -1, kind: 'usage', reason: `debit ${i}` },
        ),
      ),
    )
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected')
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(50)
    expect(refused).toHaveLength(50)
    for (const outcome of refused) {
      const reason = (outcome as PromiseRejectedResult).reason
      expect(reason).toBeInstanceOf(AppError)
      expect(reason).toMatchObject({ status: 402, code: 'insufficient_credits' })
    }
    expect(await getBalanceMicros(db, organization.id)).toBe(0)

    const entries = await listLedger(db, organization.id, 1000)
    expect(entries).toHaveLength(51)
    expect(entries.reduce((sum, entry) => sum + Math.round(entry.amountUsd * 1e6), 0)).toBe(0)
    const balancesAfter = entries
      .map((entry) => Math.round(entry.balanceAfterUsd * 1e6))
      .sort((a, b) => a - b)
    expect(balancesAfter).toEqual([...Array.from({ length: 50 }, (_, i) => i), 50])
  })

  it('debits usage in full, or what is left when the balance cannot cover it, never below zero', async () => {
    const { organization } = await signUp(server)
    const { db } = server.ctx
    const organizationId = organization.id
    await changeBalance({ db }, { organizationId, amountMicros: 100, kind: 'grant', reason: 'test funds' })
    const usage = (amountMicros: number) =>
      debitUsage({ db }, { organizationId, amountMicros, reason: 'usage' })

    expect(await usage(60)).toBe(60)
    expect(await usage(60)).toBe(40)
    expect(await usage(60)).toBe(0)
    expect(await getBalanceMicros(db, organizationId)).toBe(0)
    const entries = await listLedger(db, organizationId)
    expect(entries.map((entry) => Math.round(entry.amountUsd * 1e6)).sort((x, y) => x - y)).toEqual([
      -60, -40, 100,
    ])
  })

  it('changes nothing when a change is refused', async () => {
    const { organization } = await signUp(server)
    const { db } = server.ctx
    await expect(
      changeBalance(
        { db },
        { organizationId: organization.id, amountMicros: -1, kind: 'usage', reason: 'overdraw' },
      ),
    ).rejects.toMatchObject({ status: 402 })
    expect(await listLedger(db, organization.id)).toEqual([])
    await expect(
      changeBalance({ db }, { organizationId: 'no-such-org', amountMicros: 1, kind: 'grant', reason: 'x' }),
    ).rejects.toMatchObject({ status: 404 })
  })

  it('rolls the balance back when the surrounding transaction fails', async () => {
    const { organization } = await signUp(server)
    const { db } = server.ctx
    await expect(
      db.transaction().execute(async (tx) => {
        await changeBalance(
          { db, executor: tx },
          { organizationId: organization.id, amountMicros: 7, kind: 'grant', reason: 'x' },
        )
        throw new Error('later step failed')
      }),
    ).rejects.toThrow('later step failed')
    expect(await getBalanceMicros(db, organization.id)).toBe(0)
    expect(await listLedger(db, organization.id)).toEqual([])
  })
})
