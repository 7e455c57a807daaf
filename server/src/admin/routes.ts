import {
  ZAdminCreditResult,
  ZAdminGrantCredits,
  ZAdminOrganization,
  ZAdminOrganizationList,
  ZAdminOrgParams,
  ZAdminUpdateOrganization,
  ZIdempotencyHeaders,
  ZLedgerEntry,
} from '@parley/shared'
import { z } from 'zod'
import type { AppContext } from '../context.ts'
import type { RouteTable } from '../http/route-table.ts'
import { idempotent } from '../idempotency/middleware.ts'
import * as admin from './service.ts'

const tag = 'Operator'

export const registerAdminRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'get',
    path: '/admin/organizations',
    summary: 'Every organization with its tier, limit and balance',
    tag,
    auth: 'operator',
    response: ZAdminOrganizationList,
    handle: async () => ({ success: true as const, data: await admin.listOrganizations(ctx) }),
  })

  routes.add({
    method: 'patch',
    path: '/admin/organizations/{id}',
    summary: 'Change an organization tier or custom per-minute limit',
    tag,
    auth: 'operator',
    params: ZAdminOrgParams,
    body: ZAdminUpdateOrganization,
    response: ZAdminOrganization,
    errors: [404],
    handle: async ({ params, body }) => ({
      success: true as const,
      data: await admin.updateOrganization(ctx, params.id, body),
    }),
  })

  routes.add({
    method: 'post',
    path: '/admin/organizations/{id}/credits',
    summary: 'Grant credits (positive) or correct them down (negative, never below zero)',
    tag,
    auth: 'operator',
    params: ZAdminOrgParams,
    body: ZAdminGrantCredits,
    headers: ZIdempotencyHeaders,
    // Scoped by the organization credited: a retried grant must not pay twice.
    before: [idempotent({ ctx, scopeOf: (req) => String(req.params.id) })],
    status: 201,
    response: ZAdminCreditResult,
    errors: [402, 404, 409],
    handle: async ({ params, body }) => ({
      success: true as const,
      data: await admin.grantCredits(ctx, params.id, body),
    }),
  })

  routes.add({
    method: 'get',
    path: '/admin/organizations/{id}/ledger',
    summary: 'The latest 100 credit ledger entries of an organization, newest first',
    tag,
    auth: 'operator',
    params: ZAdminOrgParams,
    response: z.object({ success: z.literal(true), data: z.array(ZLedgerEntry) }),
    errors: [404],
    handle: async ({ params }) => ({
      success: true as const,
      data: await admin.organizationLedger(ctx, params.id),
    }),
  })
}
