// The deployment's optional `settings` block and the managed baseline (policies/settings-baseline.json).
// Rules (deployment.md): the block may repeat a baseline value and add entries to the union lists;
// it may not change or remove any other baseline key, nor set a reserved key (hooks, MCP, the
// profile permissions, disableAllHooks): render refuses and names the key.

import type { Platform } from '../../base/platform.js';
import { MCP_SERVER_NAME } from '../../contracts/names.js';
import { forbiddenReason } from '../../policy/environment-names.js';
import { ENVIRONMENT_POLICY, SETTINGS_BASELINE, type SettingsBaselinePolicy } from '../../policy/policies.js';
import { deepEqual, isPlainObject, type JsonObject, showValue } from '../json.js';
import { forbiddenVariableFix, type Problem, problem } from './problems.js';

/** Keys that would let JSON reach an object's prototype when merged. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

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
