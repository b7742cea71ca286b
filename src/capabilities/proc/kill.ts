/**
 * proc.kill: sends a signal from a fixed list to one process (destructive: an
 * agent needs a grant, which can name the pid). It will not signal rta itself.
 */
import { define } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import { object } from "../../core/result.ts";

const SIGNALS = ["TERM", "INT", "HUP", "QUIT", "KILL", "USR1", "USR2", "STOP", "CONT"] as const;

export const procKill = define({
  name: "proc.kill",
  summary: "Send a signal to a process",
  searchWords: ["stop process", "terminate", "end task", "sigterm"],
  safety: "destructive",
  inputs: {
    pid: { type: "integer", description: "the process id", required: true, range: [2, 4_194_304], positional: true },
    signal: { type: "string", description: "the signal to send", options: SIGNALS, default: "TERM" },
  },
  record: "pid",
  result: { shape: "object" },
  examples: [{ command: "rta proc kill 4242 --signal INT", note: "interrupt process 4242" }],
  async run(args) {
    const pid = args.pid;
    const signal = String(args.signal);
    if (pid === process.pid || pid === process.ppid) {
      throw new RtaError(
        "proc.denied",
        `${pid} is rta itself or the program that started it`,
        "stop the server from its client instead",
      );
    }
    try {
      process.kill(pid, `SIG${signal}` as NodeJS.Signals);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ESRCH")
        throw new RtaError("proc.notfound", `no process has the pid ${pid}`, "proc.list shows the processes there are");
      if (code === "EPERM")
        throw new RtaError("proc.denied", `process ${pid} is not rta's to signal`, "it belongs to another user");
      throw err;
    }
    return object({ pid, signal, sent: true });
  },
});
