/** "Now" for logic that tests must steer (batch scheduling and calling windows): a fake clock, not sleeps. */
export type Clock = { now: () => Date }

export const systemClock: Clock = Object.freeze({ now: () => new Date() })
