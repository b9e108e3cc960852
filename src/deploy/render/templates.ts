// The JSON templates under templates/, bundled at build time like the policies (one source, read by
// render and, through render, by verify's drift check). Each file is data: render substitutes values
// into the parsed JSON (substitute.ts), never into its text.
import autoRecallProvider from '../../../templates/auto-recall/external-context.json' with { type: 'json' };
import onDemandProvider from '../../../templates/on-demand/external-context.json' with { type: 'json' };
import onDemandMcp from '../../../templates/on-demand/mcp.json' with { type: 'json' };
import posixGuard from '../../../templates/posix/approval-guard.json' with { type: 'json' };
import posixAutoRecall from '../../../templates/posix/auto-recall/system-settings.json' with { type: 'json' };
import posixOnDemand from '../../../templates/posix/on-demand/system-settings.json' with { type: 'json' };
import posixWrite from '../../../templates/posix/write/system-settings.json' with { type: 'json' };
import launchPlan from '../../../templates/shared/launch.json' with { type: 'json' };
import systemDefaults from '../../../templates/shared/system-defaults.json' with { type: 'json' };
import windowsGuard from '../../../templates/windows/approval-guard.json' with { type: 'json' };
import windowsAutoRecall from '../../../templates/windows/auto-recall/system-settings.json' with {
  type: 'json',
};
import windowsOnDemand from '../../../templates/windows/on-demand/system-settings.json' with { type: 'json' };
import windowsWrite from '../../../templates/windows/write/system-settings.json' with { type: 'json' };
import writeProvider from '../../../templates/write/external-context.json' with { type: 'json' };
import writeMcp from '../../../templates/write/mcp.json' with { type: 'json' };
import type { Platform } from '../../base/platform.js';
import type { ProfileKind } from '../../contracts/launch-plan.js';

export interface TemplateSet {
  systemDefaults: unknown;
  launchPlan: unknown;
  providerConfig: Readonly<Record<ProfileKind, unknown>>;
  mcpConfig: Readonly<Record<Exclude<ProfileKind, 'auto-recall'>, unknown>>;
  systemSettings: Readonly<Record<Platform, Readonly<Record<ProfileKind, unknown>>>>;
  /** One `hooks.PreToolUse` matcher group for the approval guard. */
  approvalGuard: Readonly<Record<Platform, unknown>>;
}

export const TEMPLATES: TemplateSet = {
  systemDefaults,
  launchPlan,
  providerConfig: { 'on-demand': onDemandProvider, 'auto-recall': autoRecallProvider, write: writeProvider },
  mcpConfig: { 'on-demand': onDemandMcp, write: writeMcp },
  systemSettings: {
    posix: { 'on-demand': posixOnDemand, 'auto-recall': posixAutoRecall, write: posixWrite },
    windows: { 'on-demand': windowsOnDemand, 'auto-recall': windowsAutoRecall, write: windowsWrite },
  },
  approvalGuard: { posix: posixGuard, windows: windowsGuard },
};
