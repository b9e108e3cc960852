// launch.json checked by zod instead of src/startup/validators/launch-plan.ts (bench only).
import { launchPlanSchema } from '../../../src/contracts/launch-plan-schema.js';
import { zodValidation } from './zod-validation.js';

export const validateLaunchPlan = zodValidation(launchPlanSchema);
