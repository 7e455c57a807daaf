import { type AuditBy, recordAudit } from '../audit/index.ts'
import { forgetPlan, STALE_REPLY_MS } from '../chat/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { AppError } from '../http/app-error.ts'
import type { ApiKeyActor } from '../http/types.ts'
import { aliveAfter } from '../instances/liveness.ts'
import * as store from './store.ts'

/**
 * Privacy requests: a conversation or a call goes with everything said in it, in one transaction
 * with the entry of the deletion log (who asked, when; never the content). The ledger keeps its
 * rows: what was paid stays paid.
 */

/**
 * DELETE /v1/conversations/{id}: its messages, and the transcripts of the calls that continued
 * it (the calls stay, without a word of what was said). A reply streaming right now is 409.
 */
export const deleteConversation = async (
  ctx: AppContext,
  { actor, by, conversationId }: { actor: ApiKeyActor; by: AuditBy; conversationId: string },
) => {
  await ctx.db.transaction().execute(async (tx) => {
    // A reply streams only on a live instance: the slot of one whose instance died (kill -9)
    // would otherwise refuse the deletion until the session expired, and stop cannot reach it.
    const conversation = await tx
      .selectFrom('conversations')
      .select((eb) => [
        'id',
        eb
          .and([
            eb('reply_started_at', '>=', new Date(Date.now() - STALE_REPLY_MS)),
            eb.exists(
              eb
                .selectFrom('server_instances')
                .select('server_instances.id')
                .whereRef('server_instances.id', '=', 'conversations.reply_instance_id')
                .where('server_instances.last_seen_at', '>=', aliveAfter(ctx)),
            ),
          ])
          .as('isReplyStreaming'),
      ])
      .where('organization_id', '=', actor.organizationId)
      .where('id', '=', conversationId)
      .forUpdate()
      .executeTakeFirst()
    if (!conversation) throw AppError.notFound('conversation')
    if (conversation.isReplyStreaming)
      throw AppError.conflict('A reply is streaming in this conversation: stop it, then delete')
    await tx
      .deleteFrom('call_transcript_lines')
      .where('call_id', 'in', (eb) =>
        eb.selectFrom('calls').select('id').where('conversation_id', '=', conversationId),
      )
      .execute()
    await tx.deleteFrom('conversations').where('id', '=', conversationId).execute()
    await store.logDeletion(tx, {
      id: newUlid(),
      organizationId: actor.organizationId,
      kind: 'conversation',
      targetId: conversationId,
      keyId: actor.keyId,
      userId: actor.member?.userId ?? null,
    })
    await recordAudit(tx, by, {
      organizationId: actor.organizationId,
      action: 'conversation.deleted',
      target: { kind: 'conversation', id: conversationId },
    })
  })
  forgetPlan(ctx, conversationId)
  ctx.logger.info({ conversationId, keyId: actor.keyId }, 'conversation deleted on request')
  return { success: true as const, data: { id: conversationId, deleted: true as const } }
}

/**
 * DELETE /v1/calls/{id}: the call, its transcript and what it added to a conversation it
 * continued. A live call is 409: end it first.
 */
export const deleteCall = async (
  ctx: AppContext,
  { actor, by, callId }: { actor: ApiKeyActor; by: AuditBy; callId: string },
) => {
  await ctx.db.transaction().execute(async (tx) => {
    const call = await tx
      .selectFrom('calls')
      .select(['id', 'status'])
      .where('organization_id', '=', actor.organizationId)
      .where('id', '=', callId)
      .forUpdate()
      .executeTakeFirst()
    if (!call) throw AppError.notFound('call')
    if (call.status === 'active') throw AppError.conflict('The call is live: end it, then delete it')
    await tx.deleteFrom('chat_messages').where('call_id', '=', callId).execute()
    await tx.deleteFrom('calls').where('id', '=', callId).execute()
    await store.logDeletion(tx, {
      id: newUlid(),
      organizationId: actor.organizationId,
      kind: 'call',
      targetId: callId,
      keyId: actor.keyId,
      userId: actor.member?.userId ?? null,
    })
    await recordAudit(tx, by, {
      organizationId: actor.organizationId,
      action: 'call.deleted',
      target: { kind: 'call', id: callId },
    })
  })
  ctx.logger.info({ callId, keyId: actor.keyId }, 'call deleted on request')
  return { success: true as const, data: { id: callId, deleted: true as const } }
}

/** GET /v1/deletions: the organization's deletion log, newest first (the latest 500). */
export const listDeletions = async (ctx: AppContext, organizationId: string) => ({
  success: true as const,
  data: (await store.listDeletions(ctx.db, organizationId)).map((row) => ({
    id: row.id,
    kind: row.kind,
    targetId: row.target_id,
    deletedByKeyId: row.deleted_by_key_id,
    deletedByUserId: row.deleted_by_user_id ?? null,
    createdAt: row.created_at.toISOString(),
  })),
})
