/** Urdu words of the studio's agents (keyed by the English in the source; see ../i18n.tsx). */
const ur: Record<string, string> = {
  'Create an agent: choose text or voice, and tell it what to do.':
    'ایک ایجنٹ بنائیں: تحریر یا آواز چنیں، اور اسے بتائیں کہ کیا کرنا ہے۔',
  'Try it on its page, then make it live.': 'اس کے صفحے پر آزمائیں، پھر اسے فعال کریں۔',
  'Put it on your website': 'اسے اپنی ویب سائٹ پر لگائیں',
  ': a key for your domain and one script tag.': ': آپ کے ڈومین کے لیے ایک چابی اور ایک اسکرپٹ ٹیگ۔',
  'Read what visitors said': 'پڑھیں کہ مہمانوں نے کیا کہا',
}
export default ur
