import { z } from 'zod'
import { cursorPageFields, ZIsoDateTime } from './common.ts'

/** What the audit log records; areas add theirs here. */
export const auditActions = [
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'agent.webhook_secret_rotated',
  'agent.published',
  'agent.version_restored',
  'agent.test_settings_updated',
  'key.created',
  'key.updated',
  'key.enabled',
  'key.disabled',
  'key.revoked',
  'member.invited',
  'member.joined',
  'invitation.declined',
  'provider_keys.updated',
  'identity_secret.rotated',
  'organization.limits_updated',
  'organization.retention_updated',
  'export.created',
  'conversation.deleted',
  'call.deleted',
  'retention.deleted',
  'do_not_call.added',
  'do_not_call.removed',
  'do_not_call.imported',
] as const
export const ZAuditAction = z.enum(auditActions)
export type AuditAction = z.infer<typeof ZAuditAction>

/** GET /v1/audit-log: newest first, a page at a time, narrowed by any of the filters. */
export const ZAuditLogQuery = z.object({
  ...cursorPageFields,
  action: ZAuditAction.optional(),
  targetId: z.string().min(1).max(100).optional(),
  actorId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'A member’s user id or an API key’s id', example: '01JD3Q6ZP8W4M2K7R9T5V1X3YB' }),
  createdFrom: z.iso.datetime({ offset: true }).optional(),
  createdTo: z.iso.datetime({ offset: true }).optional(),
})
export type AuditLogQuery = z.infer<typeof ZAuditLogQuery>

export const ZAuditEntry = z
  .object({
    id: z.string(),
    action: ZAuditAction,
    targetKind: z.string().meta({
      description: 'agent, key, member, invitation, organization, export, conversation, call',
      example: 'agent',
    }),
    targetId: z.string().nullable(),
    actor: z.object({
      kind: z.enum(['member', 'key', 'operator', 'system']),
      id: z
        .string()
        .nullable()
        .meta({ description: 'The member’s user id or the key’s id; null for operator and system' }),
    }),
    ip: z
      .string()
      .nullable()
      .meta({ description: 'The address the request came from; null for jobs', example: '203.0.113.7' }),
    details: z
      .record(z.string(), z.unknown())
      .meta({ description: 'What changed: field names (never values of secrets), counts, kinds' }),
    createdAt: ZIsoDateTime,
  })
  .meta({ id: 'AuditEntry' })
export type AuditEntry = z.infer<typeof ZAuditEntry>

export const ZAuditLog = z
  .object({
    success: z.literal(true),
    data: z.array(ZAuditEntry),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as cursor for the next page; null: last page' }),
  })
  .meta({ id: 'AuditLog' })
export type AuditLog = z.infer<typeof ZAuditLog>
