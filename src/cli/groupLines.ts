/**
 * The help line of a command group (`rta eol`, `rta audit kube`): what its
 * commands are about, then their names, so `rta --help` and `rta audit
 * --help` say what a group holds before it is opened. The built-in areas'
 * words are here, beside the CLI that shows them; a plugin's area, whose words
 * rta does not know, is named with its commands alone.
 */
import type { Command } from "commander";

/** What each built-in group is about, by its words (`audit kube`). */
const ABOUT: Record<string, string> = {
  audit: "security audits",
  "audit kube": "audit the Kubernetes cluster of kubectl's current context",
  cert: "TLS certificates",
  disk: "disks and file systems",
  eol: "end-of-life dates, from endoflife.date",
  fs: "files and directories under the roots",
  http: "HTTP requests",
  jwt: "JSON Web Tokens",
  keys: "the kv store's age identity and recipients",
  kv: "the secret store",
  log: "log files",
  net: "network checks from this machine",
  proc: "processes",
  sys: "this machine",
};

/**
 * Sets the help line of a group made for capability commands, once its commands are added: the group's words, or
 * `<key> capabilities`, then its commands by name. Refuses nothing.
 */
export function describeGroup(group: Command, key: string): void {
  const names = group.commands
    .filter((c) => (c as unknown as { _hidden?: boolean })._hidden !== true)
    .map((c) => c.name())
    .sort();
  group.description(`${ABOUT[key] ?? `${key} capabilities`}: ${names.join(", ")}`);
}
