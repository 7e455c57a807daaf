import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signUp } from '../../test/helpers/accounts.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { AppError } from '../http/app-error.ts'
import { changeBalance, debitUsage, debitUsages, getBalanceMicros, listLedger } from './service.ts'

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

  it('debits usage in full even past the balance, which then goes below zero; a grant counts from there', async () => {
    const { organization } = await signUp(server)
    const { db } = server.ctx
    const organizationId = organization.id
    await changeBalance({ db }, { organizationId, amountMicros: 100, kind: 'grant', reason: 'test funds' })
    const usage = (amountMicros: number) =>
      debitUsage({ db }, { organizationId, amountMicros, reason: 'usage' })

    expect(await usage(60)).toBe(60)
    expect(await usage(60)).toBe(60)
    expect(await usage(60)).toBe(60)
    expect(await getBalanceMicros(db, organizationId)).toBe(-80)
    // A debit that is not usage still never overdraws; a grant always applies.
    await expect(
      changeBalance({ db }, { organizationId, amountMicros: -1, kind: 'correction', reason: 'x' }),
    ).rejects.toMatchObject({ status: 402 })
    await changeBalance({ db }, { organizationId, amountMicros: 30, kind: 'grant', reason: 'top-up' })
    expect(await getBalanceMicros(db, organizationId)).toBe(-50)
    const entries = await listLedger(db, organizationId)
    expect(entries.map((entry) => Math.round(entry.balanceAfterUsd * 1e6))).toEqual([-50, -80, -20, 40, 100])
  })

  it('debits many usages in one statement, in order, each in full', async () => {
    const { organization: first } = await signUp(server)
    const { organization: second } = await signUp(server)
    const { db } = server.ctx
    await changeBalance(
      { db },
      { organizationId: first.id, amountMicros: 100, kind: 'grant', reason: 'funds' },
    )
    await changeBalance(
      { db },
      { organizationId: second.id, amountMicros: 10, kind: 'grant', reason: 'funds' },
    )

    const taken = await debitUsages({ db }, [
      { organizationId: first.id, amountMicros: 70, reason: 'call 1', reference: 'c1' },
      { organizationId: second.id, amountMicros: 4, reason: 'call 2', reference: 'c2' },
      { organizationId: first.id, amountMicros: 0, reason: 'free call' },
      { organizationId: first.id, amountMicros: 50, reason: 'call 3', reference: 'c3' },
      { organizationId: first.id, amountMicros: 5, reason: 'call 4', reference: 'c4' },
      { organizationId: second.id, amountMicros: 4, reason: 'call 5', reference: 'c5' },
    ])
    expect(taken).toEqual([70, 4, 0, 50, 5, 4])
    expect(await getBalanceMicros(db, first.id)).toBe(-25)
    expect(await getBalanceMicros(db, second.id)).toBe(2)
    const firstEntries = (await listLedger(db, first.id)).filter((entry) => entry.kind === 'usage')
    expect(
      firstEntries.map((e) => [Math.round(e.amountUsd * 1e6), Math.round(e.balanceAfterUsd * 1e6)]),
    ).toEqual([
      [-5, -25],
      [-50, -20],
      [-70, 30],
    ])
    await expect(
      debitUsages({ db }, [{ organizationId: 'no-such-org', amountMicros: 1, reason: 'x' }]),
    ).rejects.toMatchObject({ status: 404 })
  })

  it('100 concurrent usage debits of 3 against a balance of 250 are all charged, each once', async () => {
    const { organization } = await signUp(server)
    const { db } = server.ctx
    const organizationId = organization.id
    await changeBalance({ db }, { organizationId, amountMicros: 250, kind: 'grant', reason: 'funds' })
    const taken = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        debitUsage({ db }, { organizationId, amountMicros: 3, reason: `usage ${i}` }),
      ),
    )
    expect(taken.every((amount) => amount === 3)).toBe(true)
    expect(await getBalanceMicros(db, organizationId)).toBe(-50)
    const usage = (await listLedger(db, organizationId, 1000)).filter((entry) => entry.kind === 'usage')
    expect(usage).toHaveLength(100)
    expect(usage.map((e) => Math.round(e.balanceAfterUsd * 1e6)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => 250 - 3 * (100 - i)),
    )
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
