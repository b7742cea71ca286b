/**
 * kv.status: whether the store opens here, how many keys it holds, the
 * recipients it is encrypted to, and where it and its identity are (named
 * `<data dir>/kv.age` and `<identity file>` for an agent). A store that does
 * not open is said in the answer, with the code and fix it would be refused
 * with, not refused: asking is how one learns why.
 */
import { stat } from "node:fs/promises";
import { define } from "../../core/capability.ts";
import { asRtaError } from "../../core/errors.ts";
import { readRecipientsFile } from "./identity.ts";
import { serverWithoutIdentity, storeAt } from "./places.ts";
import { kvPlaces, readRecipients, readStore } from "./store.ts";

export const kvStatus = define({
  name: "kv.status",
  summary: "Say whether the secret store opens, how many keys it holds and whom it is encrypted to",
  searchWords: ["secrets", "vault", "age", "locked", "recipients"],
  safety: "read",
  inputs: {},
  result: { shape: "object" },
  examples: [{ command: "rta kv status", note: "whether the store opens here, and its recipients" }],
  async run(_args, ctx) {
    if (ctx.identityFile === undefined) return locked(ctx.dataDir);
    const p = storeAt(ctx);
    const out: Record<string, unknown> = { store: p.file, identity: p.identity };
    out.exists = await exists(p.file);
    try {
      const store = await readStore(p);
      out.opens = true;
      out.keys = store.size;
    } catch (err) {
      const e = asRtaError(err);
      out.opens = false;
      out.keys = null;
      out.problem = { code: e.code, message: e.message, ...(e.hint === undefined ? {} : { hint: e.hint }) };
    }
    try {
      out.recipients = await readRecipients(p);
    } catch {
      out.recipients = null;
    }
    return { type: "object", value: out };
  },
});

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** The status in a server that opens no identity: what is there, and why it does not open. */
async function locked(dataDir: string) {
  const { file, recipients } = kvPlaces(dataDir, "");
  const e = serverWithoutIdentity();
  const listed = await readRecipientsFile(recipients).catch(() => null);
  return {
    type: "object" as const,
    value: {
      store: file,
      identity: null,
      exists: await exists(file),
      opens: false,
      keys: null,
      problem: { code: e.code, message: e.message, hint: e.hint },
      recipients: listed,
    },
  };
}
