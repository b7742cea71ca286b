/**
 * Reading the small files of the proc file system on every call. Each file is
 * opened once and read again from offset 0, which procfs answers with fresh
 * content: a call costs one read instead of an open, a stat, a read and a
 * close per file. A file that cannot be read gives undefined.
 */
import { closeSync, openSync, readSync } from "node:fs";

/** The proc files read this way (uptime, loadavg, meminfo) are a few KiB at most. */
const BUFFER_BYTES = 16 * 1024;

const fds = new Map<string, number>();
const buffer = Buffer.allocUnsafe(BUFFER_BYTES);

/** A small /proc file's text, its descriptor kept open between calls; undefined when it cannot be read. */
export function readProcText(file: string): string | undefined {
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd = fds.get(file);
    try {
      if (fd === undefined) {
        fd = openSync(file, "r");
        fds.set(file, fd);
      }
      const n = readSync(fd, buffer, 0, BUFFER_BYTES, 0);
      return buffer.toString("utf8", 0, n);
    } catch {
      if (fd !== undefined) {
        fds.delete(file);
        try {
          closeSync(fd);
        } catch {
          // already gone
        }
      }
    }
  }
  return undefined;
}
