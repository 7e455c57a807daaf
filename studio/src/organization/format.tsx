import type { ApiKey, Role } from '@parley/shared'
import { useState } from 'preact/hooks'
import { t } from '../i18n.tsx'

/** Words the organization pages share: roles, times, money, and a list shown a page at a time. */

export const keyStatusName = (status: ApiKey['status']) =>
  ({ Active: t('Active'), Disabled: t('Disabled'), Revoked: t('Revoked') })[status]

export const roleName = (role: Role) => ({ owner: t('owner'), admin: t('admin'), member: t('member') })[role]

export { usd, when } from '../records/format.tsx'

const PAGE_SIZE = 20

/**
 * Lists the API answers whole (members, keys) are still shown 20 at a time: `visible` is what to
 * show, `more` shows the next 20 (null when all are shown).
 */
export const usePages = <Row,>(rows: Row[] | null) => {
  const [shown, setShown] = useState(PAGE_SIZE)
  return {
    visible: rows?.slice(0, shown) ?? null,
    more: rows && rows.length > shown ? () => setShown(shown + PAGE_SIZE) : null,
  }
}

/** The "More" button of a paginated list; shows its progress while the next page loads. */
export const MoreButton = ({ onMore, busy = false }: { onMore: (() => void) | null; busy?: boolean }) =>
  onMore ? (
    <button type="button" onClick={onMore} disabled={busy} aria-busy={busy}>
      {busy ? t('Loading…') : t('More')}
    </button>
  ) : null
