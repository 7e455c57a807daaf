import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import createFetchClient, { type Client } from 'openapi-fetch'
import type { components, paths } from './schema.gen.ts'

/**
 * @parley/client: every operation of the Parley API, typed from its OpenAPI document
 * (client/openapi.json, the document the server serves; `npm run build` generates
 * src/schema.gen.ts from it with openapi-typescript). `client.api` is openapi-fetch over those
 * types; the helpers below add what a plain request/response client cannot: the chat reply as a
 * typed async iterator that resumes, CSV batch upload, cursor pagination, webhook verification.
 */

export type { components, paths }
export type Schemas = components['schemas']
/** An event of the chat reply stream, discriminated by `event`. */
export type ChatStreamEvent = Schemas['ChatStreamEvent']
export type ChatStreamEventName = ChatStreamEvent['event']
/** An event of the batch progress stream (`progress`, then `end`). */
export type BatchStreamEvent = Schemas['BatchStreamEvent']
/** Every event an agent's webhook endpoint receives. */
export type WebhookEvent =
  | Schemas['ChatEndedEvent']
  | Schemas['CallEndedEvent']
  | Schemas['ConversationAnalyzedEvent']
  | Schemas['CallAnalyzedEvent']
  | Schemas['BatchCompletedEvent']
  | Schemas['BatchFailedEvent']
  | Schemas['PingEvent']

type ErrorBody = { code?: string; error?: string; detail?: string }

/** A refused request: the status, the contract's machine code and its words. */
export class ParleyError extends Error {
  readonly status: number
  readonly code: string
  readonly body: unknown

  constructor(status: number, body: unknown) {
    const { code = 'unknown', error, detail } = (body ?? {}) as ErrorBody
    super(`${status} ${code}: ${error ?? detail ?? 'request refused'}`)
    this.name = 'ParleyError'
    this.status = status
    this.code = code
    this.body = body
  }
}

/** The data of an openapi-fetch answer, or a ParleyError with the refusal. */
export const unwrap = <Data>(result: { data?: Data; error?: unknown; response: Response }): Data => {
  if (result.error !== undefined || !result.response.ok)
    throw new ParleyError(result.response.status, result.error)
  return result.data as Data
}

export type ParleyClientOptions = {
  /** e.g. https://parley.example.com (no trailing /v1). */
  baseUrl: string
  /** A secret API key, sent as X-API-Key. */
  apiKey?: string
  /** A studio session token (POST /api/auth/login), sent as Authorization: Bearer (studio routes). */
  studioToken?: string
  fetch?: typeof globalThis.fetch
}

export type ChatSessionRef = { conversation_id: string; session_token: string }

export type ReplyOptions = {
  /** One key per message; the same key and message again resume that reply. A UUID by default. */
  idempotencyKey?: string
  /** The id of the last event already received: the reply continues after it. */
  lastEventId?: number
  /** How many times a dropped stream is resumed before giving up (3 unless given). */
  resumes?: number
  signal?: AbortSignal
}

/** The reply being streamed, with what resuming it takes. */
export type ChatReply = AsyncIterable<ChatStreamEvent> & {
  readonly idempotencyKey: string
  /** The id of the last event received so far. */
  readonly lastEventId: number | undefined
}

const isFinal = (event: ChatStreamEvent) => event.event === 'stream_end' || event.event === 'error'

/** Events of an SSE body, as they arrive. */
async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const queue: EventSourceMessage[] = []
  const parser = createParser({ onEvent: (message) => queue.push(message) })
  const decoder = new TextDecoder()
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }))
    while (queue.length > 0) yield queue.shift() as EventSourceMessage
  }
}

/** Cursor pages: calls `fetchPage` with each page's nextCursor until it is null. */
export async function* pages<Page extends { nextCursor?: string | null }>(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
): AsyncGenerator<Page> {
  let cursor: string | undefined
  do {
    const page = await fetchPage(cursor)
    yield page
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined)
}

/** Every item of every cursor page, `itemsOf` picking a page's items. */
export async function* items<Page extends { nextCursor?: string | null }, Item>(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  itemsOf: (page: Page) => Item[],
): AsyncGenerator<Item> {
  for await (const page of pages(fetchPage)) yield* itemsOf(page)
}

/**
 * Whether `body` (the raw request body, as received) is signed by `secret` in
 * `signatureHeader` (X-Parley-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t.body)>),
 * no older than `toleranceSeconds`. Answers the event, typed, or null.
 */
export const verifyWebhook = (
  body: string,
  signatureHeader: string | null | undefined,
  secret: string,
  { toleranceSeconds = 300, now = Date.now() }: { toleranceSeconds?: number; now?: number } = {},
): WebhookEvent | null => {
  const parts = new Map(
    (signatureHeader ?? '').split(',').map((part) => {
      const at = part.indexOf('=')
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const
    }),
  )
  const timestamp = Number(parts.get('t'))
  const given = parts.get('v1') ?? ''
  if (!Number.isInteger(timestamp) || !/^[0-9a-f]{64}$/i.test(given)) return null
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return null
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest()
  if (!timingSafeEqual(Buffer.from(given, 'hex'), expected)) return null
  return JSON.parse(body) as WebhookEvent
}

/** POST /batch/create's JSON body. */
export type JsonBatch = NonNullable<
  paths['/batch/create']['post']['requestBody']
>['content']['application/json']

export type CsvBatch = Omit<Schemas['BatchCreateForm'], 'file'> & {
  /** The CSV: text, or a Blob/File (a `phone` column; the others become {{placeholders}}). */
  file: string | Blob
  fileName?: string
}

/** A client for one server and credential. */
export const createParleyClient = ({ baseUrl, apiKey, studioToken, fetch }: ParleyClientOptions) => {
  const root = baseUrl.replace(/\/+$/, '')
  const api: Client<paths> = createFetchClient<paths>({
    baseUrl: root,
    headers: {
      ...(apiKey ? { 'X-API-Key': apiKey } : {}),
      ...(studioToken ? { Authorization: `Bearer ${studioToken}` } : {}),
    },
    ...(fetch ? { fetch } : {}),
  })

  /** One send (or resume) of a message; the raw event stream. */
  const openReply = async (session: ChatSessionRef, message: string, key: string, lastEventId?: number) => {
    const result = await api.POST('/v1/chat/sessions/{conversation_id}/messages', {
      params: {
        path: { conversation_id: session.conversation_id },
        header: {
          'idempotency-key': key,
          ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}),
        },
      },
      headers: { Authorization: `Bearer ${session.session_token}`, 'X-API-Key': null },
      body: { message },
      parseAs: 'stream',
    })
    if (!result.response.ok || !result.response.body)
      throw new ParleyError(result.response.status, await result.response.json().catch(() => undefined))
    return result.response.body
  }

  /**
   * Sends `message` and yields the reply's events as they stream, each typed by its name. A
   * stream that drops before `stream_end` or `error` is resumed (same Idempotency-Key, with
   * Last-Event-ID), so no event is seen twice or missed.
   */
  const reply = (session: ChatSessionRef, message: string, options: ReplyOptions = {}): ChatReply => {
    const idempotencyKey = options.idempotencyKey ?? randomUUID()
    let lastEventId = options.lastEventId
    const resumes = options.resumes ?? 3
    async function* run(): AsyncGenerator<ChatStreamEvent> {
      for (let attempt = 0; attempt <= resumes; attempt += 1) {
        const body = await openReply(session, message, idempotencyKey, lastEventId)
        try {
          for await (const raw of readEvents(body)) {
            const event = {
              event: raw.event,
              ...(raw.id ? { id: Number(raw.id) } : {}),
              data: JSON.parse(raw.data),
            } as ChatStreamEvent
            if (event.id !== undefined) lastEventId = event.id
            yield event
            if (isFinal(event)) return
          }
        } catch (error) {
          if (options.signal?.aborted) throw error
        }
      }
      throw new ParleyError(0, { code: 'stream_dropped', detail: 'The reply stream kept dropping' })
    }
    return {
      idempotencyKey,
      get lastEventId() {
        return lastEventId
      },
      [Symbol.asyncIterator]: run,
    }
  }

  const chatHeaders = (session: ChatSessionRef) => ({
    Authorization: `Bearer ${session.session_token}`,
    'X-API-Key': null,
  })

  return {
    /** Every operation, typed: `api.GET('/v1/agents', { params: { query: { limit: 10 } } })`. */
    api,
    chat: {
      /** POST /v1/chat/sessions with the client's key. */
      createSession: async (body: Schemas['CreateChatSessionRequest']) =>
        unwrap(await api.POST('/v1/chat/sessions', { body })),
      reply,
      /** The reply's text, once it is complete. */
      replyText: async (session: ChatSessionRef, message: string, options?: ReplyOptions) => {
        let text = ''
        for await (const event of reply(session, message, options)) {
          if (event.event === 'chunk') text += event.data.delta
          if (event.event === 'error')
            throw new ParleyError(200, { code: 'reply_error', detail: event.data.error })
        }
        return text
      },
      history: async (session: ChatSessionRef, query: { limit?: number; offset?: number } = {}) =>
        unwrap(
          await api.GET('/v1/chat/sessions/{conversation_id}/messages', {
            params: { path: { conversation_id: session.conversation_id }, query },
            headers: chatHeaders(session),
          }),
        ),
      stop: async (session: ChatSessionRef) =>
        unwrap(
          await api.POST('/v1/chat/sessions/{conversation_id}/messages/stop', {
            params: { path: { conversation_id: session.conversation_id } },
            headers: chatHeaders(session),
          }),
        ),
      end: async (session: ChatSessionRef) =>
        unwrap(
          await api.POST('/v1/chat/sessions/{conversation_id}/end', {
            params: { path: { conversation_id: session.conversation_id } },
            headers: chatHeaders(session),
          }),
        ),
    },
    batch: {
      /** POST /batch/create with JSON contacts. */
      createFromJson: async (body: JsonBatch) => unwrap(await api.POST('/batch/create', { body })),
      /** POST /batch/create with a CSV file (multipart/form-data). */
      createFromCsv: async ({ file, fileName = 'contacts.csv', ...fields }: CsvBatch) => {
        const form = new FormData()
        for (const [name, value] of Object.entries(fields))
          if (value !== undefined && value !== null)
            form.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value))
        form.append(
          'file',
          typeof file === 'string' ? new Blob([file], { type: 'text/csv' }) : file,
          fileName,
        )
        return unwrap(
          await api.POST('/batch/create', {
            body: fields as unknown as JsonBatch,
            bodySerializer: () => form,
          }),
        )
      },
      /** The job's progress events, typed, until `end`. */
      events: async function* (batchJobId: string): AsyncGenerator<BatchStreamEvent> {
        const result = await api.GET('/batch/{batchJobId}/events', {
          params: { path: { batchJobId } },
          parseAs: 'stream',
        })
        if (!result.response.ok || !result.response.body)
          throw new ParleyError(result.response.status, await result.response.json().catch(() => undefined))
        for await (const raw of readEvents(result.response.body)) {
          const event = {
            event: raw.event,
            ...(raw.id ? { id: Number(raw.id) } : {}),
            data: JSON.parse(raw.data),
          }
          yield event as BatchStreamEvent
          if (event.event === 'end') return
        }
      },
    },
    /** Every conversation matching `query`, across cursor pages. */
    conversations: (query: NonNullable<paths['/v1/conversations']['get']['parameters']['query']> = {}) =>
      items(
        async (cursor) =>
          unwrap(
            await api.GET('/v1/conversations', {
              params: { query: { ...query, ...(cursor ? { cursor } : {}) } },
            }),
          ),
        (page) => page.data,
      ),
    /** Every call matching `query`, across cursor pages. */
    calls: (query: NonNullable<paths['/v1/calls']['get']['parameters']['query']> = {}) =>
      items(
        async (cursor) =>
          unwrap(
            await api.GET('/v1/calls', { params: { query: { ...query, ...(cursor ? { cursor } : {}) } } }),
          ),
        (page) => page.data,
      ),
  }
}

export type ParleyClient = ReturnType<typeof createParleyClient>
