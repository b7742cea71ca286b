/**
 * Roots on 2026-07-28: a modern client is not asked for its roots after an
 * `initialize` (there is none); it is asked inside a call, with an
 * `input_required` result carrying a `roots/list` request, the first time a
 * call names a path on a stdio server started with no --root. The roots it
 * answers are added as a 2025-11-25 client's are, once for the session.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { Catalogue } from "../core/catalogue.ts";
import { inputEntries } from "../gate/values.ts";
import { isModernRevision } from "./eras.ts";

/** The key of the roots/list input request. */
const ROOTS_KEY = "roots";

/** A session's roots asked inside a call: whether they were heard, and where the answer goes. */
export interface RootsInCall {
  heard: boolean;
  offered: (paths: string[]) => void;
}

/**
 * The input_required result asking for the client's roots, when this call
 * should carry it; undefined when it should run on (roots heard or not to be
 * asked, a client that declares no roots, a call naming no path). Takes the
 * roots a retry brings. Refuses nothing.
 */
export function rootsRound(
  server: Server,
  reqCtx: ServerContext,
  roots: RootsInCall | undefined,
  catalogue: Catalogue,
  tool: string,
  args: Record<string, unknown>,
): InputRequiredResult | undefined {
  if (roots === undefined || roots.heard) return undefined;
  if (!isModernRevision(server.getNegotiatedProtocolVersion())) return undefined;
  const caps = (reqCtx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
    | { roots?: unknown }
    | undefined;
  if (!caps?.roots) return undefined;
  const cap = catalogue.byTool(tool);
  if (cap === undefined || !inputEntries(cap).some(([name, spec]) => spec.path && args[name] !== undefined))
    return undefined;
  const view = inputResponse(reqCtx.mcpReq.inputResponses, ROOTS_KEY);
  if (view.kind === "roots") {
    roots.heard = true;
    roots.offered(rootPaths(view.roots));
    return undefined;
  }
  return inputRequired({ inputRequests: { [ROOTS_KEY]: inputRequired.listRoots() } });
}

/**
 * The local paths of the roots a client offers: a file:// URI of this host;
 * any other (another host's, not a file, not a URI) is left out, and the
 * rest stand. Refuses nothing.
 */
export function rootPaths(roots: readonly { uri: string }[]): string[] {
  return roots.flatMap((r) => {
    if (!r.uri.startsWith("file://")) return [];
    try {
      // node:url is loaded only once a client offers roots: a server's start does not pay for it
      return [(require("node:url") as typeof import("node:url")).fileURLToPath(r.uri)];
    } catch {
      return [];
    }
  });
}
