import { z } from 'zod'
import { ZEmail, ZIsoDateTime, ZRole, ZTier } from './common.ts'

export const ZPassword = z
  .string()
  .min(10, 'must be at least 10 characters')
  .max(200, 'must be at most 200 characters')

export const ZSignup = z
  .object({
    organizationName: z.string().trim().min(2).max(100),
    name: z.string().trim().min(1).max(100),
    email: ZEmail,
    password: ZPassword,
  })
  .meta({ id: 'SignupRequest' })
export type Signup = z.infer<typeof ZSignup>

export const ZLogin = z
  .object({ email: ZEmail, password: z.string().min(1).max(200) })
  .meta({ id: 'LoginRequest' })
export type Login = z.infer<typeof ZLogin>

export const ZSwitchOrganization = z
  .object({ organizationId: z.string().min(1) })
  .meta({ id: 'SwitchOrganizationRequest' })
export type SwitchOrganization = z.infer<typeof ZSwitchOrganization>

export const ZUser = z
  .object({ id: z.string(), name: z.string(), email: z.string(), createdAt: ZIsoDateTime })
  .meta({ id: 'User' })
export type User = z.infer<typeof ZUser>

export const ZMembership = z
  .object({ id: z.string(), name: z.string(), role: ZRole, tier: ZTier })
  .meta({ id: 'OrganizationMembership' })
export type Membership = z.infer<typeof ZMembership>

export const ZSession = z
  .object({
    token: z.string().meta({ description: 'Studio session JWT (HS256, 12 hours)' }),
    expiresAt: ZIsoDateTime,
    user: ZUser,
    organization: ZMembership.meta({ description: 'The active organization of this token' }),
    organizations: z.array(ZMembership),
  })
  .meta({ id: 'StudioSession' })
export type Session = z.infer<typeof ZSession>

export const ZInviteMember = z
  .object({ email: ZEmail, role: ZRole.default('member') })
  .meta({ id: 'InviteMemberRequest' })
export type InviteMember = z.infer<typeof ZInviteMember>

export const ZMember = z
  .object({
    userId: z.string().nullable().meta({ description: 'Null while the invitation is pending' }),
    email: z.string(),
    name: z
      .string()
      .nullable()
      .meta({ description: 'Null for an invitation: an invitation never names its invitee' }),
    role: ZRole,
    status: z.enum(['active', 'invited', 'expired']).meta({
      description:
        'active: a member; invited: an invitation waiting for the invitee to accept it; expired: one not accepted in time (invite again to renew it)',
    }),
    createdAt: ZIsoDateTime,
    expiresAt: ZIsoDateTime.nullable().meta({ description: 'When an invitation expires; null for a member' }),
  })
  .meta({ id: 'Member' })
export type Member = z.infer<typeof ZMember>

/** An invitation as its invitee sees it (GET /api/invitations). */
export const ZInvitation = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    organizationName: z.string(),
    role: ZRole,
    invitedBy: z.string().nullable().meta({ description: 'The inviter’s name' }),
    createdAt: ZIsoDateTime,
    expiresAt: ZIsoDateTime,
  })
  .meta({ id: 'Invitation' })
export type Invitation = z.infer<typeof ZInvitation>

export const ZInvitationList = z.object({ invitations: z.array(ZInvitation) }).meta({ id: 'InvitationList' })
export type InvitationList = z.infer<typeof ZInvitationList>

export const ZInvitationParams = z.object({ invitationId: z.string().min(1).max(100) })

export const ZDeclinedInvitation = z.object({ declined: z.literal(true) }).meta({ id: 'DeclinedInvitation' })

export const ZMemberList = z.object({ members: z.array(ZMember) }).meta({ id: 'MemberList' })

export const ZOrgIdParams = z.object({ orgId: z.string().min(1) })

export const ZOrganizationSummary = z
  .object({
    id: z.string(),
    name: z.string(),
    tier: ZTier,
    rateLimitPerMinute: z.number().int(),
    creditBalanceUsd: z.number().meta({
      description: 'Below zero when usage was charged past the balance (see overdrawn)',
    }),
    overdrawn: z.boolean().meta({
      description:
        'Usage was charged past the balance (it is below zero): new work is refused until credits are added',
    }),
    createdAt: ZIsoDateTime,
  })
  .meta({ id: 'Organization' })
export type OrganizationSummary = z.infer<typeof ZOrganizationSummary>

/** The organization's identity secret (owners and admins): signs visitors' user_identifier as user_hash. */
export const ZIdentitySecret = z
  .object({
    secret: z.string().meta({
      description:
        'Keep it on your server: user_hash = hex HMAC-SHA256 of the visitor’s user_identifier under this secret',
      example: 'mV3kq9Zr0cTf7yHq2LxN4bPw8sJd6gAe1uKo5iRzXvY',
    }),
    createdAt: ZIsoDateTime,
  })
  .meta({ id: 'IdentitySecret' })
export type IdentitySecret = z.infer<typeof ZIdentitySecret>
