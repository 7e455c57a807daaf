/** The kinds of document knowledge reads. */
export type FileType = 'pdf' | 'docx' | 'html' | 'markdown' | 'text' | 'csv'

const startsWith = (bytes: Uint8Array, prefix: string) =>
  bytes.length >= prefix.length && [...prefix].every((char, index) => bytes[index] === char.charCodeAt(0))

const isUtf8Text = (bytes: Uint8Array) => {
  if (bytes.includes(0)) return false
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return true
  } catch {
    return false
  }
}

const looksLikeHtml = (head: string) =>
  /^\s*(<!--[\s\S]*?-->\s*)*<(!doctype html|html|head|body)[\s>]/i.test(head)

const extensionOf = (name: string) => name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? ''

/**
 * The type of a document by its bytes: PDF and DOCX by their signatures (a DOCX is a zip, checked
 * for word/document.xml when it is opened), everything else must be UTF-8 text; among texts, the
 * name (or Content-Type) picks Markdown or CSV, and HTML is recognized by its opening tag. Null:
 * not a type knowledge reads, or a name that claims a type the bytes are not.
 */
export const detectFileType = ({
  bytes,
  name = '',
  contentType = '',
}: {
  bytes: Uint8Array
  name?: string
  contentType?: string
}): FileType | null => {
  const extension = extensionOf(name)
  const declared = contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  if (startsWith(bytes, '%PDF-')) return 'pdf'
  if (startsWith(bytes, 'PK\u0003\u0004'))
    return extension === 'docx' || declared.includes('wordprocessingml') || extension === '' ? 'docx' : null
  if (['pdf', 'docx', 'doc', 'zip', 'xlsx', 'pptx'].includes(extension)) return null
  if (!isUtf8Text(bytes)) return null
  const head = new TextDecoder().decode(bytes.subarray(0, 2048)).replace(/^\uFEFF/, '')
  if (looksLikeHtml(head) || declared === 'text/html' || ['html', 'htm'].includes(extension)) return 'html'
  if (['md', 'markdown'].includes(extension) || declared === 'text/markdown') return 'markdown'
  if (extension === 'csv' || declared === 'text/csv') return 'csv'
  return 'text'
}
