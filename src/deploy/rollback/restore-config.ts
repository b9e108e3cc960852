// A saved provider config to restore must be a valid version-1 config (the on-demand shape): the
// runtimes' own parser decides, before anything is written. A refusal names the key, the bad value
// and the fix, every problem at once, as render does for deployment.json.
import * as fs from 'node:fs/promises';
import { ConfigurationError } from '../../base/errors.js';
import { parseRuntimeConfig } from '../../config/load.js';
import { runtimeConfigSchema } from '../../config/schema.js';
import { formatProblem, type Problem, problem, problemsFromIssues } from '../deployment/problems.js';
import { mem0ScopeProblem } from '../deployment/validate.js';
import { RollbackError } from './types.js';

/** Every problem of a config the runtimes' parser refused, as the administrator should read it. */
function configProblems(error: ConfigurationError, text: string): Problem[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (parseError) {
    return [
      problem([], undefined, `is not valid JSON (${(parseError as Error).message})`, 'fix the JSON syntax'),
    ];
  }
  const version = (raw as { version?: unknown } | null)?.version;
  switch (error.code) {
    case 'schema-invalid': {
      const parsed = runtimeConfigSchema.safeParse(raw);
      if (!parsed.success) return problemsFromIssues(parsed.error.issues, raw, runtimeConfigSchema);
      break;
    }
    case 'version-unsupported':
      return [
        problem(
          ['version'],
          version,
          version === 2
            ? 'is an auto-recall config; only a version-1 config (on-demand, write) can be restored'
            : 'is not a version-1 config',
          'restore the version-1 config saved from the on-demand (or write) profile',
        ),
      ];
    case 'scope-invalid': {
      const config = parseRuntimeConfigLoosely(raw);
      const found = config === undefined ? [] : mem0ScopeProblem(['provider'], config);
      if (found.length > 0) return found;
      break;
    }
    case 'write-unsupported':
      return [
        problem(
          ['write'],
          { enabled: true },
          'needs a provider that writes (a Mem0 preset with a write, or the DataWorks BFF)',
          'remove "write", or use "mem0-platform-v3", "dataworks-bff-memory-v1" or a "mem0" preset with writes',
        ),
      ];
  }
  return [problem(error.keyPath ?? [], undefined, error.message.replace(/\.$/, ''), 'see docs/admin.md')];
}

/** The schema's reading of a config whose schema step passed (the scope rules come after it). */
function parseRuntimeConfigLoosely(raw: unknown) {
  const parsed = runtimeConfigSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

export async function readSavedV1Config(file: string): Promise<Buffer> {
  const bytes = await fs.readFile(file).catch(() => undefined);
  if (bytes === undefined)
    throw new RollbackError(
      `cannot read the saved provider config ${file}; nothing was changed. Fix: give the path of the saved version-1 config (e.g. a copy of profiles/on-demand/external-context.json)`,
    );
  try {
    parseRuntimeConfig(bytes.toString('utf8'), 1);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    const problems = configProblems(error, bytes.toString('utf8'));
    throw new RollbackError(
      `${file} is not a restorable version-1 provider config; nothing was changed: ${problems.length} problem(s)\n${problems.map((p) => `  - ${formatProblem(p)}`).join('\n')}`,
    );
  }
  return bytes;
}
