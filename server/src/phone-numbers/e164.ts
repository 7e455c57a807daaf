import { E164_PATTERN } from '@parley/shared'
import { parsePhoneNumberFromString } from 'libphonenumber-js/max'

/**
 * Strict E.164 (leading +, digits only) that libphonenumber-js also finds valid for its country;
 * the full metadata checks number patterns, not only lengths.
 */
export const isValidE164 = (text: string) => checkE164(text) !== null

/**
 * One parse for both questions a batch asks of each of its (up to 10,000) contacts: is the
 * number valid, and which region is it in. Null when it is not valid strict E.164.
 */
export const checkE164 = (text: string): { region: string | null } | null => {
  if (!E164_PATTERN.test(text)) return null
  const parsed = parsePhoneNumberFromString(text, { extract: false })
  return parsed?.isValid() ? { region: parsed.country ?? null } : null
}

type LocaleWithZones = Intl.Locale & { timeZones?: string[]; getTimeZones?: () => string[] }

const zonesByRegion = new Map<string, string | null>()

/** The one IANA zone of a region (GB → Europe/London), or null when it has several or none. */
export const onlyZoneOfRegion = (region: string) => {
  const cached = zonesByRegion.get(region)
  if (cached !== undefined) return cached
  const locale = new Intl.Locale(`und-${region}`) as LocaleWithZones
  const zones = locale.getTimeZones?.() ?? locale.timeZones ?? []
  const zone = zones.length === 1 ? (zones[0] ?? null) : null
  zonesByRegion.set(region, zone)
  return zone
}
