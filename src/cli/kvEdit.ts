/**
 * `rta kv edit`: the kv store's plaintext in $VISUAL or $EDITOR (else vi),
 * for a person only. The plaintext is written to a 0600 file in a private
 * 0700 dir (in /dev/shm where there is one, so it never reaches a disk),
 * read back and checked as the store's format, and what changed is written
 * through the store's lock, so a key another rta set meanwhile is kept. A
 * broken edit is named by its line and may be edited again or abandoned.
 * The dir is removed after, on an error, and on Ctrl-C, SIGTERM or SIGHUP;
 * one a SIGKILL left (named with its pid) is removed by the next edit and by
 * `rta doctor` (leftovers.ts).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { formatStore, parseStore } from "../capabilities/kv/format.ts";
import { editDirPrefix, removeEditLeftovers, scratchRoot } from "../capabilities/kv/leftovers.ts";
import { type KvEntry, loadIdentities, readStore, updateStore } from "../capabilities/kv/store.ts";
import { Exit, RtaError } from "../core/errors.ts";
import type { Cli } from "./factory.ts";
import { jsonText } from "./io.ts";
import { personPlaces } from "./kvCopy.ts";
import { shown } from "./render.ts";
import { refusalOf, reportError } from "./report.ts";

/** Exit statuses for the signals that end an edit, as a shell reports them. */
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGHUP: 129, SIGTERM: 143 };

/**
 * Runs the edit and writes what changed. Refuses what reading and writing the store refuse (kv.locked, kv.format
 * for a store that does not read, kv.busy), kv.format for a broken edit not edited again, and kv.edit.abandoned
 * when the editor fails, the person abandons, or a signal ends it; nothing is written then.
 */
export async function kvEdit(cli: Cli, opts: { json?: boolean }): Promise<number> {
  const { io } = cli;
  const json = opts.json === true;
  let dir: string | undefined;
  const cleanup = () => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  };
  // Ctrl-C while the editor runs is the editor's (vi's and vim's users press it to leave a mode), as git leaves it;
  // an editor it ends fails the edit. Ctrl-C anywhere else, SIGTERM and SIGHUP end rta now, the dir removed.
  let editing = false;
  const onEnd = (signal: NodeJS.Signals) => {
    cleanup();
    process.exit(SIGNAL_EXIT[signal] ?? Exit.failure);
  };
  const onInt = () => {
    if (!editing) onEnd("SIGINT");
  };
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onEnd);
  process.on("SIGHUP", onEnd);
  try {
    const places = personPlaces(io.env);
    // refused now, not after the person has typed: a store not made yet reads as empty without an identity
    await loadIdentities(places.identity);
    const before = await readStore(places);
    const text = formatStore(before);
    // what an rta killed mid-edit (SIGKILL runs no handler) left: the plaintext of a store, so it goes now
    for (const left of removeEditLeftovers())
      io.err(`rta: removed the plaintext a killed \`rta kv edit\` left: ${shown(left)}\n`);
    dir = mkdtempSync(editDirPrefix(scratchRoot()));
    const file = join(dir, "kv.txt");
    writeFileSync(file, text, { mode: 0o600, flag: "wx" });
    let edited: Map<string, KvEntry> | undefined;
    while (edited === undefined) {
      editing = true;
      const status = await runEditor(io.env, file);
      editing = false;
      if (status !== 0) throw abandoned(`the editor exited with status ${status}`);
      const after = readFileSync(file, "utf8");
      if (after === text) {
        io.err("rta: no change: the kv store is as it was\n");
        if (json) io.out(jsonText(io, { added: [], changed: [], removed: [] }));
        return Exit.ok;
      }
      try {
        // a key added or changed is stamped now, so a person adding one need not write its `modified`
        edited = parseStore(after, true);
      } catch (err) {
        if (!(err instanceof RtaError)) throw err;
        if (!io.stdinIsTTY)
          throw new RtaError(err.code, err.message, "nothing was written: run `rta kv edit` again to mend it");
        io.err(`rta: error: ${err.message} (${err.code})\n`);
        io.err("rta: edit again? [Y/n] ");
        if (/^\s*n/i.test(await askLine())) throw abandoned("the broken edit was abandoned");
      }
    }
    const now = new Date(cli.clock.now()).toISOString();
    const diff = changes(before, edited, now);
    await updateStore(places, (m) => {
      for (const name of diff.removed) m.delete(name);
      for (const entry of diff.set) m.set(entry.name, entry);
    });
    const said = { added: diff.added, changed: diff.changed, removed: diff.removed };
    if (json) io.out(jsonText(io, said));
    io.err(
      `rta: kv store written: ${diff.added.length} added, ${diff.changed.length} changed, ${diff.removed.length} removed\n`,
    );
    return Exit.ok;
  } catch (err) {
    const said = refusalOf(io, err, "rta could not edit the kv store");
    return reportError(io, said, json);
  } finally {
    cleanup();
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onEnd);
    process.off("SIGHUP", onEnd);
  }
}

/**
 * One line typed at the terminal, read without blocking the event loop, so a Ctrl-C at the question reaches
 * rta's handler (a blocking read would swallow it); "" at the end of the input.
 */
function askLine(): Promise<string> {
  return new Promise((done) => {
    const rl = createInterface({ input: process.stdin, terminal: false });
    let answered = false;
    rl.once("line", (line) => {
      answered = true;
      rl.close();
      // stop reading the terminal: the editor run next reads it
      process.stdin.pause();
      done(line);
    });
    rl.once("close", () => {
      if (!answered) done("");
    });
  });
}

function abandoned(why: string): RtaError {
  return new RtaError("kv.edit.abandoned", `${why}: nothing was written`, "run `rta kv edit` again");
}

/** What the edit changed: names added and changed (stamped `now`), names removed. */
function changes(before: Map<string, KvEntry>, after: Map<string, KvEntry>, now: string) {
  const added: string[] = [];
  const changed: string[] = [];
  const set: KvEntry[] = [];
  for (const [name, e] of after) {
    const was = before.get(name);
    if (was && was.value === e.value && was.comment === e.comment) continue;
    (was ? changed : added).push(name);
    set.push(
      e.comment === undefined
        ? { name, value: e.value, modified: now }
        : { name, value: e.value, comment: e.comment, modified: now },
    );
  }
  const removed = [...before.keys()].filter((name) => !after.has(name));
  return { added, changed, removed, set };
}

/** Runs $VISUAL, else $EDITOR, else vi on `file` through sh, as git does (an editor may carry its own flags). */
function runEditor(env: Record<string, string | undefined>, file: string): Promise<number> {
  const editor = env.VISUAL || env.EDITOR || "vi";
  return new Promise((done) => {
    const child = spawn("/bin/sh", ["-c", `${editor} "$@"`, editor, file], { stdio: "inherit", env });
    child.on("error", () => done(127));
    child.on("close", (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}
