// JSON-aware template substitution: render walks the PARSED template and replaces string values that
// are exactly one placeholder (`"{{name}}"`) with a JSON value. Never string-level templating of JSON:
// a value cannot break out of its string, and a placeholder inside a longer string is a template bug.
import { EXIT, ManagedError } from '../../base/errors.js';
import { isPlainObject, type JsonObject } from '../../text/json.js';
import { formatPath } from '../json.js';

export type TemplateValues = Readonly<Record<string, unknown>>;

/** A value that leaves its key out: one template serves every platform (`"shell"` only on Windows). */
export const OMIT: unique symbol = Symbol('omit');

const PLACEHOLDER = /^\{\{([A-Za-z][\w.:-]*)\}\}$/;

/** A shipped template that does not fit its values: a bug of this toolkit, so exit 70. */
export class TemplateError extends ManagedError {
  override readonly name = 'TemplateError';
  readonly exitCode = EXIT.internal;
  readonly fixedMessage = false;
}

export function substitute(
  template: unknown,
  values: TemplateValues,
  path: (string | number)[] = [],
): unknown {
  if (typeof template === 'string') {
    const match = PLACEHOLDER.exec(template);
    if (match !== null) {
      const name = match[1]!;
      if (!Object.hasOwn(values, name) || values[name] === undefined) {
        throw new TemplateError(`template placeholder {{${name}}} at ${formatPath(path)} has no value`);
      }
      return values[name] === OMIT ? OMIT : structuredClone(values[name]);
    }
    if (template.includes('{{') || template.includes('}}')) {
      throw new TemplateError(`template string at ${formatPath(path)} embeds a placeholder in other text`);
    }
    return template;
  }
  if (Array.isArray(template)) {
    return template.map((element, i) => {
      const substituted = substitute(element, values, [...path, i]);
      // Only an object key can be left out; a list element that vanished would shift the others.
      if (substituted === OMIT)
        throw new TemplateError(`template list at ${formatPath(path)} omits an element`);
      return substituted;
    });
  }
  if (isPlainObject(template)) {
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(template)) {
      if (key.includes('{{'))
        throw new TemplateError(`template key at ${formatPath(path)} holds a placeholder`);
      const substituted = substitute(value, values, [...path, key]);
      if (substituted !== OMIT) out[key] = substituted;
    }
    return out;
  }
  return template;
}

/** Every placeholder name a template uses (for tests that keep templates and renderer in step). */
export function placeholders(template: unknown): string[] {
  const found = new Set<string>();
  const walk = (value: unknown) => {
    if (typeof value === 'string') {
      const match = PLACEHOLDER.exec(value);
      if (match !== null) found.add(match[1]!);
    } else if (Array.isArray(value)) value.forEach(walk);
    else if (isPlainObject(value)) Object.values(value).forEach(walk);
  };
  walk(template);
  return [...found].sort();
}
