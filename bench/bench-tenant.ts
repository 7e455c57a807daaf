import { randomBytes } from 'node:crypto'
import { changeBalance } from '../server/src/billing/service.ts'
import type { RunningServer } from '../server/src/server.ts'

/** A JSON request to a benchmark server: bearer token, JSON body, any non-2xx status throws. */
export const callJson = async (url: string, init: RequestInit & { token?: string; json?: unknown } = {}) => {
  const { token, json, headers, ...rest } = init
  const response = await fetch(url, {
    ...rest,
    headers: {
      ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(headers as Record<string, string>),
    },
    ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
  })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return (await response.json()) as Record<string, unknown>
}

/**
 * An organization ready to run batch jobs: a secret key, credits for every run, no rate limit in
 * the way, a pipeline agent with placeholders and a number assigned to it.
 */
export const prepareBatchTenant = async (
  server: RunningServer,
  { adminToken, label }: { adminToken: string; label: string },
) => {
  const base = server.url
  const signup = await callJson(`${base}/api/auth/signup`, {
    method: 'POST',
    json: {
      organizationName: label,
      name: 'Bench',
      email: `bench-${randomBytes(4).toString('hex')}@example.com`,
      password: 'bench password 123',
    },
  })
  const organizationId = (signup.organization as { id: string }).id
  await callJson(`${base}/admin/organizations/${organizationId}`, {
    method: 'PATCH',
    token: adminToken,
    json: { tier: 'enterprise', rateLimitPerMinute: 1_000_000 },
  })
  await changeBalance(
    { db: server.ctx.db },
    { organizationId, amountMicros: 10_000 * 1_000_000, kind: 'grant', reason: 'bench credits' },
  )
  const { key } = (await callJson(`${base}/api/api-keys`, {
    method: 'POST',
    token: signup.token as string,
    json: { name: 'bench', type: 'secret' },
  })) as { key: string }
  const agent = await callJson(`${base}/v1/agents`, {
    method: 'POST',
    token: key,
    json: {
      name: 'Bench caller',
      agentArchitecture: 'pipeline',
      model: 'gpt-4o-mini',
      stt: 'deepgram-nova-3',
      tts: 'cartesia-sonic-2',
      systemPrompt: 'Call {{name}} about {{plan}}.',
    },
  })
  // Agents are created inactive; a phone number takes only a live one.
  await callJson(`${base}/v1/agents/${(agent.data as { id: string }).id}`, {
    method: 'PATCH',
    token: key,
    json: { active: true },
  })
  const number = await callJson(`${base}/v1/phone-numbers`, {
    method: 'POST',
    token: key,
    json: {
      number: '+14155550100',
      outboundAgentId: (agent.data as { id: string }).id,
      sipTrunkId: 'ST_bench',
    },
  })
  return {
    key,
    agentId: (agent.data as { id: string }).id,
    phoneNumberId: (number.data as { id: string }).id,
  }
}
