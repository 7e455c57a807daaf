import { webcrypto } from 'node:crypto'
import { batchLimits } from '@parley/shared'
import type { Request, RequestHandler } from 'express'
import multer from 'multer'
import { AppError } from '../http/app-error.ts'

/** The CSV stays in memory: 10 MiB at most, one file, a handful of short text fields. */
const csvUpload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: batchLimits.maxCsvBytes, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 25 },
}).single('file')

const toAppError = (error: unknown) => {
  if (!(error instanceof multer.MulterError))
    return AppError.badRequest('The multipart body could not be read')
  if (error.code === 'LIMIT_FILE_SIZE')
    return new AppError({
      status: 413,
      code: 'payload_too_large',
      message: `The CSV file is larger than ${batchLimits.maxCsvBytes / 1024 / 1024} MiB`,
    })
  if (error.code === 'LIMIT_UNEXPECTED_FILE')
    return AppError.badRequest('Send the CSV in one form field named "file"')
  return AppError.badRequest(`The multipart body is not acceptable: ${error.message}`)
}

/**
 * Reads a multipart/form-data body (CSV mode) into req.body (text fields) and req.file; JSON is
 * already parsed by the app. Any other media type is refused here, before any work.
 */
export const acceptCsvOrJson: RequestHandler = (req, res, next) => {
  if (req.is('multipart/form-data')) {
    csvUpload(req, res, (error?: unknown) => next(error ? toAppError(error) : undefined))
    return
  }
  if (req.is('application/json')) {
    next()
    return
  }
  next(
    new AppError({
      status: 415,
      code: 'unsupported_media_type',
      message: 'Send multipart/form-data with a CSV file, or application/json with contacts',
    }),
  )
}

/**
 * For Idempotency-Key: the form fields plus the uploaded file's hash, so another file is another
 * request. Web Crypto hashes on libuv's thread pool: 10 MiB never holds up the event loop.
 */
export const uploadFingerprintOf = async (req: Request) => ({
  fields: req.body ?? null,
  fileSha256: req.file
    ? Buffer.from(await webcrypto.subtle.digest('SHA-256', new Uint8Array(req.file.buffer))).toString('hex')
    : null,
})
