import { ZCreateKnowledgeSource } from '@parley/shared'
import type { Request, RequestHandler } from 'express'
import multer from 'multer'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { findBadJson } from '../http/input-guard.ts'
import type { Upload } from './service.ts'

const toAppError = (req: Request, error: unknown, maxBytes: number) => {
  if (error instanceof AppError) return error
  if (req.readableAborted) return AppError.clientClosedRequest()
  if (!(error instanceof multer.MulterError))
    return AppError.badRequest('The multipart body could not be read')
  if (error.code === 'LIMIT_FILE_SIZE')
    return new AppError({
      status: 413,
      code: 'payload_too_large',
      message: `file: larger than ${maxBytes} bytes`,
    })
  if (error.code === 'LIMIT_UNEXPECTED_FILE')
    return AppError.badRequest('Send the document in one form field named "file"')
  return AppError.badRequest(`The multipart body is not acceptable: ${error.message}`)
}

/**
 * JSON (text, url, site) or multipart/form-data (kind=file and the document, held in memory up to
 * KNOWLEDGE_MAX_FILE_BYTES); any other media type is refused before any work.
 */
export const acceptDocumentOrJson = (ctx: AppContext): RequestHandler => {
  const maxBytes = ctx.config.knowledge.maxFileBytes
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: 1, fields: 5, fieldSize: 4096, parts: 6 },
  }).single('file')
  return (req, res, next) => {
    if (req.is('multipart/form-data')) {
      upload(req, res, (error?: unknown) => {
        if (error) return next(toAppError(req, error, maxBytes))
        const problem = findBadJson(req.body ?? {})
        if (problem) return next(AppError.badRequest(problem, 'invalid_encoding'))
        next()
      })
      return
    }
    if (req.is('application/json')) return next(unknownFieldOf(req.body))
    next(
      new AppError({
        status: 415,
        code: 'unsupported_media_type',
        message: 'Send application/json (text, url, site) or multipart/form-data with kind=file and a file',
      }),
    )
  }
}

/** Every field some kind of source takes: the union's options are only tried once `kind` is known. */
const knownFields = new Set(ZCreateKnowledgeSource.options.flatMap((option) => Object.keys(option.shape)))

/** A field no kind takes, named as the strict schemas elsewhere name theirs (even without `kind`). */
const unknownFieldOf = (body: unknown) => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined
  const issues = Object.keys(body)
    .filter((field) => !knownFields.has(field))
    .map((field) => ({ field, message: 'is not a known field' }))
  if (issues.length === 0) return undefined
  return new AppError({
    status: 400,
    code: 'validation_error',
    message: issues.map(({ field, message }) => `${field}: ${message}`).join('; '),
    issues,
  })
}

export const uploadOf = (req: Request): Upload | null =>
  req.file ? { bytes: req.file.buffer, name: req.file.originalname, contentType: req.file.mimetype } : null
