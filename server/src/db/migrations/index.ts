import type { Migration } from 'kysely'
import * as accounts from './0001-accounts.ts'
import * as keysAndAgents from './0002-keys-and-agents.ts'
import * as idempotencyKeys from './0003-idempotency-keys.ts'
import * as agentSettings from './0004-agent-settings.ts'
import * as conversations from './0005-conversations.ts'
import * as webhookDeliveries from './0006-webhook-deliveries.ts'
import * as chat from './0007-chat.ts'
import * as chatAnalysis from './0008-chat-analysis.ts'
import * as calls from './0009-calls.ts'
import * as batch from './0010-batch.ts'
import * as callPresence from './0011-call-presence.ts'
import * as fallbackModel from './0014-fallback-model.ts'
import * as oneConversation from './0019-one-conversation.ts'
import * as creditHolds from './0020-credit-holds.ts'
import * as instanceLiveness from './0021-instance-liveness.ts'
import * as conversationSearch from './0022-conversation-search.ts'
import * as deletions from './0023-deletions.ts'
import * as exportsTable from './0024-exports.ts'
import * as ownerData from './0026-owner-data.ts'
import * as conversationCounters from './0027-conversation-counters.ts'
import * as dialLiveness from './0028-dial-liveness.ts'
import * as visitorIdentity from './0029-visitor-identity.ts'
import * as invitationConsent from './0030-invitation-consent.ts'
import * as overdraftAndReplyHolds from './0031-overdraft-and-reply-holds.ts'
import * as exportLiveness from './0032-export-liveness.ts'
import * as knowledge from './0035-knowledge.ts'
import * as agentKnowledge from './0036-agent-knowledge.ts'
import * as messageSources from './0037-message-sources.ts'
import * as knowledgeSearchIndex from './0038-knowledge-search-index.ts'
import * as callLineIds from './0040-call-line-ids.ts'
import * as callEvents from './0045-call-events.ts'
import * as callTransfers from './0048-call-transfers.ts'
import * as agentVersions from './0055-agent-versions.ts'
import * as agentTests from './0056-agent-tests.ts'
import * as auditLog from './0060-audit-log.ts'
import * as retention from './0061-retention.ts'
import * as batchFailedWebhook from './0065-batch-failed-webhook.ts'
import * as doNotCall from './0066-do-not-call.ts'
import * as optedOutWebhook from './0067-opted-out-webhook.ts'
import * as callOutcomes from './0068-call-outcomes.ts'
import * as retryPolicy from './0069-retry-policy.ts'
import * as agentVoicemail from './0071-agent-voicemail.ts'
import * as inboundNumbers from './0072-inbound-numbers.ts'
import * as inboundCalls from './0073-inbound-calls.ts'
import * as voiceAnalysisFallbacks from './0075-voice-analysis-fallbacks.ts'
import * as callVoicePrice from './0076-call-voice-price.ts'
import * as agentTestRunLiveness from './0077-agent-test-run-liveness.ts'
import * as conversationAgentDraft from './0078-conversation-agent-draft.ts'
import * as knowledgeTenantIndex from './0080-knowledge-tenant-index.ts'
import * as callEndHold from './0081-call-end-hold.ts'
import * as voiceAgentTestRuns from './0086-voice-agent-test-runs.ts'
import * as placeCreditHold from './0087-place-credit-hold.ts'
import * as coverCreditHold from './0088-cover-credit-hold.ts'

/** Every migration, in order. Names sort lexically; never rename or edit a shipped one. */
export const migrations: Record<string, Migration> = {
  '0001-accounts': accounts,
  '0002-keys-and-agents': keysAndAgents,
  '0003-idempotency-keys': idempotencyKeys,
  '0004-agent-settings': agentSettings,
  '0005-conversations': conversations,
  '0006-webhook-deliveries': webhookDeliveries,
  '0007-chat': chat,
  '0008-chat-analysis': chatAnalysis,
  '0009-calls': calls,
  '0010-batch': batch,
  '0011-call-presence': callPresence,
  '0014-fallback-model': fallbackModel,
  '0019-one-conversation': oneConversation,
  '0020-credit-holds': creditHolds,
  '0021-instance-liveness': instanceLiveness,
  '0022-conversation-search': conversationSearch,
  '0023-deletions': deletions,
  '0024-exports': exportsTable,
  '0026-owner-data': ownerData,
  '0027-conversation-counters': conversationCounters,
  '0028-dial-liveness': dialLiveness,
  '0029-visitor-identity': visitorIdentity,
  '0030-invitation-consent': invitationConsent,
  '0031-overdraft-and-reply-holds': overdraftAndReplyHolds,
  '0032-export-liveness': exportLiveness,
  '0035-knowledge': knowledge,
  '0036-agent-knowledge': agentKnowledge,
  '0037-message-sources': messageSources,
  '0038-knowledge-search-index': knowledgeSearchIndex,
  '0040-call-line-ids': callLineIds,
  '0045-call-events': callEvents,
  '0048-call-transfers': callTransfers,
  '0055-agent-versions': agentVersions,
  '0056-agent-tests': agentTests,
  '0060-audit-log': auditLog,
  '0061-retention': retention,
  '0065-batch-failed-webhook': batchFailedWebhook,
  '0066-do-not-call': doNotCall,
  '0067-opted-out-webhook': optedOutWebhook,
  '0068-call-outcomes': callOutcomes,
  '0069-retry-policy': retryPolicy,
  '0071-agent-voicemail': agentVoicemail,
  '0072-inbound-numbers': inboundNumbers,
  '0073-inbound-calls': inboundCalls,
  '0075-voice-analysis-fallbacks': voiceAnalysisFallbacks,
  '0076-call-voice-price': callVoicePrice,
  '0077-agent-test-run-liveness': agentTestRunLiveness,
  '0078-conversation-agent-draft': conversationAgentDraft,
  '0080-knowledge-tenant-index': knowledgeTenantIndex,
  '0081-call-end-hold': callEndHold,
  '0086-voice-agent-test-runs': voiceAgentTestRuns,
  '0087-place-credit-hold': placeCreditHold,
  '0088-cover-credit-hold': coverCreditHold,
}
