import { describe, expect, it } from 'vitest'
import { blocksOfMarkdown, chunkBlocks, MAX_CHARS } from './chunk.ts'

describe('chunkBlocks', () => {
  it('keeps the heading path as the title and never crosses a heading', () => {
    const blocks = blocksOfMarkdown(
      '# Shop\n\nWelcome.\n\n## Opening hours\n\nMonday to Friday, 9 to 17.\n\n## Returns\n\nThirty days.',
    )
    const chunks = chunkBlocks({ blocks, documentTitle: 'Acme' })
    expect(chunks.map(({ title, content }) => [title, content])).toEqual([
      ['Acme › Shop', 'Welcome.'],
      ['Acme › Shop › Opening hours', 'Monday to Friday, 9 to 17.'],
      ['Acme › Shop › Returns', 'Thirty days.'],
    ])
  })

  it('cuts long sections with overlap and no piece over the maximum', () => {
    const paragraph = (n: number) => `Paragraph ${n} ${'word '.repeat(80)}end.`
    const blocks = Array.from({ length: 12 }, (_, n) => ({ kind: 'text' as const, text: paragraph(n) }))
    const chunks = chunkBlocks({ blocks, documentTitle: 'Doc', pageNumber: 3 })
    expect(chunks.length).toBeGreaterThan(3)
    for (const chunk of chunks) expect(chunk.content.length).toBeLessThanOrEqual(MAX_CHARS + 250)
    expect(chunks[1]?.content).toContain('end.\n\nParagraph')
    expect(chunks.every(({ pageNumber }) => pageNumber === 3)).toBe(true)
  })
})
