/**
 * `--store <url>`, taken out of the command line wherever it stands (as --color is), for every verb that reads or
 * writes the gate's store: `rta mcp serve`, grant, lock, token, agent log. It is RTA_STORE for this one command;
 * a URL with a password is better kept in RTA_STORE or config, since a command line is visible to every user of
 * the machine. And the store a command is to use, from RTA_STORE or config.
 */
import { ConfigSource, type ConfigState } from "../core/config.ts";
import { dirs } from "../core/dirs.ts";
import { RtaError } from "../core/errors.ts";
import { isPostgresUrl } from "../core/storeUrl.ts";

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

/**
 * The shared store config.toml names, if any. A config that does not read but names a `store` at its top is
 * refused (core.config.invalid) rather than run without: a replica falling back to its own gate.db would keep
 * grants, uses and locks its siblings never see.
 */
function configuredStore(state: ConfigState): string | undefined {
  if (state.kind !== "unreadable") return state.config.store;
  const top = state.text?.split(/^\s*\[/m, 1)[0];
  if (top === undefined || !/^\s*["']?store["']?\s*=/m.test(top)) return undefined;
  throw new RtaError(
    "core.config.invalid",
    `config.toml names a shared store but does not read (${state.error.message}), so no store is opened: a server on the data dir's gate.db would not share its grants and locks with the others`,
    "`rta config check` lists every problem in it",
  );
}

/**
 * The shared store this command uses: RTA_STORE (which --store sets), else config's `store` (read through `config`
 * when the command has the source it reads config.toml through already); undefined for none. Refuses
 * (core.config.invalid) a config that names one but does not read, as configuredStore does.
 */
export function namedStore(
  env: Record<string, string | undefined>,
  config: ConfigSource = ConfigSource.inConfigDir(dirs(env).config),
): string | undefined {
  return env.RTA_STORE || configuredStore(config.current());
}

/**
 * `shared` (--store, RTA_STORE or config's store) as the PostgreSQL URL it must be; refuses anything else
 * (core.store.unavailable) without repeating it, since it may hold a password.
 */
export function postgresStore(shared: string): string {
  if (!isPostgresUrl(shared))
    throw new RtaError(
      "core.store.unavailable",
      "the shared store (--store, RTA_STORE or config's store) is not a postgres:// URL",
      "name it as postgres://user@host:5432/db, or leave it unset to use the data dir",
    );
  return shared;
}
