import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { WorkerStatus } from '@livekit/protocol'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { findClosedPort } from '../../server/test/helpers/http-target.ts'
import { type FakeLiveKitAgents, startFakeLiveKitAgents } from './helpers/fake-livekit-agents.ts'
import { type Parley, startParley } from './helpers/parley.ts'

/**
 * The worker as it runs in production (the bundle, plain node, its job processes) against a
 * server speaking LiveKit's agent protocol and a real Parley API. One worker for the file.
 */

const WORKER_SCRIPT = fileURLToPath(new URL('../dist/main.js', import.meta.url))
const AGENT_NAME = 'parley-test-agent'

let parley: Parley
let livekit: FakeLiveKitAgents
let worker: ChildProcess
let output = ''
let healthUrl: string

const waitForOutput = (text: string) =>
  vi.waitFor(() => expect(output).toContain(text), { timeout: 30_000, interval: 50 })

beforeAll(async () => {
  await import('../build.ts')
  parley = await startParley({ env: { OPENAI_API_KEY: 'sk-platform-openai' } })
  // LiveKit is not there yet when the worker starts: it must keep trying, not exit.
  const livekitPort = await findClosedPort()
  const healthPort = await findClosedPort()
  healthUrl = `http://127.0.0.1:${healthPort}`
  const keys = { apiKey: 'APIworkertest', apiSecret: 'worker-test-secret-of-more-than-32-chars' }
  worker = spawn(process.execPath, [WORKER_SCRIPT], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      LIVEKIT_URL: `ws://127.0.0.1:${livekitPort}`,
      LIVEKIT_API_KEY: keys.apiKey,
      LIVEKIT_API_SECRET: keys.apiSecret,
      LIVEKIT_AGENT_NAME: AGENT_NAME,
      WORKER_TOKEN: parley.workerToken,
      PARLEY_API_URL: parley.server.url,
      AGENT_HTTP_PORT: String(healthPort),
      AGENT_IDLE_PROCESSES: '1',
      AGENT_MAX_CALLS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  worker.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  worker.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  await waitForOutput('failed to connect to LiveKit server')
  livekit = await startFakeLiveKitAgents({ ...keys, port: livekitPort })
})

afterAll(async () => {
  if (worker && worker.exitCode === null) worker.kill('SIGKILL')
  await livekit?.close()
  await parley?.close()
})

describe('the voice agent worker process', { timeout: 60_000 }, () => {
  it('keeps trying until LiveKit answers, registers for explicit dispatch and serves its health endpoint', async () => {
    const registration = await livekit.registered()
    expect(registration).toMatchObject({ agentName: AGENT_NAME, version: '1.9.0' })
    expect(worker.exitCode).toBeNull()

    await vi.waitFor(async () => expect((await fetch(healthUrl)).status).toBe(200), { timeout: 10_000 })
    const info = (await (await fetch(`${healthUrl}/worker`)).json()) as Record<string, unknown>
    expect(info).toMatchObject({ agent_name: AGENT_NAME, active_jobs: 0 })
  })

  it('takes a dispatched call, reads it from the server and joins its room; a room it cannot join ends the call', async () => {
    const agent = await parley.makeVoiceAgent({ name: 'Front Desk' })
    const call = await parley.startCall(agent.id)
    const release = livekit.holdRoomJoins()

    const { answer } = await livekit.dispatch({ metadata: call.metadata, roomName: call.roomName })
    expect(answer).toMatchObject({ available: true, participantName: 'Front Desk' })

    // The job joins only after reading the call's setup with WORKER_TOKEN.
    await vi.waitFor(
      () =>
        expect(livekit.roomJoins).toContainEqual({
          identity: answer.participantIdentity,
          room: call.roomName,
        }),
      { timeout: 30_000 },
    )
    // One call of AGENT_MAX_CALLS=1: the worker is full, and says so.
    const info = (await (await fetch(`${healthUrl}/worker`)).json()) as Record<string, unknown>
    expect(info.active_jobs).toBe(1)
    await vi.waitFor(
      () => expect(livekit.statuses.at(-1)).toMatchObject({ load: 1, status: WorkerStatus.WS_FULL }),
      { timeout: 10_000 },
    )

    release()
    await parley.callEnds(call.callId, 'agent_error')
  })

  it('ends the call of metadata it cannot read, without joining the room', async () => {
    const agent = await parley.makeVoiceAgent()
    const call = await parley.startCall(agent.id)
    const joinsBefore = livekit.roomJoins.length

    const { answer } = await livekit.dispatch({
      metadata: JSON.stringify({ version: 99, callId: call.callId }),
      roomName: call.roomName,
    })
    expect(answer.available).toBe(true)
    await parley.callEnds(call.callId, 'agent_error')
    expect(livekit.roomJoins.slice(joinsBefore)).toEqual([])
  })

  it('reports its load while it runs, and drains on SIGTERM: full, then exit code 0', async () => {
    expect(livekit.statuses.length).toBeGreaterThan(0)
    for (const status of livekit.statuses) expect(status.load).toBeGreaterThanOrEqual(0)
    const statusesBefore = livekit.statuses.length
    const exited = once(worker, 'exit')
    worker.kill('SIGTERM')
    const [code] = await exited
    expect(code).toBe(0)
    expect(livekit.statuses.slice(statusesBefore).map((status) => status.status)).toContain(
      WorkerStatus.WS_FULL,
    )
  })
})
