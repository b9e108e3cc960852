// Qwen runs every hook as `bash -c '<command>'` with a socket on stdin (Node's pipes). Debian's bash
// then treats itself as a remote shell and sources ~/.bashrc unless SHLVL says it is nested — which
// is why the launcher forces SHLVL=1. Shown here with the built approval guard and a noisy bashrc.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENVIRONMENT_POLICY } from '../../../src/policy/policies.js';
import { posixQuote } from '../../../src/policy/quote.js';
import { runtimePath } from '../../fixtures/run-runtime.js';

let home: string;
beforeAll(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'qm-bashrc-'));
  fs.writeFileSync(path.join(home, '.bashrc'), 'echo NOISE-FROM-BASHRC\n');
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

function runHookCommand(env: Record<string, string>): Promise<string> {
  const command = `exec ${posixQuote(process.execPath)} ${posixQuote(runtimePath('approval-guard.js'))}`;
  return new Promise((resolve) => {
    // stdio 'pipe' gives the child a socket on stdin, exactly as Qwen's hook runner does.
    const child = spawn('bash', ['-c', command], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('close', () => resolve(out));
    child.stdin.end(
      JSON.stringify({
        hook_event_name: 'PreToolUse',
        tool_name: 'run_shell_command',
        permission_mode: 'yolo',
      }),
    );
  });
}

describe('hook commands under bash with a socket stdin', () => {
  const base = { PATH: '/usr/bin:/bin', HOME: '' };

  it('without SHLVL, bash sources ~/.bashrc first and its output corrupts the answer', async () => {
    const out = await runHookCommand({ ...base, HOME: home });
    expect(out.startsWith('NOISE-FROM-BASHRC\n')).toBe(true);
  });

  it("with the launcher's forced SHLVL, stdout is exactly the hook's JSON", async () => {
    expect(ENVIRONMENT_POLICY.forced['SHLVL']).toBe('1');
    const out = await runHookCommand({ ...base, HOME: home, SHLVL: ENVIRONMENT_POLICY.forced['SHLVL']! });
    expect(JSON.parse(out).hookSpecificOutput.permissionDecision).toBe('ask');
    expect(out).not.toContain('NOISE');
  });
});
