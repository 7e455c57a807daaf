import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  AvailabilityRequest,
  type AvailabilityResponse,
  Job,
  JobAssignment,
  JobType,
  RegisterWorkerResponse,
  Room,
  ServerInfo,
  ServerInfo_Edition,
  ServerMessage,
  type UpdateWorkerStatus,
  WorkerMessage,
} from '@livekit/protocol'
import { AccessToken, TokenVerifier } from 'livekit-server-sdk'
import { type WebSocket, WebSocketServer } from 'ws'

/**
 * A loopback server speaking LiveKit's agent protocol to a real worker (the `/agent` WebSocket,
 * real protobuf WorkerMessage / ServerMessage): it checks the worker's token as LiveKit does,
 * answers its registration, offers it jobs (availability request, then assignment) and records
 * the load it reports. Rooms are not served: a job that joins its room (`/rtc`) is recorded and
 * refused, which is as far as a test without a media server can go.
 */

export type Registration = { workerId: string; agentName: string; type: JobType; version: string }

export type Dispatch = {
  job: Job
  /** The worker's answer to the availability request. */
  answer: AvailabilityResponse
}

export type FakeLiveKitAgents = {
  /** `ws://127.0.0.1:<port>`: LIVEKIT_URL for the worker. */
  url: string
  apiKey: string
  apiSecret: string
  registrations: Registration[]
  /** Every status the worker reported (load, available or full), oldest first. */
  statuses: UpdateWorkerStatus[]
  /** Room joins the job processes attempted, with the identity of their token. */
  roomJoins: { identity: string | undefined; room: string | undefined }[]
  /** Keeps room joins waiting (the job stays busy joining) until the returned function is called. */
  holdRoomJoins: () => () => void
  /** Resolves once a worker has registered (at once if one has). */
  registered: () => Promise<Registration>
  /** Offers a room job with this metadata; assigns it when the worker accepts. */
  dispatch: (options: { metadata: string; roomName?: string }) => Promise<Dispatch>
  close: () => Promise<void>
}

export const startFakeLiveKitAgents = async ({
  apiKey = 'APIfakeagents',
  apiSecret = 'fake-agents-secret-of-at-least-32-characters',
  port = 0,
}: {
  apiKey?: string
  apiSecret?: string
  /** A fixed port: a worker may already be trying it, as when LiveKit comes back. */
  port?: number
} = {}): Promise<FakeLiveKitAgents> => {
  const verifier = new TokenVerifier(apiKey, apiSecret)
  const registrations: Registration[] = []
  const statuses: UpdateWorkerStatus[] = []
  const roomJoins: FakeLiveKitAgents['roomJoins'] = []
  const answers = new Map<string, (answer: AvailabilityResponse) => void>()
  const waitingForRegistration: ((registration: Registration) => void)[] = []
  let worker: WebSocket | undefined
  let heldJoins: (() => void)[] | undefined

  const send = (socket: WebSocket, message: ServerMessage['message']) =>
    socket.send(new ServerMessage({ message }).toBinary())

  const onWorkerMessage = (socket: WebSocket, data: Buffer) => {
    const { message } = WorkerMessage.fromBinary(new Uint8Array(data))
    if (message.case === 'register') {
      const registration = {
        workerId: `AW_${randomUUID().slice(0, 8)}`,
        agentName: message.value.agentName,
        type: message.value.type,
        version: message.value.version,
      }
      registrations.push(registration)
      send(socket, {
        case: 'register',
        value: new RegisterWorkerResponse({
          workerId: registration.workerId,
          serverInfo: new ServerInfo({ edition: ServerInfo_Edition.Standard, version: '1.9.0' }),
        }),
      })
      for (const resolve of waitingForRegistration.splice(0)) resolve(registration)
    } else if (message.case === 'availability') {
      answers.get(message.value.jobId)?.(message.value)
    } else if (message.case === 'updateWorker') {
      statuses.push(message.value)
    }
  }

  const bearerOf = (request: IncomingMessage) =>
    request.headers.authorization?.replace(/^Bearer /, '') ??
    new URL(request.url ?? '/', 'http://fake').searchParams.get('access_token') ??
    ''

  const server = createServer((request, response) => {
    // rtc-node checks a failed join with GET /rtc/validate: a room server is not part of this fake.
    if (request.url?.startsWith('/rtc')) recordRoomJoin(request)
    response.writeHead(404).end()
  })
  const sockets = new WebSocketServer({ noServer: true })

  const recordRoomJoin = (request: IncomingMessage) => {
    verifier.verify(bearerOf(request)).then(
      (claims) => roomJoins.push({ identity: claims.sub, room: claims.video?.room }),
      () => roomJoins.push({ identity: undefined, room: undefined }),
    )
  }

  server.on('upgrade', (request, socket, head) => {
    const path = new URL(request.url ?? '/', 'http://fake').pathname
    if (path.startsWith('/rtc')) {
      recordRoomJoin(request)
      const refuse = () => socket.end('HTTP/1.1 404 Not Found\r\n\r\n')
      if (heldJoins) heldJoins.push(refuse)
      else refuse()
      return
    }
    if (path !== '/agent') {
      socket.destroy()
      return
    }
    verifier.verify(bearerOf(request)).then(
      (claims) => {
        if (!claims.video?.agent) return void socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n')
        sockets.handleUpgrade(request, socket, head, (connection) => {
          worker = connection
          connection.on('message', (data: Buffer) => onWorkerMessage(connection, data))
        })
      },
      () => socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n'),
    )
  })

  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`

  const dispatch: FakeLiveKitAgents['dispatch'] = async ({ metadata, roomName = `room_${randomUUID()}` }) => {
    const socket = worker
    if (!socket) throw new Error('no worker is connected')
    const job = new Job({
      id: `AJ_${randomUUID().slice(0, 8)}`,
      dispatchId: `AD_${randomUUID().slice(0, 8)}`,
      type: JobType.JT_ROOM,
      room: new Room({ sid: `RM_${randomUUID().slice(0, 8)}`, name: roomName }),
      metadata,
      agentName: registrations.at(-1)?.agentName ?? '',
    })
    const answered = new Promise<AvailabilityResponse>((resolve) => answers.set(job.id, resolve))
    send(socket, { case: 'availability', value: new AvailabilityRequest({ job, resuming: false }) })
    const answer = await answered
    answers.delete(job.id)
    if (answer.available) {
      const token = new AccessToken(apiKey, apiSecret, { identity: answer.participantIdentity })
      token.addGrant({ roomJoin: true, room: roomName, agent: true })
      send(socket, { case: 'assignment', value: new JobAssignment({ job, url, token: await token.toJwt() }) })
    }
    return { job, answer }
  }

  return {
    url,
    apiKey,
    apiSecret,
    registrations,
    statuses,
    roomJoins,
    holdRoomJoins: () => {
      const held: (() => void)[] = []
      heldJoins = held
      return () => {
        heldJoins = undefined
        for (const refuse of held) refuse()
      }
    },
    registered: () => {
      const last = registrations.at(-1)
      return last ? Promise.resolve(last) : new Promise((resolve) => waitingForRegistration.push(resolve))
    },
    dispatch,
    close: async () => {
      for (const client of sockets.clients) client.terminate()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
