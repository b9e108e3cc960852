// `<installDir>/manifest.json` in the pinned shape (docs/admin.md, "The install tree"). Every file
// under installDir except `backups/` is listed with its sha256 and mode; profiles carry their active /
// rolled-back state. The zod schema sits in install-manifest-schema.ts, so the launcher can import
// these names without loading zod.
import type * as z from 'zod/mini';
import type { installManifestSchema } from './install-manifest-schema.js';

export type InstallManifest = z.infer<typeof installManifestSchema>;

export const MANIFEST_FILE = 'manifest.json';
export const BACKUPS_DIR = 'backups';
