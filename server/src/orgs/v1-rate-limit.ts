import { tierRateLimits } from '@parley/shared'
import type { AppContext } from '../context.ts'
import { findOrganization } from './store.ts'

/** The organization's v1 requests per minute: its custom limit, else its tier's; undefined when it is gone. */
export const v1RateLimitOf = async (ctx: AppContext, organizationId: string) => {
  const organization = await findOrganization(ctx.db, organizationId)
  if (!organization) return undefined
  return organization.rateLimitPerMinute ?? tierRateLimits[organization.tier]
}
