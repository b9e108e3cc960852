// One shape for everything wrong with a deployment: the key, the bad value, what is wrong and the
// fix. The admin CLI may name keys, variables and paths (README: telling the administrator exactly
// what to fix is its job); deployment.json holds no secret values, only names and file paths.

import type * as z from 'zod';
import { AdminInputError } from '../../base/errors.js';
import { MCP_TIMEOUT_MS } from '../../base/limits.js';
import { checkOrigin, type OriginProblem } from '../../base/origin.js';
import type { Platform } from '../../base/platform.js';
import { EXTRA_CA_VARIABLE } from '../../contracts/layout.js';
import { sameEnvName } from '../../policy/environment-names.js';
import { closest, oneOfFix } from '../../text/closest.js';
import { isPlainObject } from '../../text/json.js';
import { formatPath, getPath, showValue } from '../json.js';

export interface Problem {
  /** Dotted key path in deployment.json, e.g. `profiles.auto-recall.timeoutMs`. */
  key: string;
  /** The offending value, rendered for display; absent when the key is missing. */
  value?: string;
  message: string;
  fix: string;
}

/** What a problem shows in place of a value that may be a secret (the convention of broker.ts). */
export const REDACTED = '<set>';

const SECRET_NAME = /api.?key|token|secret|password/i;

/**
 * Whether the value at `keyPath` may be a secret: anything under `settings.env`, and any key named
 * like a key, token or password (a typo such as `apikey` included) — but not a `credentials` entry's
 * name nor an `…Env` key: those hold variable names and file paths. Not all of `security.auth`: its
 * `selectedType` and `baseUrl` are what an administrator must see to fix them.
 */
export function isSecretPath(keyPath: readonly PropertyKey[]): boolean {
  const keys = keyPath.map((k) => (typeof k === 'number' ? '' : String(k)));
  if (keys[0] === 'settings' && keys[1] === 'env' && keys.length > 2) return true;
  return keys.some(
    (k, i) => !(i === 1 && keys[0] === 'credentials') && !k.endsWith('Env') && SECRET_NAME.test(k),
  );
}

/**
 * A URL's `user:password@` part, up to the last `@` before the path, as the URL parser splits it (a
 * password may hold an unencoded `@`; `\` ends the authority in http(s) URLs), wherever a URL starts.
 */
const URL_USERINFO = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#\\\s]*@/g;

/** `text` with the `user:password@` part of every URL in it replaced by `mark`: the host stays shown. */
export function withoutUrlUserinfo(text: string, mark: string = REDACTED): string {
  return text.replace(URL_USERINFO, `$1${mark}@`);
}

/** `value` with every secret-looking part replaced by REDACTED, so an object shown whole leaks nothing. */
export function redactValue(keyPath: readonly PropertyKey[], value: unknown): unknown {
  if (isSecretPath(keyPath)) return REDACTED;
  // A credentials entry given as a string is likely the secret pasted in place of {"file": …}; the
  // checks that name the variable pass its name as the value, which stays readable.
  if (
    keyPath.length === 2 &&
    keyPath[0] === 'credentials' &&
    typeof value === 'string' &&
    value !== keyPath[1]
  )
    return REDACTED;
  // A password written into a URL (refused as such) is a secret under any key: the host stays shown.
  if (typeof value === 'string') return withoutUrlUserinfo(value);
  if (Array.isArray(value)) return value.map((item, i) => redactValue([...keyPath, i], item));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue([...keyPath, k], v)]));
  return value;
}

export function problem(
  keyPath: readonly PropertyKey[],
  value: unknown,
  message: string,
  fix: string,
): Problem {
  const out: Problem = { key: formatPath(keyPath), message, fix };
  // Every problem is redacted here, in one place: the caller's value may be a typo'd key's secret.
  if (value !== undefined) out.value = showValue(redactValue(keyPath, value));
  return out;
}

export function formatProblem(p: Problem): string {
  const head = p.value === undefined ? p.key : `${p.key} = ${p.value}`;
  return `${head}: ${p.message}. Fix: ${p.fix}`;
}

/** Thrown by parse/render when deployment.json cannot be rendered; carries every problem found. */
/** The fix for a policy-forbidden variable: `removal`, plus the managed route where there is one. */
export function forbiddenVariableFix(name: string, platform: Platform, removal: string): string {
  // The one forbidden name with a managed route: the CA file is pinned and StrictModes-checked instead.
  return sameEnvName(name, EXTRA_CA_VARIABLE, platform)
    ? `${removal} and set "tls": {"extraCaCertificates": "<absolute path of the PEM file>"}`
    : removal;
}

export class DeploymentInvalid extends AdminInputError {
  override readonly name = 'DeploymentInvalid';
  constructor(
    readonly source: string,
    readonly problems: readonly Problem[],
  ) {
    super(
      `${source}: ${problems.length} problem(s)\n${problems.map((p) => `  - ${formatProblem(p)}`).join('\n')}`,
    );
  }
}

const ORIGIN_FIXES: Record<OriginProblem, string> = {
  'control-or-backslash': 'remove whitespace, control characters and backslashes',
  unparsable: 'write a full origin such as https://context.example.com',
  credentials: 'remove the user:password@ part; credentials come from the credential variable',
  'query-or-fragment': 'remove the ?query and #fragment',
  path: 'use the origin only (scheme, host, port), e.g. https://context.example.com',
  scheme: 'use https:// (or http:// on loopback)',
  'insecure-http': 'use https://, or http:// only on localhost/127.0.0.1/[::1]',
};

/** A fix for a failed refinement the schema itself cannot explain. */
function customFix(path: readonly PropertyKey[], value: unknown, root: unknown): string {
  const last = path[path.length - 1];
  if ((last === 'baseUrl' || last === 'origin') && typeof value === 'string') {
    const parent = path.slice(0, -1).map((k) => (typeof k === 'number' ? k : String(k)));
    const allowInsecureHttp = last === 'origin' && getPath(root, [...parent, 'allowInsecureHttp']) === true;
    const checked = checkOrigin(value, { allowInsecureHttp });
    if (!checked.ok) return ORIGIN_FIXES[checked.problem];
  }
  if (last === 'basePath')
    return 'use "" or a static prefix such as "/mem0" (no //, ?, #, %, \\, . or .. segments)';
  if (last === 'appId' || last === 'userId' || last === 'agentId')
    return 'use 1–256 characters after trimming (counted in UTF-16 units: an emoji counts as 2)';
  if (last === 'developers')
    return 'list at least one account under "users" or one group under "groups", or remove "developers"';
  if (last === 'profiles') return 'add at least one of "on-demand", "auto-recall", "write" under "profiles"';
  return 'see schema/deployment.schema.json';
}

function issueFix(issue: z.core.$ZodIssue, value: unknown, root: unknown): string {
  const last = issue.path[issue.path.length - 1];
  switch (issue.code) {
    case 'unrecognized_keys':
      return `remove ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} (not a deployment key here)`;
    case 'invalid_type':
      return value === undefined ? `add "${String(last)}" (${issue.expected})` : `use a ${issue.expected}`;
    case 'too_big':
      if (last === 'timeoutMs' && issue.maximum === MCP_TIMEOUT_MS - 1)
        return `use at most ${MCP_TIMEOUT_MS - 1}: the provider timeout must end before the ${MCP_TIMEOUT_MS} ms MCP call timeout`;
      return `use a value of at most ${String(issue.maximum)}`;
    case 'too_small':
      return `use a value of at least ${String(issue.minimum)}`;
    case 'invalid_value':
      return oneOfFix(value, issue.values, (v) => JSON.stringify(v));
    case 'invalid_format':
      if (issue.format === 'regex')
        return 'use an environment variable name matching ^[A-Za-z_][A-Za-z0-9_]*$';
      return `use a valid ${issue.format}`;
    case 'invalid_union':
      if (issue.path.includes('credentials'))
        return 'use {"file": "<absolute path>"} or {"inherit": true}, optionally with "profiles": [...]';
      if (last === 'provider' || issue.path.includes('provider'))
        return 'use a provider block of type "generic-http-search-v1", "mem0-platform-v3", "mem0" or "dataworks-bff-memory-v1" (docs/admin.md, "Provider fields")';
      if (last === 'approvalGuard') return 'use false or {"modes": ["yolo", "auto"]}';
      return 'see schema/deployment.schema.json';
    case 'custom':
      return customFix(issue.path, value, root);
    default:
      return 'see schema/deployment.schema.json';
  }
}

function issueMessage(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code === 'invalid_type' && value === undefined) return 'is required';
  if (issue.code === 'unrecognized_keys') return 'has unknown keys';
  if (issue.code === 'invalid_union' && issue.path[issue.path.length - 1] === 'provider') {
    const type = getPath(value, ['type']);
    return typeof type === 'string'
      ? `is not a valid "${type}" provider block`
      : 'is not a valid provider block';
  }
  if (issue.code === 'custom' && issue.message === 'Invalid input') return 'is not valid';
  return issue.message.replace(/^Invalid input: /, '');
}

/**
 * A union that failed in every branch: when one branch got further (a deeper key path), its issues
 * explain the mistake better than "matches no branch" (e.g. `approvalGuard.modes[0]`).
 */
function unwrapUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  const depth = (branch: readonly z.core.$ZodIssue[]) => Math.max(...branch.map((i) => i.path.length));
  const best = issue.errors.reduce((a, b) => (depth(b) > depth(a) ? b : a));
  if (depth(best) === 0) return [issue];
  return best.flatMap((inner) =>
    unwrapUnion({ ...inner, path: [...issue.path, ...inner.path] } as z.core.$ZodIssue),
  );
}

/**
 * The keys a strict object of `schema` takes at `path` (following the raw value through unions, so a
 * provider block of one type offers that type's keys), or [] where the schema says nothing.
 */
export function schemaKeysAt(schema: z.core.$ZodType, path: readonly PropertyKey[], root: unknown): string[] {
  const keys = new Set<string>();
  const visit = (node: z.core.$ZodType, depth: number, value: unknown) => {
    const def = node._zod.def as unknown as Record<string, unknown> & { type: string };
    switch (def.type) {
      case 'optional':
      case 'default':
      case 'prefault':
      case 'nullable':
      case 'readonly':
        return visit(def.innerType as z.core.$ZodType, depth, value);
      case 'pipe':
        return visit(def.in as z.core.$ZodType, depth, value);
      case 'union': {
        const options = def.options as z.core.$ZodType[];
        // A discriminated block (`type`, `preset`): the option whose literal the value names, if any.
        const named = options.filter((o) => literalMatches(o, value));
        for (const option of named.length > 0 ? named : options) visit(option, depth, value);
        return;
      }
      case 'object': {
        const shape = def.shape as Record<string, z.core.$ZodType>;
        if (depth === path.length) {
          for (const key of Object.keys(shape)) keys.add(key);
          return;
        }
        const key = String(path[depth]);
        if (Object.hasOwn(shape, key)) visit(shape[key]!, depth + 1, getPath(value, [key]));
        return;
      }
      case 'record':
        if (depth < path.length)
          visit(def.valueType as z.core.$ZodType, depth + 1, getPath(value, [String(path[depth])]));
        return;
      case 'array':
        if (depth < path.length)
          visit(def.element as z.core.$ZodType, depth + 1, getPath(value, [path[depth] as number]));
        return;
    }
  };
  visit(schema, 0, root);
  return [...keys];
}

/** Whether `value` carries the literal a union option requires of one of its keys (e.g. its `type`). */
function literalMatches(option: z.core.$ZodType, value: unknown): boolean {
  const def = option._zod.def as unknown as { type: string; shape?: Record<string, z.core.$ZodType> };
  if (def.type !== 'object' || def.shape === undefined || !isPlainObject(value)) return false;
  return Object.entries(def.shape).some(([key, field]) => {
    const fieldDef = field._zod.def as unknown as { type: string; values?: unknown[] };
    return (
      fieldDef.type === 'literal' &&
      Object.hasOwn(value, key) &&
      fieldDef.values?.includes(value[key]) === true
    );
  });
}

/**
 * zod issues → problems naming the key, the bad value and the fix. With the `schema`, an unknown key
 * is one problem of its own, with "did you mean" when a known key of that object is close.
 */
export function problemsFromIssues(
  issues: readonly z.core.$ZodIssue[],
  root: unknown,
  schema?: z.core.$ZodType,
): Problem[] {
  return issues.flatMap(unwrapUnion).flatMap((issue) => {
    if (issue.code === 'unrecognized_keys' && schema !== undefined) {
      const known = schemaKeysAt(schema, issue.path, root);
      return issue.keys.map((key) => {
        const near = closest(key, known);
        const where = issue.path.length === 0 ? 'at the top level' : `in ${formatPath(issue.path)}`;
        return problem(
          [...issue.path, key],
          getPath(root, [...(issue.path as (string | number)[]), key]),
          `is not a key ${where}`,
          near === undefined
            ? `remove "${key}" (known here: ${known.map((k) => JSON.stringify(k)).join(', ')})`
            : `did you mean "${near}"? Rename "${key}" to "${near}"`,
        );
      });
    }
    const value = getPath(root, issue.path as (string | number)[]);
    return [problem(issue.path, value, issueMessage(issue, value), issueFix(issue, value, root))];
  });
}
