/** Urdu words of a campaign's retries by outcome (new campaign form, campaign page), keyed by the English in the source. */
const ur: Record<string, string> = {
  'Voicemail (left or hung up)': 'وائس میل (پیغام چھوڑا یا کال بند کی)',
  minutes: 'منٹ',
  hours: 'گھنٹے',
  days: 'دن',
  '1 minute': '1 منٹ',
  '1 hour': '1 گھنٹہ',
  '1 day': '1 دن',
  '{count} minutes': '{count} منٹ',
  '{count} hours': '{count} گھنٹے',
  '{count} days': '{count} دن',
  'Not retried': 'دوبارہ کوشش نہیں',
  '1 more try after {wait}': '{wait} بعد ایک اور کوشش',
  '{count} more tries after {wait}': '{wait} بعد {count} مزید کوششیں',
  'Never retried: {outcomes}.': 'کبھی دوبارہ کوشش نہیں: {outcomes}۔',
  'Retries by outcome': 'نتیجے کے مطابق دوبارہ کوششیں',
  'After a try ends this way, how many more tries the contact gets and how long after; inside the calling hours, and never more than the tries per contact.':
    'کوشش اس طرح ختم ہونے پر رابطے کو کتنی مزید کوششیں ملیں اور کتنی دیر بعد؛ کال کے اوقات کے اندر، اور ہر رابطے کی کوششوں سے کبھی زیادہ نہیں۔',
  'Default: {rule}': 'طے شدہ: {rule}',
  'More tries': 'مزید کوششیں',
  After: 'کتنی دیر بعد',
  Unit: 'اکائی',
}
export default ur
