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
  "offsite.stale": {
    doc: "a warning: the service could not be reached, so answers kept from an earlier day are given; the CLI exits 0",
    exit: Exit.ok,
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

/** audit.deps.* and kube.* codes: the audits that read lockfiles for osv.dev and run kubectl against a cluster. */
export const auditCodes = {
  "audit.deps.offline": {
    doc: "a warning: osv.dev could not be asked, so audit.deps lists the dependencies unchecked (id null)",
    exit: Exit.unavailable,
  },
  "audit.deps.stale": {
    doc: "a warning: osv.dev could not be reached, and audit.deps gives the answers it kept from an earlier call",
    exit: Exit.ok,
  },
  "audit.deps.partial": {
    doc: "a warning: osv.dev named more vulnerabilities or pages than audit.deps asks for in one call; those past it are listed by id alone",
    exit: Exit.failure,
  },
  "audit.deps.unreadable": {
    doc: "a warning: a lockfile audit.deps found could not be parsed, or is too large (alone, or past 128 MiB read together), and was passed by",
    exit: Exit.failure,
  },
  "audit.deps.nofiles": {
    doc: "a warning: audit.deps found no lockfile or manifest it reads under the path",
    exit: Exit.failure,
  },
  "kube.tool.missing": { doc: "kubectl is not installed where rta looks for it", exit: Exit.unavailable },
  "kube.unreachable": {
    doc: "the cluster of kubectl's context did not answer in time, or refused the connection",
    exit: Exit.failure,
  },
  "kube.failed": {
    doc: "kubectl ended with an error: no context, credentials refused, a read forbidden, or output that is not JSON",
    exit: Exit.failure,
  },
} as const satisfies Record<string, CodeEntry>;
