/**
 * `rta operator` on a terminal: a live view of every running server, drawn by
 * a small redraw loop of its own (no UI library: the whole screen is a few
 * dozen lines, redrawn when an event or a key comes). Keys: ↑/↓ (or k/j)
 * move, `a` approves and `d` denies the consent under the cursor, `l` locks
 * the agent under the cursor (its calls under way are cancelled at once),
 * `q` or Ctrl-C quits. It works at 80×24.
 */
import { Exit, RtaError } from "../core/errors.ts";
import { lock } from "../gate/operator/locks.ts";
import type { OperatorClient } from "../operator/client.ts";
import type { Cli } from "./factory.ts";
import { paint } from "./io.ts";
import { OperatorModel, screenLines } from "./operatorScreen.ts";

const ALT_SCREEN_ON = "\x1b[?1049h\x1b[?25l";
const ALT_SCREEN_OFF = "\x1b[?25h\x1b[?1049l";

/** Runs the view until `q`, Ctrl-C or SIGTERM; returns 0. Refuses nothing: a failed action is said on the view's note line. */
export async function runView(cli: Cli, client: OperatorClient): Promise<number> {
  const { io } = cli;
  const model = new OperatorModel();
  const colour = paint(io);
  let at = 0;
  let queued = false;
  const draw = () => {
    queued = false;
    const width = process.stdout.columns || 80;
    const height = process.stdout.rows || 24;
    const count = model.selectable().length;
    at = Math.min(Math.max(0, at), Math.max(0, count - 1));
    const lines = screenLines(model, width, height, at).map(({ text, style }) =>
      style === "head"
        ? colour.bold(text)
        : style === "cursor"
          ? colour.inverse(text)
          : style === "dim"
            ? colour.dim(text)
            : style === "bad"
              ? colour.red(text)
              : text,
    );
    process.stdout.write(`\x1b[H${lines.join("\r\n")}\x1b[J`);
  };
  const redraw = () => {
    if (queued) return;
    queued = true;
    setImmediate(draw);
  };
  client.onEvent((e) => {
    model.take(e);
    redraw();
  });
  client.onGone((_path, server) => {
    if (server !== undefined) model.take({ event: "server_ended", server, time: new Date().toISOString() });
    redraw();
  });
  client.follow();

  const act = async (key: string) => {
    const row = model.selectable()[at];
    if (!row) return;
    try {
      if ((key === "a" || key === "d") && row.kind === "consent") {
        const replies = await client.request({ op: key === "a" ? "approve" : "deny", id: row.item.id });
        if (!replies.some((r) => r.ok)) model.note = `consent ${row.item.id} was no longer waiting`;
      } else if (key === "l") {
        const agent = row.kind === "consent" ? row.item.agent : row.agent;
        lock(cli.deps(), cli.catalogue, { agent });
        const replies = await client.request({ op: "changed", what: "lock", agent });
        const cancelled = replies.reduce((n, r) => n + (r.cancelled ?? 0), 0);
        const ended = replies.reduce((n, r) => n + (r.ended ?? 0), 0);
        model.note = `locked ${agent}: ${cancelled} call(s) cancelled, ${ended} session(s) ended (rta lock lift --agent ${agent})`;
      }
    } catch (err) {
      model.note = err instanceof RtaError ? `${err.message} (${err.code})` : String(err);
    }
    redraw();
  };

  return new Promise<number>((resolve) => {
    const stdin = process.stdin;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      stdin.off("data", onKey);
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      process.stdout.off("resize", redraw);
      process.off("SIGTERM", finish);
      process.off("SIGINT", finish);
      process.stdout.write(ALT_SCREEN_OFF);
      client.close();
      resolve(Exit.ok);
    };
    const onKey = (chunk: Buffer) => {
      const key = chunk.toString("utf8");
      if (key === "q" || key === "\x03" || key === "\x04") return finish();
      if (key === "\x1b[A" || key === "k") at--;
      else if (key === "\x1b[B" || key === "j") at++;
      else if (key === "a" || key === "d" || key === "l") return void act(key);
      redraw();
    };
    process.stdout.write(ALT_SCREEN_ON);
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.on("data", onKey);
    stdin.resume();
    process.stdout.on("resize", redraw);
    process.once("SIGTERM", finish);
    // with stdin not a terminal (no raw mode), Ctrl-C is a signal: the screen is still given back
    process.once("SIGINT", finish);
    draw();
  });
}
