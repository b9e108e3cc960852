// The one test for "a JSON object": what the hooks, the providers and the deployment tools accept
// as an object when they read untrusted JSON. A leaf module, so the hooks load nothing else with it.

export type JsonObject = Record<string, unknown>;

/** An object that is not null and not an array. */
export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
