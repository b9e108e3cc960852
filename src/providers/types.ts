// Shared provider contracts. Pure types: nothing here touches the network.

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
