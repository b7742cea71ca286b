/**
 * `rta keys export` and `rta keys import FILE|-`: the verbs that move key
 * material, for a person only (never tools). Export prints the identity file
 * as it is, wherever stdout goes, as age-keygen and `gh auth token` print
 * theirs, and warns, as age-keygen does, when stdout is a file others may
 * read. Import installs an identity file, checked, 0600 from its first byte,
 * never over one already there without --force.
 */
import { existsSync, fstatSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { installIdentity } from "../capabilities/keys/identityFile.ts";
import { type KvPlaces, kvPlaces, loadIdentities, readStore, recipientsOf } from "../capabilities/kv/store.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { readRegularFile } from "../core/regularFile.ts";
import { askSecret } from "./askSecret.ts";
import type { Cli } from "./factory.ts";
import { jsonText } from "./io.ts";
import { personPlaces } from "./kvCopy.ts";
import { shown } from "./render.ts";
import { refusalOf, reportError } from "./report.ts";

/** An identity file is a few lines; more than this is no identity file. */
const IDENTITY_LIMIT_BYTES = 64 * 1024;

/**
 * Prints the identity file (its mode checked first). Refuses what loadIdentities refuses: kv.locked when there is
 * none or it cannot be read, kv.identity.mode when others may read it, kv.identity.format when it holds no key.
 */
export async function keysExport(cli: Cli): Promise<number> {
  const { io } = cli;
  try {
    const { identity } = personPlaces(io.env);
    await loadIdentities(identity);
    const text = readFileSync(identity, "utf8");
    if (othersMayRead(io.stdoutFd ?? 1))
      io.err("rta: warning: writing the secret key to a file others may read: chmod 600 it, or remove it\n");
    io.out(text.endsWith("\n") ? text : `${text}\n`);
    return Exit.ok;
  } catch (err) {
    return reportError(io, refusalOf(io, err, "rta could not export the identity"), false);
  }
}

function othersMayRead(fd: number): boolean {
  try {
    const s = fstatSync(fd);
    return s.isFile() && (s.mode & 0o044) !== 0;
  } catch {
    return false;
  }
}

/**
 * Installs the identity in FILE (`-` for stdin) where this rta looks for it, and prints its recipients. Refuses
 * core.input.toolarge past 64 KiB, what loadIdentities refuses of it (kv.identity.format), keys.exists when an
 * identity is already there and --force is not given, and a FILE that cannot be read.
 */
export async function keysImport(cli: Cli, from: string, opts: { force?: boolean; json?: boolean }): Promise<number> {
  const { io } = cli;
  const json = opts.json === true;
  try {
    // typed or pasted at a terminal, the secret key is not shown: one `AGE-SECRET-KEY-1…` line is an identity
    const text =
      from !== "-"
        ? await readSource(from)
        : io.stdinIsTTY
          ? askSecret(io, "the identity's AGE-SECRET-KEY-1… line")
          : await io.readStdin(IDENTITY_LIMIT_BYTES);
    const places = personPlaces(io.env);
    const named = from === "-" ? "stdin" : from;
    let recipients: string[] = [];
    let opensStore = true;
    try {
      await installIdentity(places.identity, text, {
        replace: opts.force === true,
        check: async (temp) => {
          recipients = await recipientsOf(
            await loadIdentities(temp).catch((err) => Promise.reject(renamed(err, temp, named))),
          );
          if (existsSync(places.file)) opensStore = await opens(kvPlaces(dirname(places.file), temp));
        },
      });
    } catch (err) {
      if (err instanceof RtaError && err.code === "keys.exists")
        throw new RtaError(
          err.code,
          err.message,
          "give --force to replace it; the store opens only with an identity it is encrypted to",
        );
      throw err;
    }
    if (json) io.out(jsonText(io, { identity: places.identity, recipients, opens_store: opensStore }));
    else io.out(recipients.map((r) => `${r}\n`).join(""));
    io.err(`rta: installed the identity as ${shown(places.identity)}\n`);
    if (!opensStore)
      io.err(
        "rta: warning: the kv store is not encrypted to this identity, so it no longer opens here: run `rta keys add-recipient` with its recipient where an identity that opens it is installed\n",
      );
    return Exit.ok;
  } catch (err) {
    return reportError(io, refusalOf(io, err, "rta could not import the identity"), json);
  }
}

/** Whether the store opens with the identity of `p`: false only when it is encrypted to other recipients. */
async function opens(p: KvPlaces): Promise<boolean> {
  try {
    await readStore(p);
    return true;
  } catch (err) {
    if (err instanceof RtaError && err.code === "kv.decrypt") return false;
    return true;
  }
}

/** An error about the temporary file, said of the file the person named. */
function renamed(err: unknown, temp: string, named: string): unknown {
  if (!(err instanceof RtaError)) return err;
  return new RtaError(err.code, err.message.replaceAll(temp, named), err.hint);
}

/**
 * The identity file a person named, read only when it is a regular file no larger than an identity file: a device
 * (/dev/zero) or a FIFO is never read, a large file never read whole.
 */
async function readSource(path: string): Promise<string> {
  const named = JSON.stringify(path);
  try {
    const { bytes } = await readRegularFile(resolve(path), IDENTITY_LIMIT_BYTES);
    return Buffer.from(bytes).toString("utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EFBIG")
      throw new RtaError(
        "core.input.toolarge",
        `${named} is larger than an identity file`,
        "give the file age-keygen wrote",
      );
    if (code === "EISDIR" || code === "ENOTFILE")
      throw new RtaError(
        "fs.notfile",
        `${named} is not a regular file`,
        "give the file age-keygen wrote, or - to read it from stdin (`rta keys import - < FILE`)",
      );
    throw new RtaError(
      code === "ENOENT" ? "fs.notfound" : code === "EACCES" || code === "EPERM" ? "fs.denied" : "fs.notfile",
      `${named} cannot be read as an identity file`,
      "give the file age-keygen wrote, or - to read it from stdin",
    );
  }
}
