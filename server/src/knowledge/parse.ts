import { Worker } from 'node:worker_threads'
import type { FileType } from './file-type.ts'
import type { ParseReply, ParseRequest, ParseResult } from './parse-thread.ts'

/** A document that could not be read: the reason is safe to show the owner. */
export class ParseError extends Error {
  override name = 'ParseError'
}

export type Parser = {
  parse: (
    input: Omit<ParseRequest, 'id' | 'maxPdfPages' | 'maxUnzippedBytes'> & { type: FileType },
  ) => Promise<ParseResult>
  close: () => Promise<void>
}

const bootUrl = new URL('./parse-thread-boot.mjs', import.meta.url)
const entry = new URL('./parse-thread.ts', import.meta.url).href

/**
 * Documents are parsed off the event loop, in one worker thread per ingest, under a heap limit
 * and a time limit per document: a document that runs past either ends the thread (the next
 * document gets a fresh one) and fails alone.
 */
export const createParser = ({
  timeoutMs,
  memoryMb,
  maxPdfPages,
  maxUnzippedBytes,
}: {
  timeoutMs: number
  memoryMb: number
  maxPdfPages: number
  maxUnzippedBytes: number
}): Parser => {
  let worker: Worker | null = null
  let nextId = 1

  const spawn = () => {
    const thread = new Worker(bootUrl, {
      workerData: { entry },
      resourceLimits: {
        maxOldGenerationSizeMb: memoryMb,
        maxYoungGenerationSizeMb: Math.max(8, memoryMb / 8),
      },
      stdout: true,
      stderr: true,
    })
    thread.unref()
    return thread
  }

  const end = async (thread: Worker) => {
    if (worker === thread) worker = null
    await thread.terminate().catch(() => undefined)
  }

  return {
    parse: (input) => {
      const thread = worker ?? spawn()
      worker = thread
      const id = nextId++
      return new Promise<ParseResult>((resolve, reject) => {
        const finish = (outcome: () => void) => {
          clearTimeout(timer)
          thread.off('message', onMessage)
          thread.off('error', onError)
          thread.off('exit', onExit)
          outcome()
        }
        const timer = setTimeout(() => {
          finish(() => reject(new ParseError(`took longer than ${timeoutMs} ms to read`)))
          void end(thread)
        }, timeoutMs)
        const onMessage = (reply: ParseReply) => {
          if (reply.id !== id) return
          finish(() => (reply.ok ? resolve(reply.result) : reject(new ParseError(reply.error))))
        }
        const onError = (error: Error) => {
          const isMemory =
            /memory|heap/i.test(error.message) ||
            (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
          finish(() =>
            reject(
              new ParseError(isMemory ? `needed more than ${memoryMb} MiB to read` : 'could not be read'),
            ),
          )
          void end(thread)
        }
        const onExit = () => {
          finish(() => reject(new ParseError('could not be read (the parser stopped)')))
          if (worker === thread) worker = null
        }
        thread.on('message', onMessage)
        thread.once('error', onError)
        thread.once('exit', onExit)
        const request: ParseRequest = { ...input, id, maxPdfPages, maxUnzippedBytes }
        thread.postMessage(request)
      })
    },
    close: async () => {
      if (worker) await end(worker)
    },
  }
}
