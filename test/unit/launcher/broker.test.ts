// A brokered launch plan, as the launcher computes it: no credential read, the public key in the
// provider's variable, NO_PROXY and no_proxy always listing the broker; and the broker check's lines.
import { describe, expect, it } from 'vitest';
import { buildEnv } from '../../../launcher/env.js';
import { BROKER_KEY } from '../../../src/contracts/broker.js';
import { healthProblem, listenerOwnerProblems } from '../../../src/host/broker-check.js';
import { noProxyCovers, withNoProxyHost } from '../../../src/policy/broker-env.js';
import { ENVIRONMENT_POLICY } from '../../../src/policy/policies.js';
import { samplePlan } from './plan-fixture.js';

const brokered = samplePlan((plan) => {
  plan.credentials = {};
  plan.broker = {
    user: 'qwen-managed-broker',
    host: '127.0.0.1',
    key: BROKER_KEY,
    listeners: [
      { name: 'model', port: 940 },
      { name: 'on-demand', port: 941 },
    ],
    keyVariables: ['CONTEXT_API_TOKEN'],
  };
});
const options = { home: '/home/dev', qwenHome: '/home/dev/q', credentials: {}, platform: 'posix' as const };

describe('the environment of a brokered session', () => {
  it("the provider's variable holds the public key, whatever the caller brings; no credential is read", () => {
    const env = buildEnv(
      { CONTEXT_API_TOKEN: 'caller-token', OPENAI_API_KEY: 'sk-callers' },
      brokered,
      ENVIRONMENT_POLICY,
      {
        ...options,
        externalContextActive: true,
      },
    );
    expect(env['CONTEXT_API_TOKEN']).toBe(BROKER_KEY);
    expect(Object.values(env)).not.toContain('caller-token');
  });

  it.each<[string, Record<string, string>, Record<string, string>, string, string]>([
    [
      'the administrator set NO_PROXY (without the broker)',
      { NO_PROXY: 'localhost' },
      {},
      'localhost,127.0.0.1',
      '127.0.0.1',
    ],
    [
      'the plan sets it with the broker already',
      { NO_PROXY: 'localhost,127.0.0.1,[::1]' },
      {},
      'localhost,127.0.0.1,[::1]',
      '127.0.0.1',
    ],
    ['nothing set anywhere', {}, {}, '127.0.0.1', '127.0.0.1'],
    ['set to * (every host direct)', { no_proxy: '*' }, {}, '127.0.0.1', '*'],
  ])('NO_PROXY and no_proxy list the broker: %s', (_name, set, caller, upper, lower) => {
    const plan = samplePlan((p) => {
      Object.assign(p, { credentials: {}, broker: brokered.broker });
      p.environment.set = set;
    });
    const env = buildEnv(caller, plan, ENVIRONMENT_POLICY, { ...options, externalContextActive: true });
    expect([env['NO_PROXY'], env['no_proxy']]).toEqual([upper, lower]);
  });

  it('a rolled-back profile drops the provider variable (as it drops a provider credential)', () => {
    const env = buildEnv({}, brokered, ENVIRONMENT_POLICY, { ...options, externalContextActive: false });
    expect(env['CONTEXT_API_TOKEN']).toBeUndefined();
    expect(env['NO_PROXY']).toBe('localhost,127.0.0.1,[::1]');
  });

  it.each<[string | undefined, string, boolean]>([
    [undefined, '127.0.0.1', false],
    ['localhost, 127.0.0.1', '127.0.0.1', true],
    ['127.0.0.10', '127.0.0.1', false],
    ['*', '127.0.0.1', true],
  ])('noProxyCovers(%j, %s) = %s', (list, host, covered) => {
    expect(noProxyCovers(list, host)).toBe(covered);
    expect(noProxyCovers(withNoProxyHost(list, host), host)).toBe(true);
  });
});

describe("the broker check's lines", () => {
  const ref = { user: 'qwen-managed-broker', host: '127.0.0.1', listeners: brokered.broker!.listeners };
  const LE = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const listen = (port: number, uid: number) =>
    `   0: ${LE(port)} 00000000:0000 0A 00000000:00000000 00:00000000 00000000 ${uid} 0 1 1`;
  const tables = (...rows: string[]) => ({ tcp: ['  sl local rem st', ...rows].join('\n'), tcp6: '' });

  it.each<[string, string[], number | undefined, string[]]>([
    ['both listeners held by the broker user', [listen(940, 998), listen(941, 998)], 998, []],
    ['held by root (socket activation, or started as root)', [listen(940, 0), listen(941, 0)], 998, []],
    [
      'nothing listens: one line, what to ask',
      [],
      998,
      [
        'the credential broker is not running: nothing listens on 127.0.0.1:940 (model traffic), 127.0.0.1:941 (the on-demand provider); ask your administrator to start the credential broker (systemctl start qwen-managed-broker.service)',
      ],
    ],
    [
      'a port taken by a developer',
      [listen(940, 998), listen(941, 1001)],
      998,
      [
        "127.0.0.1:941 (the on-demand provider) is held by uid 1001, not by the credential broker (user qwen-managed-broker); nothing was started — ask your administrator: someone else took the broker's port",
      ],
    ],
    [
      'the broker user unknown here: only root passes',
      [listen(940, 998), listen(941, 0)],
      undefined,
      [
        "127.0.0.1:940 (model traffic) is held by uid 998, not by the credential broker (user qwen-managed-broker); nothing was started — ask your administrator: someone else took the broker's port",
      ],
    ],
  ])('%s', (_name, rows, brokerUid, problems) => {
    expect(listenerOwnerProblems(ref, ref.listeners, tables(...rows), 'LE', brokerUid)).toEqual(problems);
  });

  it.each<[Parameters<typeof healthProblem>[2], string | undefined]>([
    [{ kind: 'ok' }, undefined],
    [
      {
        kind: 'refused',
        message:
          'qwen-managed broker: user bob is not allowed to use the credential broker; ask your administrator to add you to broker.allow',
      },
      'the credential broker refused you: user bob is not allowed to use the credential broker; ask your administrator to add you to broker.allow',
    ],
    [
      { kind: 'failed', why: 'no answer within 3000 ms' },
      'the credential broker on 127.0.0.1:940 (model traffic) does not answer its health request (no answer within 3000 ms); ask your administrator to start the credential broker (systemctl start qwen-managed-broker.service)',
    ],
  ])('health %j', (answer, line) => {
    expect(healthProblem('127.0.0.1', { name: 'model', port: 940 }, answer)).toBe(line);
  });
});
