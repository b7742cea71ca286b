/** kv.rm: removes a key and its value from the store (destructive: the old value survives only in kv.age.bak). */
import { define } from "../../core/capability.ts";
import { object } from "../../core/result.ts";
import { checkName } from "./format.ts";
import { storeAt } from "./places.ts";
import { notFound } from "./set.ts";
import { updateStore } from "./store.ts";

export const kvRm = define({
  name: "kv.rm",
  summary: "Remove a secret and its value from the store",
  searchWords: ["delete secret", "remove key", "forget"],
  safety: "destructive",
  inputs: {
    name: { type: "string", description: "the key's name", required: true, positional: true },
  },
  record: "name",
  result: { shape: "object" },
  examples: [{ command: "rta kv rm old/token", note: "remove old/token" }],
  async run(args, ctx) {
    checkName(args.name);
    await updateStore(storeAt(ctx), (m) => {
      if (!m.delete(args.name)) throw notFound(args.name);
    });
    return object({ name: args.name, removed: true });
  },
});
