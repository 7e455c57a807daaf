/** Sindhi words of the do-not-call list (campaigns area), keyed by the English in the source. */
const sd: Record<string, string> = {
  'Do not call': 'ڪال نه ڪريو',
  '{number} added to the list.': '{number} فهرست ۾ شامل ڪيو ويو.',
  '{number} was on the list already.': '{number} اڳ ۾ ئي فهرست ۾ هو.',
  '{number} removed from the list.': '{number} فهرست مان هٽايو ويو.',
  'Imported: {added} added, {alreadyListed} already listed, {invalid} invalid.':
    'درآمد ٿيو: {added} شامل، {alreadyListed} اڳ ۾ فهرست ۾، {invalid} غلط.',
  'Added by hand or through the API': 'هٿ سان يا API ذريعي شامل ڪيو ويو',
  Imported: 'درآمد ٿيل',
  'Opted out on call {id}': 'ڪال {id} تي انڪار ڪيو',
  'Opted out in chat {id}': 'چيٽ {id} ۾ انڪار ڪيو',
  'Remove {number} from the do-not-call list? It may be called again.':
    '{number} کي ڪال نه ڪرڻ واري فهرست مان هٽايو؟ ان کي ٻيهر ڪال ٿي سگهي ٿي.',
  'Numbers on this list are never dialled: campaigns skip them, a single call to one is refused, and agents with opt-out add callers who ask.':
    'هن فهرست جا نمبر ڪڏهن به ڊائل نه ٿيندا: مهمون انهن کي ڇڏي ڏين ٿيون، انهن ڏانهن هڪ ڪال به رد ٿئي ٿي، ۽ انڪار واري سهولت وارا ايجنٽ چوڻ وارن کي شامل ڪن ٿا.',
  'Add a number': 'نمبر شامل ڪريو',
  'Add to the list': 'فهرست ۾ شامل ڪريو',
  'Import a CSV': 'CSV درآمد ڪريو',
  'CSV file with a phone column': 'فون ڪالم واري CSV فائل',
  Import: 'درآمد ڪريو',
  'Invalid rows': 'غلط قطارون',
  'Row {row}: {value}': 'قطار {row}: {value}',
  '(empty)': '(خالي)',
  'No numbers on the do-not-call list.': 'ڪال نه ڪرڻ واري فهرست ۾ ڪو نمبر ناهي.',
  'Remove {number}': '{number} هٽايو',
  'Pages of do-not-call numbers': 'ڪال نه ڪرڻ وارن نمبرن جا صفحا',
  'Someone asked not to be called again': 'ڪنهن ٻيهر ڪال نه ڪرڻ لاءِ چيو',
  'The number is on the do-not-call list': 'هي نمبر ڪال نه ڪرڻ واري فهرست ۾ آهي',
}
export default sd
