// The deployment's optional `settings` block and the managed baseline (policies/settings-baseline.json).
// Rules (docs/admin.md, "deployment.json"): the block may repeat a baseline value and add entries to the union lists;
// it may not change or remove any other baseline key, nor set a reserved key (hooks, MCP, the
// profile permissions, disableAllHooks): render refuses and names the key.

import type { Platform } from '../../base/platform.js';
import { MCP_SERVER_NAME } from '../../contracts/names.js';
import { forbiddenReason } from '../../policy/environment-names.js';
import { ENVIRONMENT_POLICY, SETTINGS_BASELINE, type SettingsBaselinePolicy } from '../../policy/policies.js';
import { qwenSettingsFacts } from '../../qwen/settings-facts.js';
import { DEFAULT_QWEN_VERSION, type SettingFact, SUPPORTED_QWEN_VERSIONS } from '../../qwen/versions.js';
import { closest, oneOfFix } from '../../text/closest.js';
import { isPlainObject, type JsonObject } from '../../text/json.js';
import { deepEqual, getPath, showValue } from '../json.js';
import { forbiddenVariableFix, type Problem, problem } from './problems.js';

/** Keys that would let JSON reach an object's prototype when merged. */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

function dotted(path: readonly string[]): string {
  return path.join('.');
}

/** Every problem with a deployment's `settings` block; key paths start with `settings`. */
export function checkSettingsBlock(
  settings: JsonObject,
  platform: Platform,
  policy: SettingsBaselinePolicy = SETTINGS_BASELINE,
): Problem[] {
  const problems: Problem[] = [];
  const reserved = new Set(policy.reservedKeys);
  const unions = new Set(policy.unionLists);
  const walk = (value: JsonObject, baseline: unknown, path: string[]) => {
    for (const [key, child] of Object.entries(value)) {
      const here = [...path, key];
      const name = dotted(here);
      const keyPath = ['settings', ...here];
      if (PROTOTYPE_KEYS.has(key)) {
        problems.push(problem(keyPath, child, 'is not a Qwen setting', `remove "${key}"`));
        continue;
      }
      if (reserved.has(name)) {
        problems.push(
          problem(
            keyPath,
            child,
            'is managed by render for each profile',
            `remove "${name}" from "settings"`,
          ),
        );
        continue;
      }
      const base = isPlainObject(baseline) && Object.hasOwn(baseline, key) ? baseline[key] : undefined;
      if (unions.has(name)) {
        if (!Array.isArray(child) || !child.every((entry) => typeof entry === 'string')) {
          problems.push(
            problem(keyPath, child, 'must be a list of strings', 'write a JSON array of strings'),
          );
        } else if (name === 'permissions.deny') {
          // Denying the managed tools would silently break the profile that relies on them.
          for (const entry of child) {
            if (entry.startsWith(`mcp__${MCP_SERVER_NAME}`)) {
              problems.push(
                problem(
                  keyPath,
                  entry,
                  'denies a managed external-context tool',
                  `remove ${showValue(entry)}`,
                ),
              );
            }
          }
        }
        continue;
      }
      if (name === 'env' && isPlainObject(child)) {
        // Qwen fills unset variables from settings `env`: a forbidden name here would undo the launcher's policy.
        for (const variable of Object.keys(child)) {
          const why = forbiddenReason(variable, ENVIRONMENT_POLICY, platform);
          if (why !== undefined) {
            problems.push(
              problem(
                [...keyPath, variable],
                child[variable],
                `is forbidden by the environment policy (${why})`,
                forbiddenVariableFix(variable, platform, `remove "${variable}"`),
              ),
            );
          }
        }
        continue;
      }
      if (base !== undefined) {
        if (isPlainObject(base)) {
          if (!isPlainObject(child)) {
            problems.push(
              problem(
                keyPath,
                child,
                'would replace a managed baseline object',
                `remove "${name}" or write an object`,
              ),
            );
          } else walk(child, base, here);
        } else if (!deepEqual(base, child)) {
          problems.push(
            problem(
              keyPath,
              child,
              `would change the managed baseline value ${showValue(base)}`,
              `remove "${name}" (or set it to ${showValue(base)})`,
            ),
          );
        }
        continue;
      }
      // Not in the baseline: still descend where a reserved or union key could hide deeper down.
      const deeper = [...reserved, ...unions].some((k) => k.startsWith(`${name}.`));
      if (deeper) {
        if (isPlainObject(child)) walk(child, undefined, here);
        else problems.push(problem(keyPath, child, 'must be an object', `write "${name}" as an object`));
      }
    }
  };
  walk(settings, policy.baseline, []);
  return problems;
}

function typeProblem(fact: SettingFact, value: unknown): { message: string; fix: string } | undefined {
  if (fact.anyOf !== undefined) {
    // A union (string or list, …): one matching member is enough.
    if (fact.anyOf.some((type) => typeProblem({ type }, value) === undefined)) return undefined;
    return {
      message: `must be a ${fact.anyOf.join(' or ')}`,
      fix: `write a JSON ${fact.anyOf.join(' or ')}`,
    };
  }
  const want = (kind: string, fix = `write a JSON ${kind}`) => ({ message: `must be a ${kind}`, fix });
  switch (fact.type) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : want('boolean', 'write true or false');
    case 'string':
      return typeof value === 'string' ? undefined : want('string');
    case 'array':
      return Array.isArray(value) ? undefined : want('list', 'write a JSON array');
    case 'object':
      return isPlainObject(value) ? undefined : want('object');
    case 'enum': {
      if (fact.enum?.some((allowed) => deepEqual(allowed, value)) !== false) return undefined;
      return {
        message: 'is not one of the values Qwen accepts',
        fix: oneOfFix(value, fact.enum, (v) => showValue(v)),
      };
    }
    case 'number':
    case 'integer': {
      const kind = fact.type === 'integer' ? 'whole number' : 'number';
      if (typeof value !== 'number' || (fact.type === 'integer' && !Number.isInteger(value)))
        return want(kind, `write a ${kind} without quotes`);
      if ((fact.min !== undefined && value < fact.min) || (fact.max !== undefined && value > fact.max)) {
        const range = [
          fact.min === undefined ? '' : `at least ${fact.min}`,
          fact.max === undefined ? '' : `at most ${fact.max}`,
        ];
        return {
          message: 'is out of range',
          fix: `use a ${kind} ${range.filter((r) => r !== '').join(' and ')}`,
        };
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The settings block against the pinned Qwen version's own settings schema
 * (policies/qwen/<version>/settings.json): every key must be one Qwen knows, with the type, enum and
 * range it declares. Qwen silently ignores an unknown key, so a typo such as `modle` would leave the
 * model unmanaged without anyone noticing. Objects Qwen declares without sub-keys (`env`,
 * `modelProviders`, …) are free-form below.
 */
export function settingsFactsProblems(
  settings: JsonObject,
  version: string = DEFAULT_QWEN_VERSION,
  policy: SettingsBaselinePolicy = SETTINGS_BASELINE,
): Problem[] {
  const facts = qwenSettingsFacts(version);
  if (facts === undefined) return [];
  const names = Object.keys(facts);
  const problems: Problem[] = [];
  const childrenOf = (parent: string) =>
    names.filter((n) =>
      parent === ''
        ? !n.includes('.')
        : n.startsWith(`${parent}.`) && !n.slice(parent.length + 1).includes('.'),
    );
  const walk = (value: JsonObject, path: string[]) => {
    const parent = dotted(path);
    for (const [key, child] of Object.entries(value)) {
      if (PROTOTYPE_KEYS.has(key)) continue; // refused by checkSettingsBlock
      const here = [...path, key];
      const name = dotted(here);
      const keyPath = ['settings', ...here];
      const fact = facts[name];
      // A baseline key (e.g. Qwen's `$version` marker) is known; checkSettingsBlock judges its value.
      if (fact === undefined && getPath(policy.baseline, here) !== undefined) continue;
      if (fact === undefined) {
        const siblings = childrenOf(parent).map((n) => n.slice(parent === '' ? 0 : parent.length + 1));
        const near = closest(key, siblings);
        // The right key in the wrong object (e.g. `model.selectedType`): name where it belongs.
        const elsewhere = names.filter((n) => n.endsWith(`.${key}`) || n === key);
        const fix =
          near !== undefined
            ? `did you mean "${[...path, near].join('.')}"? Rename "${key}" to "${near}"`
            : elsewhere.length > 0
              ? `did you mean "${elsewhere[0]}"? Move "${key}" there`
              : `remove "${key}" (Qwen Code ${version} has no such setting${parent === '' ? '' : ` under "${parent}"`}; see schema/deployment.schema.json)`;
        problems.push(problem(keyPath, child, `is not a Qwen Code ${version} setting`, fix));
        continue;
      }
      const wrong = typeProblem(fact, child);
      if (wrong !== undefined) {
        problems.push(problem(keyPath, child, wrong.message, wrong.fix));
        continue;
      }
      if (fact.type === 'object' && isPlainObject(child) && names.some((n) => n.startsWith(`${name}.`)))
        walk(child, here);
    }
  };
  walk(settings, []);
  return problems;
}

/**
 * What only the Qwen pinned on this machine refuses of `settings`: parsing judged them by the default
 * version's table, and Qwen silently ignores a key its own version lacks (`tools.workflowNameOnly`,
 * added after 0.24.0, under a pinned 0.24.0), leaving that part of the session unmanaged. `version`
 * is the pinned package's; an unknown or unsupported one is the host checks' to refuse.
 */
export function pinnedQwenSettingsProblems(settings: JsonObject, version: string | undefined): Problem[] {
  if (version === undefined || version === DEFAULT_QWEN_VERSION) return [];
  return SUPPORTED_QWEN_VERSIONS.includes(version) ? settingsFactsProblems(settings, version) : [];
}

/** The supported Qwen versions that lack a key of `settings` (a launch plan lists them). */
export function qwenVersionsMissing(settings: JsonObject): string[] {
  return SUPPORTED_QWEN_VERSIONS.filter((version) => settingsFactsProblems(settings, version).length > 0);
}

/**
 * Deep merge for managed settings: objects merge key by key (keys of `base` first, in order, then
 * new keys of `add`), arrays are unioned (order kept, duplicates dropped), and a scalar conflict is
 * a programming error — callers check conflicts first (checkSettingsBlock).
 */
export function mergeSettings(base: JsonObject, add: JsonObject, path: string[] = []): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(base)) out[key] = value;
  for (const [key, value] of Object.entries(add)) {
    if (PROTOTYPE_KEYS.has(key)) throw new Error(`settings key ${key} is not allowed`);
    if (!Object.hasOwn(out, key)) {
      out[key] = value;
      continue;
    }
    const existing = out[key];
    if (isPlainObject(existing) && isPlainObject(value))
      out[key] = mergeSettings(existing, value, [...path, key]);
    else if (Array.isArray(existing) && Array.isArray(value)) out[key] = unionList(existing, value);
    else if (!deepEqual(existing, value)) throw new Error(`settings conflict at ${[...path, key].join('.')}`);
  }
  return out;
}

export function unionList(a: readonly unknown[], b: readonly unknown[]): unknown[] {
  const out = [...a];
  for (const entry of b) if (!out.some((existing) => deepEqual(existing, entry))) out.push(entry);
  return out;
}

/** Baseline ← the deployment's settings block: the managed settings every profile starts from. */
export function managedBaseSettings(
  settings: JsonObject | undefined,
  policy: SettingsBaselinePolicy = SETTINGS_BASELINE,
): JsonObject {
  const baseline = structuredClone(policy.baseline) as JsonObject;
  return settings === undefined ? baseline : mergeSettings(baseline, structuredClone(settings));
}
