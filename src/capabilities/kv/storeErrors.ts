/** The kv store's refusals of the file itself: not a file, no age file, too large. */
import { RtaError } from "../../core/errors.ts";

/** The largest store read or written: far more than secrets need, and little enough to read whole. */
export const STORE_MAX_BYTES = 256 * 1024 * 1024;

/** A store past STORE_MAX_BYTES, read (kv.format) or about to be written (core.input.toolarge). */
export function tooLarge(code: "kv.format" | "core.input.toolarge", message: string): RtaError {
  return new RtaError(code, message, "keep large values (a database dump) in files, and their paths in the store");
}

/** kv.format for a kv.age that is no regular file (a FIFO, a device, a directory): it is never opened. */
export function notAFile(): RtaError {
  return new RtaError(
    "kv.format",
    "the kv store is not a regular file",
    "remove what stands at `kv.age`; `kv.age.bak` beside it holds the version before the last write",
  );
}

/** kv.format for a kv.age that is no age file. */
export function notAgeFile(): RtaError {
  return new RtaError(
    "kv.format",
    "the kv store is no age file",
    "`kv.age.bak` beside it holds the version before the last write",
  );
}
