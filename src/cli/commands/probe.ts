// `qwen-managed probe --dir DIR [--profile KIND] [--json]`: one read-only search per deployed profile
// against its provider, with the credential the launcher would use, before the roll-out.
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseRuntimeConfig } from '../../config/load.js';
import { credentialVariable } from '../../config/names.js';
import { MANIFEST_FILE } from '../../contracts/install-manifest.js';
import { type LaunchPlan, PROFILE_KINDS, type ProfileKind } from '../../contracts/launch-plan.js';
import { launchPlanSchema } from '../../contracts/launch-plan-schema.js';
import { EXTRA_CA_VARIABLE, PROFILE_FILES, profileRel } from '../../contracts/layout.js';
import { type ProbeResult, probeProvider } from '../../deploy/probe.js';
import { parseManifestText } from '../../deploy/render/manifest.js';
import { createTransport } from '../../http/create-transport.js';
import { withNoProxyHost } from '../../policy/broker-env.js';
import { readCredential } from '../../policy/routed-credentials.js';
import type { Command } from '../command.js';
import { InputError, UsageError } from '../errors.js';
import { parseFlags, required } from '../flags.js';

export const PROBE_HELP = `Usage: qwen-managed probe --dir DIR [--profile KIND] [--json]

Sends ONE read-only search per active profile of the install tree to its configured provider, with
the credential the launcher would use (the credential file, or the variable in this environment for
an inherited one) — or, with a credential broker, through the broker's listener exactly as the
runtimes call it (the broker adds the credential; run probe as root or an allowed user) — and reports whether the answer has the exact shape of the profile's contract
(Generic HTTP Search v1 or the Mem0 preset), whether the results honour the configured scope, and
the latency. Never a write; never the credential or any byte of the answer in the output. Run it as
the administrator, on a machine that reaches the provider as the developers' machines will.

Options:
  --dir DIR       the install directory (required)
  --profile KIND  probe only this profile (on-demand, auto-recall, write)
  --json          print the results as JSON: {"ok", "dir", "probes": [{"profile", "contract", "url",
                  "ok", "shape": "exact"|"wrong"|"no-answer", "scope": "honoured"|"ignored"|
                  "not-confirmed"|"not-applicable", "results", "latencyMs", "message"}]}
  -h, --help      show this help

Exit codes: 0 every probe answered in the exact shape and no result broke the scope, 1 otherwise (or
unreadable input), 2 usage error.
`;

async function readJson(file: string): Promise<unknown> {
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) throw new InputError(`probe: cannot read ${file}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new InputError(`probe: ${file} is not JSON; run \`qwen-managed verify --dir\` on the tree`);
  }
}

/** The credential the launcher would give the profile (its one reader), or an InputError naming where it looked. */
function credentialFor(
  plan: LaunchPlan,
  name: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const source = plan.credentials[name];
  if (source === undefined)
    throw new InputError(
      `probe: profile ${plan.profile} routes no credential ${name}; render the deployment again`,
    );
  const read = readCredential(name, source, {
    callerEnv: env,
    platform: plan.platform,
    readFile: (file) => readFileSync(file, 'utf8'),
  });
  if (read.ok) return read.value;
  switch (read.problem) {
    case 'unset':
      throw new InputError(
        `probe: ${name} is inherited from the caller's environment and is not set here. Fix: export ${name} before running probe`,
      );
    case 'unreadable':
      throw new InputError(
        `probe: cannot read the credential file of ${name}, ${read.file} (${read.code}). Fix: run probe as the administrator who can read it`,
      );
    case 'empty':
      throw new InputError(`probe: the credential file of ${name}, ${read.file}, is empty`);
    case 'nul':
      throw new InputError(
        `probe: the credential ${name} contains a NUL byte and cannot be sent in a header`,
      );
  }
}

function text(dir: string, probes: readonly ProbeResult[]): string {
  const lines = probes.map(
    (p) =>
      `  ${p.ok ? 'OK  ' : 'FAIL'} [${p.profile}] ${p.contract} ${p.url}: shape ${p.shape}, scope ${p.scope}, ${p.latencyMs} ms — ${p.message}`,
  );
  const failed = probes.filter((p) => !p.ok).length;
  return `${lines.join('\n')}\nprobe ${dir}: ${failed === 0 ? 'OK' : 'FAILED'} — ${probes.length - failed} of ${probes.length} provider(s) answer as configured\n`;
}

export const probeCommand: Command = {
  name: 'probe',
  summary: 'Send one read-only search per profile to its provider and check the answer speaks the preset',
  help: PROBE_HELP,
  async run(args, io) {
    const flags = parseFlags(
      'probe',
      args,
      { dir: { type: 'string' }, profile: { type: 'string' }, json: { type: 'boolean' } },
      { text: PROBE_HELP, stdout: io.stdout },
    );
    if (flags === undefined) return 0;
    const dir = path.resolve(io.cwd, required('probe', 'dir', flags.dir));
    if (flags.profile !== undefined && !(PROFILE_KINDS as readonly string[]).includes(flags.profile))
      throw new UsageError(
        `probe: --profile ${JSON.stringify(flags.profile)} is not one of ${PROFILE_KINDS.join(', ')}`,
      );
    const manifestText = await fs.readFile(path.join(dir, MANIFEST_FILE), 'utf8').catch(() => undefined);
    const manifest = manifestText === undefined ? undefined : parseManifestText(manifestText);
    if (manifest === undefined)
      throw new InputError(
        `probe: ${dir} is not an install tree (no valid ${MANIFEST_FILE}). Fix: point --dir at the installDir of a rendered deployment`,
      );
    const kinds = PROFILE_KINDS.filter(
      (kind) =>
        manifest.profiles[kind]?.state === 'active' &&
        (flags.profile === undefined || flags.profile === kind),
    );
    if (kinds.length === 0)
      throw new InputError(
        `probe: ${dir} has no active ${flags.profile ?? ''} profile to probe${flags.profile === undefined ? '' : ` (deployed: ${Object.keys(manifest.profiles).join(', ') || 'none'})`}`,
      );
    const probes: ProbeResult[] = [];
    for (const kind of kinds as ProfileKind[]) {
      const config = parseRuntimeConfig(
        JSON.stringify(await readJson(path.join(dir, profileRel(kind, PROFILE_FILES.providerConfig)))),
        kind === 'auto-recall' ? 2 : 1,
      );
      const plan = launchPlanSchema.parse(
        await readJson(path.join(dir, profileRel(kind, PROFILE_FILES.launchPlan))),
      );
      // Through the credential broker, as the runtimes go: its public key, its listener, no proxy.
      const broker = plan.broker;
      const credential =
        broker === undefined ? credentialFor(plan, credentialVariable(config.provider), io.env) : broker.key;
      const env =
        broker === undefined
          ? io.env
          : {
              ...io.env,
              NO_PROXY: withNoProxyHost(io.env['NO_PROXY'], broker.host),
              no_proxy: withNoProxyHost(io.env['no_proxy'], broker.host),
            };
      const caFile = plan.environment.files[EXTRA_CA_VARIABLE];
      const ca = caFile === undefined ? undefined : await fs.readFile(caFile, 'utf8');
      const timeoutMs = config.version === 2 ? config.autoRecall.timeoutMs : config.timeoutMs;
      const handle = await createTransport(env, { timeoutMs, ...(ca === undefined ? {} : { ca }) });
      try {
        probes.push(
          await probeProvider(kind, config.provider, credential, {
            transport: handle.transport,
            now: () => performance.now(),
            timeoutMs,
          }),
        );
      } finally {
        await handle.close();
      }
    }
    const ok = probes.every((p) => p.ok);
    io.stdout.write(
      flags.json === true ? `${JSON.stringify({ ok, dir, probes }, null, 2)}\n` : text(dir, probes),
    );
    return ok ? 0 : 1;
  },
};
