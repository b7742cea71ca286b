/**
 * A second server on the same root, played by the record: its `run` line is written between the gate and the
 * capability, and the sink does then, once, what `meanwhile` holds.
 */
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import type { AgentOrigin } from "../../src/core/call.ts";
import { PathGate } from "../../src/gate/paths/pathGate.ts";
import { agentRules } from "../../src/gate/paths/rules.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { MemoryRecord, type RecordEntry } from "../../src/record/append.ts";
import { grantFor, testDeps } from "./fixtures.ts";

export class RacingRecord extends MemoryRecord {
  /** what the other server does while this one writes its `run` line */
  meanwhile: () => void = () => {};

  override append(entry: RecordEntry): void {
    super.append(entry);
    if (entry.kind === "run") {
      this.meanwhile();
      this.meanwhile = () => {};
    }
  }
}

const catalogue = builtinCatalogue();
const origin: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };

/** Calls as claude, granted fs, on `root` alone under the agent's rules, recorded in `record`: "ok" or the code. */
export function racingCaller(root: string, record: RacingRecord) {
  const base = testDeps({ record });
  const deps = { ...base, roots: new PathGate([root], agentRules(base.dirs)) };
  grantFor(deps, { target: "fs" });
  return async (tool: string, args: Record<string, unknown>): Promise<string> => {
    const out = await runCall({ capability: tool, args, origin }, catalogue, deps);
    return out.ok ? "ok" : out.error.code;
  };
}
