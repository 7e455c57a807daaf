import type { AdminGrantCredits, AdminUpdateOrganization, OrganizationSummary } from '@parley/shared'
import { tierRateLimits } from '@parley/shared'
import { changeBalance, listLedger, presentLedgerEntry, toMicros, toUsd } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import type { OrganizationRow } from '../orgs/index.ts'
import * as orgs from '../orgs/index.ts'

export const presentOrganization = (org: OrganizationRow): OrganizationSummary => ({
  id: org.id,
  name: org.name,
  tier: org.tier,
  rateLimitPerMinute: org.rateLimitPerMinute ?? tierRateLimits[org.tier],
  creditBalanceUsd: toUsd(org.creditBalanceMicros),
  overdrawn: org.creditBalanceMicros < 0,
  createdAt: org.createdAt.toISOString(),
})

export const listOrganizations = async (ctx: AppContext) =>
  (await orgs.listOrganizations(ctx)).map(presentOrganization)

export const getOrganization = async (ctx: AppContext, id: string) =>
  presentOrganization(await orgs.findOrganization(ctx, id))

/** New limits apply to the organization's keys at once, on every instance. */
export const updateOrganization = async (ctx: AppContext, id: string, changes: AdminUpdateOrganization) => {
  const organization = await orgs.updateOrganizationLimits(ctx, id, changes)
  await ctx.signals.publish('organization.changed', { organizationId: id })
  return presentOrganization(organization)
}

/** Grants (or, negative, corrects) credit; the ledger row names the operator's reason. */
export const grantCredits = async (ctx: AppContext, id: string, { amountUsd, reason }: AdminGrantCredits) => {
  const entry = await changeBalance(
    { db: ctx.db },
    {
      organizationId: id,
      amountMicros: toMicros(amountUsd),
      kind: amountUsd > 0 ? 'grant' : 'correction',
      reason,
    },
  )
  return { entry: presentLedgerEntry(entry), organization: await getOrganization(ctx, id) }
}

export const organizationLedger = async (ctx: AppContext, id: string) => {
  await orgs.findOrganization(ctx, id)
  return listLedger(ctx.db, id)
}
