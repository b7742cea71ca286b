/**
 * The identity that opens the kv store and the recipients it is encrypted
 * to. The identity file is in age-keygen's format (`#` comments, then
 * `AGE-SECRET-KEY-1…` lines) and is refused when others may read or write it.
 * The recipients file is in the format of age's `-R`: one `age1…` per line,
 * `#` comments; without it, the store is encrypted to the identity's own.
 * A line of either is named by its number, never its text.
 */
import { Encrypter, identityToRecipient } from "age-encryption";
import { RtaError } from "../../core/errors.ts";
import { readRegularFile } from "../../core/regularFile.ts";
import { shellWord } from "../../core/words.ts";

const LOCKED_HINT =
  "make one with `rta keys new`, or set RTA_KV_IDENTITY to an age identity file; a server registered by `rta mcp install --kv` inherits it";

/** The largest identity file read: it holds a few lines. The largest recipients file: thousands of recipients. */
const [IDENTITY_MAX_BYTES, RECIPIENTS_MAX_BYTES] = [64 * 1024, 1024 * 1024];

/**
 * The identities in the file at `path`. Refuses kv.locked when it is missing
 * or cannot be read, kv.identity.mode when its mode has a group or other bit
 * (with the chmod that fixes it), and kv.identity.format for a line that is
 * no identity, comment or blank, or a file with none.
 */
export async function loadIdentities(path: string): Promise<string[]> {
  let mode: number;
  let bytes: Uint8Array;
  try {
    ({ bytes, mode } = await readRegularFile(path, IDENTITY_MAX_BYTES));
  } catch (err) {
    throw unreadable(path, err);
  }
  if ((mode & 0o077) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, "0");
    throw new RtaError(
      "kv.identity.mode",
      `the identity file ${path} may be read or written by others (mode ${octal})`,
      `narrow it to its owner: chmod 600 ${shellWord(path)}`,
    );
  }
  const text = new TextDecoder().decode(bytes);
  const keys: string[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === "" || line.startsWith("#")) continue;
    if (!(await isIdentity(line)))
      throw new RtaError(
        "kv.identity.format",
        `the identity file ${path} has a line that is no age identity (line ${i + 1})`,
        "an identity file holds `AGE-SECRET-KEY-1…` lines and `#` comments, as `age-keygen` writes it",
      );
    keys.push(line);
  }
  if (keys.length === 0)
    throw new RtaError(
      "kv.identity.format",
      `the identity file ${path} holds no age identity`,
      "an identity file holds `AGE-SECRET-KEY-1…` lines and `#` comments, as `age-keygen` writes it",
    );
  return keys;
}

function unreadable(path: string, err: unknown): RtaError {
  const errno = (err as NodeJS.ErrnoException).code;
  const why =
    errno === "ENOENT"
      ? "there is no identity file"
      : errno === "EACCES" || errno === "EPERM"
        ? "the identity file cannot be read: permission denied"
        : errno === "EISDIR"
          ? "the identity file is a directory"
          : errno === "ENOTFILE"
            ? "the identity file is not a regular file"
            : errno === "EFBIG"
              ? "the identity file is larger than 64 KiB, more than any identity file"
              : "the identity file cannot be read";
  return new RtaError("kv.locked", `the kv store is locked: ${why} (${path})`, LOCKED_HINT);
}

/** Identities already found to decode, so a read of the store (each call) derives none again. */
const decoded = new Set<string>();

/** True for an X25519 age identity that decodes (its checksum holds): age-encryption takes it. */
async function isIdentity(line: string): Promise<boolean> {
  if (decoded.has(line)) return true;
  if (!/^AGE-SECRET-KEY-1[0-9A-Z]+$/.test(line)) return false;
  try {
    await identityToRecipient(line);
  } catch {
    return false;
  }
  decoded.add(line);
  return true;
}

/** The public recipient of each identity, in order. */
export async function recipientsOf(identities: readonly string[]): Promise<string[]> {
  return Promise.all(identities.map((id) => identityToRecipient(id)));
}

/**
 * The recipients the file at `path` names, or null when there is none.
 * Refuses kv.recipients for a line age cannot encrypt to, or a file that names none.
 */
export async function readRecipientsFile(path: string): Promise<string[] | null> {
  let text: string;
  try {
    text = new TextDecoder().decode((await readRegularFile(path, RECIPIENTS_MAX_BYTES)).bytes);
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code;
    if (errno === "ENOENT") return null;
    if (errno === "EFBIG")
      throw new RtaError("kv.recipients", "the kv recipients file is larger than 1 MiB", "it holds one `age1…` a line");
    if (errno === "ENOTFILE" || errno === "EISDIR")
      throw new RtaError(
        "kv.recipients",
        "the kv recipients file is not a regular file",
        "remove what stands at `kv.recipients` beside the store; `rta keys add-recipient` writes the file again",
      );
    throw err;
  }
  const found: string[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === "" || line.startsWith("#")) continue;
    if (!isRecipient(line))
      throw new RtaError(
        "kv.recipients",
        `the kv recipients file has a line that is no age recipient (line ${i + 1})`,
        "it holds one `age1…` recipient a line and `#` comments; `rta keys recipients` lists them",
      );
    if (!found.includes(line)) found.push(line);
  }
  if (found.length === 0)
    throw new RtaError(
      "kv.recipients",
      "the kv recipients file names no recipient",
      "add one with `rta keys add-recipient`, or remove the file to encrypt to the identity's own",
    );
  return found;
}

/** True for a recipient age can encrypt to (`age1…`, X25519 or another kind it knows). */
export function isRecipient(text: string): boolean {
  if (!text.startsWith("age1")) return false;
  try {
    new Encrypter().addRecipient(text);
    return true;
  } catch {
    return false;
  }
}

/** The recipients file's text for a list: a comment line, then one a line. */
export function recipientsText(recipients: readonly string[]): string {
  return `# rta kv recipients: the store is encrypted to each of these\n${recipients.join("\n")}\n`;
}
