import { randomBytes } from 'node:crypto'
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { defaultVoicemailSetting, webhookEventNames } from '@parley/shared'
import * as agents from '../agents/index.ts'
import { auditBySystem } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { createApiKey } from '../keys/index.ts'
import * as orgs from '../orgs/index.ts'
import { hashPassword } from '../orgs/index.ts'
import * as store from './store.ts'

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

const newPassword = () => randomBytes(12).toString('base64url')

const TEXT_AGENT_NAME = 'Parley Guide'
const PIPELINE_AGENT_NAME = 'Parley Voice'

const insertDemoAgent = async (
  ctx: AppContext,
  { organizationId, userId, kind }: { organizationId: string; userId: string; kind: 'text' | 'pipeline' },
) => {
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
    knowledgeSourceIds: [],
    postCallAnalysis: false,
    fallbackModel: null,
    analysisModel: null,
    fallbackStt: null,
    fallbackTts: null,
    webhookEvents: [...webhookEventNames],
    analysisSchema: null,
    transferDestinations: [],
    voicemail: defaultVoicemailSetting,
    model: 'offline',
    realtimeProvider: null,
    greetingType: 'agentFirst' as const,
    enabledFunctions: ['end_call'],
  }
  const id = newUlid()
  await agents.insertAgent(
    ctx.db,
    kind === 'text'
      ? {
          ...common,
          id,
          name: TEXT_AGENT_NAME,
          agentArchitecture: 'text',
          stt: null,
          tts: null,
          voiceId: null,
          sysMsg:
            'You are the Parley demo guide. Answer briefly and kindly; say goodbye when the visitor does.',
          greetingMessage: 'Hi! I am the Parley demo agent. Ask me anything.',
          lastMessage: 'Thanks for trying Parley. Goodbye!',
        }
      : {
          ...common,
          id,
          name: PIPELINE_AGENT_NAME,
          agentArchitecture: 'pipeline',
          stt: 'deepgram-nova-3',
          tts: 'cartesia-sonic-2',
          voiceId: 'cartesia-katie',
          sysMsg: 'You are the Parley voice demo agent. Keep answers short; they are spoken aloud.',
          greetingMessage: 'Hello! You are talking to the Parley voice demo.',
          lastMessage: 'Goodbye!',
        },
  )
  return id
}

const createDemoWidgetKey = async (
  ctx: AppContext,
  { organizationId, userId }: { organizationId: string; userId: string },
) =>
  (
    await createApiKey(ctx, {
      organizationId,
      createdBy: userId,
      name: 'Demo widget (localhost)',
      type: 'widget',
      allowedDomains: ['localhost', '127.0.0.1'],
      by: auditBySystem,
    })
  ).key

const seedDemoTenant = async (ctx: AppContext): Promise<DemoTenant> => {
  const ownerPassword = newPassword()
  const session = await orgs.signup(ctx, {
    organizationName: 'Parley Demo',
    name: 'Demo Owner',
    email: DEMO_EMAIL,
    password: ownerPassword,
  })
  const owner = { organizationId: session.organization.id, userId: session.user.id }
  return {
    organizationId: owner.organizationId,
    ownerEmail: DEMO_EMAIL,
    ownerPassword,
    widgetKey: await createDemoWidgetKey(ctx, owner),
    textAgentId: await insertDemoAgent(ctx, { ...owner, kind: 'text' }),
    pipelineAgentId: await insertDemoAgent(ctx, { ...owner, kind: 'pipeline' }),
  }
}

/**
 * The demo tenant is in the database but what to print is not (demo.json was lost, or an older
 * start could not write it): the organization and agents are found again (an agent deleted since
 * is made anew), and the two secrets the database keeps only as hashes, the owner's password and
 * the widget key, are issued anew. Null when the demo owner owns no organization any more.
 */
const recoverDemoTenant = async (ctx: AppContext): Promise<DemoTenant | null> => {
  const owner = await store.findDemoOwner(ctx.db, DEMO_EMAIL)
  if (!owner) return null
  const ownerPassword = newPassword()
  await store.setPasswordHash(ctx.db, {
    userId: owner.userId,
    passwordHash: await hashPassword(ownerPassword),
  })
  const agentId = async (kind: 'text' | 'pipeline', name: string) =>
    (await store.findAgentIdByName(ctx.db, { organizationId: owner.organizationId, name })) ??
    insertDemoAgent(ctx, { ...owner, kind })
  return {
    organizationId: owner.organizationId,
    ownerEmail: DEMO_EMAIL,
    ownerPassword,
    widgetKey: await createDemoWidgetKey(ctx, owner),
    textAgentId: await agentId('text', TEXT_AGENT_NAME),
    pipelineAgentId: await agentId('pipeline', PIPELINE_AGENT_NAME),
  }
}

/** Written whole or not at all (a temporary file renamed over it). */
const writeDemoFile = (ctx: AppContext, tenant: DemoTenant) => {
  const file = demoFile(ctx)
  writeFileSync(`${file}.tmp`, `${JSON.stringify(tenant, null, 2)}\n`, { mode: 0o600 })
  renameSync(`${file}.tmp`, file)
}

/**
 * First start on an empty DATA_DIR seeds the demo tenant and records what to print in
 * DATA_DIR/demo.json (mode 0600, development only); later starts read it back without reseeding.
 * DATA_DIR is made (and must be writable) before anything is committed: with an external database
 * nothing else creates it. A demo tenant whose file is gone is recovered (recoverDemoTenant).
 */
export const ensureDemoTenant = async (
  ctx: AppContext,
): Promise<{ tenant: DemoTenant; isNew: boolean } | null> => {
  const recorded = readDemoFile(ctx)
  if (recorded && (await agents.agentExists(ctx.db, recorded.textAgentId)))
    return { tenant: recorded, isNew: false }
  try {
    mkdirSync(ctx.config.dataDir, { recursive: true })
    accessSync(ctx.config.dataDir, constants.W_OK)
  } catch (error) {
    ctx.logger.warn({ err: error, dataDir: ctx.config.dataDir }, 'no demo tenant: DATA_DIR cannot be written')
    return null
  }
  const isNew = !(await orgs.isEmailRegistered(ctx, DEMO_EMAIL))
  const tenant = isNew ? await seedDemoTenant(ctx) : await recoverDemoTenant(ctx)
  if (!tenant) return null
  writeDemoFile(ctx, tenant)
  return { tenant, isNew }
}
