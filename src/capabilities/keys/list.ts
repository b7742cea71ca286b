/**
 * keys.list: the public recipient of each key in the identity file, and
 * where that file is (for an agent, `<identity file>` or
 * `<config dir>/identity.txt`). No secret key leaves the file. A missing
 * identity is no failure: the answer says so and how to make one.
 */
import { existsSync } from "node:fs";
import { define } from "../../core/capability.ts";
import { object } from "../../core/result.ts";
import { storeAt } from "../kv/places.ts";
import { loadIdentities, recipientsOf } from "../kv/store.ts";

export const keysList = define({
  name: "keys.list",
  summary: "Show the identity file's public recipients and where it is",
  searchWords: ["public key", "age-keygen -y", "whoami", "identity"],
  safety: "read",
  inputs: {},
  result: { shape: "object" },
  examples: [{ command: "rta keys list", note: "the recipient others encrypt to, and the identity file" }],
  async run(_args, ctx) {
    const { identity } = storeAt(ctx);
    if (!existsSync(identity)) return object({ identity, exists: false, recipients: [] });
    const recipients = await recipientsOf(await loadIdentities(identity));
    return object({ identity, exists: true, recipients });
  },
});
