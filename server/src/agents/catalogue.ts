import { readFileSync } from 'node:fs'
import { builtInCatalogue as builtIn } from '@parley/platform'
import { type Catalogue, ZCatalogue } from '@parley/shared'
import { type Config, ConfigError } from '../config.ts'
import type { AppContext } from '../context.ts'
import { providersWithKeys } from '../orgs/index.ts'
import { catalogueTarget, type EndpointKind, hasLlmProvider, routeEndpoint } from '../providers/registry.ts'
import { PLATFORM_FEE_MICROS_PER_MINUTE, partMicrosPerMinute } from '../providers/voice-prices.ts'

/** The models of PROVIDERS_FILE join the catalogue's; an id both name would be ambiguous. */
const withProviderModels = (catalogue: Catalogue, extra: Config['providerModels']): Catalogue => {
  const clash = extra.find((model) => catalogue.models.some((known) => known.id === model.id))
  if (clash)
    throw new ConfigError(
      `Invalid configuration: PROVIDERS_FILE model ${clash.id} is already a catalogue model`,
    )
  const added = extra.map(({ id, name, provider, providerModel, architectures }) => ({
    id,
    name,
    provider,
    providerModel,
    architectures,
  }))
  return { ...catalogue, models: [...catalogue.models, ...added] }
}

/**
 * The catalogue this deployment offers: CATALOGUE_FILE when set, the built-in one otherwise, and
 * the models of PROVIDERS_FILE. The `offline` stand-in exists only outside production.
 */
export const loadCatalogue = (
  config: Pick<Config, 'catalogueFile' | 'isProduction' | 'search' | 'providerModels'>,
): Catalogue => {
  const file = config.catalogueFile
    ? ZCatalogue.parse(JSON.parse(readFileSync(config.catalogueFile, 'utf8')))
    : builtIn
  // web_search works only with a search provider; the catalogue says whether this deployment has one.
  const source = withProviderModels(
    {
      ...file,
      functions: file.functions.map((fn) =>
        fn.id === 'web_search' ? { ...fn, available: config.search !== null } : fn,
      ),
    },
    config.providerModels,
  )
  return config.isProduction
    ? { ...source, models: source.models.filter((model) => model.id !== 'offline') }
    : source
}

type Availability = { available: boolean; unavailableReason?: string }

/**
 * The catalogue as one organization sees it on this deployment: each model, STT, TTS and realtime
 * entry says whether it can be served (the registry's routing, with the organization's own keys
 * where it has them) and why not; each model its price per million tokens.
 */
export const catalogueFor = async (ctx: AppContext, organizationId: string): Promise<Catalogue> => {
  const { catalogue, config } = ctx
  const ownKeys = await providersWithKeys(ctx, organizationId)
  const hasLlm = hasLlmProvider(config)
  const availabilityOf = (kind: EndpointKind, id: string): Availability => {
    if (kind === 'model' && id === 'offline') return { available: true }
    if (kind === 'model' && !hasLlm)
      return {
        available: false,
        unavailableReason:
          'no model provider is configured on this deployment (LLM_BASE_URL or <PROVIDER>_API_KEY): the offline stand-in answers instead',
      }
    const target = catalogueTarget(catalogue, { kind, id })
    if (!target) return { available: false, unavailableReason: `${id} is not in this deployment's catalogue` }
    const route = routeEndpoint(config, {
      kind,
      target,
      organizationKey: ownKeys.has(target.provider) ? 'present' : null,
    })
    return 'unusable' in route ? { available: false, unavailableReason: route.unusable } : { available: true }
  }
  const priceOf = (id: string) => config.llmPrices[id] ?? config.llmPrices.default
  // A minute of each voice part with the platform's key, and with the organization's own.
  const voicePriceOf = (kind: EndpointKind, id: string) => ({
    usdPerMinute: partMicrosPerMinute(ctx, { kind, id }) / 1_000_000,
    ownKeyUsdPerMinute: PLATFORM_FEE_MICROS_PER_MINUTE / 1_000_000,
  })
  return {
    ...catalogue,
    models: catalogue.models.map((model) => {
      const price = priceOf(model.id)
      return {
        ...model,
        ...availabilityOf('model', model.id),
        ...(price ? { price } : {}),
        ...(model.architectures.includes('pipeline') ? { voicePrice: voicePriceOf('model', model.id) } : {}),
      }
    }),
    stt: catalogue.stt.map((entry) => ({
      ...entry,
      ...availabilityOf('stt', entry.id),
      price: voicePriceOf('stt', entry.id),
    })),
    tts: catalogue.tts.map((entry) => ({
      ...entry,
      ...availabilityOf('tts', entry.id),
      price: voicePriceOf('tts', entry.id),
    })),
    realtimeProviders: catalogue.realtimeProviders.map((entry) => ({
      ...entry,
      ...availabilityOf('realtime', entry.id),
      price: voicePriceOf('realtime', entry.id),
    })),
  }
}
