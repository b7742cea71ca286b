/** Where a kv capability finds the store: the run's data dir and identity file. */
import type { RunContext } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { type KvPlaces, kvPlaces } from "./store.ts";

/**
 * The store's places for a run. Refuses kv.locked, with how a person lets it open the store, in a server started
 * with neither RTA_KV_IDENTITY nor --kv: it opens no identity, even one in the config dir.
 */
export function storeAt(ctx: Pick<RunContext, "dataDir" | "identityFile">): KvPlaces {
  if (ctx.identityFile === undefined) throw serverWithoutIdentity();
  return kvPlaces(ctx.dataDir, ctx.identityFile);
}

/** kv.locked for a server that was not told to open the store. */
export function serverWithoutIdentity(): RtaError {
  return new RtaError(
    "kv.locked",
    "the kv store is locked: this server was started without an identity",
    "a person can let it open the store: `rta mcp install --kv` for a registered server, `rta mcp serve --kv` (or RTA_KV_IDENTITY set) for one started by hand",
  );
}
