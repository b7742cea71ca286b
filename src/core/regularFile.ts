/**
 * A small file of rta's own read whole, only when it is a regular file: a
 * FIFO put at its name would have the reader wait for a writer that never
 * comes (a server's every kv call with it), and a device has effects of its
 * own when opened. The name is looked at first and a non-file is never
 * opened; the file is then opened without waiting and looked at again, since
 * the name may have changed between the two.
 */
import { constants, type Stats } from "node:fs";
import { open, stat } from "node:fs/promises";

/**
 * The bytes of the regular file at `path`, with its mode. Throws the system's
 * error (ENOENT, EACCES…), or one with the code EISDIR for a directory,
 * ENOTFILE for anything else that is not a regular file, and EFBIG for one
 * past `maxBytes`, which is not read.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<{ bytes: Uint8Array; mode: number }> {
  regular(await stat(path));
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const s = await handle.stat();
    regular(s);
    if (s.size > maxBytes) throw Object.assign(new Error("file too large"), { code: "EFBIG" });
    return { bytes: new Uint8Array(await handle.readFile()), mode: s.mode };
  } finally {
    await handle.close();
  }
}

function regular(s: Stats): void {
  if (s.isFile()) return;
  throw Object.assign(new Error("not a regular file"), { code: s.isDirectory() ? "EISDIR" : "ENOTFILE" });
}
