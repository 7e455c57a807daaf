import { randomFillSync } from 'node:crypto'
import { monotonicFactory, ulid } from 'ulid'

/**
 * ULIDs whose random part comes from a pool of bytes from the system's CSPRNG, refilled 4 KiB at a
 * time (as Node's randomUUID keeps a cache of entropy). ulid's own `ulid()` looks up its random
 * source on every call, then asks WebCrypto for one byte per character through a new Uint8Array:
 * 16 calls an id; a chat reply makes several ids (CPU profile: 0.14 ms of `getRandomValues` a
 * reply, 16 KiB of allocation). Each byte gives a character as ulid's own source does
 * (byte / 256), so the ids are drawn from the same distribution. Lint keeps `ulid` imports here.
 */
const pool = new Uint8Array(4096)
let next = pool.length

const pooledRandom = () => {
  if (next === pool.length) {
    randomFillSync(pool)
    next = 0
  }
  return (pool[next++] as number) / 256
}

/** A new ULID: the time now, then 80 random bits. */
export const newUlid = (): string => ulid(undefined, pooledRandom)

/** ULIDs that sort in the order they were made, even within one millisecond. */
export const monotonicUlids = () => monotonicFactory(pooledRandom)
