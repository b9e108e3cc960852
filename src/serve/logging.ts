// Access log lines for the context server. A query reaches the log only when the operator asked for it.
import type { Writable } from 'node:stream';

export interface AccessLogEntry {
  time: Date;
  method: string;
  /** The served route, or `-` for any other path (a path is client text and could carry a query). */
  route: string;
  status: number;
  durationMs: number;
  items: number;
  /** The error code answered, if any. */
  error?: string;
  query?: string;
}

/** One line: time, method, route, status, duration, item count, then the error code and query if present. */
export function formatAccessLog(entry: AccessLogEntry, logQueries: boolean): string {
  const parts = [
    entry.time.toISOString(),
    entry.method,
    entry.route,
    String(entry.status),
    `${Math.round(entry.durationMs)}ms`,
    `items=${entry.items}`,
  ];
  if (entry.error !== undefined) parts.push(`error=${entry.error}`);
  // JSON quoting keeps a multi-line query on one line.
  if (logQueries && entry.query !== undefined) parts.push(`query=${JSON.stringify(entry.query)}`);
  return `${parts.join(' ')}\n`;
}

/** Returns a logger writing to `log`, or a no-op when there is no log. */
export function createAccessLogger(
  log: Writable | undefined,
  logQueries: boolean,
): (entry: AccessLogEntry) => void {
  if (log === undefined) return () => undefined;
  return (entry) => {
    log.write(formatAccessLog(entry, logQueries));
  };
}
