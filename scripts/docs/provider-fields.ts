// docs/admin.md's provider-field tables, generated from the provider schema's own descriptions
// (src/config/schema.ts): one table per provider type, so the guide cannot drift from what the
// runtimes accept. `npm run schemas` writes them between the markers; a unit test compares.
import * as z from 'zod';
import { providerSchema } from '../../src/config/schema.js';
import { withGeneratedBlock } from './admin-doc.js';

export { ADMIN_DOC } from './admin-doc.js';

interface Node {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  default?: unknown;
  description?: string;
  properties?: Record<string, Node>;
  required?: string[];
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function fieldValue(node: Node): string {
  if (node.const !== undefined) return `\`${JSON.stringify(node.const)}\``;
  if (node.enum !== undefined) return `one of ${node.enum.map((v) => `\`${String(v)}\``).join(', ')}`;
  if (node.pattern !== undefined) return `variable name (\`${node.pattern}\`)`;
  if (node.type === 'object') return 'object (below)';
  return node.type ?? 'any';
}

function rows(properties: Record<string, Node>, required: readonly string[], prefix: string): string[] {
  const out: string[] = [];
  for (const [key, node] of Object.entries(properties)) {
    const name = `${prefix}${key}`;
    const need = required.includes(key)
      ? 'yes'
      : node.default === undefined
        ? 'no'
        : `no (default \`${JSON.stringify(node.default)}\`)`;
    out.push(`| \`${name}\` | ${need} | ${cell(fieldValue(node))} | ${cell(node.description ?? '')} |`);
    if (node.type === 'object' && node.properties !== undefined)
      out.push(...rows(node.properties, node.required ?? [], `${name}.`));
  }
  return out;
}

/** The generated block: a table per provider type, in the union's order. */
export function providerFieldsBlock(): string {
  const schema = z.toJSONSchema(providerSchema as unknown as z.core.$ZodType, { io: 'input' }) as {
    oneOf?: Node[];
    anyOf?: Node[];
  };
  const variants = schema.oneOf ?? schema.anyOf ?? [];
  const parts: string[] = [];
  for (const variant of variants) {
    const type = String(variant.properties?.['type']?.const ?? '');
    parts.push(
      `**\`${type}\`** — ${cell(variant.description ?? '')}`,
      '',
      '| field | required | value | meaning |',
      '|---|---|---|---|',
      ...rows(variant.properties ?? {}, variant.required ?? [], ''),
      '',
    );
  }
  return parts.join('\n');
}

/** `docs/admin.md` with the block between the markers replaced by a fresh generation. */
export function withProviderFields(adminDoc: string): string {
  return withGeneratedBlock(adminDoc, 'provider-fields', providerFieldsBlock());
}
