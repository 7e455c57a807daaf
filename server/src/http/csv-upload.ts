import { batchLimits } from '@parley/shared'
import type { Request, RequestHandler } from 'express'
import multer from 'multer'
import { AppError } from './app-error.ts'
import { type ParsedCsv, parseCsvStream, type TooManyRows } from './csv.ts'
import { findBadJson } from './input-guard.ts'

/** An uploaded CSV as the request carried it: parsed as it arrived, with its hash and size. */
export type CsvUpload = ParsedCsv

/**
 * multer's storage for the CSV: nothing is stored, the file's stream is parsed as it arrives
 * (parseCsvStream), so a file that breaks a limit is refused at the record that breaks it.
 */
const parsingStorage = (tooManyRows: TooManyRows | undefined): multer.StorageEngine => ({
  _handleFile: (_req, file, done) => {
    parseCsvStream(file.stream, { tooManyRows }).then(
      (parsed) => done(null, parsed as unknown as Partial<Express.Multer.File>),
      (error: unknown) => done(error),
    )
  },
  _removeFile: (_req, _file, done) => done(null),
})

/** 10 MiB at most (the batch CSV's limit), one file, a handful of short text fields. */
const csvUpload = (tooManyRows: TooManyRows | undefined) =>
  multer({
    storage: parsingStorage(tooManyRows),
    limits: { fileSize: batchLimits.maxCsvBytes, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 25 },
  }).single('file')

const toAppError = (req: Request, error: unknown) => {
  if (error instanceof AppError) return error
  // busboy reports a client that hung up mid-upload as a broken form: it is the client's abort.
  if (req.readableAborted) return AppError.clientClosedRequest()
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
 * The form's text fields hold what a JSON body may hold: no NUL (PostgreSQL cannot store it in
 * text, and the JSON form of the same request is refused for it) and nothing that was not UTF-8.
 * busboy decodes a field's bytes as UTF-8 with U+FFFD in place of any that are not, so U+FFFD
 * stands for invalid bytes here: no batch field has a use for it.
 */
const checkFormFields = (fields: unknown) => {
  for (const [name, value] of Object.entries(fields ?? {})) {
    const problem =
      findBadJson({ [name]: value }) ??
      (`${name}${JSON.stringify(value)}`.includes('\uFFFD') ? 'must be UTF-8 text' : null)
    const field = /^[\w.-]{1,64}$/.test(name) ? name : 'A form field'
    if (problem) throw AppError.badRequest(`${field}: ${problem}`, 'invalid_encoding')
  }
}

/**
 * Reads a multipart/form-data body (CSV mode) into req.body (text fields) and req.file; JSON is
 * already parsed by the app. Any other media type is refused here, before any work, with
 * `unsupported` as the message.
 */
export const csvOrJsonBody = ({
  unsupported,
  tooManyRows,
}: {
  unsupported: string
  tooManyRows?: TooManyRows
}): RequestHandler => {
  const upload = csvUpload(tooManyRows)
  return (req, res, next) => {
    if (req.is('multipart/form-data')) {
      upload(req, res, (error?: unknown) => {
        if (error) return next(toAppError(req, error))
        try {
          checkFormFields(req.body)
        } catch (refusal) {
          return next(refusal)
        }
        next()
      })
      return
    }
    if (req.is('application/json')) {
      next()
      return
    }
    next(new AppError({ status: 415, code: 'unsupported_media_type', message: unsupported }))
  }
}

/** The CSV of a multipart request, parsed (see parsingStorage); undefined in JSON mode. */
export const uploadedCsvOf = (req: Request) => req.file as unknown as CsvUpload | undefined

/**
 * For Idempotency-Key: the form fields plus the uploaded file's hash (taken chunk by chunk as it
 * arrived), so another file is another request.
 */
export const uploadFingerprintOf = (req: Request) => ({
  fields: req.body ?? null,
  fileSha256: uploadedCsvOf(req)?.sha256 ?? null,
})
