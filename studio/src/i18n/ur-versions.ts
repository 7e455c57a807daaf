/** Urdu words of the agent's versions (studio-versions), keyed by the English in the source. */
const ur: Record<string, string> = {
  'No differences.': 'کوئی فرق نہیں۔',
  Versions: 'ورژن',
  'Your settings match the live version {number}.': 'آپ کی ترتیبات لائیو ورژن {number} جیسی ہیں۔',
  'Saved but not live yet: visitors still get version {number}.':
    'محفوظ ہو گیا مگر ابھی لائیو نہیں: وزیٹرز کو اب بھی ورژن {number} ملتا ہے۔',
  Note: 'نوٹ',
  Publish: 'شائع کریں',
  History: 'تاریخچہ',
  'Version {number}': 'ورژن {number}',
  'Hide changes': 'تبدیلیاں چھپائیں',
  Changes: 'تبدیلیاں',
  'Restore to draft': 'مسودے میں واپس لائیں',
}
export default ur
