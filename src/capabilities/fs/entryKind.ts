/**
 * What kind of entry a path is, as the file capabilities say it: its type and
 * permission bits as `ls` shows them, whether its bytes look binary, and the
 * refusals of an entry of the wrong kind (fs.notfile, fs.notdir). log.tail
 * says the same of a log file.
 */
import type { Stats } from "node:fs";
import { RtaError } from "../../core/errors.ts";

export type EntryType = "file" | "dir" | "link" | "other";

/** The type column of a listing, from an lstat: a link is a link, never what it points to. */
export function typeOf(st: Stats): EntryType {
  if (st.isFile()) return "file";
  if (st.isDirectory()) return "dir";
  if (st.isSymbolicLink()) return "link";
  return "other";
}

/** Permission bits as `ls` shows them: 0o755 -> "rwxr-xr-x". */
export function modeString(mode: number): string {
  const bits = "rwxrwxrwx";
  let out = "";
  for (let i = 0; i < 9; i++) out += mode & (1 << (8 - i)) ? bits[i] : "-";
  return out;
}

/** A NUL byte in the first 8 KiB is what git and grep take as binary. */
export function looksBinary(sample: Buffer): boolean {
  return sample.subarray(0, 8192).includes(0);
}

/** The refusal of a path that is not a regular file, where one is needed. */
export function notFile(sent: string): RtaError {
  return new RtaError("fs.notfile", `${JSON.stringify(sent)} is not a regular file`, "fs.stat says what it is");
}

/** The refusal of a path that is not a directory, where one is needed. */
export function notDir(sent: string): RtaError {
  return new RtaError("fs.notdir", `${JSON.stringify(sent)} is not a directory`, "fs.stat says what it is");
}
