// The Ansible example as an administrator runs it from its header, in --check mode (nothing on the
// machine changes): a missing credential variable and a missing repository root each stop the play
// before anything is installed, with one line naming what to set — never a credential, and not
// censored by no_log; so does a package URL (http:// or https://) without its sha256. The controls: with
// everything right, the play goes past the checks to the package.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../unit/deploy/fixtures.js';

const CANARY = 'canary-ansible-secret-5Rt8';
let work = '';

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'qm-ansible-'));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function play(env: Record<string, string>, extra: string[] = []) {
  const result = spawnSync(
    'ansible-playbook',
    ['--check', '-i', 'localhost,', '-c', 'local', ...extra, 'ansible/examples/local.yml'],
    {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 240_000,
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HOME: work,
        LANG: 'C.UTF-8',
        ANSIBLE_NOCOLOR: '1',
        ...env,
      },
    },
  );
  const out = `${result.stdout}${result.stderr}`;
  // The failed task's own message, as Ansible prints it: `fatal: [host]: FAILED! => {…"msg": …}`.
  const failed = /FAILED! => (\{.*\})$/m.exec(out)?.[1];
  const msg = failed === undefined ? undefined : (JSON.parse(failed) as { msg?: string }).msg;
  return { code: result.status, out, msg };
}

describe('ansible/examples/local.yml stops early, saying what to set', () => {
  it('a credential variable left unset: names the empty entry by its path, not censored', () => {
    const run = play({ OPENAI_API_KEY: CANARY });
    expect(run.code).not.toBe(0);
    expect(run.msg).toMatch(
      /^qwen_managed_credentials: empty content: \/etc\/qwen-managed\/credentials\/context-api-token\. Fix: /,
    );
    expect(run.out).not.toContain('censored');
    expect(run.out).not.toContain(CANARY);
  });

  it('a repository root that does not exist: names the key, the value and the -e to set', () => {
    const run = play({ CONTEXT_API_TOKEN: CANARY, OPENAI_API_KEY: CANARY }, [
      '-e',
      `repository_root=${path.join(work, 'missing-checkout')}`,
    ]);
    expect(run.code).not.toBe(0);
    expect(run.msg).toBe(
      `qwen_managed_deployment.repositoryRoot = "${path.join(work, 'missing-checkout')}" is not a directory on localhost: set it to the developers' checkout (with ansible/examples/local.yml: -e repository_root=/path/to/checkout), or create it first.`,
    );
    expect(run.out).not.toContain(CANARY);
  });

  // get_url follows an https:// URL's redirect to plain http:// and reports OK (measured with a
  // loopback TLS server answering 302 to http://): https alone does not keep the package unswapped.
  it.each([
    'http://packages.example/qwen-managed_0.1.0_amd64.deb',
    'https://packages.example/qwen-managed_0.1.0_amd64.deb',
  ])(
    'a package URL without qwen_managed_package_sha256 (%s): refused, naming the variable and the fix',
    (url) => {
      const run = play({ CONTEXT_API_TOKEN: CANARY, OPENAI_API_KEY: CANARY }, [
        '-e',
        `qwen_managed_package=${url}`,
      ]);
      expect(run.code).not.toBe(0);
      expect(run.msg).toBe(
        `qwen_managed_package = "${url}" is a URL and qwen_managed_package_sha256 is not set: the download follows redirects, to plain http:// too, so anyone on the network path could swap the package the role installs as root. Fix: set qwen_managed_package_sha256 to the first field of \`sha256sum qwen-managed_0.1.0_amd64.deb\` where the package was built.`,
      );
      expect(run.out).not.toContain('TASK [../roles/qwen_managed : Package cache directory]');
    },
  );

  it('a qwen_managed_package_sha256 that is no sha256: refused, whatever the URL', () => {
    const run = play({ CONTEXT_API_TOKEN: CANARY, OPENAI_API_KEY: CANARY }, [
      '-e',
      'qwen_managed_package=https://packages.example/qwen-managed_0.1.0_amd64.deb',
      '-e',
      'qwen_managed_package_sha256=md5:0123',
    ]);
    expect(run.code).not.toBe(0);
    expect(run.msg).toBe(
      'qwen_managed_package_sha256 = "md5:0123" is not a sha256 (64 hex digits). Fix: set it to the first field of `sha256sum qwen-managed_0.1.0_amd64.deb` where the package was built.',
    );
  });

  it.each(['http', 'https'])('control: an %s:// URL with a sha256 passes the package check', (scheme) => {
    const checkout = path.join(work, 'checkout');
    fs.mkdirSync(checkout, { recursive: true });
    const run = play({ CONTEXT_API_TOKEN: CANARY, OPENAI_API_KEY: CANARY }, [
      '-e',
      `repository_root=${checkout}`,
      '-e',
      `qwen_managed_package=${scheme}://packages.example/qwen-managed_0.1.0_amd64.deb`,
      '-e',
      `qwen_managed_package_sha256=${'0f'.repeat(32)}`,
    ]);
    expect(run.out).toMatch(
      /TASK \[\.\.\/roles\/qwen_managed : Check the package's source and checksum\][^\n]*\nok: \[localhost\]/,
    );
    expect(run.out).toContain('TASK [../roles/qwen_managed : Package cache directory]');
  });

  it('control: with both right the checks pass and the play reaches the package tasks', () => {
    const checkout = path.join(work, 'checkout');
    fs.mkdirSync(checkout, { recursive: true });
    const run = play({ CONTEXT_API_TOKEN: CANARY, OPENAI_API_KEY: CANARY }, [
      '-e',
      `repository_root=${checkout}`,
    ]);
    expect(run.out).toMatch(
      /TASK \[\.\.\/roles\/qwen_managed : Check the repository root\][^\n]*\nok: \[localhost\]/,
    );
    expect(run.out).toContain('TASK [../roles/qwen_managed : Package cache directory]');
    expect(run.out).not.toContain(CANARY);
  });
});
