// Step 2: the pins. Loads `manifest.json` and `profiles/<kind>/launch.json` with the shared schemas,
// then checks everything the launch will use — absolute, existing, checksum-matched, and (POSIX)
// StrictModes ownership and permissions — and reports every failure at once, one line each.
import installManifestJsonSchema from '../schema/install-manifest.schema.json' with { type: 'json' };
import launchPlanJsonSchema from '../schema/launch-plan.schema.json' with { type: 'json' };
import { sha256Hex } from '../src/base/hash.js';
import type { Platform } from '../src/base/platform.js';
import { type InstallManifest, MANIFEST_FILE } from '../src/contracts/install-manifest.js';
import type { LaunchPlan, ProfileKind } from '../src/contracts/launch-plan.js';
import { PROFILE_FILES, profileRel, runtimeRel } from '../src/contracts/layout.js';
import { RUNTIME_FILES } from '../src/contracts/names.js';
import { qwenPackageProblems, walkQwenPackage } from '../src/host/qwen-package.js';
import { pinnedArgvPaths } from '../src/policy/arguments.js';
import { lookupEnv } from '../src/policy/environment-names.js';
import { ARGUMENT_POLICY, type ArgumentPolicy } from '../src/policy/policies.js';
import { pinnedPathProblem, posixQuote } from '../src/policy/quote.js';
import { SUPPORTED_QWEN_VERSIONS } from '../src/qwen/versions.js';
import { type JsonSchema, type SchemaIssue, schemaIssues } from '../src/text/json-schema-check.js';
import { buildArgv } from './argv.js';
import { routedCredentials } from './credentials.js';
import { OPTIONAL_PINNED_FILE_NAMES, PINNED_FILE_NAMES } from './env.js';
import { checkPlanInstallDir, type RealpathFs } from './install-dir.js';
import { errorCode, failure, PATH_PROBLEM_TEXT, show, usage } from './messages.js';
import { type StatLike, StrictModes, type StrictModesFs } from './strict-modes.js';

export interface PinsStat extends StatLike {
  isFile(): boolean;
}

export interface PinsFs extends StrictModesFs, RealpathFs {
  readFileSync(path: string): Uint8Array;
  statSync(path: string): PinsStat;
  accessSync(path: string, mode: number): void;
  readdirSync(path: string): string[];
}

export interface PinsInput {
  /** The install directory found from the launcher's own real path. */
  installDir: string;
  kind: ProfileKind;
  platform: Platform;
  fs: PinsFs;
  argumentPolicy?: ArgumentPolicy;
}

export interface Pins {
  plan: LaunchPlan;
  manifest: InstallManifest;
  /** False when the manifest marks the profile rolled back: it starts without external context. */
  externalContextActive: boolean;
  /** What follows the node executable: `[qwenCli, ...managed argv]`, policy-checked. */
  argv: string[];
}

const X_OK = 1;
const R_OK = 4;

/** A path inside the install directory, from a manifest key (always `/`-separated). */
export function installPath(installDir: string, rel: string, platform: Platform): string {
  return platform === 'windows' ? `${installDir}\\${rel.replaceAll('/', '\\')}` : `${installDir}/${rel}`;
}

function launchPlanRel(kind: ProfileKind): string {
  return profileRel(kind, PROFILE_FILES.launchPlan);
}

function describeIssue(issue: SchemaIssue): string {
  const at = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
  if (issue.code === 'unrecognized_keys') return `${at}: unknown key(s) ${(issue.keys ?? []).join(', ')}`;
  if (issue.expected !== undefined) return `${at}: expected ${issue.expected}`;
  return `${at}: ${issue.code.replaceAll('_', ' ')}`;
}

/** All that reading manifest.json or launch.json needs (`qwen-managed plan` passes no more). */
type JsonFileFs = Pick<PinsFs, 'readFileSync'>;

/**
 * Reads a file render wrote and checks it against the JSON Schema generated from its zod schema
 * (the same rules, without loading zod at every start).
 */
function readJson<T>(fs: JsonFileFs, file: string, schema: JsonSchema): { value: T; bytes: Uint8Array } {
  const fix = 're-render the deployment';
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    throw failure(`cannot read ${show(file)} (${errorCode(error)}); ${fix}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw failure(`${show(file)} is not valid JSON; ${fix}`);
  }
  const issues = schemaIssues(data, schema);
  if (issues.length > 0) {
    const shown = issues.slice(0, 5).map(describeIssue).join('; ');
    throw failure(`${show(file)} does not match its schema (${shown}); ${fix}`);
  }
  return { value: data as T, bytes };
}

export function readManifest(fs: JsonFileFs, installDir: string, platform: Platform): InstallManifest {
  return readJson<InstallManifest>(
    fs,
    installPath(installDir, MANIFEST_FILE, platform),
    installManifestJsonSchema,
  ).value;
}

export function readLaunchPlan(
  fs: JsonFileFs,
  installDir: string,
  kind: ProfileKind,
  platform: Platform,
): { plan: LaunchPlan; bytes: Uint8Array } {
  const file = installPath(installDir, launchPlanRel(kind), platform);
  const { value, bytes } = readJson<LaunchPlan>(fs, file, launchPlanJsonSchema);
  return { plan: value, bytes };
}

/** Manifest keys are plain relative paths: no absolute path, `.`/`..` segment or backslash. */
function safeRel(rel: string): boolean {
  const absolute = rel.startsWith('/') || /^[A-Za-z]:/.test(rel);
  if (rel === '' || absolute || rel.includes('\\') || rel.includes('\0')) return false;
  return rel.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

interface Pin {
  what: string;
  path: string;
  type: 'file' | 'directory';
  /** Admin-owned: StrictModes applies (the repository root is the developers'). */
  adminOwned: boolean;
  executable?: boolean;
  /** Pinned only because the plan names it: an empty value is a bad path, not a missing pin. */
  optional?: boolean;
  /** Read by Qwen itself, not by the launcher: Node ignores a CA file it cannot read, with a warning. */
  readable?: boolean;
}

function pinsOf(plan: LaunchPlan, argv: readonly string[], active: boolean, policy: ArgumentPolicy): Pin[] {
  const pins: Pin[] = [
    { what: 'node', path: plan.node, type: 'file', adminOwned: true, executable: true },
    { what: 'Qwen cli', path: plan.qwenCli, type: 'file', adminOwned: true },
    { what: 'repository root', path: plan.cwd, type: 'directory', adminOwned: false },
  ];
  for (const name of PINNED_FILE_NAMES) {
    const file = lookupEnv(plan.environment.files, name, plan.platform);
    pins.push({ what: name, path: file ?? '', type: 'file', adminOwned: true });
  }
  for (const name of OPTIONAL_PINNED_FILE_NAMES) {
    const file = lookupEnv(plan.environment.files, name, plan.platform);
    // Absent means not asked for; present, it is pinned (and refused when empty) like the others.
    if (file !== undefined) {
      pins.push({ what: name, path: file, type: 'file', adminOwned: true, optional: true, readable: true });
    }
  }
  if (active) {
    pins.push({
      what: 'provider config',
      path: plan.externalContext.configFile,
      type: 'file',
      adminOwned: true,
    });
  }
  for (const file of pinnedArgvPaths(argv.slice(1), policy)) {
    pins.push({ what: 'Qwen argv file', path: file, type: 'file', adminOwned: true });
  }
  for (const [name, source] of routedCredentials(plan, active, plan.platform)) {
    if ('file' in source) {
      pins.push({ what: `credential file of ${name}`, path: source.file, type: 'file', adminOwned: true });
    }
  }
  return pins;
}

/**
 * Everything beside the pinned cli.js that Qwen loads: the whole directory, checked like the pins
 * (verify's host.qwen, one implementation), and — when it is the Qwen package — its version.
 */
function qwenPackageCheck(qwenCli: string, adminUid: number, fs: PinsFs): string[] {
  const decoder = new TextDecoder();
  const fact = walkQwenPackage(
    qwenCli,
    {
      readFileSync: (file) => decoder.decode(fs.readFileSync(file)),
      lstatSync: (file) => fs.lstatSync(file),
      statSync: (file) => fs.statSync(file),
      readdirSync: (dir) => fs.readdirSync(dir),
    },
    // cli.js and its directory went through StrictModes with the pins: each problem is named once.
    { walkAnyDirectory: true, skip: new Set([qwenCli, qwenCli.slice(0, qwenCli.lastIndexOf('/'))]) },
  );
  // Absent: reported with the pins above.
  if (fact.kind !== 'walked') return [];
  const problems = qwenPackageProblems(fact, adminUid, show);
  if (fact.qwenPackage && (fact.version === undefined || !SUPPORTED_QWEN_VERSIONS.includes(fact.version))) {
    problems.push(
      `Qwen ${fact.version ?? '(no version)'} at ${show(fact.root)} is not a version this toolkit supports (${SUPPORTED_QWEN_VERSIONS.join(', ')}); pin a supported Qwen or upgrade qwen-managed`,
    );
  }
  return problems;
}

/** Loads and checks everything step 2 pins; throws a LaunchError listing every failure. */
export function loadPins(input: PinsInput): Pins {
  const { installDir, kind, platform, fs } = input;
  const policy = input.argumentPolicy ?? ARGUMENT_POLICY;
  const manifest = readManifest(fs, installDir, platform);
  const state = manifest.profiles[kind];
  if (state === undefined) {
    const deployed = Object.keys(manifest.profiles).join(', ') || 'none';
    throw usage(`profile ${show(kind)} is not deployed in ${show(installDir)} (deployed: ${deployed})`);
  }
  const planRel = launchPlanRel(kind);
  const { plan, bytes: planBytes } = readLaunchPlan(fs, installDir, kind, platform);
  const planFile = installPath(installDir, planRel, platform);
  if (plan.profile !== kind) {
    throw failure(`${show(planFile)} is the plan of profile ${show(plan.profile)}; re-render`);
  }
  if (plan.platform !== platform) {
    throw failure(
      `${show(planFile)} was rendered for ${plan.platform}, not ${platform}; re-render for this platform`,
    );
  }
  checkPlanInstallDir(plan.installDir, installDir, fs);
  const externalContextActive = state.state === 'active';
  const argv = buildArgv(plan, { externalContextActive }, policy);

  const problems: string[] = [];
  const listed = new Set(Object.keys(manifest.files));
  const planEntry = manifest.files[planRel];
  // The plan is verified on the very bytes that were parsed, so it cannot change in between.
  if (planEntry === undefined) problems.push(`${show(planFile)} is not listed in manifest.json; re-render`);
  else if (sha256Hex(planBytes) !== planEntry.sha256) {
    problems.push(
      `${show(planFile)} does not match its sha256 in manifest.json (changed after render); re-render`,
    );
  }
  if (!listed.has(runtimeRel(RUNTIME_FILES.launcher))) {
    problems.push(`the launcher runtime/${RUNTIME_FILES.launcher} is not listed in manifest.json; re-render`);
  }
  const installFiles: string[] = [installPath(installDir, MANIFEST_FILE, platform)];
  for (const [rel, entry] of Object.entries(manifest.files)) {
    if (!safeRel(rel)) {
      problems.push(`manifest.json lists ${show(rel)}, which is not a plain relative path; re-render`);
      continue;
    }
    const file = installPath(installDir, rel, platform);
    installFiles.push(file);
    if (rel === planRel) continue;
    let bytes: Uint8Array;
    try {
      bytes = fs.readFileSync(file);
    } catch (error) {
      const why = errorCode(error) === 'ENOENT' ? 'is missing' : `cannot be read (${errorCode(error)})`;
      problems.push(`${show(file)} ${why}; restore it or re-render the deployment`);
      continue;
    }
    // Tampering is refused: every file of the install must be the one render wrote.
    if (sha256Hex(bytes) !== entry.sha256) {
      problems.push(
        `${show(file)} does not match its sha256 in manifest.json (changed after render); restore it or re-render`,
      );
    }
  }

  const pins = pinsOf(plan, argv, externalContextActive, policy);
  const sep = platform === 'windows' ? '\\' : '/';
  for (const pin of pins) {
    if (pin.path === '' && pin.optional !== true) {
      problems.push(`${pin.what} is not pinned by the launch plan; re-render the deployment`);
      continue;
    }
    const problem = pinnedPathProblem(pin.path, platform);
    if (problem !== undefined) {
      problems.push(`${pin.what} ${show(pin.path)} ${PATH_PROBLEM_TEXT[problem]}; re-render the deployment`);
      continue;
    }
    // A pin inside the install must be one of its checksummed files.
    if (pin.adminOwned && pin.path.startsWith(plan.installDir + sep)) {
      const rel = pin.path.slice(plan.installDir.length + 1).replaceAll('\\', '/');
      if (!listed.has(rel)) {
        problems.push(`${pin.what} ${show(pin.path)} is not listed in manifest.json; re-render`);
      }
    }
    let stat: PinsStat;
    try {
      stat = fs.statSync(pin.path);
    } catch (error) {
      const code = errorCode(error);
      const why =
        code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be inspected (${code})`;
      problems.push(`${pin.what} ${show(pin.path)} ${why}`);
      continue;
    }
    if (pin.type === 'file' ? !stat.isFile() : !stat.isDirectory()) {
      problems.push(`${pin.what} ${show(pin.path)} is not a ${pin.type}`);
      continue;
    }
    if (pin.executable === true && platform === 'posix') {
      try {
        fs.accessSync(pin.path, X_OK);
      } catch {
        problems.push(`${pin.what} ${show(pin.path)} is not executable by you`);
      }
    }
    if (pin.readable === true && platform === 'posix') {
      try {
        fs.accessSync(pin.path, R_OK);
      } catch {
        problems.push(
          `${pin.what} ${show(pin.path)} is not readable by you; fix: chmod a+r ${posixQuote(pin.path)}`,
        );
      }
    }
  }
  // Run through cli.js directly: cli-entry.js relaunches itself and can apply a self-update.
  if (/(^|[\\/])cli-entry\.js$/.test(plan.qwenCli)) {
    problems.push(
      `Qwen cli ${show(plan.qwenCli)} is cli-entry.js (the self-updating relaunch path); pin cli.js instead`,
    );
  }

  // StrictModes needs POSIX owners and modes; on Windows ACLs decide and verify reports them.
  if (platform === 'posix') {
    const strict = new StrictModes(manifest.adminUid, fs);
    for (const file of installFiles) strict.checkChain(file);
    for (const pin of pins) {
      if (pin.adminOwned && pinnedPathProblem(pin.path, platform) === undefined) strict.checkChain(pin.path);
    }
    problems.push(...strict.problems());
    if (pinnedPathProblem(plan.qwenCli, platform) === undefined)
      problems.push(...qwenPackageCheck(plan.qwenCli, manifest.adminUid, fs));
  }
  if (problems.length > 0) throw failure(...problems);
  return { plan, manifest, externalContextActive, argv };
}
