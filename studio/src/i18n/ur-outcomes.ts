/** Urdu words of call outcomes (calls list, campaign breakdown and tries), keyed by the English in the source. */
const ur: Record<string, string> = {
  'Voicemail left': 'وائس میل پر پیغام چھوڑا',
  'Voicemail, hung up': 'وائس میل، کال بند کی',
  Declined: 'مسترد کی گئی',
  'Phone menu': 'فون مینو',
  'Opted out': 'مزید کال نہ کرنے کی درخواست',
  'Transferred to a person': 'کسی فرد کو منتقل کی گئی',
  Outcome: 'نتیجہ',
  Outcomes: 'نتائج',
  'No call has ended yet.': 'ابھی کوئی کال ختم نہیں ہوئی۔',
}
export default ur
