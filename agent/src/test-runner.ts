import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type log, type VAD, voice } from '@livekit/agents'
import { nameTransferTools } from '@parley/platform'
import {
  type DispatchMetadata,
  type TranscriptTurn,
  type VoiceTestCase,
  type VoiceTestResultRequest,
  ZCallHandoffResponse,
  ZCallKnowledgeResult,
  ZVoiceTestClaimResponse,
  ZVoiceTestResultResponse,
  ZVoiceTestVisitorResponse,
} from '@parley/shared'
import { ofetch } from 'ofetch'
import { loadProvidersFor } from './providers.ts'
import { buildCallSession } from './session.ts'
import type { Keypad } from './tools/send-dtmf.ts'
import type { WorkerApi } from './worker-api.ts'

/**
 * The voice worker's agent test runner: a voice agent's test case run through the agent's own
 * session (its prompt, models, voice settings and tools: end_call, transfer_call, send_dtmf,
 * opt_out, handoffs, custom functions) in the framework's text mode, the simulated visitor's turns
 * as the user's input. The server hands out the cases (a claim with a lease: one worker a case)
 * and checks, judges and bills what this reports (server/src/agent-tests/voice.ts).
 *
 * Nothing of the case reaches the outside: custom functions are answered by the test's recorded
 * stubs through a loopback server of this runner (the real function tool calls it, as it would
 * the real endpoint); without a stub, the real endpoint only when the test allows real calls,
 * otherwise an error the agent reads. transfer_call, send_dtmf and opt_out are recorded, never
 * carried out: a transfer to a person counts as connected; the end of the call is end_call's.
 */

type Logger = ReturnType<typeof log>

/** A case may take this long, its model rounds and the server's visitor turns included. */
export const TEST_CASE_TIMEOUT_MS = 5 * 60 * 1000
/** The worker asks for more cases this often when there were none. */
export const TEST_POLL_INTERVAL_MS = 5000

/** The server's endpoints for voice test runs (`Authorization: Bearer WORKER_TOKEN`). */
export const createTestRunApi = ({ apiUrl, workerToken }: { apiUrl: string; workerToken: string }) => {
  const request = ofetch.create({
    baseURL: apiUrl,
    headers: { authorization: `Bearer ${workerToken}` },
    timeout: 30_000,
  })
  const casePath = (testCase: Pick<VoiceTestCase, 'runId' | 'testId'>, action: string) =>
    `/v1/worker/agent-test-runs/${encodeURIComponent(testCase.runId)}/cases/${encodeURIComponent(testCase.testId)}/${action}`
  return {
    /** The next case a worker may run, claimed for this one; null when there is none. */
    claim: async () =>
      ZVoiceTestClaimResponse.parse(
        await request('/v1/worker/agent-test-runs/claim', { method: 'POST', body: {}, retry: 1 }),
      ).data,
    /** A persona visitor's next message (null: the visitor is done), played by the server. */
    visitorTurn: async (testCase: VoiceTestCase, transcript: TranscriptTurn[]) =>
      ZVoiceTestVisitorResponse.parse(
        await request(casePath(testCase, 'visitor'), {
          method: 'POST',
          body: { claimId: testCase.claimId, transcript },
          timeout: 150_000,
          retry: 0,
        }),
      ).data.message,
    /** The target agent's configuration and setup, for a handoff in the case. */
    handoff: async (testCase: VoiceTestCase, agentId: string) =>
      ZCallHandoffResponse.parse(
        await request(casePath(testCase, 'handoff'), {
          method: 'POST',
          body: { claimId: testCase.claimId, agentId },
          retry: 1,
        }),
      ).data,
    /** Passages for a question from the case's live agent's knowledge sources (one quick retry: a turn waits on it). */
    searchKnowledge: async (testCase: VoiceTestCase, query: string) =>
      ZCallKnowledgeResult.parse(
        await request(casePath(testCase, 'knowledge/search'), {
          method: 'POST',
          body: { claimId: testCase.claimId, query },
          retry: 1,
        }),
      ),
    /** The case's conversation: the server checks, judges, bills and stores it. */
    report: async (testCase: VoiceTestCase, body: Omit<VoiceTestResultRequest, 'claimId'>) =>
      ZVoiceTestResultResponse.parse(
        await request(casePath(testCase, 'result'), {
          method: 'POST',
          body: { claimId: testCase.claimId, ...body },
          timeout: 300_000,
          retry: 0,
        }),
      ).data,
  }
}

export type TestRunApi = ReturnType<typeof createTestRunApi>

type Answered = NonNullable<TranscriptTurn['answeredBy']>

const readBody = async (request: IncomingMessage) => {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

const respond = (response: ServerResponse, body: unknown) => {
  response.writeHead(200, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}

/**
 * The loopback server that answers the case's custom functions: `/<name>` answers the test's stub
 * for that function, or (a function with no stub, real calls not allowed or the function deleted
 * since the run's version) an error saying so.
 * Records who answered each call, in order, by function name.
 */
const startStubServer = async (testCase: VoiceTestCase) => {
  const answered = new Map<string, Answered[]>()
  const record = (name: string, by: Answered) => answered.set(name, [...(answered.get(name) ?? []), by])
  const server = createServer((request, response) => {
    void (async () => {
      await readBody(request)
      const name = decodeURIComponent(new URL(request.url ?? '/', 'http://stub').pathname.slice(1))
      if (Object.hasOwn(testCase.stubs, name)) {
        record(name, 'stub')
        return respond(response, testCase.stubs[name])
      }
      record(name, 'refused')
      respond(response, {
        error: testCase.deletedFunctions.includes(name)
          ? `${name} was deleted after this version: it cannot be called`
          : `${name} has no stub in this test and real calls are not allowed`,
      })
    })().catch(() => response.destroy())
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    host: `127.0.0.1:${port}`,
    origin: `http://127.0.0.1:${port}`,
    /** Who answered the next call of `name` not yet taken (a real endpoint when none is recorded). */
    takeAnswer: (name: string): Answered => answered.get(name)?.shift() ?? 'real',
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close').catch(() => undefined)
    },
  }
}

const argumentsOf = (args: string): unknown => {
  try {
    return JSON.parse(args || '{}')
  } catch {
    return { raw: args.slice(0, 5_000) }
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 2000)

/**
 * Runs one claimed case to its end and answers what the server wants reported: the transcript
 * (the visitor's turns, the agent's replies, its tool calls), the model tokens it used, and an
 * error when it could not run to its end.
 */
export const runVoiceTestCase = async ({
  testCase,
  api,
  vad,
  logger,
  allowHosts,
  timeoutMs = TEST_CASE_TIMEOUT_MS,
}: {
  testCase: VoiceTestCase
  api: TestRunApi
  vad: VAD
  logger: Logger
  /** OUTBOUND_ALLOW_HOSTS: where a test that allows real calls may reach its real endpoints. */
  allowHosts: readonly string[]
  timeoutMs?: number
}): Promise<Omit<VoiceTestResultRequest, 'claimId'>> => {
  const transcript: TranscriptTurn[] = []
  const usage = { inputTokens: 0, outputTokens: 0 }
  const stubs = await startStubServer(testCase)
  let session: voice.AgentSession | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const callId = `agent-test-${testCase.runId}-${testCase.testId}`
    /** Handoff tools' names across the case's agents: a tool call's handoff target. */
    const handoffTargets = new Map<string, string>()
    const learnTargets = (targets: DispatchMetadata['agent']['handoffAgents']) => {
      for (const { name, target } of nameTransferTools(targets)) handoffTargets.set(name, target.id)
    }
    learnTargets(testCase.agent.handoffAgents)

    let ended: string | null = null
    let shutdown: string | null = null
    const pressed: string[] = []
    // The call's worker endpoints, for a test: nothing is carried out, what the agent did is kept.
    const callApi: WorkerApi = {
      setup: async () => {
        throw new Error('a test case has its setup already')
      },
      openInbound: async () => {
        throw new Error('a test case opens no call')
      },
      handoff: async (_callId, agentId) => {
        const handed = await api.handoff(testCase, agentId)
        learnTargets(handed.agent.handoffAgents)
        return { agent: handed.agent, setup: stubbed(handed.setup) }
      },
      end: async (_callId, reason) => {
        ended = reason
        return { ended: true }
      },
      optOut: async () => ({ phoneNumber: '+15550000000', alreadyListed: false }),
      // A test case dials nobody: no callee's SIP status is ever watched.
      sipStatus: async () => ({ recorded: null }),
      // The case's live agent's knowledge sources, searched by the server as a call's are.
      searchKnowledge: async (_callId, query) => api.searchKnowledge(testCase, query),
      transfer: async (_callId, body) => {
        const now = new Date().toISOString()
        return {
          transfer: {
            id: `test-transfer-${randomUUID()}`,
            agentId: testCase.agent.id,
            destinationName: body.destination,
            destination: 'test',
            mode: 'cold',
            method: 'refer',
            status: 'transferred',
            sipStatus: null,
            createdAt: now,
            finishedAt: now,
          },
          line: null,
        } as Awaited<ReturnType<WorkerApi['transfer']>>
      },
      appendTranscript: async (_callId, body) => ({
        appended: (body.lines?.length ?? 0) + (body.toolCalls?.length ?? 0),
        total: 0,
      }),
    }
    // Custom functions reach this runner's stubs; with real calls allowed, a function with no
    // stub keeps its real endpoint (and its headers).
    const stubbed = (setup: VoiceTestCase['setup']): VoiceTestCase['setup'] => ({
      ...setup,
      functions: setup.functions.map((fn) =>
        testCase.allowRealCalls &&
        !Object.hasOwn(testCase.stubs, fn.name) &&
        !testCase.deletedFunctions.includes(fn.name)
          ? fn
          : {
              ...fn,
              endpoint: `${stubs.origin}/${encodeURIComponent(fn.name)}`,
              method: 'POST',
              headers: {},
            },
      ),
      // Web search is a real endpoint too: only when the test allows real calls.
      webSearch: testCase.allowRealCalls ? setup.webSearch : null,
    })
    const keypad: Keypad = {
      publishDtmf: async (_code, digit) => {
        pressed.push(digit)
      },
      wait: async () => undefined,
    }
    const metadata: DispatchMetadata = {
      version: 1,
      callId,
      organizationId: testCase.organizationId,
      roomName: callId,
      // A phone call: the phone tools (send_dtmf, opt_out, transfer_call) are the agent's.
      direction: 'inbound',
      userId: null,
      agent: testCase.agent,
    }
    const callSetup = stubbed(testCase.setup)
    await loadProvidersFor(callSetup)
    const built = buildCallSession({
      metadata,
      setup: callSetup,
      services: {
        api: callApi,
        allowHosts: testCase.allowRealCalls ? [...allowHosts, stubs.host] : [stubs.host],
        vad,
        shutdown: (reason) => {
          shutdown ??= reason
        },
        logger,
        keypad,
        warmTransfer: async () => 'transferred',
      },
    })
    session = built.session
    let firstReply: (() => void) | null = null
    const greeted = new Promise<void>((resolve) => {
      firstReply = resolve
    })
    session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
      if (item.type !== 'message') return
      const content = (item.textContent ?? '').trim()
      if (item.role === 'assistant') {
        firstReply?.()
        if (content) transcript.push({ role: 'agent', content })
      } else if (item.role === 'user' && content) transcript.push({ role: 'visitor', content })
    })
    session.on(
      voice.AgentSessionEventTypes.FunctionToolsExecuted,
      ({ functionCalls, functionCallOutputs }) => {
        for (const [index, call] of functionCalls.entries()) {
          const failed = functionCallOutputs[index]?.isError ?? false
          const args = argumentsOf(call.args)
          const target = handoffTargets.get(call.name)
          const isCustom = testCase.setup.functions.some((fn) => fn.name === call.name) && !target
          const kind =
            target || call.name === 'transfer_call'
              ? 'handoff'
              : call.name === 'end_call'
                ? 'end_call'
                : 'function'
          const destination =
            args && typeof args === 'object' && 'destination' in args ? String(args.destination) : ''
          transcript.push({
            role: 'tool',
            kind,
            name: call.name,
            arguments: args,
            // A handoff names its agent (a transfer to a person, its destination), as chat's does.
            content:
              target && !failed
                ? target
                : call.name === 'transfer_call'
                  ? destination
                  : failed
                    ? 'failed'
                    : 'completed',
            answeredBy: isCustom ? stubs.takeAnswer(call.name) : 'none',
          })
        }
      },
    )
    session.on(voice.AgentSessionEventTypes.MetricsCollected, ({ metrics }) => {
      if (metrics.type === 'llm_metrics') {
        usage.inputTokens += metrics.promptTokens
        usage.outputTokens += metrics.completionTokens
      } else if (metrics.type === 'realtime_model_metrics') {
        usage.inputTokens += metrics.inputTokens
        usage.outputTokens += metrics.outputTokens
      }
    })

    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`The test did not finish within ${timeoutMs / 1000} seconds`)),
        timeoutMs,
      )
    })
    const converse = async () => {
      const active = built.session
      await active.start({ agent: built.agent })
      // An agent that speaks first is heard out before the visitor's first turn.
      if (testCase.agent.greetingType === 'agentFirst') await greeted
      const { visitor } = testCase
      const maxTurns = visitor.kind === 'script' ? visitor.turns.length : visitor.maxTurns
      for (let index = 0; index < maxTurns; index++) {
        const said =
          visitor.kind === 'script'
            ? (visitor.turns[index] ?? null)
            : index === 0 && visitor.opening
              ? visitor.opening
              : await api.visitorTurn(testCase, transcript)
        if (said === null) break
        await active.run({ userInput: said }).wait()
        // end_call (last words said) or a transfer: the call is over, the visitor says no more.
        await built.settled()
        if (ended !== null || shutdown !== null) break
      }
    }
    await Promise.race([converse(), timedOut])
    if (pressed.length > 0) logger.debug({ callId, keys: pressed.join('') }, 'keys the agent pressed')
    return { transcript, usage, error: null }
  } catch (error) {
    logger.warn(
      { runId: testCase.runId, testId: testCase.testId, error: messageOf(error) },
      'a voice test case failed to run',
    )
    return { transcript, usage, error: `The test could not run to its end: ${messageOf(error)}` }
  } finally {
    clearTimeout(timer)
    await session?.close().catch(() => undefined)
    await stubs.close()
  }
}

/**
 * Claims and runs cases until the server has none left; answers how many ran. A report the
 * server refuses (the claim swept after its lease) is logged: another worker runs the case.
 */
export const runClaimedTestCases = async ({
  api,
  keepGoing = () => true,
  ...services
}: {
  api: TestRunApi
  vad: VAD
  logger: Logger
  allowHosts: readonly string[]
  timeoutMs?: number
  /** Asked before each claim: false stops the loop (the worker is stopping). */
  keepGoing?: () => boolean
}) => {
  let ran = 0
  while (keepGoing()) {
    const testCase = await api.claim()
    if (!testCase) break
    const result = await runVoiceTestCase({ testCase, api, ...services })
    try {
      await api.report(testCase, result)
    } catch (error) {
      services.logger.warn(
        { runId: testCase.runId, testId: testCase.testId, error: messageOf(error) },
        'a voice test case’s result was not taken',
      )
    }
    ran++
  }
  return ran
}

/**
 * The worker's loop: asks for cases every TEST_POLL_INTERVAL_MS and runs them one at a time, in
 * the worker's main process (text mode needs no room, no audio and no job process). Stops on
 * `stop()`, after the case in hand.
 */
export const startTestRunner = (options: Parameters<typeof runClaimedTestCases>[0]) => {
  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let current: Promise<unknown> = Promise.resolve()
  const tick = () => {
    current = runClaimedTestCases({ ...options, keepGoing: () => !stopped })
      .catch((error: unknown) =>
        options.logger.warn({ error: messageOf(error) }, 'voice test cases could not be claimed'),
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, TEST_POLL_INTERVAL_MS)
      })
  }
  tick()
  return {
    stop: async () => {
      stopped = true
      clearTimeout(timer)
      await current
    },
  }
}
