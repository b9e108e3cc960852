// The MCP `context_search` contract: zod schemas for the tool's input and its structured output.
// scripts/generate-schemas.ts publishes them as JSON Schema; schema/context-search.vectors.json pins them.
// The bounds are upstream's published ones, in code points: zod's own `max` counts UTF-16 units, so
// each bound is a code-point refine (what the server enforces) plus `maxLength` metadata (what the
// JSON Schema publishes, and JSON Schema counts code points).
import * as z from 'zod';
import { FIELD_CAPS, MAX_ITEMS, MAX_QUERY_CODE_POINTS } from '../base/limits.js';
import { codePointLength } from '../text/codepoints.js';
import { CONTEXT_NOTICE } from './names.js';

export const QUERY_TOO_LONG = `The query is longer than ${MAX_QUERY_CODE_POINTS} characters.`;

const atMost = <T extends z.ZodString>(schema: T, max: number, message?: string) =>
  schema.refine((s) => codePointLength(s) <= max, message).meta({ maxLength: max });

const field = (max: number) => atMost(z.string().min(1), max);

export const contextSearchInputShape = {
  // At least one non-whitespace character; unknown keys are rejected so the model cannot pick the corpus.
  query: atMost(z.string().regex(/\S/), MAX_QUERY_CODE_POINTS, QUERY_TOO_LONG).describe(
    'What to look up in the configured knowledge base.',
  ),
};

export const contextSearchInputSchema = z.strictObject(contextSearchInputShape);

export const contextItemSchema = z.strictObject({
  id: field(FIELD_CAPS.id),
  content: field(FIELD_CAPS.content),
  title: field(FIELD_CAPS.title).optional(),
  uri: field(FIELD_CAPS.uri).optional(),
  score: z.number().optional(),
  updatedAt: field(FIELD_CAPS.updatedAt).optional(),
});

export const contextSearchOutputShape = {
  untrusted_external_context: z.strictObject({
    notice: z.literal(CONTEXT_NOTICE),
    items: z.array(contextItemSchema).max(MAX_ITEMS),
  }),
};

export const contextSearchOutputSchema = z.strictObject(contextSearchOutputShape);

export type ContextSearchInput = z.infer<typeof contextSearchInputSchema>;
export type ContextSearchOutput = z.infer<typeof contextSearchOutputSchema>;
