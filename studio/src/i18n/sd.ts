/** Sindhi words of the studio, keyed by the English in the source (see ../i18n.tsx). */
const sd: Record<string, string> = {
  Language: 'ٻولي',
  Agents: 'ايجنٽ',
  Install: 'انسٽال',
  Conversations: 'ڳالهيون',
  'Provider keys': 'فراهم ڪندڙ جون ڪنجيون',
  'Sign out': 'سائن آئوٽ',
  Studio: 'اسٽوڊيو',
}
export default sd
