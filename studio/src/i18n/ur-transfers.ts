/** Urdu words of transfers to a person and the keypad (agent settings), keyed by the English in the source. */
const ur: Record<string, string> = {
  'A call was transferred to a person': 'ایک کال کسی فرد کو منتقل کی گئی',
}
export default ur
