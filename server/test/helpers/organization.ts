import type { CreateAgentV1, Role, Session } from '@parley/shared'
import { ZCreateAgentV1 } from '@parley/shared'
import { createAgent } from '../../src/agents/service.ts'
import { auditBySystem } from '../../src/audit/index.ts'
import { createApiKey } from '../../src/keys/service.ts'
import { acceptInvitations, signUp } from './accounts.ts'
import type { TestServer } from './test-server.ts'

export type Member = { session: Session; role: Role; userId: string }

/** An organization with an owner, an admin and two members, each holding a token for it. */
export const createTeam = async (server: TestServer) => {
  const owner = await signUp(server, { organizationName: 'Team Org' })
  const organizationId = owner.organization.id
  // Tests make more than the free tier's 60 v1 requests a minute; the rate-limit tests use their own orgs.
  await server.request(`/admin/organizations/${organizationId}`, {
    method: 'PATCH',
    token: server.config.adminToken,
    json: { tier: 'enterprise', rateLimitPerMinute: 100_000 },
  })
  const join = async (role: Role): Promise<Member> => {
    const person = await signUp(server)
    const invite = await server.request(`/api/organizations/${organizationId}/members`, {
      method: 'POST',
      token: owner.token,
      json: { email: person.user.email, role },
    })
    if (invite.status !== 201) throw new Error(`invite failed: ${invite.status}`)
    await acceptInvitations(server, person.token)
    const switched = await server.request('/api/auth/switch-organization', {
      method: 'POST',
      token: person.token,
      json: { organizationId },
    })
    return { session: (await switched.json()) as Session, role, userId: person.user.id }
  }
  return {
    organizationId,
    owner: { session: owner, role: 'owner' as const, userId: owner.user.id },
    admin: await join('admin'),
    member: await join('member'),
    otherMember: await join('member'),
  }
}

const baseAgents: Record<CreateAgentV1['agentArchitecture'], Record<string, unknown>> = {
  text: { model: 'gpt-4o-mini' },
  pipeline: {
    model: 'gpt-4o-mini',
    stt: 'deepgram-nova-3',
    tts: 'cartesia-sonic-2',
    voiceId: 'cartesia-katie',
  },
  realtime: {
    realtimeProvider: 'openai',
    voiceId: 'alloy',
    greetingType: 'agentFirst',
    greetingMessage: 'Hello',
  },
}

/**
 * Creates an agent through the service, as the given member, with valid defaults for its
 * architecture; active (live to widget keys, phone numbers and batch jobs) unless `active: false`.
 */
export const makeAgent = async (
  server: TestServer,
  member: Member,
  overrides: Partial<Record<string, unknown>> & {
    agentArchitecture?: CreateAgentV1['agentArchitecture']
  } = {},
) => {
  const architecture = overrides.agentArchitecture ?? 'text'
  const input = ZCreateAgentV1.parse({
    name: 'Helper Agent',
    agentArchitecture: architecture,
    systemPrompt: 'You help.',
    ...baseAgents[architecture],
    ...overrides,
  })
  const actor = { organizationId: member.session.organization.id, userId: member.userId, role: member.role }
  const { agent } = await createAgent(server.ctx, actor, input, auditBySystem)
  if (overrides.active === false) return agent
  await server.ctx.db.updateTable('agents').set({ active: true }).where('id', '=', agent.id).execute()
  return { ...agent, active: true }
}

/** A secret API key acting for the member (keys act with their creator's current role). */
export const secretKeyFor = async (server: TestServer, member: Member) => {
  const { key } = await createApiKey(server.ctx, {
    organizationId: member.session.organization.id,
    createdBy: member.userId,
    name: `${member.role} key`,
    type: 'secret',
    allowedDomains: [],
    by: auditBySystem,
  })
  return key
}

export type TeamKeys = Record<'owner' | 'admin' | 'member' | 'otherMember', string>

/** A team plus one secret key per member, each acting with that member's role. */
export const createTeamWithKeys = async (server: TestServer) => {
  const team = await createTeam(server)
  const keys: TeamKeys = {
    owner: await secretKeyFor(server, team.owner),
    admin: await secretKeyFor(server, team.admin),
    member: await secretKeyFor(server, team.member),
    otherMember: await secretKeyFor(server, team.otherMember),
  }
  return { team, keys }
}
