import { randomBytes } from 'node:crypto'

/**
 * Two organizations of the probe, made through the public API only (so the probe runs against any
 * version of the server): each with a text agent (a webhook, a custom function, a chat
 * conversation), an active pipeline agent with a phone number and a batch job, a second API key,
 * a provider key and an export. Every id, name and secret is kept to look for where it must not be.
 */

export const ALLOWED_HOST = 'functions.probe.test'

export type Tenant = {
  label: string
  marker: string
  organizationId: string
  token: string
  key: string
  keyId: string
  widgetKey: string
  agentId: string
  pipelineAgentId: string
  functionId: string
  phoneNumberId: string
  batchJobId: string
  conversationId: string
  sessionToken: string
  exportId: string
  /** Values no other organization, no answer beyond its own creation and no log line may show. */
  secrets: string[]
  /** Ids and names another organization must never see. */
  traces: string[]
}

const call = async (
  base: string,
  path: string,
  init: { method?: string; token?: string; key?: string; json?: unknown; admin?: string } = {},
) => {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.key ? { 'x-api-key': init.key } : {}),
      ...(init.admin ? { authorization: `Bearer ${init.admin}` } : {}),
    },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`probe set-up ${path}: ${response.status} ${text}`)
  return text ? (JSON.parse(text) as Record<string, unknown>) : {}
}

export const prepareTenant = async (
  base: string,
  { label, adminToken }: { label: string; adminToken: string },
): Promise<Tenant> => {
  const marker = `Probe${label}${randomBytes(4).toString('hex')}`
  const password = `probe password ${randomBytes(6).toString('hex')}`
  const signup = await call(base, '/api/auth/signup', {
    json: {
      organizationName: `${marker} Org`,
      name: `${marker} Owner`,
      email: `${marker.toLowerCase()}@example.com`,
      password,
    },
  })
  const organizationId = (signup.organization as { id: string }).id
  const token = signup.token as string
  await call(base, `/admin/organizations/${organizationId}`, {
    method: 'PATCH',
    admin: adminToken,
    json: { tier: 'enterprise', rateLimitPerMinute: 1_000_000 },
  })
  await call(base, `/admin/organizations/${organizationId}/credits`, {
    admin: adminToken,
    json: { amountUsd: 100, reason: 'probe credits' },
  })
  const secretKey = await call(base, '/api/api-keys', {
    token,
    json: { name: `${marker} key`, type: 'secret' },
  })
  const key = secretKey.key as string
  const widget = await call(base, '/api/api-keys', {
    token,
    json: { name: `${marker} widget`, type: 'widget', allowedDomains: ['shop.example.com'] },
  })
  const agent = await call(base, '/v1/agents', {
    key,
    json: {
      name: `${marker} Agent`,
      agentArchitecture: 'text',
      systemPrompt: `You are ${marker}.`,
      webhookUrl: `https://${ALLOWED_HOST}/hook`,
    },
  })
  const agentId = (agent.data as { id: string }).id
  await call(base, `/v1/agents/${agentId}`, { method: 'PATCH', key, json: { active: true } })
  const webhookSecret = (
    (await call(base, `/v1/agents/${agentId}/webhook-secret`, { method: 'POST', key })).data as {
      webhookSecret: string
    }
  ).webhookSecret
  const functionHeaderSecret = `Bearer fn-${randomBytes(12).toString('hex')}`
  const created = await call(base, `/api/custom-functions/${agentId}`, {
    key,
    json: {
      name: 'lookup_order',
      label: 'Look up an order',
      description: `Finds an order for ${marker}`,
      endpoint: `https://${ALLOWED_HOST}/orders`,
      headers: { Authorization: functionHeaderSecret },
      parameters: {
        type: 'object',
        properties: { orderNumber: { type: 'string' } },
        required: ['orderNumber'],
      },
    },
  })
  const functionId = ((created.data ?? created) as { id: string }).id
  const pipeline = await call(base, '/v1/agents', {
    key,
    json: {
      name: `${marker} Caller`,
      agentArchitecture: 'pipeline',
      model: 'gpt-4o-mini',
      stt: 'deepgram-nova-3',
      tts: 'cartesia-sonic-2',
      systemPrompt: 'Call {{name}}.',
    },
  })
  const pipelineAgentId = (pipeline.data as { id: string }).id
  await call(base, `/v1/agents/${pipelineAgentId}`, { method: 'PATCH', key, json: { active: true } })
  const number = await call(base, '/v1/phone-numbers', {
    key,
    json: {
      number: `+1415555${String(Math.floor(1000 + Math.random() * 8999))}`,
      outboundAgentId: pipelineAgentId,
      sipTrunkId: 'ST_probe',
    },
  })
  const phoneNumberId = (number.data as { id: string }).id
  const batch = await call(base, '/batch/create', {
    key,
    json: {
      fromPhoneNumberId: phoneNumberId,
      name: `${marker} Campaign`,
      scheduledStartTime: new Date(Date.now() + 86_400_000).toISOString(),
      contacts: [{ phone: '+14155550111', name: `${marker} Contact` }],
    },
  })
  const session = await call(base, '/v1/chat/sessions', {
    key,
    json: { agent_id: agentId, user_identifier: `${marker}-visitor` },
  })
  const sessionToken = session.session_token as string
  const conversationId = session.conversation_id as string
  await fetch(`${base}/v1/chat/sessions/${conversationId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sessionToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: `Hello from ${marker}` }),
  }).then((response) => response.text())
  const providerKey = `sk-probe-${randomBytes(16).toString('hex')}`
  await call(base, `/api/organizations/${organizationId}/provider-keys`, {
    method: 'PUT',
    token,
    json: { keys: { openai: providerKey } },
  })
  const exported = await call(base, '/api/export', { token, json: { kind: 'conversations', format: 'csv' } })
  return {
    label,
    marker,
    organizationId,
    token,
    key,
    keyId: secretKey.id as string,
    widgetKey: widget.key as string,
    agentId,
    pipelineAgentId,
    functionId,
    phoneNumberId,
    batchJobId: batch.batchJobId as string,
    conversationId,
    sessionToken,
    exportId: exported.id as string,
    secrets: [
      password,
      key,
      widget.key as string,
      webhookSecret,
      functionHeaderSecret,
      providerKey,
      sessionToken,
      token,
    ],
    traces: [
      marker,
      organizationId,
      agentId,
      pipelineAgentId,
      functionId,
      phoneNumberId,
      batch.batchJobId as string,
      conversationId,
    ],
  }
}
