/**
 * keys.remove-recipient: stops encrypting the kv store to a recipient.
 * `<data dir>/kv.recipients` is rewritten and the store re-encrypted without
 * it, atomically. What that key could read before it can still read in any
 * copy taken then (`kv.age.bak` among them, until the next write), so the
 * answer says to change the values it could open. Removing the last
 * recipient, or this identity's own (rta here could no longer open the
 * store), is refused with the way to hand the store over instead.
 */
import { existsSync } from "node:fs";
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";
import { storeAt } from "../kv/places.ts";
import { loadIdentities, readRecipients, recipientsOf, updateStore } from "../kv/store.ts";
import { checkRecipient } from "./identityFile.ts";

export const keysRemoveRecipient = define({
  name: "keys.remove-recipient",
  summary: "Stop encrypting the kv store to an age recipient",
  agentText:
    "The store is re-encrypted without it; a copy taken before still opens with that key, so its values should be changed.",
  searchWords: ["revoke access", "unshare", "remove public key", "rotate"],
  safety: "write",
  inputs: {
    recipient: {
      type: "string",
      description: "the age1… public key to remove",
      required: true,
      positional: true,
    },
  },
  record: "recipient",
  result: { shape: "object" },
  examples: [
    {
      command: "rta keys remove-recipient age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
      note: "stop encrypting to a key that left",
    },
  ],
  async run(args, ctx) {
    const recipient = checkRecipient(args.recipient);
    const places = storeAt(ctx);
    const before = await readRecipients(places);
    if (!before.includes(recipient))
      throw new RtaError(
        "keys.recipient.notfound",
        `the kv store is not encrypted to ${recipient}`,
        "`rta keys recipients` lists the ones it is",
      );
    if (before.every((r) => r === recipient))
      throw new RtaError(
        "keys.recipient.kept",
        `${recipient} is the kv store's only recipient: nobody could open it`,
        "add the recipient that takes over first (`rta keys add-recipient age1…`), then remove this one",
      );
    const own = existsSync(places.identity) ? await recipientsOf(await loadIdentities(places.identity)) : [];
    if (own.includes(recipient))
      throw new RtaError(
        "keys.recipient.kept",
        `${recipient} is this identity's own recipient: rta here could no longer open the kv store`,
        "to hand the store over, add the new recipient, install its identity here (`rta keys import FILE --force`), then remove this one",
      );
    // the list is read again under the store's lock: another process may have changed it since
    const after = await updateStore(
      places,
      () => {},
      (now) => now.filter((r) => r !== recipient),
    );
    return object({
      recipient,
      removed: true,
      recipients: after,
      note: "the store is re-encrypted without it, but a copy taken before (kv.age.bak until the next write, any backup) still opens with that key: change the values it could read",
    });
  },
});
