// The launcher against an install written by the real render (src/deploy/render) and rolled back by
// the real rollback (src/deploy/rollback): the contract between the three is the launch plan and the
// manifest, and this is where a drift between them would show.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readOpenclawSessions } from '../../../launcher/openclaw-sessions.js';
import { planReport } from '../../../src/cli/commands/plan.js';
import type { ProfileKind } from '../../../src/contracts/launch-plan.js';
import { RUNTIME_FILES } from '../../../src/contracts/runtime-files.js';
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import { renderInstall, requiredRuntimeFiles } from '../../../src/deploy/render/render.js';
import { writeInstall } from '../../../src/deploy/render/writer.js';
import { rollbackInstall } from '../../../src/deploy/rollback/install.js';
import { runtimePath } from '../../fixtures/run-runtime.js';
import { createTestCertificate } from '../../fixtures/tls-cert.js';
import {
  finished,
  launcherSuite,
  node22Binary,
  pinNode,
  readRecord,
  type Stub,
  writeStubQwen,
} from './harness.js';

const TOKEN = 'tok-render-Zx81Qm';
const NOW = '2026-01-01T00:00:00.000Z';
const CALLER_ENV = {
  TERM: 'xterm-256color',
  LANG: 'C.UTF-8',
  PATH: '/usr/bin:/bin',
  NODE_OPTIONS: '--max-old-space-size=256',
  NODE_EXTRA_CA_CERTS: '/nonexistent/caller-mitm-ca.pem',
};
const suite = launcherSuite('qm-launch-render-', 'render');
let stub: Stub;
let installDir: string;
let repo: string;
let node: string;
let caFile: string;

beforeAll(async () => {
  const { base, bundle } = suite;
  node = pinNode(node22Binary(), path.join(base, 'node', 'node'));
  stub = writeStubQwen(base, {}, suite.user);
  repo = path.join(base, 'repo');
  fs.mkdirSync(repo, { mode: 0o755 });
  const tokenFile = path.join(base, 'secrets', 'context.token');
  fs.mkdirSync(path.dirname(tokenFile), { mode: 0o755 });
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o644 });
  caFile = path.join(base, 'pki', 'ca.pem');
  fs.mkdirSync(path.dirname(caFile), { mode: 0o755 });
  fs.writeFileSync(caFile, createTestCertificate().cert, { mode: 0o644 });
  installDir = path.join(base, 'install');
  const provider = {
    type: 'generic-http-search-v1',
    baseUrl: 'https://context.example.com',
    tokenEnv: 'CONTEXT_API_TOKEN',
  };
  const parsed = parseDeploymentValue({
    version: 1,
    platform: 'posix',
    installDir,
    node,
    qwenCli: stub.cli,
    repositoryRoot: repo,
    environment: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      inherit: ['TERM', 'LANG'],
      set: { NO_PROXY: 'localhost' },
    },
    credentials: { CONTEXT_API_TOKEN: { file: tokenFile } },
    tls: { extraCaCertificates: caFile },
    profiles: {
      'on-demand': { provider, timeoutMs: 5000 },
      'auto-recall': { provider, timeoutMs: 1500 },
    },
  });
  const runtime = new Map(
    requiredRuntimeFiles().map((name) => [
      name,
      name === RUNTIME_FILES.launcher
        ? fs.readFileSync(bundle)
        : // What bin/launch-qwen runs; with no code cache made here it requires the bundle above.
          name === RUNTIME_FILES.launcherStart
          ? fs.readFileSync(runtimePath(name))
          : new TextEncoder().encode(`// stand-in for ${name}\n`),
    ]),
  );
  const rendered = renderInstall(parsed, runtime, { toolkitVersion: '0.1.0', adminUid: 0, now: NOW });
  await writeInstall(installDir, rendered, { now: NOW });
}, 600_000);

async function launch(kind: ProfileKind) {
  fs.rmSync(stub.record, { force: true });
  const session = suite.sessions.start(
    [path.join(installDir, 'bin', 'launch-qwen'), '--profile', kind],
    CALLER_ENV,
    suite.user,
    suite.base,
  );
  const { exit, output } = await finished(session);
  return { exit, output, record: readRecord(stub) };
}

const profileFile = (kind: ProfileKind, file: string) => path.join(installDir, 'profiles', kind, file);

describe('launch-qwen on a rendered install', () => {
  it.each([
    ['on-demand', true],
    ['auto-recall', false],
  ] as const)(
    'starts %s with the rendered plan, exactly as `plan` prints it (MCP config: %s)',
    async (kind, mcp) => {
      const argv = ['--extensions', 'none', ...(mcp ? ['--mcp-config', profileFile(kind, 'mcp.json')] : [])];
      const { exit, output, record } = await launch(kind);
      expect([exit.exitCode, output]).toEqual([0, 'STUB DONE\n']);
      expect(record?.argv).toEqual([stub.cli, ...argv]);
      expect(record?.cwd).toBe(repo);
      expect(record?.env['QWEN_EXTERNAL_CONTEXT_CONFIG']).toBe(profileFile(kind, 'external-context.json'));
      expect(record?.env['QWEN_CODE_SYSTEM_SETTINGS_PATH']).toBe(profileFile(kind, 'system-settings.json'));
      expect(record?.env['CONTEXT_API_TOKEN']).toBe(TOKEN);
      expect(record?.env['NODE_OPTIONS']).toBeUndefined();
      expect(record?.env['NODE_EXTRA_CA_CERTS']).toBe(caFile);
      const report = await planReport(installDir, kind, CALLER_ENV, {
        userInfo: () => ({ homedir: suite.user.home }),
        fs,
        hostPlatform: process.platform,
        openclawSessions: readOpenclawSessions,
      });
      expect(report.argv).toEqual([node, ...(record?.argv ?? [])]);
      expect(
        Object.fromEntries(report.environment.map((e) => [e.name, e.redacted ? TOKEN : e.value])),
      ).toEqual(record?.env);
    },
  );

  it('starts a profile rolled back by the real rollback without external context', async () => {
    await rollbackInstall({ dir: installDir, kind: 'auto-recall', now: NOW });
    const { exit, output, record } = await launch('auto-recall');
    expect([exit.exitCode, output]).toEqual([
      0,
      'launch-qwen: profile "auto-recall" is rolled back; starting Qwen without external context.\nSTUB DONE\n',
    ]);
    expect(record?.argv).toEqual([stub.cli, '--extensions', 'none']);
    expect(Object.keys(record?.env ?? {})).not.toContain('QWEN_EXTERNAL_CONTEXT_CONFIG');
    expect(Object.keys(record?.env ?? {})).not.toContain('CONTEXT_API_TOKEN');
    // The CA is not external context: model traffic through an inspecting proxy still needs it.
    expect(record?.env['NODE_EXTRA_CA_CERTS']).toBe(caFile);
    // The other profile of the install is untouched by the rollback.
    expect((await launch('on-demand')).record?.env['CONTEXT_API_TOKEN']).toBe(TOKEN);
  });
});
