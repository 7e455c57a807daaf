const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g

export type FilledText = { text: string; unknown: string[] }

/** The value of a field by exact name, else by name in any case (CSV headers keep their case). */
const lookUp = (fields: Readonly<Record<string, string>>, name: string): string | undefined => {
  if (Object.hasOwn(fields, name)) return fields[name]
  const lower = name.toLowerCase()
  const match = Object.keys(fields).find((key) => key.toLowerCase() === lower)
  return match === undefined ? undefined : fields[match]
}

/**
 * Replaces every `{{field}}` with the contact's value. A placeholder no field answers becomes empty
 * (an agent saying "Hello {{first_name}}" aloud is worse than "Hello") and is returned in `unknown`
 * so the job can report it.
 */
export const fillPlaceholders = (template: string, fields: Readonly<Record<string, string>>): FilledText => {
  const unknown = new Set<string>()
  const text = template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = lookUp(fields, name)
    if (value === undefined) unknown.add(name)
    return value ?? ''
  })
  return { text, unknown: [...unknown] }
}

/** Fills several templates at once (prompt, greeting, …); null stays null. */
export const fillAll = <Key extends string>(
  templates: Readonly<Record<Key, string | null>>,
  fields: Readonly<Record<string, string>>,
) => {
  const unknown = new Set<string>()
  const filled = {} as Record<Key, string | null>
  for (const key of Object.keys(templates) as Key[]) {
    const template = templates[key]
    if (template === null) {
      filled[key] = null
      continue
    }
    const result = fillPlaceholders(template, fields)
    filled[key] = result.text
    for (const name of result.unknown) unknown.add(name)
  }
  return { filled, unknown: [...unknown] }
}

/** Contact fields as placeholder values: strings as given, other JSON values in their JSON form. */
export const fieldsAsText = (fields: Readonly<Record<string, unknown>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  )
