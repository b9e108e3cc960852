// external-context.json (version and schema per profile, loaded with the runtimes' own parser),
// mcp.json (exact server entry), the nested timeouts, and rollback.json of rolled-back profiles.
import { ConfigurationError } from '../../../base/errors.js';
import { sha256Hex } from '../../../base/hash.js';
import { HOOK_BUDGET_MS, HOOK_TIMEOUT_MS, MCP_TIMEOUT_MS } from '../../../base/limits.js';
import { LOOPBACK_HOSTS } from '../../../base/origin.js';
import { parseRuntimeConfig } from '../../../config/load.js';
import { credentialVariable } from '../../../config/names.js';
import type { RuntimeConfig } from '../../../config/schema.js';
import type { ProfileKind } from '../../../contracts/launch-plan.js';
import { PROFILE_FILES, profileRel, usesMcp } from '../../../contracts/layout.js';
import { EXTERNAL_CONTEXT_HOOKS, MCP_SERVER_NAME } from '../../../contracts/names.js';
import { isPlainObject, type JsonObject } from '../../../text/json.js';
import { providerConfigVersion } from '../../deployment/provider-config.js';
import { deepEqual, showValue } from '../../json.js';
import { pinnedValues } from '../../render/profile.js';
import { parseRollbackRecord } from '../../render/rollback-record.js';
import { substitute } from '../../templates/substitute.js';
import { TEMPLATES } from '../../templates/templates.js';
import type { Checks } from '../report.js';
import type { ProfileView, TreeView } from '../view.js';
import { pinsOf } from './settings.js';

/** Warnings about a deployed provider that no file check can catch (docs/admin.md, "Who sees what"). */
export function providerWarnings(
  kind: ProfileKind,
  config: RuntimeConfig,
): { id: string; message: string }[] {
  const warnings: { id: string; message: string }[] = [];
  const provider = config.provider;
  // The DataWorks BFF serves Mem0 memories too: the same reinforcement applies behind it.
  const mem0Behind =
    provider.type === 'mem0' ||
    provider.type === 'mem0-platform-v3' ||
    provider.type === 'dataworks-bff-memory-v1';
  if (kind === 'auto-recall' && mem0Behind) {
    // Every prompt retrieves: with Memory Decay on, each retrieval reinforces what it returned.
    warnings.push({
      id: 'provider.memory-decay',
      message:
        'auto-recall searches Mem0 before every prompt: Memory Decay must be off on the bound Mem0 project, or each retrieval reinforces what it returned and silently changes later rankings; confirm it, or deploy on-demand instead',
    });
  }
  if (provider.type === 'mem0' && provider.endpoint.allowInsecureHttp === true) {
    const url = new URL(provider.endpoint.origin);
    if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
      warnings.push({
        id: 'provider.plain-http',
        message: `sends the credential ${provider.credentialEnv} and every query over plain HTTP to ${url.origin} (allowInsecureHttp): anyone on the network path can read them; use https:// where the service offers it`,
      });
    }
  }
  return warnings;
}

function configProblems(profile: ProfileView): { problems: string[]; config?: RuntimeConfig } {
  const text = profile.text(PROFILE_FILES.providerConfig);
  if (text === undefined) return { problems: [] };
  let version: unknown;
  try {
    version = (JSON.parse(text) as { version?: unknown }).version;
  } catch (error) {
    return { problems: [`is not valid JSON (${(error as Error).message})`] };
  }
  const restored = profile.state === 'rolled-back' && version === 1;
  const wanted = restored ? 1 : providerConfigVersion(profile.kind);
  if (version !== wanted) {
    return {
      problems: [
        `the ${profile.kind} profile needs provider config version ${wanted}, found ${showValue(version)}`,
      ],
    };
  }
  try {
    const config = parseRuntimeConfig(text, wanted);
    const problems: string[] = [];
    if (config.version === 1 && !restored) {
      if (profile.kind === 'write' && config.write === undefined)
        problems.push('the write profile needs "write": {"enabled": true}');
      if (profile.kind === 'on-demand' && config.write !== undefined)
        problems.push('the on-demand profile must not enable writes (that is the write profile)');
    }
    return { problems, config };
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    const at =
      error.keyPath === undefined || error.keyPath.length === 0 ? '' : ` at ${error.keyPath.join('.')}`;
    return { problems: [`${error.message.replace(/\.$/, '')}${at}`] };
  }
}

function timeoutProblems(kind: ProfileKind, config: RuntimeConfig, mcpTimeout: unknown): string[] {
  if (config.version === 2) {
    const t = config.autoRecall.timeoutMs;
    return t < HOOK_BUDGET_MS && HOOK_BUDGET_MS < HOOK_TIMEOUT_MS
      ? []
      : [
          `autoRecall.timeoutMs ${t} must stay below the hook budget ${HOOK_BUDGET_MS} ms (< hook timeout ${HOOK_TIMEOUT_MS})`,
        ];
  }
  const limit = typeof mcpTimeout === 'number' ? mcpTimeout : MCP_TIMEOUT_MS;
  return config.timeoutMs < limit || kind === 'auto-recall'
    ? []
    : [`timeoutMs ${config.timeoutMs} must stay below the MCP call timeout ${limit} ms`];
}

function mcpProblems(profile: ProfileView, view: TreeView): { problems: string[]; timeout?: unknown } {
  const parsed = profile.json(PROFILE_FILES.mcpConfig);
  // An mcp.json where none belongs (auto-recall) is reported by the layout check.
  if (parsed === undefined || !usesMcp(profile.kind)) return { problems: [] };
  if (!parsed.ok || !isPlainObject(parsed.value)) return { problems: ['is not a JSON object'] };
  const pins = pinsOf(view, profile);
  if (pins === undefined) return { problems: ['cannot check mcp.json without a valid launch.json'] };
  const expected = substitute(
    TEMPLATES.mcpConfig[profile.kind as 'on-demand' | 'write'],
    pinnedValues(pins),
  ) as JsonObject;
  const actual = parsed.value;
  const problems: string[] = [];
  const servers = isPlainObject(actual.mcpServers) ? actual.mcpServers : undefined;
  const expectedServers = expected.mcpServers as JsonObject;
  for (const key of Object.keys(actual))
    if (key !== 'mcpServers') problems.push(`unexpected top-level key ${showValue(key)}`);
  if (servers === undefined) return { problems: [...problems, 'mcpServers is missing'] };
  for (const name of Object.keys(servers)) {
    if (!Object.hasOwn(expectedServers, name))
      problems.push(`mcpServers.${name} is not the managed external-context server`);
  }
  for (const [name, entry] of Object.entries(expectedServers)) {
    const found = servers[name];
    if (!isPlainObject(found)) {
      problems.push(`mcpServers.${name} is missing`);
      continue;
    }
    for (const [key, value] of Object.entries(entry as JsonObject)) {
      if (!deepEqual(found[key], value))
        problems.push(
          `mcpServers.${name}.${key} must be ${showValue(value, 200)} (found ${showValue(found[key], 200)})`,
        );
    }
    for (const key of Object.keys(found)) {
      if (!Object.hasOwn(entry as JsonObject, key))
        problems.push(`mcpServers.${name}: unexpected key ${showValue(key)}`);
    }
  }
  const server = servers[MCP_SERVER_NAME];
  const timeout = isPlainObject(server) ? server.timeout : undefined;
  return { problems, timeout };
}

function recordProblems(profile: ProfileView): string[] {
  const text = profile.text(PROFILE_FILES.rollbackRecord);
  if (text === undefined) return [];
  const record = parseRollbackRecord(text);
  if (record === undefined) return ['is not a valid rollback record ({"version":1,"removedHooks":[…]})'];
  const problems: string[] = [];
  for (const name of EXTERNAL_CONTEXT_HOOKS) {
    if (!record.removedHooks.includes(name))
      problems.push(`removedHooks lacks ${name} (rollback always removes it)`);
  }
  if (record.restoredConfigSha256 !== undefined) {
    const config = profile.text(PROFILE_FILES.providerConfig);
    if (config === undefined || sha256Hex(config) !== record.restoredConfigSha256) {
      problems.push('restoredConfigSha256 does not match external-context.json');
    }
  }
  return problems;
}

export function checkProviders(view: TreeView, checks: Checks): void {
  for (const profile of view.profiles) {
    const { kind } = profile;
    const configFile = profileRel(kind, PROFILE_FILES.providerConfig);
    const { problems, config } = configProblems(profile);
    if (profile.has(PROFILE_FILES.providerConfig)) {
      checks.expect(
        'provider.config',
        { profile: kind, file: configFile },
        problems,
        `loads as provider config version ${config?.version ?? '?'}`,
      );
    }
    const mcp = mcpProblems(profile, view);
    if (profile.has(PROFILE_FILES.mcpConfig) && usesMcp(kind)) {
      checks.expect(
        'mcp.config',
        { profile: kind, file: profileRel(kind, PROFILE_FILES.mcpConfig) },
        mcp.problems,
        'the external-context server entry is exact',
      );
    }
    if (config !== undefined) {
      checks.expect(
        'timeouts',
        { profile: kind, file: configFile },
        timeoutProblems(kind, config, mcp.timeout),
        'timeouts nest below the hook and MCP timeouts',
      );
      if (profile.plan !== undefined && profile.state === 'active') {
        const name = credentialVariable(config.provider);
        const brokered = profile.plan.broker?.keyVariables.includes(name) === true;
        const routed =
          profile.plan.externalContext.credentials.includes(name) &&
          (Object.hasOwn(profile.plan.credentials, name) || brokered);
        checks.add(
          'provider.credential',
          { profile: kind, file: profileRel(kind, PROFILE_FILES.launchPlan) },
          routed,
          routed
            ? brokered
              ? `the provider credential ${name} is held by the credential broker (the session gets its public key)`
              : `routes the provider credential ${name}`
            : `does not route the provider credential ${name} (credentials and externalContext.credentials)`,
        );
        for (const warning of providerWarnings(kind, config))
          checks.add(warning.id, { profile: kind, file: configFile }, false, warning.message, 'warning');
      }
    }
    if (profile.has(PROFILE_FILES.rollbackRecord)) {
      checks.expect(
        'rollback.record',
        { profile: kind, file: profileRel(kind, PROFILE_FILES.rollbackRecord) },
        recordProblems(profile),
        'records what rollback changed',
      );
    }
  }
}
