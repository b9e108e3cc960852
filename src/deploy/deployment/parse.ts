// deployment.json text → a validated Deployment, or DeploymentInvalid listing every problem.
import { canonicalJson, sha256Hex } from '../json.js';
import { DeploymentInvalid, problem, problemsFromIssues } from './problems.js';
import { type Deployment, deploymentSchema } from './schema.js';
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

export function parseDeploymentText(text: string, source = 'deployment.json'): ParsedDeployment {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    throw new DeploymentInvalid(source, [
      problem(
        [],
        undefined,
        `is not valid JSON${lineAndColumn(text, message)} (${message})`,
        'fix the JSON syntax',
      ),
    ]);
  }
  return parseDeploymentValue(raw, source);
}

export function parseDeploymentValue(raw: unknown, source = 'deployment.json'): ParsedDeployment {
  const parsed = deploymentSchema.safeParse(raw);
  if (!parsed.success) throw new DeploymentInvalid(source, problemsFromIssues(parsed.error.issues, raw));
  const problems = validateDeployment(parsed.data);
  if (problems.length > 0) throw new DeploymentInvalid(source, problems);
  return { deployment: parsed.data, sha256: deploymentSha256(raw) };
}
