import { Redis } from 'ioredis'

/** One shared connection; commands fail fast instead of queueing while Redis is away. */
export const connectRedis = (url: string) =>
  new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false })

export type RedisClient = ReturnType<typeof connectRedis>
