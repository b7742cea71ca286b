/**
 * What one request may be, over stdio and HTTP alike: its bytes, the values
 * it holds (counted before the SDK checks it against its schema), and how
 * many requests are served at once.
 */

/** No model writes four mebibytes of arguments to one call; a request past it is held to be hostile or a mistake. */
export const REQUEST_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * Requests served at once over stdio, and for one agent over HTTP. A model
 * calls a handful of tools in parallel; 3,000 greps sent at once held 1 GB
 * and growing, with no answer in 30 s. Over HTTP a 2025-11-25 session's open
 * GET stream is not counted.
 */
export const REQUESTS_IN_FLIGHT = 32;

/**
 * Messages a client may have read past its REQUESTS_IN_FLIGHT, over stdio
 * (requests waiting their turn while reading goes on, waitingRequests.ts) and
 * over HTTP (POSTs let in that may carry no request, http/limits.ts), and the
 * bytes those may hold. Without them a client whose every place is a call that
 * hangs (a plugin that never answers) could not cancel any of them: the
 * cancellation would sit unread behind the request one past the count.
 */
export const PAST_COUNT_MESSAGES = 8;
/** What the messages past the count may hold: a cancellation is a few hundred bytes. */
export const PAST_COUNT_BYTES = 64 * 1024;

/**
 * Values one request may hold, counting every member of every object and
 * array. Every input rta declares is a scalar, so a real request holds a few
 * dozen. The SDK checks a request against its schema and builds one issue
 * per wrong member: 300,000 of them in a 3 MiB prompts/get held the event
 * loop for a second each, so four such requests in a row from one agent kept
 * every other agent (and /healthz) waiting seconds.
 */
export const REQUEST_VALUE_LIMIT = 10_000;
/**
 * Said of a request holding more than REQUEST_VALUE_LIMIT values, over HTTP
 * and stdio alike: the SDK's schema check builds an issue per wrong member,
 * and a deep one broke the stack on the way to its answer.
 */
export const TOO_MANY_VALUES = `the request holds more than ${REQUEST_VALUE_LIMIT} values`;

/**
 * Whether a parsed request holds more than `limit` values (REQUEST_VALUE_LIMIT).
 * Walks without recursion and stops as soon as the count passes the limit,
 * so a deep or wide request costs no more than the limit to refuse.
 */
export function holdsTooManyValues(value: unknown, limit = REQUEST_VALUE_LIMIT): boolean {
  let count = 1;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    const members = Array.isArray(v) ? v : Object.values(v);
    count += members.length;
    if (count > limit) return true;
    for (const m of members) if (typeof m === "object" && m !== null) stack.push(m);
  }
  return false;
}
