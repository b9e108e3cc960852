// deployment.json text → a validated Deployment, or DeploymentInvalid listing every problem.

import { sha256Hex } from '../../base/hash.js';
import { isPlainObject } from '../../text/json.js';
import { type JsoncNode, parseJsonc } from '../../text/jsonc.js';
import { canonicalJson } from '../json.js';
import { DeploymentInvalid, type Problem, problem, problemsFromIssues } from './problems.js';
import { type Deployment, deploymentSchema } from './schema.js';
import { settingsFactsProblems } from './settings.js';
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

export function parseDeploymentValue(
  raw: unknown,
  source = 'deployment.json',
  earlier: readonly Problem[] = [],
): ParsedDeployment {
  const parsed = deploymentSchema.safeParse(raw);
  if (!parsed.success) {
    // Every problem of the file at once: the settings block is checked even when another key is wrong.
    const settings = isPlainObject(raw) ? raw.settings : undefined;
    throw new DeploymentInvalid(source, [
      ...earlier,
      ...problemsFromIssues(parsed.error.issues, raw),
      ...(isPlainObject(settings) ? settingsFactsProblems(settings) : []),
    ]);
  }
  const problems = [...earlier, ...validateDeployment(parsed.data)];
  if (problems.length > 0) throw new DeploymentInvalid(source, problems);
  return { deployment: parsed.data, sha256: deploymentSha256(raw) };
}
