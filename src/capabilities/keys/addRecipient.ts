/**
 * keys.add-recipient: encrypts the kv store to one more X25519 recipient.
 * `<data dir>/kv.recipients` is rewritten and the store re-encrypted to the
 * new list under the store's lock, atomically, so whoever holds that
 * recipient's identity can open `kv.age` from now on, with rta or
 * `age -d -i`. A recipient already listed changes nothing.
 */
import { define } from "../../core/capability.ts";
import { object } from "../../core/result.ts";
import { storeAt } from "../kv/places.ts";
import { readRecipients, updateStore } from "../kv/store.ts";
import { checkRecipient } from "./identityFile.ts";

export const keysAddRecipient = define({
  name: "keys.add-recipient",
  summary: "Encrypt the kv store to one more age recipient as well",
  agentText:
    "Whoever holds the matching identity can then decrypt every value in the store: add only a recipient the person named.",
  searchWords: ["share secrets", "age -r", "add public key", "grant access to store"],
  safety: "write",
  inputs: {
    recipient: {
      type: "string",
      description: "the age1… public key to add",
      required: true,
      positional: true,
    },
  },
  record: "recipient",
  result: { shape: "object" },
  examples: [
    {
      command: "rta keys add-recipient age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p",
      note: "let a second key open the store",
    },
  ],
  async run(args, ctx) {
    const recipient = checkRecipient(args.recipient);
    const places = storeAt(ctx);
    const before = await readRecipients(places);
    if (before.includes(recipient)) return object({ recipient, added: false, recipients: before });
    // the list is read again under the store's lock: another process may have changed it since
    const after = await updateStore(
      places,
      () => {},
      (now) => (now.includes(recipient) ? now : [...now, recipient]),
    );
    return object({ recipient, added: true, recipients: after });
  },
});
