/**
 * kv.set: stores a value under a name, with an optional comment. The value is
 * a secret input: on the CLI it is read from stdin (one final newline of a
 * one-line value dropped, as `echo` adds it) and never echoed, and it is
 * never written to the record or said in an error.
 */
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";
import { checkName, isoSecond } from "./format.ts";
import { storeAt } from "./places.ts";
import { updateStore } from "./store.ts";

/** The largest value stored: a certificate chain fits, a database dump does not. */
const VALUE_MAX_BYTES = 1024 * 1024;

export const kvSet = define({
  name: "kv.set",
  summary: "Store a secret value under a name, encrypted, replacing any value it had",
  searchWords: ["save secret", "store password", "add key", "put"],
  safety: "write",
  inputs: {
    name: { type: "string", description: "the key's name", required: true, positional: true },
    value: {
      type: "string",
      description: "the value to store (a one-line value loses one final newline)",
      required: true,
      fromPipe: true,
      secret: true,
    },
    comment: { type: "string", description: "what the key is for; left out, the key keeps its comment" },
  },
  record: "name",
  result: { shape: "object", fields: [{ name: "modified", doc: "when the value was set (UTC)", unit: "time" }] },
  examples: [
    { command: "rta kv set deploy-key --comment 'CI deploy' < key.txt", note: "store a value read from a file" },
    { command: "pwgen -s 32 1 | rta kv set db/prod", note: "store a new password" },
  ],
  async run(args, ctx) {
    checkName(args.name);
    const value = oneLineEnd(args.value);
    // bytes that are not UTF-8 arrive as U+FFFD: stored so, the value would come back changed
    if (value.includes("\uFFFD"))
      throw new RtaError(
        "core.input.invalid",
        "the value is not UTF-8 text (it holds U+FFFD, what other bytes are read as), so it would not come back as it was",
        "the store keeps text: store binary data base64-encoded (`base64 -w0 file | rta kv set NAME`)",
      );
    if (Buffer.byteLength(value) > VALUE_MAX_BYTES)
      throw new RtaError("core.input.toolarge", "the value is larger than 1 MiB", "store a file's path instead");
    const modified = new Date(ctx.clock.now()).toISOString();
    let created = false;
    await updateStore(storeAt(ctx), (m) => {
      const was = m.get(args.name);
      created = was === undefined;
      const comment = args.comment ?? was?.comment;
      m.set(args.name, { name: args.name, value, ...(comment ? { comment } : {}), modified });
    });
    return object({ name: args.name, created, modified: isoSecond(modified) });
  },
});

/** A value of one line loses the newline `echo` ends it with; one of several lines (a PEM key) is kept whole. */
function oneLineEnd(value: string): string {
  const body = value.endsWith("\r\n") ? value.slice(0, -2) : value.endsWith("\n") ? value.slice(0, -1) : value;
  return body.includes("\n") ? value : body;
}

/** kv.notfound for a name the store does not hold. */
export function notFound(name: string): RtaError {
  return new RtaError("kv.notfound", `the kv store holds no key ${JSON.stringify(name)}`, "kv.list shows its keys");
}
