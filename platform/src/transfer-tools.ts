/** What a transfer tool needs of the agent it hands the conversation to. */
export type TransferTarget = { name: string; description: string | null }

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40) || 'agent'

/**
 * One transfer tool per handoff target, for text chat and the voice agent alike: names are unique
 * and within the 64-character limit, and the description tells the model when to use it.
 */
export const nameTransferTools = <Target extends TransferTarget>(targets: readonly Target[]) => {
  const used = new Set<string>()
  return targets.map((target) => {
    let name = `transfer_to_${slug(target.name)}`
    for (let n = 2; used.has(name); n++) name = `transfer_to_${slug(target.name)}_${n}`
    used.add(name)
    const description = `Hand the conversation to ${target.name}${target.description ? `: ${target.description}` : ''}. Use when that agent is better placed to help.`
    return { name, description, target }
  })
}
