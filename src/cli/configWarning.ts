/**
 * A config.toml that does not read is said to the person by every command,
 * once, on stderr, before the command runs: rta goes on as if the file were
 * not there (no roots, defaults, connections or profiles from it), and
 * saying nothing would leave a person wondering why a setting does not hold.
 * `rta config` and `rta doctor` say it themselves, in full. It never reaches
 * an agent: a server says it on its own stderr, not in a tool result.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { CONFIG_FILE, ConfigSource } from "../core/config.ts";
import { dirs } from "../core/dirs.ts";
import type { Io } from "./io.ts";
import { shown } from "./render.ts";

/** The commands that report the config themselves: they would say it twice. */
const SAY_IT_THEMSELVES = new Set(["config", "doctor"]);

/** Says on stderr that config.toml does not read, unless the command `first` names says it; refuses nothing. */
export function warnIfConfigUnread(io: Io, first: string | undefined): void {
  if (first !== undefined && SAY_IT_THEMSELVES.has(first)) return;
  const file = join(dirs(io.env).config, CONFIG_FILE);
  let state: ReturnType<ConfigSource["current"]>;
  try {
    state = new ConfigSource(file).current();
  } catch {
    return; // a config dir that is not there or not a dir: doctor says that
  }
  if (state.kind === "ok") return;
  const why = state.error.message.replace(/^config\.toml: /, "");
  io.err(
    `rta: warning: ${shown(knownAs(file, io.env))} does not read (${shown(firstLine(why))}), so rta runs without it\n`,
  );
  io.err("rta: hint: `rta config check` lists every problem in it\n");
}

/** A path as the person knows it: under their home, with `~`. */
function knownAs(file: string, env: Record<string, string | undefined>): string {
  const home = env.HOME || homedir();
  return home && home !== "/" && file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
}

/** A parser's message can run over lines; the warning keeps to its first. */
function firstLine(text: string): string {
  const nl = text.indexOf("\n");
  return nl === -1 ? text : text.slice(0, nl);
}
