import {
  ZCreatePhoneNumber,
  ZListPhoneNumbersQuery,
  ZPatchPhoneNumber,
  ZPhoneNumberDeleted,
  ZPhoneNumberIdParams,
  ZPhoneNumberList,
  ZPhoneNumberResponse,
} from '@parley/shared'
import { agentActorOf } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import type { RouteTable } from '../http/route-table.ts'
import { idempotent } from '../idempotency/middleware.ts'
import * as phoneNumbers from './service.ts'

const tag = 'Phone numbers'

export const registerPhoneNumberRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'get',
    path: '/v1/phone-numbers',
    summary: "List the organization's phone numbers",
    tag,
    auth: 'apiKey',
    query: ZListPhoneNumbersQuery,
    response: ZPhoneNumberList,
    handle: async ({ query, req }) => {
      const { phoneNumbers: rows, pagination } = await phoneNumbers.listPhoneNumbers(
        ctx,
        await agentActorOf(ctx, req),
        query,
      )
      return { success: true as const, data: rows.map(phoneNumbers.toPhoneNumber), pagination }
    },
  })

  routes.add({
    method: 'post',
    path: '/v1/phone-numbers',
    summary: 'Register a phone number (E.164) with its SIP trunk and outbound agent (owners and admins)',
    tag,
    auth: 'apiKey',
    body: ZCreatePhoneNumber,
    status: 201,
    before: [
      idempotent({ ctx, scopeOf: (req) => (req.actor?.kind === 'apiKey' ? req.actor.organizationId : '') }),
    ],
    response: ZPhoneNumberResponse,
    errors: [403, 404, 409],
    handle: async ({ body, req }) => ({
      success: true as const,
      data: phoneNumbers.toPhoneNumber(
        await phoneNumbers.createPhoneNumber(ctx, await agentActorOf(ctx, req), body),
      ),
    }),
  })

  routes.add({
    method: 'get',
    path: '/v1/phone-numbers/{phoneNumberId}',
    summary: 'Get a phone number',
    tag,
    auth: 'apiKey',
    params: ZPhoneNumberIdParams,
    response: ZPhoneNumberResponse,
    errors: [404],
    handle: async ({ params, req }) => ({
      success: true as const,
      data: phoneNumbers.toPhoneNumber(
        await phoneNumbers.getPhoneNumber(ctx, await agentActorOf(ctx, req), params.phoneNumberId),
      ),
    }),
  })

  routes.add({
    method: 'patch',
    path: '/v1/phone-numbers/{phoneNumberId}',
    summary: 'Change a phone number: any of number, label, outboundAgentId (null clears), sipTrunkId',
    tag,
    auth: 'apiKey',
    params: ZPhoneNumberIdParams,
    body: ZPatchPhoneNumber,
    response: ZPhoneNumberResponse,
    errors: [403, 404, 409],
    handle: async ({ params, body, req }) => ({
      success: true as const,
      data: phoneNumbers.toPhoneNumber(
        await phoneNumbers.updatePhoneNumber(ctx, await agentActorOf(ctx, req), {
          id: params.phoneNumberId,
          changes: body,
        }),
      ),
    }),
  })

  routes.add({
    method: 'delete',
    path: '/v1/phone-numbers/{phoneNumberId}',
    summary: 'Delete a phone number; running batch jobs that use it fail with a reason',
    tag,
    auth: 'apiKey',
    params: ZPhoneNumberIdParams,
    response: ZPhoneNumberDeleted,
    errors: [403, 404],
    handle: async ({ params, req }) => {
      await phoneNumbers.deletePhoneNumber(ctx, await agentActorOf(ctx, req), params.phoneNumberId)
      return { success: true as const, data: { message: 'Phone number deleted' } }
    },
  })
}
