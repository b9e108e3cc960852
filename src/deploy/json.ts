// Small JSON helpers shared by render, verify and rollback. Pure functions, no I/O.
import { isPlainObject } from '../text/json.js';

/** Structural equality of JSON values (object key order ignored, array order significant). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((element, i) => deepEqual(element, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
}

/** `value` with every object's keys in sorted order: re-ordering an admin's JSON is not drift. */
export function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedKeys(value[key]);
  return out;
}

/** The one serialisation of every rendered JSON file: 2-space indentation and a final newline. */
export function renderJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Canonical JSON: sorted keys, no insignificant whitespace (re-formatting a file is not drift). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The value at a dotted key path, or undefined. */
export function getPath(value: unknown, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (Array.isArray(current) && typeof key === 'number') current = current[key];
    else if (isPlainObject(current) && Object.hasOwn(current, String(key))) current = current[String(key)];
    else return undefined;
  }
  return current;
}

/** `a.b[2].c` style display of a key path. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$-]*$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out === '' ? '(top level)' : out;
}

/** A short JSON rendering of a value for error messages (never used for credential values). */
export function showValue(value: unknown, max = 80): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : JSON.stringify(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
