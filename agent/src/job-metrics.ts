import { type metrics, voice } from '@livekit/agents'
import { z } from 'zod'

/** `http://127.0.0.1:<port> <token>`: where a job process reports, set by the worker for its children. */
export const METRICS_INTAKE_ENV = 'PARLEY_AGENT_METRICS_INTAKE'

const ZModelObservation = z.strictObject({
  kind: z.enum(['stt', 'llm', 'tts']),
  provider: z.string().max(200),
  model: z.string().max(200),
  seconds: z.number().min(0).max(3600),
})
export const ZObservation = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('job_started'), jobId: z.string().min(1).max(200) }),
  z.strictObject({ kind: z.literal('end_of_utterance'), seconds: z.number().min(0).max(3600) }),
  ZModelObservation,
])
export type Observation = z.infer<typeof ZObservation>

/** Reports are sent at most this often; a job's end sends what is left. */
const SEND_EVERY_MS = 500

const NO_REPORTER = { jobStarted: () => {}, watch: () => {}, flush: async () => {} }

/**
 * A job process's side of the worker's metrics: what its session measured (the framework's
 * `metrics_collected` events: end-of-utterance delay, STT, LLM, TTS), batched to the worker's
 * loopback intake (METRICS_INTAKE_ENV, inherited from the worker). Without the variable (a job
 * run outside a worker) nothing is reported. Losing a report loses a sample, never a call.
 */
export const createMetricsReporter = (env: NodeJS.ProcessEnv = process.env) => {
  const [url, token] = env[METRICS_INTAKE_ENV]?.split(' ') ?? []
  if (!url || !token) return NO_REPORTER
  let pending: Observation[] = []
  let timer: NodeJS.Timeout | undefined
  let sending: Promise<void> = Promise.resolve()

  const flush = async () => {
    clearTimeout(timer)
    timer = undefined
    const batch = pending.splice(0, 500)
    if (batch.length > 0)
      sending = sending.then(() =>
        fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(batch),
          signal: AbortSignal.timeout(2000),
        }).then(
          () => undefined,
          () => undefined,
        ),
      )
    await sending
  }
  const add = (observation: Observation) => {
    pending.push(observation)
    if (pending.length > 1000) pending = pending.slice(-1000)
    timer ??= setTimeout(() => void flush(), SEND_EVERY_MS).unref()
  }

  const modelOf = (metadata: metrics.MetricsMetadata | undefined, label: string) => ({
    provider: metadata?.modelProvider ?? label ?? 'unknown',
    model: metadata?.modelName ?? 'unknown',
  })

  const observe = (measured: metrics.AgentMetrics) => {
    switch (measured.type) {
      case 'eou_metrics':
        add({ kind: 'end_of_utterance', seconds: Math.max(0, measured.endOfUtteranceDelayMs) / 1000 })
        return
      case 'stt_metrics':
        add({
          kind: 'stt',
          ...modelOf(measured.metadata, measured.label),
          seconds: measured.durationMs / 1000,
        })
        return
      case 'llm_metrics':
      case 'realtime_model_metrics':
        if (measured.cancelled || measured.ttftMs < 0) return
        add({ kind: 'llm', ...modelOf(measured.metadata, measured.label), seconds: measured.ttftMs / 1000 })
        return
      case 'tts_metrics':
        if (measured.cancelled || measured.ttfbMs < 0) return
        add({ kind: 'tts', ...modelOf(measured.metadata, measured.label), seconds: measured.ttfbMs / 1000 })
        return
    }
  }

  return {
    /** The job's code is running: the worker times its start from when it accepted the job. */
    jobStarted: (jobId: string) => {
      add({ kind: 'job_started', jobId })
      void flush()
    },
    watch: (session: voice.AgentSession) => {
      session.on(voice.AgentSessionEventTypes.MetricsCollected, ({ metrics: measured }) => observe(measured))
    },
    flush,
  }
}

export type MetricsReporter = ReturnType<typeof createMetricsReporter>
