// `qwen-managed probe --dir DIR [--profile KIND] [--json]`: one read-only search per deployed profile
// against its provider, with the credential the launcher would use, before the roll-out.
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { isAnyProfileKind, unknownProfileKind } from '../../contracts/launch-plan.js';
import type { ProbeResult } from '../../deploy/probe.js';
import { probeInstall } from '../../deploy/probe-install.js';
import { defineCommand } from '../command.js';
import { UsageError } from '../command-errors.js';
import type { AdminDeps } from '../deps.js';
import { required } from '../flags.js';

export const PROBE_HELP = `Usage: qwen-managed probe --dir DIR [--profile KIND] [--json]

Sends ONE read-only search per active profile of the install tree to its configured provider, with
the credential the launcher would use (the credential file, or the variable in this environment for
an inherited one) and the session's proxy variables (those deployment.json inherits or sets) — or,
with a credential broker, through the broker's listener exactly as the runtimes call it (the broker
adds the credential; run probe as root or an allowed user) — and reports whether the answer has the
exact shape of the profile's contract (Generic HTTP Search v1 or the Mem0 preset), whether the
results honour the configured scope, and the latency. Never a write; never the credential or any
byte of the answer in the output. Run it as the administrator, on a machine that reaches the
provider as the developers' machines will.

Options:
  --dir DIR       the install directory (required)
  --profile KIND  probe only this profile (on-demand, auto-recall, write, openclaw-recall)
  --json          print the results as JSON: {"ok", "dir", "probes": [{"profile", "contract", "url",
                  "ok", "shape": "exact"|"wrong"|"no-answer", "scope": "honoured"|"ignored"|
                  "not-confirmed"|"not-applicable", "results", "latencyMs", "message"}]}
  -h, --help      show this help

Exit codes: 0 every probe answered in the exact shape and no result broke the scope, 1 otherwise (or
unreadable input), 2 usage error.
`;

function text(dir: string, probes: readonly ProbeResult[]): string {
  const lines = probes.map(
    (p) =>
      `  ${p.ok ? 'OK  ' : 'FAIL'} [${p.profile}] ${p.contract} ${p.url}: shape ${p.shape}, scope ${p.scope}, ${p.latencyMs} ms — ${p.message}`,
  );
  const failed = probes.filter((p) => !p.ok).length;
  return `${lines.join('\n')}\nprobe ${dir}: ${failed === 0 ? 'OK' : 'FAILED'} — ${probes.length - failed} of ${probes.length} provider(s) answer as configured\n`;
}

export const probeCommand = defineCommand({
  name: 'probe',
  summary: 'Send one read-only search per profile to its provider and check the answer speaks the preset',
  help: PROBE_HELP,
  flags: { dir: { type: 'string' }, profile: { type: 'string' }, json: { type: 'boolean' } },
  async run(flags, io, deps: Pick<AdminDeps, 'hostPlatform'>) {
    const dir = path.resolve(io.cwd, required('probe', 'dir', flags.dir));
    const profile = flags.profile;
    if (profile !== undefined && !isAnyProfileKind(profile))
      throw new UsageError(`probe: --profile: ${unknownProfileKind(profile)}`);
    const probes = await probeInstall(dir, {
      profile,
      env: io.env,
      now: () => performance.now(),
      hostPlatform: deps.hostPlatform,
    });
    const ok = probes.every((p) => p.ok);
    io.stdout.write(
      flags.json === true ? `${JSON.stringify({ ok, dir, probes }, null, 2)}\n` : text(dir, probes),
    );
    return ok ? 0 : 1;
  },
});
