/**
 * What `rta doctor` says of the kv store's identity, from its file's kind and mode alone (nothing is decrypted):
 * where it is, or that there is none yet, and a mode kv would refuse (kv.identity.mode) with its fix; and the
 * temporary files holding secrets a killed rta left, which it removes and names.
 */
import { statSync } from "node:fs";
import { removeEditLeftovers, removeIdentityLeftovers } from "../capabilities/kv/leftovers.ts";
import { dirs, personIdentityFile } from "../core/dirs.ts";
import { shellWord } from "../core/words.ts";
import type { Cli } from "./factory.ts";

type Status = "ok" | "note" | "fail";
type Add = (check: string, status: Status, detail: string, fix?: string) => void;

/** Adds one finding for the kv identity; refuses nothing. */
export function kvFindings(cli: Cli, add: Add): void {
  const identity = personIdentityFile(dirs(cli.io.env));
  const [status, detail, fix] = identityFinding(identity);
  add("kv identity", status, detail, fix);
  // secrets an rta killed by SIGKILL left in temporary files (its pid runs no process now): removed, and said
  const removed = [...removeEditLeftovers(), ...removeIdentityLeftovers(identity)];
  if (removed.length > 0)
    add("secret leftovers", "note", `removed what a killed rta left holding secrets: ${removed.join(", ")}`);
}

function identityFinding(file: string): [Status, string, string?] {
  let mode: number;
  try {
    const s = statSync(file);
    if (!s.isFile()) return ["fail", `${file} is not a regular file`, "move it away, then `rta keys new`"];
    mode = s.mode;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      return ["note", `no ${file} yet`, "nothing to do unless you keep secrets: `rta keys new` makes one"];
    return ["fail", `${file} cannot be looked at`, "run rta as the user whose identity it is"];
  }
  if ((mode & 0o077) !== 0)
    return [
      "fail",
      `${file} may be read or written by others (mode ${(mode & 0o777).toString(8).padStart(4, "0")}), so kv refuses it`,
      `narrow it to its owner: chmod 600 ${shellWord(file)}`,
    ];
  return ["ok", file];
}
