import { isDeepStrictEqual } from 'node:util'
import type { AgentSettings, VersionChange, VersionFunction } from '@parley/shared'

/**
 * The differences between two snapshots: each setting whose value differs
 * (`settings.<field>`, before and after whole), then each function added, removed or changed
 * (`functions.<name>`, its definition before and after; null where it is absent). Fields in the
 * order of the newer side, then those only the older one has.
 */
export const diffSnapshots = (
  before: { settings: AgentSettings; functions?: VersionFunction[] },
  after: { settings: AgentSettings; functions?: VersionFunction[] },
): VersionChange[] => {
  const changes: VersionChange[] = []
  const fields = [...new Set([...Object.keys(after.settings), ...Object.keys(before.settings)])]
  for (const field of fields) {
    const was = before.settings[field] ?? null
    const is = after.settings[field] ?? null
    if (!isDeepStrictEqual(was, is)) changes.push({ path: `settings.${field}`, before: was, after: is })
  }
  if (before.functions === undefined || after.functions === undefined) return changes
  const byName = (list: VersionFunction[]) => new Map(list.map((fn) => [fn.name, fn]))
  const was = byName(before.functions)
  const is = byName(after.functions)
  for (const name of [...new Set([...is.keys(), ...was.keys()])].sort()) {
    const a = was.get(name) ?? null
    const b = is.get(name) ?? null
    if (!isDeepStrictEqual(a, b)) changes.push({ path: `functions.${name}`, before: a, after: b })
  }
  return changes
}

/** Whether two settings differ in anything but `active` (live state, not a setting one publishes). */
export const settingsDiffer = (a: AgentSettings, b: AgentSettings) => {
  const { active: _a, ...restA } = a
  const { active: _b, ...restB } = b
  return diffSnapshots({ settings: restA }, { settings: restB }).length > 0
}
