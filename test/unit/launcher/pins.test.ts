import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LaunchError } from '../../../launcher/messages.js';
import { loadPins, type PinsFs } from '../../../launcher/pins.js';
import type { LaunchPlan, ProfileKind } from '../../../src/contracts/launch-plan.js';
import { SUPPORTED_QWEN_VERSIONS } from '../../../src/qwen/versions.js';
import {
  buildInstallDir,
  type InstallFixture,
  type InstallFixtureOptions,
} from '../../fixtures/install-dir.js';

/** The supported list as the refusal names it (policies/qwen/versions.json is its one home). */
const SUPPORTED = SUPPORTED_QWEN_VERSIONS.join(', ');

let base: string;
let counter = 0;

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-pins-')));
  fs.chmodSync(base, 0o755);
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function fixture(options: Partial<InstallFixtureOptions> = {}): InstallFixture {
  const root = path.join(base, `f${counter++}`);
  fs.mkdirSync(root, { mode: 0o755 });
  const qwenCli = path.join(root, 'qwen', 'cli.js');
  fs.mkdirSync(path.dirname(qwenCli), { mode: 0o755 });
  fs.writeFileSync(qwenCli, '// stub\n', { mode: 0o644 });
  const bundle = path.join(root, 'bundle.js');
  fs.writeFileSync(bundle, '// launcher bundle stand-in\n');
  const secrets = path.join(root, 'secrets');
  fs.mkdirSync(secrets, { mode: 0o755 });
  fs.writeFileSync(path.join(secrets, 'context.token'), 'tok\n', { mode: 0o644 });
  return buildInstallDir({
    root,
    launcherBundle: bundle,
    node: process.execPath,
    qwenCli,
    profiles: ['on-demand', 'auto-recall'],
    credentials: { CONTEXT_API_TOKEN: { file: path.join(secrets, 'context.token') } },
    providerCredentials: ['CONTEXT_API_TOKEN'],
    ...options,
  });
}

function load(f: InstallFixture, kind: ProfileKind = 'on-demand', fsImpl: PinsFs = fs) {
  return loadPins({ installDir: f.installDir, kind, platform: 'posix', fs: fsImpl });
}

function refusal(fn: () => unknown): { exitCode: number; problems: string[] } {
  try {
    fn();
  } catch (error) {
    if (error instanceof LaunchError) return { exitCode: error.exitCode, problems: [...error.problems] };
    throw error;
  }
  throw new Error('expected a refusal');
}

/** The real fs, except that lstat reports `uid` as the owner of `target`. */
function ownedBy(target: string, uid: number): PinsFs {
  return {
    ...fs,
    lstatSync: ((p: string) => {
      const stat = fs.lstatSync(p);
      return p === target ? Object.assign(Object.create(stat), { uid }) : stat;
    }) as PinsFs['lstatSync'],
  } as PinsFs;
}

const q = JSON.stringify;

describe('loadPins', () => {
  it.each([
    // A permission problem is the administrator's to fix by mode: a re-render writes the same modes.
    [
      'EACCES',
      'every install file must be readable by the developers; ask your administrator (chmod a+r, and a+x on its directories)',
    ],
    ['ENOENT', 're-render the deployment'],
  ])('an install JSON file it cannot read (%s) names the fix that applies', (code, fix) => {
    const f = fixture();
    const manifest = path.join(f.installDir, 'manifest.json');
    const failing = {
      ...fs,
      readFileSync: ((p: string, ...rest: unknown[]) => {
        if (p === manifest) throw Object.assign(new Error(code), { code });
        return (fs.readFileSync as (...a: unknown[]) => unknown)(p, ...rest);
      }) as PinsFs['readFileSync'],
    } as PinsFs;
    expect(refusal(() => load(f, 'on-demand', failing)).problems).toEqual([
      `cannot read ${q(manifest)} (${code}); ${fix}`,
    ]);
  });

  it('accepts a rendered install and returns the checked argv', () => {
    const f = fixture();
    const pins = load(f);
    expect(pins.externalContextActive).toBe(true);
    expect(pins.plan).toEqual(f.plans['on-demand']);
    expect(pins.argv).toEqual([
      f.plans['on-demand']!.qwenCli,
      '--extensions',
      'none',
      '--mcp-config',
      f.profileFile('on-demand', 'mcp.json'),
    ]);
  });

  it('a rolled-back profile is inactive and drops the external-context argv', () => {
    const f = fixture({ states: { 'on-demand': 'rolled-back' } });
    const pins = load(f);
    expect([pins.externalContextActive, pins.argv]).toEqual([
      false,
      [f.plans['on-demand']!.qwenCli, '--extensions', 'none'],
    ]);
  });

  it('refuses a profile that is not deployed, as a usage error', () => {
    const f = fixture({ profiles: ['on-demand'] });
    expect(refusal(() => load(f, 'write'))).toEqual({
      exitCode: 2,
      problems: [`profile "write" is not deployed in ${q(f.installDir)} (deployed: on-demand)`],
    });
  });

  it.each<[string, (plan: LaunchPlan) => void, (f: InstallFixture) => string]>([
    [
      'a missing Qwen cli',
      (p) => {
        p.qwenCli = `${p.qwenCli}.missing`;
      },
      (f) =>
        `Qwen cli ${q(`${f.root}/qwen/cli.js.missing`)} does not exist; fix: install Qwen (docs/admin.md, "Installing Qwen for a deployment") there, or name where it is in deployment.json "qwenCli" and render again`,
    ],
    [
      'a relative node',
      (p) => {
        p.node = 'node';
      },
      () => 'node "node" is not an absolute path; re-render the deployment',
    ],
    [
      'a missing repository root',
      (p) => {
        p.cwd = '/nonexistent/repo';
      },
      () =>
        `repository root "/nonexistent/repo" does not exist; fix: create it, or name the repository developers open in deployment.json "repositoryRoot" and render again`,
    ],
    [
      'a pinned path with a dollar sign',
      (p) => {
        p.environment.files['QWEN_CODE_SYSTEM_DEFAULTS_PATH'] = '/opt/$HOME/x.json';
      },
      () =>
        'QWEN_CODE_SYSTEM_DEFAULTS_PATH "/opt/$HOME/x.json" contains "$" (Qwen would substitute it); re-render the deployment',
    ],
    [
      'a missing pinned admin file variable',
      (p) => {
        delete p.environment.files['QWEN_CODE_TRUSTED_FOLDERS_PATH'];
      },
      () => 'QWEN_CODE_TRUSTED_FOLDERS_PATH is not pinned by the launch plan; re-render the deployment',
    ],
    [
      'a node that is a directory',
      (p) => {
        p.node = '/usr/bin';
      },
      () => 'node "/usr/bin" is not a file',
    ],
    [
      'a pinned file inside the install that the manifest does not list',
      (p) => {
        p.externalContext.configFile = `${p.installDir}/profiles/on-demand/unlisted.json`;
      },
      (f) =>
        `provider config ${q(`${f.installDir}/profiles/on-demand/unlisted.json`)} is not listed in manifest.json; re-render`,
    ],
  ])('refuses %s', (_title, edit, problem) => {
    const f = fixture({
      editPlan: (plan) => {
        edit(plan);
        return plan;
      },
    });
    expect(refusal(() => load(f)).problems).toContain(problem(f));
  });

  it("refuses Qwen's cli-entry.js (it relaunches itself and can self-update)", () => {
    const f = fixture({
      editPlan: (p) => ({ ...p, qwenCli: p.qwenCli.replace(/cli\.js$/, 'cli-entry.js') }),
    });
    const entry = path.join(f.root, 'qwen', 'cli-entry.js');
    fs.copyFileSync(path.join(f.root, 'qwen', 'cli.js'), entry);
    expect(refusal(() => load(f)).problems).toEqual([
      `Qwen cli ${q(entry)} is cli-entry.js, Qwen's self-updating wrapper (npm's bin/qwen links to it): it relaunches Qwen and can apply an update first; fix: pin ${q(path.join(f.root, 'qwen', 'cli.js'))}`,
    ]);
  });

  it("refuses npm's bin/qwen link: a pin is judged by what it resolves to (the issue 28 row)", () => {
    const f = fixture({
      editPlan: (p) => ({ ...p, qwenCli: path.join(path.dirname(path.dirname(p.qwenCli)), 'bin', 'qwen') }),
    });
    const entry = path.join(f.root, 'qwen', 'cli-entry.js');
    fs.copyFileSync(path.join(f.root, 'qwen', 'cli.js'), entry);
    fs.mkdirSync(path.join(f.root, 'bin'), { mode: 0o755 });
    fs.symlinkSync('../qwen/cli-entry.js', path.join(f.root, 'bin', 'qwen'));
    expect(refusal(() => load(f)).problems).toEqual([
      `Qwen cli ${q(path.join(f.root, 'bin', 'qwen'))} (it resolves to ${q(entry)}) is cli-entry.js, Qwen's self-updating wrapper (npm's bin/qwen links to it): it relaunches Qwen and can apply an update first; fix: pin ${q(path.join(f.root, 'qwen', 'cli.js'))}`,
    ]);
    // Control: the same link to cli.js is accepted (node runs the linked script from its real path).
    fs.rmSync(path.join(f.root, 'bin', 'qwen'));
    fs.symlinkSync('../qwen/cli.js', path.join(f.root, 'bin', 'qwen'));
    expect(load(f).argv[0]).toBe(path.join(f.root, 'bin', 'qwen'));
  });

  it.each<[string, string, boolean]>([
    ['v20.20.2', '>=22.0.0', true],
    ['v21.7.3', '>=22.0.0', true],
    ['v22.23.3', '>=22.0.0', false],
  ])("node %s against the Qwen package's engines %s: refused %s", (version, engines, refused) => {
    const f = fixture();
    fs.writeFileSync(
      path.join(f.root, 'qwen', 'package.json'),
      JSON.stringify({ name: '@qwen-code/qwen-code', version: '0.24.4', engines: { node: engines } }),
      { mode: 0o644 },
    );
    const run = () =>
      loadPins({
        installDir: f.installDir,
        kind: 'on-demand',
        platform: 'posix',
        fs,
        nodeVersionOf: () => version,
      });
    if (!refused) {
      expect(run().qwenVersion).toBe('0.24.4');
      return;
    }
    expect(refusal(run).problems).toEqual([
      `node ${q(process.execPath)} is ${version}, but Qwen 0.24.4 at ${q(path.join(f.root, 'qwen'))} declares engines.node "${engines}": it cannot start on it; fix: pin a Node that satisfies "${engines}" (docs/admin.md, "Installing Qwen for a deployment")`,
    ]);
  });

  it('refuses a file changed after render (checksum mismatch)', () => {
    const f = fixture();
    fs.appendFileSync(f.profileFile('on-demand', 'system-settings.json'), ' ');
    expect(refusal(() => load(f))).toEqual({
      exitCode: 1,
      problems: [
        `${q(f.profileFile('on-demand', 'system-settings.json'))} does not match its sha256 in manifest.json (changed after render); restore it or re-render`,
      ],
    });
  });

  it('refuses a launch.json changed after render', () => {
    const f = fixture();
    const file = f.profileFile('on-demand', 'launch.json');
    const plan = JSON.parse(fs.readFileSync(file, 'utf8')) as LaunchPlan;
    plan.environment.inherit.push('SSH_AUTH_SOCK');
    fs.writeFileSync(file, JSON.stringify(plan));
    expect(refusal(() => load(f)).problems).toEqual([
      `${q(file)} does not match its sha256 in manifest.json (changed after render); re-render`,
    ]);
  });

  it('refuses a missing install file listed in the manifest (any profile)', () => {
    const f = fixture();
    fs.rmSync(f.profileFile('auto-recall', 'trusted-folders.json'));
    expect(refusal(() => load(f)).problems).toEqual([
      `${q(f.profileFile('auto-recall', 'trusted-folders.json'))} is missing; restore it or re-render the deployment`,
    ]);
  });

  it.each([
    [
      'a group-writable install file',
      (f: InstallFixture) => f.profileFile('on-demand', 'mcp.json'),
      0o664,
      'file',
    ],
    [
      'a world-writable install file',
      (f: InstallFixture) => path.join(f.installDir, 'runtime', 'mcp-server.js'),
      0o646,
      'file',
    ],
    [
      'a world-writable profile directory',
      (f: InstallFixture) => path.join(f.installDir, 'profiles', 'on-demand'),
      0o757,
      'directory',
    ],
    ['a group-writable install directory', (f: InstallFixture) => f.installDir, 0o775, 'directory'],
    ['a group-writable Qwen cli', (f: InstallFixture) => path.join(f.root, 'qwen', 'cli.js'), 0o664, 'file'],
    [
      'a group-writable credential file',
      (f: InstallFixture) => path.join(f.root, 'secrets', 'context.token'),
      0o660,
      'file',
    ],
    ['a world-writable fixture root', (f: InstallFixture) => f.root, 0o777, 'directory'],
  ])('refuses %s (StrictModes)', (_title, target, mode, what) => {
    const f = fixture();
    const p = target(f);
    fs.chmodSync(p, mode);
    const octal = mode.toString(8).padStart(4, '0');
    expect(refusal(() => load(f))).toEqual({
      exitCode: 1,
      problems: [`${q(p)} is a ${what} writable by group or others (mode ${octal}); fix: chmod go-w '${p}'`],
    });
  });

  it.each([
    ['an install file', (f: InstallFixture) => f.profileFile('on-demand', 'system-settings.json')],
    ['the manifest', (f: InstallFixture) => path.join(f.installDir, 'manifest.json')],
    ['the node binary', () => process.execPath],
    ['the credential file', (f: InstallFixture) => path.join(f.root, 'secrets', 'context.token')],
    ['a directory above the install', (f: InstallFixture) => f.root],
  ])('refuses %s owned by another user', (_title, target) => {
    const f = fixture();
    const p = target(f);
    expect(refusal(() => load(f, 'on-demand', ownedBy(p, 4242)))).toEqual({
      exitCode: 1,
      problems: [`${q(p)} is owned by uid 4242, not root; fix: chown root '${p}'`],
    });
  });

  describe('the whole Qwen package beside cli.js (verify host.qwen, one implementation)', () => {
    /** Turns the fixture's qwen/ into a Qwen package with a chunk and a vendored binary. */
    function qwenPackage(f: InstallFixture, version = '0.24.4'): string {
      const dir = path.join(f.root, 'qwen');
      fs.writeFileSync(
        path.join(dir, 'package.json'),
        JSON.stringify({ name: '@qwen-code/qwen-code', version }),
      );
      fs.mkdirSync(path.join(dir, 'chunks'), { mode: 0o755 });
      fs.writeFileSync(path.join(dir, 'chunks', 'chunk-A.js'), '// chunk\n', { mode: 0o644 });
      return dir;
    }

    it('starts with a clean package', () => {
      const f = fixture();
      qwenPackage(f);
      expect(load(f).plan.qwenCli).toBe(path.join(f.root, 'qwen', 'cli.js'));
    });

    it.each(SUPPORTED_QWEN_VERSIONS.map((v) => [v]))(
      'accepts Qwen %s (policies/qwen/versions.json) and returns its version for the per-version facts',
      (version) => {
        const f = fixture();
        qwenPackage(f, version);
        expect(load(f).qwenVersion).toBe(version);
      },
    );

    it.each<[string, string[] | undefined, boolean]>([
      ['render listed the pinned version as missing a managed setting', ['0.24.0'], true],
      ['negative control: render listed only other versions', ['0.24.2'], false],
      ['negative control: none listed', [], false],
      ['negative control: a plan from before the field (not checked)', undefined, false],
    ])('Qwen 0.24.0 pinned: %s', (_name, missing, refused) => {
      const f = fixture({
        editPlan: (plan) =>
          missing === undefined ? plan : { ...plan, qwenVersionsMissingSettings: missing },
      });
      const dir = qwenPackage(f, '0.24.0');
      const expected = `Qwen 0.24.0 at ${q(dir)} would ignore managed settings it does not know (rendered into this profile's system settings); pin a Qwen that has them, or remove them from deployment.json and re-render (qwen-managed verify names them: settings.qwen)`;
      if (refused) expect(refusal(() => load(f))).toEqual({ exitCode: 1, problems: [expected] });
      else expect(load(f).qwenVersion).toBe('0.24.0');
    });

    it('a cli.js outside the Qwen package has no version (the stand-in of the launcher suites)', () => {
      expect(load(fixture()).qwenVersion).toBeUndefined();
    });

    it.each<[string, (dir: string) => PinsFs | undefined, (dir: string) => string]>([
      [
        'a chunk writable by others',
        (dir) => {
          fs.chmodSync(path.join(dir, 'chunks', 'chunk-A.js'), 0o666);
          return undefined;
        },
        (dir) =>
          `Qwen's install ${q(dir)} has 1 entry writable by group or others, e.g. ${q(`${dir}/chunks/chunk-A.js`)} (mode 666); whoever can write them changes what Qwen runs, hooks included; fix: chmod -R go-w '${dir}'`,
      ],
      [
        'a chunk directory writable by its group',
        (dir) => {
          fs.chmodSync(path.join(dir, 'chunks'), 0o775);
          return undefined;
        },
        (dir) =>
          `Qwen's install ${q(dir)} has 1 entry writable by group or others, e.g. ${q(`${dir}/chunks`)} (mode 775); whoever can write them changes what Qwen runs, hooks included; fix: chmod -R go-w '${dir}'`,
      ],
      [
        'a chunk owned by another user',
        (dir) => ownedBy(path.join(dir, 'chunks', 'chunk-A.js'), 4242),
        (dir) =>
          `Qwen's install ${q(dir)} has 1 entry owned by uid 4242, not root, e.g. ${q(`${dir}/chunks/chunk-A.js`)}; fix: chown -R root '${dir}'`,
      ],
    ])('refuses %s', (_title, spoil, line) => {
      const f = fixture();
      const dir = qwenPackage(f);
      const fsImpl = spoil(dir) ?? fs;
      expect(refusal(() => load(f, 'on-demand', fsImpl))).toEqual({ exitCode: 1, problems: [line(dir)] });
    });

    it.each([['0.23.9'], ['0.24.1'], ['0.25.0'], ['0.24.4-nightly']])(
      'refuses Qwen %s (not a supported version)',
      (version) => {
        const f = fixture();
        const dir = qwenPackage(f, version);
        expect(refusal(() => load(f))).toEqual({
          exitCode: 1,
          problems: [
            `Qwen ${version} at ${q(dir)} is not a version this toolkit supports (${SUPPORTED}); pin a supported Qwen or upgrade qwen-managed`,
          ],
        });
      },
    );
  });

  it("does not check the repository root's ownership", () => {
    const f = fixture();
    fs.chmodSync(f.cwd, 0o777);
    expect(load(f, 'on-demand', ownedBy(f.cwd, 4242)).externalContextActive).toBe(true);
  });

  it('does not check the credential file of a rolled-back provider', () => {
    const f = fixture({ states: { 'on-demand': 'rolled-back' } });
    fs.rmSync(path.join(f.root, 'secrets', 'context.token'));
    expect(load(f).externalContextActive).toBe(false);
  });

  it('refuses a moved or copied install', () => {
    const f = fixture();
    const copy = path.join(f.root, 'copy');
    fs.cpSync(f.installDir, copy, { recursive: true });
    expect(refusal(() => loadPins({ installDir: copy, kind: 'on-demand', platform: 'posix', fs }))).toEqual({
      exitCode: 1,
      problems: [
        `the launch plan belongs to the install directory ${q(f.installDir)}, but this launcher runs from ${q(copy)}; a moved or copied install is refused — render the deployment into ${q(copy)} instead`,
      ],
    });
  });

  it('refuses a plan rendered for another platform', () => {
    const f = fixture({
      editPlan: (p) => ({ ...p, platform: 'windows' }),
    });
    expect(refusal(() => load(f)).problems).toEqual([
      `${q(f.profileFile('on-demand', 'launch.json'))} was rendered for windows, not posix; re-render for this platform`,
    ]);
  });

  it('refuses a plan whose argv breaks the argument policy', () => {
    const f = fixture({ editPlan: (p) => ({ ...p, argv: [...p.argv, '--yolo'] }) });
    expect(refusal(() => load(f))).toEqual({
      exitCode: 1,
      problems: [
        'launch plan for "on-demand": refused Qwen option "--yolo" (YOLO approves every tool); re-render the deployment',
      ],
    });
  });

  it('refuses a launch.json that does not match the schema', () => {
    const f = fixture();
    const file = f.profileFile('on-demand', 'launch.json');
    fs.writeFileSync(file, JSON.stringify({ ...f.plans['on-demand'], extra: 1, node: 7 }));
    f.rehash();
    expect(refusal(() => load(f)).problems).toEqual([
      `${q(file)} does not match its schema (node: expected string; (top level): unknown key(s) extra); re-render the deployment`,
    ]);
  });

  it('refuses a manifest key that escapes the install directory', () => {
    const f = fixture();
    const manifestFile = path.join(f.installDir, 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    manifest.files['../qwen/cli.js'] = { sha256: '0'.repeat(64), mode: '0644' };
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    expect(refusal(() => load(f)).problems).toEqual([
      'manifest.json lists "../qwen/cli.js", which is not a plain relative path; re-render',
    ]);
  });

  it('reports every failure at once', () => {
    const f = fixture();
    fs.appendFileSync(f.profileFile('on-demand', 'mcp.json'), ' ');
    fs.chmodSync(f.profileFile('on-demand', 'system-settings.json'), 0o666);
    fs.rmSync(path.join(f.root, 'qwen', 'cli.js'));
    expect(refusal(() => load(f)).problems).toEqual([
      `${q(f.profileFile('on-demand', 'mcp.json'))} does not match its sha256 in manifest.json (changed after render); restore it or re-render`,
      `Qwen cli ${q(path.join(f.root, 'qwen', 'cli.js'))} does not exist; fix: install Qwen (docs/admin.md, "Installing Qwen for a deployment") there, or name where it is in deployment.json "qwenCli" and render again`,
      `${q(f.profileFile('on-demand', 'system-settings.json'))} is a file writable by group or others (mode 0666); fix: chmod go-w '${f.profileFile('on-demand', 'system-settings.json')}'`,
    ]);
  });
});

describe('loadPins: the CA file the plan pins as NODE_EXTRA_CA_CERTS (deployment.json tls)', () => {
  /** A fixture whose plans pin `<root>/pki/ca.pem` (0644, in a 0755 directory), made real by `make`. */
  function withCa(make: (ca: string) => void = (ca) => fs.writeFileSync(ca, 'PEM\n', { mode: 0o644 })) {
    const f = fixture({
      editPlan: (plan) => {
        plan.environment.files['NODE_EXTRA_CA_CERTS'] = path.join(
          path.dirname(plan.installDir),
          'pki',
          'ca.pem',
        );
        return plan;
      },
    });
    const ca = path.join(f.root, 'pki', 'ca.pem');
    fs.mkdirSync(path.dirname(ca), { mode: 0o755 });
    make(ca);
    return { f, ca };
  }
  /** The real fs, except that `target` is not readable by the caller (root reads everything). */
  const unreadable = (target: string): PinsFs =>
    ({
      ...fs,
      accessSync: ((p: string, mode?: number) => {
        if (p === target && ((mode ?? 0) & fs.constants.R_OK) !== 0)
          throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
        fs.accessSync(p, mode);
      }) as PinsFs['accessSync'],
    }) as PinsFs;

  it('accepts a root-owned 0644 regular file and keeps it in the plan', () => {
    const { f, ca } = withCa();
    expect(load(f).plan.environment.files['NODE_EXTRA_CA_CERTS']).toBe(ca);
  });

  it('accepts a plan without it: the CA file is optional', () => {
    expect(load(fixture()).plan.environment.files['NODE_EXTRA_CA_CERTS']).toBeUndefined();
  });

  // [title, what to do to the CA file, its problem line]
  it.each<[string, (ca: string) => void, (ca: string) => string, ((ca: string) => PinsFs)?]>([
    [
      'group-writable',
      (ca) => fs.chmodSync(ca, 0o664),
      (ca) => `${q(ca)} is a file writable by group or others (mode 0664); fix: chmod go-w '${ca}'`,
    ],
    [
      'world-writable',
      (ca) => fs.chmodSync(ca, 0o646),
      (ca) => `${q(ca)} is a file writable by group or others (mode 0646); fix: chmod go-w '${ca}'`,
    ],
    [
      'in a group-writable directory',
      (ca) => fs.chmodSync(path.dirname(ca), 0o775),
      (ca) =>
        `${q(path.dirname(ca))} is a directory writable by group or others (mode 0775); fix: chmod go-w '${path.dirname(ca)}'`,
    ],
    [
      'owned by another uid (a real chown)',
      (ca) => fs.chownSync(ca, 4242, 4242),
      (ca) => `${q(ca)} is owned by uid 4242, not root; fix: chown root '${ca}'`,
    ],
    [
      'a directory',
      (ca) => {
        fs.rmSync(ca);
        fs.mkdirSync(ca, { mode: 0o755 });
      },
      (ca) => `NODE_EXTRA_CA_CERTS ${q(ca)} is not a file`,
    ],
    [
      'missing',
      (ca) => fs.rmSync(ca),
      (ca) =>
        `NODE_EXTRA_CA_CERTS ${q(ca)} does not exist; fix: put the CA certificates there, or name their file in deployment.json tls.extraCaCertificates and render again`,
    ],
    [
      'not readable by the user who launches',
      () => {},
      (ca) => `NODE_EXTRA_CA_CERTS ${q(ca)} is not readable by you; fix: chmod a+r '${ca}'`,
      unreadable,
    ],
  ])('refuses it %s, with one line', (_title, spoil, problem, fsFor) => {
    const { f, ca } = withCa();
    spoil(ca);
    expect(refusal(() => load(f, 'on-demand', fsFor?.(ca) ?? fs))).toEqual({
      exitCode: 1,
      problems: [problem(ca)],
    });
  });

  it.each<[string, string, (f: InstallFixture) => string]>([
    ['empty', '', () => 'NODE_EXTRA_CA_CERTS "" is empty; re-render the deployment'],
    [
      'relative',
      'pki/ca.pem',
      () => 'NODE_EXTRA_CA_CERTS "pki/ca.pem" is not an absolute path; re-render the deployment',
    ],
    [
      'inside the install but not listed in manifest.json',
      'INSTALL/ca.pem',
      (f) => `NODE_EXTRA_CA_CERTS ${q(`${f.installDir}/ca.pem`)} is not listed in manifest.json; re-render`,
    ],
  ])('refuses a pin that is %s', (_title, value, problem) => {
    const f = fixture({
      editPlan: (plan) => {
        plan.environment.files['NODE_EXTRA_CA_CERTS'] = value.replace('INSTALL', plan.installDir);
        return plan;
      },
    });
    if (value.startsWith('INSTALL'))
      fs.writeFileSync(path.join(f.installDir, 'ca.pem'), 'PEM\n', { mode: 0o644 });
    expect(refusal(() => load(f)).problems).toContain(problem(f));
  });
});
