// The credential broker's systemd unit and sysusers entry as the Debian package ships them, with a
// drop-in render wrote: checked as files (no systemd runs here) by systemd's own `systemd-analyze`.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { brokerUnitText, LAYOUT, sysusersText } from '../../../scripts/fleet/debian.js';
import { BROKER_UNIT } from '../../../src/contracts/broker.js';
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import { render } from '../deploy/fixtures.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qm-unit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function dropIn(): string {
  const rendered = render(
    parseDeploymentValue({
      version: 1,
      platform: 'posix',
      installDir: '/opt/qwen-managed/install',
      node: '/opt/qwen-managed/node/bin/node',
      qwenCli: '/opt/qwen-managed/qwen/node_modules/@qwen-code/qwen-code/cli.js',
      repositoryRoot: '/srv/repos/app',
      environment: { PATH: '/usr/bin:/bin' },
      developers: { groups: ['devs'] },
      credentials: { CONTEXT_API_TOKEN: { file: '/etc/qwen-managed/context.token' } },
      broker: {},
      profiles: {
        'auto-recall': {
          provider: {
            type: 'generic-http-search-v1',
            baseUrl: 'https://kb.example.com',
            tokenEnv: 'CONTEXT_API_TOKEN',
          },
        },
      },
    }),
  );
  return new TextDecoder().decode(rendered.files.get('broker/systemd.conf')!.bytes);
}

/** systemd-analyze, which the suite needs (Debian: the systemd package): a clear failure without it. */
function analyze(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync('systemd-analyze', args, { encoding: 'utf8', cwd: dir, env });
  if (result.error !== undefined)
    throw new Error(`systemd-analyze is needed for this suite: ${result.error.message}`);
  return result;
}

describe('the packaged broker unit', () => {
  // The executable and the man page exist only once the package is installed (test/fleet/deb.test.ts).
  const unit = brokerUnitText().replace(`ExecStart=${LAYOUT.wrapper} `, 'ExecStart=/bin/true ');

  it('passes systemd-analyze verify with the drop-in render writes (user, install, LoadCredential=)', () => {
    fs.writeFileSync(path.join(dir, BROKER_UNIT), unit);
    fs.mkdirSync(path.join(dir, `${BROKER_UNIT}.d`), { recursive: true });
    fs.writeFileSync(path.join(dir, `${BROKER_UNIT}.d`, 'qwen-managed.conf'), dropIn());
    const result = analyze(['verify', '--man=no', BROKER_UNIT], {
      ...process.env,
      SYSTEMD_UNIT_PATH: `${dir}:`,
    });
    expect([result.status, result.stdout, result.stderr]).toEqual([0, '', '']);
  });

  it("is hardened: systemd's offline exposure score stays in its OK band", () => {
    fs.writeFileSync(path.join(dir, BROKER_UNIT), unit);
    const result = analyze(['security', '--offline=true', `./${BROKER_UNIT}`]);
    const score = Number(/Overall exposure level for .*: ([\d.]+)/.exec(result.stdout)?.[1]);
    // systemd's bands: ≤ 1.9 "OK", < 4.5 "MEDIUM" … a unit with no hardening scores 9.6.
    expect(score, result.stdout).toBeLessThanOrEqual(2);
  });

  it('starts as the broker user with the one capability it needs, and nothing that breaks Node or the peer lookup', () => {
    const lines = brokerUnitText().split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'User=qwen-managed-broker',
        'AmbientCapabilities=CAP_NET_BIND_SERVICE',
        'CapabilityBoundingSet=CAP_NET_BIND_SERVICE',
        'NoNewPrivileges=yes',
        'ExecStart=/usr/bin/qwen-managed broker --dir ${QWEN_MANAGED_INSTALL_DIR}',
      ]),
    );
    // V8 writes executable code; the broker reads /proc/net/tcp; it reaches upstreams on the network.
    expect(
      lines.filter((l) => /^(MemoryDenyWriteExecute|ProcSubset|PrivateNetwork|IPAddressDeny)=/.test(l)),
    ).toEqual([]);
  });

  it('the sysusers entry makes a system user without home or login', () => {
    const entry = sysusersText()
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'));
    expect(entry).toEqual([
      'u qwen-managed-broker - "qwen-managed credential broker" /nonexistent /usr/sbin/nologin',
    ]);
  });
});
