import { z } from 'zod'
import { ZIsoDateTime, ZTier } from './common.ts'

export const apiKeyTypes = ['secret', 'widget'] as const
export const ZApiKeyType = z.enum(apiKeyTypes)
export type ApiKeyType = z.infer<typeof ZApiKeyType>

/** Displayed as the spec's API key table writes it. */
export const ZApiKeyStatus = z.enum(['Active', 'Disabled', 'Revoked'])
export type ApiKeyStatus = z.infer<typeof ZApiKeyStatus>

/** An array of entries, or the creation form's comma-separated string. */
export const ZAllowedDomains = z
  .union([z.array(z.string().max(300)), z.string().max(10_000)])
  .transform((value) =>
    (Array.isArray(value) ? value : value.split(','))
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
  )
  .pipe(z.array(z.string()).max(50, 'must list at most 50 domains'))
  .meta({
    description:
      'Widget keys only. Hosts with optional scheme and port (`example.com`, `https://shop.example.com:8443`); ' +
      'a domain covers its subdomains; localhost is always allowed. An array or a comma-separated string.',
  })

const ZKeyName = z.string().trim().min(1, 'is required').max(50, 'must be at most 50 characters')

export const ZCreateApiKey = z
  .object({ name: ZKeyName, type: ZApiKeyType, allowedDomains: ZAllowedDomains.optional() })
  .meta({ id: 'CreateApiKeyRequest' })
export type CreateApiKey = z.infer<typeof ZCreateApiKey>

export const ZUpdateApiKey = z
  .object({ name: ZKeyName.optional(), allowedDomains: ZAllowedDomains.optional() })
  .refine((body) => body.name !== undefined || body.allowedDomains !== undefined, {
    message: 'give name or allowedDomains',
  })
  .meta({ id: 'UpdateApiKeyRequest' })
export type UpdateApiKey = z.infer<typeof ZUpdateApiKey>

export const ZApiKeyIdParams = z.object({ id: z.string().min(1).max(100) })

export const ZApiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    type: ZApiKeyType,
    prefix: z.string().meta({ description: 'First 8 characters of the key, then a mask' }),
    allowedDomains: z.array(z.string()),
    status: ZApiKeyStatus,
    created: ZIsoDateTime,
    expires: ZIsoDateTime,
    organization: z.string().meta({ description: 'Organization id the key is scoped to' }),
  })
  .meta({ id: 'ApiKey' })
export type ApiKey = z.infer<typeof ZApiKey>

export const ZCreatedApiKey = ZApiKey.extend({
  key: z.string().meta({ description: 'The full key. Shown in this response only; store it now.' }),
}).meta({ id: 'CreatedApiKey' })
export type CreatedApiKey = z.infer<typeof ZCreatedApiKey>

export const ZApiKeyList = z.object({ apiKeys: z.array(ZApiKey) }).meta({ id: 'ApiKeyList' })

/** GET /v1/organization: the organization an API key belongs to. */
export const ZV1Organization = z
  .object({
    success: z.literal(true),
    data: z.object({
      id: z.string(),
      name: z.string(),
      tier: ZTier,
      rateLimitPerMinute: z.number().int(),
      creditBalanceUsd: z.number(),
    }),
  })
  .meta({ id: 'V1Organization' })
export type V1Organization = z.infer<typeof ZV1Organization>

export const ZIdempotencyHeaders = z.object({
  'idempotency-key': z.string().min(1).max(255).optional().meta({
    description:
      'Retries with the same key and body within 24 h replay the first response; another body answers 409',
  }),
})
