/**
 * What a resource URI reads as, for resources/read and for a subscription
 * reading it again, and how each kind of URI is watched:
 *
 * - `rta://grants`: by gate.db's commit header (store/shm.ts), looked at every
 *   250 ms, and the soonest end of a live grant; read again only when another
 *   process (`rta grant allow`, `rta grant revoke`) or this one committed.
 * - a read's template whose capability takes a path (`rta://fs/read/{path}`,
 *   `fs.stat`, `log.tail`) that names a file: through the descriptor the path
 *   gate opened when the subscription was made, never the path again: an
 *   fstat of it every 250 ms (its inode, size, change and modification times),
 *   and read again through the pipeline when one moved.
 * - any other read (a card, a read with no path or of a directory, an
 *   upstream's resource): read again every 5 s.
 *
 * A read again meets the lock first (a locked agent is read nothing, and no
 * refusal is recorded for it), then the whole pipeline, grant included, as a
 * resource read that spends nothing of a rate limit.
 */
import { fstatSync } from "node:fs";
import { ResourceNotFoundError } from "@modelcontextprotocol/server";
import type { AgentOrigin } from "../core/call.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { EMPTY_CONFIG, usable } from "../core/config.ts";
import { checkLock } from "../gate/locks.ts";
import type { ReadPath } from "../gate/paths/handles.ts";
import { accessOf, closeGated } from "../gate/paths/stage.ts";
import { runCall } from "../gate/pipeline.ts";
import { checkResourceRate } from "../gate/rateLimit.ts";
import { GRANTS_URI, rateRefusal, readResource, resourceKey } from "./resources.ts";
import type { Watch, Watcher } from "./subscriptions.ts";
import { readTemplate } from "./templateRead.ts";
import { parseReadUri, type ReadTemplate } from "./templates.ts";
import { toolWords } from "./toolWords.ts";
import { type ReadContext, readUpstreamResource } from "./upstreamReads.ts";

/** What a read is handed of the server: its context, catalogue and the reads as this agent's templates. */
export interface ReadPlace extends ReadContext {
  catalogue: Catalogue;
  reads: () => readonly ReadTemplate[];
}

/** Codes that refuse the caller, not the read (templateRead.ts says them so too): a read again refused so tells nothing. */
const CALLER_REFUSED = /^core\.(grant|lock|rate|consent|profile|record|store)\./;

/** How often a read with nothing to watch is read again. */
export const POLL_MS = 5000;
/** How often a watched file or the grants are looked at. */
export const WATCH_MS = 250;

/**
 * The resources/read result of `uri` for `origin`; throws the ProtocolError
 * resources/read answers with. `counts` false: a template read spends nothing
 * of a rate limit (a subscription's read again).
 */
export async function readUri(
  place: ReadPlace,
  uri: string,
  origin: AgentOrigin,
  signal: AbortSignal,
  counts = true,
): Promise<{ contents: Record<string, unknown>[] }> {
  const upstream = await readUpstreamResource(
    counts ? place : { ...place, countsTowardLimit: false },
    uri,
    origin,
    signal,
  );
  if (upstream !== undefined) return upstream as { contents: Record<string, unknown>[] };
  const read = parseReadUri(uri, place.reads());
  if (read !== undefined) {
    const run = (tool: string, args: Record<string, unknown>, o: AgentOrigin) =>
      runCall(
        { capability: tool, args, origin: o, ...(counts ? {} : { countsTowardLimit: false }) },
        place.catalogue,
        place.deps,
        { limits: place.limits, signal, onUnexpected: place.onUnexpected },
      );
    const words = (h: string) => toolWords(h, place.catalogue);
    return { contents: [await readTemplate(uri, read.template, read.args, origin, run, words)] };
  }
  const config = usable(place.deps.config.current()) ?? EMPTY_CONFIG;
  const { deps } = place;
  // a read counts toward the limits as a call does: the agent's grants, and each card, one bucket
  const limited = counts ? checkResourceRate(resourceKey(uri), origin, config, deps) : undefined;
  if (limited) throw rateRefusal(limited);
  return {
    contents: [
      deps.redactor.value(readResource(uri, origin.name, place.catalogue, deps.gate, deps.clock.now(), config)),
    ],
  };
}

/**
 * Refuses, as resources/read would, a URI that names nothing this server
 * offers or that its template reads back as wrong; asked before a 2026-07-28
 * listen is handed on, which cannot refuse a URI later. Reads nothing.
 */
export function checkUri(place: ReadPlace, uri: string): void {
  if (uri === GRANTS_URI || place.upstreams?.resource(uri) !== undefined) return;
  if (parseReadUri(uri, place.reads()) !== undefined) return;
  const card = uri.match(/^rta:\/\/capability\/([A-Za-z0-9._-]+)$/)?.[1];
  if (card !== undefined && (place.catalogue.byName(card) ?? place.catalogue.byTool(card))) return;
  throw new ResourceNotFoundError(uri, `no resource at ${uri}`);
}

/** The Watch a connection's subscriptions make their watchers with. */
export function watchIn(place: ReadPlace): Watch {
  return async (uri, origin, signal) => {
    const first = JSON.stringify((await readUri(place, uri, origin, signal)).contents);
    return { watcher: watcherOf(place, uri, origin), first };
  };
}

/**
 * The watcher of `uri` for `origin`, made without reading it first (a replica taking over a shared store's
 * watcher: mcp/leases.ts): its reads again spend nothing of a rate limit, and say its answer as the first read did.
 */
export function watcherOf(place: ReadPlace, uri: string, origin: AgentOrigin): Watcher {
  const again = (s: AbortSignal) =>
    readUri(place, uri, origin, s, false).then(
      (r) => JSON.stringify(r.contents),
      (err: unknown) => {
        // the gate's refusal of the caller tells nothing; a read that now fails (the file is gone) is a change
        const code = (err as { data?: { code?: unknown } }).data?.code;
        if (typeof code !== "string" || CALLER_REFUSED.test(code)) throw err;
        return JSON.stringify({ error: code });
      },
    );
  if (uri === GRANTS_URI) return grantsWatcher(place, origin);
  return fileWatcher(place, uri, origin, again) ?? polled(place, uri, origin, again);
}

/** Whether a lock a person set stops every call of this agent's (what a read of rta's own resources is held to). */
function lockedWhole(place: ReadPlace, origin: AgentOrigin): boolean {
  return place.deps.gate().lockFor(origin.name, [], place.deps.clock.now()) !== undefined;
}

/** rta://grants: read again when gate.db was committed to, or a live grant's time ran out. */
function grantsWatcher(place: ReadPlace, origin: AgentOrigin): Watcher {
  const seen = Buffer.alloc(96);
  let known = false;
  let soonestEnd = Number.POSITIVE_INFINITY;
  return {
    every: WATCH_MS,
    moved() {
      const header = place.deps.gate().commitHeader();
      if (header === undefined) return true;
      const same = known && seen.equals(header);
      header.copy(seen);
      known = true;
      return !same || place.deps.clock.now() >= soonestEnd;
    },
    async read() {
      if (lockedWhole(place, origin)) return undefined;
      const now = place.deps.clock.now();
      const live = place.deps.gate().liveGrants(origin.name, now);
      soonestEnd = Math.min(Number.POSITIVE_INFINITY, ...live.map((g) => g.expires_at));
      const config = usable(place.deps.config.current()) ?? EMPTY_CONFIG;
      const read = readResource(GRANTS_URI, origin.name, place.catalogue, place.deps.gate, now, config);
      return JSON.stringify([place.deps.redactor.value(read)]);
    },
    close() {},
  };
}

/** A read of a path: watched through the descriptor the path gate opens now; undefined for a read of no path. */
function fileWatcher(
  place: ReadPlace,
  uri: string,
  origin: AgentOrigin,
  again: (s: AbortSignal) => Promise<string>,
): Watcher | undefined {
  const read = parseReadUri(uri, place.reads());
  if (read === undefined) return undefined;
  const cap = read.template.cap;
  const input = Object.entries(cap.inputs).find(
    ([name, spec]) => spec.path === "read" && typeof read.args[name] === "string",
  );
  if (input === undefined) return undefined;
  const path = read.args[input[0]] as string;
  const open = (): ReadPath | undefined => {
    try {
      return accessOf(place.deps.roots).open(path, "read") as ReadPath;
    } catch {
      return undefined; // gone or refused now
    }
  };
  let opened = open();
  // what the read was just let see is gone or refused now: it is read again on the polled pace
  if (opened === undefined) return undefined;
  // a directory's own times move only when an entry directly in it comes or goes, not for what changes below it
  // (a walk's answer): it is read again on the polled pace
  if (fstatSync(opened.descriptor()).isDirectory()) {
    closeGated(opened);
    return undefined;
  }
  const stamp = (): string => {
    const s = fstatSync((opened as ReadPath).descriptor(), { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.nlink}`;
  };
  let last = stamp();
  return {
    every: WATCH_MS,
    moved() {
      let now = stamp();
      // the file kept was removed or replaced (a rename over it, as an editor or logrotate does): what the path
      // names now is opened through the gate, and watched from here on; until one is there, it is looked for
      if (now.endsWith(":0")) {
        const again = open();
        if (again !== undefined) {
          closeGated(opened as ReadPath);
          opened = again;
          now = stamp();
        }
      }
      if (now === last) return false;
      last = now;
      return true;
    },
    async read(signal) {
      try {
        checkLock(cap, origin, place.deps.gate(), place.deps.clock.now());
      } catch {
        return undefined;
      }
      return again(signal);
    },
    close: () => closeGated(opened as ReadPath),
  };
}

/** Any other read: read again every 5 s, when no lock stops it. */
function polled(
  place: ReadPlace,
  uri: string,
  origin: AgentOrigin,
  again: (s: AbortSignal) => Promise<string>,
): Watcher {
  const cap = parseReadUri(uri, place.reads())?.template.cap;
  return {
    every: POLL_MS,
    moved: () => true,
    async read(signal) {
      try {
        if (cap !== undefined) checkLock(cap, origin, place.deps.gate(), place.deps.clock.now());
        else if (lockedWhole(place, origin)) return undefined;
      } catch {
        return undefined;
      }
      return again(signal);
    },
    close() {},
  };
}
