// The hook's config checked by zod instead of src/startup/validators/runtime-config.ts (bench only).
import { runtimeConfigSchema } from '../../../src/config/schema.js';
import { zodValidation } from './zod-validation.js';

export const validateRuntimeConfig = zodValidation(runtimeConfigSchema);
