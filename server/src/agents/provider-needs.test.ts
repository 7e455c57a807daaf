import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { loadCatalogue } from './catalogue.ts'
import { providerNeeds } from './rules.ts'

const secret = 's'.repeat(40)
const setUp = (env: Record<string, string>) => {
  const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-needs-')), ...env })
  return { config, catalogue: loadCatalogue(config) }
}
const production = {
  NODE_ENV: 'production',
  JWT_SECRET: secret,
  ADMIN_TOKEN: secret,
  ENCRYPTION_KEY: secret,
  ALLOW_EMBEDDED_DATABASE: '1',
}
const pipeline = {
  model: 'gpt-4o-mini',
  stt: 'deepgram-nova-3',
  tts: 'cartesia-sonic-2',
  realtimeProvider: null,
}

describe('providerNeeds: what an agent needs beyond what the deployment serves', () => {
  it('needs the key of an unconfigured provider for the model and the fallback model', () => {
    const setup = setUp({ OPENAI_API_KEY: 'sk-platform' })
    expect(
      providerNeeds(
        {
          ...pipeline,
          stt: null,
          tts: null,
          model: 'gemini-2.0-flash',
          fallbackModel: 'llama-3.3-70b-versatile',
        },
        setup,
      ),
    ).toEqual({ keysNeeded: ['gemini', 'groq'], unsupported: [] })
    expect(providerNeeds({ ...pipeline, stt: null, tts: null }, setup)).toEqual({
      keysNeeded: [],
      unsupported: [],
    })
  })

  it('checks speech providers in production', () => {
    const setup = setUp({ ...production, OPENAI_API_KEY: 'sk-platform', DEEPGRAM_API_KEY: 'dg-platform' })
    expect(providerNeeds(pipeline, setup).keysNeeded).toEqual(['cartesia'])
  })

  it('refuses an entry whose provider the registry does not know (a gladia STT)', () => {
    const setup = setUp({ OPENAI_API_KEY: 'sk-platform' })
    const catalogue = {
      ...setup.catalogue,
      stt: [...setup.catalogue.stt, { id: 'gladia-fast', name: 'Gladia', provider: 'gladia' }],
    }
    const needs = providerNeeds({ ...pipeline, stt: 'gladia-fast' }, { ...setup, catalogue })
    expect(needs.unsupported).toEqual([expect.stringContaining('gladia is not supported')])
  })
})
