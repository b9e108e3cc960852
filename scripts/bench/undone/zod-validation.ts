// A start-up trick undone, for `npm run bench`: what a generated validator answers, asked of zod
// itself (the bench swaps this in for src/startup/validators/*.ts and measures the difference).
import type { Issue, Validation } from '../../../src/base/validation.js';

interface ZodSchema<T> {
  safeParse(value: unknown):
    | { success: true; data: T }
    | {
        success: false;
        error: { issues: { code: string; path: PropertyKey[]; expected?: unknown; keys?: string[] }[] };
      };
}

export function zodValidation<T>(schema: ZodSchema<T>): (value: unknown) => Validation<T> {
  return (value) => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return { ok: true, value: parsed.data };
    const issues = parsed.error.issues.map(
      ({ code, path, expected, keys }): Issue => ({
        code,
        path: path as (string | number)[],
        ...(typeof expected === 'string' ? { expected } : {}),
        ...(keys === undefined ? {} : { keys }),
      }),
    );
    return { ok: false, issues };
  };
}
