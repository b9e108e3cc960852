// `qwen-managed probe` over an install tree: for each active profile (or the one asked for), its
// provider config, the credential the launcher would give it (the one reader), its CA file and a
// transport, then one probeProvider() search. The command only prints the results.
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Environment } from '../base/environment.js';
import { AdminInputError, ConfigurationError, errorCode } from '../base/errors.js';
import { platformOfHost } from '../base/platform.js';
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
import { lookupEnv } from '../policy/environment-names.js';
import { posixQuote } from '../policy/quote.js';
import { readCredential } from '../policy/routed-credentials.js';
import { providerConfigVersion } from './deployment/provider-config.js';
import { formatPath } from './json.js';
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
  /** `process.platform` of this machine: a tree is probed on the platform it was rendered for. */
  hostPlatform: string;
}

/** The fix for a file of the tree probe cannot use: it is render's, and verify says what changed. */
const reRender = (dir: string) =>
  `Fix: re-render the deployment (\`qwen-managed verify --dir ${dir}\` shows what changed)`;

async function readJson(dir: string, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    // The install is world-readable as render writes it: a refusal is the file's mode, or this user's.
    const fix =
      code === 'EACCES' || code === 'EPERM'
        ? 'Fix: run probe as the administrator, or restore the modes render wrote'
        : reRender(dir);
    throw new ProbeRefused(`cannot read ${file} (${code}). ${fix}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ProbeRefused(`${file} is not JSON. ${reRender(dir)}`);
  }
}

/** The installDir a profile's launch plan names, or undefined when it cannot be read. */
function installDirOf(dir: string, kind: string | undefined): unknown {
  try {
    const plan = readFileSync(path.join(dir, 'profiles', kind ?? '', PROFILE_FILES.launchPlan), 'utf8');
    return (JSON.parse(plan) as { installDir?: unknown }).installDir;
  } catch {
    return undefined;
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
  if (kinds.length === 0) {
    const deployed = Object.entries(manifest.profiles).map(
      ([kind, { state }]) => `${kind} ${state === 'active' ? 'active' : 'rolled back'}`,
    );
    // A rolled-back profile sends no search: probing it would test what no developer uses.
    const rolledBack = only === undefined ? deployed.length > 0 : manifest.profiles[only] !== undefined;
    // The command as it runs: render without --deployment is a usage error; a staged tree needs --out.
    const out =
      installDirOf(dir, Object.keys(manifest.profiles)[0]) === dir ? '' : ` --out ${posixQuote(dir)}`;
    const reactivate = `qwen-managed render --deployment ${manifest.deploymentFile === undefined ? 'DEPLOYMENT.json' : posixQuote(manifest.deploymentFile)}${out} --reactivate`;
    throw new ProbeRefused(
      `${dir} has no active ${only === undefined ? '' : `${only} `}profile to probe (deployed: ${deployed.join(', ') || 'none'})${rolledBack ? `. Fix: \`${reactivate}\` makes ${only ?? 'every rolled-back profile'} active again` : ''}`,
    );
  }
  return kinds;
}

/** What probe reads of a launch plan: Qwen's and OpenClaw's have it alike. */
type ProbedPlan = Pick<LaunchPlan, 'credentials' | 'platform'> & {
  profile: AnyProfileKind;
  environment: Pick<LaunchPlan['environment'], 'files' | 'inherit' | 'set'>;
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
        `cannot read the credential file of ${name}, ${read.file} (${read.code}). Fix: ${
          read.code === 'EACCES' || read.code === 'EPERM'
            ? 'run probe as the administrator who can read it'
            : `put the secret into that file (one line), or point credentials.${name} of deployment.json at the file that holds it and render again`
        }`,
      );
    case 'empty':
      throw new ProbeRefused(`the credential file of ${name}, ${read.file}, is empty`);
    case 'nul':
      throw new ProbeRefused(`the credential ${name} contains a NUL byte and cannot be sent in a header`);
    // The transport refuses it locally: without this the probe would read as a provider that never answered.
    case 'line-break':
      throw new ProbeRefused(
        `the credential ${name} holds a line break, which no HTTP header can carry (every request of the runtimes would fail). Fix: ${'file' in source ? `write only the secret, on one line, into ${source.file}` : `export ${name} as one line`}`,
      );
  }
}

/** The proxy variables undici (and so our client) reads. */
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY'];

/**
 * The proxy variables of the session the launcher would start: those the plan inherits, as `env` has
 * them, then the administrator's `set` values over them — never a proxy only the caller's shell has,
 * which the runtimes would not see.
 */
function sessionProxyEnv(
  plan: Pick<ProbedPlan, 'environment' | 'platform'>,
  env: Environment,
): Record<string, string> {
  const { platform } = plan;
  // On Windows a name is one variable whatever its case: keyed as the client looks it up.
  const proxyName = (name: string) => {
    const key = platform === 'windows' ? name.toUpperCase() : name;
    return PROXY_VARIABLES.includes(key) ? key : undefined;
  };
  const out: Record<string, string> = {};
  for (const name of plan.environment.inherit) {
    const key = proxyName(name);
    const value = lookupEnv(env, name, platform);
    if (key !== undefined && value !== undefined) out[key] = value;
  }
  for (const [name, value] of Object.entries(plan.environment.set)) {
    const key = proxyName(name);
    if (key !== undefined) out[key] = value;
  }
  return out;
}

/** The profile's provider config, parsed as its runtime parses it; a refusal names the file, the key and the fix. */
async function providerConfig(dir: string, kind: AnyProfileKind) {
  const file = path.join(dir, profileRel(kind, PROFILE_FILES.providerConfig));
  const json = await readJson(dir, file);
  try {
    return parseRuntimeConfig(JSON.stringify(json), providerConfigVersion(kind));
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    const at = error.keyPath === undefined ? '' : ` (at ${formatPath(error.keyPath)})`;
    throw new ProbeRefused(`${file}: ${error.message.replace(/\.$/, '')}${at}. ${reRender(dir)}`);
  }
}

/** Where a refused credential is fixed: its file (the broker's, restarted, with one), or the environment. */
function credentialSource(plan: ProbedPlan, name: string, throughBroker: boolean): string | undefined {
  if (throughBroker)
    return `the file of credentials.${name} in deployment.json, which the broker reads, then restart the broker`;
  const source = plan.credentials[name];
  if (source === undefined) return undefined;
  return 'file' in source
    ? `the file of credentials.${name}, ${JSON.stringify(source.file)}`
    : `${name}, which this session inherits from the environment`;
}

/** The profile's launch plan (Qwen's or OpenClaw's); a refusal names the file, the keys and the fix. */
async function launchPlan(dir: string, kind: AnyProfileKind): Promise<ProbedPlan> {
  const file = path.join(dir, profileRel(kind, PROFILE_FILES.launchPlan));
  const json = await readJson(dir, file);
  // The OpenClaw plugin reads the same provider config and credential: only its plan's shape differs.
  const parsed =
    kind === OPENCLAW_PROFILE ? openclawLaunchPlanSchema.safeParse(json) : launchPlanSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  throw new ProbeRefused(`${file} does not match its schema (${issues.join('; ')}). ${reRender(dir)}`);
}

/** One probe of one profile's provider, over a transport made (and closed) for it. */
async function probeProfile(
  dir: string,
  kind: AnyProfileKind,
  options: ProbeInstallOptions,
): Promise<ProbeResult> {
  const config = await providerConfig(dir, kind);
  const plan = await launchPlan(dir, kind);
  // Its credential files and CA file are paths of the other platform: nothing here would read them.
  if (plan.platform !== platformOfHost(options.hostPlatform))
    throw new ProbeRefused(
      `${dir} was rendered for ${plan.platform} (a staged \`render --out\`); this machine is ${platformOfHost(options.hostPlatform)}. Fix: run probe on a ${plan.platform} machine the tree is installed on`,
    );
  // Through the credential broker, as the runtimes go: its listener, its public key, and never through
  // a proxy (the broker's own environment decides how it reaches the provider).
  const broker = plan.broker;
  const credential =
    broker === undefined ? credentialFor(plan, credentialVariable(config.provider), options.env) : broker.key;
  // The runtimes reach the provider with the session's proxy variables, not with this shell's.
  const session = sessionProxyEnv(plan, options.env);
  const env =
    broker === undefined
      ? session
      : {
          ...session,
          NO_PROXY: withNoProxyHost(session['NO_PROXY'], broker.host),
          no_proxy: withNoProxyHost(session['no_proxy'], broker.host),
        };
  const caFile = plan.environment.files[EXTRA_CA_VARIABLE];
  const ca = caFile === undefined ? undefined : await fs.readFile(caFile, 'utf8');
  const timeoutMs = config.version === 2 ? config.autoRecall.timeoutMs : config.timeoutMs;
  const handle = await createTransport(env, { timeoutMs, ...(ca === undefined ? {} : { ca }) }).catch(
    (error: unknown) => {
      if (!(error instanceof ConfigurationError && error.code === 'proxy-invalid')) throw error;
      // Never the value: a proxy URL may carry the proxy's password.
      const names = Object.keys(session).filter((name) => !/^no_proxy$/i.test(name));
      throw new ProbeRefused(
        `profile ${kind}: ${names.join(' or ')} is not an absolute http(s) proxy URL. Fix: correct it where the session gets it (environment.set of deployment.json, then render again; or your own environment, for a name deployment.json inherits)`,
      );
    },
  );
  try {
    return await probeProvider(kind, config.provider, credential, {
      transport: handle.transport,
      now: options.now,
      timeoutMs,
      throughBroker: broker !== undefined,
      credentialSource: credentialSource(plan, credentialVariable(config.provider), broker !== undefined),
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
