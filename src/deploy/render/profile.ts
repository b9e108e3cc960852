// The files of one profile, rendered from the templates with JSON-aware substitution.
import * as path from 'node:path';
import { HOOK_TIMEOUT_MS, MCP_TIMEOUT_MS, SECURITY_HOOK_TIMEOUT_MS } from '../../base/limits.js';
import type { Platform } from '../../base/platform.js';
import { credentialVariable } from '../../config/names.js';
import type { ProfileKind, RepositoryTrust } from '../../contracts/launch-plan.js';
import {
  installIdFor,
  PinnedLayout,
  PROFILE_FILES,
  pinnedFiles,
  renderedProfileFiles,
  usesMcp,
} from '../../contracts/layout.js';
import { PERMISSION_REMEMBER } from '../../contracts/names.js';
import { RUNTIME_FILES } from '../../contracts/runtime-files.js';
import { ARGUMENT_POLICY } from '../../policy/policies.js';
import { hookTimeoutValue, pinnedQwenFacts } from '../../qwen/versions.js';
import type { JsonObject } from '../../text/json.js';
import type { ProfileCredentials } from '../deployment/credential-routes.js';
import { providerConfigFor } from '../deployment/provider-config.js';
import type { Deployment } from '../deployment/schema.js';
import { managedBaseSettings, mergeSettings, qwenVersionsMissing } from '../deployment/settings.js';
import { renderJson, sortedKeys } from '../json.js';
import { OMIT, substitute, type TemplateValues } from '../templates/substitute.js';
import { TEMPLATES } from '../templates/templates.js';
import { brokeredSettings, launchBroker, renderBroker } from './broker.js';
import { HOOK_SHELL, hookCommand } from './commands.js';

/** The guard's matcher: every tool, except context_remember in the write profile (it already asks). */
export function guardMatcher(kind: ProfileKind): string {
  // Qwen 0.24.4 hook matchers are regular expressions (anything but `*` and exact names goes through
  // `new RegExp(matcher).test(toolName)`); the negative lookahead excludes exactly one tool name.
  return kind === 'write' ? `^(?!${PERMISSION_REMEMBER.replaceAll('.', '\\.')}$).*` : '*';
}

function sortedRecord<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key]!;
  return out;
}

/**
 * The template values that follow from the pins alone: the node, the runtime folder, each runtime
 * and its hook command. Verify rebuilds its expectations from a launch plan's pins with them.
 */
export function pinnedValues(pins: {
  platform: Platform;
  installDir: string;
  node: string;
  /** The pinned Qwen package's version, when it was read (the default version's facts otherwise). */
  qwenVersion?: string | undefined;
}): Record<string, unknown> {
  const layout = new PinnedLayout(pins.platform, pins.installDir);
  const values: Record<string, unknown> = {
    node: pins.node,
    runtimeDir: layout.runtimeDir,
    // The platform-specific part of the one template per profile: the hook entries' shell.
    hookShell: HOOK_SHELL[pins.platform] ?? OMIT,
    // The unit is a per-version fact of the pinned Qwen: 0.24.x reads seconds and warns about the legacy ms form.
    hookTimeout: hookTimeoutValue(pinnedQwenFacts(pins.qwenVersion), HOOK_TIMEOUT_MS),
    // The guard's and the write confirmation's: a timeout there lets the tool call run unasked.
    securityHookTimeout: hookTimeoutValue(pinnedQwenFacts(pins.qwenVersion), SECURITY_HOOK_TIMEOUT_MS),
    mcpTimeoutMs: MCP_TIMEOUT_MS,
  };
  for (const file of Object.values(RUNTIME_FILES)) {
    values[`runtime:${file}`] = layout.runtime(file);
    values[`hookCommand:${file}`] = hookCommand(pins.platform, pins.node, layout.runtime(file));
  }
  return values;
}

/** What a profile adds to Qwen's argv for external context: its MCP config, if it has the server. */
export function externalContextArgv(kind: ProfileKind, layout: PinnedLayout): string[] {
  return usesMcp(kind)
    ? [ARGUMENT_POLICY.managed.mcpConfigFlag, layout.profileFile(kind, PROFILE_FILES.mcpConfig)]
    : [];
}

export function templateValues(
  kind: ProfileKind,
  deployment: Deployment,
  credentials: ProfileCredentials,
  qwenVersion?: string,
): TemplateValues {
  const layout = new PinnedLayout(deployment.platform, deployment.installDir);
  const broker = renderBroker(deployment, qwenVersion);
  const values: Record<string, unknown> = {
    ...pinnedValues({ ...deployment, qwenVersion }),
    profile: kind,
    platform: deployment.platform,
    installDir: deployment.installDir,
    installId: installIdFor(deployment.installDir),
    qwenCli: deployment.qwenCli,
    repositoryRoot: deployment.repositoryRoot,
    argv: [...ARGUMENT_POLICY.managed.all],
    'environment.PATH': deployment.environment.PATH,
    'environment.inherit': [...deployment.environment.inherit],
    'environment.set': sortedRecord(deployment.environment.set),
    'environment.files': pinnedFiles(layout, kind, deployment.tls?.extraCaCertificates),
    'environment.fromFiles': [...deployment.environment.fromFiles],
    repositoryTrust: deployment.profiles[kind]!.repositoryTrust,
    // Sorted, so re-ordering deployment.json is not drift; absent when the deployment names none.
    developers:
      deployment.developers === undefined
        ? OMIT
        : {
            users: [...deployment.developers.users].sort(),
            groups: [...deployment.developers.groups].sort(),
          },
    // With a broker the launcher reads no credential: the session gets the public key instead.
    broker:
      broker === undefined
        ? OMIT
        : launchBroker(broker, kind, credentialVariable(deployment.profiles[kind]!.provider)),
    credentials: broker === undefined ? sortedRecord(credentials.all) : {},
    'externalContext.argv': externalContextArgv(kind, layout),
    'externalContext.credentials': [...credentials.external],
    'guard.matcher': guardMatcher(kind),
    'guard.modes': deployment.approvalGuard === false ? '' : deployment.approvalGuard.modes.join(','),
  };
  for (const file of Object.values(PROFILE_FILES))
    values[`profileFile:${file}`] = layout.profileFile(kind, file);
  return values;
}

export function systemSettingsFor(
  kind: ProfileKind,
  deployment: Deployment,
  values: TemplateValues,
  qwenVersion?: string,
): JsonObject {
  const broker = renderBroker(deployment, qwenVersion);
  const settings0 =
    deployment.settings === undefined || broker === undefined
      ? deployment.settings
      : brokeredSettings(deployment.settings, broker);
  const extra = settings0 === undefined ? undefined : (sortedKeys(settings0) as JsonObject);
  let settings = mergeSettings(
    managedBaseSettings(extra),
    substitute(TEMPLATES.systemSettings[kind], values) as JsonObject,
  );
  if (deployment.approvalGuard !== false) {
    const guard = substitute(TEMPLATES.approvalGuard, values);
    settings = mergeSettings(settings, { hooks: { PreToolUse: [guard] } });
  }
  return settings;
}

/**
 * The pinned trusted-folders file: folder trust is on (managed baseline), the filesystem root is
 * DO_NOT_TRUST — so no directory above the repository is ever trusted and Qwen skips their `.env`
 * files — and the repository gets the deployment's decision. Every folder Qwen can start in then
 * has an explicit rule, so Qwen never asks "Do you trust this folder?" (it would try to write here).
 */
export function trustedFoldersFor(
  platform: Platform,
  repositoryRoot: string,
  trust: RepositoryTrust,
): Record<string, string> {
  const root = (platform === 'windows' ? path.win32 : path.posix).parse(repositoryRoot).root;
  return { [root]: 'DO_NOT_TRUST', [repositoryRoot]: trust === 'trusted' ? 'TRUST_FOLDER' : 'DO_NOT_TRUST' };
}

/** File name → text for an active profile (no rollback applied). */
export function renderProfile(
  kind: ProfileKind,
  deployment: Deployment,
  credentials: ProfileCredentials,
  qwenVersion?: string,
): Map<string, string> {
  const values = templateValues(kind, deployment, credentials, qwenVersion);
  const settings = systemSettingsFor(kind, deployment, values, qwenVersion);
  const documents: Record<string, unknown> = {
    [PROFILE_FILES.systemSettings]: settings,
    [PROFILE_FILES.systemDefaults]: substitute(TEMPLATES.systemDefaults, values),
    [PROFILE_FILES.trustedFolders]: trustedFoldersFor(
      deployment.platform,
      deployment.repositoryRoot,
      deployment.profiles[kind]!.repositoryTrust,
    ),
    [PROFILE_FILES.providerConfig]: providerConfigFor(kind, deployment),
    [PROFILE_FILES.launchPlan]: substitute(TEMPLATES.launchPlan, {
      ...values,
      qwenVersionsMissingSettings: qwenVersionsMissing(settings),
    }),
  };
  if (usesMcp(kind)) {
    documents[PROFILE_FILES.mcpConfig] = substitute(
      TEMPLATES.mcpConfig[kind as 'on-demand' | 'write'],
      values,
    );
  }
  const files = new Map<string, string>();
  for (const file of renderedProfileFiles(kind)) files.set(file, renderJson(documents[file]));
  return files;
}
