/**
 * The codes of the free reads that ask a fixed service off the machine
 * (offsite.*) and of the end-of-life reads (eol.*), kept apart from errors.ts
 * so each catalogue file stays readable; errors.ts spreads them in.
 */
import { type CodeEntry, Exit } from "./exitCodes.ts";

/** offsite.* and eol.* codes, in the shape of errors.ts's catalogue. */
export const offsiteCodes = {
  "offsite.unreachable": {
    doc: "the service a free read asks could not be reached or did not answer in time: rta is offline, or it is down",
    exit: Exit.unavailable,
  },
  "offsite.redirect": {
    doc: "the service sent a redirect off the base URL the operator set, which is never followed",
    exit: Exit.refused,
  },
  "offsite.url": {
    doc: "the base URL of an offsite read is not an http(s) URL the operator set (config's defaults or the command line)",
    exit: Exit.usage,
  },
  "offsite.answer.toolarge": { doc: "the service's answer is larger than rta takes", exit: Exit.failure },
  "offsite.answer.invalid": {
    doc: "the service answered with an error status, or with what is not the shape it documents",
    exit: Exit.failure,
  },
  "eol.product.unknown": { doc: "endoflife.date has no product of that name", exit: Exit.unavailable },
  "eol.cycle.unknown": { doc: "the product has no release cycle matching that version", exit: Exit.unavailable },
  "eol.version.undetected": {
    doc: "no version was given and rta cannot find one installed here: give it",
    exit: Exit.unavailable,
  },
} as const satisfies Record<string, CodeEntry>;
