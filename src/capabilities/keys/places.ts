/**
 * Where the keys capabilities find the identity file and the kv store: the
 * places the run was handed (the identity from the environment rta started
 * in, RTA_KV_IDENTITY, else the config dir's identity.txt).
 */
import type { RunContext } from "../../core/capability.ts";
import { type KvPlaces, kvPlaces } from "../kv/store.ts";

/** The kv store's places for this run. Refuses nothing. */
export function placesOf(ctx: RunContext): KvPlaces {
  return kvPlaces(ctx.dataDir, ctx.identityFile);
}
