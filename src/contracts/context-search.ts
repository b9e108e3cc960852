// The MCP `context_search` contract: zod schemas for the tool's input and its structured output.
// scripts/generate-schemas.ts publishes them as JSON Schema; schema/context-search.vectors.json pins them.
import * as z from 'zod';
import { CONTEXT_NOTICE } from '../context/renderer.js';

const nonEmpty = () => z.string().min(1);

export const contextSearchInputShape = {
  // At least one non-whitespace character; unknown keys are rejected so the model cannot pick the corpus.
  query: z.string().regex(/\S/).describe('What to look up in the configured knowledge base.'),
};

export const contextSearchInputSchema = z.strictObject(contextSearchInputShape);

export const contextItemSchema = z.strictObject({
  id: nonEmpty(),
  content: nonEmpty(),
  title: nonEmpty().optional(),
  uri: nonEmpty().optional(),
  score: z.number().optional(),
  updatedAt: nonEmpty().optional(),
});

export const contextSearchOutputShape = {
  untrusted_external_context: z.strictObject({
    notice: z.literal(CONTEXT_NOTICE),
    items: z.array(contextItemSchema).max(5),
  }),
};

export const contextSearchOutputSchema = z.strictObject(contextSearchOutputShape);

export type ContextSearchInput = z.infer<typeof contextSearchInputSchema>;
export type ContextSearchOutput = z.infer<typeof contextSearchOutputSchema>;
