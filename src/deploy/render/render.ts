// renderInstall: deployment + runtime files → the whole install tree as DATA (relative path → bytes
// and mode) plus manifest.json. Pure: the caller supplies the runtime bytes, the previous manifest and
// tree (for rolled-back profiles), the clock and the admin uid; writer.ts applies the result.

import { AdminInputError } from '../../base/errors.js';
import { sha256Hex } from '../../base/hash.js';
import type { Platform } from '../../base/platform.js';
import { BROKER_CONFIG_REL, BROKER_SYSTEMD_REL } from '../../contracts/broker.js';
import type { InstallManifest } from '../../contracts/install-manifest.js';
import { type AnyProfileKind, OPENCLAW_PROFILE, type ProfileKind } from '../../contracts/launch-plan.js';
import {
  BIN_FILES,
  OPENCLAW_PROFILE_FILES,
  PinnedLayout,
  PROFILE_FILES,
  profileRel,
  runtimeRel,
} from '../../contracts/layout.js';
import { EXTERNAL_CONTEXT_HOOKS } from '../../contracts/names.js';
import {
  OPENCLAW_PLUGIN_BUNDLE,
  RUNTIME_CODE_CACHES,
  RUNTIME_FILES,
  RUNTIME_MODULE_MARKER,
} from '../../contracts/runtime-files.js';
import type { JsonObject } from '../../text/json.js';
import { routeCredentials } from '../deployment/credential-routes.js';
import { deployedKinds } from '../deployment/kinds.js';
import type { ParsedDeployment } from '../deployment/parse.js';
import { renderJson } from '../json.js';
import { removeHooksFromText } from '../jsonc/remove-hooks.js';
import { renderBroker, systemdDropIn } from './broker.js';
import { buildManifest, manifestText, type ProfileState } from './manifest.js';
import { openclawProfileFiles, pluginPackageFiles, withoutPlugin } from './openclaw.js';
import { renderProfile } from './profile.js';
import { parseRollbackRecord, type RollbackRecord, rollbackRecordText } from './rollback-record.js';
import { posixShim, windowsShims } from './shims.js';
import { EXECUTABLE_MODE, FILE_MODE, type RenderedFile } from './types.js';

export interface PreviousInstall {
  manifest: InstallManifest;
  /** Files of the previous tree by relative path (only rolled-back profiles' files are read). */
  files: ReadonlyMap<string, Uint8Array>;
}

export interface RenderOptions {
  toolkitVersion: string;
  adminUid: number;
  /** ISO time used for `changedAt` of profiles whose state changes. */
  now: string;
  previous?: PreviousInstall;
  /** Re-activate rolled-back profiles (a rollback is an emergency decision: never undone silently). */
  reactivate?: boolean;
  /** The absolute path of deployment.json, recorded as the tree's owner. */
  deploymentFile?: string;
  /** Render over a tree another deployment.json owns, retiring its profiles (`render --take-over`). */
  takeOver?: boolean;
  /**
   * The pinned Qwen package's version where render reads it (on the target machine): its per-version
   * facts (the hook timeout's unit) are rendered; the default version's without it.
   */
  qwenVersion?: string;
}

export interface RenderedInstall {
  /** Every file of the tree except manifest.json, by relative path (sorted). */
  files: Map<string, RenderedFile>;
  manifest: InstallManifest;
  manifestText: string;
  /** One line per decision the administrator should see (a profile kept rolled back, …). */
  notices: string[];
}

export class RenderError extends AdminInputError {
  override readonly name = 'RenderError';
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** bin/ shims by file name (their text comes from the launcher, which owns their format). */
export function shimsFor(platform: Platform, node: string, launcherJs: string): Map<string, string> {
  if (platform === 'posix') return new Map([[BIN_FILES.posix[0]!, posixShim({ node, launcherJs })]]);
  const { ps1, cmd } = windowsShims({ node, launcherJs });
  return new Map([
    ['launch-qwen.ps1', ps1],
    ['launch-qwen.cmd', cmd],
  ]);
}

/** The runtime files render needs, by file name (module marker excluded: render writes it). */
export function requiredRuntimeFiles(): string[] {
  return Object.values(RUNTIME_FILES).sort();
}

function rollbackRecordOf(kind: AnyProfileKind, previous: PreviousInstall): RollbackRecord {
  const bytes = previous.files.get(profileRel(kind, PROFILE_FILES.rollbackRecord));
  if (bytes === undefined) return { version: 1, removedHooks: [...EXTERNAL_CONTEXT_HOOKS].sort() };
  const record = parseRollbackRecord(decode(bytes));
  if (record === undefined) {
    throw new RenderError(
      `${profileRel(kind, PROFILE_FILES.rollbackRecord)} is not a valid rollback record; run rollback again or render --reactivate`,
    );
  }
  return record;
}

/** A rolled-back profile: the fresh files with the recorded rollback applied again. */
function applyRollback(
  kind: ProfileKind,
  files: Map<string, string | Uint8Array>,
  previous: PreviousInstall,
): void {
  const record = rollbackRecordOf(kind, previous);
  const names = [...new Set([...EXTERNAL_CONTEXT_HOOKS, ...record.removedHooks])];
  const settings = files.get(PROFILE_FILES.systemSettings) as string;
  files.set(PROFILE_FILES.systemSettings, removeHooksFromText(settings, names).text);
  if (record.restoredConfigSha256 !== undefined) {
    const rel = profileRel(kind, PROFILE_FILES.providerConfig);
    const restored = previous.files.get(rel);
    if (restored === undefined || sha256Hex(restored) !== record.restoredConfigSha256) {
      throw new RenderError(
        `${rel} no longer holds the provider config restored by rollback; restore it again or render --reactivate`,
      );
    }
    files.set(PROFILE_FILES.providerConfig, restored);
  }
  files.set(PROFILE_FILES.rollbackRecord, rollbackRecordText(record));
}

export function renderInstall(
  parsed: ParsedDeployment,
  runtimeFiles: ReadonlyMap<string, Uint8Array>,
  options: RenderOptions,
): RenderedInstall {
  const { deployment } = parsed;
  const { routes, problems } = routeCredentials(deployment);
  if (problems.length > 0) throw new RenderError('credential routing failed; parse the deployment first');
  const layout = new PinnedLayout(deployment.platform, deployment.installDir);
  const out = new Map<string, RenderedFile>();
  const notices: string[] = [];

  for (const [name, text] of shimsFor(
    deployment.platform,
    deployment.node,
    layout.runtime(RUNTIME_FILES.launcherStart),
  )) {
    out.set(`bin/${name}`, { bytes: utf8(text), mode: EXECUTABLE_MODE });
  }

  const missing = requiredRuntimeFiles().filter((name) => !runtimeFiles.has(name));
  if (missing.length > 0) {
    throw new RenderError(`the runtime directory lacks ${missing.join(', ')}; run \`npm run build\` first`);
  }
  for (const name of requiredRuntimeFiles())
    out.set(runtimeRel(name), { bytes: runtimeFiles.get(name)!, mode: FILE_MODE });
  // Made by the caller with the pinned node (runtime-files.ts withCodeCache); empty means none.
  for (const cache of Object.values(RUNTIME_CODE_CACHES)) {
    out.set(runtimeRel(cache.file), {
      bytes: runtimeFiles.get(cache.file) ?? new Uint8Array(),
      mode: FILE_MODE,
    });
  }
  out.set(runtimeRel(RUNTIME_MODULE_MARKER.file), {
    bytes: utf8(RUNTIME_MODULE_MARKER.content),
    mode: FILE_MODE,
  });

  const broker = renderBroker(deployment, options.qwenVersion);
  if (broker !== undefined) {
    out.set(BROKER_CONFIG_REL, { bytes: utf8(renderJson(broker.config)), mode: FILE_MODE });
    out.set(BROKER_SYSTEMD_REL, { bytes: utf8(systemdDropIn(deployment, broker.config)), mode: FILE_MODE });
  }

  const states = new Map<AnyProfileKind, ProfileState>();
  for (const kind of deployedKinds(deployment)) {
    const files: Map<string, string | Uint8Array> = renderProfile(
      kind,
      deployment,
      routes.get(kind)!,
      options.qwenVersion,
    );
    const before = options.previous?.manifest.profiles[kind]?.state;
    let state: ProfileState = 'active';
    if (before === 'rolled-back' && options.previous !== undefined) {
      if (options.reactivate === true) notices.push(`profile ${kind}: re-activated (was rolled back)`);
      else {
        state = 'rolled-back';
        applyRollback(kind, files, options.previous);
        notices.push(
          `profile ${kind}: stays rolled back; render --reactivate to restore its external context`,
        );
      }
    }
    states.set(kind, state);
    for (const [file, content] of files) {
      out.set(profileRel(kind, file), {
        bytes: typeof content === 'string' ? utf8(content) : content,
        mode: FILE_MODE,
      });
    }
  }
  if (deployment.profiles[OPENCLAW_PROFILE] !== undefined) {
    renderOpenclaw(parsed, runtimeFiles, options, { out, states, notices, routes });
  }
  const retiring = Object.keys(options.previous?.manifest.profiles ?? {}).filter(
    (kind) => !states.has(kind as AnyProfileKind),
  );
  const owner = options.previous?.manifest.deploymentFile;
  // Two deployment files aimed at one installDir would silently retire each other's profiles.
  if (
    retiring.length > 0 &&
    owner !== undefined &&
    options.deploymentFile !== undefined &&
    owner !== options.deploymentFile &&
    options.takeOver !== true
  ) {
    throw new RenderError(
      `${deployment.installDir} belongs to another deployment, ${owner} (profiles ${Object.keys(options.previous!.manifest.profiles).join(', ')}); rendering ${options.deploymentFile} there would retire ${retiring.join(', ')}. Fix: give this deployment its own "installDir", render ${owner} instead, or pass --take-over if this file replaces it`,
    );
  }
  for (const kind of retiring)
    notices.push(`profile ${kind}: removed from deployment.json; its files are retired to backups/`);

  const sorted = new Map([...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const manifest = buildManifest({
    toolkitVersion: options.toolkitVersion,
    deploymentSha256: parsed.sha256,
    adminUid: options.adminUid,
    ...(options.deploymentFile === undefined ? {} : { deploymentFile: options.deploymentFile }),
    files: sorted,
    states,
    previous: options.previous?.manifest,
    now: options.now,
  });
  return { files: sorted, manifest, manifestText: manifestText(manifest), notices };
}

/** The openclaw-recall profile: its plugin package and files, kept rolled back like a Qwen profile. */
function renderOpenclaw(
  parsed: ParsedDeployment,
  runtimeFiles: ReadonlyMap<string, Uint8Array>,
  options: RenderOptions,
  into: {
    out: Map<string, RenderedFile>;
    states: Map<AnyProfileKind, ProfileState>;
    notices: string[];
    routes: ReturnType<typeof routeCredentials>['routes'];
  },
): void {
  const { deployment } = parsed;
  const bundle = runtimeFiles.get(OPENCLAW_PLUGIN_BUNDLE);
  if (bundle === undefined) {
    throw new RenderError(
      `the runtime directory lacks ${OPENCLAW_PLUGIN_BUNDLE}; run \`npm run build\` first`,
    );
  }
  for (const [rel, content] of pluginPackageFiles(options.toolkitVersion, bundle)) {
    into.out.set(rel, { bytes: typeof content === 'string' ? utf8(content) : content, mode: FILE_MODE });
  }
  const files: Map<string, string> = openclawProfileFiles(deployment, into.routes.get(OPENCLAW_PROFILE)!);
  let state: ProfileState = 'active';
  const before = options.previous?.manifest.profiles[OPENCLAW_PROFILE]?.state;
  if (before === 'rolled-back' && options.previous !== undefined) {
    if (options.reactivate === true)
      into.notices.push(`profile ${OPENCLAW_PROFILE}: re-activated (was rolled back)`);
    else {
      state = 'rolled-back';
      const record = rollbackRecordOf(OPENCLAW_PROFILE, options.previous);
      const pluginDir = new PinnedLayout(deployment.platform, deployment.installDir).openclawPluginDir;
      const config = JSON.parse(files.get(OPENCLAW_PROFILE_FILES.config)!) as JsonObject;
      files.set(OPENCLAW_PROFILE_FILES.config, renderJson(withoutPlugin(config, pluginDir)));
      files.set(OPENCLAW_PROFILE_FILES.rollbackRecord, rollbackRecordText(record));
      into.notices.push(
        `profile ${OPENCLAW_PROFILE}: stays rolled back; render --reactivate to restore its external context`,
      );
    }
  }
  into.states.set(OPENCLAW_PROFILE, state);
  for (const [file, text] of files) {
    into.out.set(profileRel(OPENCLAW_PROFILE, file), { bytes: utf8(text), mode: FILE_MODE });
  }
}
