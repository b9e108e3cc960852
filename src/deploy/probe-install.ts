// `qwen-managed probe` over an install tree: for each active profile (or the one asked for), its
// provider config, the credential the launcher would give it (the one reader), its CA file and a
// transport, then one probeProvider() search. The command only prints the results.
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Environment } from '../base/environment.js';
import { AdminInputError } from '../base/errors.js';
import { parseRuntimeConfig } from '../config/load.js';
import { credentialVariable } from '../config/names.js';
import { MANIFEST_FILE } from '../contracts/install-manifest.js';
import {
  ALL_PROFILE_KINDS,
  type AnyProfileKind,
  type LaunchPlan,
  OPENCLAW_PROFILE,
} from '../contracts/launch-plan.js';
import { launchPlanSchema } from '../contracts/launch-plan-schema.js';
import { EXTRA_CA_VARIABLE, PROFILE_FILES, profileRel } from '../contracts/layout.js';
import { openclawLaunchPlanSchema } from '../contracts/openclaw-launch.js';
import { createTransport } from '../http/create-transport.js';
import { withNoProxyHost } from '../policy/broker-env.js';
import { readCredential } from '../policy/routed-credentials.js';
import { providerConfigVersion } from './deployment/provider-config.js';
import { type ProbeResult, probeProvider } from './probe.js';
import { parseManifestText } from './render/manifest.js';

/** A refusal of probe's input; the command puts its name in front. */
export class ProbeRefused extends AdminInputError {
  override readonly name = 'ProbeRefused';
}

export interface ProbeInstallOptions {
  /** Only this profile; every active one when undefined. */
  profile: AnyProfileKind | undefined;
  /** Stands in for the developer's: inherited credentials and proxy variables come from it. */
  env: Environment;
  /** Milliseconds from a monotonic clock. */
  now(): number;
}

async function readJson(file: string): Promise<unknown> {
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) throw new ProbeRefused(`cannot read ${file}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new ProbeRefused(`${file} is not JSON; run \`qwen-managed verify --dir\` on the tree`);
  }
}

/** The active profiles to probe, or a ProbeRefused saying why there are none. */
async function profilesToProbe(dir: string, only: AnyProfileKind | undefined): Promise<AnyProfileKind[]> {
  const manifestText = await fs.readFile(path.join(dir, MANIFEST_FILE), 'utf8').catch(() => undefined);
  const manifest = manifestText === undefined ? undefined : parseManifestText(manifestText);
  if (manifest === undefined)
    throw new ProbeRefused(
      `${dir} is not an install tree (no valid ${MANIFEST_FILE}). Fix: point --dir at the installDir of a rendered deployment`,
    );
  const kinds = ALL_PROFILE_KINDS.filter(
    (kind) => manifest.profiles[kind]?.state === 'active' && (only === undefined || only === kind),
  );
  if (kinds.length === 0)
    throw new ProbeRefused(
      `${dir} has no active ${only ?? ''} profile to probe${only === undefined ? '' : ` (deployed: ${Object.keys(manifest.profiles).join(', ') || 'none'})`}`,
    );
  return kinds;
}

/** What probe reads of a launch plan: Qwen's and OpenClaw's have it alike. */
type ProbedPlan = Pick<LaunchPlan, 'credentials' | 'platform'> & {
  profile: AnyProfileKind;
  environment: Pick<LaunchPlan['environment'], 'files'>;
  /** Qwen's plans only: render refuses a broker in front of the OpenClaw profile. */
  broker?: LaunchPlan['broker'];
};

/** The credential the launcher would give the profile (its one reader), or a ProbeRefused naming where it looked. */
function credentialFor(plan: ProbedPlan, name: string, env: Environment): string {
  const source = plan.credentials[name];
  if (source === undefined)
    throw new ProbeRefused(
      `profile ${plan.profile} routes no credential ${name}; render the deployment again`,
    );
  const read = readCredential(name, source, {
    callerEnv: env,
    platform: plan.platform,
    readFile: (file) => readFileSync(file, 'utf8'),
  });
  if (read.ok) return read.value;
  switch (read.problem) {
    case 'unset':
      throw new ProbeRefused(
        `${name} is inherited from the caller's environment and is not set here. Fix: export ${name} before running probe`,
      );
    case 'unreadable':
      throw new ProbeRefused(
        `cannot read the credential file of ${name}, ${read.file} (${read.code}). Fix: run probe as the administrator who can read it`,
      );
    case 'empty':
      throw new ProbeRefused(`the credential file of ${name}, ${read.file}, is empty`);
    case 'nul':
      throw new ProbeRefused(`the credential ${name} contains a NUL byte and cannot be sent in a header`);
  }
}

/** One probe of one profile's provider, over a transport made (and closed) for it. */
async function probeProfile(
  dir: string,
  kind: AnyProfileKind,
  options: ProbeInstallOptions,
): Promise<ProbeResult> {
  const config = parseRuntimeConfig(
    JSON.stringify(await readJson(path.join(dir, profileRel(kind, PROFILE_FILES.providerConfig)))),
    providerConfigVersion(kind),
  );
  // The OpenClaw plugin reads the same provider config and credential: only its plan's shape differs.
  const planJson = await readJson(path.join(dir, profileRel(kind, PROFILE_FILES.launchPlan)));
  const plan: ProbedPlan =
    kind === OPENCLAW_PROFILE ? openclawLaunchPlanSchema.parse(planJson) : launchPlanSchema.parse(planJson);
  // Through the credential broker, as the runtimes go: its listener, its public key, and never through
  // a proxy (the broker's own environment decides how it reaches the provider).
  const broker = plan.broker;
  const credential =
    broker === undefined ? credentialFor(plan, credentialVariable(config.provider), options.env) : broker.key;
  const env =
    broker === undefined
      ? options.env
      : {
          ...options.env,
          NO_PROXY: withNoProxyHost(options.env['NO_PROXY'], broker.host),
          no_proxy: withNoProxyHost(options.env['no_proxy'], broker.host),
        };
  const caFile = plan.environment.files[EXTRA_CA_VARIABLE];
  const ca = caFile === undefined ? undefined : await fs.readFile(caFile, 'utf8');
  const timeoutMs = config.version === 2 ? config.autoRecall.timeoutMs : config.timeoutMs;
  const handle = await createTransport(env, { timeoutMs, ...(ca === undefined ? {} : { ca }) });
  try {
    return await probeProvider(kind, config.provider, credential, {
      transport: handle.transport,
      now: options.now,
      timeoutMs,
    });
  } finally {
    await handle.close();
  }
}

/** Probes the profiles one after the other (never two requests at once to one provider). */
export async function probeInstall(dir: string, options: ProbeInstallOptions): Promise<ProbeResult[]> {
  const probes: ProbeResult[] = [];
  for (const kind of await profilesToProbe(dir, options.profile))
    probes.push(await probeProfile(dir, kind, options));
  return probes;
}
