// The per-version facts about OpenClaw (policies/openclaw/versions.json): which versions the
// openclaw-recall profile supports, the Node each needs, and what render, verify and the launcher
// depend on. Measured facts and how they were measured: docs/openclaw.md.
import versions from '../../policies/openclaw/versions.json' with { type: 'json' };

interface VersionEntry {
  /** The Node versions OpenClaw's `engines` accepts that we support: >= min and below the major. */
  node: { min: string; belowMajor: number };
  /** The command after `openclaw.mjs` a managed session runs (one embedded turn, message on stdin). */
  managedArgv: readonly string[];
  /** What the launcher sets last in OpenClaw's environment (read-only config, no self-update, …). */
  environment: Readonly<Record<string, string>>;
  /** Files of the OpenClaw package (relative to it) that say its install scripts have not run yet. */
  unfinishedInstallMarkers: readonly string[];
  /** Entries of the per-user state directory that would change the managed session: name → why. */
  refusedInStateDir: Readonly<Record<string, string>>;
  /** The agent's session database in the state directory, and the stored entry keys that outrank openclaw.json: key → why. */
  sessionStore: {
    /** Relative to the state directory; `{agent}` is the managed argv's agent. */
    database: string;
    refusedEntryKeys: Readonly<Record<string, string>>;
  };
}

export interface OpenclawVersionFacts extends VersionEntry {
  version: string;
}

const VERSIONS = versions.versions as unknown as Readonly<Record<string, VersionEntry>>;

/** The version every deployment is rendered for until a version is pinned per deployment. */
export const DEFAULT_OPENCLAW_VERSION = '2026.9.6';

export function openclawVersionFacts(version: string): OpenclawVersionFacts | undefined {
  if (!Object.hasOwn(VERSIONS, version)) return undefined;
  return { version, ...VERSIONS[version]! };
}

function parseVersion(text: string): [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])];
}

/**
 * Why `nodeVersion` (as `node --version` prints it) cannot run OpenClaw `facts.version`, or undefined
 * when it can.
 */
export function unsupportedNodeReason(facts: OpenclawVersionFacts, nodeVersion: string): string | undefined {
  const got = parseVersion(nodeVersion);
  const min = parseVersion(facts.node.min)!;
  const need = `Node >= ${facts.node.min} and < ${facts.node.belowMajor}`;
  if (got === undefined)
    return `its version ${JSON.stringify(nodeVersion)} is not a Node version; OpenClaw ${facts.version} needs ${need}`;
  const below =
    got[0] < min[0] || (got[0] === min[0] && (got[1] < min[1] || (got[1] === min[1] && got[2] < min[2])));
  if (below || got[0] >= facts.node.belowMajor)
    return `is v${got.join('.')}; OpenClaw ${facts.version} needs ${need}`;
  return undefined;
}
