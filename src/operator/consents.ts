/**
 * A consent waiting for a person at the operator channel, and how a person's
 * approve or deny settles it (state.ts keeps them, by id).
 */
import { RtaError } from "../core/errors.ts";
import { argLines, type ConsentAnswer } from "../gate/consent.ts";
import type { ChannelRequest, ConsentPending } from "./wire.ts";

/** A consent waiting for a person: its event, and what settles it. */
export interface Waiting {
  event: ConsentPending;
  settle: (answer: ConsentAnswer) => void;
}

/**
 * Settles `waiting` as the request says: deny declines; approve accepts, or
 * for a question with choices takes the one asked (the first by default).
 * Refuses core.operator.unknown when nothing waits by that id, and
 * core.input.invalid for a choice the question does not offer.
 */
export function settleWith(
  waiting: Waiting | undefined,
  req: Extract<ChannelRequest, { op: "approve" | "deny" }>,
): void {
  if (!waiting) throw new RtaError("core.operator.unknown", `no consent ${req.id} is waiting here`);
  const choices = waiting.event.choices;
  if (req.op === "deny") waiting.settle("decline");
  else if (!choices || choices.length === 0) waiting.settle("accept");
  else {
    const chosen = req.choice ?? choices[0];
    if (chosen === undefined || !choices.includes(chosen))
      throw new RtaError("core.input.invalid", `choose one of ${choices.join(", ")}`);
    waiting.settle({ chosen });
  }
}

/** Each argument's value as one short line: argLines' escaping and cut. Refuses nothing. */
export function cutArgs(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const line of argLines(args)) {
    const at = line.indexOf(": ");
    out[line.slice(0, at)] = line.slice(at + 2);
  }
  return out;
}

/** The arguments of a call to no capability this server knows: their names only, as the record keeps them. */
export function namesOnly(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(args).map((k) => [k, "…"]));
}
