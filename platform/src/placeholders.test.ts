import { describe, expect, it } from 'vitest'
import { fillAll, fillPlaceholders } from './placeholders.ts'

describe('placeholders', () => {
  it('fills fields by name, tolerating spaces and case, and reports the unknown as empty', () => {
    const fields = { first_name: 'Amna', Plan: 'Gold' }
    expect(fillPlaceholders('Hi {{first_name}}, your {{ plan }} plan {{due}}.', fields)).toEqual({
      text: 'Hi Amna, your Gold plan .',
      unknown: ['due'],
    })
    expect(fillPlaceholders('No placeholders', fields)).toEqual({ text: 'No placeholders', unknown: [] })
  })

  it('fills several templates and merges what was unknown', () => {
    expect(
      fillAll(
        { prompt: 'Call {{name}} about {{x}}', greeting: 'Hello {{name}} {{y}}', last: null },
        { name: 'Bo' },
      ),
    ).toEqual({
      filled: { prompt: 'Call Bo about ', greeting: 'Hello Bo ', last: null },
      unknown: ['x', 'y'],
    })
  })
})
