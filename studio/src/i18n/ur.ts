/** Urdu words of the studio, keyed by the English in the source (see ../i18n.tsx). */
const ur: Record<string, string> = {
  Language: 'زبان',
  Agents: 'ایجنٹ',
  Install: 'انسٹال',
  Conversations: 'گفتگو',
  'Provider keys': 'فراہم کنندہ کی چابیاں',
  'Sign out': 'سائن آؤٹ',
  Studio: 'اسٹوڈیو',
}
export default ur
