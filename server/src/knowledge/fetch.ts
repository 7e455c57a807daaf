import { createHash } from 'node:crypto'
import { followOutboundRedirects, OutboundError } from '@parley/platform'
import { detectFileType, type FileType } from './file-type.ts'

export const USER_AGENT = 'ParleyBot/1.0 (+knowledge sources)'
const FETCH_TIMEOUT_MS = 15_000

export type FetchedPage =
  | { outcome: 'unchanged'; url: string; etag: string | null }
  | {
      outcome: 'fetched'
      url: string
      bytes: Buffer
      type: FileType
      etag: string | null
      contentHash: string
    }
  | { outcome: 'failed'; url: string; reason: string }

export type FetchRules = {
  allowHosts: readonly string[]
  maxBytes: number
  /** A redirect may lead only where this allows (a site stays on its host). */
  isHopAllowed?: (url: URL) => boolean
}

export const hashOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/**
 * One document over the outbound rules custom functions use (https, public addresses checked at
 * connect, each redirect hop checked again). An ETag known from the last fetch is sent back, and
 * a body whose hash is the known one counts as unchanged too.
 */
export const fetchDocument = async (
  url: string,
  { known, ...rules }: FetchRules & { known?: { etag: string | null; contentHash: string | null } },
): Promise<FetchedPage> => {
  try {
    const response = await followOutboundRedirects({
      url,
      headers: {
        'user-agent': USER_AGENT,
        accept: 'text/html, application/pdf, text/markdown, text/plain, text/csv, */*;q=0.5',
        ...(known?.etag ? { 'if-none-match': known.etag } : {}),
      },
      timeoutMs: FETCH_TIMEOUT_MS,
      maxBytes: rules.maxBytes,
      allowHosts: rules.allowHosts,
      ...(rules.isHopAllowed ? { isHopAllowed: rules.isHopAllowed } : {}),
    })
    const etag = response.headers.etag ?? null
    if (response.status === 304) return { outcome: 'unchanged', url: response.url, etag: known?.etag ?? etag }
    if (response.status >= 400) return { outcome: 'failed', url, reason: `HTTP ${response.status}` }
    const contentHash = hashOf(response.body)
    if (known?.contentHash === contentHash) return { outcome: 'unchanged', url: response.url, etag }
    const type = detectFileType({
      bytes: response.body,
      name: new URL(response.url).pathname,
      contentType: response.headers['content-type'] ?? '',
    })
    if (!type) return { outcome: 'failed', url, reason: 'not a document type knowledge reads' }
    return { outcome: 'fetched', url: response.url, bytes: response.body, type, etag, contentHash }
  } catch (error) {
    if (error instanceof OutboundError) return { outcome: 'failed', url, reason: error.message }
    throw error
  }
}
