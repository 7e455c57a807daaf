import { OutboundError, outboundFetch } from '@parley/platform'
import type { WebhookEventName } from '@parley/shared'
import { readWebhookSecret } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { pageWindow } from '../http/pagination.ts'
import { recordWebhookAttempt } from '../metrics/index.ts'
import { inSpan } from '../tracing/index.ts'
import { signWebhook } from './signature.ts'
import * as store from './store.ts'

export const WEBHOOK_JOB = 'webhook.deliver'
export const WEBHOOK_MAX_ATTEMPTS = 5
/** How much of an endpoint's answer a delivery keeps, for the owner reading why it failed. */
const RESPONSE_EXCERPT = 1000

/** Exponential back-off: base, 4×, 16×, 64× (10 s … about 11 min with the default base). */
const delayAfter = (attempt: number, baseMs: number) => baseMs * 4 ** (attempt - 1)

export type WebhookEvent = {
  organizationId: string
  agentId: string
  url: string
  event: string
  data: Record<string, unknown>
}

/** The agent fields that decide whether an event is sent, and where. */
export type WebhookSubscriber = {
  id: string
  organizationId: string
  webhookUrl: string | null
  webhookEvents: readonly WebhookEventName[]
}

/**
 * Queues `event` for the agent's endpoint when it has one and subscribes to the event (every
 * event unless the agent named fewer); answers the delivery id, or null when nothing is sent.
 */
export const notifyAgent = async (
  ctx: AppContext,
  agent: WebhookSubscriber,
  event: WebhookEventName,
  data: Record<string, unknown>,
) => {
  if (!agent.webhookUrl || !agent.webhookEvents.includes(event)) return null
  return enqueueWebhook(ctx, {
    organizationId: agent.organizationId,
    agentId: agent.id,
    url: agent.webhookUrl,
    event,
    data,
  })
}

/** Records the delivery and queues its first attempt; the caller never waits on the customer. */
export const enqueueWebhook = async (ctx: AppContext, webhook: WebhookEvent) => {
  const id = newUlid()
  const payload = { event: webhook.event, timestamp: new Date().toISOString(), data: webhook.data }
  await store.insertDelivery(ctx.db, { id, ...webhook, payload })
  await ctx.jobs.now(WEBHOOK_JOB, { deliveryId: id })
  return id
}

const describeFailure = (error: unknown) =>
  error instanceof OutboundError ? `${error.reason}: ${error.message}` : 'delivery failed'

/**
 * One attempt: sign, POST with a time-out (WEBHOOK_TIMEOUT_MS, the spec's 7 s), record the
 * outcome, schedule the next try on failure (not for a test ping: its one answer is the point).
 */
export const deliverWebhook = async (ctx: AppContext, deliveryId: string, { retries = true } = {}) => {
  const delivery = await store.findDelivery(ctx.db, deliveryId)
  if (delivery?.status !== 'pending') return
  const secret = await readWebhookSecret(ctx, {
    organizationId: delivery.organizationId,
    agentId: delivery.agentId,
  })
  const attempt = delivery.attempts + 1
  let statusCode: number | null = null
  let error: string | null = null
  let answer: string | null = null
  if (secret === null) {
    error = 'the agent was deleted'
  } else {
    const body = JSON.stringify(delivery.payload)
    try {
      const response = await inSpan(
        `webhook ${delivery.event}`,
        { 'parley.webhook.event': delivery.event, 'parley.webhook.attempt': attempt },
        () =>
          outboundFetch({
            url: delivery.url,
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-parley-signature': signWebhook({ secret, body, timestamp: Math.floor(Date.now() / 1000) }),
              'x-parley-event': delivery.event,
              'x-parley-delivery': delivery.id,
            },
            body,
            timeoutMs: ctx.config.webhookTimeoutMs,
            maxBytes: 64 * 1024,
            allowHosts: [...ctx.config.outboundAllowHosts],
          }),
        { kind: 'client' },
      )
      statusCode = response.status
      answer = response.bodyText.slice(0, RESPONSE_EXCERPT)
      if (response.status < 200 || response.status >= 300) error = `the endpoint answered ${response.status}`
    } catch (caught) {
      error = describeFailure(caught)
    }
  }
  const isFinal = error === null || secret === null || !retries || attempt >= WEBHOOK_MAX_ATTEMPTS
  const nextAttemptAt = isFinal
    ? null
    : new Date(Date.now() + delayAfter(attempt, ctx.config.webhookRetryBaseMs))
  await store.recordAttempt(ctx.db, {
    id: delivery.id,
    status: error === null ? 'succeeded' : isFinal ? 'failed' : 'pending',
    statusCode,
    error,
    response: answer,
    nextAttemptAt,
  })
  recordWebhookAttempt(error === null ? 'succeeded' : isFinal ? 'failed' : 'retrying')
  if (nextAttemptAt) await ctx.jobs.schedule(nextAttemptAt, WEBHOOK_JOB, { deliveryId: delivery.id })
}

/**
 * Sends `event` now, once, and answers the delivery as its attempt left it (a test ping, a
 * redelivery's first try); a failed redelivery goes on retrying like any delivery.
 */
export const sendNow = async (
  ctx: AppContext,
  webhook: WebhookEvent & { payload?: Record<string, unknown> },
  { retries }: { retries: boolean },
) => {
  const id = newUlid()
  const payload = webhook.payload ?? {
    event: webhook.event,
    timestamp: new Date().toISOString(),
    data: webhook.data,
  }
  await store.insertDelivery(ctx.db, { id, ...webhook, payload })
  await deliverWebhook(ctx, id, { retries })
  const delivery = await store.findDelivery(ctx.db, id)
  if (!delivery) throw new Error(`delivery ${id} vanished`)
  return delivery
}

export const findDelivery = store.findDelivery

export const registerWebhookJobs = (ctx: AppContext) => {
  ctx.jobs.define<{ deliveryId: string }>(WEBHOOK_JOB, ({ deliveryId }) => deliverWebhook(ctx, deliveryId))
}

export const listDeliveries = (
  ctx: AppContext,
  query: { organizationId: string; agentId: string; page: number; limit: number },
) => store.listDeliveries(ctx.db, { ...query, ...pageWindow(query) })
