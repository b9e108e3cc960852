// The admin CLI as administrators and CI run it: the built bundle (npm run build), real processes,
// real files. Also scripts/rollback from an install directory that has no node_modules.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QWEN_VERSION, SUPPORTED_QWEN_VERSIONS } from '../../../src/qwen/versions.js';
import { writeQwenPackage } from '../../fixtures/qwen-package.js';
import { REPO, tempDir } from '../../unit/deploy/fixtures.js';

const CLI = path.join(REPO, 'dist', 'cli', 'qwen-managed.js');
const ROLLBACK_SCRIPT = path.join(REPO, 'scripts', 'rollback');
const EXAMPLES = path.join(REPO, 'examples', 'deployments');

function run(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    cwd: options.cwd ?? REPO,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  if (!existsSync(CLI) || !existsSync(path.join(REPO, 'dist', 'runtime', 'rollback.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  }
});

describe('qwen-managed --help, --version and exit codes', () => {
  it('lists every command', () => {
    const { code, stdout } = run(['--help']);
    expect(code).toBe(0);
    for (const command of [
      'render',
      'verify',
      'probe',
      'plan',
      'rollback',
      'status',
      'serve-context',
      'broker',
    ])
      expect(stdout).toContain(`  ${command}`);
    expect(stdout).toContain('Exit codes: 0 success, 1 refused input or failed checks, 2 usage error');
  });

  it.each(['render', 'verify', 'probe', 'plan', 'rollback', 'status', 'serve-context', 'broker'])(
    '%s --help exits 0 with its usage',
    (command) => {
      const { code, stdout } = run([command, '--help']);
      expect(code).toBe(0);
      expect(stdout).toMatch(/Usage/);
    },
  );

  it.each([['--version'], ['-V'], ['-v'], ['version']])(
    '%s prints the toolkit version, the default Qwen version and the supported ones',
    async (flag) => {
      const pkg = JSON.parse(await fs.readFile(path.join(REPO, 'package.json'), 'utf8'));
      expect(run([flag])).toMatchObject({
        code: 0,
        stdout: `qwen-managed ${pkg.version}\nQwen Code ${DEFAULT_QWEN_VERSION} (default); supported: ${SUPPORTED_QWEN_VERSIONS.join(', ')}\n`,
        stderr: '',
      });
    },
  );

  it.each([
    [['frobnicate'], /unknown command "frobnicate" \(commands: render, verify/],
    // "Did you mean" for commands and flags, with the rule settings keys use (src/text/closest.ts).
    [['rendr'], /unknown command "rendr"; did you mean "render"\?/],
    [
      ['render', '--deploymnet', 'x.json'],
      /render: Unknown option '--deploymnet'; did you mean '--deployment'\?/,
    ],
    [['verify', '--dri', '.'], /verify: Unknown option '--dri'; did you mean '--dir'\?/],
    [['render'], /render: --deployment is required/],
    [['render', '--deployment', 'x', '--bogus'], /Unknown option '--bogus'/],
    [['verify', 'stray'], /Unexpected argument 'stray'/],
    [['rollback', '--dir', '/x', '--settings', '/y'], /either --dir DIR --profile KIND or --settings FILE/],
    [['rollback', '--settings', '/y', '--hooks', 'my-hook'], /is not a managed hook/],
    // A repeated flag would keep only its last value, silently: refused, naming every value given.
    [
      ['plan', '--dir', '/a', '--profile', 'on-demand', '--dir', '/b'],
      /^qwen-managed: plan: --dir is given 2 times \("\/a", "\/b"\); give it once\n/,
    ],
    [
      ['status', '--dir', '/a', '--profile', 'auto-recall', '--profile', 'on-demand'],
      /^qwen-managed: status: --profile is given 2 times \("auto-recall", "on-demand"\); give it once\n/,
    ],
    [
      [
        'rollback',
        '--settings',
        '/y',
        '--hooks',
        'managed-approval-guard',
        '--hooks',
        'external-context-auto-recall',
      ],
      /^qwen-managed: rollback: --hooks is given 2 times/,
    ],
    [['probe', '--dir=/a', '--dir', '/a'], /^qwen-managed: probe: --dir is given 2 times \("\/a", "\/a"\)/],
    [['render', '--deployment', 'a.json', '--out', 'x', '--out', 'y'], /render: --out is given 2 times/],
    [
      ['status', '--dir', '/a', '--profile', 'auto-recall', '--user', ''],
      /^qwen-managed: status: --user must name an account \(or leave it out for you\)\n/,
    ],
    // An empty --dir is no --dir, for plan as for every command.
    [['plan', '--dir', '', '--profile', 'on-demand'], /^qwen-managed: plan: --dir DIR is required\n/],
  ])('%j is a usage error (exit 2)', (args, message) => {
    const { code, stderr } = run(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('no arguments prints the help on stderr with exit 2', () => {
    const { code, stderr } = run([]);
    expect(code).toBe(2);
    expect(stderr).toContain('Usage: qwen-managed <command>');
  });
});

describe('output nobody reads, or no disk takes: never a stack trace', () => {
  it.each(['--help', 'plan --help', '--version'])(
    'a reader that went away (`%s | head -0`): the command ends as it would, silently',
    async (line) => {
      const child = spawn(process.execPath, [CLI, ...line.split(' ')], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      // Closed before the child writes a byte: its first write meets EPIPE.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    },
  );

  it.each(['--help', 'plan --help', '--version'])(
    'a full disk (`%s > /dev/full`): exit 1 with one line naming stdout and the fix',
    (line) => {
      const full = openSync('/dev/full', 'w');
      try {
        const result = spawnSync(process.execPath, [CLI, ...line.split(' ')], {
          encoding: 'utf8',
          stdio: ['ignore', full, 'pipe'],
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        });
        expect({ code: result.status, stderr: result.stderr }).toEqual({
          code: 1,
          stderr:
            'qwen-managed: cannot write stdout (ENOSPC: no space left on device). Fix: free space, then run it again\n',
        });
      } finally {
        closeSync(full);
      }
    },
  );
});

describe('render → verify → rollback with the real bundles', () => {
  it('refuses a bad deployment with exit 1, naming the key, the value and the fix', async () => {
    const dir = await tempDir();
    const raw = JSON.parse(await fs.readFile(path.join(EXAMPLES, 'on-demand.json'), 'utf8'));
    raw.environment.inherit.push('NODE_OPTIONS');
    raw.node = '/opt/$X/node';
    await fs.writeFile(path.join(dir, 'd.json'), JSON.stringify(raw));
    const { code, stderr } = run(['render', '--deployment', 'd.json', '--out', 'out'], { cwd: dir });
    expect(code).toBe(1);
    expect(stderr).toContain('node = "/opt/$X/node": contains `$`');
    expect(stderr).toContain(
      'environment.inherit[5] = "NODE_OPTIONS": is forbidden by the environment policy',
    );
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('renders (plain progress lines off a TTY), is idempotent, and verifies with drift and smoke runs', async () => {
    const dir = await tempDir();
    const out = path.join(dir, 'install');
    const first = run(['render', '--deployment', path.join(EXAMPLES, 'write.json'), '--out', out]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Validate write.json … ok (posix, profiles: write)');
    // The example pins a node this machine does not have: render says the bundles go without caches.
    expect(first.stdout).toContain(
      'no code caches: the pinned node /opt/node-22/bin/node is not on this machine;',
    );
    expect(first.stdout).toContain('Write the install tree … ok (23 written, 0 unchanged)');
    const second = run(['render', '--deployment', path.join(EXAMPLES, 'write.json'), '--out', out]);
    expect(second.stdout).toContain('Write the install tree … ok (0 written, 23 unchanged)');
    expect(second.stdout).toContain(`render: ${out} is up to date`);

    const verify = run(['verify', '--dir', out, '--deployment', path.join(EXAMPLES, 'write.json'), '--json']);
    expect(verify.code).toBe(0);
    const report = JSON.parse(verify.stdout);
    expect(Object.keys(report)).toEqual(['ok', 'dir', 'deployment', 'summary', 'checks']);
    expect(report.ok).toBe(true);
    const smoke = report.checks.filter((c: { id: string }) => c.id === 'smoke');
    expect(smoke.map((c: { file: string; ok: boolean }) => [c.file, c.ok])).toEqual([
      ['runtime/approval-guard.js', true],
      ['runtime/auto-recall.js', true],
      ['runtime/launch-qwen-start.js', true],
      ['runtime/mcp-server.js', true],
      ['runtime/rollback.js', true],
      ['runtime/write-confirmation.js', true],
    ]);
    expect(smoke.find((c: { file: string }) => c.file === 'runtime/mcp-server.js').message).toBe(
      'MCP handshake answered; tools: context_remember, context_search',
    );
    // Stable for CI: the same tree gives the same report.
    expect(
      run(['verify', '--dir', out, '--deployment', path.join(EXAMPLES, 'write.json'), '--json']).stdout,
    ).toBe(verify.stdout);

    await fs.writeFile(path.join(out, 'profiles', 'write', 'notes.txt'), 'x');
    const failed = run(['verify', '--dir', out, '--skip-smoke']);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(
      'FAIL [files.unlisted] profiles/write/notes.txt is not listed in manifest.json',
    );
  });

  it.each<[string, Record<string, unknown>]>([
    ['0.24.4', { tools: { workflowNameOnly: true } }],
    ['0.24.0', { general: { vimMode: true } }],
  ])(
    'with Qwen %s pinned on this machine, settings it has render, and the Validate line says so',
    async (version, settings) => {
      // The control of the mistakes suite's row: a setting the pinned package lacks is refused.
      const dir = await tempDir();
      const pkg = await writeQwenPackage(dir, version);
      const raw = JSON.parse(await fs.readFile(path.join(EXAMPLES, 'on-demand.json'), 'utf8'));
      Object.assign(raw, { qwenCli: path.join(pkg, 'cli.js'), settings });
      await fs.writeFile(path.join(dir, 'd.json'), JSON.stringify(raw));
      const { code, stdout } = run(['render', '--deployment', 'd.json', '--out', 'out'], { cwd: dir });
      expect(code).toBe(0);
      expect(stdout).toContain(
        `Validate d.json … ok (posix, profiles: on-demand; settings checked against the pinned Qwen ${version})`,
      );
    },
  );

  // Negative control (by hand): openclaw-recall's staged tree failed verify (exit 1) with four errors
  // about the absent /opt/node-24 and /opt/openclaw, where Qwen's absent pins are warnings.
  it.each(['on-demand', 'auto-recall', 'write', 'dataworks-bff', 'openclaw-recall'])(
    'the worked example %s.json, staged with --out on a machine without its pins, verifies (absent pins are warnings)',
    async (name) => {
      const out = path.join(await tempDir(), 'stage');
      const deployment = path.join(EXAMPLES, `${name}.json`);
      expect(run(['render', '--deployment', deployment, '--out', out]).code).toBe(0);
      const verify = run(['verify', '--dir', out, '--deployment', deployment, '--skip-smoke', '--json']);
      const report = JSON.parse(verify.stdout) as {
        checks: { id: string; severity: string; ok: boolean; message: string }[];
      };
      expect(report.checks.filter((c) => !c.ok && c.severity === 'error')).toEqual([]);
      expect(verify.code).toBe(0);
      expect(report.checks.filter((c) => !c.ok).map((c) => c.message)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/does not exist on this machine .*fine for a staged tree/),
        ]),
      );
    },
  );

  it('scripts/rollback works from an install directory without node_modules', async () => {
    const dir = await tempDir();
    const out = path.join(dir, 'install');
    expect(run(['render', '--deployment', path.join(EXAMPLES, 'auto-recall.json'), '--out', out]).code).toBe(
      0,
    );
    // The script copied away from the package: only the install's own runtime/rollback.js is reachable.
    const script = path.join(dir, 'rollback');
    await fs.copyFile(ROLLBACK_SCRIPT, script);
    await fs.chmod(script, 0o755);
    const rollback = (...extra: string[]) =>
      spawnSync(script, ['--dir', out, '--profile', 'auto-recall', ...extra], {
        encoding: 'utf8',
        cwd: '/',
        env: { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` },
      });
    const dry = rollback('--dry-run');
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain('-            "name": "external-context-auto-recall",');
    expect(dry.stdout).toContain('rollback: dry run, nothing written');

    const done = rollback();
    expect(done.status).toBe(0);
    expect(done.stdout).toContain('rollback: removed hook external-context-auto-recall (UserPromptSubmit)');
    expect(done.stdout).toContain('Restart Qwen');
    const again = rollback();
    expect(again.status).toBe(0);
    expect(again.stdout).toBe('rollback: nothing to change (already rolled back)\n');

    const manifest = JSON.parse(await fs.readFile(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest.profiles['auto-recall'].state).toBe('rolled-back');
    const verify = run([
      'verify',
      '--dir',
      out,
      '--deployment',
      path.join(EXAMPLES, 'auto-recall.json'),
      '--json',
    ]);
    expect(JSON.parse(verify.stdout).ok).toBe(true);
    // A routine re-render keeps the rollback.
    const rerender = run(['render', '--deployment', path.join(EXAMPLES, 'auto-recall.json'), '--out', out]);
    expect(rerender.stdout).toContain('profile auto-recall: stays rolled back');
    expect(rerender.stdout).toContain('0 written');
  });

  it('rollback --settings on an upstream-style file through the CLI', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'settings.json');
    const text = `{\n  "hooks": {"UserPromptSubmit": [{"matcher": "*", "hooks": [{"type": "command", "command": "exec /n /a.js", "name": "external-context-auto-recall"}]}]},\n  // mine\n  "ui": {"theme": "x"}\n}\n`;
    await fs.writeFile(file, text);
    const { code, stdout } = run(['rollback', '--settings', file]);
    expect(code).toBe(0);
    expect(stdout).toContain('rollback: removed hook external-context-auto-recall (UserPromptSubmit)');
    expect(await fs.readFile(file, 'utf8')).toBe(`{\n  "hooks": {},\n  // mine\n  "ui": {"theme": "x"}\n}\n`);
  });

  // The developer's settings file is a FIFO, so root's read of it waits until the test opens the other
  // end: the test swaps their ~/.qwen for a link to a root-only directory exactly between rollback's
  // symlink check and its write, deciding the order itself. Negative control: before rollback acted
  // as the directory's owner, root wrote the developer's text over root-only/settings.json (and left
  // its backup there).
  it.runIf(process.geteuid?.() === 0)(
    "rollback --settings as root in a developer's directory swapped for a link after the check: the write stays the developer's",
    async () => {
      const base = await tempDir();
      await fs.chmod(base, 0o755);
      const developer = 54_321;
      const home = path.join(base, 'home');
      const qwenHome = path.join(home, '.qwen');
      await fs.mkdir(qwenHome, { recursive: true });
      const rootOnly = path.join(base, 'root-only');
      await fs.mkdir(rootOnly, { mode: 0o700 });
      const rootText = '{"general": {"root": true}}\n';
      await fs.writeFile(path.join(rootOnly, 'settings.json'), rootText);
      const settings = path.join(qwenHome, 'settings.json');
      expect(spawnSync('mkfifo', ['-m', '0644', settings]).status).toBe(0);
      for (const owned of [home, qwenHome, settings]) await fs.chown(owned, developer, developer);

      const child = spawn(process.execPath, [CLI, 'rollback', '--settings', settings], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      // Returns once rollback has opened the FIFO to read it: its check is behind it, its write ahead.
      const writer = await fs.open(settings, 'w');
      await fs.rename(qwenHome, path.join(home, '.qwen-real'));
      await fs.symlink(rootOnly, qwenHome);
      await writer.writeFile(
        '{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "x", "name": "external-context-auto-recall"}]}]}, "mine": 1}\n',
      );
      await writer.close();

      expect(await exited).toBe(1);
      expect(stderr).toContain(
        `rollback as root edits a file in a directory uid ${developer} owns (${qwenHome}) as uid ${developer}`,
      );
      expect(await fs.readFile(path.join(rootOnly, 'settings.json'), 'utf8')).toBe(rootText);
      expect(await fs.readdir(rootOnly)).toEqual(['settings.json']);
    },
  );

  // A directory root owns but a group may write: any member could swap, and there is no one user to
  // act as. Control: the same tree without the group's write is rolled back.
  it.runIf(process.geteuid?.() === 0).each([
    { label: '0775', mode: 0o775, refused: "is root's but its group (gid 54321) may write it (mode 0775)" },
    { label: '0757', mode: 0o757, refused: "is root's but everyone may write it (mode 0757)" },
    { label: '1777', mode: 0o1777, refused: undefined },
    { label: '0755', mode: 0o755, refused: undefined },
  ])('rollback --settings as root under a root-owned directory of mode $label', async ({ mode, refused }) => {
    const base = await tempDir();
    await fs.chmod(base, 0o755);
    const shared = path.join(base, 'shared');
    await fs.mkdir(shared);
    await fs.chown(shared, 0, 54_321);
    await fs.chmod(shared, mode);
    const settings = path.join(shared, 'settings.json');
    const text =
      '{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "x", "name": "external-context-auto-recall"}]}]}, "mine": 1}\n';
    await fs.writeFile(settings, text);
    const { code, stderr } = run(['rollback', '--settings', settings]);
    if (refused === undefined) {
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(await fs.readFile(settings, 'utf8')).toBe('{"hooks": {}, "mine": 1}\n');
    } else {
      expect(code).toBe(1);
      expect(stderr).toContain(`${shared} ${refused}`);
      expect(stderr).toContain(`Fix: remove that write permission (chmod go-w ${shared})`);
      expect(await fs.readFile(settings, 'utf8')).toBe(text);
      expect(await fs.readdir(shared)).toEqual(['settings.json']);
    }
  });
});
