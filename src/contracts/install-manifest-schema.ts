// The zod schema of `<installDir>/manifest.json` (install-manifest.ts has its names and type): render,
// verify and rollback parse with it; the launcher checks the JSON Schema generated from it
// (schema/install-manifest.schema.json).
import * as z from 'zod/mini';
import { ALL_PROFILE_KINDS } from './launch-plan.js';

export const installManifestSchema = z.strictObject({
  toolkitVersion: z.string(),
  deploymentSha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  adminUid: z.int().check(z.gte(0)),
  // Which deployment.json owns the tree (absolute path at render time): a render of another file that
  // would retire its profiles is refused. Absent in trees rendered before the field existed.
  deploymentFile: z.optional(z.string()),
  files: z.record(
    z.string(),
    z.strictObject({
      sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
      mode: z.string().check(z.regex(/^0[0-7]{3}$/)),
    }),
  ),
  profiles: z.partialRecord(
    z.enum(ALL_PROFILE_KINDS),
    z.strictObject({ state: z.enum(['active', 'rolled-back']), changedAt: z.string() }),
  ),
});
