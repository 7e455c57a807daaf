/** Sindhi words of the retention and audit-log pages (keyed by the English in the source; see ../i18n.tsx). */
const sd: Record<string, string> = {
  'Data retention': 'ڊيٽا ڪيترو وقت رکجي',
  'Records older than these many days are deleted once a day. Leave a box empty to keep them.':
    'ايترن ڏينهن کان پراڻا رڪارڊ ڏينهن ۾ هڪ ڀيرو ڊاهيا وڃن ٿا. انهن کي رکڻ لاءِ خانو خالي ڇڏيو.',
  'Conversations, with their messages': 'ڳالهيون، سندن پيغامن سميت',
  'Calls, with their transcripts': 'ڪالون، سندن لکت سميت',
  Exports: 'برآمدون',
  Keep: 'رکو',
  'Owners and admins can change these.': 'انهن کي مالڪ ۽ منتظم بدلائي سگهن ٿا.',
  'Audit log': 'تبديلين جو رڪارڊ',
  'Owners and admins can read the audit log.': 'تبديلين جو رڪارڊ مالڪ ۽ منتظم پڙهي سگهن ٿا.',
  'No changes recorded yet.': 'اڃا ڪا تبديلي درج ناهي.',
  Who: 'ڪنهن',
  Details: 'تفصيل',
  'member {id}': 'ميمبر {id}',
  'API key {id}': 'API ڪنجي {id}',
  operator: 'آپريٽر',
  'Parley (a scheduled job)': 'Parley (مقرر ڪم)',
}
export default sd
