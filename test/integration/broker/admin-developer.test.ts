// The credential broker and an install its own developer rendered (manifest.json `adminUid` = an
// allowed developer, as on a single-user machine where the developer is also the administrator): the
// broker trusts files owned by root or `adminUid`, so that developer — or any code running as them, a
// repository's payload after one approved command — could rewrite broker.json and manifest.json and
// point a credential at their own server. The broker refuses to start from such an install, naming
// the uid; the negative control shows the rewritten tree passing every check of the files themselves
// (measured before the refusal: the broker started from it and sent `Bearer <model key>` to the
// developer's server on another address of the machine, where no loopback owner check applies).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBrokerConfig } from '../../../src/broker/load.js';
import { BROKER_CONFIG_REL } from '../../../src/contracts/broker.js';
import { createThrowawayUser, removeThrowawayUser, type TestUser } from '../../e2e/harness/users.js';
import {
  createBrokerUser,
  freePrivilegedPorts,
  removeBrokerUser,
  requestAs,
  type SystemUser,
} from '../../fixtures/broker.js';
import { cli, ownedDir, RunningBroker } from '../../fixtures/broker-install.js';
import { FakeModel } from '../../fixtures/fake-model/server.js';
import { bundleToolkit } from '../deploy/admin-cli.js';
import { node22Binary, pinNode, writeStubQwen } from '../launcher/harness.js';

const MODEL_KEY = 'sk-broker-admin-dev-8c31f0';

let root: string;
let dev: TestUser;
let brokerUser: SystemUser;
let model: FakeModel;
let installDir: string;
let ports: number[];
/** Where the developer would like the model key to go (never contacted: the broker does not start). */
const DEVELOPER_SERVER = 'http://192.0.2.10:8080';

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync('/tmp/qme2e-brkadm-'));
  fs.chmodSync(root, 0o755);
  dev = createThrowawayUser(path.join(ownedDir(path.join(root, 'dev'), 0o755), 'home'));
  brokerUser = createBrokerUser();
  model = await FakeModel.start();
  const node = pinNode(node22Binary(), path.join(root, 'node', 'bin', 'node'));
  const stub = writeStubQwen(root, { exitCode: 0 }, dev);
  const repo = ownedDir(path.join(root, 'repo'), 0o755, dev);
  const secrets = ownedDir(path.join(root, 'secrets'), 0o700);
  const keyFile = path.join(secrets, 'openai_api_key');
  fs.writeFileSync(keyFile, `${MODEL_KEY}\n`, { mode: 0o600 });
  // The developer's own install directory: they render into it as themselves.
  installDir = ownedDir(path.join(root, 'install'), 0o755, dev);
  ports = await freePrivilegedPorts(2);
  const deployment = {
    version: 1,
    platform: 'posix',
    installDir,
    node,
    qwenCli: stub.cli,
    repositoryRoot: repo,
    environment: { PATH: '/usr/bin:/bin', inherit: ['TERM'] },
    developers: { users: [dev.name] },
    credentials: { OPENAI_API_KEY: { file: keyFile, profiles: ['on-demand'] } },
    settings: {
      model: { name: model.modelId },
      security: { auth: { selectedType: 'openai', baseUrl: model.baseUrl } },
    },
    broker: { user: brokerUser.name, ports: { model: ports[0], 'on-demand': ports[1] } },
    profiles: {
      'on-demand': {
        provider: {
          type: 'generic-http-search-v1',
          baseUrl: 'http://127.0.0.1:9',
          tokenEnv: 'OPENAI_API_KEY',
        },
      },
    },
  };
  const file = path.join(root, 'deployment.json');
  fs.writeFileSync(file, JSON.stringify(deployment, null, 2), { mode: 0o644 });
  // The developer runs the toolkit from where they can read it (the clone may be 0700).
  const toolkit = await bundleToolkit(root);
  const rendered = spawnSync(process.execPath, [toolkit, 'render', '--deployment', file], {
    uid: dev.uid,
    gid: dev.gid,
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', HOME: dev.home },
  });
  if (rendered.status !== 0)
    throw new Error(`render as the developer failed:\n${rendered.stdout}${rendered.stderr}`);
}, 120_000);

afterAll(async () => {
  await model?.close();
  if (dev) removeThrowawayUser(dev);
  removeBrokerUser(brokerUser);
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** As the developer: the model listener pointed at `upstream`, manifest.json's sha256 made to match. */
function rewriteAsDeveloper(upstream: string): void {
  const script = `
    const fs = require('fs');
    const crypto = require('crypto');
    const [config, manifestFile, rel, upstream] = process.argv.slice(1);
    const c = JSON.parse(fs.readFileSync(config, 'utf8'));
    for (const l of c.listeners) if (l.name === 'model') l.upstream = upstream;
    const text = JSON.stringify(c, null, 2) + '\\n';
    fs.writeFileSync(config, text);
    const m = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    m.files[rel].sha256 = crypto.createHash('sha256').update(text).digest('hex');
    fs.writeFileSync(manifestFile, JSON.stringify(m, null, 2) + '\\n');
  `;
  const edited = spawnSync(
    process.execPath,
    [
      '-e',
      script,
      path.join(installDir, BROKER_CONFIG_REL),
      path.join(installDir, 'manifest.json'),
      BROKER_CONFIG_REL,
      upstream,
    ],
    { uid: dev.uid, gid: dev.gid, encoding: 'utf8' },
  );
  if (edited.status !== 0) throw new Error(`the developer's rewrite failed:\n${edited.stderr}`);
}

describe('an install rendered by one of the developers the broker serves (manifest.json adminUid)', () => {
  it("negative control: the developer's rewrite of broker.json passes every check of the files themselves", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(installDir, 'manifest.json'), 'utf8')) as {
      adminUid: number;
    };
    expect(manifest.adminUid).toBe(dev.uid);
    rewriteAsDeveloper(DEVELOPER_SERVER);
    // StrictModes (owner root or adminUid), the sha256 in manifest.json, the schema: all hold.
    const { config } = loadBrokerConfig(installDir, fs);
    expect(config.listeners.find((l) => l.name === 'model')?.upstream).toBe(DEVELOPER_SERVER);
  });

  it('the broker refuses to start, naming the administrator; nothing listens', async () => {
    // A broker that started anyway (the refusal missing) is stopped at once: it must not outlive the test.
    const outcome = await RunningBroker.start(installDir).then(
      async (broker) => {
        await broker.stop();
        return 'the broker started';
      },
      (error: Error) => error.message,
    );
    expect(outcome).toContain(
      `the install's administrator ${dev.name} (uid ${dev.uid}), who rendered it (manifest.json adminUid), is one of the users allowed to call the broker (broker.allow): the broker trusts their files, so they could point a credential at their own server; render the deployment as root (sudo qwen-managed render …), or as an administrator who is no developer`,
    );
    const answer = await requestAs(dev, ports[0]!, { path: '/v1/chat/completions', body: '{}' });
    expect(answer).toMatchObject({ status: 0, error: 'ECONNREFUSED' });
  }, 120_000);

  it('verify (as root) reports it under broker.user, with the same line', () => {
    const result = cli(['verify', '--dir', installDir, '--json', '--skip-smoke']);
    expect(result.status).toBe(1);
    const failed = (
      JSON.parse(result.stdout).checks as Array<{ id: string; ok: boolean; message: string }>
    ).filter((c) => c.id === 'broker.user' && !c.ok);
    expect(failed.map((c) => c.message)).toEqual([
      expect.stringContaining(`the install's administrator ${dev.name} (uid ${dev.uid}), who rendered it`),
    ]);
  });
});
