/**
 * kv.get: one key's value, as it is stored. A read that reveals: an agent
 * needs a grant, which can name the key (`rta grant allow kv.get deploy-key`),
 * and the value is masked in what the record keeps of the session after it.
 */
import { define } from "../../core/capability.ts";
import { text } from "../../core/result.ts";
import { checkName } from "./format.ts";
import { storeAt } from "./places.ts";
import { notFound } from "./set.ts";
import { readStore } from "./store.ts";

export const kvGet = define({
  name: "kv.get",
  summary: "Read one secret's value from the store",
  agentText: "Ask for a value only when the task needs the value itself; kv_list shows what is stored.",
  searchWords: ["secret", "password", "token", "api key", "reveal"],
  safety: "read",
  reveals: true,
  inputs: {
    name: { type: "string", description: "the key's name", required: true, positional: true },
  },
  record: "name",
  result: { shape: "text" },
  examples: [
    { command: "rta kv get deploy-key", note: "print the value of deploy-key" },
    { command: 'PGPASSWORD="$(rta kv get db/prod)" psql', note: "hand a value to a program" },
  ],
  async run(args, ctx) {
    checkName(args.name);
    const entry = (await readStore(storeAt(ctx))).get(args.name);
    if (!entry) throw notFound(args.name);
    return text(entry.value);
  },
});
