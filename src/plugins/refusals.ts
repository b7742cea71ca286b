/**
 * What a plugin's refusals say: unavailable (its describe was refused, or its
 * binary changed since) or failed (a call answered wrongly or not at all).
 * Kept apart from protocol.ts so that the gate, which refuses a changed
 * binary's call too, and the factory do not evaluate protocol.ts's checks and
 * compiled schemas in a process that runs no plugin.
 */
import { RtaError } from "../core/errors.ts";
import { MESSAGE_VALUE_LIMIT } from "./frame.ts";

/** The refusal that makes a plugin unavailable, with the reason. */
export function invalid(name: string, reason: string): RtaError {
  return new RtaError(
    "core.plugin.invalid",
    `plugin ${name} is unavailable: ${reason}`,
    "the person running rta can run `rta doctor`, and reinstall or remove the plugin",
  );
}

/**
 * A call of a plugin whose binary no longer hashes to the one that described
 * it (replaced or removed under a running server): what it declared may not
 * be what it would do. A server started again describes it again.
 */
export function changedSinceDescribed(name: string, gone: boolean): RtaError {
  return new RtaError(
    "core.plugin.invalid",
    `plugin ${name} is unavailable: its binary ${gone ? "is gone" : "changed"} since it was described`,
    "a person can run `rta pkg verify` to see it; the server describes it again when it is started again",
  );
}

/** A call a plugin failed: what the caller is told (never the plugin's stderr, which `detail` keeps for the record). */
export function failed(name: string, reason: string, detail?: string): RtaError {
  const err = new RtaError(
    "core.plugin.failed",
    `plugin ${name} failed: ${reason}`,
    "the call may be sent again; the person running rta can read the record and `rta doctor`",
  );
  if (detail !== undefined && detail !== "") err.detail = detail;
  return err;
}

/** An answer within the byte bound holding more values than a message may. */
export function tooManyValues(): RtaError {
  return new RtaError(
    "core.result.toolarge",
    `the result holds more than ${MESSAGE_VALUE_LIMIT.toLocaleString("en")} values, over the limit`,
    "ask for less: a smaller limit, a tighter filter or a narrower path",
  );
}
