import { afterAll, describe, expect, it } from 'vitest'
import { detectFileType } from './file-type.ts'
import { createParser } from './parse.ts'
import { makeDocx, makePdf } from './test-fixtures.ts'

const parser = createParser({
  timeoutMs: 30_000,
  memoryMb: 64,
  maxPdfPages: 3,
  maxUnzippedBytes: 1024 * 1024,
})
afterAll(() => parser.close())

const parse = (bytes: Buffer, name: string) => {
  const type = detectFileType({ bytes, name })
  if (!type) throw new Error(`no type for ${name}`)
  return parser.parse({ bytes, type, fallbackTitle: name, url: null })
}

// A loaded machine takes seconds to start a thread and load pdf.js: limits here are generous.
describe('parsing documents in a worker thread', { timeout: 60_000 }, () => {
  it('reads each type, keeping titles and PDF page numbers', async () => {
    const pdf = await parse(
      makePdf(['Opening hours are nine to five.', 'Returns within thirty days.']),
      'guide.pdf',
    )
    expect(pdf.chunks.map(({ pageNumber, content }) => [pageNumber, content])).toEqual([
      [1, 'Opening hours are nine to five.'],
      [2, 'Returns within thirty days.'],
    ])
    const docx = await parse(await makeDocx(['# Warranty', 'Two years on every kettle.']), 'manual.docx')
    expect(docx.chunks).toEqual([
      { title: 'manual.docx › Warranty', pageNumber: null, content: 'Two years on every kettle.' },
    ])
    const html = await parse(
      Buffer.from(
        '<!doctype html><html><head><title>Shop</title></head><body><nav>Menu</nav><article><h1>Delivery</h1><p>We deliver on Tuesdays across the whole city, every week of the year, rain or shine, and the courier calls ahead.</p></article></body></html>',
      ),
      'page.html',
    )
    expect(html.chunks.some(({ content }) => content.includes('We deliver on Tuesdays'))).toBe(true)
    const csv = await parse(Buffer.from('product,price\nkettle,30\ntoaster,45\n'), 'prices.csv')
    expect(csv.chunks[0]?.content).toBe('product: kettle; price: 30\n\nproduct: toaster; price: 45')
  })

  it('fails a hostile or lying file alone and goes on with the next', async () => {
    await expect(
      parse(await makeDocx(['# Bomb'], { padding: 4 * 1024 * 1024 }), 'bomb.docx'),
    ).rejects.toThrow(/unpacks to more than/)
    await expect(parse(Buffer.from('%PDF-1.4\n garbage that is no pdf'), 'bad.pdf')).rejects.toThrow(
      /could not be read/,
    )
    await expect(parse(makePdf(['1', '2', '3', '4']), 'long.pdf')).rejects.toThrow(/has 4 pages/)
    expect(detectFileType({ bytes: Buffer.from('plain words'), name: 'fake.pdf' })).toBeNull()
    expect(detectFileType({ bytes: Buffer.from([0xff, 0xfe, 0x00, 0x41]), name: 'x.txt' })).toBeNull()
    const after = await parse(Buffer.from('Still working.'), 'note.txt')
    expect(after.chunks[0]?.content).toBe('Still working.')
  })

  it('ends a parse that runs past its time limit', async () => {
    const slow = createParser({ timeoutMs: 100, memoryMb: 64, maxPdfPages: 3, maxUnzippedBytes: 1024 })
    const big = Buffer.from(`${'<div>'.repeat(20_000)}x${'</div>'.repeat(20_000)}`)
    await expect(slow.parse({ bytes: big, type: 'html', fallbackTitle: 'deep', url: null })).rejects.toThrow(
      /longer than 100 ms/,
    )
    await slow.close()
  })
})
