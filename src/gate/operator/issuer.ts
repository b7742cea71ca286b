/**
 * Who a person's action is issued by, as a grant, a lock or a token records
 * it: the operating system's user, by name where the host's user database
 * has one. Read from the host files Deps names, so a test points it at a
 * fixture.
 */
import { readFileSync } from "node:fs";
import { userInfo } from "node:os";
import type { HostFiles } from "../../core/deps.ts";

/**
 * The running user's name, else the name the host's user database gives its
 * uid, else `uid N`, else `unknown`. Refuses nothing: a missing user database
 * says the uid. A test hands in the user as the system sees it.
 */
export function issuer(host: HostFiles, user: RunningUser = systemUser): string {
  const name = user.name();
  if (name && name !== "unknown") return name;
  const uid = user.uid();
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

/** The user rta runs as, as the system says it. */
export interface RunningUser {
  /** the system's name for the user, or "" when it has none */
  name(): string;
  /** undefined where the platform has no uids */
  uid(): number | undefined;
}

const systemUser: RunningUser = {
  name: () => {
    try {
      return userInfo().username;
    } catch {
      // no entry for this uid: issuer() looks it up in the host files
      return "";
    }
  },
  uid: () => process.getuid?.(),
};
