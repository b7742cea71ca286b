/**
 * The clipboard tools `rta kv copy` hands a value to, found on PATH: wl-copy
 * under Wayland, xclip under X11, pbcopy on macOS. A value is given on the
 * tool's stdin, never in an argument, and the clipboard is cleared later by
 * a detached rta that knows only the value's sha256, and clears it only
 * while the clipboard still holds that value (where the tool can read it back).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { RtaError } from "../core/errors.ts";

export interface Clipboard {
  name: "wl-copy" | "xclip" | "pbcopy";
  /** sets the clipboard to its stdin */
  copy: string[];
  /** prints what the clipboard holds */
  paste: string[];
  /** empties it (run with an empty stdin) */
  clear: string[];
}

const TOOLS: Record<Clipboard["name"], Clipboard> = {
  "wl-copy": { name: "wl-copy", copy: ["wl-copy"], paste: ["wl-paste", "--no-newline"], clear: ["wl-copy", "--clear"] },
  xclip: {
    name: "xclip",
    copy: ["xclip", "-selection", "clipboard"],
    paste: ["xclip", "-selection", "clipboard", "-o"],
    clear: ["xclip", "-selection", "clipboard"],
  },
  pbcopy: { name: "pbcopy", copy: ["pbcopy"], paste: ["pbpaste"], clear: ["pbcopy"] },
};

/** The tool by its name, for the detached clearer; undefined for a name that is none. */
export function clipboardNamed(name: string): Clipboard | undefined {
  return Object.hasOwn(TOOLS, name) ? TOOLS[name as Clipboard["name"]] : undefined;
}

/**
 * The clipboard tool this session can use: wl-copy when WAYLAND_DISPLAY is set, xclip when DISPLAY is, pbcopy
 * wherever it is found. Refuses (kv.clipboard.none) when none is on PATH, or none has a display to reach.
 */
export function findClipboard(env: Record<string, string | undefined>): Clipboard {
  const on = (tool: string) => Bun.which(tool, { PATH: env.PATH ?? "" }) !== null;
  if (env.WAYLAND_DISPLAY && on("wl-copy")) return TOOLS["wl-copy"];
  if (env.DISPLAY && on("xclip")) return TOOLS.xclip;
  if (on("pbcopy")) return TOOLS.pbcopy;
  const found = (["wl-copy", "xclip"] as const).filter(on);
  if (found.length > 0)
    throw new RtaError(
      "kv.clipboard.none",
      `${found.join(" and ")} ${found.length > 1 ? "are" : "is"} on PATH, but no display is set (WAYLAND_DISPLAY or DISPLAY)`,
      "run it in your desktop session, or print the value with `rta kv get NAME` where no one else sees the screen",
    );
  throw new RtaError(
    "kv.clipboard.none",
    "no clipboard tool was found on PATH: wl-copy, xclip or pbcopy",
    "install wl-clipboard (Wayland) or xclip (X11), or print the value with `rta kv get NAME`",
  );
}

/** Runs `argv` with `input` on its stdin and nothing it prints kept; resolves to its exit status (127 unstartable). */
export function feed(argv: string[], input: string, env: Record<string, string | undefined>): Promise<number> {
  return new Promise((done) => {
    // stdout and stderr are not piped: xclip and wl-copy stay behind to serve the clipboard, holding what they inherit
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ["pipe", "ignore", "ignore"], env });
    child.on("error", () => done(127));
    child.on("close", (code) => done(code ?? 1));
    child.stdin?.on("error", () => {});
    child.stdin?.end(input);
  });
}

/** What `argv` prints, or undefined when it fails or cannot start. */
function output(argv: string[], env: Record<string, string | undefined>): Promise<string | undefined> {
  return new Promise((done) => {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ["ignore", "pipe", "ignore"], env });
    const chunks: Buffer[] = [];
    child.stdout?.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", () => done(undefined));
    child.on("close", (code) => done(code === 0 ? Buffer.concat(chunks).toString("utf8") : undefined));
  });
}

/** The hex sha256 of a value: all the clearer is told of it. */
export function digestOf(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/**
 * Starts the clearer: `rta kv __clear-clipboard TOOL SECONDS`, detached in a session of its own (closing the
 * terminal does not end it), told the value's digest on stdin. Refuses nothing; a clearer that cannot start is
 * reported false.
 */
export function startClearer(
  tool: Clipboard,
  seconds: number,
  digest: string,
  env: Record<string, string | undefined>,
) {
  try {
    const child = spawn(process.execPath, ["kv", "__clear-clipboard", tool.name, String(seconds)], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
      env,
    });
    child.stdin?.on("error", () => {});
    child.stdin?.end(`${digest}\n`);
    child.unref();
    return child.pid !== undefined;
  } catch {
    return false;
  }
}

/**
 * The clearer's work: waits `seconds`, then empties the clipboard when it still holds the value whose digest is
 * `digest`, or when the tool cannot say what it holds. Refuses nothing.
 */
export async function clearLater(
  tool: Clipboard,
  seconds: number,
  digest: string,
  env: Record<string, string | undefined>,
) {
  await Bun.sleep(seconds * 1000);
  const now = await output(tool.paste, env);
  if (now !== undefined && digestOf(now) !== digest) return;
  await feed(tool.clear, "", env);
}
