/** Urdu words of transfers to a person and the keypad (agent settings), keyed by the English in the source. */
const ur: Record<string, string> = {
  'A call was transferred to a person': 'ایک کال کسی فرد کو منتقل کی گئی',
  'Transfer to a person': 'کسی فرد کو منتقل کریں',
  'People the agent may put a caller through to, with a phone number (+14155550123) or a SIP address (sip:desk@pbx.example.com). Transfers dial out on your organization’s phone number.':
    'وہ لوگ جن سے ایجنٹ کال کرنے والے کو ملا سکتا ہے، فون نمبر (+14155550123) یا SIP پتے (sip:desk@pbx.example.com) کے ساتھ۔ منتقلی آپ کی تنظیم کے فون نمبر سے ڈائل ہوتی ہے۔',
  'New destination': 'نئی منزل',
  'Phone number or SIP address': 'فون نمبر یا SIP پتہ',
  'When to transfer here': 'یہاں کب منتقل کریں',
  How: 'کیسے',
  'Cold: put the caller through at once': 'فوری: کال کرنے والے کو فوراً ملا دیں',
  'Warm: brief the person first, then join them': 'بریف کے ساتھ: پہلے فرد کو بتائیں، پھر ملائیں',
  'Add a destination': 'منزل شامل کریں',
}
export default ur
