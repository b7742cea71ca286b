/**
 * The record's checkpoint file, `record.checkpoint`, as bytes: one JSON text
 * of the last line's `n`, `mac` and the record's size, padded with spaces to
 * a fixed size so it is rewritten in place, and read by --verify without the
 * lock. The store that keeps it in step with the record is checkpoint.ts.
 */
import { closeSync, constants, openSync, readSync } from "node:fs";
import type { RecordCheckpoint } from "../../record/append.ts";
import { fdId } from "../../record/fileId.ts";

/** The file's fixed size: its JSON, padded with spaces, and a newline. */
export const CHECKPOINT_BYTES = 256;

/** No checkpoint: before the first keyed line, or one gone. */
export const NONE: RecordCheckpoint = { n: 0, mac: "", size: 0 };

/** The checkpoint as the file holds it: JSON padded to CHECKPOINT_BYTES. */
export function checkpointBytes(c: RecordCheckpoint): Buffer {
  const text = JSON.stringify({ n: c.n, mac: c.mac, size: c.size });
  if (text.length >= CHECKPOINT_BYTES) throw new Error("a record checkpoint does not fit its file");
  const bytes = Buffer.alloc(CHECKPOINT_BYTES, 0x20);
  bytes.write(text, 0, "latin1");
  bytes[CHECKPOINT_BYTES - 1] = 0x0a;
  return bytes;
}

/** The checkpoint a file's bytes hold; undefined when they hold none (empty, cut, or not rta's). */
export function parseCheckpoint(bytes: Buffer, length: number): RecordCheckpoint | undefined {
  if (length !== CHECKPOINT_BYTES) return undefined;
  try {
    const c = JSON.parse(bytes.toString("latin1", 0, length)) as Record<string, unknown>;
    const { n, mac, size } = c;
    if (!Number.isSafeInteger(n) || (n as number) < 0 || typeof mac !== "string") return undefined;
    if (!Number.isSafeInteger(size) || (size as number) < 0) return undefined;
    return { n: n as number, mac, size: size as number };
  } catch {
    return undefined;
  }
}

/** What the checkpoint file at `file` holds, read without the lock: "torn" when its text does not parse. */
export function readNamedCheckpoint(file: string): RecordCheckpoint | "torn" {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return NONE;
    // a link at the name, which no writer follows: no checkpoint of theirs
    if (code === "ELOOP") return NONE;
    throw err;
  }
  try {
    // A dir, a FIFO or a device at the name holds no checkpoint: the checkpoint is gone, not unreadable.
    if (!fdId(fd)?.isFile) return NONE;
    const bytes = Buffer.alloc(CHECKPOINT_BYTES + 1);
    const got = readSync(fd, bytes, 0, CHECKPOINT_BYTES + 1, 0);
    if (got === 0) return NONE;
    // A read does not wait for a write in progress, so one can see half of each (a mac of two, which parses):
    // the same bytes read twice running were not being written.
    const again = Buffer.alloc(CHECKPOINT_BYTES + 1);
    if (readSync(fd, again, 0, CHECKPOINT_BYTES + 1, 0) !== got || !again.equals(bytes)) return "torn";
    return parseCheckpoint(bytes, got) ?? "torn";
  } finally {
    closeSync(fd);
  }
}
