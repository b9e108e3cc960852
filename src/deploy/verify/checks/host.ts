// Facts about this machine (gathered by the I/O layer): the pinned node, Qwen, repository root,
// credential files and the private CA file. A staged tree is verified where those may not exist yet,
// so absence is a warning; anything present but wrong (a group-writable node, a directory where a
// file belongs) is an error, because the launcher refuses it. On the real install the launcher's own
// checks (host.install) judge existence, type, owners and modes; only the advice below is added.

import type { LaunchPlan } from '../../../contracts/launch-plan.js';
import { EXTRA_CA_VARIABLE } from '../../../contracts/layout.js';
import { satisfiesEngines } from '../../../host/node-engines.js';
import type { QwenPackageFact } from '../../../host/qwen-package.js';
import { nodeEnginesProblem, qwenWrapperProblem } from '../../../host/qwen-pins.js';
import { GROUP_OR_OTHER_WRITE } from '../../../host/strict-modes.js';
import { posixQuote, show } from '../../../policy/quote.js';
import { DEFAULT_QWEN_VERSION, qwenVersionFacts } from '../../../qwen/versions.js';
import { showValue } from '../../json.js';
import type { Checks } from '../report.js';
import type { TreeView } from '../view.js';

export interface HostStat {
  kind: 'file' | 'directory' | 'other';
  /** Permission bits. */
  mode: number;
  /** Owner (POSIX). */
  uid?: number;
  /** For the pinned node: what `node --version` printed. */
  version?: string;
}

/** Absolute path → its stat on this machine, or null when absent. */
export type HostFacts = ReadonlyMap<string, HostStat | null>;

/** The CA files the plans pin (deployment.json `tls`), sorted. */
export function extraCaFiles(plans: readonly LaunchPlan[]): string[] {
  const files = new Set<string>();
  for (const plan of plans) {
    const file = plan.environment.files[EXTRA_CA_VARIABLE];
    if (file !== undefined) files.add(file);
  }
  return [...files].sort();
}

export function hostPaths(plans: readonly LaunchPlan[]): string[] {
  const paths = new Set<string>(extraCaFiles(plans));
  for (const plan of plans) {
    paths.add(plan.node);
    paths.add(plan.qwenCli);
    paths.add(plan.cwd);
    for (const source of Object.values(plan.credentials)) if ('file' in source) paths.add(source.file);
  }
  return [...paths].sort();
}

type Want = 'executable' | 'file' | 'directory' | 'credential' | 'certificates';

function problemsFor(
  label: string,
  path: string,
  stat: HostStat | null | undefined,
  want: Want,
  posix: boolean,
  adminUid: number,
  real: boolean,
) {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (stat === undefined || (real && stat === null)) return { errors, warnings };
  if (stat === null) {
    warnings.push(
      `${label} ${showValue(path)} does not exist on this machine (fine for a staged tree; the launcher refuses to start until it does)`,
    );
    return { errors, warnings };
  }
  const wantDir = want === 'directory';
  if (wantDir ? stat.kind !== 'directory' : stat.kind !== 'file') {
    if (!real) errors.push(`${label} ${showValue(path)} is not a ${wantDir ? 'directory' : 'regular file'}`);
    return { errors, warnings };
  }
  if (!posix || wantDir) return { errors, warnings };
  // The real install: host.install reports owners, modes and executability with the launcher's words.
  if (real) return { errors, warnings: advice(label, path, stat, want) };
  // StrictModes, as the launcher applies it: only root or the administrator who rendered may own a pin.
  if (stat.uid !== undefined && stat.uid !== 0 && stat.uid !== adminUid) {
    const trusted = adminUid === 0 ? 'root' : `root or the administrator (uid ${adminUid})`;
    errors.push(
      `${label} ${showValue(path)} is owned by uid ${stat.uid}, not ${trusted}; the launcher refuses it; fix: chown root ${posixQuote(path)}`,
    );
  }
  // StrictModes, as the launcher applies it: an admin-owned pin writable by others could be swapped.
  if ((stat.mode & GROUP_OR_OTHER_WRITE) !== 0)
    errors.push(
      `${label} ${showValue(path)} is writable by group or others (mode ${stat.mode.toString(8)}); the launcher refuses it`,
    );
  if (want === 'executable' && (stat.mode & 0o111) === 0)
    errors.push(`${label} ${showValue(path)} is not executable`);
  warnings.push(...advice(label, path, stat, want));
  return { errors, warnings };
}

/** What the launcher accepts but an administrator should still change. */
function advice(label: string, path: string, stat: HostStat, want: Want): string[] {
  const warnings: string[] = [];
  // Qwen runs as the developer, and Node skips a CA file it cannot read (one warning on stderr).
  if (want === 'certificates' && (stat.mode & 0o004) === 0) {
    warnings.push(
      `${label} ${showValue(path)} is not readable by every user (mode ${stat.mode.toString(8)}); the launcher refuses to start for a developer who cannot read it; certificates are public: chmod 0644, unless only its group may launch`,
    );
  }
  if (want === 'credential' && (stat.mode & 0o004) !== 0) {
    warnings.push(
      `${label} ${showValue(path)} is readable by every user on this machine (mode ${stat.mode.toString(8)}); prefer 0640 with a group`,
    );
  }
  return warnings;
}

export function checkHost(
  view: TreeView,
  facts: HostFacts,
  checks: Checks,
  options: {
    real: boolean;
    /** The Qwen package around the pinned qwenCli's real path, walked on this machine. */
    qwen?: QwenPackageFact;
    /** The pinned qwenCli's real path on this machine (links resolved). */
    qwenCliReal?: string;
  } = { real: false },
): void {
  const plan = view.profiles.find((p) => p.plan !== undefined)?.plan;
  if (plan === undefined) return;
  const posix = plan.platform === 'posix';
  const items: [string, string, Want][] = [
    ['node', plan.node, 'executable'],
    ['qwenCli', plan.qwenCli, 'file'],
    ['repository root', plan.cwd, 'directory'],
  ];
  const credentials = new Map<string, Set<string>>();
  for (const p of view.profiles) {
    for (const [name, source] of Object.entries(p.plan?.credentials ?? {})) {
      if ('file' in source)
        credentials.set(source.file, (credentials.get(source.file) ?? new Set()).add(name));
    }
  }
  for (const [file, names] of credentials)
    items.push([`credential file of ${[...names].sort().join(', ')}`, file, 'credential']);
  const plans = view.profiles.flatMap((p) => (p.plan === undefined ? [] : [p.plan]));
  for (const file of extraCaFiles(plans)) items.push(['CA file (NODE_EXTRA_CA_CERTS)', file, 'certificates']);
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const [label, path, want] of items) {
    const adminUid = view.tree.manifest?.adminUid ?? 0;
    const found = problemsFor(label, path, facts.get(path), want, posix, adminUid, options.real);
    errors.push(...found.errors);
    warnings.push(...found.warnings);
  }
  const version = facts.get(plan.node)?.version;
  const qwen = options.qwen?.kind === 'walked' && options.qwen.qwenPackage ? options.qwen : undefined;
  if (!options.real) {
    // The launcher's own rules, by the pin's resolved target (on the real install host.install has them).
    // Whole paths (show), as the launcher prints them: a cut path would hide which file to fix.
    const wrapper = qwenWrapperProblem(plan.qwenCli, options.qwenCliReal, show);
    if (wrapper !== undefined) errors.push(wrapper);
    const engines = qwen === undefined ? undefined : nodeEnginesProblem(plan.node, version, qwen, show);
    if (engines !== undefined) errors.push(engines);
  }
  if (qwen === undefined && version !== undefined) {
    // No Qwen package here to read (a staged tree, the demo's placeholder): the pinned version's published fact.
    const facts = qwenVersionFacts(DEFAULT_QWEN_VERSION)!;
    if (satisfiesEngines(version, facts.nodeEngines) === false)
      warnings.push(
        `node ${showValue(plan.node)} is ${version}; Qwen Code ${facts.version} declares engines.node ${showValue(facts.nodeEngines)} (no Qwen package here to read: render, verify and the launcher refuse it where there is one); pin a Node 22 binary`,
      );
  }
  // The real install's verdict is host.install's; a pass line here would only repeat it.
  if (!options.real)
    checks.expect('host.pins', {}, errors, 'pinned files on this machine are usable by the launcher');
  for (const warning of warnings) checks.add('host.pins', {}, false, warning, 'warning');
}
