import type { BatchContact, BatchContactStatus, BatchJob, BatchProgressEvent } from '@parley/shared'
import { signal } from '@preact/signals'
import { actOnCampaign, type CampaignAction, getCampaign, listContacts, type Page } from './client.ts'
import { followProgress } from './progress-stream.ts'
import { TERMINAL_STATUSES } from './words.ts'

/** Runs `work` now, or once more after the run in flight: many quick calls cost one run at a time. */
const coalesce = (work: () => Promise<void>) => {
  let isRunning = false
  let isWanted = false
  return async () => {
    isWanted = true
    if (isRunning) return
    isRunning = true
    try {
      while (isWanted) {
        isWanted = false
        await work()
      }
    } finally {
      isRunning = false
    }
  }
}

/**
 * One campaign's page state: the job, live from its progress stream while it can still change
 * (opened again when an action sets a finished job going), and a page of its contacts, read again
 * after each change. `dispose` closes the stream.
 */
export const createCampaignModel = (batchJobId: string) => {
  const job = signal<BatchJob | null>(null)
  const contacts = signal<Page<BatchContact> | null>(null)
  const contactsPage = signal(1)
  const statusFilter = signal<BatchContactStatus | undefined>(undefined)
  const isLive = signal(false)
  const loadError = signal<unknown>(null)
  const actionError = signal<unknown>(null)
  const busy = signal<CampaignAction | null>(null)
  const requeued = signal<number | null>(null)
  let stopStream: (() => void) | null = null

  const reloadContacts = coalesce(async () => {
    try {
      contacts.value = await listContacts(batchJobId, {
        page: contactsPage.value,
        status: statusFilter.value,
      })
    } catch (error) {
      loadError.value = error
    }
  })

  const apply = (progress: BatchProgressEvent) => {
    const current = job.peek()
    if (current) {
      const { status, counters, failureReason, unknownPlaceholders, updatedAt } = progress
      job.value = { ...current, status, counters, failureReason, unknownPlaceholders, updatedAt }
    }
    void reloadContacts()
  }

  const follow = () => {
    if (stopStream) return
    isLive.value = true
    const stopped = () => {
      stopStream = null
      isLive.value = false
    }
    stopStream = followProgress({
      batchJobId,
      onProgress: apply,
      onEnd: (progress) => {
        stopped()
        apply(progress)
        // finishedAt and the rest of the job, as it ended.
        getCampaign(batchJobId).then((ended) => {
          job.value = ended
        }, undefined)
      },
      onError: (error) => {
        stopped()
        loadError.value = error
      },
    })
  }

  const start = async () => {
    try {
      const loaded = await getCampaign(batchJobId)
      job.value = loaded
      await reloadContacts()
      if (!TERMINAL_STATUSES.has(loaded.status)) follow()
    } catch (error) {
      loadError.value = error
    }
  }

  const act = async (action: CampaignAction) => {
    actionError.value = null
    requeued.value = null
    busy.value = action
    try {
      const result = await actOnCampaign(batchJobId, action)
      job.value = result.job
      if (result.requeued !== undefined) requeued.value = result.requeued
      if (!TERMINAL_STATUSES.has(result.job.status)) follow()
      await reloadContacts()
    } catch (error) {
      actionError.value = error
    } finally {
      busy.value = null
    }
  }

  const showContacts = ({ page, status }: { page: number; status?: BatchContactStatus | undefined }) => {
    contactsPage.value = page
    statusFilter.value = status
    void reloadContacts()
  }

  return {
    job,
    contacts,
    contactsPage,
    statusFilter,
    isLive,
    loadError,
    actionError,
    busy,
    requeued,
    start,
    act,
    showContacts,
    dispose: () => stopStream?.(),
  }
}

export type CampaignModel = ReturnType<typeof createCampaignModel>
