// Issue 28, "an administrator's first day": every mistake of its table that render, verify, plan or
// rollback must catch, made as the administrator makes it — the built CLI in a real child process, on
// real files, links, owners and modes. Each row pins the exit code and the line naming the key or
// file, the value and the fix (never "internal error", never a stack), and its control: the same
// scenario with the mistake corrected passes. Rows that need a user who is not root (file modes mean
// nothing to root) run a throwaway user's CLI bundle (admin-cli.ts).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeQwenPackage } from '../../fixtures/qwen-package.js';
import { adminCli, EXAMPLES, example, type Run } from './admin-cli.js';

const cli = adminCli('first-day');
const run = cli.run;

async function writeJson(file: string, value: unknown): Promise<void> {
  await fs.writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** A stand-in for the pinned node: answers `--version` as `version`, runs this Node otherwise. */
async function fakeNode(file: string, version: string): Promise<string> {
  await fs.writeFile(
    file,
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo ${version}; exit 0; fi\nexec '${process.execPath}' "$@"\n`,
  );
  await fs.chmod(file, 0o755);
  return file;
}

/** An npm prefix holding Qwen 0.24.4 (engines >=22.0.0) with npm's bin/qwen link to cli-entry.js. */
async function qwenPrefix(dir: string): Promise<{ cli: string; entry: string; binQwen: string }> {
  const prefix = path.join(dir, 'qwen');
  const pkg = await writeQwenPackage(path.join(prefix, 'lib'), '0.24.4', '>=22.0.0');
  const entry = path.join(pkg, 'cli-entry.js');
  await fs.writeFile(entry, '');
  const binQwen = path.join(prefix, 'bin', 'qwen');
  await fs.mkdir(path.dirname(binQwen), { recursive: true });
  await fs.symlink(path.relative(path.dirname(binQwen), entry), binQwen);
  return { cli: path.join(pkg, 'cli.js'), entry, binQwen };
}

/** The failed checks of a `verify --json` run, as `[id] message`. */
function failures(result: Run): string[] {
  const report = JSON.parse(result.stdout) as {
    checks: { id: string; ok: boolean; severity: string; message: string }[];
  };
  return report.checks.filter((c) => !c.ok && c.severity === 'error').map((c) => `[${c.id}] ${c.message}`);
}

/** An example rendered for real into `<dir>/install` (plan reads the install's own pinned files). */
async function installed(dir: string, name: string): Promise<void> {
  const raw = await example(name);
  raw.installDir = path.join(dir, 'install');
  await writeJson(path.join(dir, `${name}.json`), raw);
  expect(run(['render', '--deployment', `${name}.json`], dir).code).toBe(0);
}

interface Row {
  row: string;
  /** Builds the scenario in `dir`; returns the failing run and the control run (mistake corrected). */
  scenario(dir: string): Promise<{ mistake: () => Run; fix: () => Promise<void> | void; control: () => Run }>;
  code: number;
  /** Matched against stderr (and stdout, for verify's report). */
  says: RegExp[];
}

const ROWS: Row[] = [
  {
    row: "qwenCli set to npm's bin/qwen link (what `which qwen` prints): render refuses it by its target",
    async scenario(dir) {
      const { cli, binQwen } = await qwenPrefix(dir);
      const raw = await example('on-demand');
      raw.node = await fakeNode(path.join(dir, 'node'), 'v22.23.3');
      raw.qwenCli = binQwen;
      await writeJson(path.join(dir, 'd.json'), raw);
      return {
        mistake: () => run(['render', '--deployment', 'd.json', '--out', 'out'], dir),
        fix: async () => writeJson(path.join(dir, 'd.json'), { ...raw, qwenCli: cli }),
        control: () => run(['render', '--deployment', 'd.json', '--out', 'out'], dir),
      };
    },
    code: 1,
    says: [
      /qwenCli = "\/\S+\/qwen\/bin\/qwen": resolves to "\/\S+\/@qwen-code\/qwen-code\/cli-entry\.js", Qwen's self-updating wrapper \(npm's bin\/qwen links to it\), which relaunches Qwen and can apply an update first\. Fix: pin "\/\S+\/@qwen-code\/qwen-code\/cli\.js"/,
    ],
  },
  {
    row: 'qwenCli a link that a later change points at cli-entry.js: verify refuses it by its target',
    async scenario(dir) {
      const { cli, entry } = await qwenPrefix(dir);
      const link = path.join(dir, 'qwen-cli.js');
      await fs.symlink(cli, link);
      const raw = await example('on-demand');
      raw.node = await fakeNode(path.join(dir, 'node'), 'v22.23.3');
      raw.qwenCli = link;
      await writeJson(path.join(dir, 'd.json'), raw);
      expect(run(['render', '--deployment', 'd.json', '--out', 'out'], dir).code).toBe(0);
      await fs.rm(link);
      await fs.symlink(entry, link);
      return {
        mistake: () => run(['verify', '--dir', 'out', '--skip-smoke', '--json'], dir),
        fix: async () => {
          await fs.rm(link);
          await fs.symlink(cli, link);
        },
        control: () => run(['verify', '--dir', 'out', '--skip-smoke', '--json'], dir),
      };
    },
    code: 1,
    says: [
      /\[host\.pins\] Qwen cli "\/\S+\/qwen-cli\.js" \(it resolves to "\/\S+\/cli-entry\.js"\) is cli-entry\.js, Qwen's self-updating wrapper/,
    ],
  },
  {
    row: 'a credential file 0640 root:root that no developer can read: verify fails host.credentials',
    async scenario(dir) {
      const secrets = path.join(dir, 'secrets');
      await fs.mkdir(secrets, { mode: 0o755 });
      const token = path.join(secrets, 'context.token');
      await fs.writeFile(token, 'tok\n', { mode: 0o640 });
      await fs.chown(token, 0, 0);
      const raw = await example('on-demand');
      raw.developers = { users: [cli.user.name] };
      raw.credentials.CONTEXT_API_TOKEN = { file: token };
      await writeJson(path.join(dir, 'd.json'), raw);
      expect(run(['render', '--deployment', 'd.json', '--out', 'out'], dir).code).toBe(0);
      return {
        mistake: () => run(['verify', '--dir', 'out', '--skip-smoke', '--json'], dir),
        fix: () => fs.chown(token, 0, cli.user.gid),
        control: () => run(['verify', '--dir', 'out', '--skip-smoke', '--json'], dir),
      };
    },
    code: 1,
    says: [
      /\[host\.credentials\] credential file of CONTEXT_API_TOKEN "\/\S+\/secrets\/context\.token" cannot be read by developer \S+: "\/\S+\/context\.token" \(file, mode 0640, root:root\) stops them, so every launch by \S+ fails; fix: put the developers in one group G, then chgrp G '\/\S+' && chmod 0640 '\/\S+'/,
    ],
  },
  {
    row: "a managed file's mode changed, then rollback: refused, nothing recorded",
    async scenario(dir) {
      expect(
        run(['render', '--deployment', path.join(EXAMPLES, 'write.json'), '--out', 'out'], dir).code,
      ).toBe(0);
      const settings = path.join(dir, 'out', 'profiles', 'write', 'system-settings.json');
      await fs.chmod(settings, 0o666);
      return {
        mistake: () => run(['rollback', '--dir', 'out', '--profile', 'write'], dir),
        fix: () => fs.chmod(settings, 0o644),
        control: () => run(['rollback', '--dir', 'out', '--profile', 'write'], dir),
      };
    },
    code: 1,
    says: [
      /rollback: \/\S+\/out differs from its manifest\.json \(profiles\/write\/system-settings\.json has mode 0666, not 0644\): an interrupted render, or tampering; nothing was changed\. Fix: run `qwen-managed verify --dir \/\S+\/out` to see every difference, re-render the deployment \(or restore the files\), then roll back/,
    ],
  },
  {
    row: 'security.auth.selectedType "openai-compatible" (Qwen knows six values)',
    async scenario(dir) {
      const raw = await example('on-demand');
      raw.settings.security.auth.selectedType = 'openai-compatible';
      await writeJson(path.join(dir, 'd.json'), raw);
      return {
        mistake: () => run(['render', '--deployment', 'd.json', '--out', 'out'], dir),
        fix: async () => {
          raw.settings.security.auth.selectedType = 'openai';
          await writeJson(path.join(dir, 'd.json'), raw);
        },
        control: () => run(['render', '--deployment', 'd.json', '--out', 'out'], dir),
      };
    },
    code: 1,
    says: [
      /settings\.security\.auth\.selectedType = "openai-compatible": is not one of the values Qwen accepts\. Fix: use one of "openai", "openai-responses", "qwen-oauth", "gemini", "vertex-ai", "anthropic"/,
    ],
  },
  {
    row: 'rollback as a non-root user: exit 1 with the path and the fix, never 70',
    async scenario(dir) {
      expect(
        run(['render', '--deployment', path.join(EXAMPLES, 'write.json'), '--out', 'out'], dir).code,
      ).toBe(0);
      return {
        mistake: () => run(['rollback', '--dir', 'out', '--profile', 'write'], dir, true),
        fix: () => undefined,
        // The correction is to run it as the tree's owner.
        control: () => run(['rollback', '--dir', 'out', '--profile', 'write'], dir),
      };
    },
    code: 1,
    says: [
      /rollback: cannot open \/\S+\/out\/\.qwen-managed\.lock \(EACCES: permission denied\)\. Fix: run it as the user that owns the file \(usually root\), or fix its permissions/,
    ],
  },
  {
    row: 'installDir with `..` and an invalid approvalGuard mode: both reported in one run',
    async scenario(dir) {
      const raw = await example('on-demand');
      raw.installDir = '/opt/../opt/qwen-managed';
      raw.approvalGuard = { modes: ['yollo'] };
      await writeJson(path.join(dir, 'd.json'), raw);
      return {
        mistake: () => run(['render', '--deployment', 'd.json', '--out', 'out'], dir),
        fix: () =>
          writeJson(path.join(dir, 'd.json'), {
            ...raw,
            installDir: '/opt/qwen-managed',
            approvalGuard: { modes: ['yolo'] },
          }),
        control: () => run(['render', '--deployment', 'd.json', '--out', 'out'], dir),
      };
    },
    code: 1,
    says: [
      /d\.json: 2 problem\(s\)/,
      /approvalGuard\.modes\[0\] = "yollo": Invalid option: expected one of "auto_edit"\|"auto"\|"yolo"\. Fix: did you mean "yolo"\?/,
      /installDir = "\/opt\/\.\.\/opt\/qwen-managed": is not in normal form\. Fix: write "\/opt\/qwen-managed"/,
    ],
  },
  {
    row: 'node pinned to Node 20 beside a Qwen package that declares >=22: render refuses it',
    async scenario(dir) {
      const { cli } = await qwenPrefix(dir);
      const raw = await example('on-demand');
      raw.node = await fakeNode(path.join(dir, 'node'), 'v20.20.2');
      raw.qwenCli = cli;
      await writeJson(path.join(dir, 'd.json'), raw);
      return {
        mistake: () => run(['render', '--deployment', 'd.json', '--out', 'out'], dir),
        fix: async () => void (await fakeNode(path.join(dir, 'node'), 'v22.23.3')),
        control: () => run(['render', '--deployment', 'd.json', '--out', 'out'], dir),
      };
    },
    code: 1,
    says: [
      /node = "\/\S+\/node": is v20\.20\.2, but Qwen 0\.24\.4 at "\/\S+\/@qwen-code\/qwen-code" declares engines\.node ">=22\.0\.0": it cannot start on it\. Fix: pin a Node that satisfies ">=22\.0\.0"/,
    ],
  },
  {
    row: 'node replaced by a Node 20 after render: verify refuses it (the launcher does too: test/unit/launcher/pins.test.ts)',
    async scenario(dir) {
      const { cli } = await qwenPrefix(dir);
      const raw = await example('on-demand');
      raw.node = await fakeNode(path.join(dir, 'node'), 'v22.23.3');
      raw.qwenCli = cli;
      await writeJson(path.join(dir, 'd.json'), raw);
      expect(run(['render', '--deployment', 'd.json', '--out', 'out'], dir).code).toBe(0);
      await fakeNode(path.join(dir, 'node'), 'v20.20.2');
      return {
        mistake: () => run(['verify', '--dir', 'out', '--skip-smoke', '--json'], dir),
        fix: async () => void (await fakeNode(path.join(dir, 'node'), 'v22.23.3')),
        control: () => run(['verify', '--dir', 'out', '--skip-smoke', '--json'], dir),
      };
    },
    code: 1,
    says: [
      /\[host\.pins\] node "\/\S+\/node" is v20\.20\.2, but Qwen 0\.24\.4 at "\/\S+" declares engines\.node ">=22\.0\.0"/,
    ],
  },
  {
    row: 'plan --dir a directory that is not an install: says so (not "re-render")',
    async scenario(dir) {
      await fs.mkdir(path.join(dir, 'notes'));
      await installed(dir, 'on-demand');
      return {
        mistake: () => run(['plan', '--dir', 'notes', '--profile', 'on-demand'], dir),
        fix: () => undefined,
        control: () => run(['plan', '--dir', 'install', '--profile', 'on-demand'], dir),
      };
    },
    code: 1,
    says: [
      /plan: --dir \/\S+\/notes is not an install tree \(it has none of manifest\.json, bin\/launch-qwen, runtime\/launch-qwen\.js, profiles\/<kind>\/launch\.json\)\. Fix: point --dir at the installDir of a rendered deployment, or at a `render --out` staging directory/,
    ],
  },
  {
    row: 'rollback --restore-config with an invalid v1 file: the key, the value and the fix',
    async scenario(dir) {
      expect(
        run(['render', '--deployment', path.join(EXAMPLES, 'on-demand.json'), '--out', 'out'], dir).code,
      ).toBe(0);
      const saved = JSON.parse(
        await fs.readFile(path.join(dir, 'out', 'profiles', 'on-demand', 'external-context.json'), 'utf8'),
      );
      await writeJson(path.join(dir, 'saved.json'), {
        ...saved,
        autoRecall: { repositoryRoot: '/srv/repos/app' },
      });
      return {
        mistake: () =>
          run(['rollback', '--dir', 'out', '--profile', 'on-demand', '--restore-config', 'saved.json'], dir),
        fix: () => writeJson(path.join(dir, 'saved.json'), saved),
        control: () =>
          run(['rollback', '--dir', 'out', '--profile', 'on-demand', '--restore-config', 'saved.json'], dir),
      };
    },
    code: 1,
    says: [
      /rollback: \/\S+\/saved\.json is not a restorable version-1 provider config; nothing was changed: 1 problem\(s\)/,
      /autoRecall = \{"repositoryRoot":"\/srv\/repos\/app"\}: is not a key at the top level\. Fix: remove "autoRecall" \(known here: "version", "timeoutMs", "provider", "write"\)/,
    ],
  },
  {
    row: 'a misspelt deployment key (instalDir): did you mean',
    async scenario(dir) {
      const raw = await example('on-demand');
      const { installDir, ...rest } = raw;
      await writeJson(path.join(dir, 'd.json'), { ...rest, instalDir: installDir });
      return {
        mistake: () => run(['render', '--deployment', 'd.json', '--out', 'out'], dir),
        fix: () => writeJson(path.join(dir, 'd.json'), raw),
        control: () => run(['render', '--deployment', 'd.json', '--out', 'out'], dir),
      };
    },
    code: 1,
    says: [
      /instalDir = "\/opt\/qwen-managed": is not a key at the top level\. Fix: did you mean "installDir"\? Rename "instalDir" to "installDir"/,
    ],
  },
  {
    row: 'a misspelt profile name in deployment.json (autorecall): did you mean',
    async scenario(dir) {
      const raw = await example('auto-recall');
      raw.profiles = { autorecall: raw.profiles['auto-recall'] };
      await writeJson(path.join(dir, 'd.json'), raw);
      return {
        mistake: () => run(['render', '--deployment', 'd.json', '--out', 'out'], dir),
        fix: async () => {
          raw.profiles = { 'auto-recall': raw.profiles.autorecall };
          await writeJson(path.join(dir, 'd.json'), raw);
        },
        control: () => run(['render', '--deployment', 'd.json', '--out', 'out'], dir),
      };
    },
    code: 1,
    says: [
      /profiles\.autorecall = \{.*: is not a key in profiles\. Fix: did you mean "auto-recall"\? Rename "autorecall" to "auto-recall"/,
    ],
  },
  {
    row: 'a misspelt command (rendr): a usage error with did you mean',
    async scenario(dir) {
      return {
        mistake: () =>
          run(['rendr', '--deployment', path.join(EXAMPLES, 'on-demand.json'), '--out', 'out'], dir),
        fix: () => undefined,
        control: () =>
          run(['render', '--deployment', path.join(EXAMPLES, 'on-demand.json'), '--out', 'out'], dir),
      };
    },
    code: 2,
    says: [/unknown command "rendr"; did you mean "render"\? \(commands: render, verify/],
  },
  {
    row: 'a misspelt flag (--deploymnet): a usage error with did you mean',
    async scenario(dir) {
      return {
        mistake: () =>
          run(['render', '--deploymnet', path.join(EXAMPLES, 'on-demand.json'), '--out', 'out'], dir),
        fix: () => undefined,
        control: () =>
          run(['render', '--deployment', path.join(EXAMPLES, 'on-demand.json'), '--out', 'out'], dir),
      };
    },
    code: 2,
    says: [/render: Unknown option '--deploymnet'; did you mean '--deployment'\?/],
  },
  {
    row: 'a misspelt --profile (autorecall): a usage error with did you mean',
    async scenario(dir) {
      await installed(dir, 'auto-recall');
      return {
        mistake: () => run(['plan', '--dir', 'install', '--profile', 'autorecall'], dir),
        fix: () => undefined,
        control: () => run(['plan', '--dir', 'install', '--profile', 'auto-recall'], dir),
      };
    },
    code: 2,
    says: [
      /plan: unknown profile kind "autorecall"; did you mean "auto-recall"\? \(kinds: on-demand, auto-recall, write, openclaw-recall\)/,
    ],
  },
];

describe("issue 28's first day: each mistake caught with its line, and its correction passes", () => {
  it.each(ROWS)('$row', async ({ scenario, code, says }) => {
    const dir = await fs.mkdtemp(path.join(cli.work, 'row-'));
    await fs.chmod(dir, 0o755);
    const { mistake, fix, control } = await scenario(dir);
    const failed = mistake();
    expect(failed.code, failed.stderr).toBe(code);
    const said = `${failed.stderr}\n${failed.stdout.startsWith('{') ? failures(failed).join('\n') : failed.stdout}`;
    for (const pattern of says) expect(said, said).toMatch(pattern);
    expect(said).not.toMatch(/internal error|\n\s+at |Error:/);
    await fix();
    const passed = control();
    expect(passed.stderr, passed.stderr).not.toMatch(/internal error/);
    expect(
      passed.stdout.startsWith('{') ? [passed.code, failures(passed)] : [passed.code],
      passed.stderr,
    ).toEqual(passed.stdout.startsWith('{') ? [0, []] : [0]);
  });
});
