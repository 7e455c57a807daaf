import { createHmac, timingSafeEqual } from 'node:crypto'

/** `X-Parley-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`, as Stripe signs. */
export const signWebhook = ({
  secret,
  body,
  timestamp,
}: {
  secret: string
  body: string
  timestamp: number
}) => `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`

/** What a receiver runs: the signature matches and is no older than `toleranceSeconds`. */
export const verifyWebhook = ({
  secret,
  body,
  header,
  toleranceSeconds = 300,
  now = Date.now(),
}: {
  secret: string
  body: string
  header: string
  toleranceSeconds?: number
  now?: number
}) => {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]))
  const timestamp = Number(parts.t)
  if (!Number.isInteger(timestamp) || !parts.v1) return false
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false
  const expected = Buffer.from(signWebhook({ secret, body, timestamp }).split('v1=')[1] ?? '', 'hex')
  const given = Buffer.from(parts.v1, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}
