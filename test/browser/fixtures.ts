import type { DemoTenant } from '../../server/src/seed/demo.ts'

/**
 * What the browser tests chat with, made through the real APIs before the run: agents of the
 * seeded demo tenant (its owner logs in and makes a secret key) and a second organization whose
 * balance the 402 test drains through the operator API.
 */
export type BrowserFixtures = {
  /** Greets, has lookup_order (a custom function), end_call and a handoff to Billing Bot (end_call too). */
  supportAgentId: string
  billingAgentId: string
  /** Agents of their own, so a test can count its conversations on the server. */
  secondAgentId: string
  tabsAgentId: string
  reloadAgentId: string
  /** The organization the 402 test empties, with its own agent and widget key. */
  broke: { organizationId: string; agentId: string; widgetKey: string }
}

type Call = (
  path: string,
  init: { method?: string; headers?: Record<string, string>; json?: unknown },
) => Promise<unknown>

const createCaller =
  (baseUrl: string): Call =>
  async (path, { method = 'POST', headers = {}, json }) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    })
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
    return response.json()
  }

const textAgent = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  agentArchitecture: 'text',
  model: 'gpt-4o-mini',
  systemPrompt: `You are ${name}.`,
  greetingType: 'agentFirst',
  greetingMessage: `Hello from ${name}!`,
  ...extra,
})

/** A secret key for an owner's session token, and a function creating agents with it. */
const agentMaker = async (call: Call, token: string) => {
  const { key } = (await call('/api/api-keys', {
    headers: { authorization: `Bearer ${token}` },
    json: { name: 'Browser test fixtures', type: 'secret' },
  })) as { key: string }
  // Agents are created inactive; the widget's keys need them live.
  const create = async (body: Record<string, unknown>) => {
    const { id } = (
      (await call('/v1/agents', { headers: { 'x-api-key': key }, json: body })) as { data: { id: string } }
    ).data
    await call(`/v1/agents/${id}`, { method: 'PATCH', headers: { 'x-api-key': key }, json: { active: true } })
    return id
  }
  return { key, create }
}

export const createFixtures = async ({
  baseUrl,
  demo,
  customerOrigin,
}: {
  baseUrl: string
  demo: DemoTenant
  /** Where lookup_order's endpoint lives (a local server listed in OUTBOUND_ALLOW_HOSTS). */
  customerOrigin: string
}): Promise<BrowserFixtures> => {
  const call = createCaller(baseUrl)
  const owner = (await call('/api/auth/login', {
    json: { email: demo.ownerEmail, password: demo.ownerPassword },
  })) as { token: string }
  const { key, create } = await agentMaker(call, owner.token)

  const billingAgentId = await create(
    textAgent('Billing Bot', { enabledFunctions: ['end_call'], lastMessage: 'Goodbye from billing!' }),
  )
  const supportAgentId = await create(
    textAgent('Support Bot', {
      enabledFunctions: ['end_call'],
      lastMessage: 'Thanks for chatting. Goodbye!',
      handoffAgentIds: [billingAgentId],
    }),
  )
  const lookup = (await call(`/api/custom-functions/${supportAgentId}`, {
    headers: { 'x-api-key': key },
    json: {
      name: 'lookup_order',
      label: 'Look up an order',
      description: 'Finds an order by its id',
      endpoint: `${customerOrigin}/orders`,
      method: 'POST',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    },
  })) as { id: string }
  await call(`/v1/agents/${supportAgentId}`, {
    method: 'PUT',
    headers: { 'x-api-key': key },
    json: { enabledCustomFunctions: [lookup.id] },
  })

  const broke = await call('/api/auth/signup', {
    json: {
      organizationName: 'Broke Inc',
      name: 'Broke Owner',
      email: `broke-${Date.now()}@example.com`,
      password: 'correct horse battery staple',
    },
  }).then((session) => session as { token: string; organization: { id: string } })
  const brokeAgents = await agentMaker(call, broke.token)
  const brokeWidget = (await call('/api/api-keys', {
    headers: { authorization: `Bearer ${broke.token}` },
    json: { name: 'Broke widget', type: 'widget', allowedDomains: ['localhost', '127.0.0.1'] },
  })) as { key: string }

  return {
    supportAgentId,
    billingAgentId,
    secondAgentId: await create(textAgent('Second Desk')),
    tabsAgentId: await create(textAgent('Tabs Desk')),
    reloadAgentId: await create(textAgent('Reload Desk')),
    broke: {
      organizationId: broke.organization.id,
      agentId: await brokeAgents.create(textAgent('Broke Desk')),
      widgetKey: brokeWidget.key,
    },
  }
}
