import {
  AccessToken,
  AgentDispatchClient,
  RoomAgentDispatch,
  RoomConfiguration,
  RoomServiceClient,
  SIPInboundTrunkInfo,
  SipCallError,
  SipClient,
  TwirpError,
  type WebhookEvent,
  WebhookReceiver,
} from 'livekit-server-sdk'
import type { Config } from '../config.ts'
import { recordDial } from '../metrics/index.ts'

export type { WebhookEvent } from 'livekit-server-sdk'

/** Participant tokens (spec "Limits": voice participant token validity). */
export const PARTICIPANT_TOKEN_TTL_SECONDS = 60 * 60

export type SipDialOutcome = 'busy' | 'no_answer' | 'rejected' | 'failed'

/** An outbound SIP call that was not answered, with the SIP status the far end gave. */
export class SipDialError extends Error {
  override name = 'SipDialError'
  readonly outcome: SipDialOutcome
  readonly sipStatus: number | null

  constructor(outcome: SipDialOutcome, sipStatus: number | null, options?: { cause?: unknown }) {
    super(`SIP dial ${outcome}${sipStatus === null ? '' : ` (${sipStatus})`}`, options)
    this.outcome = outcome
    this.sipStatus = sipStatus
  }
}

/** A SIP inbound trunk as LiveKit lists it (the fields Parley sets). */
export type SipInboundTrunk = { id: string; name: string; numbers: string[]; metadata: string }

/** A SIP dispatch rule as LiveKit lists it (the fields Parley sets). */
export type SipDispatchRule = {
  id: string
  name: string
  trunkIds: string[]
  /** The room prefix of an `individual` rule (a room per caller); null for another kind of rule. */
  roomPrefix: string | null
  /** The agents its rooms dispatch, with the metadata each job gets. */
  agents: Array<{ agentName: string; metadata: string }>
  metadata: string
}

/** The inbound trunk and dispatch rule of one number, as Parley wants them in LiveKit. */
export type SipInboundWanted = {
  name: string
  number: string
  metadata: string
  roomPrefix: string
  /** The job metadata the dispatched worker reads (no secrets: LiveKit shows it). */
  agentMetadata: string
}

/** SIP inbound: the trunks and dispatch rules that make numbers answer (SipClient). */
export type LiveKitSipInbound = {
  listTrunks(): Promise<SipInboundTrunk[]>
  createTrunk(wanted: SipInboundWanted): Promise<string>
  /** Replaces the trunk's name, numbers and metadata. */
  updateTrunk(id: string, wanted: SipInboundWanted): Promise<void>
  /** A trunk that is already gone counts as deleted. */
  deleteTrunk(id: string): Promise<void>
  listRules(): Promise<SipDispatchRule[]>
  /** A rule that puts each caller in a room of their own and dispatches the agent worker. */
  createRule(input: SipInboundWanted & { trunkId: string }): Promise<string>
  /** A rule that is already gone counts as deleted. */
  deleteRule(id: string): Promise<void>
}

/** The one way the server talks to LiveKit (rooms, agent dispatch, SIP, tokens, webhooks). */
export type LiveKit = {
  /** wss/ws URL handed to browsers (from LIVEKIT_URL) */
  clientUrl: string
  /** The worker name dispatched into rooms (LIVEKIT_AGENT_NAME). */
  agentName: string
  createRoom(input: { name: string; emptyTimeoutSeconds?: number; metadata?: string }): Promise<void>
  dispatchAgent(input: { roomName: string; metadata: string }): Promise<void>
  /** 1 h, join + publish + subscribe, canPublishData false. */
  createParticipantToken(input: { identity: string; roomName: string; name?: string }): Promise<string>
  /** A room that is already gone counts as deleted. */
  deleteRoom(name: string): Promise<void>
  /** Names of the rooms that exist; all rooms when `names` is absent. */
  listRoomNames(names?: string[]): Promise<string[]>
  /** SIP outbound; resolves when answered, rejects with SipDialError. */
  dialSip(input: {
    trunkId: string
    number: string
    roomName: string
    identity: string
    ringingTimeoutSeconds?: number
  }): Promise<{ participantId: string; sipCallId: string | null }>
  /**
   * SIP REFER: hands a phone participant of the room to `transferTo` (`tel:+E164` or a SIP URI);
   * resolves once the far end accepted, rejects with SipDialError. The carrier trunk must allow it.
   */
  transferSip(input: {
    roomName: string
    identity: string
    transferTo: string
    ringingTimeoutSeconds?: number
  }): Promise<void>
  /** Verifies with the SDK's WebhookReceiver; throws on a bad signature. */
  receiveWebhook(rawBody: string, authorization: string | undefined): Promise<WebhookEvent>
  sipInbound: LiveKitSipInbound
}

// SIP final responses to an INVITE: busy here/everywhere; declined (603) and undesired (607);
// request timeout, temporarily unavailable and cancelled at the ringing time-out: nobody picked up.
const BUSY_STATUSES = new Set([486, 600])
const REJECTED_STATUSES = new Set([603, 607])
const NO_ANSWER_STATUSES = new Set([408, 480, 487])

/** The Twirp clients want http(s); browsers get the ws(s) form of the same host. */
const apiHostOf = (url: string) => url.replace(/^ws(s?):\/\//i, 'http$1://')
const clientUrlOf = (url: string) => url.replace(/^http(s?):\/\//i, 'ws$1://')

/** Maps the SDK's failure of CreateSIPParticipant to the dial's outcome (README "Call outcomes"). */
export const toSipDialError = (error: unknown): SipDialError => {
  if (error instanceof SipDialError) return error
  if (error instanceof SipCallError && error.sipStatusCode !== undefined) {
    const status = error.sipStatusCode
    const outcome = BUSY_STATUSES.has(status)
      ? 'busy'
      : REJECTED_STATUSES.has(status)
        ? 'rejected'
        : NO_ANSWER_STATUSES.has(status)
          ? 'no_answer'
          : 'failed'
    return new SipDialError(outcome, status, { cause: error })
  }
  if (error instanceof TwirpError && error.code === 'deadline_exceeded')
    return new SipDialError('no_answer', null, { cause: error })
  // The request outlived the ringing time-out plus the SDK's margin: nobody picked up.
  if (error instanceof Error && error.name === 'TimeoutError')
    return new SipDialError('no_answer', null, { cause: error })
  return new SipDialError('failed', null, { cause: error })
}

const isNotFound = (error: unknown) => error instanceof TwirpError && error.code === 'not_found'

const ignoreNotFound = async (action: () => Promise<unknown>) => {
  try {
    await action()
  } catch (error) {
    if (!isNotFound(error)) throw error
  }
}

const sipInboundOf = (sip: SipClient, agentName: string): LiveKitSipInbound => {
  const trunkInfo = (wanted: SipInboundWanted) =>
    new SIPInboundTrunkInfo({ name: wanted.name, numbers: [wanted.number], metadata: wanted.metadata })
  return {
    listTrunks: async () =>
      (await sip.listSipInboundTrunk()).map((trunk) => ({
        id: trunk.sipTrunkId,
        name: trunk.name,
        numbers: [...trunk.numbers],
        metadata: trunk.metadata,
      })),
    createTrunk: async (wanted) =>
      (await sip.createSipInboundTrunk(wanted.name, [wanted.number], { metadata: wanted.metadata }))
        .sipTrunkId,
    updateTrunk: async (id, wanted) => {
      await sip.updateSipInboundTrunk(id, trunkInfo(wanted))
    },
    deleteTrunk: (id) => ignoreNotFound(() => sip.deleteSipTrunk(id)),
    listRules: async () =>
      (await sip.listSipDispatchRule()).map((rule) => ({
        id: rule.sipDispatchRuleId,
        name: rule.name,
        trunkIds: [...rule.trunkIds],
        roomPrefix:
          rule.rule?.rule.case === 'dispatchRuleIndividual' ? rule.rule.rule.value.roomPrefix : null,
        agents: (rule.roomConfig?.agents ?? []).map((agent) => ({
          agentName: agent.agentName,
          metadata: agent.metadata,
        })),
        metadata: rule.metadata,
      })),
    createRule: async ({ name, trunkId, roomPrefix, metadata, agentMetadata }) =>
      (
        await sip.createSipDispatchRule(
          { type: 'individual', roomPrefix },
          {
            name,
            trunkIds: [trunkId],
            metadata,
            roomConfig: new RoomConfiguration({
              agents: [new RoomAgentDispatch({ agentName, metadata: agentMetadata })],
            }),
          },
        )
      ).sipDispatchRuleId,
    deleteRule: (id) => ignoreNotFound(() => sip.deleteSipDispatchRule(id)),
  }
}

export const createLiveKit = (config: Config): LiveKit | null => {
  if (!config.livekit) return null
  const { url, apiKey, apiSecret, agentName } = config.livekit
  const host = apiHostOf(url)
  const rooms = new RoomServiceClient(host, apiKey, apiSecret)
  const dispatches = new AgentDispatchClient(host, apiKey, apiSecret)
  const sip = new SipClient(host, apiKey, apiSecret)
  const webhooks = new WebhookReceiver(apiKey, apiSecret)

  return {
    clientUrl: clientUrlOf(url),
    agentName,
    createRoom: async ({ name, emptyTimeoutSeconds, metadata }) => {
      await rooms.createRoom({
        name,
        ...(emptyTimeoutSeconds === undefined ? {} : { emptyTimeout: emptyTimeoutSeconds }),
        ...(metadata === undefined ? {} : { metadata }),
      })
    },
    dispatchAgent: async ({ roomName, metadata }) => {
      await dispatches.createDispatch(roomName, agentName, { metadata })
    },
    createParticipantToken: ({ identity, roomName, name }) => {
      const token = new AccessToken(apiKey, apiSecret, {
        identity,
        ttl: PARTICIPANT_TOKEN_TTL_SECONDS,
        ...(name === undefined ? {} : { name }),
      })
      token.addGrant({
        room: roomName,
        roomJoin: true,
        canPublish: true,
        canSubscribe: true,
        canPublishData: false,
      })
      return token.toJwt()
    },
    deleteRoom: async (name) => {
      try {
        await rooms.deleteRoom(name)
      } catch (error) {
        if (error instanceof TwirpError && error.code === 'not_found') return
        throw error
      }
    },
    listRoomNames: async (names) => (await rooms.listRooms(names)).map((room) => room.name),
    dialSip: async ({ trunkId, number, roomName, identity, ringingTimeoutSeconds }) => {
      try {
        const participant = await sip.createSipParticipant(trunkId, number, roomName, {
          participantIdentity: identity,
          waitUntilAnswered: true,
          ...(ringingTimeoutSeconds === undefined ? {} : { ringingTimeout: ringingTimeoutSeconds }),
        })
        recordDial('answered')
        return { participantId: participant.participantId, sipCallId: participant.sipCallId || null }
      } catch (error) {
        const failure = toSipDialError(error)
        recordDial(failure.outcome)
        throw failure
      }
    },
    transferSip: async ({ roomName, identity, transferTo, ringingTimeoutSeconds }) => {
      try {
        await sip.transferSipParticipant(roomName, identity, transferTo, {
          playDialtone: true,
          ...(ringingTimeoutSeconds === undefined ? {} : { ringingTimeout: ringingTimeoutSeconds }),
        })
      } catch (error) {
        throw toSipDialError(error)
      }
    },
    receiveWebhook: (rawBody, authorization) =>
      // LiveKit sends the bare JWT; accept a Bearer prefix too.
      webhooks.receive(rawBody, authorization?.replace(/^Bearer\s+/i, '')),
    sipInbound: sipInboundOf(sip, agentName),
  }
}
