/**
 * A capability's notes are written in an agent's words: an argument as
 * `from_line=15`, a tool as `fs_list`. A person at the CLI types
 * `--from-line 15` and `rta fs list`: this is the one place that translates,
 * for what the CLI says on stderr (notes, and refusals of a capability's
 * command). What an agent is sent is never passed through it.
 */
import type { Capability } from "../core/capability.ts";
import type { Catalogue } from "../core/catalogue.ts";

/** `name=value`, an argument as an agent sends it, inside a note. */
const ARGUMENT = /(?<![\w./-])([a-z][a-z0-9]*(?:_[a-z0-9]+)*)=([^\s\]),;]+)/g;
/** A tool's name: two words or more joined by underscores. */
const TOOL = /(?<![\w./-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g;
/** A capability's own name, as a hint names it: `note.list shows the notes there are`. */
const CAPABILITY = /(?<![\w./-])[a-z][a-z0-9]*(?:\.[a-z][a-z0-9_]*)+(?![\w/-]|\.\w)/g;
/** An argument a shape refusal names: `argument "from_line" must be an integer`. */
const NAMED = /argument "([a-z][a-z0-9_]*)"/g;
/** An input a refusal begins with: `limit is 0, outside 1..1000`, `sort cannot be "x"`. */
const LEADING_INPUT = /^([a-z][a-z0-9]*(?:_[a-z0-9]+)*)(?= (?:is|cannot be) )/;
/** An input a hint says to give: `give limit a number from 1 to 1000`. */
const GIVEN_INPUT = /\b(give )([a-z][a-z0-9]*(?:_[a-z0-9]+)*)(?=[ :])/g;
/** A span in double quotes (as JSON writes a path) or in backticks (a command). */
const QUOTED = /("(?:[^"\\]|\\.)*"|`[^`]*`)/;
/** The list of inputs a shape refusal's hint ends on: "proc.list takes: sort (string: cpu|mem|pid), limit (...)". */
const TAKES = /(takes: |, )([a-z][a-z0-9_]*) \(/g;

/**
 * `text` in CLI spelling: an argument of `cap` that is a flag as `--name value`
 * or `--name` (where a refusal names it too: `--limit is 0`, `give --limit a
 * number`; a positional one is left as it is), a tool's name and a
 * capability's (`fs_list`, `fs.list`) as `rta area thing`, and a
 * note's surrounding [brackets] dropped; nothing inside quotes or backticks is
 * changed. Refuses nothing; text with none of
 * these is returned as it is.
 */
export function cliWords(text: string, cap: Capability | undefined, catalogue: Catalogue): string {
  const flag = (name: string) => {
    const spec = cap?.inputs[name];
    return spec && !spec.positional ? `--${name.replaceAll("_", "-")}` : undefined;
  };
  const spelled = (part: string) =>
    part
      .replace(GIVEN_INPUT, (all, give: string, name: string) => {
        const f = flag(name);
        return f ? `${give}${f}` : all;
      })
      .replace(ARGUMENT, (all, name: string, value: string) => {
        const f = flag(name);
        return f ? `${f} ${value}` : all;
      })
      .replace(TAKES, (all, lead: string, name: string) => {
        const f = flag(name);
        return f ? `${lead}${f} (` : all;
      })
      .replace(TOOL, (word) => {
        const named = catalogue.byTool(word);
        return named ? `rta ${named.words.join(" ")}` : word;
      })
      .replace(CAPABILITY, (word) => {
        const named = catalogue.byName(word);
        return named ? `rta ${named.words.join(" ")}` : word;
      });
  return text
    .replace(NAMED, (all, name: string) => flag(name) ?? all)
    .split("\n")
    .map((line) =>
      line
        .replace(/^\[(.*)\]$/, "$1")
        .replace(LEADING_INPUT, (name: string) => flag(name) ?? name)
        // what stands in quotes or backticks (a path, a value sent, a command) is left as it is
        .split(QUOTED)
        .map((part, i) => (i % 2 === 1 ? part : spelled(part)))
        .join(""),
    )
    .join("\n");
}
