// The JSON templates under templates/, bundled at build time like the policies (one source, read by
// render and, through render, by verify's drift check). Each file is data: render substitutes values
// into the parsed JSON (substitute.ts), never into its text.
import autoRecallProvider from '../../../templates/auto-recall/external-context.json' with { type: 'json' };
import autoRecallSettings from '../../../templates/auto-recall/system-settings.json' with { type: 'json' };
import onDemandProvider from '../../../templates/on-demand/external-context.json' with { type: 'json' };
import onDemandMcp from '../../../templates/on-demand/mcp.json' with { type: 'json' };
import onDemandSettings from '../../../templates/on-demand/system-settings.json' with { type: 'json' };
import openclawRecallProvider from '../../../templates/openclaw-recall/external-context.json' with {
  type: 'json',
};
import approvalGuard from '../../../templates/shared/approval-guard.json' with { type: 'json' };
import launchPlan from '../../../templates/shared/launch.json' with { type: 'json' };
import systemDefaults from '../../../templates/shared/system-defaults.json' with { type: 'json' };
import writeProvider from '../../../templates/write/external-context.json' with { type: 'json' };
import writeMcp from '../../../templates/write/mcp.json' with { type: 'json' };
import writeSettings from '../../../templates/write/system-settings.json' with { type: 'json' };
import type { AnyProfileKind, ProfileKind } from '../../contracts/launch-plan.js';

export interface TemplateSet {
  systemDefaults: unknown;
  launchPlan: unknown;
  providerConfig: Readonly<Record<AnyProfileKind, unknown>>;
  mcpConfig: Readonly<Record<Exclude<ProfileKind, 'auto-recall'>, unknown>>;
  /** One per profile, for every platform: render supplies the platform's part (`{{hookShell}}`, the hook commands). */
  systemSettings: Readonly<Record<ProfileKind, unknown>>;
  /** One `hooks.PreToolUse` matcher group for the approval guard. */
  approvalGuard: unknown;
}

export const TEMPLATES: TemplateSet = {
  systemDefaults,
  launchPlan,
  providerConfig: {
    'on-demand': onDemandProvider,
    'auto-recall': autoRecallProvider,
    write: writeProvider,
    'openclaw-recall': openclawRecallProvider,
  },
  mcpConfig: { 'on-demand': onDemandMcp, write: writeMcp },
  systemSettings: { 'on-demand': onDemandSettings, 'auto-recall': autoRecallSettings, write: writeSettings },
  approvalGuard,
};
