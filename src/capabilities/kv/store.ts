/**
 * The kv store: one file, `<data dir>/kv.age`, in the age format, encrypted
 * to the recipients of `<data dir>/kv.recipients` (or, without it, to the
 * identity's own). Its plaintext is format.ts's. A read is cached in the
 * process by the file's identity (device, inode, size, mtime, ctime), so a
 * server decrypts it once per change. A write takes the store's lock across
 * processes, re-reads the file under it, changes it, and replaces it
 * atomically (a temp file in the same dir, fsync, rename, fsync of the dir),
 * keeping the version it replaced as `kv.age.bak`.
 */

import { type BigIntStats, closeSync, constants, fstatSync, openSync, statSync } from "node:fs";
import { chmod, copyFile, link, mkdir, open, readdir, rename, stat, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { armor, Decrypter, Encrypter } from "age-encryption";
import { RtaError } from "../../core/errors.ts";
import { releaseFileLock, tryFileLock } from "../../core/fileLock.ts";
import { readWhole } from "../../core/regularFile.ts";
import { syncDir } from "../../core/syncDir.ts";
import { formatStore, type KvEntry, parseStore } from "./format.ts";
import { isRecipient, loadIdentities, readRecipientsFile, recipientsOf, recipientsText } from "./identity.ts";
import { notAFile, notAgeFile, STORE_MAX_BYTES, tooLarge } from "./storeErrors.ts";

export type { KvEntry } from "./format.ts";
export { loadIdentities, recipientsOf } from "./identity.ts";

/** Where one store's files are. */
export interface KvPlaces {
  /** the encrypted store, `<data dir>/kv.age` */
  file: string;
  /** the recipients it is encrypted to, `<data dir>/kv.recipients` */
  recipients: string;
  /** the age identity file that opens it */
  identity: string;
}

/** The identity file when RTA_KV_IDENTITY names none: `<config dir>/identity.txt`. */
export const DEFAULT_IDENTITY = "identity.txt";

/** The places of the store in `dataDir`, opened by the identity file `identity` (resolved by the caller). */
export function kvPlaces(dataDir: string, identity: string): KvPlaces {
  return { file: join(dataDir, "kv.age"), recipients: join(dataDir, "kv.recipients"), identity };
}

interface Cached {
  key: string;
  store: Map<string, KvEntry>;
}
const cache = new Map<string, Cached>();

function fileKey(s: BigIntStats, identities: readonly string[]): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${identities.join(",")}`;
}

/**
 * The store's entries by name, a copy the caller may change. A store not
 * made yet is empty, whatever the identity. Refuses what loadIdentities
 * refuses (kv.locked without an identity), kv.format for a file that is
 * no age file or plaintext not in the documented format, and kv.decrypt for
 * one the identity does not open.
 */
export async function readStore(p: KvPlaces): Promise<Map<string, KvEntry>> {
  return new Map(await readFile(p, undefined, true));
}

/** The store as the file holds it (the cached map when `cached` and the file is unchanged); the identity is loaded once the file is found. */
async function readFile(p: KvPlaces, known: string[] | undefined, cached: boolean): Promise<Map<string, KvEntry>> {
  let fd: number;
  try {
    // a FIFO at its name would have the read wait for a writer that never comes, a device act when opened
    if (!statSync(p.file).isFile()) throw notAFile();
    fd = openSync(p.file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code;
    if (errno === "ENOENT") return new Map();
    if (errno === "EACCES" || errno === "EPERM")
      throw new RtaError(
        "fs.denied",
        `the kv store ${p.file} cannot be read: permission denied`,
        "run rta as the user whose store it is",
      );
    throw err;
  }
  try {
    const s = fstatSync(fd, { bigint: true });
    if (!s.isFile()) throw notAFile();
    // read whole before it is decrypted: a file far larger than any store rta writes is not read into memory
    if (s.size > STORE_MAX_BYTES) throw tooLarge("kv.format", "the kv store is larger than 256 MiB");
    const identities = known ?? (await loadIdentities(p.identity));
    const key = fileKey(s, identities);
    const hit = cache.get(p.file);
    if (cached && hit?.key === key) return hit.store;
    let bytes: Uint8Array;
    try {
      bytes = readWhole(fd, Number(s.size), STORE_MAX_BYTES);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EFBIG")
        throw tooLarge("kv.format", "the kv store is larger than 256 MiB");
      throw err;
    }
    const store = await decryptStore(bytes, identities);
    cache.set(p.file, { key, store });
    return store;
  } finally {
    closeSync(fd);
  }
}

const AGE_BINARY = "age-encryption.org/v1\n";
const AGE_ARMOR = "-----BEGIN AGE ENCRYPTED FILE-----";

async function decryptStore(bytes: Uint8Array, identities: readonly string[]): Promise<Map<string, KvEntry>> {
  const head = new TextDecoder().decode(bytes.subarray(0, 64));
  let file = bytes;
  if (head.trimStart().startsWith(AGE_ARMOR)) {
    try {
      file = armor.decode(new TextDecoder().decode(bytes));
    } catch {
      throw notAgeFile();
    }
  } else if (!head.startsWith(AGE_BINARY)) throw notAgeFile();
  const d = new Decrypter();
  for (const id of identities) d.addIdentity(id);
  let plain: Uint8Array;
  try {
    plain = await d.decrypt(file);
  } catch {
    throw new RtaError(
      "kv.decrypt",
      "the kv store does not open with the identity: it was encrypted to other recipients, or it is damaged",
      "`rta kv status` names the recipients; `kv.age.bak` beside it holds the version before the last write",
    );
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(plain);
  } catch {
    throw new RtaError("kv.format", "the kv store's plaintext is not UTF-8 text", "docs/secrets.md shows its format");
  }
  return parseStore(text);
}

/**
 * The recipients the store is encrypted to on its next write: the
 * recipients file's, or the identity's own without one. Refuses what
 * loadIdentities refuses when there is no file, and kv.recipients for a
 * file with a line age cannot encrypt to.
 */
export async function readRecipients(p: KvPlaces): Promise<string[]> {
  return (await readRecipientsFile(p.recipients)) ?? recipientsOf(await loadIdentities(p.identity));
}

/** Each store's writes in this process, one after another: the lock file names the process, not the call. */
const queues = new Map<string, Promise<unknown>>();

/**
 * Changes the store: takes its lock (waiting for another process's write),
 * reads it again from the file, lets `change` change the entries, encrypts
 * them to `recipients` (which then become the recipients file; a function
 * gets readRecipients' as read under the lock, so a concurrent change to them
 * is not lost) or else to readRecipients', replaces the file atomically,
 * keeping the one it replaced as `kv.age.bak`, and gives the recipients it
 * encrypted to. What `change` throws is thrown, and nothing is
 * written. Refuses what readStore and readRecipients refuse, kv.recipients
 * for recipients that leave out every one of the identity's own (the store
 * would no longer open here) or that age cannot encrypt to, and kv.busy when
 * another process holds the lock past the wait.
 */
export function updateStore(
  p: KvPlaces,
  change: (m: Map<string, KvEntry>) => void,
  recipients?: Recipients,
): Promise<string[]> {
  const before = queues.get(p.file) ?? Promise.resolve();
  const run = before.then(
    () => locked(p, () => write(p, change, recipients)),
    () => locked(p, () => write(p, change, recipients)),
  );
  const tail = run.catch(() => {});
  queues.set(p.file, tail);
  void tail.then(() => {
    if (queues.get(p.file) === tail) queues.delete(p.file);
  });
  return run;
}

/** How long a write waits for another process's write before kv.busy. */
const LOCK_WAIT_MS = 10_000;

async function locked<T>(p: KvPlaces, work: () => Promise<T>): Promise<T> {
  const dir = dirname(p.file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const lock = `${p.file}.lock`;
  const until = Date.now() + LOCK_WAIT_MS;
  while (!tryFileLock(lock)) {
    if (Date.now() > until)
      throw new RtaError(
        "kv.busy",
        `another rta is changing the kv store (it holds ${lock})`,
        "wait for it to finish, then run the command again; if no rta is running, remove that lock file",
      );
    await Bun.sleep(5 + Math.random() * 10);
  }
  try {
    return await work();
  } finally {
    releaseFileLock(lock);
  }
}

/** The recipients a write encrypts to: a list, or a change to the ones there are. */
type Recipients = string[] | ((current: string[]) => string[]);

async function write(p: KvPlaces, change: (m: Map<string, KvEntry>) => void, given?: Recipients): Promise<string[]> {
  const identities = await loadIdentities(p.identity);
  await removeStaleTemps(p.file);
  // under the lock, the file is read again whatever the cache says: another process may have just written it
  const store = new Map(await readFile(p, identities, false));
  change(store);
  const own = await recipientsOf(identities);
  const current = Array.isArray(given) ? given : ((await readRecipientsFile(p.recipients)) ?? own);
  const recipients = typeof given === "function" ? given(current) : current;
  const bad = recipients.findIndex((r) => !isRecipient(r));
  if (bad >= 0)
    throw new RtaError("kv.recipients", `recipient ${bad + 1} is no age recipient`, "an age recipient reads `age1…`");
  if (!recipients.some((r) => own.includes(r)))
    throw new RtaError(
      "kv.recipients",
      "the recipients leave out the identity's own, so the store would no longer open here",
      "keep the identity's recipient (`rta keys list` shows it) among them",
    );
  const e = new Encrypter();
  for (const r of recipients) e.addRecipient(r);
  const bytes = await e.encrypt(formatStore(store));
  if (bytes.length > STORE_MAX_BYTES) throw tooLarge("core.input.toolarge", "the kv store would grow past 256 MiB");
  if (given) await replaceFile(p.recipients, new TextEncoder().encode(recipientsText(recipients)), false);
  await replaceFile(p.file, bytes, true);
  const s = await stat(p.file, { bigint: true });
  cache.set(p.file, { key: fileKey(s, identities), store });
  return recipients;
}

let temps = 0;

/** Writes `bytes` to `file` by a temp file beside it (fsync, rename, fsync of the dir), keeping the old as `.bak`. */
async function replaceFile(file: string, bytes: Uint8Array, backup: boolean): Promise<void> {
  const temp = `${file}.${process.pid}.${++temps}.tmp`;
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await unlink(temp).catch(() => {});
    throw err;
  }
  await handle.close();
  await chmod(temp, 0o600);
  if (backup) await keepBackup(file);
  await rename(temp, file);
  syncDir(dirname(file));
}

/**
 * The file as it is becomes `<file>.bak`, by a second link renamed into place (a copy where links cannot be made),
 * made 0600 first whatever mode the file had (the age CLI under umask 022 writes 0644): the name it leaves is
 * renamed over next, so only the backup keeps that inode.
 */
async function keepBackup(file: string): Promise<void> {
  const temp = `${file}.bak.${process.pid}.${++temps}.tmp`;
  try {
    await link(file, temp);
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code;
    if (errno === "ENOENT") return;
    if (errno !== "EPERM" && errno !== "ENOTSUP" && errno !== "EXDEV") throw err;
    await copyFile(file, temp);
  }
  await chmod(temp, 0o600);
  await rename(temp, `${file}.bak`);
}

/** Temp files a write killed mid-way left: under the lock, no other write is under way. */
async function removeStaleTemps(file: string): Promise<void> {
  const dir = dirname(file);
  const base = file.slice(dir.length + 1);
  const pattern = new RegExp(`^${base.replaceAll(".", "\\.")}(\\.bak)?\\.\\d+\\.\\d+\\.tmp$`);
  const recipientsPattern = /^kv\.recipients\.\d+\.\d+\.tmp$/;
  for (const name of await readdir(dir)) {
    if (pattern.test(name) || recipientsPattern.test(name)) await unlink(join(dir, name)).catch(() => {});
  }
}
