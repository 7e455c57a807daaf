import { llm } from '@livekit/agents'
import { asToolParameters } from './json-schema.ts'

export const SEND_DTMF_TOOL = 'send_dtmf'

/** The gap after each key, and the pause a `w` or `,` stands for (as phone dialers read them). */
export const DTMF_GAP_MS = 300
export const DTMF_PAUSE_MS = 500

const DIGITS = /^[0-9*#wW,]{1,64}$/

/** RFC 4733's event codes: 0-9 as themselves, * is 10, # is 11. */
export const dtmfCode = (digit: string) => (digit === '*' ? 10 : digit === '#' ? 11 : Number(digit))

export type Keypad = {
  /** Sends one key's tone into the call (the room's local participant, publishDtmf). */
  publishDtmf: (code: number, digit: string) => Promise<void>
  /** Waits between keys; the job's is a timer, the tests' may record. */
  wait: (ms: number) => Promise<void>
}

/** Presses the keys in order: a gap after each, a half-second pause for each w or ,. */
export const pressKeys = async (keypad: Keypad, digits: string) => {
  for (const key of digits) {
    if (key === 'w' || key === 'W' || key === ',') {
      await keypad.wait(DTMF_PAUSE_MS)
      continue
    }
    await keypad.publishDtmf(dtmfCode(key), key)
    await keypad.wait(DTMF_GAP_MS)
  }
}

/** send_dtmf: presses phone keys to get through a phone menu (IVR). */
export const sendDtmfTool = ({ keypad }: { keypad: Keypad }) =>
  llm.tool({
    name: SEND_DTMF_TOOL,
    description:
      'Press keys on the phone keypad, e.g. to choose an option of a phone menu. Digits 0-9, * and #; w or , pauses half a second.',
    parameters: asToolParameters({
      type: 'object',
      properties: {
        digits: {
          type: 'string',
          pattern: DIGITS.source,
          description: 'The keys in order, e.g. "2", "1234#" or "1w2"',
        },
      },
      required: ['digits'],
    }),
    execute: async (args: unknown) => {
      const digits = (args as { digits?: unknown }).digits
      if (typeof digits !== 'string' || !DIGITS.test(digits))
        throw new llm.ToolError('digits must be 1 to 64 of 0-9, *, #, and w or , for a pause')
      try {
        await pressKeys(keypad, digits)
      } catch (error) {
        throw new llm.ToolError(`The keys could not be pressed: ${String(error)}`)
      }
      return `Pressed ${digits}`
    },
  })
