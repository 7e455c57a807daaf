import { parentPort } from 'node:worker_threads'
import { parseHTML } from 'linkedom'
import { type Block, blocksOfMarkdown, blocksOfText, type ChunkDraft, chunkBlocks } from './chunk.ts'
import type { FileType } from './file-type.ts'

/**
 * Runs in a worker thread (parse.ts): one document's bytes → its title, its links (HTML, for the
 * crawl) and its chunks. A hostile file can only exhaust this thread, which parse.ts ends.
 */

export type ParseRequest = {
  id: number
  bytes: Uint8Array
  type: FileType
  /** The title to use when the document names none. */
  fallbackTitle: string
  /** The page's URL: links are resolved against it. */
  url: string | null
  maxPdfPages: number
  maxUnzippedBytes: number
}

export type ParseResult = { title: string; links: string[]; chunks: ChunkDraft[] }
export type ParseReply =
  | { id: number; ok: true; result: ParseResult }
  | { id: number; ok: false; error: string }

class DocumentError extends Error {}

const blockTags = new Set(['P', 'LI', 'PRE', 'BLOCKQUOTE', 'TD', 'TH', 'DT', 'DD', 'FIGCAPTION', 'CAPTION'])

/** Headings and paragraphs of an element, in document order (nested blocks read once). */
const blocksOfElement = (root: Element): Block[] => {
  const blocks: Block[] = []
  const walk = (element: Element) => {
    for (const child of Array.from(element.children)) {
      const heading = child.tagName.match(/^H([1-6])$/)
      if (heading) blocks.push({ kind: 'heading', level: Number(heading[1]), text: child.textContent ?? '' })
      else if (
        blockTags.has(child.tagName) &&
        child.querySelector('p, li, h1, h2, h3, h4, h5, h6, table') === null
      )
        blocks.push({ kind: 'text', text: child.textContent ?? '' })
      else if (child.children.length === 0) blocks.push({ kind: 'text', text: child.textContent ?? '' })
      else walk(child)
    }
  }
  walk(root)
  return blocks
}

// The heavier parsers load on first use: a thread that reads only web pages never loads pdf.js.
const parseHtmlDocument = async (
  html: string,
  { url, fallbackTitle }: { url: string | null; fallbackTitle: string },
) => {
  const { Readability } = await import('@mozilla/readability')
  const { document } = parseHTML(html)
  const links = url
    ? Array.from(document.querySelectorAll('a[href]')).flatMap((anchor) => {
        try {
          const link = new URL(anchor.getAttribute('href') ?? '', url)
          link.hash = ''
          return [link.toString()]
        } catch {
          return []
        }
      })
    : []
  const documentTitle = document.querySelector('title')?.textContent?.trim() || fallbackTitle
  const article = new Readability(document as unknown as Document, { charThreshold: 100 }).parse()
  const content = article?.content
    ? parseHTML(`<html><body>${article.content}</body></html>`).document.body
    : document.body
  const title = article?.title?.trim() || documentTitle
  return { title, links, blocks: content ? blocksOfElement(content as unknown as Element) : [] }
}

const parseDocx = async (bytes: Uint8Array, maxUnzippedBytes: number) => {
  const { default: JSZip } = await import('jszip')
  const { default: mammoth } = await import('mammoth')
  const zip = await JSZip.loadAsync(bytes)
  if (!zip.file('word/document.xml')) throw new DocumentError('not a Word document (no word/document.xml)')
  // A zip bomb is refused by its directory's sizes before anything is inflated.
  let unzipped = 0
  zip.forEach((_path, entry) => {
    unzipped += (entry as unknown as { _data?: { uncompressedSize?: number } })._data?.uncompressedSize ?? 0
  })
  if (unzipped > maxUnzippedBytes) throw new DocumentError(`unpacks to more than ${maxUnzippedBytes} bytes`)
  const { value } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) })
  return value
}

const parsePdf = async (
  bytes: Uint8Array,
  { maxPdfPages, title }: { maxPdfPages: number; title: string },
) => {
  const { extractText, getDocumentProxy } = await import('unpdf')
  const pdf = await getDocumentProxy(new Uint8Array(bytes))
  if (pdf.numPages > maxPdfPages)
    throw new DocumentError(`has ${pdf.numPages} pages; at most ${maxPdfPages} are read`)
  const { text } = await extractText(pdf, { mergePages: false })
  return text.flatMap((pageText: string, index: number) =>
    chunkBlocks({ blocks: blocksOfText(pageText), documentTitle: title, pageNumber: index + 1 }),
  )
}

const parseCsvDocument = async (text: string): Promise<Block[]> => {
  const { parse: parseCsv } = await import('csv-parse/sync')
  const records = parseCsv(text, {
    skip_empty_lines: true,
    relax_column_count: true,
    bom: true,
  }) as string[][]
  const [header, ...rows] = records
  if (!header) return []
  return rows.map((row) => ({
    kind: 'text',
    text: row.map((value, index) => `${header[index] ?? `column ${index + 1}`}: ${value}`).join('; '),
  }))
}

export const parseDocument = async (request: ParseRequest): Promise<ParseResult> => {
  const text = () => new TextDecoder().decode(request.bytes).replace(/^\uFEFF/, '')
  const title = request.fallbackTitle
  switch (request.type) {
    case 'pdf':
      return {
        title,
        links: [],
        chunks: await parsePdf(request.bytes, { maxPdfPages: request.maxPdfPages, title }),
      }
    case 'docx': {
      const html = await parseDocx(request.bytes, request.maxUnzippedBytes)
      const blocks = blocksOfElement(
        parseHTML(`<html><body>${html}</body></html>`).document.body as unknown as Element,
      )
      return { title, links: [], chunks: chunkBlocks({ blocks, documentTitle: title }) }
    }
    case 'html': {
      const page = await parseHtmlDocument(text(), { url: request.url, fallbackTitle: title })
      return {
        title: page.title,
        links: page.links,
        chunks: chunkBlocks({ blocks: page.blocks, documentTitle: page.title }),
      }
    }
    case 'markdown':
      return {
        title,
        links: [],
        chunks: chunkBlocks({ blocks: blocksOfMarkdown(text()), documentTitle: title }),
      }
    case 'csv':
      return {
        title,
        links: [],
        chunks: chunkBlocks({ blocks: await parseCsvDocument(text()), documentTitle: title }),
      }
    case 'text':
      return { title, links: [], chunks: chunkBlocks({ blocks: blocksOfText(text()), documentTitle: title }) }
  }
}

parentPort?.on('message', (request: ParseRequest) => {
  parseDocument(request).then(
    (result) => parentPort?.postMessage({ id: request.id, ok: true, result } satisfies ParseReply),
    (error: unknown) =>
      parentPort?.postMessage({
        id: request.id,
        ok: false,
        error:
          error instanceof DocumentError
            ? error.message
            : `could not be read (${error instanceof Error ? error.message.slice(0, 200) : 'unknown error'})`,
      } satisfies ParseReply),
  )
})
