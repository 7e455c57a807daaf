/** Sindhi words of the studio's hours (keyed by the English in the source; see ../i18n.tsx). */
const sd: Record<string, string> = {
  'At any hour': 'ڪنهن به وقت',
  'Calls only from {start} to {end} on {days}, in each contact’s own time zone':
    'ڪالون صرف {days} تي {start} کان {end} تائين، هر رابطي جي پنهنجي وقت موجب',
  Friday: 'جمعو',
  From: 'کان',
  Monday: 'سومر',
  On: 'ڏينهن',
  'Only in calling hours, in each contact’s own time zone': 'صرف ڪال جي وقت ۾، هر رابطي جي پنهنجي وقت موجب',
  Saturday: 'ڇنڇر',
  Sunday: 'آچر',
  Thursday: 'خميس',
  Tuesday: 'اڱارو',
  Until: 'تائين',
  Wednesday: 'اربع',
  'When to call': 'ڪڏهن ڪال ڪجي',
}
export default sd
