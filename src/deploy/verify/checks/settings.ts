// system-settings.json of every profile: the managed baseline key by key, the managed hooks (present
// and exact while active, absent once rolled back, nothing foreign), profile exclusivity (MCP
// exclusion, permissions), plus system-defaults.json and trusted-folders.json.

import { HOOK_BUDGET_MS, HOOK_TIMEOUT_MS, SECURITY_HOOK_TIMEOUT_MS } from '../../../base/limits.js';
import type { LaunchPlan, ProfileKind } from '../../../contracts/launch-plan.js';
import { PROFILE_FILES, profileRel } from '../../../contracts/layout.js';
import {
  DEFAULT_GUARD_MODES,
  GUARD_MODES_ENV,
  HOOK_APPROVAL_GUARD,
  HOOK_AUTO_RECALL,
  HOOK_WRITE_CONFIRMATION,
  MCP_SERVER_NAME,
} from '../../../contracts/names.js';
import { SETTINGS_BASELINE } from '../../../policy/policies.js';
import { pinnedQwenFacts } from '../../../qwen/versions.js';
import { isPlainObject, type JsonObject } from '../../../text/json.js';
import { GUARD_MODES } from '../../deployment/schema.js';
import { deepEqual, getPath, showValue } from '../../json.js';
import { guardMatcher, pinnedValues, trustedFoldersFor } from '../../render/profile.js';
import { substitute } from '../../templates/substitute.js';
import { TEMPLATES } from '../../templates/templates.js';
import type { Checks } from '../report.js';
import type { ProfileView, TreeView } from '../view.js';

const EXTERNAL_HOOK: Readonly<Record<ProfileKind, string | undefined>> = {
  'on-demand': undefined,
  'auto-recall': HOOK_AUTO_RECALL,
  write: HOOK_WRITE_CONFIRMATION,
};
const OWNER: Readonly<Record<string, ProfileKind | undefined>> = {
  [HOOK_AUTO_RECALL]: 'auto-recall',
  [HOOK_WRITE_CONFIRMATION]: 'write',
};

interface Pins {
  platform: LaunchPlan['platform'];
  node: string;
  installDir: string;
  /** The pinned Qwen package's version on this machine, when it was read. */
  qwenVersion?: string;
}

interface ManagedHook {
  event: string;
  matcher: unknown;
  entry: JsonObject;
}

/** The hook commands and guard values the templates expect for these pins. */
function expectations(kind: ProfileKind, pins: Pins, guardModes: string) {
  const values = { ...pinnedValues(pins), 'guard.matcher': guardMatcher(kind), 'guard.modes': guardModes };
  const profile = substitute(TEMPLATES.systemSettings[kind], values) as JsonObject;
  const guard = substitute(TEMPLATES.approvalGuard, values) as JsonObject;
  const managed = new Map<string, ManagedHook>();
  const collect = (event: string, group: JsonObject) => {
    for (const entry of group.hooks as JsonObject[])
      managed.set(entry.name as string, { event, matcher: group.matcher, entry });
  };
  for (const [event, groups] of Object.entries((profile.hooks ?? {}) as JsonObject)) {
    for (const group of groups as JsonObject[]) collect(event, group);
  }
  collect('PreToolUse', guard);
  return { profile, managed };
}

function entryProblems(name: string, actual: JsonObject, expected: JsonObject, pins: Pins): string[] {
  const problems: string[] = [];
  if (
    pins.platform === 'posix' &&
    typeof actual.command === 'string' &&
    !actual.command.startsWith('exec ')
  ) {
    problems.push(
      `hook ${name}: command must start with \`exec\` so Node replaces the shell (found ${showValue(actual.command, 200)})`,
    );
  }
  for (const key of Object.keys(expected)) {
    if (key === 'timeout' && actual.timeout !== expected.timeout) {
      problems.push(
        `hook ${name}: timeout ${showValue(actual.timeout)} must be ${String(expected.timeout)} (${timeoutWhy(name, pins)})`,
      );
    } else if (!deepEqual(actual[key], expected[key])) {
      problems.push(
        `hook ${name}: ${key} must be ${showValue(expected[key], 200)} (found ${showValue(actual[key], 200)})`,
      );
    }
  }
  for (const key of Object.keys(actual)) {
    if (!Object.hasOwn(expected, key))
      problems.push(`hook ${name}: unexpected key ${showValue(key)} (managed hook entries are exact)`);
  }
  return problems;
}

/** Why a managed hook's timeout is what render sets, in the unit the pinned Qwen reads. */
function timeoutWhy(name: string, pins: Pins): string {
  const unit = `in the unit Qwen ${pinnedQwenFacts(pins.qwenVersion).version} reads`;
  return name === HOOK_AUTO_RECALL
    ? `${HOOK_TIMEOUT_MS} ms ${unit}; timeouts nest: provider < hook budget ${HOOK_BUDGET_MS} ms < hook timeout ${HOOK_TIMEOUT_MS} ms`
    : `${SECURITY_HOOK_TIMEOUT_MS} ms ${unit}; when it runs out before Qwen has read the answer, Qwen runs the call unasked`;
}

function guardModeProblems(entry: JsonObject): string[] {
  const env = entry.env;
  const modes = isPlainObject(env) ? env[GUARD_MODES_ENV] : undefined;
  if (typeof modes !== 'string')
    return [`hook ${HOOK_APPROVAL_GUARD}: env.${GUARD_MODES_ENV} must list the guarded modes`];
  const list = modes.split(',');
  const bad = list.filter((m) => !(GUARD_MODES as readonly string[]).includes(m));
  return bad.length > 0 || list.length === 0
    ? [
        `hook ${HOOK_APPROVAL_GUARD}: ${GUARD_MODES_ENV} ${showValue(modes)} must be a comma list of ${GUARD_MODES.join(', ')}`,
      ]
    : [];
}

function hookProblems(profile: ProfileView, settings: JsonObject, pins: Pins): string[] {
  const { kind } = profile;
  const hooks = settings.hooks;
  const { managed } = expectations(kind, pins, findGuardModes(hooks) ?? DEFAULT_GUARD_MODES.join(','));
  const problems: string[] = [];
  if (hooks === undefined) {
    if (profile.state === 'active' && EXTERNAL_HOOK[kind] !== undefined)
      problems.push(`hooks: the ${EXTERNAL_HOOK[kind]} hook is missing (the ${kind} profile needs it)`);
    return problems;
  }
  if (!isPlainObject(hooks)) return ['hooks must be an object'];
  const seen = new Map<string, number>();
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      problems.push(`hooks.${event} must be a list`);
      continue;
    }
    groups.forEach((group, g) => {
      const where = `hooks.${event}[${g}]`;
      if (!isPlainObject(group) || !Array.isArray(group.hooks)) {
        problems.push(`${where} must be an object with a "hooks" list`);
        return;
      }
      for (const key of Object.keys(group)) {
        if (key !== 'matcher' && key !== 'hooks') problems.push(`${where}: unexpected key ${showValue(key)}`);
      }
      const entries: unknown[] = group.hooks;
      entries.forEach((entry, h) => {
        const name = isPlainObject(entry) && typeof entry.name === 'string' ? entry.name : undefined;
        const owner = name === undefined ? undefined : OWNER[name];
        if (owner !== undefined && owner !== kind) {
          problems.push(
            `${where}: the ${name} hook belongs to the ${owner} profile, not ${kind} (profiles are exclusive)`,
          );
          return;
        }
        const expected = name === undefined ? undefined : managed.get(name);
        if (name === undefined || expected === undefined || !isPlainObject(entry)) {
          problems.push(
            `${where}.hooks[${h}]: unexpected hook ${showValue(name ?? entry, 120)} (not rendered by qwen-managed)`,
          );
          return;
        }
        seen.set(name, (seen.get(name) ?? 0) + 1);
        if (owner !== undefined && profile.state === 'rolled-back') {
          problems.push(`${where}: the ${name} hook is still present but the profile is rolled back`);
          return;
        }
        if (event !== expected.event)
          problems.push(`${where}: the ${name} hook belongs under hooks.${expected.event}`);
        if (!deepEqual(group.matcher, expected.matcher)) {
          problems.push(
            `${where}: matcher of ${name} must be ${showValue(expected.matcher)} (found ${showValue(group.matcher)})`,
          );
        }
        if (entries.length !== 1)
          problems.push(`${where}: the ${name} hook must be alone in its matcher group`);
        problems.push(...entryProblems(name, entry, expected.entry, pins));
        if (name === HOOK_APPROVAL_GUARD) problems.push(...guardModeProblems(entry));
      });
    });
  }
  const external = EXTERNAL_HOOK[kind];
  if (external !== undefined && profile.state === 'active' && !seen.has(external)) {
    problems.push(
      `hooks.${managed.get(external)?.event}: the ${external} hook is missing (the ${kind} profile needs it)`,
    );
  }
  for (const [name, count] of seen)
    if (count > 1) problems.push(`hooks: the ${name} hook appears ${count} times`);
  return problems;
}

function findGuardModes(hooks: unknown): string | undefined {
  const groups = isPlainObject(hooks) ? hooks.PreToolUse : undefined;
  if (!Array.isArray(groups)) return undefined;
  for (const group of groups) {
    if (!isPlainObject(group) || !Array.isArray(group.hooks)) continue;
    for (const entry of group.hooks) {
      if (isPlainObject(entry) && entry.name === HOOK_APPROVAL_GUARD && isPlainObject(entry.env)) {
        const modes = entry.env[GUARD_MODES_ENV];
        if (typeof modes === 'string') return modes;
      }
    }
  }
  return undefined;
}

function baselineProblems(settings: JsonObject): string[] {
  const problems: string[] = [];
  const unions = new Set(SETTINGS_BASELINE.unionLists);
  const walk = (expected: unknown, path: string[]) => {
    const name = path.join('.');
    const actual = getPath(settings, path);
    if (isPlainObject(expected)) {
      if (!isPlainObject(actual)) {
        problems.push(`${name} must be an object holding the managed baseline (found ${showValue(actual)})`);
        return;
      }
      for (const [key, value] of Object.entries(expected)) walk(value, [...path, key]);
    } else if (unions.has(name) && Array.isArray(expected)) {
      const missing = Array.isArray(actual)
        ? expected.filter((e) => !actual.some((a) => deepEqual(a, e)))
        : expected;
      if (missing.length > 0)
        problems.push(`${name} lacks the managed baseline entries ${showValue(missing, 200)}`);
    } else if (!deepEqual(actual, expected)) {
      problems.push(`${name} is ${showValue(actual)}; the managed baseline requires ${showValue(expected)}`);
    }
  };
  for (const [key, value] of Object.entries(SETTINGS_BASELINE.baseline)) walk(value, [key]);
  return problems;
}

function exclusivityProblems(kind: ProfileKind, settings: JsonObject, expectedProfile: JsonObject): string[] {
  const problems: string[] = [];
  if (settings.mcpServers !== undefined) {
    problems.push(
      'mcpServers must be absent: the external-context server comes only through --mcp-config (on-demand, write)',
    );
  }
  if (!deepEqual(settings.mcp, expectedProfile.mcp)) {
    // mcp.allowed lists only the managed server (none in auto-recall): no other scope, the
    // repository's .qwen/settings.json or .mcp.json included, can start another server.
    problems.push(
      `mcp must be ${JSON.stringify(expectedProfile.mcp)} in the ${kind} profile, so no other scope can add an MCP server (found ${showValue(settings.mcp)})`,
    );
  }
  const permissions = isPlainObject(settings.permissions) ? settings.permissions : {};
  const expectedPermissions = isPlainObject(expectedProfile.permissions) ? expectedProfile.permissions : {};
  for (const list of ['allow', 'ask'] as const) {
    if (!deepEqual(permissions[list], expectedPermissions[list])) {
      problems.push(
        `permissions.${list} must be ${showValue(expectedPermissions[list] ?? 'absent')} in the ${kind} profile (found ${showValue(permissions[list] ?? 'absent')})`,
      );
    }
  }
  const deny = Array.isArray(permissions.deny) ? permissions.deny : [];
  for (const entry of deny) {
    if (typeof entry === 'string' && entry.startsWith(`mcp__${MCP_SERVER_NAME}`)) {
      problems.push(`permissions.deny denies the managed tool ${showValue(entry)}`);
    }
  }
  return problems;
}

export function pinsOf(view: TreeView, profile: ProfileView, qwenVersion?: string): Pins | undefined {
  const plan = profile.plan ?? view.profiles.find((p) => p.plan !== undefined)?.plan;
  return plan === undefined
    ? undefined
    : {
        platform: plan.platform,
        node: plan.node,
        installDir: plan.installDir,
        ...(qwenVersion === undefined ? {} : { qwenVersion }),
      };
}

/** `qwenVersion`: the pinned Qwen package's, where verify read it; its per-version facts are expected. */
export function checkSettings(view: TreeView, checks: Checks, qwenVersion?: string): void {
  for (const profile of view.profiles) {
    const { kind } = profile;
    const file = profileRel(kind, PROFILE_FILES.systemSettings);
    const scope = { profile: kind, file };
    const parsed = profile.json(PROFILE_FILES.systemSettings);
    if (parsed === undefined) continue; // layout reports the missing file
    if (!parsed.ok || !isPlainObject(parsed.value)) {
      checks.add(
        'settings.json',
        scope,
        false,
        parsed.ok ? 'must be a JSON object' : `is not valid JSON (${parsed.error})`,
      );
      continue;
    }
    const settings = parsed.value;
    checks.add('settings.json', scope, true, 'is a JSON object');
    checks.expect(
      'settings.baseline',
      scope,
      baselineProblems(settings),
      'the managed baseline holds key by key',
    );
    const pins = pinsOf(view, profile, qwenVersion);
    if (pins === undefined) {
      checks.add(
        'settings.hooks',
        scope,
        false,
        'cannot check the hooks without a valid launch.json (node, installDir)',
      );
      continue;
    }
    checks.expect(
      'settings.hooks',
      scope,
      hookProblems(profile, settings, pins),
      'managed hooks are exact and nothing else is hooked',
    );
    const { profile: expectedProfile } = expectations(kind, pins, DEFAULT_GUARD_MODES.join(','));
    checks.expect(
      'settings.exclusivity',
      scope,
      exclusivityProblems(kind, settings, expectedProfile),
      `MCP exclusion and permissions match the ${kind} profile`,
    );
  }
  for (const profile of view.profiles) {
    const plan = profile.plan;
    const expectedTrust =
      plan === undefined ? undefined : trustedFoldersFor(plan.platform, plan.cwd, plan.repositoryTrust);
    for (const [file, expected] of [
      [PROFILE_FILES.systemDefaults, TEMPLATES.systemDefaults],
      [PROFILE_FILES.trustedFolders, expectedTrust],
    ] as const) {
      if (expected === undefined) continue;
      const parsed = profile.json(file);
      if (parsed === undefined) continue;
      const ok = parsed.ok && deepEqual(parsed.value, expected);
      checks.add(
        file === PROFILE_FILES.systemDefaults ? 'settings.defaults' : 'settings.trusted-folders',
        { profile: profile.kind, file: profileRel(profile.kind, file) },
        ok,
        ok
          ? `is ${JSON.stringify(expected)}`
          : `must be exactly ${JSON.stringify(expected)} (found ${parsed.ok ? showValue(parsed.value) : 'invalid JSON'})`,
      );
    }
  }
}
