/**
 * keys.recipients: whom the kv store is encrypted to, from
 * `<data dir>/kv.recipients` (the identity's own recipient when that file is
 * missing), each marked with whether it is this identity's. With neither
 * file there are none yet.
 */
import { existsSync } from "node:fs";
import { define } from "../../core/capability.ts";
import { table } from "../../core/result.ts";
import { storeAt } from "../kv/places.ts";
import { loadIdentities, readRecipients, recipientsOf } from "../kv/store.ts";

export const keysRecipients = define({
  name: "keys.recipients",
  summary: "List whom the kv store is encrypted to, marking this identity's recipient",
  searchWords: ["age recipients", "who can decrypt", "public keys", "kv.recipients"],
  safety: "read",
  inputs: {},
  result: {
    shape: "table",
    columns: [
      { name: "recipient", doc: "an age X25519 recipient (public key) the store is encrypted to" },
      { name: "mine", doc: "true when it is this identity's own recipient (null when no identity can be read)" },
    ],
  },
  examples: [{ command: "rta keys recipients", note: "who can open the kv store" }],
  async run(_args, ctx) {
    const places = storeAt(ctx);
    if (!existsSync(places.recipients) && !existsSync(places.identity)) return table(["recipient", "mine"], []);
    const own = existsSync(places.identity) ? await recipientsOf(await loadIdentities(places.identity)) : undefined;
    const listed = await readRecipients(places);
    return table(
      ["recipient", "mine"],
      listed.map((r) => [r, own ? own.includes(r) : null]),
    );
  },
});
