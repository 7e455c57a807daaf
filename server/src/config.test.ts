import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from './config.ts'

const dataDir = () => mkdtempSync(join(tmpdir(), 'parley-config-'))
const base = () => ({ DATA_DIR: dataDir() })
const secret = 's'.repeat(40)

const errorFor = (env: Record<string, string>) => {
  try {
    loadConfig({ ...base(), ...env })
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`)
}

describe('loadConfig', () => {
  it('gives the embedded defaults of DESIGN.md §2 and generates dev secrets that persist', () => {
    const env = base()
    const config = loadConfig(env)
    expect(config).toMatchObject({
      environment: 'development',
      port: 8787,
      publicBaseUrl: null,
      databaseUrl: null,
      redisUrl: null,
      llm: null,
      livekit: null,
      memoryUrl: null,
      trialCreditsMicros: 5_000_000,
      outboundAllowHosts: [],
      role: 'all',
      generatedSecrets: ['JWT_SECRET', 'ADMIN_TOKEN', 'ENCRYPTION_KEY'],
    })
    expect(Object.isFrozen(config)).toBe(true)
    const again = loadConfig(env)
    expect(again.jwtSecret).toBe(config.jwtSecret)
    expect(again.adminToken).toBe(config.adminToken)
    expect(again.encryptionKey).toBe(config.encryptionKey)
  })

  const badValues: [variable: string, env: Record<string, string>][] = [
    ['NODE_ENV', { NODE_ENV: 'staging' }],
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'ftp://example.com' }],
    ['DATA_DIR', { DATA_DIR: '  ' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/db' }],
    ['REDIS_URL', { REDIS_URL: 'http://localhost:6379' }],
    ['JWT_SECRET', { JWT_SECRET: 'short-secret' }],
    ['ADMIN_TOKEN', { ADMIN_TOKEN: 'short-token' }],
    ['ENCRYPTION_KEY', { ENCRYPTION_KEY: 'short-key' }],
    ['LLM_BASE_URL', { LLM_BASE_URL: 'not a url' }],
    ['LLM_BASE_URL', { LLM_API_KEY: 'sk-123' }],
    ['LIVEKIT_URL', { LIVEKIT_URL: 'livekit.local' }],
    ['LIVEKIT_URL', { LIVEKIT_API_KEY: 'key', LIVEKIT_API_SECRET: 'secret' }],
    ['LIVEKIT_API_KEY', { LIVEKIT_URL: 'wss://lk.example.com', LIVEKIT_API_SECRET: 'secret' }],
    ['LIVEKIT_API_SECRET', { LIVEKIT_URL: 'wss://lk.example.com', LIVEKIT_API_KEY: 'key' }],
    ['MEMORY_URL', { MEMORY_URL: 'memory' }],
    ['TRIAL_CREDITS_USD', { TRIAL_CREDITS_USD: '-1' }],
    ['TRIAL_CREDITS_USD', { TRIAL_CREDITS_USD: 'five' }],
    ['TRIAL_CREDITS_USD', { TRIAL_CREDITS_USD: '20000' }],
    ['OUTBOUND_ALLOW_HOSTS', { OUTBOUND_ALLOW_HOSTS: 'ok.example.com,not a host!' }],
    ['CATALOGUE_FILE', { CATALOGUE_FILE: '/no/such/catalogue.json' }],
    ['CATALOGUE_FILE', { CATALOGUE_FILE: 'package.json' }],
    ['WEBHOOK_RETRY_BASE_MS', { WEBHOOK_RETRY_BASE_MS: 'soon' }],
    ['WEBHOOK_RETRY_BASE_MS', { WEBHOOK_RETRY_BASE_MS: '5' }],
    ['GROQ_BASE_URL', { GROQ_BASE_URL: 'api.groq.com' }],
    ['PROVIDERS_FILE', { PROVIDERS_FILE: '/no/such/providers.json' }],
    ['PROVIDERS_FILE', { PROVIDERS_FILE: 'package.json' }],
    ['ROLE', { ROLE: 'scheduler' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
  ]

  it.each(badValues)('names %s in a one-line error', (variable, env) => {
    const message = errorFor(env)
    expect(message).toMatch(new RegExp(`^Invalid configuration: ${variable} `))
    expect(message).not.toContain('\n')
  })

  it('reads each provider’s base URL and key, the public endpoint by default', () => {
    const config = loadConfig({
      ...base(),
      GROQ_API_KEY: 'gsk-platform',
      OPENAI_BASE_URL: 'http://vllm:8000/v1/',
    })
    expect(config.providers.groq).toMatchObject({
      baseUrl: 'https://api.groq.com/openai/v1',
      apiKey: 'gsk-platform',
      isConfigured: true,
    })
    expect(config.providers.openai).toMatchObject({
      baseUrl: 'http://vllm:8000/v1',
      apiKey: null,
      isConfigured: true,
    })
    expect(config.providers.cartesia).toMatchObject({
      baseUrl: 'https://api.cartesia.ai',
      isConfigured: false,
    })
  })

  it('names the place in PROVIDERS_FILE that is wrong, on one line', () => {
    const file = (content: unknown) => {
      const path = join(dataDir(), 'providers.json')
      writeFileSync(path, JSON.stringify(content))
      return path
    }
    const model = { id: 'm', name: 'M', inputUsdPerMillion: 0, outputUsdPerMillion: 0 }
    const provider = { id: 'local', name: 'Local', baseUrl: 'http://127.0.0.1:8000/v1', models: [model] }
    expect(loadConfig({ ...base(), PROVIDERS_FILE: file({ providers: [provider] }) }).providerModels).toEqual(
      [
        expect.objectContaining({
          id: 'm',
          provider: 'local',
          providerModel: 'm',
          architectures: ['text', 'pipeline'],
        }),
      ],
    )
    const cases: Array<[unknown, RegExp]> = [
      [
        { providers: [{ ...provider, baseUrl: 'ftp://x' }] },
        /at providers\.0\.baseUrl: must be an http\(s\) URL/,
      ],
      [{ providers: [{ ...provider, id: 'groq' }] }, /at providers\.0\.id: is a built-in provider/],
      [
        { providers: [provider, { ...provider, id: 'other' }] },
        /at providers\.1\.models\.0\.id: is given twice/,
      ],
      [
        { providers: [{ ...provider, models: [{ ...model, inputUsdPerMillion: -1 }] }] },
        /providers\.0\.models\.0\.inputUsdPerMillion/,
      ],
      [{ providers: [{ ...provider, secret: 'x' }] }, /at providers\.0/],
    ]
    for (const [content, expected] of cases) {
      const message = errorFor({ PROVIDERS_FILE: file(content) })
      expect(message).toMatch(/^Invalid configuration: PROVIDERS_FILE is invalid at /)
      expect(message).toMatch(expected)
      expect(message).not.toContain('\n')
    }
  })

  it('never echoes a secret value in the error', () => {
    expect(errorFor({ JWT_SECRET: 'tiny-secret-value' })).not.toContain('tiny-secret-value')
    expect(errorFor({ DATABASE_URL: 'mysql://user:hunter2@db/x' })).not.toContain('hunter2')
  })

  describe('in production', () => {
    const production = {
      NODE_ENV: 'production',
      JWT_SECRET: secret,
      ADMIN_TOKEN: secret,
      ENCRYPTION_KEY: secret,
      LLM_BASE_URL: 'https://llm.example.com/v1',
      LLM_API_KEY: 'sk-test',
      DATABASE_URL: 'postgres://db.example.com/parley',
    }

    it('starts with everything given', () => {
      expect(loadConfig({ ...base(), ...production }).generatedSecrets).toEqual([])
    })

    it('starts without LLM_BASE_URL when a model provider of its own is configured', () => {
      const { LLM_BASE_URL: _shortcut, LLM_API_KEY: _key, ...withoutShortcut } = production
      expect(loadConfig({ ...base(), ...withoutShortcut, GROQ_API_KEY: 'gsk-platform' }).llm).toBeNull()
    })

    it.each([
      ['JWT_SECRET', { JWT_SECRET: '' }],
      ['ADMIN_TOKEN', { ADMIN_TOKEN: '' }],
      ['ENCRYPTION_KEY', { ENCRYPTION_KEY: '' }],
      ['LLM_BASE_URL', { LLM_BASE_URL: '', LLM_API_KEY: '' }],
      ['LLM_API_KEY', { LLM_API_KEY: '' }],
      ['DATABASE_URL', { DATABASE_URL: '' }],
      ['OUTBOUND_ALLOW_HOSTS', { OUTBOUND_ALLOW_HOSTS: 'localhost' }],
    ])('refuses a missing or forbidden %s', (variable, change) => {
      expect(errorFor({ ...production, ...change })).toMatch(
        new RegExp(`^Invalid configuration: ${variable} .*production`),
      )
    })

    it('lists every missing variable at once', () => {
      expect(errorFor({ NODE_ENV: 'production' })).toBe(
        'Invalid configuration: JWT_SECRET is required (generated secrets are refused); ' +
          'ADMIN_TOKEN is required (generated secrets are refused); ' +
          'ENCRYPTION_KEY is required (generated secrets are refused); ' +
          'LLM_BASE_URL or a model provider (OPENAI_API_KEY, GROQ_API_KEY, … or PROVIDERS_FILE) is required (the offline model is refused); ' +
          'LLM_API_KEY is required; ' +
          'DATABASE_URL is required (the embedded database is refused unless ALLOW_EMBEDDED_DATABASE=1) ' +
          'when NODE_ENV=production',
      )
    })

    it('runs on the embedded database only when ALLOW_EMBEDDED_DATABASE=1', () => {
      const embedded = { ...production, DATABASE_URL: '', ALLOW_EMBEDDED_DATABASE: '1' }
      expect(loadConfig({ ...base(), ...embedded }).databaseUrl).toBeNull()
    })
  })
})

describe('start-up on a busy port', () => {
  it('stops at once with one line naming the port, no stack trace, nothing migrated', async () => {
    const busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, resolve))
    const { port } = busy.address() as AddressInfo
    try {
      const directory = dataDir()
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
        env: { PATH: process.env.PATH, DATA_DIR: directory, PORT: String(port) },
        encoding: 'utf8',
        timeout: 30_000,
      })
      expect(result.status).toBe(1)
      expect(result.stderr.trim().split('\n')).toEqual([
        `Port ${port} is already in use: stop what listens there, or set PORT to another port`,
      ])
      expect(existsSync(join(directory, 'pg'))).toBe(false)
    } finally {
      await new Promise((resolve) => busy.close(resolve))
    }
  })
})

describe('start-up with a bad value', () => {
  it('stops with exit code 1 and one line naming the variable', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir(), PORT: 'eighty' },
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(result.status).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr.trim().split('\n')).toEqual([
      'Invalid configuration: PORT must be an integer from 0 to 65535 (got "eighty")',
    ])
  })
})
