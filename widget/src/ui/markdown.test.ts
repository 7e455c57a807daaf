import { describe, expect, it } from 'vitest'
import { parseInline, parseMarkdown, toSafeHref } from './markdown.ts'

describe('markdown', () => {
  it('parses paragraphs, emphasis, code and lists', () => {
    expect(parseMarkdown('Hello **bold** and *em* with `x<y`\n\n- one\n- two\n\n1. first')).toEqual([
      {
        type: 'paragraph',
        children: [
          'Hello ',
          { type: 'strong', children: ['bold'] },
          ' and ',
          { type: 'em', children: ['em'] },
          ' with ',
          { type: 'code', text: 'x<y' },
        ],
      },
      { type: 'list', isOrdered: false, items: [['one'], ['two']] },
      { type: 'list', isOrdered: true, items: [['first']] },
    ])
  })

  it('keeps HTML as text: there is no node that could carry markup', () => {
    const blocks = parseMarkdown('<img src=x onerror="alert(1)"> <script>alert(2)</script>')
    expect(blocks).toEqual([
      { type: 'paragraph', children: ['<img src=x onerror="alert(1)"> <script>alert(2)</script>'] },
    ])
  })

  it('links only to http(s) and mailto; javascript: and data: stay text', () => {
    expect(parseInline('[docs](https://example.com/a)')).toEqual([
      { type: 'link', href: 'https://example.com/a', children: ['docs'] },
    ])
    expect(parseInline('[x](javascript:alert(1))')).not.toContainEqual(
      expect.objectContaining({ type: 'link' }),
    )
    expect(parseInline('[x](JaVaScRiPt:alert(1))')).not.toContainEqual(
      expect.objectContaining({ type: 'link' }),
    )
    expect(toSafeHref('data:text/html,<b>')).toBeNull()
    expect(toSafeHref(' mailto:a@b.c ')).toBe('mailto:a@b.c')
  })

  it('turns bare URLs into links without the closing punctuation', () => {
    expect(parseInline('See https://example.com/x.')).toEqual([
      'See ',
      { type: 'link', href: 'https://example.com/x', children: ['https://example.com/x'] },
      '.',
    ])
  })

  it('leaves underscores inside words alone and shows a refused link as typed', () => {
    expect(parseInline('call window.__pwned and snake_case_name')).toEqual([
      'call window.__pwned and snake_case_name',
    ])
    expect(parseInline('[bad](javascript:x) and _em_')).toEqual([
      '[bad](javascript:x)',
      ' and ',
      { type: 'em', children: ['em'] },
    ])
  })

  it('renders a fenced block literally, also while it is still streaming', () => {
    expect(parseMarkdown('```\n**not bold**\n<b>')).toEqual([{ type: 'code', text: '**not bold**\n<b>' }])
  })
})
