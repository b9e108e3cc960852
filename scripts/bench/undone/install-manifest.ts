// manifest.json checked by zod instead of src/startup/validators/install-manifest.ts (bench only).
import { installManifestSchema } from '../../../src/contracts/install-manifest-schema.js';
import { zodValidation } from './zod-validation.js';

export const validateInstallManifest = zodValidation(installManifestSchema);
