/**
 * keys.new: makes the identity the kv store opens with, in age-keygen's
 * format, 0600 from its first byte, and answers its public recipient. The
 * secret key is in the file and nowhere else: never in the result, the
 * record or an error. An identity already there is never replaced.
 */
import { define } from "../../core/capability.ts";
import { object } from "../../core/result.ts";
import { storeAt } from "../kv/places.ts";
import { installIdentity, newIdentity } from "./identityFile.ts";

export const keysNew = define({
  name: "keys.new",
  summary: "Make the identity the kv store opens with, and show its public recipient",
  agentText:
    "Writes a new age identity file where the server's identity is looked for; it never replaces one already there. The secret key stays in the file.",
  searchWords: ["age-keygen", "generate key", "keypair", "new identity"],
  safety: "write",
  inputs: {},
  result: { shape: "object" },
  examples: [
    { command: "rta keys new", note: "make the identity in the config dir (or where RTA_KV_IDENTITY names)" },
    { command: "RTA_KV_IDENTITY=~/.age/ops.txt rta keys new", note: "make it elsewhere" },
  ],
  async run(_args, ctx) {
    const { identity } = storeAt(ctx);
    const made = await newIdentity(ctx.clock.now());
    await installIdentity(identity, made.text);
    return object({ recipient: made.recipient, identity });
  },
});
