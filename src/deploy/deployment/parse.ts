// deployment.json text → a validated Deployment, or DeploymentInvalid listing every problem.

import type * as z from 'zod';
import { sha256Hex } from '../../base/hash.js';
import { CREDENTIAL_NAME } from '../../config/names.js';
import { isPlainObject, type JsonObject } from '../../text/json.js';
import { type JsoncNode, parseJsonc } from '../../text/jsonc.js';
import { canonicalJson, formatPath, getPath } from '../json.js';
import { DeploymentInvalid, formatProblem, type Problem, problem, problemsFromIssues } from './problems.js';
import { type Deployment, deploymentSchema } from './schema.js';
import { PROTOTYPE_KEYS, settingsFactsProblems } from './settings.js';
import { validateDeployment } from './validate.js';

export interface ParsedDeployment {
  deployment: Deployment;
  /** sha256 of the canonical JSON (sorted keys, no whitespace) of the file, `$schema` excluded. */
  sha256: string;
}

/** Canonical-JSON sha256 of a deployment document: re-formatting or re-ordering the file is no drift. */
export function deploymentSha256(raw: unknown): string {
  const copy = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? { ...raw } : raw;
  // `$schema` only points editors at the JSON Schema; where it points is not part of the deployment.
  if (typeof copy === 'object' && copy !== null) delete (copy as Record<string, unknown>).$schema;
  return sha256Hex(canonicalJson(copy));
}

function lineAndColumn(text: string, message: string): string {
  const at = /position (\d+)/.exec(message);
  if (at === null) return '';
  const offset = Number(at[1]);
  const before = text.slice(0, offset).split('\n');
  return ` at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

const BOM = '\ufeff';

function lineOf(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/**
 * Keys written twice in one object: JSON.parse keeps the last one silently, so an administrator's
 * edit lower in the file would quietly win over (or lose to) the one they are looking at.
 */
function duplicateKeyProblems(text: string, node: JsoncNode, keyPath: (string | number)[] = []): Problem[] {
  if (node.kind === 'array')
    return node.elements.flatMap((element, i) => duplicateKeyProblems(text, element, [...keyPath, i]));
  if (node.kind !== 'object') return [];
  const problems: Problem[] = [];
  const first = new Map<string, number>();
  for (const property of node.properties) {
    const earlier = first.get(property.key);
    if (earlier === undefined) first.set(property.key, property.start);
    else {
      problems.push(
        problem(
          [...keyPath, property.key],
          undefined,
          `is written twice (${lineOf(text, earlier)} and ${lineOf(text, property.start)}); JSON readers would silently keep the last one`,
          `keep one "${property.key}" in this object`,
        ),
      );
    }
  }
  // Descend into the value that counts (the last), as JSON.parse does.
  const seen = new Set<string>();
  for (const property of [...node.properties].reverse()) {
    if (seen.has(property.key)) continue;
    seen.add(property.key);
    problems.push(...duplicateKeyProblems(text, property.node, [...keyPath, property.key]));
  }
  return problems;
}

export function parseDeploymentText(text: string, source = 'deployment.json'): ParsedDeployment {
  const problems: Problem[] = [];
  // A byte-order mark: some Windows editors add one; JSON (RFC 8259) forbids it and JSON.parse chokes on it.
  if (text.startsWith(BOM)) {
    problems.push(
      problem(
        [],
        undefined,
        'starts with a UTF-8 byte-order mark (bytes EF BB BF)',
        'save the file as UTF-8 without BOM (e.g. in VS Code: "Save with Encoding" → UTF-8)',
      ),
    );
  }
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (error) {
    const message = (error as Error).message;
    throw new DeploymentInvalid(source, [
      ...problems,
      problem(
        [],
        undefined,
        `is not valid JSON${lineAndColumn(body, message)} (${message})`,
        'fix the JSON syntax',
      ),
    ]);
  }
  // Strict JSON parsed, so the position-keeping parser accepts it too; it sees every duplicate.
  problems.push(...duplicateKeyProblems(body, parseJsonc(body)));
  return parseDeploymentValue(raw, source, problems);
}

/** A placeholder pin no check can mistake for a real one (its own key's problems are dropped). */
const PLACEHOLDER_PATH = {
  posix: '/qwen-managed-placeholder',
  windows: 'C:\\qwen-managed-placeholder',
} as const;

/** A valid provider naming the refused block's credential variable (so routing is judged as written). */
function placeholderProvider(write: boolean, refused: unknown): JsonObject {
  const named = ['tokenEnv', 'apiKeyEnv', 'credentialEnv']
    .map((key) => (isPlainObject(refused) ? refused[key] : undefined))
    .find((name): name is string => typeof name === 'string' && CREDENTIAL_NAME.test(name));
  const variable = named ?? 'QWEN_MANAGED_PLACEHOLDER';
  return write
    ? { type: 'mem0-platform-v3', apiKeyEnv: variable, appId: 'placeholder' }
    : { type: 'generic-http-search-v1', baseUrl: 'https://placeholder.invalid', tokenEnv: variable };
}

interface Repaired {
  value: unknown;
  /** Key paths (formatted) whose problems the schema already reported. */
  touched: string[];
  /** A profile was dropped: credential routing would judge a deployment without it. */
  droppedProfile: boolean;
}

/**
 * The deployment with every part the schema refused set aside — a default restored, an optional key
 * removed, a pin replaced by a placeholder, a broken profile dropped — so that the cross-field rules
 * can still report what else is wrong: every problem of the file in one run. Undefined when nothing
 * meaningful is left to judge (no platform, no profile).
 */
function repairForValidation(raw: unknown, issues: readonly z.core.$ZodIssue[]): Repaired | undefined {
  if (!isPlainObject(raw)) return undefined;
  const value = structuredClone(raw);
  const touched: string[] = [];
  let droppedProfile = false;
  const platform: 'posix' | 'windows' | undefined =
    value.platform === 'posix' || value.platform === 'windows' ? value.platform : undefined;
  for (const issue of issues) {
    const path = issue.path as (string | number)[];
    const [top, second, third] = path;
    if (issue.code === 'unrecognized_keys') {
      const parent = path.length === 0 ? value : getPath(value, path);
      for (const key of issue.keys) {
        if (isPlainObject(parent)) delete parent[key];
        touched.push(formatPath([...path, key]));
      }
      continue;
    }
    switch (top) {
      case undefined:
      case 'platform':
        return undefined;
      case 'version':
        value.version = 1;
        break;
      case 'installDir':
      case 'node':
      case 'qwenCli':
      case 'repositoryRoot':
        if (platform === undefined) return undefined;
        value[top] = PLACEHOLDER_PATH[platform];
        break;
      case 'environment': {
        const environment = value.environment;
        if (!isPlainObject(environment) || second === undefined) return undefined;
        if (second === 'PATH') environment.PATH = PLACEHOLDER_PATH[platform ?? 'posix'];
        else delete environment[second];
        touched.push(formatPath([top, second]));
        continue;
      }
      case 'credentials': {
        // A credential of the wrong shape still routes by its name.
        const credentials = value.credentials;
        if (second === undefined || !isPlainObject(credentials)) delete value.credentials;
        else credentials[second] = { inherit: true };
        touched.push(formatPath(second === undefined ? [top] : [top, second]));
        continue;
      }
      case 'profiles': {
        const profiles = value.profiles;
        if (second === undefined || !isPlainObject(profiles)) return undefined;
        const profile = profiles[second];
        if ((third === 'timeoutMs' || third === 'repositoryTrust') && isPlainObject(profile)) {
          delete profile[third];
          touched.push(formatPath([top, second, third]));
        } else if (third === 'provider' && isPlainObject(profile)) {
          // A provider the schema refused: one that names the same credential stands in for it.
          profile.provider = placeholderProvider(second === 'write', profile.provider);
          touched.push(formatPath([top, second, third]));
        } else {
          delete profiles[second];
          droppedProfile = true;
          touched.push(formatPath([top, second]));
        }
        if (Object.keys(profiles).length === 0) return undefined;
        continue;
      }
      default:
        delete value[top];
    }
    touched.push(formatPath([top]));
  }
  return { value, touched, droppedProfile };
}

function under(key: string, prefix: string): boolean {
  return key === prefix || key.startsWith(`${prefix}.`) || key.startsWith(`${prefix}[`);
}

/** The name records whose keys become variables: zod assigns `__proto__` onto the prototype (lost). */
const NAME_RECORDS: readonly (readonly string[])[] = [['credentials'], ['environment', 'set']];

/** `__proto__`, `constructor`, `prototype` as a variable name: refused, never silently dropped. */
function prototypeKeyProblems(raw: unknown): Problem[] {
  return NAME_RECORDS.flatMap((at) => {
    const record = getPath(raw, [...at]);
    if (!isPlainObject(record)) return [];
    return Object.keys(record)
      .filter((key) => PROTOTYPE_KEYS.has(key))
      .map((key) =>
        problem(
          [...at, key],
          undefined,
          'is a reserved JavaScript name, not a variable name: the entry would silently vanish',
          `remove "${key}" (variable names match ^[A-Za-z_][A-Za-z0-9_]*$ and are not "__proto__", "constructor" or "prototype")`,
        ),
      );
  });
}

export function parseDeploymentValue(
  raw: unknown,
  source = 'deployment.json',
  before: readonly Problem[] = [],
): ParsedDeployment {
  const earlier = [...before, ...prototypeKeyProblems(raw)];
  const parsed = deploymentSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = [...earlier, ...problemsFromIssues(parsed.error.issues, raw, deploymentSchema)];
    // Every problem of the file at once: the cross-field rules judge what the schema accepted.
    const repaired = repairForValidation(raw, parsed.error.issues);
    const again = repaired === undefined ? undefined : deploymentSchema.safeParse(repaired.value);
    if (repaired !== undefined && again?.success === true) {
      const shown = new Set(problems.map(formatProblem));
      for (const p of validateDeployment(again.data)) {
        if (repaired.touched.some((t) => under(p.key, t))) continue;
        if (repaired.droppedProfile && under(p.key, 'credentials')) continue;
        if (!shown.has(formatProblem(p))) problems.push(p);
      }
    } else {
      const settings = isPlainObject(raw) ? raw.settings : undefined;
      if (isPlainObject(settings)) problems.push(...settingsFactsProblems(settings));
    }
    throw new DeploymentInvalid(source, problems);
  }
  const problems = [...earlier, ...validateDeployment(parsed.data)];
  if (problems.length > 0) throw new DeploymentInvalid(source, problems);
  return { deployment: parsed.data, sha256: deploymentSha256(raw) };
}
