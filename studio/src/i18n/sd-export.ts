/** Sindhi words of the studio's export (keyed by the English in the source; see ../i18n.tsx). */
const sd: Record<string, string> = {
  'The file could not be downloaded ({status}).': 'فائل ڊائون لوڊ نه ٿي سگهي ({status}).',
  'The export failed.': 'برآمد ناڪام ٿي وئي.',
  File: 'فائل',
  'Export all': 'سڀ برآمد ڪريو',
  'Writing {done} of {total} rows…': '{total} مان {done} قطارون لکجي رهيون آهن…',
  'Exported. Rows: {total}': 'برآمد ٿي ويو. قطارون: {total}',
}
export default sd
