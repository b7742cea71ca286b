/**
 * What one MCP server is made with: the catalogue, the gate's deps, the
 * session, the transport, the bounds, and the hooks each front hands it.
 */
import type { Server } from "@modelcontextprotocol/server";
import type { Transport } from "../core/call.ts";
import type { Catalogue } from "../core/catalogue.ts";
import type { Limits } from "../gate/bound.ts";
import type { Deps } from "../gate/deps.ts";
import type { ServerState } from "../operator/state.ts";
import type { Selections } from "../upstreams/selections.ts";
import type { RootsInCall } from "./callRoots.ts";
import type { SharedWatching } from "./leases.ts";
import type { Subscriptions } from "./subscriptions.ts";

export interface ServeContext {
  catalogue: Catalogue;
  deps: Deps;
  /** the session id of this server process, written on every record line */
  session: string;
  transport: Transport;
  /** from the registration (`--agent`); else the client's reported name */
  agent?: string;
  limits: Limits;
  /** called with what a capability threw that was not an RtaError */
  onUnexpected?: (thrown: unknown) => void;
  /** the roots the client offered (file paths), each time it offers them */
  onClientRoots?: (paths: string[]) => void;
  /** on a server started with no --root: a 2026-07-28 client's roots, asked inside its first call naming a path */
  rootsInCall?: RootsInCall;
  /** told of each tools/call the SDK hands to this server's handler, with the server and the request's id */
  onSdkCall?: (server: Server, id: string | number) => void;
  /** the connection's resource subscriptions (stdio); left out, resources/subscribe is not offered */
  subscriptions?: Subscriptions;
  /** on a shared (PostgreSQL) store, over HTTP: the subscriptions' watchers are leased across replicas (leases.ts) */
  leases?: SharedWatching;
  /** the upstreams' selected resources, templates and prompts (config's `select`), each read through the pipeline */
  upstreams?: Selections;
  /** the operator channel's view of this server: each call is watched through it (src/operator/) */
  operator?: ServerState;
}
