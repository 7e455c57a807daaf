/**
 * What opens chat and voice sessions: the widget key of the tag, or the studio session token the
 * studio sets from script on the element it embeds (`studioToken`, a property and never an
 * attribute, so it cannot end up in HTML an owner copies). The server takes the studio token in
 * its own header (X-Studio-Token), for the studio's organization only.
 */
export type Credentials = {
  apiKey: string
  studioToken?: string | null | undefined
  /** `agent-version="draft"`: the studio's Try it talks to the unpublished draft (studio token only). */
  draft?: boolean | undefined
}

export const credentialHeader = ({ apiKey, studioToken }: Credentials): Record<string, string> =>
  studioToken ? { 'x-studio-token': studioToken } : { 'x-api-key': apiKey }
