import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { captureLog } from '../../test/helpers/capture-log.ts'
import { type FakeLiveKit, startFakeLiveKit } from '../../test/helpers/fake-livekit.ts'
import {
  createTeam,
  createTeamWithKeys,
  makeAgent,
  secretKeyFor,
  type TeamKeys,
} from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { INBOUND_RECONCILE_JOB } from './index.ts'

/**
 * A number that answers: its LiveKit SIP inbound trunk and dispatch rule made, changed and deleted
 * with it through the real SipClient against the suite's fake LiveKit, and repaired by the
 * reconcile job on the job queue.
 */

let livekit: FakeLiveKit
let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>
let keys: TeamKeys
let agentId: string
const log = captureLog()

beforeAll(async () => {
  livekit = await startFakeLiveKit()
  server = await startTestServer({
    env: { ...livekit.env, LIVEKIT_AGENT_NAME: 'parley-agent' },
    logger: log.logger,
  })
  ;({ team, keys } = await createTeamWithKeys(server))
  agentId = (await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })).id
})
afterAll(async () => {
  await server?.destroy()
  await livekit?.close()
})

const v1 = (path: string, init: { method?: string; json?: unknown; key?: string } = {}) =>
  server.request(path, { method: init.method ?? 'GET', json: init.json, token: init.key ?? keys.owner })

const trunkOf = (number: string) =>
  livekit.sipTrunks().find((trunk) => (trunk.numbers as string[]).includes(number))
const ruleOn = (trunkId: string) =>
  livekit.sipRules().find((rule) => (rule.trunk_ids as string[]).includes(trunkId))

describe('inbound numbers and LiveKit', { timeout: 60_000 }, () => {
  it('makes, changes and deletes the trunk and the dispatch rule with the number', async () => {
    const created = await v1('/v1/phone-numbers', {
      method: 'POST',
      json: { number: '+14155550140', sipTrunkId: 'ST_out', inboundAgentId: agentId },
    })
    expect(created.status).toBe(201)
    const { data } = await created.json()
    expect(data.inboundAgentId).toBe(agentId)
    expect(data.inbound).toMatchObject({ status: 'synced', error: null })

    const trunk = trunkOf('+14155550140')
    expect(trunk?.sip_trunk_id).toBe(data.inbound.livekitTrunkId)
    const rule = ruleOn(data.inbound.livekitTrunkId)
    expect(rule).toMatchObject({
      sip_dispatch_rule_id: data.inbound.livekitDispatchRuleId,
      rule: { dispatch_rule_individual: { room_prefix: 'call-inbound-' } },
      room_config: {
        agents: [
          {
            agent_name: 'parley-agent',
            metadata: JSON.stringify({ kind: 'inbound', phoneNumberId: data.id }),
          },
        ],
      },
    })
    // Every SIP call is an admin call of this deployment's key, as LiveKit checks.
    const [createTrunk] = livekit.callsTo('SIP/CreateSIPInboundTrunk')
    if (!createTrunk) throw new Error('no CreateSIPInboundTrunk')
    expect((await livekit.claimsOf(createTrunk)).sip).toMatchObject({ admin: true })

    // A call LiveKit would route: a room of its own, the worker dispatched with the number's id.
    const ring = livekit.ringInbound('+14155550140', '+14155550999')
    expect(ring.roomName.startsWith('call-inbound-')).toBe(true)
    expect(ring.agentName).toBe('parley-agent')

    // Another number: the trunk follows; the rule, still in step, stays.
    const moved = await v1(`/v1/phone-numbers/${data.id}`, {
      method: 'PATCH',
      json: { number: '+14155550141' },
    })
    expect(moved.status).toBe(200)
    const movedData = (await moved.json()).data
    expect(movedData.inbound.livekitTrunkId).toBe(data.inbound.livekitTrunkId)
    expect(trunkOf('+14155550141')?.sip_trunk_id).toBe(data.inbound.livekitTrunkId)
    expect(trunkOf('+14155550140')).toBeUndefined()
    expect(livekit.callsTo('SIP/UpdateSIPInboundTrunk')).toHaveLength(1)

    // Answering off: both go; on again: both come back; deleting the number removes them.
    const off = await v1(`/v1/phone-numbers/${data.id}`, { method: 'PATCH', json: { inboundAgentId: null } })
    expect((await off.json()).data).toMatchObject({ inboundAgentId: null, inbound: null })
    expect(livekit.sipTrunks()).toHaveLength(0)
    expect(livekit.sipRules()).toHaveLength(0)

    const on = await v1(`/v1/phone-numbers/${data.id}`, {
      method: 'PATCH',
      json: { inboundAgentId: agentId },
    })
    expect((await on.json()).data.inbound.status).toBe('synced')
    expect(livekit.sipTrunks()).toHaveLength(1)
    expect(livekit.sipRules()).toHaveLength(1)

    expect((await v1(`/v1/phone-numbers/${data.id}`, { method: 'DELETE' })).status).toBe(200)
    expect(livekit.sipTrunks()).toHaveLength(0)
    expect(livekit.sipRules()).toHaveLength(0)
  })

  it('repairs what LiveKit lost or what drifted, and deletes orphans, on the reconcile job', async () => {
    const make = async (number: string) => {
      const response = await v1('/v1/phone-numbers', {
        method: 'POST',
        json: { number, sipTrunkId: 'ST_out', inboundAgentId: agentId },
      })
      expect(response.status).toBe(201)
      return (await response.json()).data
    }
    const lostTrunk = await make('+14155550150')
    const lostRule = await make('+14155550151')
    const drifted = await make('+14155550152')
    livekit.loseSipRule(lostTrunk.inbound.livekitDispatchRuleId)
    livekit.loseSipTrunk(lostTrunk.inbound.livekitTrunkId)
    livekit.loseSipRule(lostRule.inbound.livekitDispatchRuleId)
    livekit.driftSipRule(drifted.inbound.livekitDispatchRuleId, {
      rule: { dispatch_rule_direct: { room_name: 'somewhere-else' } },
    })
    // A trunk Parley made for a number deleted while LiveKit was unreachable.
    livekit.fail('SIP/DeleteSIPTrunk')
    livekit.fail('SIP/DeleteSIPDispatchRule')
    const gone = await make('+14155550153')
    expect((await v1(`/v1/phone-numbers/${gone.id}`, { method: 'DELETE' })).status).toBe(200)
    livekit.heal()
    expect(trunkOf('+14155550153')).toBeDefined()

    const before = log.lines.length
    await server.ctx.jobs.now(INBOUND_RECONCILE_JOB, {})
    await vi.waitFor(
      () => {
        expect(trunkOf('+14155550153')).toBeUndefined()
        for (const number of ['+14155550150', '+14155550151', '+14155550152']) {
          const trunk = trunkOf(number)
          expect(trunk).toBeDefined()
          expect(ruleOn(String(trunk?.sip_trunk_id))).toMatchObject({
            rule: { dispatch_rule_individual: { room_prefix: 'call-inbound-' } },
          })
        }
      },
      { timeout: 20_000, interval: 100 },
    )
    await vi.waitFor(
      () =>
        expect(
          log.lines
            .slice(before)
            .filter((line) => line.msg === 'inbound reconcile repaired a number in LiveKit'),
        ).toHaveLength(3),
      { timeout: 10_000 },
    )
    const repaired = log.lines
      .slice(before)
      .filter((line) => line.msg === 'inbound reconcile repaired a number in LiveKit')
    expect(repaired.map((line) => line.phoneNumberId).sort()).toEqual(
      [lostTrunk.id, lostRule.id, drifted.id].sort(),
    )
    const read = (await (await v1(`/v1/phone-numbers/${lostTrunk.id}`)).json()).data
    expect(read.inbound.livekitTrunkId).toBe(trunkOf('+14155550150')?.sip_trunk_id)
    expect(read.inbound.status).toBe('synced')
    // The deleted number's trunk and rule went, and the log says so.
    expect(livekit.sipRules()).toHaveLength(3)
    expect(
      log.lines.slice(before).some((line) => String(line.msg).includes('a number that was deleted')),
    ).toBe(true)
  })

  it('shows a LiveKit failure on the number instead of failing the change', async () => {
    livekit.fail('SIP/CreateSIPInboundTrunk')
    const response = await v1('/v1/phone-numbers', {
      method: 'POST',
      json: { number: '+14155550160', sipTrunkId: 'ST_out', inboundAgentId: agentId },
    })
    livekit.heal()
    expect(response.status).toBe(201)
    const { data } = await response.json()
    expect(data.inbound).toMatchObject({ status: 'error', livekitTrunkId: null })
    expect(data.inbound.error).toEqual(expect.any(String))
  })

  it('refuses a text, unknown or foreign inbound agent and a number another organization answers', async () => {
    const textAgent = await makeAgent(server, team.owner, { agentArchitecture: 'text' })
    const text = await v1('/v1/phone-numbers', {
      method: 'POST',
      json: { number: '+14155550170', sipTrunkId: 'ST_out', inboundAgentId: textAgent.id },
    })
    expect(text.status).toBe(400)
    expect((await text.json()).code).toBe('invalid_inbound_agent')

    const other = await createTeam(server)
    const otherKey = await secretKeyFor(server, other.owner)
    const otherAgent = await makeAgent(server, other.owner, { agentArchitecture: 'pipeline' })
    const foreign = await v1('/v1/phone-numbers', {
      method: 'POST',
      json: { number: '+14155550170', sipTrunkId: 'ST_out', inboundAgentId: otherAgent.id },
    })
    expect(foreign.status).toBe(404)

    const mine = await v1('/v1/phone-numbers', {
      method: 'POST',
      json: { number: '+14155550171', sipTrunkId: 'ST_out', inboundAgentId: agentId },
    })
    expect(mine.status).toBe(201)
    const theirs = await v1('/v1/phone-numbers', {
      method: 'POST',
      json: { number: '+14155550171', sipTrunkId: 'ST_out', inboundAgentId: otherAgent.id },
      key: otherKey,
    })
    expect(theirs.status).toBe(409)
    expect((await theirs.json()).code).toBe('inbound_number_taken')
    // Another organization cannot read or change it.
    const id = (await mine.json()).data.id
    expect((await v1(`/v1/phone-numbers/${id}`, { key: otherKey })).status).toBe(404)
    expect(
      (
        await v1(`/v1/phone-numbers/${id}`, {
          method: 'PATCH',
          json: { inboundAgentId: null },
          key: otherKey,
        })
      ).status,
    ).toBe(404)
    expect(livekit.sipTrunks().some((trunk) => (trunk.numbers as string[]).includes('+14155550171'))).toBe(
      true,
    )
  })
})
