// What a validator generated from a zod schema (src/startup/validators/, scripts/generate-validators.ts)
// answers: the parsed value, or zod's issues — the same codes, paths, expected types and unknown keys,
// in the same order (test/unit/startup/validators.test.ts proves it on tables and random documents).

export interface Issue {
  /** zod's code: invalid_type, invalid_value, invalid_union, unrecognized_keys, invalid_format, too_small, too_big, custom. */
  code: string;
  /** Where in the document: keys and array indexes from the root. */
  path: readonly (string | number)[];
  /** The type expected (invalid_type): `string`, `int`, `object`, `record`, `nonoptional`, … */
  expected?: string;
  /** The unknown keys (unrecognized_keys). */
  keys?: string[];
  /** zod's flag: the value's later checks still run after this issue (it does not abort them). */
  continue?: boolean;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/** zod's abort rule: an issue from `start` on that is not marked `continue` stops the value's checks. */
export function aborted(issues: readonly Issue[], start: number): boolean {
  for (let i = start; i < issues.length; i++) if (issues[i]!.continue !== true) return true;
  return false;
}
