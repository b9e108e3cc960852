// The JSON Schema of a Qwen version's settings, built from the extracted facts and Qwen's own
// descriptions (policies/qwen/<version>/), for the published deployment schema: an editor then
// completes and explains every `settings` key. Its own module: the descriptions are large and only
// schema generation needs them.
import descriptions0244 from '../../policies/qwen/0.24.4/settings-descriptions.json' with { type: 'json' };
import { qwenSettingsFacts } from './settings-facts.js';
import { qwenVersionFacts, type SettingFact } from './versions.js';

const DESCRIPTIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  '0.24.4': descriptions0244.descriptions,
};

export interface JsonSchemaNode {
  type?: string;
  description?: string;
  enum?: readonly unknown[];
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchemaNode>;
  additionalProperties?: boolean;
  anyOf?: JsonSchemaNode[];
}

function leaf(fact: SettingFact, description: string | undefined): JsonSchemaNode {
  const node: JsonSchemaNode = {};
  if (fact.anyOf !== undefined) node.anyOf = fact.anyOf.map((type) => ({ type }));
  else if (fact.type === 'enum') node.enum = fact.enum ?? [];
  else if (fact.type !== 'unknown') node.type = fact.type;
  if (fact.min !== undefined) node.minimum = fact.min;
  if (fact.max !== undefined) node.maximum = fact.max;
  if (description !== undefined) node.description = description;
  return node;
}

/**
 * `{properties, additionalProperties}` for the settings block: nested objects for the keys Qwen
 * declares sub-keys of (closed, as render refuses unknown keys there), free-form objects elsewhere.
 * `extra` adds keys that are not Qwen settings but may appear (the baseline's `$version`).
 */
export function qwenSettingsJsonSchema(
  version: string,
  extra: Readonly<Record<string, JsonSchemaNode>> = {},
): JsonSchemaNode | undefined {
  const facts = qwenSettingsFacts(version);
  const texts = DESCRIPTIONS[qwenVersionFacts(version)?.settingsFile ?? ''] ?? {};
  if (facts === undefined) return undefined;
  const root: JsonSchemaNode = { properties: { ...extra }, additionalProperties: false };
  // Sorted keys: a parent ("model") always comes before its children ("model.name").
  for (const name of Object.keys(facts).sort()) {
    const segments = name.split('.');
    let parent = root;
    for (const segment of segments.slice(0, -1)) {
      const next = parent.properties?.[segment];
      if (next === undefined) break;
      parent = next;
    }
    const node = leaf(facts[name]!, texts[name]);
    if (facts[name]!.type === 'object' && Object.keys(facts).some((n) => n.startsWith(`${name}.`))) {
      node.properties = {};
      node.additionalProperties = false;
    }
    parent.properties ??= {};
    parent.properties[segments.at(-1)!] = node;
  }
  return root;
}
