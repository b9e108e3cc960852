// The host checks of one deployed profile, judged the same way by the launcher before every start
// and by `qwen-managed verify` on the real install: every file of the install against its sha256 in
// manifest.json, every pin (absolute, existing, of its type, executable or readable where it must
// be), StrictModes ownership and modes up every directory level, the pinned PATH's directories, the
// whole Qwen package and its version. Pure over an injected fs; one line per problem, with the fix.
import { errorCode } from '../base/errors.js';
import { type ChunkReadFs, sha256Hex, sha256OfFile } from '../base/hash.js';
import { ACCESS, type Platform } from '../base/platform.js';
import { type InstallManifest, MANIFEST_FILE } from '../contracts/install-manifest.js';
import type { LaunchPlan, ProfileKind } from '../contracts/launch-plan.js';
import {
  OPTIONAL_PINNED_FILE_VARIABLES,
  PINNED_FILE_VARIABLES,
  PROFILE_FILES,
  profileRel,
  runtimeRel,
} from '../contracts/layout.js';
import { RUNTIME_FILES } from '../contracts/runtime-files.js';
import { pinnedArgvPaths } from '../policy/arguments.js';
import { lookupEnv } from '../policy/environment-names.js';
import type { ArgumentPolicy } from '../policy/policies.js';
import { PATH_PROBLEM_TEXT, pinnedPathProblem, posixQuote, show } from '../policy/quote.js';
import { type CredentialRoutes, readCredential, routedCredentials } from '../policy/routed-credentials.js';
import { SUPPORTED_QWEN_VERSIONS } from '../qwen/versions.js';
import { qwenPackageProblems, walkQwenPackage } from './qwen-package.js';
import { nodeEnginesProblem, qwenWrapperProblem } from './qwen-pins.js';
import { searchPathProblems } from './search-path.js';
import { type StatLike, StrictModes, type StrictModesFs } from './strict-modes.js';

export interface HostStat extends StatLike {
  isFile(): boolean;
}

export interface HostFs extends StrictModesFs, ChunkReadFs {
  readFileSync(path: string): Uint8Array;
  statSync(path: string): HostStat;
  statSync(path: string, options: { throwIfNoEntry: false }): HostStat | undefined;
  accessSync(path: string, mode: number): void;
  readdirSync(path: string): string[];
}

export interface InstallHostInput {
  /** The install directory the plan was checked to belong to. */
  installDir: string;
  kind: ProfileKind;
  platform: Platform;
  manifest: InstallManifest;
  plan: LaunchPlan;
  /** The very bytes the plan was parsed from, so it cannot change between parse and checksum. */
  planBytes: Uint8Array;
  externalContextActive: boolean;
  /** What follows the node executable: `[qwenCli, ...managed argv]`. */
  argv: readonly string[];
  policy: ArgumentPolicy;
  fs: HostFs;
  /**
   * `<pinned node> --version`, when the caller knows it (the launcher runs on the pinned node; verify
   * asks it): judged against the Qwen package's `engines.node`.
   */
  nodeVersion?: string;
}

export interface InstallHostResult {
  problems: string[];
  /** The pinned Qwen package's version (package.json), when cli.js sits in the Qwen package. */
  qwenVersion?: string;
}

const { X_OK, R_OK } = ACCESS;

/** A path inside the install directory, from a manifest key (always `/`-separated). */
export function installPath(installDir: string, rel: string, platform: Platform): string {
  return platform === 'windows' ? `${installDir}\\${rel.replaceAll('/', '\\')}` : `${installDir}/${rel}`;
}

/** Manifest keys are plain relative paths: no absolute path, `.`/`..` segment or backslash. */
function safeRel(rel: string): boolean {
  const absolute = rel.startsWith('/') || /^[A-Za-z]:/.test(rel);
  if (rel === '' || absolute || rel.includes('\\') || rel.includes('\0')) return false;
  return rel.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/** One path the launch depends on, and how it is judged. */
export interface Pin {
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
  /** The administrator's fix when it does not exist (default: re-render, for a file of the install). */
  missing?: string;
}

/** The fix for a pinned file outside the install that does not exist: put it there, or pin where it is. */
export function missingPinFix(what: string, key: string): string {
  return `install ${what} there, or name where it is in deployment.json ${key} and render again`;
}

/** The repository Qwen starts in is the developers', but its path is the deployment's. */
export const REPOSITORY_ROOT_FIX =
  'create it, or name the repository developers open in deployment.json "repositoryRoot" and render again';

/** The CA file stays where the administrator keeps it (never copied into the install). */
export const CA_FILE_FIX =
  'put the CA certificates there, or name their file in deployment.json tls.extraCaCertificates and render again';

/** The credential files this launch delivers (Qwen's and OpenClaw's plans route them alike), as pins. */
export function credentialFilePins(plan: CredentialRoutes & { platform: Platform }, active: boolean): Pin[] {
  const pins: Pin[] = [];
  for (const [name, source] of routedCredentials(plan, active, plan.platform)) {
    if ('file' in source)
      pins.push({
        what: `credential file of ${name}`,
        path: source.file,
        type: 'file',
        adminOwned: true,
        missing: `write the secret into it (owned by root, readable by the developers only), or name the file that holds it in deployment.json credentials.${name} and render again`,
      });
  }
  return pins;
}

function pinsOf(plan: LaunchPlan, argv: readonly string[], active: boolean, policy: ArgumentPolicy): Pin[] {
  const pins: Pin[] = [
    {
      what: 'node',
      path: plan.node,
      type: 'file',
      adminOwned: true,
      executable: true,
      missing: missingPinFix('Node 22', '"node"'),
    },
    {
      what: 'Qwen cli',
      path: plan.qwenCli,
      type: 'file',
      adminOwned: true,
      missing: missingPinFix('Qwen (docs/admin.md, "Installing Qwen for a deployment")', '"qwenCli"'),
    },
    {
      what: 'repository root',
      path: plan.cwd,
      type: 'directory',
      adminOwned: false,
      missing: REPOSITORY_ROOT_FIX,
    },
  ];
  for (const name of Object.keys(PINNED_FILE_VARIABLES)) {
    const file = lookupEnv(plan.environment.files, name, plan.platform);
    pins.push({ what: name, path: file ?? '', type: 'file', adminOwned: true });
  }
  for (const name of OPTIONAL_PINNED_FILE_VARIABLES) {
    const file = lookupEnv(plan.environment.files, name, plan.platform);
    // Absent means not asked for; present, it is pinned (and refused when empty) like the others.
    if (file !== undefined) {
      pins.push({
        what: name,
        path: file,
        type: 'file',
        adminOwned: true,
        optional: true,
        readable: true,
        missing: CA_FILE_FIX,
      });
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
  pins.push(...credentialFilePins(plan, active));
  return pins;
}

/**
 * Everything beside the pinned cli.js that Qwen loads: the whole directory, checked like the pins,
 * and — when it is the Qwen package — its version against policies/qwen/versions.json and against
 * the versions render found missing one of the profile's settings (`missingSettings`).
 */
function qwenPackageCheck(
  qwenCli: string,
  adminUid: number,
  missingSettings: readonly string[] | undefined,
  fs: HostFs,
  node: { path: string; version: string | undefined },
): InstallHostResult {
  const decoder = new TextDecoder();
  const fact = walkQwenPackage(
    qwenCli,
    {
      readFileSync: (file) => decoder.decode(fs.readFileSync(file)),
      lstatSync: (file) => fs.lstatSync(file),
      // The method itself, with both its forms (Node's statSync does not use `this`).
      statSync: fs.statSync,
      readdirSync: (dir) => fs.readdirSync(dir),
      readlinkSync: (link) => fs.readlinkSync(link),
    },
    // cli.js and its directory went through StrictModes with the pins: each problem is named once.
    {
      walkAnyDirectory: true,
      skip: new Set([qwenCli, qwenCli.slice(0, qwenCli.lastIndexOf('/'))]),
      adminUid,
    },
  );
  // Absent: reported with the pins.
  if (fact.kind !== 'walked') return { problems: [] };
  const problems = qwenPackageProblems(fact, adminUid, show);
  const problem = qwenVersionProblem(fact, show);
  if (problem !== undefined) problems.push(problem);
  // Qwen declares the Node versions it starts on; an older pinned node fails at start, or worse, later.
  const engines = fact.qwenPackage ? nodeEnginesProblem(node.path, node.version, fact, show) : undefined;
  if (engines !== undefined) problems.push(engines);
  // Qwen ignores settings its version does not know: render listed the versions that lack one.
  if (fact.version !== undefined && missingSettings?.includes(fact.version) === true) {
    problems.push(
      `Qwen ${fact.version} at ${show(fact.root)} would ignore managed settings it does not know (rendered into this profile's system settings); pin a Qwen that has them, or remove them from deployment.json and re-render (qwen-managed verify names them: settings.qwen)`,
    );
  }
  return { problems, ...(fact.version === undefined ? {} : { qwenVersion: fact.version }) };
}

/** An unsupported version of the Qwen package (a directory that is not the package has none to judge). */
export function qwenVersionProblem(
  fact: { root: string; qwenPackage: boolean; version?: string | undefined },
  showValue: (value: string) => string,
): string | undefined {
  if (!fact.qwenPackage) return undefined;
  if (fact.version !== undefined && SUPPORTED_QWEN_VERSIONS.includes(fact.version)) return undefined;
  return `Qwen ${fact.version ?? '(no version)'} at ${showValue(fact.root)} is not a version this toolkit supports (${SUPPORTED_QWEN_VERSIONS.join(', ')}); pin a supported Qwen or upgrade qwen-managed`;
}

/** What the checks common to every host need: the install, its plan file and the pins. */
export interface InstallPinsInput {
  installDir: string;
  platform: Platform;
  manifest: InstallManifest;
  /** The launch plan's path in the tree (`profiles/<kind>/launch.json`) and the very bytes parsed. */
  planRel: string;
  planBytes: Uint8Array;
  /** The final install directory the plan names (pins inside it must be its checksummed files). */
  planInstallDir: string;
  pins: readonly Pin[];
  /** The plan's PATH: Qwen and OpenClaw run programs by name from it. */
  searchPath: string;
  fs: HostFs;
}

export interface InstallPinsResult {
  problems: string[];
  /** Each admin-owned pin that passed StrictModes (POSIX), by its pinned path: its real path. */
  realPaths: ReadonlyMap<string, string>;
}

/** Whether `file` is a symbolic link (absent or unreadable: false, the hash reports it). */
function isLink(fs: Pick<StrictModesFs, 'lstatSync'>, file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** What the checksum check reads: the tree, its manifest and the very bytes the plan was parsed from. */
export type InstallFilesInput = Pick<
  InstallPinsInput,
  'installDir' | 'platform' | 'manifest' | 'planRel' | 'planBytes'
> & {
  fs: ChunkReadFs & Pick<StrictModesFs, 'lstatSync'>;
};

/**
 * The plan and every file of the install against manifest.json: what the launcher refuses before
 * anything else, and what `qwen-managed plan` checks too (a plan of a tree the launcher refuses is no
 * plan). One line per problem, with the fix; `files` are the absolute paths of the listed files.
 */
export function installFileProblems(input: InstallFilesInput): { problems: string[]; files: string[] } {
  const { installDir, platform, manifest, planRel, fs } = input;
  const planFile = installPath(installDir, planRel, platform);
  const problems: string[] = [];
  const listed = new Set(Object.keys(manifest.files));
  const planEntry = manifest.files[planRel];
  if (planEntry === undefined) problems.push(`${show(planFile)} is not listed in manifest.json; re-render`);
  else if (sha256Hex(input.planBytes) !== planEntry.sha256) {
    problems.push(
      `${show(planFile)} does not match its sha256 in manifest.json (changed after render); re-render`,
    );
  }
  if (!listed.has(runtimeRel(RUNTIME_FILES.launcher))) {
    problems.push(`the launcher runtime/${RUNTIME_FILES.launcher} is not listed in manifest.json; re-render`);
  }
  const installFiles: string[] = [installPath(installDir, MANIFEST_FILE, platform)];
  if (isLink(fs, installFiles[0]!)) {
    problems.push(
      `${show(installFiles[0]!)} is a symbolic link, not the file render wrote (an install holds no links); re-render the deployment`,
    );
  }
  for (const [rel, entry] of Object.entries(manifest.files)) {
    if (!safeRel(rel)) {
      problems.push(`manifest.json lists ${show(rel)}, which is not a plain relative path; re-render`);
      continue;
    }
    const file = installPath(installDir, rel, platform);
    installFiles.push(file);
    // An install holds the regular files render wrote, as verify says (files.irregular): a link in
    // it is refused here too, whatever it leads to.
    if (isLink(fs, file)) {
      problems.push(
        `${show(file)} is a symbolic link, not the file render wrote (an install holds no links); restore it or re-render the deployment`,
      );
      continue;
    }
    if (rel === planRel) continue;
    let sha256: string;
    try {
      sha256 = sha256OfFile(fs, file);
    } catch (error) {
      const why = errorCode(error) === 'ENOENT' ? 'is missing' : `cannot be read (${errorCode(error)})`;
      problems.push(`${show(file)} ${why}; restore it or re-render the deployment`);
      continue;
    }
    // Tampering is refused: every file of the install must be the one render wrote.
    if (sha256 !== entry.sha256) {
      problems.push(
        `${show(file)} does not match its sha256 in manifest.json (changed after render); restore it or re-render`,
      );
    }
  }
  return { problems, files: installFiles };
}

/**
 * The checks every launch makes, whatever it starts: the plan and every file of the install against
 * manifest.json, each pin (present, of its type, executable or readable where it must be, listed when
 * inside the install) and, on POSIX, StrictModes up every directory of the install files and the
 * admin-owned pins. One line per problem, in a stable order.
 */
export function installPinProblems(input: InstallPinsInput): InstallPinsResult {
  const { platform, manifest, fs } = input;
  const { problems, files: installFiles } = installFileProblems(input);
  const listed = new Set(Object.keys(manifest.files));
  const sep = platform === 'windows' ? '\\' : '/';
  for (const pin of input.pins) {
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
    if (pin.adminOwned && pin.path.startsWith(input.planInstallDir + sep)) {
      const rel = pin.path.slice(input.planInstallDir.length + 1).replaceAll('\\', '/');
      if (!listed.has(rel)) {
        problems.push(`${pin.what} ${show(pin.path)} is not listed in manifest.json; re-render`);
      }
    }
    let stat: HostStat;
    try {
      stat = fs.statSync(pin.path);
    } catch (error) {
      const code = errorCode(error);
      const why =
        code === 'ENOENT' || code === 'ENOTDIR'
          ? `does not exist; fix: ${pin.missing ?? 're-render the deployment'}`
          : `cannot be inspected (${code})`;
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
  // StrictModes needs POSIX owners and modes; on Windows ACLs decide and verify reports them.
  // Every pin is judged by what it resolves to: node runs a linked main script from its real path.
  const realPaths = new Map<string, string>();
  if (platform === 'posix') {
    const strict = new StrictModes(manifest.adminUid, fs);
    for (const file of installFiles) strict.checkChain(file);
    for (const pin of input.pins) {
      if (pin.adminOwned && pinnedPathProblem(pin.path, platform) === undefined) {
        const chain = strict.checkChain(pin.path);
        if (chain.kind === 'ok') realPaths.set(pin.path, chain.realPath);
      }
    }
    problems.push(...strict.problems());
    problems.push(...searchPathProblems(input.searchPath, manifest.adminUid, fs));
  }
  return { problems, realPaths };
}

/** Every host problem of the profile, in a stable order (empty: the launcher may start Qwen). */
export function installHostProblems(input: InstallHostInput): InstallHostResult {
  const { installDir, kind, platform, manifest, plan, fs } = input;
  const { problems, realPaths } = installPinProblems({
    installDir,
    platform,
    manifest,
    planRel: profileRel(kind, PROFILE_FILES.launchPlan),
    planBytes: input.planBytes,
    planInstallDir: plan.installDir,
    pins: pinsOf(plan, input.argv, input.externalContextActive, input.policy),
    searchPath: plan.environment.PATH,
    fs,
  });
  let qwenVersion: string | undefined;
  const realQwenCli = realPaths.get(plan.qwenCli);
  // Run through cli.js directly: cli-entry.js relaunches itself and can apply a self-update.
  const wrapper = qwenWrapperProblem(plan.qwenCli, realQwenCli, show);
  if (wrapper !== undefined) problems.push(wrapper);
  else if (platform === 'posix' && pinnedPathProblem(plan.qwenCli, platform) === undefined) {
    const qwen = qwenPackageCheck(
      realQwenCli ?? plan.qwenCli,
      manifest.adminUid,
      plan.qwenVersionsMissingSettings,
      fs,
      { path: plan.node, version: input.nodeVersion },
    );
    problems.push(...qwen.problems);
    qwenVersion = qwen.qwenVersion;
  }
  return { problems, ...(qwenVersion === undefined ? {} : { qwenVersion }) };
}

/**
 * What the launcher would refuse in the content of the profile's credential files, judged by its own
 * reader (readCredential): an empty file, a NUL byte. Never the value, its length or a prefix. A file
 * that cannot be read here is left to the pin checks (verify may run as another user).
 */
export function credentialContentProblems(
  plan: LaunchPlan,
  externalContextActive: boolean,
  fs: Pick<HostFs, 'readFileSync'>,
): string[] {
  const decoder = new TextDecoder();
  const problems: string[] = [];
  for (const [name, source] of routedCredentials(plan, externalContextActive, plan.platform)) {
    if (!('file' in source)) continue;
    const read = readCredential(name, source, {
      callerEnv: {},
      platform: plan.platform,
      readFile: (file) => decoder.decode(fs.readFileSync(file)),
    });
    if (read.ok) continue;
    if (read.problem === 'empty')
      problems.push(
        `credential file of ${name} ${show(source.file)} is empty, so the launcher refuses every start; write the secret into it (one line)`,
      );
    else if (read.problem === 'nul')
      problems.push(
        `credential file of ${name} ${show(source.file)} holds a NUL byte, which the environment cannot carry, so the launcher refuses every start; write only the secret into it`,
      );
    else if (read.problem === 'line-break')
      problems.push(
        `credential file of ${name} ${show(source.file)} holds a line break inside the secret, which no HTTP header can carry, so the launcher refuses every start; write only the secret, on one line, into it`,
      );
  }
  return problems;
}
