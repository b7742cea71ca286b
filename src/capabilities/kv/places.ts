/** Where a kv capability finds the store: the run's data dir and identity file. */
import type { RunContext } from "../../core/capability.ts";
import { type KvPlaces, kvPlaces } from "./store.ts";

/** The store's places for a run. */
export function storeAt(ctx: Pick<RunContext, "dataDir" | "identityFile">): KvPlaces {
  return kvPlaces(ctx.dataDir, ctx.identityFile);
}
