import { readFileSync } from 'node:fs'
import { type ResolvedEndpoint, ZAgentArchitecture } from '@parley/shared'
import { z } from 'zod'
import { type ModelPrice, optionalText, safeJson, urlWithSchemes, ZModelPrice } from './config-environment.ts'

// The model providers of the environment: <PROVIDER>_BASE_URL / <PROVIDER>_API_KEY per built-in
// provider and PROVIDERS_FILE for more. config.ts reads them with the rest of the environment.

export type ProviderApi = ResolvedEndpoint['api']

type BuiltInProvider = {
  name: string
  api: ProviderApi
  /** The provider's public endpoint. */
  baseUrl: string
  /** Where a provider whose own protocol is not OpenAI's serves OpenAI-compatible chat completions. */
  openaiPath?: string
}

/** The providers Parley knows, each with its public endpoint and the protocol it speaks there. */
export const builtInProviders = {
  openai: { name: 'OpenAI', api: 'openai', baseUrl: 'https://api.openai.com/v1' },
  groq: { name: 'Groq', api: 'openai', baseUrl: 'https://api.groq.com/openai/v1' },
  gemini: {
    name: 'Google Gemini',
    api: 'google',
    baseUrl: 'https://generativelanguage.googleapis.com',
    openaiPath: '/v1beta/openai',
  },
  // Anthropic's OpenAI SDK compatibility layer: the one protocol every LLM here is reached with.
  anthropic: { name: 'Anthropic', api: 'openai', baseUrl: 'https://api.anthropic.com/v1' },
  deepgram: { name: 'Deepgram', api: 'deepgram', baseUrl: 'https://api.deepgram.com/v1' },
  elevenlabs: { name: 'ElevenLabs', api: 'elevenlabs', baseUrl: 'https://api.elevenlabs.io/v1' },
  cartesia: { name: 'Cartesia', api: 'cartesia', baseUrl: 'https://api.cartesia.ai' },
} as const satisfies Record<string, BuiltInProvider>

type BuiltInId = keyof typeof builtInProviders
const builtInIds = Object.keys(builtInProviders) as BuiltInId[]

/** `OPENAI`, `GROQ`, … : the prefix of a provider's variables. */
export const variablePrefix = (id: string) => id.toUpperCase()

/** The variables of every built-in provider, for ZEnvironment. */
export const ZProviderVariables = z.object(
  Object.fromEntries(
    builtInIds.flatMap((id) => [
      [`${variablePrefix(id)}_BASE_URL`, urlWithSchemes(['http', 'https'])],
      [`${variablePrefix(id)}_API_KEY`, optionalText],
    ]),
  ) as Record<`${Uppercase<BuiltInId>}_${'BASE_URL' | 'API_KEY'}`, typeof optionalText>,
)

/** Every provider variable holding a key, so a bad value is never echoed in the start-up error. */
export const providerKeyVariables = builtInIds.map((id) => `${variablePrefix(id)}_API_KEY`)

const ZProviderId = z
  .string()
  .regex(/^[a-z][a-z0-9-]{1,30}$/, 'must be 2-31 lower-case letters, digits or dashes')
  .refine((id) => !Object.hasOwn(builtInProviders, id) && id !== 'parley', 'is a built-in provider')

const ZExtraModel = z
  .object({
    id: z.string().min(1).max(100),
    name: z.string().min(1).max(100),
    /** The model id the provider itself knows; the catalogue id when absent. */
    providerModel: z.string().min(1).max(200).optional(),
    architectures: z
      .array(ZAgentArchitecture.exclude(['realtime']))
      .min(1)
      .default(['text', 'pipeline']),
  })
  .extend(ZModelPrice.shape)
  .strict()

const ZProvidersFile = z
  .object({
    providers: z.array(
      z
        .object({
          id: ZProviderId,
          name: z.string().min(1).max(100),
          baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
          /** Absent: a keyless endpoint (a local vLLM or Ollama). */
          apiKey: z.string().min(1).optional(),
          models: z.array(ZExtraModel).min(1),
        })
        .strict(),
    ),
  })
  .strict()
  .superRefine((file, context) => {
    const seen = new Set<string>()
    file.providers.forEach((provider, index) => {
      if (seen.has(provider.id))
        context.addIssue({ code: 'custom', path: ['providers', index, 'id'], message: 'is given twice' })
      seen.add(provider.id)
    })
    const models = new Set<string>()
    file.providers.forEach((provider, index) => {
      provider.models.forEach((model, modelIndex) => {
        if (models.has(model.id))
          context.addIssue({
            code: 'custom',
            path: ['providers', index, 'models', modelIndex, 'id'],
            message: 'is given twice',
          })
        models.add(model.id)
      })
    })
  })

type ProvidersFile = z.infer<typeof ZProvidersFile>

/** PROVIDERS_FILE read and checked; a problem becomes one line naming where in the file it is. */
export const ZProvidersFileVariable = optionalText.transform((path, context): ProvidersFile | undefined => {
  if (path === undefined) return undefined
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    context.addIssue({ code: 'custom', message: 'must name a readable JSON file' })
    return z.NEVER
  }
  const parsed = ZProvidersFile.safeParse(safeJson(text))
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const where = issue?.path.length ? issue.path.join('.') : 'the file'
  context.addIssue({
    code: 'custom',
    message: `is invalid at ${where}: ${issue?.message ?? 'not a providers file'}`,
  })
  return z.NEVER
})

/** One model provider as the operator configured it. */
export type ProviderSettings = Readonly<{
  id: string
  name: string
  /** The protocol its STT, TTS and realtime endpoints speak. */
  api: ProviderApi
  baseUrl: string
  /** Its OpenAI-compatible chat completions endpoint (what every LLM is reached with); null: none. */
  openaiBaseUrl: string | null
  /** The platform's key for it; null: none (a keyless endpoint, or not configured). */
  apiKey: string | null
  /**
   * Given a key or a base URL by the operator (or listed in PROVIDERS_FILE): the platform serves
   * it itself. Otherwise LLM_BASE_URL stands in for it where its protocol allows.
   */
  isConfigured: boolean
}>

/** A model of PROVIDERS_FILE, as the catalogue lists it. */
export type ExtraModel = Readonly<{
  id: string
  name: string
  provider: string
  providerModel: string
  architectures: Array<'text' | 'pipeline'>
  price: ModelPrice
}>

const trimSlash = (url: string) => url.replace(/\/+$/, '')

/** The registry's settings from the parsed environment. */
export const readProviders = (
  vars: z.infer<typeof ZProviderVariables> & { PROVIDERS_FILE?: ProvidersFile | undefined },
) => {
  const providers: Record<string, ProviderSettings> = {}
  for (const id of builtInIds) {
    const known: BuiltInProvider = builtInProviders[id]
    const givenBase = vars[`${variablePrefix(id)}_BASE_URL` as keyof typeof vars] as string | undefined
    const apiKey = (vars[`${variablePrefix(id)}_API_KEY` as keyof typeof vars] as string | undefined) ?? null
    const baseUrl = trimSlash(givenBase ?? known.baseUrl)
    providers[id] = Object.freeze({
      id,
      name: known.name,
      api: known.api,
      baseUrl,
      openaiBaseUrl:
        known.api === 'openai' ? baseUrl : known.openaiPath ? `${baseUrl}${known.openaiPath}` : null,
      apiKey,
      isConfigured: apiKey !== null || givenBase !== undefined,
    })
  }
  const models: ExtraModel[] = []
  for (const extra of vars.PROVIDERS_FILE?.providers ?? []) {
    const baseUrl = trimSlash(extra.baseUrl)
    providers[extra.id] = Object.freeze({
      id: extra.id,
      name: extra.name,
      api: 'openai',
      baseUrl,
      openaiBaseUrl: baseUrl,
      apiKey: extra.apiKey ?? null,
      isConfigured: true,
    })
    for (const model of extra.models)
      models.push(
        Object.freeze({
          id: model.id,
          name: model.name,
          provider: extra.id,
          providerModel: model.providerModel ?? model.id,
          architectures: model.architectures,
          price: {
            inputUsdPerMillion: model.inputUsdPerMillion,
            outputUsdPerMillion: model.outputUsdPerMillion,
          },
        }),
      )
  }
  return { providers: Object.freeze(providers), providerModels: Object.freeze(models) }
}
