/**
 * Who a person's action is issued by, as a grant, a lock or a token records
 * it: the operating system's user, by name where the host's user database
 * has one. Read from the host files Deps names, so a test points it at a
 * fixture.
 */
import { readFileSync } from "node:fs";
import { userInfo } from "node:os";
import type { HostFiles } from "../../core/deps.ts";

/** The running user's name, else `uid N`, else `unknown`; refuses nothing (a missing user database says the uid). */
export function issuer(host: HostFiles): string {
  let name = "";
  try {
    name = userInfo().username;
  } catch {
    // no entry for this uid: looked up below
  }
  if (name && name !== "unknown") return name;
  const uid = process.getuid?.();
  if (uid === undefined) return "unknown";
  try {
    const line = readFileSync(host.passwdFile, "utf8")
      .split("\n")
      .find((l) => l.split(":")[2] === String(uid));
    if (line) return line.split(":")[0] as string;
  } catch {
    // no user database: the uid says who
  }
  return `uid ${uid}`;
}
