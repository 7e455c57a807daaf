declare module 'safe-regex' {
  /** False when the pattern's star height could make it run in exponential time. */
  const safeRegex: (pattern: string | RegExp, options?: { limit?: number }) => boolean
  export default safeRegex
}
