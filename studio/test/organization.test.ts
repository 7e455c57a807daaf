import type { Session } from '@parley/shared'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type HttpTarget, startHttpTarget } from '../../server/test/helpers/http-target.ts'
import { startTestServer, type TestServer } from '../../server/test/helpers/test-server.ts'
import {
  clickText,
  copiedText,
  expectGoodPage,
  fill,
  hasBrowser,
  launchBrowser,
  recordClipboard,
  waitForText,
} from './browser.ts'

/**
 * The organization area in Debian's Chromium against a real server: an owner makes API keys (a
 * secret shown once), disables and revokes one, invites a member; the member signs up with that
 * email in a browser of their own, switches to the owner's organization and sees what a member may
 * see; the owner reads the credit ledger and sends a webhook delivery again. Every page passes
 * axe-core in light and dark and fits 375 px (studio-pages.ts).
 */

let server: TestServer
let browser: Browser
let receiver: HttpTarget

beforeAll(async () => {
  if (!hasBrowser) return
  // The agent's webhook endpoint: answers 200 to whatever it is sent.
  receiver = await startHttpTarget((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}')
  })
  server = await startTestServer({ env: { OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort } })
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.destroy()
  await receiver?.close()
})

const bodyText = (page: Page) => page.evaluate(() => document.body.innerText)
const sessionOf = async (page: Page) =>
  JSON.parse((await page.evaluate(() => localStorage.getItem('parley.studio.session'))) ?? 'null') as Session
/** A page of the organization area, by its sub-navigation link. */
const openOrganizationPage = async (page: Page, path: string, titleId: string) => {
  await page.click(`nav a[href="/studio/settings/organization/${path}"]`)
  await page.waitForSelector(`#${titleId}`)
}

const signUp = async (page: Page, { organization, name, email }: Record<string, string>) => {
  await page.goto(`${server.url}/studio/`)
  await clickText(page, 'button', 'Create an account')
  await fill(page, '#organizationName', organization ?? '')
  await fill(page, '#name', name ?? '')
  await fill(page, '#email', email ?? '')
  await fill(page, '#password', 'correct horse battery staple')
  await clickText(page, 'button', 'Create account')
  await waitForText(page, 'No agents yet')
}

describe.skipIf(!hasBrowser)('the organization area', { timeout: 180_000 }, () => {
  it('lets an owner manage keys and invite, shows a member what a member may see, and redelivers webhooks', async () => {
    const owners = await browser.createBrowserContext()
    const owner = await owners.newPage()
    await recordClipboard(owner)
    await owner.setViewport({ width: 1024, height: 800 })
    await signUp(owner, {
      organization: 'Northwind Shop',
      name: 'Ada',
      email: `ada-${Date.now()}@shop.example.com`,
    })
    expect(await owner.$eval('header', (element) => element.textContent)).toContain('Northwind Shop · owner')
    expect(await owner.$('#organization-switch')).toBeNull()
    const ownerSession = await sessionOf(owner)

    // A secret key, shown in full once, copied; after a reload only its prefix is left.
    await owner.click('nav a[href="/studio/settings/organization/members"]')
    await owner.waitForSelector('#members-title')
    await openOrganizationPage(owner, 'api-keys', 'api-keys-title')
    await fill(owner, '#keyName', 'Server key')
    await clickText(owner, 'button', 'Create key')
    await owner.waitForSelector('#created-key')
    const secret = (await owner.$eval('#created-key', (element) => element.textContent)) ?? ''
    expect(secret).toMatch(/^[\w-]{64}$/)
    await waitForText(owner, 'It is shown only this once')
    await clickText(owner, 'button', 'Copy key')
    await waitForText(owner, 'Copied')
    expect(await copiedText(owner)).toBe(secret)
    await expectGoodPage(owner, 'organization-api-keys-created')
    await owner.reload()
    await waitForText(owner, 'Server key')
    expect(await bodyText(owner)).not.toContain(secret)
    expect(await owner.$eval('.prefix', (element) => element.textContent)).toBe(
      `${secret.slice(0, 8)}••••••••`,
    )

    // A second key, disabled, then revoked after saying so.
    await fill(owner, '#keyName', 'Old key')
    await clickText(owner, 'button', 'Create key')
    await owner.waitForSelector('#created-key')
    await clickText(owner, 'button', 'I have stored it')
    await clickText(owner, 'button', 'Disable Old key')
    await waitForText(owner, 'Enable Old key')
    const oldKey = '::-p-xpath(//li[.//strong[.="Old key"]])'
    expect(await owner.$eval(oldKey, (element) => element.textContent)).toContain('Disabled')
    await clickText(owner, 'li[.//strong[.="Old key"]]//button', 'Revoke…')
    await waitForText(owner, 'Revoke Old key for good?')
    // The confirmation takes the focus: Enter on it is the deliberate second step.
    await owner.waitForFunction(() => document.activeElement?.textContent === 'Revoke for good')
    await owner.keyboard.press('Enter')
    await owner.waitForFunction(
      () =>
        [...document.querySelectorAll('li')].some(
          (item) => item.textContent?.includes('Old key') && item.textContent.includes('Revoked'),
        ),
      { timeout: 15_000 },
    )
    expect(await owner.$eval(oldKey, (element) => element.querySelectorAll('button').length)).toBe(0)

    // A widget key's allowed domains are edited in place.
    await owner.click('input[value="widget"]')
    await fill(owner, '#keyName', 'Shop website')
    await fill(owner, '#keyDomains', 'shop.example.com')
    await clickText(owner, 'button', 'Create key')
    await owner.waitForSelector('#created-key')
    expect(await owner.$eval('#created-key', (element) => element.textContent)).toMatch(/^tk_widget_/)
    await clickText(owner, 'button', 'I have stored it')
    await clickText(owner, 'button', 'Edit domains')
    const domainsInput = await owner.waitForSelector('input[id^="domains-"]')
    await domainsInput?.click({ count: 3 })
    await domainsInput?.type('shop.example.com, www.example.org')
    await clickText(owner, 'button', 'Save domains')
    await waitForText(owner, 'Allowed domains: shop.example.com, www.example.org')
    await expectGoodPage(owner, 'organization-api-keys')

    // An invitation, with the way the invitee joins.
    const memberEmail = `bilal-${Date.now()}@shop.example.com`
    await openOrganizationPage(owner, 'members', 'members-title')
    expect(
      await owner.$$eval('#role option', (options) => options.map((option) => option.textContent)),
    ).toEqual(['member', 'admin', 'owner'])
    await fill(owner, '#email', memberEmail)
    await clickText(owner, 'button', 'Invite')
    await waitForText(
      owner,
      `${memberEmail} is invited as member. The invitation waits for them to accept it`,
    )
    await waitForText(owner, 'Invitation pending')
    await expectGoodPage(owner, 'organization-members-owner')

    // The member signs up with that email in a browser of their own: the invitation waits for
    // them to accept it; then two organizations.
    const members = await browser.createBrowserContext()
    const member = await members.newPage()
    await member.setViewport({ width: 1024, height: 800 })
    await signUp(member, { organization: 'Bilal Repairs', name: 'Bilal', email: memberEmail })
    await waitForText(member, 'Ada invited you to Northwind Shop as member.')
    expect(await member.$('#organization-switch')).toBeNull()
    await expectGoodPage(member, 'invitation-waiting')
    await clickText(member, 'button', 'Accept invitation to Northwind Shop')
    await waitForText(member, 'You joined Northwind Shop')
    expect(await bodyText(member)).not.toContain('invited you to')
    expect(
      await member.$$eval('#organization-switch option', (options) => options.map((o) => o.textContent)),
    ).toEqual(expect.arrayContaining(['Northwind Shop', 'Bilal Repairs']))
    await member.select('#organization-switch', ownerSession.organization.id)
    await member.waitForFunction(() => document.querySelector('header .role')?.textContent === 'member')
    expect((await sessionOf(member)).organization.id).toBe(ownerSession.organization.id)

    // Members: the list, the invitation now accepted, and no invite form.
    await member.click('nav a[href="/studio/settings/organization/members"]')
    await member.waitForSelector('#members-title')
    await waitForText(member, 'Bilal')
    expect(await member.$('#invite-title')).toBeNull()
    await waitForText(member, 'Only owners and admins invite people')
    expect(await bodyText(member)).not.toContain('Invitation pending')
    await expectGoodPage(member, 'organization-members-member')

    // Identity verification: the secret is not a member's to see.
    await openOrganizationPage(member, 'identity', 'identity-title')
    await waitForText(member, 'Only owners and admins see the identity secret.')
    expect(await member.$('#identity-secret')).toBeNull()

    // API keys: read-only.
    await openOrganizationPage(member, 'api-keys', 'api-keys-title')
    await waitForText(member, 'Server key')
    expect(await member.$('#new-api-key-title')).toBeNull()
    expect(await member.$$eval('.org-list button', (buttons) => buttons.length)).toBe(0)
    await waitForText(member, 'Only owners create, disable and revoke keys.')
    await expectGoodPage(member, 'organization-api-keys-member')

    // Credits: the balance, and the ledger refused in words (the API refuses it too).
    await openOrganizationPage(member, 'credits', 'credits-title')
    await waitForText(member, '$5.00')
    await member.waitForSelector('#ledger-refused')
    expect(await member.$('table')).toBeNull()
    const refused = await server.request(`/api/organizations/${ownerSession.organization.id}/ledger`, {
      token: (await sessionOf(member)).token,
    })
    expect(refused.status).toBe(403)
    await expectGoodPage(member, 'organization-credits-member')

    // The owner's agent, open to the whole team: the member reads it and may try it, but changes
    // nothing (the studio form, going live and deletion are the owner's and admins').
    const made = await server.request('/v1/agents', {
      method: 'POST',
      token: ownerSession.token,
      json: {
        name: 'Team Helper',
        agentArchitecture: 'text',
        systemPrompt: 'You help the team.',
        mode: 'public',
      },
    })
    expect(made.status).toBe(201)
    const teamAgent = ((await made.json()) as { data: { id: string } }).data.id
    await member.goto(`${server.url}/studio/agents/${teamAgent}`)
    await member.waitForSelector('#settings-read-only')
    expect(await member.$eval('#name', (input) => input.matches(':disabled'))).toBe(true)
    expect(await bodyText(member)).not.toContain('Save settings')
    expect(await bodyText(member)).not.toContain('Make it live')
    expect(await bodyText(member)).not.toContain('Delete agent')
    await expectGoodPage(member, 'agent-member')
    await members.close()

    // The owner reads the ledger: the trial credit.
    await owner.bringToFront()
    await openOrganizationPage(owner, 'credits', 'credits-title')
    // The balance and the ledger are two requests: either can arrive first.
    await owner.waitForSelector('table')
    await owner.waitForSelector('#credit-balance')
    const rows = await owner.$$eval('tbody tr', (trs) => trs.map((tr) => tr.textContent))
    expect(rows).toHaveLength(1)
    expect(rows[0]).toContain('Trial credit')
    expect(rows[0]).toContain('Trial credits on signup')
    expect(await owner.$eval('#credit-balance', (element) => element.textContent)).toBe('$5.00')
    await expectGoodPage(owner, 'organization-credits')

    // A chat of an agent with a webhook ends: its chat.ended delivery is listed, and sent again.
    const created = await server.request('/v1/agents', {
      method: 'POST',
      token: ownerSession.token,
      json: {
        name: 'Hooked Bot',
        agentArchitecture: 'text',
        model: 'gpt-4o-mini',
        systemPrompt: 'You help.',
        webhookUrl: `${receiver.origin}/hook`,
      },
    })
    expect(created.status).toBe(201)
    const { data: agent } = (await created.json()) as { data: { id: string } }
    const chat = await server.request('/v1/chat/sessions', {
      method: 'POST',
      headers: { 'x-studio-token': ownerSession.token },
      json: { agent_id: agent.id },
    })
    expect(chat.status).toBe(200)
    const { conversation_id, session_token } = (await chat.json()) as Record<string, string>
    const ended = await server.request(`/v1/chat/sessions/${conversation_id}/end`, {
      method: 'POST',
      token: session_token,
    })
    expect(ended.status).toBe(200)
    await openOrganizationPage(owner, 'webhooks', 'webhooks-title')
    await waitForText(owner, 'chat.ended')
    // The first attempt goes from the job queue on its own; the count below is the redelivery's.
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 15_000, interval: 50 })
    const before = receiver.received.length
    await clickText(owner, 'button', 'Redeliver')
    await waitForText(owner, 'Sent again as a new delivery: Succeeded (HTTP 200')
    expect(receiver.received.length).toBe(before + 1)
    expect(JSON.parse(receiver.received.at(-1)?.body ?? '{}')).toMatchObject({
      event: 'chat.ended',
      data: { conversation_id, agent_id: agent.id },
    })
    expect(await owner.$$eval('.org-list > li', (items) => items.length)).toBe(2)
    await expectGoodPage(owner, 'organization-webhooks')

    // The identity secret with the server-side snippets; rotating it replaces it.
    await openOrganizationPage(owner, 'identity', 'identity-title')
    await owner.waitForSelector('#identity-secret')
    const identitySecret = (await owner.$eval('#identity-secret', (element) => element.textContent)) ?? ''
    expect(identitySecret).toMatch(/^[\w-]{43}$/)
    for (const snippet of ["createHmac('sha256'", 'hmac.new(', "hash_hmac('sha256'", 'user-hash='])
      await waitForText(owner, snippet)
    await expectGoodPage(owner, 'organization-identity')
    await clickText(owner, 'button', 'Rotate…')
    await waitForText(owner, 'Hashes made with the current one stop working at once')
    await clickText(owner, 'button', 'Rotate now')
    await owner.waitForFunction(
      (old) => {
        const shown = document.querySelector('#identity-secret')?.textContent
        return Boolean(shown) && shown !== old
      },
      {},
      identitySecret,
    )

    // Retention: the owner keeps calls 30 days; the audit log shows it, with who and what.
    await openOrganizationPage(owner, 'retention', 'retention-title')
    await owner.waitForSelector('#callDays')
    await fill(owner, '#callDays', '30')
    await clickText(owner, 'button', 'Save')
    await waitForText(owner, 'Saved.')
    await expectGoodPage(owner, 'organization-retention')
    await openOrganizationPage(owner, 'audit-log', 'audit-title')
    await waitForText(owner, 'organization.retention_updated')
    await waitForText(owner, 'callDays: 30')
    await waitForText(owner, 'identity_secret.rotated')
    await expectGoodPage(owner, 'organization-audit-log')

    // In Urdu the area reads right to left, in its own words.
    await owner.evaluate(() => localStorage.setItem('parley.studio.language', 'ur'))
    await owner.goto(`${server.url}/studio/settings/organization/api-keys`)
    await waitForText(owner, 'API چابیاں')
    expect(await owner.evaluate(() => document.documentElement.dir)).toBe('rtl')
    await expectGoodPage(owner, 'organization-api-keys-ur')
    await owners.close()
  })
})
