import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { webhookEventNames } from '@parley/shared'
import { ulid } from 'ulid'
import * as agents from '../agents/store.ts'
import type { AppContext } from '../context.ts'
import { createApiKey } from '../keys/service.ts'
import * as orgs from '../orgs/service.ts'

export type DemoTenant = {
  organizationId: string
  ownerEmail: string
  ownerPassword: string
  widgetKey: string
  textAgentId: string
  pipelineAgentId: string
}

const DEMO_EMAIL = 'demo@parley.test'

const demoFile = (ctx: AppContext) => join(ctx.config.dataDir, 'demo.json')

const readDemoFile = (ctx: AppContext): DemoTenant | null => {
  const file = demoFile(ctx)
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoTenant) : null
}

const seedDemoTenant = async (ctx: AppContext): Promise<DemoTenant> => {
  const ownerPassword = randomBytes(12).toString('base64url')
  const session = await orgs.signup(ctx, {
    organizationName: 'Parley Demo',
    name: 'Demo Owner',
    email: DEMO_EMAIL,
    password: ownerPassword,
  })
  const organizationId = session.organization.id
  const userId = session.user.id
  const common = {
    organizationId,
    userId,
    description: null,
    mode: 'public' as const,
    temperature: 0.7,
    inactivityTimeout: 30,
    functionCallingEnabled: true,
    enabledCustomFunctions: [],
    languages: ['en'],
    active: true,
    webhookUrl: null,
    webhookSecretBox: null,
    handoffAgentIds: [],
    postCallAnalysis: false,
    fallbackModel: null,
    webhookEvents: [...webhookEventNames],
    analysisSchema: null,
  }
  const textAgentId = ulid()
  await agents.insertAgent(ctx.db, {
    ...common,
    id: textAgentId,
    name: 'Parley Guide',
    agentArchitecture: 'text',
    model: 'offline',
    stt: null,
    tts: null,
    voiceId: null,
    realtimeProvider: null,
    sysMsg: 'You are the Parley demo guide. Answer briefly and kindly; say goodbye when the visitor does.',
    greetingType: 'agentFirst',
    greetingMessage: 'Hi! I am the Parley demo agent. Ask me anything.',
    lastMessage: 'Thanks for trying Parley. Goodbye!',
    enabledFunctions: ['end_call'],
  })
  const pipelineAgentId = ulid()
  await agents.insertAgent(ctx.db, {
    ...common,
    id: pipelineAgentId,
    name: 'Parley Voice',
    agentArchitecture: 'pipeline',
    model: 'offline',
    stt: 'deepgram-nova-3',
    tts: 'cartesia-sonic-2',
    voiceId: 'cartesia-katie',
    realtimeProvider: null,
    sysMsg: 'You are the Parley voice demo agent. Keep answers short; they are spoken aloud.',
    greetingType: 'agentFirst',
    greetingMessage: 'Hello! You are talking to the Parley voice demo.',
    lastMessage: 'Goodbye!',
    enabledFunctions: ['end_call'],
  })
  const { key: widgetKey } = await createApiKey(ctx, {
    organizationId,
    createdBy: userId,
    name: 'Demo widget (localhost)',
    type: 'widget',
    allowedDomains: ['localhost', '127.0.0.1'],
  })
  return { organizationId, ownerEmail: DEMO_EMAIL, ownerPassword, widgetKey, textAgentId, pipelineAgentId }
}

/**
 * First start on an empty DATA_DIR seeds the demo tenant and records what to print in
 * DATA_DIR/demo.json (mode 0600, development only); later starts read it back without reseeding.
 */
export const ensureDemoTenant = async (
  ctx: AppContext,
): Promise<{ tenant: DemoTenant; isNew: boolean } | null> => {
  const recorded = readDemoFile(ctx)
  if (recorded && (await agents.agentExists(ctx.db, recorded.textAgentId)))
    return { tenant: recorded, isNew: false }
  if (await orgs.isEmailRegistered(ctx, DEMO_EMAIL)) return null
  const tenant = await seedDemoTenant(ctx)
  writeFileSync(demoFile(ctx), `${JSON.stringify(tenant, null, 2)}\n`, { mode: 0o600 })
  return { tenant, isNew: true }
}
