// profiles/<kind>/rollback.json: written by rollback next to the files it changed, listed and hashed
// in manifest.json like every file. A later render reads it to reproduce the rolled-back files
// byte for byte (a routine re-render must not undo an emergency rollback).
import * as z from 'zod/mini';
import { HOOK_APPROVAL_GUARD, HOOK_AUTO_RECALL, HOOK_WRITE_CONFIRMATION } from '../../contracts/names.js';
import { renderJson } from '../json.js';

export const MANAGED_HOOK_NAMES = [HOOK_AUTO_RECALL, HOOK_WRITE_CONFIRMATION, HOOK_APPROVAL_GUARD] as const;

export const rollbackRecordSchema = z.strictObject({
  version: z.literal(1),
  /** Managed hooks removed from the profile's system settings (sorted). */
  removedHooks: z.array(z.enum(MANAGED_HOOK_NAMES)),
  /** sha256 of the saved version-1 provider config restored over external-context.json, if any. */
  restoredConfigSha256: z.optional(z.string().check(z.regex(/^[0-9a-f]{64}$/))),
});
export type RollbackRecord = z.infer<typeof rollbackRecordSchema>;

export function parseRollbackRecord(text: string): RollbackRecord | undefined {
  try {
    const parsed = rollbackRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The one serialisation of a record (rollback writes it; render reproduces it byte for byte). */
export function rollbackRecordText(record: RollbackRecord): string {
  const out: RollbackRecord = { version: 1, removedHooks: [...new Set(record.removedHooks)].sort() };
  if (record.restoredConfigSha256 !== undefined) out.restoredConfigSha256 = record.restoredConfigSha256;
  return renderJson(out);
}
