/**
 * Runs the built binary on a pseudo-terminal (util-linux `script`), so what a
 * person sees at a terminal can be tested: piped, rta prints the same content plainly.
 */
import { prepareDataDir, RTA } from "./rta.ts";

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * The command's terminal output, with the terminal's CRLF turned back into LF; colour off. `typed` is what a
 * person types at the terminal (its echo is part of the output); left out, nothing is.
 */
export async function onTerminal(
  args: string[],
  env: Record<string, string>,
  typed?: string,
): Promise<{ code: number; out: string }> {
  await prepareDataDir(env.RTA_DATA_DIR);
  const proc = Bun.spawn(["script", "-qec", [RTA, ...args].map(quote).join(" "), "/dev/null"], {
    stdin: typed === undefined ? "ignore" : new Blob([typed]),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", TERM: "dumb", ...env },
  });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { code, out: out.replaceAll("\r\n", "\n") };
}
