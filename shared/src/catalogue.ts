import { z } from 'zod'
import { ZAgentArchitecture } from './agents.ts'

const providerModel = z
  .string()
  .min(1)
  .optional()
  .meta({ description: "The provider's own model id (e.g. nova-3); the catalogue id when absent" })

/** Set by GET /v1/catalogue for the asking organization; ignored in a CATALOGUE_FILE. */
const availability = {
  available: z
    .boolean()
    .optional()
    .meta({ description: "Whether this deployment (with the organization's own keys) can serve the entry" }),
  unavailableReason: z
    .string()
    .optional()
    .meta({ description: 'Why not, and what to configure; absent when available' }),
}

const ZEntry = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  provider: z.string().min(1),
  providerModel,
  ...availability,
})

const ZPrice = z
  .object({ inputUsdPerMillion: z.number().nonnegative(), outputUsdPerMillion: z.number().nonnegative() })
  .meta({
    description:
      'USD per million tokens the organization is charged (platform key); set by GET /v1/catalogue',
  })

/**
 * A voice part's price per minute of call. In a CATALOGUE_FILE only usdPerMinute (the list price,
 * with the platform's key); GET /v1/catalogue adds ownKeyUsdPerMinute, what the part costs when
 * the organization's own provider key serves it (the platform fee).
 */
const ZVoicePrice = z
  .object({
    usdPerMinute: z.number().nonnegative(),
    ownKeyUsdPerMinute: z.number().nonnegative().optional(),
  })
  .meta({
    id: 'VoicePrice',
    description:
      "USD per minute of call: usdPerMinute with the platform's key, ownKeyUsdPerMinute (the platform fee) with the organization's own key for the provider",
  })

const voiceEntry = ZEntry.extend({ price: ZVoicePrice.optional() })

/** What agents may be built from. The server's copy is config-driven (CATALOGUE_FILE). */
export const ZCatalogue = z
  .object({
    models: z.array(
      ZEntry.extend({
        architectures: z.array(ZAgentArchitecture).min(1),
        price: ZPrice.optional(),
        voicePrice: ZVoicePrice.optional().meta({
          description:
            "Pipeline models: the LLM's share of a minute of call (its token prices over an assumed minute of conversation); set by GET /v1/catalogue",
        }),
      }),
    ),
    stt: z.array(voiceEntry),
    tts: z.array(voiceEntry),
    voices: z.array(
      z.object({
        voiceId: z.string().min(1),
        voiceName: z.string().min(1),
        provider: z
          .string()
          .min(1)
          .meta({ description: 'A tts id, or a realtime provider for realtime voices' }),
        providerVoiceId: z
          .string()
          .min(1)
          .optional()
          .meta({ description: "The provider's own voice id; voiceId when absent" }),
      }),
    ),
    realtimeProviders: z.array(
      z.object({
        id: z.enum(['openai', 'gemini']),
        name: z.string(),
        providerModel,
        price: ZVoicePrice.optional(),
        ...availability,
      }),
    ),
    functions: z.array(
      z.object({ id: z.string().min(1), name: z.string(), description: z.string(), available: z.boolean() }),
    ),
    platformProviders: z.array(z.string()).meta({
      description: 'Providers the platform holds keys for; any other provider needs the organization key',
    }),
    defaults: z.object({ model: z.string(), stt: z.string(), tts: z.string(), voiceId: z.string() }),
  })
  .meta({ id: 'Catalogue' })
export type Catalogue = z.infer<typeof ZCatalogue>

export const ZCatalogueResponse = z
  .object({ success: z.literal(true), data: ZCatalogue })
  .meta({ id: 'CatalogueResponse' })

export const ZProviderKeysUpdate = z
  .object({
    keys: z
      .record(
        z.string().regex(/^[a-z][a-z0-9-]{1,30}$/, 'provider names are lower-case words'),
        z.string().trim().min(8).max(500).nullable(),
      )
      .refine((keys) => Object.keys(keys).length > 0, 'give at least one provider key (null removes one)'),
  })
  .meta({ id: 'ProviderKeysUpdateRequest' })
export type ProviderKeysUpdate = z.infer<typeof ZProviderKeysUpdate>

export const ZProviderKeys = z
  .object({
    providers: z.array(z.object({ provider: z.string(), last4: z.string(), updatedAt: z.string() })),
  })
  .meta({ id: 'ProviderKeys', description: 'Stored provider keys, never shown in full' })
