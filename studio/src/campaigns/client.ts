import type {
  AddDoNotCall,
  BatchContact,
  BatchContactStatus,
  BatchCreated,
  BatchJob,
  BatchPreview,
  CreatePhoneNumber,
  DoNotCallEntry,
  DoNotCallImported,
  DoNotCallResponse,
  PatchPhoneNumber,
  PhoneNumber,
} from '@parley/shared'
import { listAgents } from '../agents/client.ts'
import { api } from '../api.ts'

/** The campaigns area's calls: phone numbers on /v1, batch jobs on /batch (both the public API). */

export type Page<T> = { data: T[]; pagination: { page: number; total: number; hasNext: boolean } }

const id = (value: string) => encodeURIComponent(value)

/** Voice (pipeline and realtime) agents: the only ones a number can call with. */
export const listVoiceAgents = async () =>
  (await listAgents()).filter((agent) => agent.agentArchitecture !== 'text')

export const listPhoneNumbers = (page: number, limit = 20) =>
  api<Page<PhoneNumber>>(`/v1/phone-numbers?page=${page}&limit=${limit}`)

export const createPhoneNumber = async (input: CreatePhoneNumber) =>
  (await api<{ data: PhoneNumber }>('/v1/phone-numbers', { method: 'POST', json: input })).data

export const updatePhoneNumber = async (phoneNumberId: string, changes: PatchPhoneNumber) =>
  (
    await api<{ data: PhoneNumber }>(`/v1/phone-numbers/${id(phoneNumberId)}`, {
      method: 'PATCH',
      json: changes,
    })
  ).data

export const deletePhoneNumber = (phoneNumberId: string) =>
  api(`/v1/phone-numbers/${id(phoneNumberId)}`, { method: 'DELETE' })

export const listCampaigns = (page: number, limit = 20) =>
  api<Page<BatchJob>>(`/batch?page=${page}&limit=${limit}`)

export const getCampaign = async (batchJobId: string) =>
  (await api<{ data: BatchJob }>(`/batch/${id(batchJobId)}`)).data

export const listContacts = (
  batchJobId: string,
  { page, status, limit = 20 }: { page: number; status?: BatchContactStatus | undefined; limit?: number },
) =>
  api<Page<BatchContact>>(
    `/batch/${id(batchJobId)}/contacts?page=${page}&limit=${limit}${status ? `&status=${status}` : ''}`,
  )

/** The same form goes to both: what the preview showed is what create makes. */
export const previewCampaign = async (form: FormData) =>
  (await api<{ data: BatchPreview }>('/batch/preview', { method: 'POST', form })).data

export const createCampaign = (form: FormData) => api<BatchCreated>('/batch/create', { method: 'POST', form })

export type CampaignAction = 'pause' | 'resume' | 'cancel' | 'retry-failed'

/** The job after the action; for retry-failed, how many contacts wait for a call again. */
export const actOnCampaign = async (batchJobId: string, action: CampaignAction) => {
  const body = await api<{ data: BatchJob; requeued?: number }>(`/batch/${id(batchJobId)}/${action}`, {
    method: 'POST',
  })
  return { job: body.data, requeued: body.requeued }
}

/** The organization's do-not-call list (/v1/do-not-call). */
export const listDoNotCall = (page: number, limit = 20) =>
  api<Page<DoNotCallEntry>>(`/v1/do-not-call?page=${page}&limit=${limit}`)

export const addDoNotCall = (input: AddDoNotCall) =>
  api<DoNotCallResponse>('/v1/do-not-call', { method: 'POST', json: input })

export const removeDoNotCall = (phoneNumber: string) =>
  api(`/v1/do-not-call/${id(phoneNumber)}`, { method: 'DELETE' })

/** A CSV with a phone column: the counts of added, already listed and invalid numbers. */
export const importDoNotCall = async (form: FormData) =>
  (await api<DoNotCallImported>('/v1/do-not-call/import', { method: 'POST', form })).data
