/** Exit statuses and what a catalogue entry holds: shared by the code catalogues (errors.ts, storeCodes.ts). */

/** Exit statuses, chosen once so scripts can branch on them. */
export const Exit = {
  ok: 0,
  /** the capability ran and failed, or something unexpected happened */
  failure: 1,
  /** the call was malformed: a typo, a value out of range, a missing input */
  usage: 2,
  /** a gate refused the call: grant, lock, fence, path */
  refused: 3,
  /** the thing asked about does not exist or is not supported here */
  unavailable: 4,
  /** the answer is larger than the caller may receive */
  tooLarge: 5,
} as const;
export type ExitCode = (typeof Exit)[keyof typeof Exit];

export interface CodeEntry {
  /** one line for `docs/errors.md` and for a person reading a record */
  doc: string;
  exit: ExitCode;
}
