/**
 * The day cache of offsite answers: `<data dir>/cache/offsite/<digest>.json`,
 * one file per method, URL and body, written whole (a temp file renamed over
 * it) with mode 0600, and held to a size: past it the oldest files go. A
 * cache that cannot be read or written is no cache, never a failure.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

/** the bytes all kept answers may take together; one larger than a quarter of it is not kept */
export const CACHE_BYTES = 32 * 1024 * 1024;

/** One kept answer. */
export interface Kept {
  status: number;
  body: Buffer;
  fetchedAt: number;
}

/** The cache file's name for one request: a digest of its method, URL and body. */
export function cacheKey(method: string, url: string, body: Buffer | undefined): string {
  const h = createHash("sha256").update(method).update("\0").update(url).update("\0");
  if (body) h.update(body);
  return h.digest("hex");
}

/** The offsite cache under one data dir. */
export class OffsiteCache {
  readonly #dir: string;
  readonly #bound: number;

  constructor(dataDir: string, bound = CACHE_BYTES) {
    this.#dir = join(dataDir, "cache", "offsite");
    this.#bound = bound;
  }

  /**
   * The answer kept for `key` and that URL, whatever its age; undefined when none is, or it cannot be read. Only a
   * regular file no larger than one this cache writes is read: a link, a FIFO (whose read would stop the server) or
   * a huge file put in its place is no answer.
   */
  read(key: string, url: string): Kept | undefined {
    let fd: number | undefined;
    try {
      fd = openSync(join(this.#dir, `${key}.json`), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      const st = fstatSync(fd);
      if (!st.isFile() || st.size > this.#bound / 4) return undefined;
      const kept = JSON.parse(readFileSync(fd, "utf8")) as Record<string, unknown>;
      if (kept.url !== url || typeof kept.status !== "number" || typeof kept.fetchedAt !== "number") return undefined;
      if (typeof kept.body !== "string") return undefined;
      return { status: kept.status, fetchedAt: kept.fetchedAt, body: Buffer.from(kept.body, "base64") };
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Keeps an answer for `key`, whole or not at all, then drops the oldest past the bound; a failure is passed by. */
  write(key: string, url: string, kept: Kept): void {
    const text = JSON.stringify({
      url,
      status: kept.status,
      fetchedAt: kept.fetchedAt,
      body: kept.body.toString("base64"),
    });
    if (text.length > this.#bound / 4) return;
    const file = join(this.#dir, `${key}.json`);
    const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      const fd = openSync(temp, "wx", 0o600);
      try {
        writeSync(fd, text);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, file);
      this.#prune();
    } catch {
      try {
        unlinkSync(temp);
      } catch {}
    }
  }

  /** Removes the oldest files until what is kept fits the bound. */
  #prune(): void {
    const files = readdirSync(this.#dir).flatMap((name) => {
      try {
        const st = statSync(join(this.#dir, name));
        return st.isFile() ? [{ name, size: st.size, mtime: st.mtimeMs }] : [];
      } catch {
        return [];
      }
    });
    let total = files.reduce((sum, f) => sum + f.size, 0);
    if (total <= this.#bound) return;
    files.sort((a, b) => a.mtime - b.mtime);
    for (const f of files) {
      if (total <= this.#bound) break;
      try {
        unlinkSync(join(this.#dir, f.name));
      } catch {}
      total -= f.size;
    }
  }
}
