/** Urdu words of the retention and audit-log pages (keyed by the English in the source; see ../i18n.tsx). */
const ur: Record<string, string> = {
  'Data retention': 'ڈیٹا کتنی دیر رکھا جائے',
  'Records older than these many days are deleted once a day. Leave a box empty to keep them.':
    'اتنے دنوں سے پرانے ریکارڈ روزانہ ایک بار حذف ہوتے ہیں۔ انہیں رکھنے کے لیے خانہ خالی چھوڑ دیں۔',
  'Conversations, with their messages': 'گفتگوئیں، ان کے پیغامات سمیت',
  'Calls, with their transcripts': 'کالیں، ان کی تحریر سمیت',
  Exports: 'برآمدات',
  Keep: 'رکھیں',
  'Owners and admins can change these.': 'انہیں مالکان اور منتظمین بدل سکتے ہیں۔',
  'Audit log': 'تبدیلیوں کا ریکارڈ',
  'Owners and admins can read the audit log.': 'تبدیلیوں کا ریکارڈ مالکان اور منتظمین پڑھ سکتے ہیں۔',
  'No changes recorded yet.': 'ابھی کوئی تبدیلی درج نہیں۔',
  Who: 'کس نے',
  Details: 'تفصیل',
  'member {id}': 'رکن {id}',
  'API key {id}': 'API کلید {id}',
  operator: 'آپریٹر',
  'Parley (a scheduled job)': 'Parley (طے شدہ کام)',
}
export default ur
