/**
 * `--store <url>`, taken out of the command line wherever it stands (as --color is), for every verb that reads or
 * writes the gate's store: `rta mcp serve`, grant, lock, token, agent log. It is RTA_STORE for this one command;
 * a URL with a password is better kept in RTA_STORE or config, since a command line is visible to every user of
 * the machine.
 */
import { RtaError } from "../core/errors.ts";

/** The command line without --store and its value, and the value; refuses (core.cli.usage) a --store with none. */
export function takeStore(argv: string[]): { argv: string[]; store?: string } {
  const rest: string[] = [];
  let store: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg !== "--store" && !arg.startsWith("--store=")) {
      rest.push(arg);
      continue;
    }
    const value = arg === "--store" ? argv[++i] : arg.slice("--store=".length);
    if (value === undefined || value === "")
      throw new RtaError(
        "core.cli.usage",
        "--store needs a value: the shared store's postgres:// URL",
        "write --store postgres://user@host:5432/db, or set RTA_STORE",
      );
    store = value;
  }
  return store === undefined ? { argv: rest } : { argv: rest, store };
}
