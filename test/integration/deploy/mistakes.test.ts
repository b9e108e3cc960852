// Every administrator mistake the admin docs list, as the administrator makes it: the built CLI in a
// real child process, on real files. Each row pins the exit code (1), a stderr naming the key or path,
// the bad value and the fix, no "internal error" or stack trace, and that nothing was written.
// Permission rows run the CLI as a throwaway non-root user (root ignores file modes), from a
// self-contained bundle in a world-readable temporary directory (the clone may be 0700).
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeQwenPackage } from '../../fixtures/qwen-package.js';
import { adminCli, EXAMPLES, example } from './admin-cli.js';

const cli = adminCli('mistakes');
const run = cli.run;

/** Every path below `dir`, with its bytes' length and mode: "nothing written" compares two of these. */
async function snapshot(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    const entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const child = path.join(rel, entry.name);
      const stat = await fs.lstat(path.join(dir, child));
      if (entry.isDirectory()) {
        out.push(`${child}/ ${(stat.mode & 0o777).toString(8)}`);
        await walk(child);
      } else {
        const bytes = await fs.readFile(path.join(dir, child));
        out.push(`${child} ${(stat.mode & 0o777).toString(8)} ${bytes.toString('base64')}`);
      }
    }
  };
  await walk('');
  return out;
}

interface Case {
  dir: string;
  /** The CLI arguments (relative to dir). */
  args: string[];
  asUser?: boolean;
}

interface Mistake {
  mistake: string;
  /** Writes the files of the scenario into `dir` and says how to run render there. */
  setUp(dir: string): Promise<Case>;
  stderr: RegExp[];
}

const ON_DEMAND_TEXT = async () => fs.readFile(path.join(EXAMPLES, 'on-demand.json'), 'utf8');

async function writeJson(file: string, value: unknown): Promise<void> {
  await fs.writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}

const MISTAKES: Mistake[] = [
  {
    mistake: 'a duplicate key in deployment.json',
    async setUp(dir) {
      const text = (await ON_DEMAND_TEXT()).replace(
        '"timeoutMs": 5000',
        '"timeoutMs": 5000,\n      "timeoutMs": 7000',
      );
      await fs.writeFile(path.join(dir, 'd.json'), text);
      return { dir, args: ['render', '--deployment', 'd.json', '--out', 'out'] };
    },
    stderr: [
      /profiles\.on-demand\.timeoutMs: is written twice \(line 29, column 7 and line 30, column 7\); JSON readers would silently keep the last one\. Fix: keep one "timeoutMs" in this object/,
    ],
  },
  {
    mistake: 'a UTF-8 byte-order mark',
    async setUp(dir) {
      await fs.writeFile(path.join(dir, 'd.json'), `\ufeff${await ON_DEMAND_TEXT()}`);
      return { dir, args: ['render', '--deployment', 'd.json', '--out', 'out'] };
    },
    stderr: [
      /\(top level\): starts with a UTF-8 byte-order mark \(bytes EF BB BF\)\. Fix: save the file as UTF-8 without BOM/,
    ],
  },
  {
    mistake: 'a settings key typo (modle)',
    async setUp(dir) {
      const raw = await example('on-demand');
      raw.settings = { modle: { name: 'qwen3-coder-plus' } };
      await writeJson(path.join(dir, 'd.json'), raw);
      return { dir, args: ['render', '--deployment', 'd.json', '--out', 'out'] };
    },
    stderr: [
      /settings\.modle = \{"name":"qwen3-coder-plus"\}: is not a Qwen Code 0\.24\.4 setting\. Fix: did you mean "model"\? Rename "modle" to "model"/,
    ],
  },
  {
    mistake: 'a nested settings key typo (selectedTyp)',
    async setUp(dir) {
      const raw = await example('on-demand');
      raw.settings = { security: { auth: { selectedTyp: 'openai' } } };
      await writeJson(path.join(dir, 'd.json'), raw);
      return { dir, args: ['render', '--deployment', 'd.json', '--out', 'out'] };
    },
    stderr: [
      /settings\.security\.auth\.selectedTyp = "openai": is not a Qwen Code 0\.24\.4 setting\. Fix: did you mean "security\.auth\.selectedType"\?/,
    ],
  },
  {
    mistake: 'a setting the Qwen pinned on this machine (0.24.0) does not have',
    async setUp(dir) {
      const pkg = await writeQwenPackage(path.join(dir, 'qwen'), '0.24.0');
      const raw = await example('on-demand');
      raw.qwenCli = path.join(pkg, 'cli.js');
      // Added after 0.24.0: parsing (by the default version's table) accepts it, Qwen 0.24.0 would ignore it.
      raw.settings = { tools: { workflowNameOnly: true } };
      await writeJson(path.join(dir, 'd.json'), raw);
      return { dir, args: ['render', '--deployment', 'd.json', '--out', 'out'] };
    },
    stderr: [
      /settings\.tools\.workflowNameOnly = true: is not a Qwen Code 0\.24\.0 setting\. Fix: remove "workflowNameOnly"/,
    ],
  },
  {
    // verify called it an error (host.pins, host.install) after render had written the install.
    mistake: 'a node that is not executable',
    async setUp(dir) {
      const raw = await example('on-demand');
      raw.node = path.join(dir, 'node');
      await fs.writeFile(raw.node, '', { mode: 0o644 });
      await writeJson(path.join(dir, 'd.json'), raw);
      return { dir, args: ['render', '--deployment', 'd.json', '--out', 'out'] };
    },
    stderr: [
      /node = "\/\S+\/node": is not executable here \(mode 0644\): the launcher could not start it, nor Qwen\. Fix: chmod 0755 '?\/\S+\/node'?, or pin the Node executable itself/,
    ],
  },
  {
    // verify's host.credentials called it an error on the real install, after render had written it.
    mistake: 'developers naming an account and a group this machine does not have (the real install)',
    async setUp(dir) {
      const raw = await example('on-demand');
      raw.installDir = path.join(dir, 'install');
      raw.developers = { users: ['root', 'qm-no-such-user'], groups: ['qm-no-such-group'] };
      await writeJson(path.join(dir, 'd.json'), raw);
      return { dir, args: ['render', '--deployment', 'd.json'] };
    },
    stderr: [
      /developers\.users\[1\] = "qm-no-such-user": is not an account on this machine: every launch by it would fail\. Fix: create it, or correct deployment\.json "developers" \(to stage for another machine: render with --out\)/,
      /developers\.groups\[0\] = "qm-no-such-group": is not a group on this machine: no member of it could launch\./,
    ],
  },
  {
    mistake: 'a settings value of the wrong type and an enum Qwen does not know',
    async setUp(dir) {
      const raw = await example('on-demand');
      raw.settings = { general: { vimMode: 'yes' }, model: { reasoningEffort: 'enormous' } };
      await writeJson(path.join(dir, 'd.json'), raw);
      return { dir, args: ['render', '--deployment', 'd.json', '--out', 'out'] };
    },
    stderr: [
      /settings\.general\.vimMode = "yes": must be a boolean\. Fix: write true or false/,
      /settings\.model\.reasoningEffort = "enormous": is not one of the values Qwen accepts\. Fix: use one of "low", "medium", "high", "xhigh", "max"/,
    ],
  },
  {
    mistake: 'a Mem0 scope that does not match the preset',
    async setUp(dir) {
      const raw = await example('on-demand');
      raw.credentials = { MEM0_API_KEY: { file: '/etc/qwen-managed/mem0.key' } };
      raw.profiles = {
        'on-demand': {
          provider: {
            type: 'mem0',
            preset: 'mem0-oss-rest-2026-08',
            endpoint: { origin: 'https://mem0.example.com' },
            credentialEnv: 'MEM0_API_KEY',
            scope: { appId: 'payments' },
          },
        },
      };
      await writeJson(path.join(dir, 'd.json'), raw);
      return { dir, args: ['render', '--deployment', 'd.json', '--out', 'out'] };
    },
    stderr: [
      /profiles\.on-demand\.provider\.scope = \{"appId":"payments"\}: does not match preset "mem0-oss-rest-2026-08" \(requires userId; optional agentId\): missing userId; appId not used by this preset\. Fix: write "scope": \{"userId":"<userId>"\}/,
    ],
  },
  {
    mistake: 'every problem of a file at once (duplicate, typo, scope, bad timeout)',
    async setUp(dir) {
      const raw = await example('on-demand');
      raw.settings = { modle: {} };
      raw.profiles = {
        'on-demand': {
          provider: { type: 'mem0-platform-v3', apiKeyEnv: 'CONTEXT_API_TOKEN', appId: 'app' },
          timeoutMs: 9000,
        },
      };
      const text = JSON.stringify(raw, null, 2).replace('"version": 1,', '"version": 1,\n  "version": 1,');
      await fs.writeFile(path.join(dir, 'd.json'), text);
      return { dir, args: ['render', '--deployment', 'd.json', '--out', 'out'] };
    },
    stderr: [
      /d\.json: 3 problem\(s\)/,
      /version: is written twice/,
      /profiles\.on-demand\.timeoutMs = 9000: Too big: expected number to be <=7999\. Fix: use at most 7999: the provider timeout must end before the 8000 ms MCP call timeout/,
      /settings\.modle = \{\}: is not a Qwen Code 0\.24\.4 setting\. Fix: did you mean "model"\?/,
    ],
  },
  {
    mistake: '--out naming an existing file',
    async setUp(dir) {
      await fs.writeFile(path.join(dir, 'out'), 'not a directory\n');
      return { dir, args: ['render', '--deployment', path.join(EXAMPLES, 'on-demand.json'), '--out', 'out'] };
    },
    stderr: [
      /render: --out \/\S+\/out is an existing file, not a directory; nothing was written\. Fix: name a directory \(new or an existing install tree\), or remove the file/,
    ],
  },
  {
    mistake: 'installDir naming an existing file',
    async setUp(dir) {
      const raw = await example('on-demand');
      raw.installDir = path.join(dir, 'install');
      await fs.writeFile(path.join(dir, 'install'), '');
      await writeJson(path.join(dir, 'd.json'), raw);
      return { dir, args: ['render', '--deployment', 'd.json'] };
    },
    stderr: [/render: installDir \/\S+\/install is an existing file, not a directory; nothing was written\./],
  },
  {
    mistake: 'a credential file inside installDir',
    async setUp(dir) {
      const raw = await example('on-demand');
      raw.installDir = path.join(dir, 'install');
      raw.credentials.CONTEXT_API_TOKEN.file = path.join(dir, 'install', 'secrets', 'context.token');
      await writeJson(path.join(dir, 'd.json'), raw);
      return { dir, args: ['render', '--deployment', 'd.json'] };
    },
    stderr: [
      /credentials\.CONTEXT_API_TOKEN\.file = "\/\S+\/install\/secrets\/context\.token": is inside installDir "\/\S+\/install", which render owns: the next render would move it to backups\/\. Fix: keep the credential file outside the install tree, e\.g\. \/etc\/qwen-managed\/context\.token/,
    ],
  },
  {
    mistake: '--out naming a directory that holds files render does not write',
    async setUp(dir) {
      await fs.mkdir(path.join(dir, 'out'));
      await fs.writeFile(path.join(dir, 'out', 'notes.txt'), 'keep me\n');
      return { dir, args: ['render', '--deployment', path.join(EXAMPLES, 'on-demand.json'), '--out', 'out'] };
    },
    stderr: [
      /render: \/\S+\/out is not empty and has no manifest\.json: it holds notes\.txt, which this render does not write; nothing was written\. Fix: render into an empty directory or an install/,
    ],
  },
  {
    mistake: '--out inside a directory the administrator cannot write (EACCES)',
    async setUp(dir) {
      await fs.mkdir(path.join(dir, 'readonly'), { mode: 0o755 });
      await fs.writeFile(path.join(dir, 'd.json'), await ON_DEMAND_TEXT());
      return { dir, args: ['render', '--deployment', 'd.json', '--out', 'readonly/out'], asUser: true };
    },
    stderr: [
      /render: cannot write \/\S+\/readonly\/out \(EACCES: permission denied\); nothing was rendered into \/\S+\/readonly\/out\. Fix: run render as the user that owns \/\S+\/readonly\/out \(usually root\), or stage the tree with --out DIR in a directory you can write/,
    ],
  },
  {
    mistake: 'an installDir the administrator cannot write (EACCES)',
    async setUp(dir) {
      const raw = await example('on-demand');
      raw.installDir = path.join(dir, 'install');
      await fs.mkdir(path.join(dir, 'install'), { mode: 0o755 });
      await writeJson(path.join(dir, 'd.json'), raw);
      return { dir, args: ['render', '--deployment', 'd.json'], asUser: true };
    },
    stderr: [
      /render: cannot write \/\S+\/install\/\.qwen-managed\.lock \(EACCES: permission denied\); nothing was rendered into \/\S+\/install\./,
    ],
  },
  {
    mistake: 'a second deployment aimed at an install another deployment owns',
    async setUp(dir) {
      const first = run(['render', '--deployment', path.join(EXAMPLES, 'write.json'), '--out', 'out'], dir);
      expect(first.code).toBe(0);
      await fs.writeFile(path.join(dir, 'other.json'), await ON_DEMAND_TEXT());
      return { dir, args: ['render', '--deployment', 'other.json', '--out', 'out'] };
    },
    stderr: [
      /render: \/opt\/qwen-managed belongs to another deployment, \/\S+\/examples\/deployments\/write\.json \(profiles write\); rendering \/\S+\/other\.json there would retire write\. Fix: give this deployment its own "installDir", render \S+write\.json instead, or pass --take-over if this file replaces it/,
    ],
  },
];

describe('every administrator mistake: exit 1, a message naming key or path, value and fix, nothing written', () => {
  it.each(MISTAKES)('$mistake', async ({ setUp, stderr }) => {
    const dir = await fs.mkdtemp(path.join(cli.work, 'case-'));
    await fs.chmod(dir, 0o755);
    const scenario = await setUp(dir);
    const before = await snapshot(dir);
    // The non-root user may read the scenario's files but own nothing there.
    const result = run(scenario.args, scenario.dir, scenario.asUser === true);
    expect(result.code).toBe(1);
    for (const pattern of stderr) expect(result.stderr).toMatch(pattern);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at |Error:/);
    expect(await snapshot(dir)).toEqual(before);
  });

  it('control: the same unknown developers on a staged tree (--out) render, for another machine', async () => {
    const dir = await fs.mkdtemp(path.join(cli.work, 'staged-'));
    await fs.chmod(dir, 0o755);
    const raw = await example('on-demand');
    raw.developers = { users: ['qm-no-such-user'], groups: ['qm-no-such-group'] };
    await writeJson(path.join(dir, 'd.json'), raw);
    const result = run(['render', '--deployment', 'd.json', '--out', 'out'], dir);
    expect([result.code, result.stderr]).toEqual([0, '']);
  });

  it('negative control: the same scenarios without the mistake render (exit 0) and write the tree', async () => {
    const dir = await fs.mkdtemp(path.join(cli.work, 'control-'));
    await fs.chmod(dir, 0o755);
    await fs.writeFile(path.join(dir, 'd.json'), await ON_DEMAND_TEXT());
    await fs.mkdir(path.join(dir, 'mine'));
    await fs.chown(path.join(dir, 'mine'), cli.user.uid, cli.user.gid);
    const asUser = run(['render', '--deployment', 'd.json', '--out', 'mine/out'], dir, true);
    expect(asUser.stderr).toBe('');
    expect(asUser.code).toBe(0);
    expect(existsSync(path.join(dir, 'mine', 'out', 'manifest.json'))).toBe(true);
    // The owner renders its own install again, and the other deployment may take it over explicitly.
    expect(run(['render', '--deployment', path.join(EXAMPLES, 'write.json'), '--out', 'out'], dir).code).toBe(
      0,
    );
    expect(run(['render', '--deployment', path.join(EXAMPLES, 'write.json'), '--out', 'out'], dir).code).toBe(
      0,
    );
    const takeOver = run(['render', '--deployment', 'd.json', '--out', 'out', '--take-over'], dir);
    expect(takeOver.code).toBe(0);
    expect(takeOver.stdout).toContain(
      'profile write: removed from deployment.json; its files are retired to backups/',
    );
    const manifest = JSON.parse(await fs.readFile(path.join(dir, 'out', 'manifest.json'), 'utf8'));
    expect([manifest.deploymentFile, Object.keys(manifest.profiles)]).toEqual([
      path.join(dir, 'd.json'),
      ['on-demand'],
    ]);
  });
});

// render runs as root: a path another user may change is one they can point elsewhere between its
// checks and its writes (or before it starts, with a link of their own).
describe('an installDir another user can change', () => {
  async function scenario(name: string) {
    const dir = await fs.mkdtemp(path.join(cli.work, `${name}-`));
    await fs.chmod(dir, 0o755);
    const elsewhere = path.join(dir, 'elsewhere');
    await fs.mkdir(elsewhere, { mode: 0o755 });
    const raw = await example('on-demand');
    raw.installDir = path.join(dir, 'parent', 'install');
    await writeJson(path.join(dir, 'd.json'), raw);
    return { dir, elsewhere };
  }

  it('a directory anyone may write above it: refused, naming it and the fix, nothing written', async () => {
    const { dir, elsewhere } = await scenario('open');
    await fs.mkdir(path.join(dir, 'parent'));
    await fs.chmod(path.join(dir, 'parent'), 0o777);
    const result = run(['render', '--deployment', 'd.json'], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /render: installDir \/\S+\/parent\/install is in a directory others may change, so nothing was written: "\/\S+\/parent" is a directory writable by group or others \(mode 0777\); fix: chmod go-w '\/\S+\/parent'\. Fix: render into a directory only root \(or you\) can write, such as \/opt\/qwen-managed\/install/,
    );
    expect(await fs.readdir(path.join(dir, 'parent'))).toEqual([]);
    expect(await fs.readdir(elsewhere)).toEqual([]);
  });

  it("another user's link at installDir: refused, and root writes nothing where it points", async () => {
    const { dir, elsewhere } = await scenario('link');
    await fs.mkdir(path.join(dir, 'parent'));
    await fs.chmod(path.join(dir, 'parent'), 0o777);
    await fs.symlink(elsewhere, path.join(dir, 'parent', 'install'));
    await fs.lchown(path.join(dir, 'parent', 'install'), cli.user.uid, cli.user.gid);
    const result = run(['render', '--deployment', 'd.json'], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/"\/\S+\/parent\/install" is owned by uid \d+, not root; fix: chown root/);
    expect(await fs.readdir(elsewhere)).toEqual([]);
  });

  it('negative control: render follows a link at installDir — the same link, root’s own in a root-only directory, gets the install', async () => {
    const { dir, elsewhere } = await scenario('control');
    await fs.mkdir(path.join(dir, 'parent'), { mode: 0o755 });
    await fs.symlink(elsewhere, path.join(dir, 'parent', 'install'));
    const result = run(['render', '--deployment', 'd.json'], dir);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(existsSync(path.join(elsewhere, 'manifest.json'))).toBe(true);
  });
});

// rollback writes as root too (the same writer): a tree another user can change is refused as render
// refuses it, before anything is read — also a directory inside an existing tree.
describe('an install another user can change, at rollback and at the next render', () => {
  async function rendered(name: string) {
    const dir = await fs.mkdtemp(path.join(cli.work, `${name}-`));
    await fs.chmod(dir, 0o755);
    const raw = await example('on-demand');
    raw.installDir = path.join(dir, 'real', 'install');
    await writeJson(path.join(dir, 'd.json'), raw);
    await fs.mkdir(path.join(dir, 'real'), { mode: 0o755 });
    expect(run(['render', '--deployment', 'd.json'], dir).code).toBe(0);
    return { dir, real: raw.installDir as string };
  }

  it('a directory anyone may write above --dir: rollback refused, naming it and the fix, nothing changed', async () => {
    const { dir, real } = await rendered('rb-open');
    await fs.chmod(path.join(dir, 'real'), 0o777);
    const before = await snapshot(real);
    const result = run(['rollback', '--dir', real, '--profile', 'on-demand', '--remove-guard'], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /rollback: --dir \/\S+\/real\/install is in a directory others may change, so nothing was changed: "\/\S+\/real" is a directory writable by group or others \(mode 0777\); fix: chmod go-w '\/\S+\/real'\. Fix: correct the owner and modes as said/,
    );
    expect(await snapshot(real)).toEqual(before);
  });

  it("another user's link at --dir to the real install: refused, and the install it points at keeps its guard", async () => {
    const { dir, real } = await rendered('rb-link');
    await fs.mkdir(path.join(dir, 'staging'), { mode: 0o777 });
    await fs.chmod(path.join(dir, 'staging'), 0o777);
    await fs.symlink(real, path.join(dir, 'staging', 'install'));
    await fs.lchown(path.join(dir, 'staging', 'install'), cli.user.uid, cli.user.gid);
    const before = await snapshot(real);
    const result = run(
      ['rollback', '--dir', 'staging/install', '--profile', 'on-demand', '--remove-guard'],
      dir,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/"\/\S+\/staging\/install" is owned by uid \d+, not root; fix: chown root/);
    expect(await snapshot(real)).toEqual(before);
  });

  it('negative control: rollback follows a link at --dir — the same link, root’s own in a root-only directory, rolls back the install it points at', async () => {
    const { dir, real } = await rendered('rb-control');
    await fs.mkdir(path.join(dir, 'staging'), { mode: 0o755 });
    await fs.symlink(real, path.join(dir, 'staging', 'install'));
    const result = run(
      ['rollback', '--dir', 'staging/install', '--profile', 'on-demand', '--remove-guard'],
      dir,
    );
    expect([result.code, result.stderr]).toEqual([0, '']);
    const settings = await fs.readFile(
      path.join(real, 'profiles', 'on-demand', 'system-settings.json'),
      'utf8',
    );
    expect(settings).not.toContain('managed-approval-guard');
  });

  it('a directory inside the tree anyone may write: render and rollback refused, naming it, nothing changed', async () => {
    const { dir, real } = await rendered('in-tree');
    await fs.chmod(path.join(real, 'profiles', 'on-demand'), 0o777);
    const before = await snapshot(real);
    for (const args of [
      ['render', '--deployment', 'd.json'],
      ['rollback', '--dir', real, '--profile', 'on-demand'],
    ]) {
      const result = run(args, dir);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /is in a directory others may change, so nothing was (written|changed): "\/\S+\/install\/profiles\/on-demand" is a directory writable by group or others \(mode 0777\)/,
      );
    }
    expect(await snapshot(real)).toEqual(before);
  });
});

describe('verify keeps its promises', () => {
  it.each([
    {
      outcome: 'a directory that is not an install (stops before reading it)',
      args: (dir: string) => ['verify', '--dir', dir, '--json'],
      code: 1,
      error: {
        kind: 'input',
        message:
          /^verify: --dir \/\S+ is not an install tree \(it has none of manifest\.json, bin\/launch-qwen, runtime\/launch-qwen\.js, profiles\/<kind>\/launch\.json\)\. Fix: point --dir at the installDir of a rendered deployment, or at a `render --out` staging directory$/,
      },
    },
    // Negative control (by hand): `verify --dir /` (its /bin passed for an install's bin/) walked the
    // whole disk and ended in "internal error: EINVAL: invalid argument, read", exit 70.
    {
      outcome: 'a directory with a bin/ of its own, such as / or /usr',
      args: (dir: string) => ['verify', '--dir', path.join(dir, 'usr'), '--json'],
      code: 1,
      error: {
        kind: 'input',
        message: /^verify: --dir \/\S+\/usr is not an install tree \(it has none of manifest\.json, /,
      },
    },
    {
      outcome: 'a missing --dir',
      args: () => ['verify', '--json'],
      code: 2,
      error: { kind: 'usage', message: /^verify: --dir is required$/ },
    },
    {
      outcome: 'an unknown flag',
      args: (dir: string) => ['verify', '--dir', dir, '--json', '--frobnicate'],
      code: 2,
      error: { kind: 'usage', message: /^verify: Unknown option '--frobnicate'/ },
    },
    {
      outcome: 'an unreadable --deployment',
      args: (dir: string) => [
        'verify',
        '--dir',
        path.join(dir, 'tree'),
        '--deployment',
        path.join(dir, 'missing.json'),
        '--json',
      ],
      code: 1,
      error: { kind: 'input', message: /^verify: cannot read --deployment \/\S+\/missing\.json$/ },
    },
  ])('verify --json prints JSON on stdout for $outcome (exit $code)', async ({ args, code, error }) => {
    const dir = await fs.mkdtemp(path.join(cli.work, 'verify-'));
    await fs.writeFile(path.join(dir, 'notes.txt'), 'not an install\n');
    await fs.mkdir(path.join(dir, 'usr', 'bin'), { recursive: true });
    await fs.writeFile(path.join(dir, 'usr', 'bin', 'tool'), 'not an install\n');
    expect(
      run(['render', '--deployment', path.join(EXAMPLES, 'on-demand.json'), '--out', 'tree'], dir).code,
    ).toBe(0);
    const result = run(args(dir), dir);
    expect(result.code).toBe(code);
    const json = JSON.parse(result.stdout);
    expect(Object.keys(json)).toEqual(['ok', 'error', 'exitCode']);
    expect(json).toMatchObject({ ok: false, exitCode: code, error: { kind: error.kind } });
    expect(json.error.message).toMatch(error.message);
    expect(result.stderr).toContain(json.error.message);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it('warns when a Mem0 auto-recall profile is deployed and when a credential goes over plain HTTP; the example deployment does not', async () => {
    const dir = await fs.mkdtemp(path.join(cli.work, 'warn-'));
    const raw = await example('auto-recall');
    raw.credentials = { MEM0_API_KEY: { file: '/etc/qwen-managed/mem0.key' } };
    raw.profiles = {
      'auto-recall': {
        provider: {
          type: 'mem0',
          preset: 'mem0-oss-rest-2026-08',
          endpoint: { origin: 'http://10.20.30.40:8000', allowInsecureHttp: true },
          credentialEnv: 'MEM0_API_KEY',
          scope: { userId: 'alice' },
        },
      },
    };
    await writeJson(path.join(dir, 'd.json'), raw);
    expect(run(['render', '--deployment', 'd.json', '--out', 'tree'], dir).code).toBe(0);
    const verify = run(['verify', '--dir', 'tree', '--skip-smoke', '--json'], dir);
    expect(verify.code).toBe(0);
    const warnings = JSON.parse(verify.stdout).checks.filter(
      (c: { id: string }) =>
        c.id.startsWith('provider.') && c.id !== 'provider.config' && c.id !== 'provider.credential',
    );
    expect(warnings).toEqual([
      {
        id: 'provider.memory-decay',
        severity: 'warning',
        ok: false,
        profile: 'auto-recall',
        file: 'profiles/auto-recall/external-context.json',
        message:
          'auto-recall searches Mem0 before every prompt: Memory Decay must be off on the bound Mem0 project, or each retrieval reinforces what it returned and silently changes later rankings; confirm it, or deploy on-demand instead',
      },
      {
        id: 'provider.plain-http',
        severity: 'warning',
        ok: false,
        profile: 'auto-recall',
        file: 'profiles/auto-recall/external-context.json',
        message:
          'sends the credential MEM0_API_KEY and every query over plain HTTP to http://10.20.30.40:8000 (allowInsecureHttp): anyone on the network path can read them; use https:// where the service offers it',
      },
    ]);
    expect(run(['verify', '--dir', 'tree', '--skip-smoke'], dir).stdout).toMatch(
      /WARN \[provider\.memory-decay\]/,
    );
    // Negative control: the knowledge-base example (Generic HTTP Search over https) has neither warning.
    expect(
      run(['render', '--deployment', path.join(EXAMPLES, 'auto-recall.json'), '--out', 'kb'], dir).code,
    ).toBe(0);
    const control = JSON.parse(run(['verify', '--dir', 'kb', '--skip-smoke', '--json'], dir).stdout);
    expect(control.checks.filter((c: { id: string }) => /memory-decay|plain-http/.test(c.id))).toEqual([]);
  });
});
