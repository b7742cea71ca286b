/**
 * The codes of a person's say-so at a terminal (a grant's `issue it?`, a
 * plugin's `install it?`, policy.toml's grant_from) and of the operator
 * channel a person answers through, kept apart from
 * errors.ts so each catalogue file stays readable; errors.ts spreads them
 * into the one catalogue, so a code is raised and documented alike.
 */
import { type CodeEntry, Exit } from "./exitCodes.ts";

/** core.grant.declined, .noterminal, .nooperator, core.plugin.declined and core.operator.*, in errors.ts's shape. */
export const personCodes = {
  "core.grant.declined": {
    doc: "the person at the terminal did not answer yes to `issue it?` (or to the confirmation grant_from asks for), so nothing was issued or lifted",
    exit: Exit.refused,
  },
  "core.grant.noterminal": {
    doc: "the team policy's grant_from = \"terminal\" takes grants, lock lifts and tokens only from a person at an interactive terminal, and this process has none (an agent's shell tool, a pipe, cron)",
    exit: Exit.refused,
  },
  "core.grant.nooperator": {
    doc: 'the team policy\'s grant_from = "operator" takes grants, lock lifts and tokens only once `rta operator` approves them, and no approval came',
    exit: Exit.refused,
  },
  "core.plugin.declined": {
    doc: "the person at the terminal did not answer yes to `install it?`, or was not asked (piped, without --yes)",
    exit: Exit.refused,
  },
  "core.operator.unsafe": { doc: "the operator channel's dir is not ours with mode 0700", exit: Exit.refused },
  "core.operator.unknown": { doc: "no server running holds a pending consent by that id", exit: Exit.unavailable },
} as const satisfies Record<string, CodeEntry>;
