import type {
  ApiKey,
  ApiKeyType,
  AuditLog,
  CreatedApiKey,
  IdentitySecret,
  Member,
  OrganizationLedger,
  Retention,
  Role,
  V1Organization,
  WebhookDeliveryAnswer,
  WebhookDeliveryList,
} from '@parley/shared'
import { api } from '../api.ts'

/** The organization area's calls: members, API keys, credits and the ledger, webhook deliveries. */

const organizationPath = (organizationId: string) =>
  `/api/organizations/${encodeURIComponent(organizationId)}`

export const listMembers = async (organizationId: string) =>
  (await api<{ members: Member[] }>(`${organizationPath(organizationId)}/members`)).members

export const inviteMember = (organizationId: string, invitation: { email: string; role: Role }) =>
  api<Member>(`${organizationPath(organizationId)}/members`, { method: 'POST', json: invitation })

/** Owners and admins; a member is answered 403. Made on first read. */
export const readIdentitySecret = (organizationId: string) =>
  api<IdentitySecret>(`${organizationPath(organizationId)}/identity-secret`)

export const rotateIdentitySecret = (organizationId: string) =>
  api<IdentitySecret>(`${organizationPath(organizationId)}/identity-secret/rotate`, { method: 'POST' })

export const listKeys = async () => (await api<{ apiKeys: ApiKey[] }>('/api/api-keys')).apiKeys

export const createKey = (key: { name: string; type: ApiKeyType; allowedDomains?: string[] }) =>
  api<CreatedApiKey>('/api/api-keys', { method: 'POST', json: key })

export const updateKeyDomains = (id: string, allowedDomains: string[]) =>
  api<ApiKey>(`/api/api-keys/${encodeURIComponent(id)}`, { method: 'PATCH', json: { allowedDomains } })

export type KeyAction = 'disable' | 'enable' | 'revoke'
export const changeKey = (id: string, action: KeyAction) =>
  api<ApiKey>(`/api/api-keys/${encodeURIComponent(id)}/${action}`, { method: 'POST' })

/** Tier, rate limit and balance: every role may read them (GET /v1/organization). */
export const getOrganization = async () => (await api<V1Organization>('/v1/organization')).data

/** Owners and admins only; a member is answered 403. */
export const readLedger = (organizationId: string, cursor: string | null) => {
  const params = new URLSearchParams({ limit: '20' })
  if (cursor) params.set('cursor', cursor)
  return api<OrganizationLedger>(`${organizationPath(organizationId)}/ledger?${params}`)
}

export const listDeliveries = (agentId: string, page: number) =>
  api<WebhookDeliveryList>(
    `/v1/agents/${encodeURIComponent(agentId)}/webhook-deliveries?page=${page}&limit=20`,
  )

export const redeliver = async (agentId: string, deliveryId: string) =>
  (
    await api<WebhookDeliveryAnswer>(
      `/v1/agents/${encodeURIComponent(agentId)}/webhook-deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
      { method: 'POST' },
    )
  ).data

/** Domains as typed: separated by commas, spaces or new lines. */
export const parseDomains = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((domain) => domain.trim())
    .filter(Boolean)

/** How long records are kept (null: forever); owners and admins change it. */
export const readRetention = (organizationId: string) =>
  api<Retention>(`${organizationPath(organizationId)}/retention`)

export const updateRetention = (organizationId: string, update: Partial<Retention>) =>
  api<Retention>(`${organizationPath(organizationId)}/retention`, { method: 'PATCH', json: update })

/** A page of the audit log, newest first (owners and admins). */
export const readAuditLog = (cursor: string | null) =>
  api<AuditLog>(`/v1/audit-log?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
