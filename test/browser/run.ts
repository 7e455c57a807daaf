import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AppendTranscript } from '@parley/shared'
import type { TestResult, TestSession, TestSuiteResult } from '@web/test-runner-core'
import cors from 'cors'
import express from 'express'
import type { HTTPRequest } from 'puppeteer-core'
import { changeBalance, getBalanceMicros } from '../../server/src/billing/service.ts'
import { appendCallTranscript } from '../../server/src/calls/records.ts'
import { startFakeLiveKit } from '../../server/test/helpers/fake-livekit.ts'
import { startFakeLlm } from '../../server/test/helpers/fake-llm.ts'
import { respondJson, startHttpTarget } from '../../server/test/helpers/http-target.ts'
import { startTestServer } from '../../server/test/helpers/test-server.ts'
import { buildForBrowsers } from '../build-for-browsers.ts'
import { createCspPage } from './csp-page.ts'
import { createFixtures } from './fixtures.ts'
import { createTestControl } from './test-control.ts'

export type Counts = { passed: number; failed: number; skipped: number }

const VOICE_CHUNK = /\/widget\/voice-[\w-]+\.js$/

/**
 * The voice chunk's test seam: the real chunk (widget/src/voice/call.ts and everything it imports)
 * bundled with `livekit-client` resolved to widget/test/support/scripted-livekit.js, whose room the
 * test drives as LiveKit would. Served only to the pages that ask for it (`parley-scripted-voice`).
 */
const buildScriptedVoiceChunk = async () => {
  const { build } = await import('esbuild')
  const result = await build({
    entryPoints: [join(root, 'widget/src/voice/call.ts')],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    alias: { 'livekit-client': join(root, 'widget/test/support/scripted-livekit.js') },
  })
  const [output] = result.outputFiles
  if (!output) throw new Error('the scripted voice chunk was not built')
  return output.text
}

const CHROMIUM = '/usr/bin/chromium'
const root = fileURLToPath(new URL('../..', import.meta.url))
const testFiles = 'widget/test/**/*.test.js'
export const screenshotDirectory = join(root, 'test-output', 'widget')

const countTests = (suite: TestSuiteResult | undefined, counts: Counts) => {
  if (!suite) return
  const add = (test: TestResult) => {
    if (test.skipped) counts.skipped++
    else if (test.passed) counts.passed++
    else {
      counts.failed++
      process.stdout.write(`  ✗ ${test.name}: ${test.error?.message ?? 'failed'}\n`)
    }
  }
  suite.tests.forEach(add)
  for (const child of suite.suites) countTests(child, counts)
}

/** Without a browser the tests are counted as skipped, loudly; CI insists on the browser. */
const skipWithoutBrowser = (): Counts => {
  if (process.env.CI || process.env.PARLEY_REQUIRE_BROWSER)
    throw new Error(`Chromium not found at ${CHROMIUM}`)
  const files = execFileSync('sh', ['-c', `ls ${join(root, 'widget/test')}/*.test.js`])
    .toString()
    .split('\n')
  const skipped = files
    .filter(Boolean)
    .reduce((sum, file) => sum + (readFileSync(file, 'utf8').match(/\bit\(/g)?.length ?? 0), 0)
  process.stdout.write(
    `\n!!! browser tests SKIPPED: Chromium not found at ${CHROMIUM} (${skipped} tests) !!!\n\n`,
  )
  return { passed: 0, failed: 0, skipped }
}

/**
 * Builds the widget, boots a real Parley server (embedded or TEST_DATABASE_URL, like every server
 * test) that serves it, and runs widget/test/*.test.js in Debian's Chromium with @web/test-runner.
 * A second server has LiveKit configured (the fake Twirp server) for the voice tests; the first has
 * none, so its voice sessions answer the spec's 500. `files` narrows the run (a glob from the root).
 */
export const runBrowserTests = async (files = testFiles): Promise<Counts> => {
  if (!existsSync(CHROMIUM)) return skipWithoutBrowser()
  buildForBrowsers(['widget'])
  mkdirSync(screenshotDirectory, { recursive: true })
  const { startTestRunner } = await import('@web/test-runner')
  const { chromeLauncher } = await import('@web/test-runner-chrome')
  // The third parties, as real HTTP servers: the model provider and the shop behind lookup_order.
  const llm = await startFakeLlm()
  const control = createTestControl({ llm })
  // The shop answers once the test opens its gate, so the tool status line can be seen for sure.
  const shop = await startHttpTarget((_request, response) => {
    void control.gate('shop').then(() => respondJson(response, 200, { order: 'A1', status: 'shipped' }))
  })
  const server = await startTestServer({
    seedDemo: true,
    env: {
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'browser-test-llm-key',
      // Custom functions call out only to public https hosts; the local shop is allowed by name.
      OUTBOUND_ALLOW_HOSTS: shop.hostAndPort,
      // Voice is on, but its media server is down (nothing listens there): voice sessions answer
      // 500 media_server_error, as when LiveKit cannot be reached.
      LIVEKIT_URL: 'ws://127.0.0.1:9',
      LIVEKIT_API_KEY: 'unreachable',
      LIVEKIT_API_SECRET: 'unreachable-media-server-secret-0123456789',
    },
    extendApp: ({ app, ctx }) => {
      control.mount({ app, ctx })
      app.use('/csp-test', createCspPage())
    },
  })
  const demo = server.demo?.tenant
  if (!demo) throw new Error('the demo tenant was not seeded')
  const fixtures = await createFixtures({ baseUrl: server.url, demo, customerOrigin: shop.origin })
  // A deployment without voice at all (no LiveKit): the widget must not offer a microphone there.
  const voiceOffServer = await startTestServer({ seedDemo: true })
  const liveKit = await startFakeLiveKit()
  const scriptedVoiceChunk = await buildScriptedVoiceChunk()
  const voiceServer = await startTestServer({
    seedDemo: true,
    // The server gives up on an agent after one second (the shortest bound), so the test of a call
    // no agent takes sees the server end it without waiting the 15 s default.
    env: { ...liveKit.env, AGENT_JOIN_TIMEOUT_SECONDS: '1' },
    extendApp: ({ app, ctx }) => {
      // What the server asked of LiveKit, for the test that follows a call up to the connection.
      app.get('/test-only/livekit-calls', cors({ origin: '*' }), (_req, res) => {
        res.json({
          methods: liveKit.calls.map((call) => call.method),
          deletedRooms: liveKit.callsTo('RoomService/DeleteRoom').map((call) => call.body.room),
        })
      })
      // What the voice worker would post as the call's transcript (no worker runs in these tests):
      // the real append, so a call that continues a chat lands in that chat's history.
      // Sent as text/plain, so the page needs no CORS preflight.
      app.post(
        '/test-only/speak',
        cors({ origin: '*' }),
        express.json({ type: () => true }),
        async (req, res) => {
          const { roomName, lines } = req.body as { roomName: string; lines: AppendTranscript['lines'] }
          const call = await ctx.db
            .selectFrom('calls')
            .select('id')
            .where('room_name', '=', roomName)
            .executeTakeFirstOrThrow()
          res.json(await appendCallTranscript(ctx, call.id, { lines, toolCalls: [] }))
        },
      )
      // Empties the demo organization's credits (the 402 test runs last for that reason).
      app.post('/test-only/drain-credits', cors({ origin: '*' }), async (_req, res) => {
        const organizationId = voiceServer.demo?.tenant.organizationId ?? ''
        const balance = await getBalanceMicros(ctx.db, organizationId)
        await changeBalance(ctx, {
          organizationId,
          amountMicros: -balance,
          kind: 'correction',
          reason: 'test',
        })
        res.json({ drained: true })
      })
    },
  })
  const serveScriptedChunk = (request: HTTPRequest) => {
    if (request.isInterceptResolutionHandled()) return
    if (VOICE_CHUNK.test(new URL(request.url()).pathname))
      void request.respond({
        status: 200,
        contentType: 'text/javascript',
        headers: { 'access-control-allow-origin': '*' },
        body: scriptedVoiceChunk,
      })
    else void request.continue()
  }
  const launcher = chromeLauncher({
    launchOptions: {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        // A fake microphone. Not --use-fake-ui-for-media-stream: it grants every request and ignores
        // permission overrides, so the denial test could not deny; tests grant or deny per origin.
        '--use-fake-device-for-media-stream',
      ],
    },
  })
  const settings = {
    baseUrl: server.url,
    key: demo.widgetKey,
    agentId: demo.textAgentId,
    organizationId: demo.organizationId,
    ...fixtures,
    voiceAgentId: demo.pipelineAgentId,
    voiceOff: {
      baseUrl: voiceOffServer.url,
      key: voiceOffServer.demo?.tenant.widgetKey ?? '',
      agentId: voiceOffServer.demo?.tenant.textAgentId ?? '',
      voiceAgentId: voiceOffServer.demo?.tenant.pipelineAgentId ?? '',
    },
    liveKit: {
      baseUrl: voiceServer.url,
      key: voiceServer.demo?.tenant.widgetKey ?? '',
      voiceAgentId: voiceServer.demo?.tenant.pipelineAgentId ?? '',
      textAgentId: voiceServer.demo?.tenant.textAgentId ?? '',
    },
  }
  try {
    const runner = await startTestRunner({
      readCliArgs: false,
      readFileConfig: false,
      autoExitProcess: false,
      config: {
        rootDir: root,
        files: [files],
        nodeResolve: true,
        browsers: [launcher],
        concurrency: 1,
        watch: false,
        staticLogging: true,
        // Generous: a whole conversation is one test, and shared CI machines can be slow.
        testFramework: { config: { timeout: 30_000 } },
        testsFinishTimeout: 180_000,
        testRunnerHtml: (framework) => `<!doctype html><html><head><meta charset="utf-8"></head><body>
          <script>window.PARLEY_TEST = ${JSON.stringify(settings)}</script>
          <script src="${server.url}/widget/parley.js"></script>
          <script type="module" src="${framework}"></script></body></html>`,
        plugins: [
          {
            name: 'parley-screenshot',
            executeCommand: async ({ command, payload, session }) => {
              if (command === 'parley-microphone') {
                // Grants or denies the microphone for real, as the visitor's answer to the prompt would.
                const { origin, isAllowed } = payload as { origin: string; isAllowed: boolean }
                await launcher
                  .getPage(session.id)
                  .browserContext()
                  .overridePermissions(origin, isAllowed ? ['microphone'] : [])
                return true
              }
              if (command === 'parley-scripted-voice') {
                // The asking test file's page gets the voice chunk built on the scripted room (see
                // buildScriptedVoiceChunk) until it asks to stop; other files keep the real one.
                const { isOn } = payload as { isOn: boolean }
                const page = launcher.getPage(session.id)
                page.off('request', serveScriptedChunk)
                if (isOn) page.on('request', serveScriptedChunk)
                await page.setRequestInterception(isOn)
                return true
              }
              if (command !== 'parley-screenshot') return undefined
              const { name } = payload as { name: string }
              await launcher
                .getPage(session.id)
                .screenshot({ path: join(screenshotDirectory, `${name}.png`) as `${string}.png` })
              return true
            },
          },
        ],
      },
    })
    if (!runner) throw new Error('@web/test-runner did not start')
    await new Promise<void>((resolve) => runner.on('finished', () => resolve()))
    const counts: Counts = { passed: 0, failed: 0, skipped: 0 }
    for (const session of runner.sessions.all() as Iterable<TestSession>) {
      countTests(session.testResults, counts)
      for (const error of session.errors) {
        counts.failed++
        process.stdout.write(`  ✗ ${session.testFile}: ${error.message}\n`)
      }
    }
    await runner.stop()
    return counts
  } finally {
    await Promise.all([server.destroy(), voiceServer.destroy(), voiceOffServer.destroy(), liveKit.close()])
    await Promise.all([llm.close(), shop.close()])
  }
}
