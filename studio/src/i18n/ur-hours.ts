/** Urdu words of the studio's hours (keyed by the English in the source; see ../i18n.tsx). */
const ur: Record<string, string> = {
  'At any hour': 'کسی بھی وقت',
  'Calls only from {start} to {end} on {days}, in each contact’s own time zone':
    'کالیں صرف {days} کو {start} سے {end} تک، ہر رابطے کے اپنے وقت کے مطابق',
  Friday: 'جمعہ',
  From: 'سے',
  Monday: 'پیر',
  On: 'دن',
  'Only in calling hours, in each contact’s own time zone':
    'صرف کال کے اوقات میں، ہر رابطے کے اپنے وقت کے مطابق',
  Saturday: 'ہفتہ',
  Sunday: 'اتوار',
  Thursday: 'جمعرات',
  Tuesday: 'منگل',
  Until: 'تک',
  Wednesday: 'بدھ',
  'When to call': 'کب کال کریں',
}
export default ur
