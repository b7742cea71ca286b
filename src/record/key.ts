/**
 * The record's key: 32 random bytes, hex, in `<data dir>/record.key`, mode
 * 0600. The path gate withholds the whole data dir from agents, so an agent
 * can neither read it nor plant one. Whoever can read it can forge a record
 * line; that limit is said in docs/record.md.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

/** The key's file name inside the data dir. */
export const RECORD_KEY_FILE = "record.key";

/** 256 bits: HMAC-SHA256 gains nothing from a longer key. */
const KEY_BYTES = 32;

/**
 * The key, made on first use. It is written to a temporary file and linked
 * into place, so a reader never sees half a key, and when two servers make
 * one at once, the first link wins and the other reads it: one record never
 * gets two keys. Throws what the file system says when it cannot.
 */
export function recordKey(dataDir: string): Buffer {
  const existing = readRecordKey(dataDir);
  if (existing) return existing;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, RECORD_KEY_FILE);
  const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(temp, "wx", 0o600);
  // The temporary file goes whatever happens: on a full disk every call tries again, and each try left one.
  try {
    try {
      writeSync(fd, `${randomBytes(KEY_BYTES).toString("hex")}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  } finally {
    rmSync(temp, { force: true });
  }
  const made = readRecordKey(dataDir);
  if (!made) throw new Error("the record key could not be read back");
  return made;
}

/** The key if there is one; never makes one (verifying must not). Throws when the file holds no key. */
export function readRecordKey(dataDir: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(join(dataDir, RECORD_KEY_FILE), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${RECORD_KEY_FILE} does not hold a key`);
  return Buffer.from(hex, "hex");
}
