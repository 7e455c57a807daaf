import type { ProviderSettings } from '@parley/platform'
import type { Catalogue, ResolvedEndpoint } from '@parley/shared'
import type { Config } from '../config.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'

/** What a catalogue id names: an LLM, a speech-to-text, a text-to-speech or a realtime model. */
export type EndpointKind = 'model' | 'stt' | 'tts' | 'realtime'

/**
 * Whether anything can serve an LLM: LLM_BASE_URL, or a provider with an OpenAI-compatible
 * endpoint the operator configured. Without either (development only: config refuses it in
 * production) every text reply comes from the `offline` stand-in.
 */
export const hasLlmProvider = (config: ProviderRegistry) =>
  config.llm !== null ||
  Object.values(config.providers).some((provider) => provider.isConfigured && provider.openaiBaseUrl !== null)

/** A catalogue entry's provider and the id that provider knows it by. */
export type CatalogueTarget = { provider: string; providerModel: string }

/** The registry's view of the configuration: the providers, and the LLM_BASE_URL shortcut. */
export type ProviderRegistry = Pick<Config, 'providers' | 'llm'>

/** The catalogue entry behind a catalogue id, or null when the catalogue has none. */
export const catalogueTarget = (
  catalogue: Catalogue,
  { kind, id }: { kind: EndpointKind; id: string },
): CatalogueTarget | null => {
  if (kind === 'realtime') {
    const entry = catalogue.realtimeProviders.find((candidate) => candidate.id === id)
    return entry ? { provider: entry.id, providerModel: entry.providerModel ?? entry.id } : null
  }
  const entries = { model: catalogue.models, stt: catalogue.stt, tts: catalogue.tts }[kind]
  const entry = entries.find((candidate) => candidate.id === id)
  return entry ? { provider: entry.provider, providerModel: entry.providerModel ?? entry.id } : null
}

/** The provider's own voice id of a catalogue voice (the catalogue id when it maps none). */
export const providerVoiceOf = (catalogue: Catalogue, voiceId: string) => {
  const voice = catalogue.voices.find((candidate) => candidate.voiceId === voiceId)
  return voice?.providerVoiceId ?? voiceId
}

/** Every LLM is reached over OpenAI's protocol; STT, TTS and realtime over their provider's own. */
const endpointOf = (provider: ProviderSettings, kind: EndpointKind) =>
  kind === 'model'
    ? provider.openaiBaseUrl === null
      ? null
      : { api: 'openai' as const, baseUrl: provider.openaiBaseUrl }
    : { api: provider.api, baseUrl: provider.baseUrl }

/** LLM_BASE_URL speaks OpenAI's protocol only: it stands in for what is reached over that protocol. */
const canUseShortcut = (provider: ProviderSettings | undefined, kind: EndpointKind) =>
  kind === 'model' || provider?.api === 'openai'

/**
 * Where one catalogue entry is sent, and with which key. Keys never cross providers: the
 * organization's key for a provider goes only to that provider's base URL, the platform's key
 * for it likewise, and LLM_API_KEY only to LLM_BASE_URL, which stands in for the providers the
 * operator did not configure. Answers why not when nothing can serve the entry.
 */
export const routeEndpoint = (
  registry: ProviderRegistry,
  {
    kind,
    target,
    organizationKey,
  }: { kind: EndpointKind; target: CatalogueTarget; organizationKey: string | null },
): ResolvedEndpoint | { unusable: string } => {
  const { provider: providerId, providerModel } = target
  if (providerId === 'parley') return { unusable: 'the offline stand-in serves text chats only' }
  const provider = registry.providers[providerId]
  const endpoint = provider ? endpointOf(provider, kind) : null
  if (provider && !endpoint)
    return { unusable: `${provider.name} serves no ${kind === 'model' ? 'LLM' : kind} endpoint` }
  const resolved = { provider: providerId, model: providerModel }
  if (endpoint && organizationKey !== null)
    return { ...resolved, ...endpoint, apiKey: organizationKey, keySource: 'organization' }
  if (endpoint && provider?.isConfigured)
    return { ...resolved, ...endpoint, apiKey: provider.apiKey ?? '', keySource: 'platform' }
  if (registry.llm && canUseShortcut(provider, kind))
    return {
      ...resolved,
      api: 'openai',
      baseUrl: registry.llm.baseUrl,
      apiKey: registry.llm.apiKey ?? '',
      keySource: 'platform',
    }
  if (!provider) return { unusable: `the provider ${providerId} is not configured on this deployment` }
  return {
    unusable: `the provider ${providerId} is not configured on this deployment (set ${providerId.toUpperCase()}_API_KEY, or store the organization's ${providerId} key)`,
  }
}

const notConfigured = (message: string) =>
  new AppError({ status: 409, code: 'provider_not_configured', message })

export type EndpointRequest = { kind: EndpointKind; id: string }

/**
 * Resolves catalogue entries for one organization: its stored keys (read once, for the providers
 * these entries need) where it has them, the platform's otherwise. Throws provider_not_configured
 * naming the first entry nothing can serve.
 */
export const resolveEndpoints = async <Name extends string>(
  ctx: AppContext,
  { organizationId, requests }: { organizationId: string; requests: Record<Name, EndpointRequest | null> },
): Promise<Record<Name, ResolvedEndpoint | null>> => {
  const entries = Object.entries(requests) as Array<[Name, EndpointRequest | null]>
  const targets = entries.map(([name, request]) => {
    if (!request) return [name, null, null] as const
    const target = catalogueTarget(ctx.catalogue, request)
    if (!target) throw notConfigured(`${request.id} is not in this deployment's catalogue`)
    return [name, request, target] as const
  })
  const keys = await ctx.readProviderKeys(ctx, {
    organizationId,
    providers: targets.flatMap(([, , target]) => (target ? [target.provider] : [])),
  })
  const resolved = {} as Record<Name, ResolvedEndpoint | null>
  for (const [name, request, target] of targets) {
    if (!request || !target) {
      resolved[name] = null
      continue
    }
    const route = routeEndpoint(ctx.config, {
      kind: request.kind,
      target,
      organizationKey: keys.get(target.provider) ?? null,
    })
    if ('unusable' in route) throw notConfigured(`${request.id} cannot be used: ${route.unusable}`)
    resolved[name] = route
  }
  return resolved
}

/**
 * The one step the text chat needs to reach a model's own provider: model id + organization →
 * where to send it, with which key, under which id.
 */
export const resolveModelEndpoint = async (
  ctx: AppContext,
  { organizationId, model }: { organizationId: string; model: string },
) => {
  const { llm } = await resolveEndpoints(ctx, {
    organizationId,
    requests: { llm: { kind: 'model', id: model } },
  })
  if (!llm) throw notConfigured(`${model} cannot be used`)
  return {
    provider: llm.provider,
    baseUrl: llm.baseUrl,
    apiKey: llm.apiKey,
    providerModel: llm.model,
    keySource: llm.keySource,
  }
}
