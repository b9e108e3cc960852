// One audit line per request the broker answers, keyed by the caller's uid (docs/admin.md, "The
// credential broker": where to read it). A JSON object per line on the broker's stdout — the journal
// under systemd. Never a body, a header value, a query string or a credential: the method, the path
// (capped, control characters escaped), who, which listener, what the broker decided and the sizes.

export type AuditDecision = 'forwarded' | 'refused' | 'failed' | 'health';

export interface AuditRecord {
  /** ISO time the request arrived. */
  time: string;
  /** The caller's uid from the kernel's socket table; null when no row was found. */
  uid: number | null;
  /** The account name of that uid, when the user database knows it. */
  user: string | null;
  listener: string;
  method: string;
  path: string;
  decision: AuditDecision;
  /** The status the caller received. */
  status: number;
  /** Why the broker refused or failed (fixed words). */
  reason?: string;
  /** Occurrences of a held credential removed from the request body. */
  stripped?: number;
  bytesIn: number;
  bytesOut: number;
  /** Until the last byte went to the caller (or the exchange ended). */
  ms: number;
}

/** Longest path kept in a line: enough for every routed path, bounded for whatever else arrives. */
export const AUDIT_PATH_CHARS = 256;

/** A request target as the audit shows it: the query dropped, controls escaped, length capped. */
export function auditPath(target: string): string {
  const cut = target.search(/[?#]/);
  const path = cut === -1 ? target : `${target.slice(0, cut)}${target[cut] === '?' ? '?…' : '#…'}`;
  const escaped = path.replace(
    /[\u0000-\u001f\u007f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return escaped.length > AUDIT_PATH_CHARS ? `${escaped.slice(0, AUDIT_PATH_CHARS)}…` : escaped;
}

export function auditLine(record: AuditRecord): string {
  return `${JSON.stringify(record)}\n`;
}
