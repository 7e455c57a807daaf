/**
 * Chunking: a document's blocks (headings and paragraphs) cut into passages of about
 * TARGET_CHARS, never across a heading, each carrying its heading path as its title and the
 * previous passage's last paragraph (or tail) as overlap, so an answer split by a cut is still
 * found whole in one of the two.
 */

export type Block = { kind: 'heading'; level: number; text: string } | { kind: 'text'; text: string }

export type ChunkDraft = { title: string; pageNumber: number | null; content: string }

export const TARGET_CHARS = 1000
export const MAX_CHARS = 1600
export const OVERLAP_CHARS = 200

/** A paragraph longer than MAX_CHARS, cut at sentence ends (or spaces) into pieces that fit. */
const splitLong = (text: string): string[] => {
  if (text.length <= MAX_CHARS) return [text]
  const pieces: string[] = []
  let rest = text
  while (rest.length > MAX_CHARS) {
    const window = rest.slice(0, TARGET_CHARS)
    const sentenceEnd = Math.max(window.lastIndexOf('. '), window.lastIndexOf('? '), window.lastIndexOf('! '))
    const space = window.lastIndexOf(' ')
    const cut =
      sentenceEnd > TARGET_CHARS / 2 ? sentenceEnd + 1 : space > TARGET_CHARS / 2 ? space : TARGET_CHARS
    pieces.push(rest.slice(0, cut).trim())
    rest = rest.slice(cut).trim()
  }
  if (rest) pieces.push(rest)
  return pieces
}

const tailOf = (text: string) => {
  if (text.length <= OVERLAP_CHARS) return text
  const tail = text.slice(-OVERLAP_CHARS)
  const space = tail.indexOf(' ')
  return space > 0 ? tail.slice(space + 1) : tail
}

export const chunkBlocks = ({
  blocks,
  documentTitle,
  pageNumber = null,
}: {
  blocks: Block[]
  documentTitle: string
  pageNumber?: number | null
}): ChunkDraft[] => {
  const chunks: ChunkDraft[] = []
  const headings: string[] = []
  let paragraphs: string[] = []
  let size = 0
  let overlap: string | null = null

  const titleNow = () => [documentTitle, ...headings.filter(Boolean)].filter(Boolean).join(' › ')
  const flush = ({ keepOverlap }: { keepOverlap: boolean }) => {
    if (paragraphs.length === 0) return
    const body = paragraphs.join('\n\n')
    chunks.push({ title: titleNow(), pageNumber, content: overlap ? `${overlap}\n\n${body}` : body })
    overlap = keepOverlap ? tailOf(paragraphs[paragraphs.length - 1] ?? '') : null
    paragraphs = []
    size = 0
  }

  for (const block of blocks) {
    const text = block.text.replace(/[ \t]+/g, ' ').trim()
    if (!text) continue
    if (block.kind === 'heading') {
      flush({ keepOverlap: false })
      overlap = null
      headings.length = Math.max(0, block.level - 1)
      headings[block.level - 1] = text
      continue
    }
    for (const piece of splitLong(text)) {
      if (size > 0 && size + piece.length > TARGET_CHARS) flush({ keepOverlap: true })
      paragraphs.push(piece)
      size += piece.length
    }
  }
  flush({ keepOverlap: false })
  return chunks
}

/** Plain text: paragraphs are separated by blank lines. */
export const blocksOfText = (text: string): Block[] =>
  text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, ' ').trim())
    .filter(Boolean)
    .map((paragraph) => ({ kind: 'text', text: paragraph }))

/** Markdown: ATX headings (#…) and paragraphs; link and emphasis marks dropped. */
export const blocksOfMarkdown = (markdown: string): Block[] => {
  const blocks: Block[] = []
  let lines: string[] = []
  const endParagraph = () => {
    const text = lines.join(' ').trim()
    if (text) blocks.push({ kind: 'text', text: stripMarkdown(text) })
    lines = []
  }
  for (const line of markdown.split(/\r?\n/)) {
    const heading = line.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/)
    if (heading) {
      endParagraph()
      blocks.push({ kind: 'heading', level: heading[1]?.length ?? 1, text: stripMarkdown(heading[2] ?? '') })
    } else if (line.trim() === '') {
      endParagraph()
    } else {
      lines.push(line.trim())
    }
  }
  endParagraph()
  return blocks
}

const stripMarkdown = (text: string) =>
  text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|`)/g, '')
