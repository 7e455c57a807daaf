/** Urdu words of the studio's export (keyed by the English in the source; see ../i18n.tsx). */
const ur: Record<string, string> = {
  'The file could not be downloaded ({status}).': 'فائل ڈاؤن لوڈ نہیں ہو سکی ({status})۔',
  'The export failed.': 'برآمد ناکام ہو گئی۔',
  File: 'فائل',
  'Export all': 'سب برآمد کریں',
  'Writing {done} of {total} rows…': '{total} میں سے {done} قطاریں لکھی جا رہی ہیں…',
  'Exported. Rows: {total}': 'برآمد ہو گیا۔ قطاریں: {total}',
}
export default ur
