/**
 * The offsite handle (core/access.ts re-exports it): what a free read that
 * asks a fixed service off the machine is handed. The gate implements it
 * (gate/net/offsite.ts) and keeps its rules: which base URL, which redirects.
 */

/** How one offsite request is held: each left out takes the client's own (a day's cache, 10 s, 8 MiB). */
export interface OffsiteOptions {
  /** how old a cached answer may be and still be given instead of asking again; 0 asks every time */
  cacheMs?: number;
  /** for the whole exchange: connecting, the headers and the body */
  timeoutMs?: number;
  /** bytes of answer taken; a longer one is refused offsite.answer.toolarge */
  maxBody?: number;
}

/** A service's answer, fresh or from the day cache; its age is known. */
export interface OffsiteAnswer {
  /** the HTTP status: a capability says what a 404 means for its service */
  status: number;
  body: Buffer;
  /** when the service gave it, milliseconds since the epoch */
  fetchedAt: number;
  /** how old it is now, in milliseconds: 0 when just asked */
  ageMs: number;
  /** given from the cache rather than asked now */
  cached: boolean;
  /** given from the cache past its age because the service could not be reached */
  stale: boolean;
}

/**
 * A fixed service a free read asks (its declaration's `offsite`), at the base
 * URL the operator set: paths are joined under it, and a redirect that leaves
 * its origin is refused. GET and POST (a JSON body), held to the options and
 * the call's abort signal, connected to an address resolved once. Refuses
 * offsite.unreachable (the service or the way to it is down: rta is offline),
 * offsite.redirect, offsite.answer.toolarge and core.call.cancelled.
 */
export interface OffsiteClient {
  /** the service's name, as declared (endoflife.date) */
  readonly service: string;
  /** the base URL asked, as the operator set it */
  readonly base: string;
  get(path: string, options?: OffsiteOptions): Promise<OffsiteAnswer>;
  post(path: string, body: unknown, options?: OffsiteOptions): Promise<OffsiteAnswer>;
}

/**
 * Gives the client for `base`, which must be the value of one of the call's
 * operator-only inputs (an agent never sets one): refuses offsite.url a base
 * that is not, one that is no http(s) URL, and any for a capability that
 * declares no `offsite`.
 */
export type Offsite = (base: string) => OffsiteClient;
