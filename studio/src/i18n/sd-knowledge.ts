/** Sindhi words of the studio's knowledge page (keyed by the English in the source; see ../i18n.tsx). */
const sd: Record<string, string> = {
  'A file (PDF, DOCX, HTML, Markdown, text, CSV)': 'هڪ فائل (PDF، DOCX، HTML، Markdown، متن، CSV)',
  'A whole site': 'سڄي ويب سائيٽ',
  Add: 'شامل ڪريو',
  'Add a source': 'ذريعو شامل ڪريو',
  Address: 'پتو',
  'Agents answering from these sources': 'انهن ذريعن مان جواب ڏيندڙ ايجنٽ',
  'Failed: {reason}': 'ناڪام: {reason}',
  'Fetch again': 'ٻيهر آڻيو',
  'Fetching: {done} of {found} pages': 'آڻي رهيا آهيون: {found} مان {done} صفحا',
  Indexing: 'فهرست ٺهي رهي آهي',
  Knowledge: 'ڄاڻ',
  'No passage matches this question.': 'ڪو به اقتباس هن سوال سان نٿو ملي.',
  'No sources yet.': 'اڃا ڪو ذريعو ناهي.',
  'One page': 'هڪ صفحو',
  Question: 'سوال',
  Queued: 'قطار ۾',
  'Ready: {chunks} passages': 'تيار: {chunks} اقتباس',
  Text: 'متن',
  Title: 'عنوان',
  'Try a question': 'هڪ سوال آزمايو',
  'Your site and documents, for agents to answer from and name as their sources.':
    'توهان جي ويب سائيٽ ۽ دستاويز، جن مان ايجنٽ جواب ڏين ۽ انهن کي پنهنجا ذريعا ٻڌائين.',
}
export default sd
