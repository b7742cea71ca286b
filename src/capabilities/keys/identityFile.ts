/**
 * The identity file as age-keygen writes it, made and installed the way a
 * key should be: 0600 from its first byte (opened with that mode, never
 * chmod-ed after), written whole under a temporary name in the same
 * directory and synced, then linked to its name, so it is never seen half
 * written, and never replaces one already there unless asked to.
 * And the X25519 recipients rta takes, checked before they reach a file.
 */

import { closeSync, constants, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { Encrypter, generateX25519Identity, identityToRecipient } from "age-encryption";
import { RtaError } from "../../core/errors.ts";
import { syncDir } from "../../core/syncDir.ts";
import { identityTemp, removeIdentityLeftovers } from "../kv/leftovers.ts";

/** An X25519 recipient: `age1` and 58 bech32 characters. */
const RECIPIENT = /^age1[02-9ac-hj-np-z]{58}$/;

/** A new identity in age-keygen's format (created, public key, the secret key), with its recipient. */
export async function newIdentity(now: number): Promise<{ text: string; recipient: string }> {
  const secret = await generateX25519Identity();
  const recipient = await identityToRecipient(secret);
  const created = `${new Date(now).toISOString().slice(0, 19)}Z`;
  return { text: `# created: ${created}\n# public key: ${recipient}\n${secret}\n`, recipient };
}

/**
 * Checks a recipient a person or an agent typed: refuses (core.input.invalid) anything but an X25519 age recipient
 * whose checksum holds, without repeating a text that is not one.
 */
export function checkRecipient(text: string): string {
  const r = text.trim();
  let ok = RECIPIENT.test(r);
  if (ok) {
    try {
      new Encrypter().addRecipient(r);
    } catch {
      ok = false;
    }
  }
  if (!ok)
    throw new RtaError(
      "core.input.invalid",
      r.startsWith("AGE-SECRET-KEY-")
        ? "recipient is a secret key, not a recipient"
        : "recipient is no X25519 age recipient (age1 and 58 characters, checksum included)",
      r.startsWith("AGE-SECRET-KEY-")
        ? "give the public key (`age-keygen -y FILE` prints it), never the secret key"
        : "give the `age1…` public key the other person's `age-keygen` or `rta keys new` printed",
    );
  return r;
}

/**
 * Writes `text` as the file `path`, mode 0600 from the start: under a temporary name in the same directory (made
 * 0700 when missing), synced, then linked to its name, or with `replace` renamed over it. `check` is handed the
 * temporary file before it takes the name and may refuse it. Refuses (keys.exists) a file already at `path`
 * unless `replace`; the temporary file is gone whatever happens.
 */
export async function installIdentity(
  path: string,
  text: string,
  opts: { replace?: boolean; check?: (temp: string) => Promise<void> } = {},
): Promise<void> {
  const dir = dirname(path);
  // one a killed rta left (SIGKILL runs no cleanup) holds a secret key: gone before another is written
  removeIdentityLeftovers(path);
  const temp = identityTemp(path);
  let fd: number;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    throw folderRefused(dir, err);
  }
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    await opts.check?.(temp);
    if (opts.replace) renameSync(temp, path);
    else {
      try {
        linkSync(temp, path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST") throw exists(path);
        throw err;
      }
    }
    syncDir(dir);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** keys.exists for the identity at `path`, with the ways on. */
export function exists(path: string): RtaError {
  return new RtaError(
    "keys.exists",
    `an identity is already at ${path}`,
    "it is kept as it is: `rta keys list` shows its recipient; move it away first to make another",
  );
}

/** Why the identity's folder takes no file, said with its path: what the system said, or the raw error when it is no errno of a place. */
function folderRefused(dir: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  const fix = "set RTA_KV_IDENTITY to a file in a folder that is yours, or mend this one";
  if (code === "ENOTDIR" || code === "EEXIST")
    return new RtaError("fs.notdir", `the identity file's folder ${dir} is not a directory`, fix);
  if (code === "ENOENT") return new RtaError("fs.notfound", `the identity file's folder ${dir} cannot be made`, fix);
  if (code === "EACCES" || code === "EPERM")
    return new RtaError("fs.denied", `the identity file's folder ${dir} is not writable: permission denied`, fix);
  return err;
}
