// Shared provider contracts. Pure types: nothing here touches the network.
import type { JsonObject } from '../text/json.js';

/** One normalised search result, in provider ranking order. */
export interface ContextItem {
  id: string;
  content: string;
  title?: string;
  uri?: string;
  updatedAt?: string;
  score?: number;
}

export interface SearchRequest {
  query: string;
  /** Requested result count; providers never ask for more than 5. */
  limit: number;
  signal: AbortSignal;
}

export interface SearchProvider {
  search(request: SearchRequest): Promise<ContextItem[]>;
}

/** Outcome of one memory write. `accepted` = queued (Platform V3 PENDING), never reported as `stored`. */
export type RememberResult =
  | { status: 'stored'; providerOperationId?: string }
  | { status: 'accepted'; providerOperationId: string }
  | { status: 'failed' }
  | { status: 'unknown' };

export interface RememberRequest {
  content: string;
  signal: AbortSignal;
}

/** Scope, tenant and metadata never cross this interface: they come only from the admin's config. */
export interface MemoryWriter {
  remember(request: RememberRequest): Promise<RememberResult>;
}

export interface Provider {
  search: SearchProvider['search'];
  /** Present only for providers that can write (Mem0 presets that define a write path). */
  writer?: MemoryWriter;
}

/** What a provider does on the wire: `search`, and `remember` (the direct-import write) where it writes. */
export type ProviderOperation = 'search' | 'remember';

/** The one header that carries the credential: `header: <prefix><credential>`. */
export interface CredentialPlacement {
  /** Lower-case header name, e.g. `authorization` or `x-api-key`. */
  header: string;
  /** What precedes the credential in the value: `Bearer `, `Token ` or nothing. */
  prefix: string;
}

/** One request a provider would send, complete but for the credential's value. Pure data. */
export interface ProviderRequest {
  operation: ProviderOperation;
  method: 'POST';
  /** A validated origin (checkOrigin().origin): scheme, host, port. */
  origin: string;
  /** The absolute path after the origin (basePath included): never a query string. */
  path: string;
  /** Every header but the credential's. */
  headers: Readonly<Record<string, string>>;
  credential: CredentialPlacement;
  /** Sent as `JSON.stringify(body)`: key order is part of the wire contract. */
  body: JsonObject;
}

/** A provider's operation routes without bodies: what a broker pins (method + path per origin). */
export type ProviderRoute = Omit<ProviderRequest, 'body' | 'headers'>;

/**
 * Everything one provider config means on the wire (src/providers/describe.ts builds it): the
 * requests it sends and how its answers read. The engine (factory.ts), probe and the routes all
 * start from this one description.
 */
export interface ProviderContract {
  /** `generic-http-search-v1`, or the Mem0 preset. */
  name: string;
  search: {
    request(query: string, limit: number): ProviderRequest;
    /** The answer's shape in words, for a report: `{"items": [...]}`. */
    answerShape: string;
    /**
     * The answer's own refusal in fixed words (a 2xx answer that says no, like the DataWorks BFF's
     * envelope code), for a report; undefined when it is not one. `results` throws on it too.
     */
    rejection?(answer: unknown): string | undefined;
    /** The answer's result list; throws ProviderRequestError('invalid-response') on another shape. */
    results(answer: unknown): unknown[];
    /** A raw result's text, or undefined (the result is skipped). */
    content(result: JsonObject): string | undefined;
    /** The fields a result's text may come from, in preference order. */
    contentFields: readonly string[];
    /** The fields a result's id may come from, in preference order (`results` puts it in `id`). */
    idFields: readonly string[];
    /** The scope every result must belong to: wire field name → configured value. */
    scope: Readonly<Record<string, string>>;
  };
  /** Only for providers that write. */
  remember?: {
    request(content: string): ProviderRequest;
    /** A parsed 2xx answer → the outcome (failures before an answer: write-outcome.ts). */
    outcome(answer: unknown): RememberResult;
  };
}
