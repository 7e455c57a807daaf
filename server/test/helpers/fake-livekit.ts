import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AccessToken, type ClaimGrants, TokenVerifier } from 'livekit-server-sdk'

/**
 * A real loopback HTTP server speaking LiveKit's Twirp JSON API the way livekit-server-sdk calls
 * it, so the real SDK (auth header, request encoding, error decoding) runs in tests. It records
 * every call and checks nothing itself: tests verify the Authorization JWT with `claimsOf`.
 */

export type TwirpCall = {
  /** e.g. `RoomService/CreateRoom` */
  method: string
  body: Record<string, unknown>
  authorization: string | undefined
}

/**
 * How CreateSIPParticipant answers for one number. `hold` keeps the dial ringing until
 * `releaseSip` is called (deterministic in-flight counts without timers).
 */
export type SipScript =
  | { result: 'answered'; delayMs?: number; hold?: boolean }
  | { result: 'busy' | 'no_answer' | 'declined' | 'timeout' | 'error'; delayMs?: number; hold?: boolean }

type TwirpFailure = { status: number; code: string; msg: string; meta?: Record<string, string> }

// What LiveKit's SIP service answers (Twirp code, HTTP status, SIP status in `meta`).
const sipFailures: Record<Exclude<SipScript['result'], 'answered'>, TwirpFailure> = {
  busy: {
    status: 503,
    code: 'unavailable',
    msg: 'sip call failed',
    meta: { sip_status_code: '486', sip_status: 'Busy Here' },
  },
  no_answer: {
    status: 503,
    code: 'unavailable',
    msg: 'sip call failed',
    meta: { sip_status_code: '480', sip_status: 'Temporarily Unavailable' },
  },
  declined: {
    status: 503,
    code: 'unavailable',
    msg: 'sip call failed',
    meta: { sip_status_code: '603', sip_status: 'Decline' },
  },
  timeout: {
    status: 408,
    code: 'deadline_exceeded',
    msg: 'sip call failed',
    meta: { sip_status_code: '408', sip_status: 'Request Timeout' },
  },
  error: {
    status: 500,
    code: 'internal',
    msg: 'sip call failed',
    meta: { sip_status_code: '500', sip_status: 'Server Internal Error' },
  },
}

/** How a SIP REFER ends (phone transfers): the far end accepts, or the SIP failure it gives. */
export type TransferScript = 'accepted' | Exclude<SipScript['result'], 'answered'>

type Room = { sid: string; name: string; metadata: string; creationTime: number; emptyTimeout: number }

/** A SIP inbound trunk or dispatch rule as LiveKit stores it (proto field names, snake_case). */
export type SipRecord = Record<string, unknown>

/**
 * What LiveKit does with one call to a number: the room its dispatch rule makes, the agent job it
 * dispatches, and the SIP participant (with LiveKit's `sip.*` attributes) that joins the room.
 */
export type InboundRing = {
  roomName: string
  agentName: string
  jobMetadata: string
  trunkId: string
  ruleId: string
  participant: { identity: string; kind: 'SIP'; attributes: Record<string, string> }
}

export type FakeLiveKit = {
  /** `ws://127.0.0.1:<port>`: the form LIVEKIT_URL takes; the SDK's clients get the http form. */
  url: string
  apiKey: string
  apiSecret: string
  /** LIVEKIT_* variables for startTestServer's env. */
  env: Record<string, string>
  calls: TwirpCall[]
  callsTo: (method: string) => TwirpCall[]
  /** How many SIP dials were requested to this number (either JSON casing of the SDK). */
  dialsTo: (number: string) => number
  /** Verifies a recorded Authorization header as LiveKit would; throws when it is not valid. */
  claimsOf: (call: TwirpCall) => Promise<ClaimGrants & { iss?: string; exp?: number; sub?: string }>
  rooms: Map<string, Room>
  /** Removes a room without any webhook, as when LiveKit loses it. */
  vanishRoom: (name: string) => void
  /** Makes every call of `method` fail with this Twirp error until `heal()`. */
  fail: (method: string, failure?: Partial<TwirpFailure>) => void
  heal: () => void
  scriptSip: (number: string, script: SipScript) => void
  /**
   * How TransferSIPParticipant (SIP REFER) answers for one transfer target (`tel:+…` or a SIP URI):
   * accepted unless scripted (phone transfers).
   */
  scriptTransfer: (transferTo: string, result: TransferScript) => void
  /** The REFERs requested, in LiveKit's wire form (phone transfers). */
  transfers: () => Array<{ roomName: string; participantIdentity: string; transferTo: string }>
  /** SIP inbound trunks and dispatch rules LiveKit has now, as its List methods answer them. */
  sipTrunks: () => SipRecord[]
  sipRules: () => SipRecord[]
  /** Removes a trunk or rule without any API call, as when LiveKit loses it. */
  loseSipTrunk: (id: string) => void
  loseSipRule: (id: string) => void
  /** Changes a stored rule in place (proto field names), as a hand edit in LiveKit's console would. */
  driftSipRule: (id: string, change: SipRecord) => void
  /**
   * A caller rings `number` from `callerNumber`: the trunk with that number and the rule on it
   * decide the room (`<prefix>_<caller>_<random>`, an individual rule) and the agent job; throws
   * when LiveKit would refuse the call (no trunk or no rule).
   */
  ringInbound: (number: string, callerNumber: string) => InboundRing
  /** Lets held dials finish (all, or those to one number). */
  releaseSip: (number?: string) => void
  /** SIP dials still ringing, for room names starting with `prefix` (all when absent). */
  sipInFlight: (prefix?: string) => number
  /** The most SIP dials that were ever ringing at once, for room names starting with `prefix`. */
  maxSipInFlight: (prefix?: string) => number
  close: () => Promise<void>
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })

const sendJson = (response: ServerResponse, status: number, value: unknown) => {
  // The SDK decodes an error body only when content-type is exactly application/json.
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(value))
}

const sendTwirpError = (response: ServerResponse, failure: TwirpFailure) =>
  sendJson(response, failure.status, {
    code: failure.code,
    msg: failure.msg,
    ...(failure.meta ? { meta: failure.meta } : {}),
  })

const snakeOf = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

/** Map fields keep their keys (they are data, not field names). */
const MAP_FIELDS = new Set(['attributes', 'headers', 'headers_to_attributes', 'attributes_to_headers'])

/**
 * The SDK sends protobuf JSON with lowerCamelCase names; LiveKit (Twirp Go, protojson) reads both
 * and answers with the proto names. Stored and answered here in the proto (snake_case) form.
 */
const toProtoNames = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(toProtoNames)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, item]) => {
      const name = snakeOf(key)
      return [name, MAP_FIELDS.has(name) ? item : toProtoNames(item)]
    }),
  )
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// Twirp Go answers with the proto field names (snake_case).
const roomJson = (room: Room) => ({
  sid: room.sid,
  name: room.name,
  metadata: room.metadata,
  creation_time: String(room.creationTime),
  empty_timeout: room.emptyTimeout,
  num_participants: 0,
})

export const startFakeLiveKit = async (): Promise<FakeLiveKit> => {
  const apiKey = `APIfake${randomBytes(4).toString('hex')}`
  const apiSecret = randomBytes(24).toString('base64url')
  const calls: TwirpCall[] = []
  const rooms = new Map<string, Room>()
  const failures = new Map<string, TwirpFailure>()
  const scripts = new Map<string, SipScript>()
  const held = new Map<string, Array<() => void>>()
  const dialLog: Array<{ roomName: string; delta: 1 | -1 }> = []

  const ensureRoom = (name: string, emptyTimeout = 300, metadata = '') => {
    const existing = rooms.get(name)
    if (existing) return existing
    const room = {
      sid: `RM_${randomBytes(6).toString('hex')}`,
      name,
      metadata,
      creationTime: Math.floor(Date.now() / 1000),
      emptyTimeout,
    }
    rooms.set(name, room)
    return room
  }

  const dialSip = async (body: Record<string, unknown>, response: ServerResponse) => {
    const number = String(body.sip_call_to ?? body.sipCallTo ?? '')
    const roomName = String(body.room_name ?? body.roomName ?? '')
    const identity = String(body.participant_identity ?? body.participantIdentity ?? 'sip-participant')
    const script = scripts.get(number) ?? { result: 'answered' }
    dialLog.push({ roomName, delta: 1 })
    try {
      if (script.delayMs) await wait(script.delayMs)
      if (script.hold) {
        await new Promise<void>((resolve) => held.set(number, [...(held.get(number) ?? []), resolve]))
      }
    } finally {
      dialLog.push({ roomName, delta: -1 })
    }
    if (script.result !== 'answered') return sendTwirpError(response, sipFailures[script.result])
    ensureRoom(roomName)
    sendJson(response, 200, {
      participant_id: `PA_${randomBytes(6).toString('hex')}`,
      participant_identity: identity,
      room_name: roomName,
      sip_call_id: `SCL_${randomBytes(6).toString('hex')}`,
    })
  }

  // Phone transfers: SIP REFER of a participant (TransferSIPParticipantRequest, google.protobuf.Empty back).
  const transferScripts = new Map<string, TransferScript>()
  const transferSip = (body: Record<string, unknown>, response: ServerResponse) => {
    const transferTo = String(body.transfer_to ?? body.transferTo ?? '')
    const roomName = String(body.room_name ?? body.roomName ?? '')
    const identity = String(body.participant_identity ?? body.participantIdentity ?? '')
    if (!rooms.has(roomName))
      return sendTwirpError(response, {
        status: 404,
        code: 'not_found',
        msg: 'requested room does not exist',
      })
    if (!transferTo || !identity)
      return sendTwirpError(response, {
        status: 400,
        code: 'invalid_argument',
        msg: 'missing transfer target',
      })
    const script = transferScripts.get(transferTo) ?? 'accepted'
    if (script !== 'accepted') return sendTwirpError(response, sipFailures[script])
    return sendJson(response, 200, {})
  }

  // SIP inbound trunks and dispatch rules (livekit.SIP), stored in the proto JSON form.
  const sipTrunks = new Map<string, SipRecord>()
  const sipRules = new Map<string, SipRecord>()
  const notFound = (response: ServerResponse, what: string) =>
    sendTwirpError(response, { status: 404, code: 'not_found', msg: `${what} not found` })
  const numbersOf = (trunk: SipRecord) => (Array.isArray(trunk.numbers) ? trunk.numbers.map(String) : [])

  const handleSip = (method: string, raw: Record<string, unknown>, response: ServerResponse) => {
    const body = toProtoNames(raw) as Record<string, unknown>
    switch (method) {
      case 'SIP/CreateSIPInboundTrunk': {
        const trunk = (body.trunk ?? {}) as SipRecord
        // LiveKit refuses a second trunk that would take the same number from any address.
        const clash = [...sipTrunks.values()].find((other) =>
          numbersOf(other).some((number) => numbersOf(trunk).includes(number)),
        )
        if (clash)
          return sendTwirpError(response, {
            status: 400,
            code: 'invalid_argument',
            msg: `conflicting inbound SIP Trunks: "${String(clash.sip_trunk_id)}" and new`,
          })
        const stored = { ...trunk, sip_trunk_id: `ST_${randomBytes(6).toString('hex')}` }
        sipTrunks.set(String(stored.sip_trunk_id), stored)
        return sendJson(response, 200, stored)
      }
      case 'SIP/ListSIPInboundTrunk':
        return sendJson(response, 200, { items: [...sipTrunks.values()] })
      case 'SIP/UpdateSIPInboundTrunk': {
        const id = String(body.sip_trunk_id ?? '')
        const current = sipTrunks.get(id)
        if (!current) return notFound(response, 'SIP trunk')
        const replace = body.replace as SipRecord | undefined
        const update = body.update as SipRecord | undefined
        const next: SipRecord = replace ? { ...replace, sip_trunk_id: id } : { ...current }
        if (update) {
          for (const [key, value] of Object.entries(update)) {
            // A ListUpdate ({set: [...]}) or an optional scalar.
            const set = (value as { set?: unknown })?.set
            next[key] = Array.isArray(set) ? set : value
          }
        }
        sipTrunks.set(id, next)
        return sendJson(response, 200, next)
      }
      case 'SIP/DeleteSIPTrunk': {
        const id = String(body.sip_trunk_id ?? '')
        const trunk = sipTrunks.get(id)
        if (!trunk) return notFound(response, 'SIP trunk')
        sipTrunks.delete(id)
        return sendJson(response, 200, { sip_trunk_id: id, kind: 'TRUNK_INBOUND', numbers: numbersOf(trunk) })
      }
      case 'SIP/CreateSIPDispatchRule': {
        // Older SDKs send the fields at the top level; newer ones in dispatch_rule.
        const fields = (body.dispatch_rule ?? body) as SipRecord
        const trunkIds = Array.isArray(fields.trunk_ids) ? fields.trunk_ids.map(String) : []
        const unknownTrunk = trunkIds.find((id) => !sipTrunks.has(id))
        if (unknownTrunk) return notFound(response, `SIP trunk ${unknownTrunk}`)
        const stored: SipRecord = {
          sip_dispatch_rule_id: `SDR_${randomBytes(6).toString('hex')}`,
          rule: fields.rule,
          trunk_ids: trunkIds,
          hide_phone_number: fields.hide_phone_number ?? false,
          name: fields.name ?? '',
          metadata: fields.metadata ?? '',
          attributes: fields.attributes ?? {},
          ...(fields.room_config ? { room_config: fields.room_config } : {}),
        }
        sipRules.set(String(stored.sip_dispatch_rule_id), stored)
        return sendJson(response, 200, stored)
      }
      case 'SIP/ListSIPDispatchRule':
        return sendJson(response, 200, { items: [...sipRules.values()] })
      case 'SIP/DeleteSIPDispatchRule': {
        const id = String(body.sip_dispatch_rule_id ?? '')
        const rule = sipRules.get(id)
        if (!rule) return notFound(response, 'SIP dispatch rule')
        sipRules.delete(id)
        return sendJson(response, 200, rule)
      }
      default:
        return sendTwirpError(response, { status: 404, code: 'bad_route', msg: `no handler for ${method}` })
    }
  }

  const ringInbound = (number: string, callerNumber: string): InboundRing => {
    const trunk = [...sipTrunks.values()].find((item) => numbersOf(item).includes(number))
    if (!trunk) throw new Error(`LiveKit has no inbound trunk for ${number}`)
    const trunkId = String(trunk.sip_trunk_id)
    const rule = [...sipRules.values()].find(
      (item) => Array.isArray(item.trunk_ids) && item.trunk_ids.includes(trunkId),
    )
    if (!rule) throw new Error(`LiveKit has no dispatch rule for trunk ${trunkId}`)
    const individual = (rule.rule as SipRecord | undefined)?.dispatch_rule_individual as SipRecord | undefined
    if (!individual) throw new Error('only individual dispatch rules are faked')
    const roomName = `${String(individual.room_prefix ?? '')}_${callerNumber}_${randomBytes(4).toString('hex')}`
    ensureRoom(roomName)
    const agents = ((rule.room_config as SipRecord | undefined)?.agents ?? []) as SipRecord[]
    const ruleId = String(rule.sip_dispatch_rule_id)
    return {
      roomName,
      agentName: String(agents[0]?.agent_name ?? ''),
      jobMetadata: String(agents[0]?.metadata ?? ''),
      trunkId,
      ruleId,
      participant: {
        identity: `sip_${callerNumber}`,
        kind: 'SIP',
        attributes: {
          'sip.callID': `SCL_${randomBytes(6).toString('hex')}`,
          'sip.callStatus': 'active',
          'sip.phoneNumber': callerNumber,
          'sip.trunkPhoneNumber': number,
          'sip.trunkID': trunkId,
          'sip.ruleID': ruleId,
        },
      },
    }
  }

  const handle = async (method: string, body: Record<string, unknown>, response: ServerResponse) => {
    if (
      method.startsWith('SIP/') &&
      method !== 'SIP/CreateSIPParticipant' &&
      method !== 'SIP/TransferSIPParticipant'
    )
      return handleSip(method, body, response)
    switch (method) {
      case 'RoomService/CreateRoom': {
        const name = String(body.name ?? '')
        const room = ensureRoom(
          name,
          Number(body.empty_timeout ?? body.emptyTimeout ?? 300),
          String(body.metadata ?? ''),
        )
        return sendJson(response, 200, roomJson(room))
      }
      case 'RoomService/DeleteRoom': {
        const name = String(body.room ?? '')
        if (!rooms.delete(name))
          return sendTwirpError(response, {
            status: 404,
            code: 'not_found',
            msg: 'requested room does not exist',
          })
        return sendJson(response, 200, {})
      }
      case 'RoomService/ListRooms': {
        const names = Array.isArray(body.names) ? body.names.map(String) : []
        const listed = [...rooms.values()].filter((room) => names.length === 0 || names.includes(room.name))
        return sendJson(response, 200, { rooms: listed.map(roomJson) })
      }
      case 'AgentDispatchService/CreateDispatch':
        return sendJson(response, 200, {
          id: `AD_${randomBytes(6).toString('hex')}`,
          agent_name: body.agent_name ?? body.agentName ?? '',
          room: body.room ?? '',
          metadata: body.metadata ?? '',
        })
      case 'SIP/CreateSIPParticipant':
        return dialSip(body, response)
      case 'SIP/TransferSIPParticipant':
        return transferSip(body, response)
      default:
        return sendTwirpError(response, { status: 404, code: 'bad_route', msg: `no handler for ${method}` })
    }
  }

  const server = createServer(async (request, response) => {
    const match = request.url?.match(/^\/twirp\/livekit\.([A-Za-z]+\/[A-Za-z]+)$/)
    const raw = await readBody(request)
    if (request.method !== 'POST' || !match?.[1])
      return sendTwirpError(response, { status: 404, code: 'bad_route', msg: 'not a Twirp route' })
    const method = match[1]
    const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>
    calls.push({ method, body, authorization: request.headers.authorization })
    const failure = failures.get(method)
    if (failure) return sendTwirpError(response, failure)
    try {
      await handle(method, body, response)
    } catch (error) {
      sendTwirpError(response, { status: 500, code: 'internal', msg: String(error) })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const url = `ws://127.0.0.1:${port}`
  const verifier = new TokenVerifier(apiKey, apiSecret)

  const countInFlight = (prefix = '') => {
    let current = 0
    let max = 0
    for (const entry of dialLog) {
      if (!entry.roomName.startsWith(prefix)) continue
      current += entry.delta
      max = Math.max(max, current)
    }
    return { current, max }
  }

  return {
    url,
    apiKey,
    apiSecret,
    env: { LIVEKIT_URL: url, LIVEKIT_API_KEY: apiKey, LIVEKIT_API_SECRET: apiSecret },
    calls,
    callsTo: (method) => calls.filter((call) => call.method === method),
    dialsTo: (number) =>
      calls.filter(
        (call) =>
          call.method === 'SIP/CreateSIPParticipant' &&
          (call.body.sip_call_to ?? call.body.sipCallTo) === number,
      ).length,
    claimsOf: async (call) => {
      const token = call.authorization?.replace(/^Bearer\s+/i, '') ?? ''
      return (await verifier.verify(token)) as ClaimGrants
    },
    rooms,
    vanishRoom: (name) => void rooms.delete(name),
    fail: (method, failure = {}) =>
      failures.set(method, { status: 500, code: 'internal', msg: 'media server failure', ...failure }),
    heal: () => failures.clear(),
    scriptSip: (number, script) => void scripts.set(number, script),
    scriptTransfer: (transferTo, script) => void transferScripts.set(transferTo, script),
    transfers: () =>
      calls
        .filter((call) => call.method === 'SIP/TransferSIPParticipant')
        .map(({ body }) => ({
          roomName: String(body.room_name ?? body.roomName ?? ''),
          participantIdentity: String(body.participant_identity ?? body.participantIdentity ?? ''),
          transferTo: String(body.transfer_to ?? body.transferTo ?? ''),
        })),
    sipTrunks: () => [...sipTrunks.values()],
    sipRules: () => [...sipRules.values()],
    loseSipTrunk: (id) => void sipTrunks.delete(id),
    loseSipRule: (id) => void sipRules.delete(id),
    driftSipRule: (id, change) => {
      const rule = sipRules.get(id)
      if (!rule) throw new Error(`no dispatch rule ${id}`)
      sipRules.set(id, { ...rule, ...change })
    },
    ringInbound,
    releaseSip: (number) => {
      for (const [heldNumber, resolvers] of held) {
        if (number !== undefined && heldNumber !== number) continue
        for (const resolve of resolvers) resolve()
        held.delete(heldNumber)
      }
    },
    sipInFlight: (prefix) => countInFlight(prefix).current,
    maxSipInFlight: (prefix) => countInFlight(prefix).max,
    close: async () => {
      for (const resolvers of held.values()) for (const resolve of resolvers) resolve()
      held.clear()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * POSTs a LiveKit webhook to our server signed exactly as LiveKit signs it: a JWT from the API
 * key and secret whose `sha256` claim is the base64 SHA-256 of the body, sent as Authorization.
 * `secret` overrides the signing secret (a forged signature).
 */
export const postLiveKitWebhook = async (
  serverUrl: string,
  livekit: Pick<FakeLiveKit, 'apiKey' | 'apiSecret'>,
  event: Record<string, unknown>,
  { secret = livekit.apiSecret }: { secret?: string } = {},
) => {
  const body = JSON.stringify({
    id: `EV_${randomBytes(6).toString('hex')}`,
    createdAt: String(Math.floor(Date.now() / 1000)),
    ...event,
  })
  const token = new AccessToken(livekit.apiKey, secret, { ttl: '5m' })
  token.sha256 = createHash('sha256').update(body).digest('base64')
  return fetch(`${serverUrl}/livekit/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/webhook+json', authorization: await token.toJwt() },
    body,
  })
}
