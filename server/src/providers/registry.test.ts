import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadCatalogue } from '../agents/catalogue.ts'
import { loadConfig } from '../config.ts'
import { catalogueTarget, type EndpointKind, providerVoiceOf, routeEndpoint } from './registry.ts'

const LLM_URL = 'http://127.0.0.1:9/v1'
const keys = {
  OPENAI_API_KEY: 'sk-platform-openai',
  DEEPGRAM_API_KEY: 'dg-platform',
  LLM_API_KEY: 'llm-shortcut-key',
}

const providersFile = () => {
  const path = join(mkdtempSync(join(tmpdir(), 'parley-providers-')), 'providers.json')
  writeFileSync(
    path,
    JSON.stringify({
      providers: [
        {
          id: 'gpu-box',
          name: 'vLLM on the GPU box',
          baseUrl: 'http://10.0.0.5:8000/v1/',
          models: [
            {
              id: 'qwen-local',
              name: 'Qwen (local)',
              providerModel: 'Qwen/Qwen2.5-7B-Instruct',
              inputUsdPerMillion: 0.05,
              outputUsdPerMillion: 0.1,
            },
          ],
        },
      ],
    }),
  )
  return path
}

/** A deployment with OpenAI and Deepgram keys, a self-hosted extra provider and the shortcut. */
const config = loadConfig({
  DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-registry-')),
  LLM_BASE_URL: LLM_URL,
  PROVIDERS_FILE: providersFile(),
  GEMINI_BASE_URL: 'https://gemini-proxy.example.com/',
  ...keys,
})
const catalogue = loadCatalogue(config)

const route = (kind: EndpointKind, id: string, organizationKey: string | null = null) => {
  const target = catalogueTarget(catalogue, { kind, id })
  if (!target) throw new Error(`${id} is not in the catalogue`)
  return routeEndpoint(config, { kind, target, organizationKey })
}

describe('the provider registry', () => {
  it('names each catalogue entry’s provider and the provider’s own ids', () => {
    expect(catalogueTarget(catalogue, { kind: 'stt', id: 'deepgram-nova-3' })).toEqual({
      provider: 'deepgram',
      providerModel: 'nova-3',
    })
    expect(catalogueTarget(catalogue, { kind: 'tts', id: 'elevenlabs-flash-v2.5' })).toEqual({
      provider: 'elevenlabs',
      providerModel: 'eleven_flash_v2_5',
    })
    expect(catalogueTarget(catalogue, { kind: 'realtime', id: 'gemini' })?.provider).toBe('gemini')
    expect(catalogueTarget(catalogue, { kind: 'model', id: 'qwen-local' })).toEqual({
      provider: 'gpu-box',
      providerModel: 'Qwen/Qwen2.5-7B-Instruct',
    })
    expect(catalogueTarget(catalogue, { kind: 'stt', id: 'gladia-solaria' })).toBeNull()
    expect(providerVoiceOf(catalogue, 'eleven-rachel')).toBe('21m00Tcm4TlvDq8ikWAM')
    expect(providerVoiceOf(catalogue, 'cartesia-katie')).toMatch(/^[0-9a-f-]{36}$/)
    // Every catalogue voice maps to a provider voice id of its own.
    for (const voice of catalogue.voices) expect(voice.providerVoiceId).toBeTruthy()
    expect(config.llmPrices['qwen-local']).toEqual({ inputUsdPerMillion: 0.05, outputUsdPerMillion: 0.1 })
  })

  it('sends an organization’s key only to its own provider’s base URL', () => {
    expect(route('model', 'llama-3.3-70b-versatile', 'gsk-org-groq')).toEqual({
      provider: 'groq',
      api: 'openai',
      baseUrl: 'https://api.groq.com/openai/v1',
      apiKey: 'gsk-org-groq',
      model: 'llama-3.3-70b-versatile',
      keySource: 'organization',
    })
    expect(route('stt', 'deepgram-nova-3', 'dg-org')).toMatchObject({
      api: 'deepgram',
      baseUrl: 'https://api.deepgram.com/v1',
      apiKey: 'dg-org',
      keySource: 'organization',
    })
  })

  it('uses the platform key of a configured provider, and LLM_BASE_URL for the others', () => {
    expect(route('model', 'gpt-4o-mini')).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-platform-openai',
      keySource: 'platform',
    })
    // Groq has no key of its own here: the development shortcut serves its models.
    expect(route('model', 'llama-3.3-70b-versatile')).toMatchObject({
      api: 'openai',
      baseUrl: LLM_URL,
      apiKey: 'llm-shortcut-key',
      keySource: 'platform',
    })
    // A keyless self-hosted provider of PROVIDERS_FILE is served as configured.
    expect(route('model', 'qwen-local')).toMatchObject({
      provider: 'gpu-box',
      baseUrl: 'http://10.0.0.5:8000/v1',
      apiKey: '',
      model: 'Qwen/Qwen2.5-7B-Instruct',
    })
  })

  it('reaches every LLM over OpenAI’s protocol and a realtime model over its provider’s own', () => {
    // GEMINI_BASE_URL given (a proxy): configured, without a key.
    expect(route('model', 'gemini-2.0-flash', 'gemini-org')).toMatchObject({
      api: 'openai',
      baseUrl: 'https://gemini-proxy.example.com/v1beta/openai',
      apiKey: 'gemini-org',
    })
    expect(route('realtime', 'gemini', 'gemini-org')).toMatchObject({
      api: 'google',
      baseUrl: 'https://gemini-proxy.example.com',
      model: 'gemini-2.0-flash-live-001',
    })
  })

  it('never lends LLM_BASE_URL to a protocol it does not speak, and says why', () => {
    // Cartesia and ElevenLabs have no keys here and speak their own protocols.
    expect(route('tts', 'cartesia-sonic-2')).toEqual({
      unusable: expect.stringContaining('set CARTESIA_API_KEY'),
    })
    expect(route('tts', 'openai-tts-1')).toMatchObject({ baseUrl: 'https://api.openai.com/v1' })
    expect(route('model', 'offline')).toEqual({ unusable: 'the offline stand-in serves text chats only' })
  })

  it('keeps every key on its own host, whatever the entry and whoever holds the key', () => {
    const platformKeyHosts = new Map<string, string>([
      ['sk-platform-openai', 'api.openai.com'],
      ['dg-platform', 'api.deepgram.com'],
      ['llm-shortcut-key', new URL(LLM_URL).host],
    ])
    const kinds: Array<[EndpointKind, Array<{ id: string }>]> = [
      ['model', catalogue.models],
      ['stt', catalogue.stt],
      ['tts', catalogue.tts],
      ['realtime', catalogue.realtimeProviders],
    ]
    let checked = 0
    for (const [kind, entries] of kinds) {
      for (const { id } of entries) {
        const target = catalogueTarget(catalogue, { kind, id })
        if (!target) continue
        const organizationKey = `org-key-for-${target.provider}`
        for (const key of [organizationKey, null]) {
          const resolved = routeEndpoint(config, { kind, target, organizationKey: key })
          if ('unusable' in resolved) continue
          checked += 1
          const host = new URL(resolved.baseUrl).host
          if (resolved.keySource === 'organization') {
            expect(resolved.apiKey).toBe(organizationKey)
            expect(host).toBe(new URL(config.providers[target.provider]?.baseUrl ?? '').host)
          } else if (resolved.apiKey !== '') {
            expect({ id, host }).toEqual({ id, host: platformKeyHosts.get(resolved.apiKey) })
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(15)
  })
})
