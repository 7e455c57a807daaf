import { fork } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { Duplex } from 'node:stream'
import { PGlite } from '@electric-sql/pglite'
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin'
import type { Logger } from 'pino'

/** PostgreSQL's SSLRequest code: the first message of a client that would like TLS. */
const SSL_REQUEST_CODE = 80877103
/** The frontend's Terminate message: the connection ends; PGlite's one session goes on. */
const TERMINATE = 0x58

/**
 * Frontend messages the client waits on an answer to: Sync, Query, Flush, FunctionCall, CopyDone
 * and CopyFail (PostgreSQL's protocol, "Message Formats"), and the startup packet, which has no
 * type byte. Parse, Bind, Describe, Execute, Close and CopyData are answered with what follows them.
 */
const ANSWERED = new Set(['S', 'Q', 'H', 'F', 'c', 'f'].map((type) => type.charCodeAt(0)))
const needsAnswer = (message: Buffer) => ANSWERED.has(message[0] as number)

/**
 * One `pg` connection to PGlite, inside this process: what the client writes is cut into protocol
 * messages and handed to PGlite, and its answers are what the client reads. It stands where a
 * socket would: `pg` calls connect/setNoDelay/setKeepAlive/ref/unref on it, and nothing else
 * changes for the code above (the same SQL, the same pool, the same job queue).
 */
class PGliteConnection extends Duplex {
  private pending: Buffer = Buffer.alloc(0)
  /** Whole messages written and not yet handed to PGlite: the statement's first messages, before its Sync. */
  private batch: Buffer[] = []
  private hasStarted = false
  /** The startup packet is in the batch: it is answered at once. */
  private isStarting = false

  constructor(private readonly pglite: PGlite) {
    super()
    // A connection that goes away mid-transaction must not leave it open for the next one.
    this.once('close', () => {
      if (this.pglite.closed || !this.pglite.isInTransaction()) return
      void this.pglite.exec('rollback').catch(() => undefined)
    })
  }

  connect() {
    queueMicrotask(() => this.emit('connect'))
    return this
  }

  setNoDelay() {
    return this
  }

  setKeepAlive() {
    return this
  }

  ref() {
    return this
  }

  unref() {
    return this
  }

  override _read() {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void) {
    this.pending = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk
    this.batch.push(...this.takeMessages())
    // pg writes each message of a statement on its own (Parse, Bind, Describe, Execute, Sync), and
    // needs no answer before the one that ends it: those wait here and go to PGlite in one call,
    // one call a statement instead of four or five (`npm run bench -- chat`).
    if (!this.isStarting && !this.batch.some(needsAnswer)) {
      done()
      return
    }
    const input = Buffer.concat(this.batch)
    this.batch = []
    this.isStarting = false
    const answers: Buffer[] = []
    // PGlite runs the statement on this thread, synchronously, so it starts from the check phase:
    // undici checks an idle kept-alive socket in a setImmediate before writing a request to it, and
    // started in a microtask the chat claim and every statement after it ran before the model's
    // request went out (its first chunk ~2.5 ms later; `npm run bench -- chat` (a) 4.7 → 3.4 ms).
    setImmediate(() =>
      this.pglite
        .runExclusive(() =>
          this.pglite.execProtocolRawStream(new Uint8Array(input.buffer, input.byteOffset, input.length), {
            onRawData: (data) => void answers.push(Buffer.from(data)),
          }),
        )
        .then(
          () => {
            if (answers.length > 0) this.push(answers.length === 1 ? answers[0] : Buffer.concat(answers))
            done()
          },
          (error: Error) => done(error),
        ),
    )
  }

  override _final(done: () => void) {
    this.push(null)
    done()
  }

  /** The complete protocol messages at the front of what was written; SSL is declined here. */
  private takeMessages(): Buffer[] {
    const messages: Buffer[] = []
    for (;;) {
      if (!this.hasStarted) {
        // The startup packet (and an SSLRequest before it) has a length and no type byte.
        if (this.pending.length < 8) break
        const length = this.pending.readInt32BE(0)
        if (this.pending.length < length) break
        const packet = this.pending.subarray(0, length)
        this.pending = this.pending.subarray(length)
        if (packet.readInt32BE(4) === SSL_REQUEST_CODE) {
          this.push(Buffer.from('N'))
          continue
        }
        this.hasStarted = true
        this.isStarting = true
        messages.push(packet)
        continue
      }
      if (this.pending.length < 5) break
      const length = 1 + this.pending.readInt32BE(1)
      if (this.pending.length < length) break
      const message = this.pending.subarray(0, length)
      this.pending = this.pending.subarray(length)
      if (message[0] !== TERMINATE) messages.push(message)
    }
    return messages
  }
}

export type EmbeddedPostgres = {
  /** What `pg`'s `stream` option takes: a new connection to the embedded database. */
  connect: () => Duplex
  stop: () => Promise<void>
}

/**
 * Runs PostgreSQL's initdb for a new data directory in a child process. Done in this process it
 * left about 500 MiB behind (the initdb module and its memory, until some later collection):
 * a first start held 850 MiB where a restart holds 350.
 */
const initializeDataDirectory = async (directory: string, logger?: Logger) => {
  logger?.info({ directory }, 'creating the embedded database (first start only; a few seconds)')
  const child = fork(new URL('./embedded-init.js', import.meta.url), [directory], {
    execArgv: [],
    stdio: 'inherit',
  })
  const [code] = (await once(child, 'exit')) as [number | null]
  if (code !== 0) throw new Error(`could not create the embedded database in ${directory} (exit ${code})`)
}

/**
 * PostgreSQL's default of 128 MB is set up in the WebAssembly heap at every start: 0.3 s of CPU
 * per start on this kind of machine, 0.2 s with 16 MB (three starts each, load 18). The data files
 * are on the host's disk, whose page cache holds what these buffers would, and an embedded
 * deployment's working set is small.
 */
const SHARED_BUFFERS = '16MB'

/**
 * Starts PGlite persisted in `<dataDir>/pg`. `pg` reaches it through in-process connections
 * rather than a loopback socket: on a small machine every socket write is a system call that
 * costs more than a short statement, and a statement is a write each way. PGlite is one database
 * session, so the pool in front of it keeps one connection (see db/index.ts). LISTEN/NOTIFY does
 * not reach the client: anything that relies on notifications must also poll.
 */
export const startEmbeddedPostgres = async ({
  dataDir,
  logger,
  withVectors = false,
}: {
  dataDir: string
  logger?: Logger
  /** Loads PGlite's pgvector extension package (`create extension vector` then works). */
  withVectors?: boolean
}): Promise<EmbeddedPostgres> => {
  const directory = join(dataDir, 'pg')
  mkdirSync(directory, { recursive: true })
  if (!existsSync(join(directory, 'PG_VERSION'))) await initializeDataDirectory(directory, logger)
  const pglite = await PGlite.create({
    dataDir: directory,
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
    extensions: {
      btree_gin,
      ...(withVectors ? { vector: (await import('@electric-sql/pglite-pgvector')).vector } : {}),
    },
  })
  return {
    connect: () => new PGliteConnection(pglite),
    stop: async () => {
      await pglite.close()
    },
  }
}
