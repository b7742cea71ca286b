/**
 * `rta completion bash|zsh|fish` and the hidden `rta __complete <words...>`
 * the scripts call. The scripts hold no list of their own: every candidate
 * comes from the command tree this binary builds (verbs, flags, a flag's
 * choices, the clients), from the catalogue (capability and area names), and,
 * only when the word asks for one, from the grant store (agent names, grant,
 * lock and token ids), which is read only if it exists and never made.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Command, Option } from "commander";
import { dirs } from "../core/dirs.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { listGrants } from "../gate/operator/grants.ts";
import { listLocks } from "../gate/operator/locks.ts";
import { listTokens } from "../gate/operator/tokens.ts";
import { GATE_STORE_FILE } from "../gate/store/db.ts";
import { ERAS } from "../mcp/eras.ts";
import { CLIENTS } from "../mcp/install.ts";
import type { Cli } from "./factory.ts";
import { reportError } from "./report.ts";

/** The hidden verb the scripts call; main() answers it before the command line is parsed. */
const COMPLETE_VERB = "__complete";

const SHELLS = ["bash", "zsh", "fish"] as const;

const BASH = `# rta completion for bash. Load it in this shell:  source <(rta completion bash)
# or for every shell:  mkdir -p ~/.local/share/bash-completion/completions
#   rta completion bash > ~/.local/share/bash-completion/completions/rta
_rta() {
  local line
  COMPREPLY=()
  while IFS= read -r line; do
    COMPREPLY+=("$line")
  done < <("\${COMP_WORDS[0]}" ${COMPLETE_VERB} "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
}
complete -o default -F _rta rta
`;

const ZSH = `#compdef rta
# rta completion for zsh. Load it in this shell, after compinit:  source <(rta completion zsh)
# or for every shell:  mkdir -p ~/.zfunc && rta completion zsh > ~/.zfunc/_rta
# with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc (then start a new shell)
_rta() {
  local -a candidates
  candidates=("\${(@f)$("\${words[1]}" ${COMPLETE_VERB} "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if (( \${#candidates} )) && [[ -n "\${candidates[1]}" ]]; then
    compadd -Q -- "\${candidates[@]}"
  else
    _files
  fi
}
if [[ "\${funcstack[1]}" == "_rta" ]]; then
  _rta "$@"
else
  compdef _rta rta
fi
`;

const FISH = `# rta completion for fish. Load it in this shell:  rta completion fish | source
# or for every shell:  mkdir -p ~/.config/fish/completions
#   rta completion fish > ~/.config/fish/completions/rta.fish
function __rta_complete
    set -l done (commandline -opc)
    set -l cur (commandline -ct)
    $done[1] ${COMPLETE_VERB} $done[2..-1] "$cur" 2>/dev/null
end
complete -c rta -f -a '(__rta_complete)'
`;

/** Prints the completion script for `shell`; refuses any other shell (core.input.option). */
export function completion(cli: Cli, shell: string): number {
  const script = { bash: BASH, zsh: ZSH, fish: FISH }[shell];
  if (script === undefined)
    return reportError(
      cli.io,
      new RtaError(
        "core.input.option",
        `shell cannot be ${JSON.stringify(shell)}`,
        `shell is one of: ${SHELLS.join(", ")}`,
      ),
      false,
    );
  cli.io.out(script);
  return Exit.ok;
}

function sub(cmd: Command, word: string): Command | undefined {
  return cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
}

/** `--color`, every command's: main() takes it out of the line before commander sees it (io.ts takeColor). */
const COLOR = new Option("--color <when>").choices(["auto", "always", "never"]);

function optionOf(cmd: Command, flag: string): Option | undefined {
  return flag === "--color" ? COLOR : cmd.options.find((o) => o.long === flag || o.short === flag);
}

function isHidden(cmd: Command): boolean {
  return (cmd as unknown as { _hidden?: boolean })._hidden === true;
}

/**
 * Prints, one a line, what may stand at the last of `words` (the words after
 * `rta`, the last the one being typed, "" for a new one): the verbs and
 * arguments the command so far takes, or its flags when the word starts with
 * `-`, or a flag's values. Refuses nothing: a store it cannot read gives no
 * candidates from it.
 */
export function complete(cli: Cli, program: Command, words: string[]): number {
  const cur = words.at(-1) ?? "";
  let cmd = program;
  const path: string[] = [];
  const positional: string[] = [];
  let awaiting: Option | undefined;
  for (const word of words.slice(0, -1)) {
    if (awaiting) {
      awaiting = undefined;
      continue;
    }
    if (word.startsWith("-") && word !== "-") {
      const opt = optionOf(cmd, word.split("=")[0] as string);
      if (opt && (opt.required || opt.optional) && !word.includes("=")) awaiting = opt;
      continue;
    }
    const next = positional.length === 0 ? sub(cmd, word) : undefined;
    if (next) {
      cmd = next;
      path.push(next.name());
    } else positional.push(word);
  }
  let candidates: string[];
  if (awaiting) candidates = optionValues(cli, awaiting, path.join(" "));
  else if (cur.startsWith("-"))
    candidates = [...cmd.options.flatMap((o) => (o.long && !o.hidden ? [o.long] : [])), "--color", "--help"];
  else {
    const verbs = positional.length === 0 ? cmd.commands.filter((c) => !isHidden(c)).map((c) => c.name()) : [];
    candidates = [...verbs, ...argumentValues(cli, path.join(" "), positional.length, cur)];
  }
  const out = [...new Set(candidates.filter((c) => c.startsWith(cur)))];
  if (out.length > 0) cli.io.out(`${out.join("\n")}\n`);
  return Exit.ok;
}

/**
 * A flag's values: its choices, a capability input's options (`proc list --sort`), the protocol revisions of `mcp
 * inspect --era` (which rta checks itself, to refuse one with its own code), or the agents the store knows.
 */
function optionValues(cli: Cli, opt: Option, path: string): string[] {
  if (opt.argChoices) return opt.argChoices;
  if (opt.long === "--agent") return fromStore(cli, "agents");
  if (path === "mcp inspect" && opt.long === "--era") return [...ERAS];
  const cap = cli.catalogue.all().find((c) => c.words.join(" ") === path);
  const input = opt.long === undefined ? undefined : cap?.inputs[opt.long.slice(2).replaceAll("-", "_")];
  return input?.options ? [...input.options] : [];
}

/**
 * An argument's candidates. A grant or lock names an area or a capability:
 * the areas first, and an area's capabilities once the area is typed (`note`
 * or `note.`), so `grant allow no` completes to `note` as a path does to its
 * folder.
 */
function argumentValues(cli: Cli, path: string, index: number, cur: string): string[] {
  const capabilities = () => cli.catalogue.all().map((c) => c.name);
  if (index !== 0) return [];
  switch (path) {
    case "explain":
      // an area lists its capabilities (`rta explain note`)
      return [...cli.catalogue.areas(), ...capabilities()];
    case "pkg remove":
      return cli.plugins().flatMap((p) => (p.name === "(index)" ? [] : [p.name]));
    case "grant allow":
    case "lock": {
      const areas = cli.catalogue.areas();
      return cur.includes(".") || areas.includes(cur) ? [...areas, ...capabilities()] : areas;
    }
    case "grant revoke":
      return fromStore(cli, "grants");
    case "lock lift":
      return fromStore(cli, "locks");
    case "mcp token revoke":
      return fromStore(cli, "tokens");
    case "mcp install":
      return [...CLIENTS];
    case "completion":
      return [...SHELLS];
    default:
      return [];
  }
}

/** Names and ids from the grant store, only when it exists: a completion never makes one. */
function fromStore(cli: Cli, what: "agents" | "grants" | "locks" | "tokens"): string[] {
  if (!existsSync(join(dirs(cli.io.env).data, GATE_STORE_FILE))) return [];
  try {
    const deps = cli.deps();
    if (what === "grants") return listGrants(deps, undefined).grants.flatMap((g) => (g.state === "live" ? [g.id] : []));
    if (what === "locks") return listLocks(deps).locks.flatMap((l) => (l.state === "active" ? [l.id] : []));
    if (what === "tokens") return listTokens(deps).tokens.flatMap((t) => (t.state === "live" ? [t.id] : []));
    const agents = [
      ...listGrants(deps, undefined).grants.map((g) => g.agent),
      ...listLocks(deps).locks.map((l) => l.agent),
      ...listTokens(deps).tokens.map((t) => t.agent),
    ];
    return [...new Set(agents.filter((a): a is string => typeof a === "string" && a !== "" && a !== "*"))].sort();
  } catch {
    return [];
  }
}
