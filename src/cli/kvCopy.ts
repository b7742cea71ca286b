/**
 * `rta kv copy NAME`: a stored value to the clipboard, for a person only
 * (never a tool: an agent has no clipboard, and one that filled the
 * person's would hand the value on unseen). The value is never printed; the
 * clipboard is cleared after --clear-after seconds (45) by a detached rta,
 * while it still holds that value.
 */
import { checkName } from "../capabilities/kv/format.ts";
import { kvPlaces, readStore } from "../capabilities/kv/store.ts";
import { dirs, personIdentityFile } from "../core/dirs.ts";
import { Exit, RtaError } from "../core/errors.ts";
import type { Cli } from "./factory.ts";
import { jsonText } from "./io.ts";
import { clearLater, clipboardNamed, digestOf, feed, findClipboard, startClearer } from "./kvClipboard.ts";
import { refusalOf, reportError } from "./report.ts";

/** How long a copied value stays on the clipboard unless told otherwise, as pass does. */
export const CLEAR_AFTER_SECONDS = 45;

/** The kv store's places for a person: rta's dirs and the identity from this process's environment. */
export function personPlaces(env: Record<string, string | undefined>) {
  const d = dirs(env);
  return kvPlaces(d.data, personIdentityFile(d));
}

/**
 * Copies the value of NAME to the clipboard and starts its clearer; says on stderr where it went and when it goes.
 * Refuses a bad name (core.input.invalid), a bad --clear-after (core.input.range), what reading the store refuses
 * (kv.locked, kv.notfound, ...), and kv.clipboard.none without a usable clipboard tool or when the tool fails.
 */
export async function kvCopy(cli: Cli, name: string, opts: { clearAfter?: string; json?: boolean }): Promise<number> {
  const { io } = cli;
  const json = opts.json === true;
  try {
    const seconds = clearAfter(opts.clearAfter);
    checkName(name);
    const tool = findClipboard(io.env);
    const entry = (await readStore(personPlaces(io.env))).get(name);
    if (!entry)
      throw new RtaError(
        "kv.notfound",
        `the kv store holds no key ${JSON.stringify(name)}`,
        "`rta kv list` names the keys it holds",
      );
    const status = await feed(tool.copy, entry.value, io.env);
    if (status !== 0)
      throw new RtaError(
        "kv.clipboard.none",
        `${tool.name} could not set the clipboard (exit status ${status})`,
        "check that your desktop session's clipboard works: run it by hand",
      );
    const clearing = seconds > 0 && startClearer(tool, seconds, digestOf(entry.value), io.env);
    if (json) io.out(jsonText(io, { name, tool: tool.name, clear_after: clearing ? seconds : null }));
    const when =
      seconds === 0
        ? "it is not cleared"
        : clearing
          ? `it is cleared in ${seconds} s`
          : "rta could not start its clearer: clear it yourself";
    io.err(`rta: copied ${name} to the clipboard with ${tool.name}; ${when}\n`);
    return Exit.ok;
  } catch (err) {
    return reportError(io, refusalOf(io, err, "rta could not copy the value"), json);
  }
}

function clearAfter(text: string | undefined): number {
  if (text === undefined) return CLEAR_AFTER_SECONDS;
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n > 3600)
    throw new RtaError(
      "core.input.range",
      `--clear-after is ${JSON.stringify(text)}, outside 0..3600`,
      "give --clear-after a whole number of seconds (0 keeps the value on the clipboard)",
    );
  return n;
}

/**
 * The detached clearer `rta kv copy` starts (hidden `rta kv __clear-clipboard TOOL SECONDS`): reads the value's
 * digest from stdin, waits, and clears the clipboard if it still holds that value. Refuses nothing; says nothing.
 */
export async function kvClearClipboard(cli: Cli, toolName: string, secondsText: string): Promise<number> {
  const tool = clipboardNamed(toolName);
  const seconds = Number(secondsText);
  if (!tool || !Number.isInteger(seconds) || seconds < 0) return Exit.usage;
  const digest = (await cli.io.readStdin(1024)).trim();
  if (!/^[0-9a-f]{64}$/.test(digest)) return Exit.usage;
  await clearLater(tool, seconds, digest, cli.io.env);
  return Exit.ok;
}
