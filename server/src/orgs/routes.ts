import {
  ZDeclinedInvitation,
  ZIdentitySecret,
  ZInvitationList,
  ZInvitationParams,
  ZInviteMember,
  ZLedgerQuery,
  ZLogin,
  ZMember,
  ZMemberList,
  ZOrganizationLedger,
  ZOrgIdParams,
  ZSession,
  ZSignup,
  ZSwitchOrganization,
  ZV1Organization,
} from '@parley/shared'
import { auditByOf } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { apiKeyActorOf, studioActorOf } from '../http/authentication.ts'
import { limitSignIn, limitSignUp } from '../http/guess-limits.ts'
import type { RouteTable } from '../http/route-table.ts'
import { readIdentitySecret, rotateIdentitySecret } from './identity-secret.ts'
import * as orgs from './service.ts'

const tag = 'Accounts'

export const registerOrganizationRoutes = (routes: RouteTable, ctx: AppContext) => {
  routes.add({
    method: 'post',
    path: '/api/auth/signup',
    summary: 'Create an account and its organization (with trial credits)',
    tag,
    auth: 'none',
    body: ZSignup,
    status: 201,
    response: ZSession,
    errors: [429],
    handle: async ({ body, req, res }) => {
      await limitSignUp(ctx, { req, res })
      return orgs.signup(ctx, body)
    },
  })

  routes.add({
    method: 'post',
    path: '/api/auth/login',
    summary: 'Log in; the first organization becomes active',
    tag,
    auth: 'none',
    body: ZLogin,
    response: ZSession,
    errors: [401, 429],
    handle: ({ body, req, res }) =>
      limitSignIn(ctx, { req, res, email: body.email }, () => orgs.login(ctx, body)),
  })

  routes.add({
    method: 'post',
    path: '/api/auth/switch-organization',
    summary: 'Issue a token whose active organization is another one of the user',
    tag,
    auth: 'studio',
    body: ZSwitchOrganization,
    response: ZSession,
    errors: [404],
    handle: ({ body, req }) => orgs.switchOrganization(ctx, studioActorOf(req), body),
  })

  routes.add({
    method: 'get',
    path: '/api/auth/session',
    summary: 'The user and organizations behind the presented token',
    tag,
    auth: 'studio',
    response: ZSession.omit({ token: true, expiresAt: true }),
    handle: ({ req }) => orgs.describeSession(ctx, studioActorOf(req)),
  })

  routes.add({
    method: 'get',
    path: '/api/organizations/{orgId}/members',
    summary: 'Members and pending invitations of an organization',
    tag,
    auth: 'studio',
    params: ZOrgIdParams,
    response: ZMemberList,
    errors: [404],
    handle: async ({ params, req }) => ({
      members: await orgs.listMembers(ctx, studioActorOf(req), params.orgId),
    }),
  })

  routes.add({
    method: 'post',
    path: '/api/organizations/{orgId}/members',
    summary:
      'Invite someone by email (owners: any role; admins: members only); they join when they accept it. The answer never says whether the email has an account',
    tag,
    auth: 'studio',
    params: ZOrgIdParams,
    body: ZInviteMember,
    status: 201,
    response: ZMember,
    errors: [403, 404, 409],
    handle: ({ params, body, req }) =>
      orgs.inviteMember(ctx, studioActorOf(req), {
        organizationId: params.orgId,
        invitation: body,
        by: auditByOf(req),
      }),
  })

  routes.add({
    method: 'get',
    path: '/api/organizations/{orgId}/identity-secret',
    summary:
      'The identity secret that signs visitors’ user_identifier as user_hash (owners and admins; made when first asked for)',
    tag,
    auth: 'studio',
    params: ZOrgIdParams,
    response: ZIdentitySecret,
    errors: [403, 404],
    handle: ({ params, req }) => readIdentitySecret(ctx, studioActorOf(req), params.orgId),
  })

  routes.add({
    method: 'post',
    path: '/api/organizations/{orgId}/identity-secret/rotate',
    summary: 'Replace the identity secret: user_hash values made with the old one stop working at once',
    tag,
    auth: 'studio',
    params: ZOrgIdParams,
    response: ZIdentitySecret,
    errors: [403, 404],
    handle: ({ params, req }) => rotateIdentitySecret(ctx, studioActorOf(req), params.orgId, auditByOf(req)),
  })

  routes.add({
    method: 'get',
    path: '/api/invitations',
    summary: 'Invitations waiting for the signed-in account (addressed to its email, not expired)',
    tag,
    auth: 'studio',
    response: ZInvitationList,
    handle: ({ req }) => orgs.listMyInvitations(ctx, studioActorOf(req)),
  })

  routes.add({
    method: 'post',
    path: '/api/invitations/{invitationId}/accept',
    summary: 'Accept an invitation: the account joins its organization (the session answered anew)',
    tag,
    auth: 'studio',
    params: ZInvitationParams,
    response: ZSession,
    errors: [404, 410],
    handle: ({ params, req }) =>
      orgs.acceptInvitation(ctx, studioActorOf(req), params.invitationId, auditByOf(req)),
  })

  routes.add({
    method: 'post',
    path: '/api/invitations/{invitationId}/decline',
    summary: 'Decline an invitation',
    tag,
    auth: 'studio',
    params: ZInvitationParams,
    response: ZDeclinedInvitation,
    errors: [404, 410],
    handle: ({ params, req }) => orgs.declineInvitation(ctx, studioActorOf(req), params.invitationId),
  })

  routes.add({
    method: 'get',
    path: '/api/organizations/{orgId}/ledger',
    summary: 'The credit balance and ledger of an organization, newest first (owners and admins)',
    tag,
    auth: 'studio',
    params: ZOrgIdParams,
    query: ZLedgerQuery,
    response: ZOrganizationLedger,
    errors: [403, 404],
    handle: ({ params, query, req }) =>
      orgs.readLedger(ctx, studioActorOf(req), { organizationId: params.orgId, query }),
  })

  routes.add({
    method: 'get',
    path: '/v1/organization',
    summary: 'The organization of the API key: tier, rate limit and credit balance',
    tag,
    auth: 'apiKey',
    response: ZV1Organization,
    handle: async ({ req }) => ({
      success: true as const,
      data: await orgs.describeOrganization(ctx, apiKeyActorOf(req).organizationId),
    }),
  })
}
