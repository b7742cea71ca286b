/**
 * The operator's confirm list, for stage 9, from a config.toml as it stands:
 * one that does not read must not let a call on its list run unasked. Its
 * list is still known when that much reads (a root that is not a list; TOML
 * that does not parse and names no confirm); it cannot be known when TOML
 * that does not parse may name one, when `confirm` itself does not read, or
 * when the file will not open: every agent call is then asked.
 */
import { type Config, type ConfigState, EMPTY_CONFIG, readConfig } from "./config.ts";

/** The list read from each unread text, kept so the same text gives the same object. */
const known = new WeakMap<ConfigState, Config | undefined>();

/** The config stage 9 reads the operator's confirm list from; undefined when that list cannot be known. Refuses nothing. */
export function confirmConfig(state: ConfigState): Config | undefined {
  if (state.kind !== "unreadable") return state.config;
  if (!known.has(state)) known.set(state, confirmOf(state.text));
  return known.get(state);
}

function confirmOf(text: string | undefined): Config | undefined {
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = Bun.TOML.parse(text);
  } catch {
    // TOML that does not parse names no `confirm` when the word is nowhere in it, spelt out or escaped in a quoted key
    return /confirm|\\[uU]/.test(text) ? undefined : EMPTY_CONFIG;
  }
  const { config } = readConfig(text);
  const named = typeof raw === "object" && raw !== null && Object.hasOwn(raw, "confirm");
  if (named && config.confirm === undefined) return undefined;
  return config.confirm ? { ...EMPTY_CONFIG, confirm: config.confirm } : EMPTY_CONFIG;
}
