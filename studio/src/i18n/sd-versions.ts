/** Sindhi words of the agent's versions (studio-versions), keyed by the English in the source. */
const sd: Record<string, string> = {
  'No differences.': 'ڪو فرق ناهي.',
  Versions: 'ورزن',
  'Your settings match the live version {number}.': 'توهان جون سيٽنگون لائيو ورزن {number} جهڙيون آهن.',
  'Saved but not live yet: visitors still get version {number}.':
    'محفوظ ٿي ويو پر اڃا لائيو ناهي: وزيٽرن کي اڃا ورزن {number} ملي ٿو.',
  Note: 'نوٽ',
  Publish: 'شايع ڪريو',
  History: 'تاريخ',
  'Version {number}': 'ورزن {number}',
  'Hide changes': 'تبديليون لڪايو',
  Changes: 'تبديليون',
  'Restore to draft': 'مسودي ۾ واپس آڻيو',
}
export default sd
