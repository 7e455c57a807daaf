import { z } from 'zod'
import { ZPageQuery } from './agents.ts'
import { ZIsoDateTime, ZPagination } from './common.ts'

/**
 * E.164 as the contract writes it: a leading +, a non-zero country digit, at most 15 digits, no
 * spaces, dashes or brackets. Whether the number can exist is checked on the server
 * (libphonenumber-js), which the widget bundle never needs.
 */
export const E164_PATTERN = /^\+[1-9]\d{1,14}$/
export const ZE164 = z
  .string()
  .regex(E164_PATTERN, 'must be E.164: a leading + and digits only, e.g. +14155550123')
  .meta({ example: '+14155550123' })

/**
 * Whether LiveKit answers the number: the SIP inbound trunk and the dispatch rule Parley keeps for
 * it (ids as LiveKit gave them), when they were last found in step, and what went wrong last.
 */
export const ZPhoneNumberInbound = z
  .object({
    status: z.enum(['synced', 'pending', 'error']).meta({
      description:
        'synced: LiveKit has the trunk and the rule as they should be; pending: not yet made; error: the last attempt failed (the hourly reconcile job tries again)',
    }),
    livekitTrunkId: z.string().nullable(),
    livekitDispatchRuleId: z.string().nullable(),
    syncedAt: ZIsoDateTime.nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'PhoneNumberInbound' })
export type PhoneNumberInbound = z.infer<typeof ZPhoneNumberInbound>

export const ZPhoneNumber = z
  .object({
    id: z.string(),
    number: ZE164,
    label: z.string().nullable(),
    outboundAgentId: z.string().nullable(),
    inboundAgentId: z.string().nullable().meta({
      description: 'The voice agent that answers calls to this number; null: the number does not answer',
    }),
    inbound: ZPhoneNumberInbound.nullable().meta({
      description: 'LiveKit’s side of answering the number; null when it has no inbound agent',
    }),
    sipTrunkId: z.string(),
    createdAt: ZIsoDateTime,
    updatedAt: ZIsoDateTime,
  })
  .meta({ id: 'PhoneNumber' })
export type PhoneNumber = z.infer<typeof ZPhoneNumber>

const ZLabel = z.string().trim().max(100, 'label must be at most 100 characters').nullable()
const ZSipTrunkId = z
  .string()
  .trim()
  .min(1, 'sipTrunkId is required')
  .max(200, 'sipTrunkId must be at most 200 characters')
  .meta({ description: 'The LiveKit outbound SIP trunk id (ST_…) calls from this number use' })
const ZOutboundAgentId = z
  .string()
  .min(1)
  .max(100)
  .nullable()
  .meta({ description: 'A pipeline or realtime agent of the same organization; text agents are refused' })
const ZInboundAgentId = z.string().min(1).max(100).nullable().meta({
  description:
    'A pipeline or realtime agent of the same organization that answers calls to the number; null stops answering',
})

export const ZCreatePhoneNumber = z
  .object({
    number: ZE164,
    label: ZLabel.optional(),
    outboundAgentId: ZOutboundAgentId.optional(),
    inboundAgentId: ZInboundAgentId.optional(),
    sipTrunkId: ZSipTrunkId,
  })
  .meta({ id: 'CreatePhoneNumberRequest' })
export type CreatePhoneNumber = z.infer<typeof ZCreatePhoneNumber>

export const ZPatchPhoneNumber = z
  .object({
    number: ZE164,
    label: ZLabel,
    outboundAgentId: ZOutboundAgentId,
    inboundAgentId: ZInboundAgentId,
    sipTrunkId: ZSipTrunkId,
  })
  .partial()
  .meta({ id: 'PatchPhoneNumberRequest' })
export type PatchPhoneNumber = z.infer<typeof ZPatchPhoneNumber>

export const ZPhoneNumberIdParams = z.object({ phoneNumberId: z.string().min(1).max(100) })

export const ZListPhoneNumbersQuery = ZPageQuery
export type ListPhoneNumbersQuery = z.infer<typeof ZListPhoneNumbersQuery>

export const ZPhoneNumberResponse = z
  .object({ success: z.literal(true), data: ZPhoneNumber })
  .meta({ id: 'PhoneNumberResponse' })

export const ZPhoneNumberList = z
  .object({
    success: z.literal(true),
    data: z.array(ZPhoneNumber),
    pagination: ZPagination,
  })
  .meta({ id: 'PhoneNumberList' })

export const ZPhoneNumberDeleted = z
  .object({ success: z.literal(true), data: z.object({ message: z.string() }) })
  .meta({ id: 'PhoneNumberDeleted' })
