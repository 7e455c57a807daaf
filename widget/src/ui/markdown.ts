/**
 * The small markdown subset an assistant reply may use: paragraphs, emphasis, lists, links, code.
 * It parses to plain data that the view renders as elements with text children, so HTML in the
 * model's output can only ever appear as text: there is no innerHTML anywhere in the widget.
 */

export type Inline =
  | string
  | { type: 'strong' | 'em'; children: Inline[] }
  | { type: 'code'; text: string }
  | { type: 'link'; href: string; children: Inline[] }

export type Block =
  | { type: 'paragraph'; children: Inline[] }
  | { type: 'list'; isOrdered: boolean; items: Inline[][] }
  | { type: 'code'; text: string }

/** Only web and mail links: `javascript:`, `data:` and friends stay text. */
export const toSafeHref = (raw: string): string | null => {
  const href = raw.trim()
  return /^(https?:\/\/|mailto:)/i.test(href) && !/[\s<>"]/.test(href) ? href : null
}

// Order matters: code first (its content is literal), then links, then emphasis. Underscores count
// only at word edges, so identifiers like snake_case or __proto__ inside words stay as typed.
const INLINE =
  /`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*|(?<![\p{L}\p{N}_])__([^_]+)__(?![\p{L}\p{N}_])|\*([^*\s][^*]*)\*|(?<![\p{L}\p{N}_])_([^_\s][^_]*)_(?![\p{L}\p{N}_])|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/gu

export const parseInline = (text: string): Inline[] => {
  const out: Inline[] = []
  let last = 0
  for (const match of text.matchAll(INLINE)) {
    const [whole, code, label, url, strong1, strong2, em1, em2, bare] = match
    if (match.index > last) out.push(text.slice(last, match.index))
    last = match.index + whole.length
    if (code !== undefined) out.push({ type: 'code', text: code })
    else if (label !== undefined) {
      const href = toSafeHref(url ?? '')
      out.push(href ? { type: 'link', href, children: parseInline(label) } : whole)
    } else if (strong1 ?? strong2)
      out.push({ type: 'strong', children: parseInline(strong1 ?? strong2 ?? '') })
    else if (em1 ?? em2) out.push({ type: 'em', children: parseInline(em1 ?? em2 ?? '') })
    else if (bare) out.push({ type: 'link', href: bare, children: [bare] })
  }
  if (last < text.length) out.push(text.slice(last))
  return out
}

const LIST_ITEM = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/

export const parseMarkdown = (source: string): Block[] => {
  const blocks: Block[] = []
  const lines = source.replace(/\r\n?/g, '\n').split('\n')
  let paragraph: string[] = []
  const flush = () => {
    if (paragraph.length) blocks.push({ type: 'paragraph', children: parseInline(paragraph.join('\n')) })
    paragraph = []
  }
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? ''
    if (line.trimStart().startsWith('```')) {
      flush()
      const code: string[] = []
      // An unclosed fence (a reply still streaming) runs to the end.
      while (++index < lines.length && !(lines[index] ?? '').trimStart().startsWith('```'))
        code.push(lines[index] ?? '')
      blocks.push({ type: 'code', text: code.join('\n') })
      continue
    }
    const item = LIST_ITEM.exec(line)
    if (item) {
      flush()
      const isOrdered = item[2] !== undefined
      const last = blocks.at(-1)
      const children = parseInline(item[3] ?? '')
      if (last?.type === 'list' && last.isOrdered === isOrdered) last.items.push(children)
      else blocks.push({ type: 'list', isOrdered, items: [children] })
      continue
    }
    if (line.trim() === '') flush()
    else paragraph.push(line.replace(/^#{1,6}\s+/, ''))
  }
  flush()
  return blocks
}
