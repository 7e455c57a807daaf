import { csvOrJsonBody } from '../http/csv-upload.ts'

export { type CsvUpload, uploadedCsvOf, uploadFingerprintOf } from '../http/csv-upload.ts'

/** POST /batch/create and /batch/preview: a CSV upload (multipart) or JSON contacts. */
export const acceptCsvOrJson = csvOrJsonBody({
  unsupported: 'Send multipart/form-data with a CSV file, or application/json with contacts',
})
