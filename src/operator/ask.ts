/**
 * A person asked through the operator channel by a process that serves no
 * agent: `rta grant allow` under `grant_from = "operator"` waits here until a
 * person at `rta operator` approves (or `rta operator approve ID`). The
 * process opens a socket of its own in the run dir for as long as it waits,
 * so every `rta operator` sees its question as a pending consent of a server
 * whose transport is "cli", and answers it the same way.
 */
import { randomBytes } from "node:crypto";
import type { Catalogue } from "../core/catalogue.ts";
import { RtaError } from "../core/errors.ts";
import type { ConsentAnswer, ConsentPrompt } from "../gate/consent.ts";
import type { Deps } from "../gate/deps.ts";
import { OperatorChannel } from "./channel.ts";
import { ensureRunDir } from "./runDir.ts";
import { ServerState } from "./state.ts";

/** What askOperator is handed. */
export interface OperatorQuestion {
  /** the run dir (runDirOf(env, dataDir)) */
  runDir: string;
  deps: Deps;
  catalogue: Catalogue;
  /** what is asked: kind "grant" with choices, or "consent"; its timeoutMs bounds the wait */
  prompt: ConsentPrompt;
  signal: AbortSignal;
  /** told the pending id once it waits (e.g. to say `waiting for rta operator to approve ID`) */
  onPending?: (id: string) => void;
}

/**
 * Waits for a person at `rta operator` to answer `prompt`: "accept" (or
 * `{chosen}` for a prompt with choices), "decline", "timeout" past
 * prompt.timeoutMs, "decline" when `signal` aborts. Refuses
 * core.operator.unsafe when the run dir is not private (nothing is asked).
 */
export async function askOperator(q: OperatorQuestion): Promise<ConsentAnswer> {
  ensureRunDir(q.runDir);
  const id = randomBytes(4).toString("hex");
  const state = new ServerState(
    { server: id, pid: process.pid, transport: "cli", started: new Date(q.deps.clock.now()).toISOString() },
    q.deps,
    q.catalogue,
  );
  let why = "";
  const channel = await OperatorChannel.open({
    session: id,
    runDir: q.runDir,
    say: (line) => {
      why = line;
    },
    state,
  });
  if (!channel) throw new RtaError("core.operator.unsafe", why.replace(/^rta: /, ""), "check the data dir's run dir");
  try {
    const asked = state.ask(q.prompt, q.signal);
    const pending = state.hello().pending[0];
    if (pending) q.onPending?.(pending.id);
    return await asked;
  } finally {
    // the reply to the person who answered leaves before the socket closes
    await new Promise((resolve) => setImmediate(resolve));
    channel.close();
  }
}
